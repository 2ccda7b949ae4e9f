//! The front server of the proxy: the upstream's definitions, each with a handler that forwards
//! to it.

use std::sync::Arc;

use presa::client::{Client, ClientError};
use presa::core::{
    CallToolResult, CompletionReference, ErrorCode, GetPromptResult, Implementation, LoggingLevel,
    Meta, ProgressNotificationParams, Prompt, ReadResourceResult, ResourceTemplate,
    ServerCapabilities, UriTemplate,
};
use presa::server::{
    CompletionInput, Context, ListKind, PromptArgs, ProtocolError, Server, ServerBuilder, Variables,
};
use serde_json::Value;
use std::future::{Future, IntoFuture as _};
use tokio::sync::mpsc;

use super::{Muted, Routes};
use crate::failure::{Failure, chain};

/// The `_meta` key of a 2026-07-28 result that names the server: the front stamps its own.
const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

/// The log messages asked of the upstream: all of them; the front passes on those its own
/// client asked for.
pub(super) const EVERY_LOG: LoggingLevel = LoggingLevel::Debug;

/// The front server mirroring `upstream` as it is now.
pub(super) async fn build(
    upstream: &Client,
    bus: Arc<Muted>,
    routes: &Routes,
) -> Result<Server, Failure> {
    let info = upstream.info();
    let identity = info
        .server_info
        .clone()
        .unwrap_or_else(|| Implementation::new("proxied", "0"));
    let capabilities = &info.capabilities;
    let mut builder = Server::builder(identity.name.clone(), identity.version.clone())
        .event_bus(bus)
        // the upstream checks its own arguments and results
        .validate(false)
        .list_changed(announces_list_changes(capabilities))
        .subscribe(
            capabilities
                .resources
                .as_ref()
                .is_some_and(|r| r.subscribe == Some(true)),
        )
        .logging(capabilities.logging.is_some());
    if let Some(title) = &identity.title {
        builder = builder.title(title);
    }
    if let Some(instructions) = &info.instructions {
        builder = builder.instructions(instructions);
    }
    let completions = capabilities.completions.is_some();
    let forward = Forward {
        upstream: upstream.clone(),
        routes: routes.clone(),
    };
    if capabilities.tools.is_some() {
        for tool in upstream.list_tools().await? {
            builder = builder.tool(tool.clone(), forward.tool(tool.name));
        }
    }
    if capabilities.prompts.is_some() {
        for prompt in upstream.list_prompts().await? {
            builder = builder.prompt(prompt.clone(), forward.prompt(prompt.name.clone()));
            if completions {
                builder = completing_prompt(builder, &forward, &prompt);
            }
        }
    }
    if capabilities.resources.is_some() {
        for resource in upstream.list_resources().await? {
            builder = builder.resource(resource.clone(), forward.resource(resource.uri));
        }
        for template in upstream.list_resource_templates().await? {
            let handler = forward.template(&template.uri_template);
            builder = builder.resource_template(template.clone(), handler);
            if completions {
                builder = completing_template(builder, &forward, &template);
            }
        }
    }
    builder.build().map_err(|e| Failure::Protocol(chain(&e)))
}

/// Whether the upstream announces any list change: then so does the front.
fn announces_list_changes(capabilities: &ServerCapabilities) -> bool {
    let tools = capabilities.tools.as_ref().and_then(|t| t.list_changed);
    let prompts = capabilities.prompts.as_ref().and_then(|p| p.list_changed);
    let resources = capabilities.resources.as_ref().and_then(|r| r.list_changed);
    [tools, prompts, resources].contains(&Some(true))
}

/// Refreshes the front's list `kind` from the upstream's: what went is removed, what came is
/// added, the rest replaced; the front announces one change.
pub(super) async fn refresh(
    upstream: &Client,
    server: &Server,
    bus: &Muted,
    routes: &Routes,
    kind: ListKind,
) -> Result<(), Failure> {
    let forward = Forward {
        upstream: upstream.clone(),
        routes: routes.clone(),
    };
    let added = |error: presa::server::BuildError| Failure::Protocol(chain(&error));
    match kind {
        ListKind::Tools => {
            let tools = upstream.list_tools().await?;
            bus.quietly(kind, || {
                for name in server.tool_names() {
                    server.remove_tool(&name);
                }
                tools.into_iter().try_for_each(|tool| {
                    let handler = forward.tool(tool.name.clone());
                    server.add_tool(tool, handler).map_err(added)
                })
            })
        }
        ListKind::Prompts => {
            let prompts = upstream.list_prompts().await?;
            let old = server.prompt_names();
            bus.quietly(kind, || {
                for name in old {
                    server.remove_prompt(&name);
                }
                prompts.into_iter().try_for_each(|prompt| {
                    let handler = forward.prompt(prompt.name.clone());
                    server.add_prompt(prompt, handler).map_err(added)
                })
            })
        }
        ListKind::Resources => {
            let resources = upstream.list_resources().await?;
            let templates = upstream.list_resource_templates().await?;
            let (old_resources, old_templates) =
                (server.resource_uris(), server.resource_template_uris());
            bus.quietly(kind, || {
                for uri in old_resources {
                    server.remove_resource(&uri);
                }
                for template in old_templates {
                    server.remove_resource_template(&template);
                }
                resources.into_iter().try_for_each(|resource| {
                    let handler = forward.resource(resource.uri.clone());
                    server.add_resource(resource, handler).map_err(added)
                })?;
                templates.into_iter().try_for_each(|template| {
                    let handler = forward.template(&template.uri_template);
                    server
                        .add_resource_template(template, handler)
                        .map_err(added)
                })
            })
        }
        _ => Ok(()),
    }
}

/// Registers forwarding completions for `prompt`'s arguments.
fn completing_prompt(builder: ServerBuilder, forward: &Forward, prompt: &Prompt) -> ServerBuilder {
    let arguments = prompt.arguments.iter().flatten();
    arguments.fold(builder, |builder, argument| {
        let reference = CompletionReference::prompt(prompt.name.clone());
        builder.complete_prompt_argument(
            &prompt.name,
            &argument.name,
            forward.completion(reference),
        )
    })
}

/// Registers forwarding completions for `template`'s variables.
fn completing_template(
    builder: ServerBuilder,
    forward: &Forward,
    template: &ResourceTemplate,
) -> ServerBuilder {
    let Ok(parsed) = UriTemplate::parse(&template.uri_template) else {
        return builder;
    };
    let variables: Vec<String> = parsed.variables().map(str::to_owned).collect();
    variables.iter().fold(builder, |builder, variable| {
        let reference = CompletionReference::resource(template.uri_template.clone());
        builder.complete_template_variable(
            &template.uri_template,
            variable,
            forward.completion(reference),
        )
    })
}

/// Makes the handlers that forward to the upstream.
#[derive(Clone)]
struct Forward {
    upstream: Client,
    routes: Routes,
}

impl Forward {
    fn tool(
        &self,
        name: String,
    ) -> impl Fn(Value, Context) -> futures_like::Boxed<Result<CallToolResult, ProtocolError>>
    + Send
    + Sync
    + 'static {
        let forward = self.clone();
        move |arguments: Value, cx: Context| {
            let (forward, name) = (forward.clone(), name.clone());
            Box::pin(async move {
                let (progress, passing) = progress_of(&cx);
                let call = forward
                    .upstream
                    .call_tool(name, arguments)
                    .log_level(EVERY_LOG)
                    .on_progress(progress)
                    .into_future();
                let called = forward.serving(&cx, call).await;
                passing.await.ok();
                let mut result = called.map_err(protocol_error)?;
                result.result_type = None;
                unstamp(&mut result.meta);
                Ok(result)
            })
        }
    }

    fn prompt(
        &self,
        name: String,
    ) -> impl Fn(PromptArgs, Context) -> futures_like::Boxed<Result<GetPromptResult, ProtocolError>>
    + Send
    + Sync
    + 'static {
        let forward = self.clone();
        move |arguments: PromptArgs, cx: Context| {
            let (forward, name) = (forward.clone(), name.clone());
            Box::pin(async move {
                let call = forward
                    .upstream
                    .get_prompt(name, arguments)
                    .log_level(EVERY_LOG)
                    .into_future();
                let mut result = forward.serving(&cx, call).await.map_err(protocol_error)?;
                result.result_type = None;
                unstamp(&mut result.meta);
                Ok(result)
            })
        }
    }

    /// Runs the upstream `call` for the front call `cx`: the upstream's input requests meanwhile
    /// go to `cx` (while it is the newest call), and so do its log messages, those that
    /// arrived before its answer included.
    async fn serving<T>(&self, cx: &Context, call: impl Future<Output = T>) -> T {
        let entered = self.routes.enter(cx);
        let mut logs = self.upstream.notifications();
        let ours = |notification: &presa::core::Notification| {
            notification.method == "notifications/message" && self.routes.is_latest(&entered)
        };
        tokio::pin!(call);
        let outcome = loop {
            tokio::select! {
                outcome = &mut call => break outcome,
                Some(notification) = logs.recv() => if ours(&notification) {
                    log(cx, &notification).await;
                },
            }
        };
        while let Some(notification) = logs.try_recv() {
            if ours(&notification) {
                log(cx, &notification).await;
            }
        }
        outcome
    }

    fn resource(
        &self,
        uri: String,
    ) -> impl Fn(Context) -> futures_like::Boxed<Result<Option<ReadResourceResult>, ProtocolError>>
    + Send
    + Sync
    + 'static {
        let forward = self.clone();
        move |cx: Context| {
            let (forward, uri) = (forward.clone(), uri.clone());
            Box::pin(async move { forward.read(uri, &cx).await })
        }
    }

    fn template(
        &self,
        uri_template: &str,
    ) -> impl Fn(
        Variables,
        Context,
    ) -> futures_like::Boxed<Result<Option<ReadResourceResult>, ProtocolError>>
    + Send
    + Sync
    + 'static {
        let forward = self.clone();
        let template = UriTemplate::parse(uri_template).ok();
        move |variables: Variables, cx: Context| {
            let forward = forward.clone();
            let uri = template.as_ref().map(|t| t.expand(variables.iter()));
            Box::pin(async move {
                let Some(uri) = uri else {
                    return Ok(None);
                };
                forward.read(uri, &cx).await
            })
        }
    }

    /// Reads `uri` upstream: a resource the upstream does not have is one the front does not.
    async fn read(
        &self,
        uri: String,
        cx: &Context,
    ) -> Result<Option<ReadResourceResult>, ProtocolError> {
        let call = self
            .upstream
            .read_resource(uri)
            .log_level(EVERY_LOG)
            .into_future();
        match self.serving(cx, call).await {
            Ok(mut result) => {
                result.result_type = None;
                unstamp(&mut result.meta);
                Ok(Some(result))
            }
            Err(error) if error.is_resource_not_found() => Ok(None),
            Err(error) => Err(protocol_error(error)),
        }
    }

    fn completion(
        &self,
        reference: CompletionReference,
    ) -> impl Fn(CompletionInput, Context) -> futures_like::Boxed<presa::core::Completion>
    + Send
    + Sync
    + 'static {
        let upstream = self.upstream.clone();
        move |input: CompletionInput, _cx: Context| {
            let (upstream, reference) = (upstream.clone(), reference.clone());
            Box::pin(async move {
                // a completion cannot fail: no suggestions where the upstream had none to give
                match upstream
                    .complete_with_context(reference, input.argument, input.value, input.arguments)
                    .await
                {
                    Ok(result) => result.completion,
                    Err(error) => {
                        eprintln!(
                            "presa proxy: a completion failed upstream: {}",
                            chain(&error)
                        );
                        presa::core::Completion::default()
                    }
                }
            })
        }
    }
}

/// Boxed futures, named once.
mod futures_like {
    pub(super) type Boxed<T> = std::pin::Pin<Box<dyn std::future::Future<Output = T> + Send>>;
}

/// A progress callback for an upstream call, and the task passing what it reports on to the
/// front call `cx` in order; the task ends once the callback is dropped (with the call).
fn progress_of(
    cx: &Context,
) -> (
    impl Fn(ProgressNotificationParams) + Send + Sync + 'static,
    tokio::task::JoinHandle<()>,
) {
    let (report, mut reports) = mpsc::unbounded_channel::<ProgressNotificationParams>();
    let cx = cx.clone();
    let passing = tokio::spawn(async move {
        while let Some(update) = reports.recv().await {
            cx.progress(update.progress, update.total, update.message.as_deref())
                .await;
        }
    });
    (
        move |update| {
            let _ = report.send(update);
        },
        passing,
    )
}

/// Passes an upstream log message (`notifications/message`) on to the front call `cx`.
async fn log(cx: &Context, notification: &presa::core::Notification) {
    let params: Value = notification
        .params
        .as_deref()
        .and_then(|raw| serde_json::from_str(raw.get()).ok())
        .unwrap_or(Value::Null);
    let level = serde_json::from_value(params["level"].clone()).unwrap_or(LoggingLevel::Info);
    let data = params["data"].clone();
    match params["logger"].as_str() {
        Some(logger) => cx.log_as(level, logger, data).await,
        None => cx.log(level, data).await,
    }
}

/// Removes the upstream's identity from a result's `_meta`: the front stamps its own where
/// its era calls for one.
fn unstamp(meta: &mut Option<Meta>) {
    if let Some(fields) = meta {
        fields.remove(SERVER_INFO);
        if fields.is_empty() {
            *meta = None;
        }
    }
}

/// The upstream's failure, as the front answers it: the upstream's own error as it is, any
/// other as an internal error saying what happened.
fn protocol_error(error: ClientError) -> ProtocolError {
    match error {
        ClientError::Server(error) => ProtocolError::from(error),
        other => ProtocolError::new(
            ErrorCode::INTERNAL_ERROR,
            format!("the proxied server: {}", chain(&other)),
        ),
    }
}
