//! The front server of the proxy: the upstream's definitions, each with a handler that forwards
//! to it, kept in step with the upstream's lists.

use std::collections::BTreeMap;
use std::future::{Future, IntoFuture as _};
use std::sync::{Arc, Mutex, PoisonError};

use presa::client::{Client, ClientError};
use presa::core::{
    CallToolResult, CompletionReference, ErrorCode, ErrorObject, GetPromptResult, Implementation,
    LoggingLevel, Meta, ProgressNotificationParams, Prompt, ReadResourceResult, Resource,
    ResourceTemplate, ServerCapabilities, Tool, UriTemplate,
};
use presa::server::{
    BuildError, CompletionInput, Context, ListKind, McpRequest, Next, PromptArgs, ProtocolError,
    Server, Variables,
};
use serde::Serialize;
use serde_json::Value;
use tokio::sync::mpsc;

use super::{Muted, Routes, SERVING};
use crate::failure::{Failure, chain};

/// The `_meta` key of a 2026-07-28 result that names the server: the front stamps its own.
const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

/// The log messages asked of the upstream: all of them; the front passes on those its own
/// client asked for.
pub(super) const EVERY_LOG: LoggingLevel = LoggingLevel::Debug;

/// The upstream's definitions as the front serves them now, to tell what a list change
/// changed.
#[derive(Default)]
struct Seen {
    tools: BTreeMap<String, Tool>,
    prompts: BTreeMap<String, Prompt>,
    resources: BTreeMap<String, Resource>,
    templates: BTreeMap<String, ResourceTemplate>,
}

/// The mirror: what makes the forwarding handlers, and what it serves now.
#[derive(Clone)]
pub(super) struct Mirror {
    forward: Forward,
    completions: bool,
    seen: Arc<Mutex<Seen>>,
}

/// The exact URI a `resources/read` asked for, which a template's handler forwards (the
/// template's variables, decoded, would not always spell it back the same).
#[derive(Clone, Debug)]
struct RequestedUri(String);

/// Puts the URI of a `resources/read` where the handler finds it.
async fn requested_uri(mut request: McpRequest, next: Next) -> presa::server::McpResponse {
    if request.method() == "resources/read"
        && let Ok(params) = request.params_as::<Value>()
        && let Some(uri) = params["uri"].as_str()
    {
        let uri = RequestedUri(uri.to_owned());
        request.extensions_mut().insert(uri);
    }
    next.run(request).await
}

impl Mirror {
    /// The front server mirroring `upstream` as it is now, and the mirror that keeps it so.
    pub(super) async fn build(
        upstream: &Client,
        bus: Arc<Muted>,
        routes: &Routes,
    ) -> Result<(Server, Self), Failure> {
        let info = upstream.info();
        let identity = info
            .server_info
            .clone()
            .unwrap_or_else(|| Implementation::new("proxied", "0"));
        let capabilities = &info.capabilities;
        let mirror = Self {
            forward: Forward {
                upstream: upstream.clone(),
                routes: routes.clone(),
            },
            completions: capabilities.completions.is_some(),
            seen: Arc::default(),
        };
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
            .logging(capabilities.logging.is_some())
            .middleware(requested_uri);
        if let Some(title) = &identity.title {
            builder = builder.title(title);
        }
        if let Some(instructions) = &info.instructions {
            builder = builder.instructions(instructions);
        }
        let mut seen = Seen::default();
        if capabilities.tools.is_some() {
            for tool in upstream.list_tools().await? {
                builder = builder.tool(tool.clone(), mirror.forward.tool(tool.name.clone()));
                seen.tools.insert(tool.name.clone(), tool);
            }
        }
        if capabilities.prompts.is_some() {
            for prompt in upstream.list_prompts().await? {
                let handler = mirror.forward.prompt(prompt.name.clone());
                builder = builder.prompt(prompt.clone(), handler);
                for argument in mirror.prompt_completions(&prompt) {
                    let complete = mirror
                        .forward
                        .completion(CompletionReference::prompt(&prompt.name));
                    builder = builder.complete_prompt_argument(&prompt.name, &argument, complete);
                }
                seen.prompts.insert(prompt.name.clone(), prompt);
            }
        }
        if capabilities.resources.is_some() {
            for resource in upstream.list_resources().await? {
                let handler = mirror.forward.resource(resource.uri.clone());
                builder = builder.resource(resource.clone(), handler);
                seen.resources.insert(resource.uri.clone(), resource);
            }
            for template in upstream.list_resource_templates().await? {
                let uri_template = template.uri_template.clone();
                builder = builder.resource_template(template.clone(), mirror.forward.template());
                for variable in mirror.template_completions(&template) {
                    let complete = mirror
                        .forward
                        .completion(CompletionReference::resource(&uri_template));
                    builder =
                        builder.complete_template_variable(&uri_template, &variable, complete);
                }
                seen.templates.insert(uri_template, template);
            }
        }
        let server = builder.build().map_err(|e| Failure::Protocol(chain(&e)))?;
        *mirror.seen.lock().unwrap_or_else(PoisonError::into_inner) = seen;
        Ok((server, mirror))
    }

    /// The arguments of `prompt` to complete upstream (none when it completes nothing).
    fn prompt_completions(&self, prompt: &Prompt) -> Vec<String> {
        if !self.completions {
            return Vec::new();
        }
        prompt
            .arguments
            .iter()
            .flatten()
            .map(|a| a.name.clone())
            .collect()
    }

    /// The variables of `template` to complete upstream (none when it completes nothing).
    fn template_completions(&self, template: &ResourceTemplate) -> Vec<String> {
        let parsed = UriTemplate::parse(&template.uri_template);
        match parsed {
            Ok(parsed) if self.completions => parsed.variables().map(str::to_owned).collect(),
            _ => Vec::new(),
        }
    }

    /// Brings the front's list `kind` in step with the upstream's: what went is removed, what
    /// changed is replaced, what came is added, what stayed is left alone; the front announces
    /// one change.
    pub(super) async fn refresh(
        &self,
        server: &Server,
        bus: &Muted,
        kind: ListKind,
    ) -> Result<(), Failure> {
        let upstream = &self.forward.upstream;
        let refused = |error: BuildError| Failure::Protocol(chain(&error));
        match kind {
            ListKind::Tools => {
                let tools = keyed(upstream.list_tools().await?, |t| t.name.clone());
                let mut seen = self.seen.lock().unwrap_or_else(PoisonError::into_inner);
                bus.quietly(kind, || {
                    step(
                        &mut seen.tools,
                        tools,
                        |name| {
                            server.remove_tool(name);
                        },
                        |tool| {
                            let handler = self.forward.tool(tool.name.clone());
                            server.add_tool(tool.clone(), handler).map_err(refused)
                        },
                    )
                })
            }
            ListKind::Prompts => {
                let prompts = keyed(upstream.list_prompts().await?, |p| p.name.clone());
                let mut seen = self.seen.lock().unwrap_or_else(PoisonError::into_inner);
                bus.quietly(kind, || {
                    step(
                        &mut seen.prompts,
                        prompts,
                        |name| {
                            server.remove_prompt(name);
                        },
                        |prompt| {
                            let handler = self.forward.prompt(prompt.name.clone());
                            server
                                .add_prompt(prompt.clone(), handler)
                                .map_err(refused)?;
                            for argument in self.prompt_completions(prompt) {
                                let complete = self
                                    .forward
                                    .completion(CompletionReference::prompt(&prompt.name));
                                server
                                    .add_prompt_completion(&prompt.name, &argument, complete)
                                    .map_err(refused)?;
                            }
                            Ok(())
                        },
                    )
                })
            }
            ListKind::Resources => {
                let resources = keyed(upstream.list_resources().await?, |r| r.uri.clone());
                let templates = keyed(upstream.list_resource_templates().await?, |t| {
                    t.uri_template.clone()
                });
                let mut seen = self.seen.lock().unwrap_or_else(PoisonError::into_inner);
                let seen = &mut *seen;
                bus.quietly(kind, || {
                    step(
                        &mut seen.resources,
                        resources,
                        |uri| {
                            server.remove_resource(uri);
                        },
                        |resource| {
                            let handler = self.forward.resource(resource.uri.clone());
                            server
                                .add_resource(resource.clone(), handler)
                                .map_err(refused)
                        },
                    )?;
                    step(
                        &mut seen.templates,
                        templates,
                        |uri_template| {
                            server.remove_resource_template(uri_template);
                        },
                        |template| {
                            let uri_template = &template.uri_template;
                            server
                                .add_resource_template(template.clone(), self.forward.template())
                                .map_err(refused)?;
                            for variable in self.template_completions(template) {
                                let complete = self
                                    .forward
                                    .completion(CompletionReference::resource(uri_template));
                                server
                                    .add_template_completion(uri_template, &variable, complete)
                                    .map_err(refused)?;
                            }
                            Ok(())
                        },
                    )
                })
            }
            _ => Ok(()),
        }
    }
}

/// `items` by their key.
fn keyed<T>(items: Vec<T>, key: impl Fn(&T) -> String) -> BTreeMap<String, T> {
    items.into_iter().map(|item| (key(&item), item)).collect()
}

/// Moves `seen` to `now`: each entry gone is removed, each changed removed and added again,
/// each new added; `seen` ends as what is served.
fn step<T: PartialEq + Serialize>(
    seen: &mut BTreeMap<String, T>,
    now: BTreeMap<String, T>,
    remove: impl Fn(&str),
    add: impl Fn(&T) -> Result<(), Failure>,
) -> Result<(), Failure> {
    let gone: Vec<String> = seen
        .keys()
        .filter(|key| !now.contains_key(*key))
        .cloned()
        .collect();
    for key in gone {
        remove(&key);
        seen.remove(&key);
    }
    for (key, item) in now {
        if seen.get(&key) == Some(&item) {
            continue;
        }
        if seen.remove(&key).is_some() {
            remove(&key);
        }
        add(&item)?;
        seen.insert(key, item);
    }
    Ok(())
}

/// Whether the upstream announces any list change: then so does the front.
fn announces_list_changes(capabilities: &ServerCapabilities) -> bool {
    let tools = capabilities.tools.as_ref().and_then(|t| t.list_changed);
    let prompts = capabilities.prompts.as_ref().and_then(|p| p.list_changed);
    let resources = capabilities.resources.as_ref().and_then(|r| r.list_changed);
    [tools, prompts, resources].contains(&Some(true))
}

/// A boxed future, as the handlers return.
type Boxed<T> = std::pin::Pin<Box<dyn Future<Output = T> + Send>>;

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
    ) -> impl Fn(Value, Context) -> Boxed<Result<CallToolResult, ProtocolError>> + Send + Sync + 'static
    {
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
                // the last progress goes out before the result
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
    ) -> impl Fn(PromptArgs, Context) -> Boxed<Result<GetPromptResult, ProtocolError>>
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

    fn resource(
        &self,
        uri: String,
    ) -> impl Fn(Context) -> Boxed<Result<Option<ReadResourceResult>, ProtocolError>>
    + Send
    + Sync
    + 'static {
        let forward = self.clone();
        move |cx: Context| {
            let (forward, uri) = (forward.clone(), uri.clone());
            Box::pin(async move { forward.read(uri, &cx).await })
        }
    }

    /// A template's handler: reads the URI the request asked for.
    fn template(
        &self,
    ) -> impl Fn(Variables, Context) -> Boxed<Result<Option<ReadResourceResult>, ProtocolError>>
    + Send
    + Sync
    + 'static {
        let forward = self.clone();
        move |_variables: Variables, cx: Context| {
            let forward = forward.clone();
            let uri = cx
                .extensions()
                .get::<RequestedUri>()
                .map(|uri| uri.0.clone());
            Box::pin(async move {
                match uri {
                    Some(uri) => forward.read(uri, &cx).await,
                    None => Err(ProtocolError::new(
                        ErrorCode::INTERNAL_ERROR,
                        "the proxy lost the URI of this read",
                    )),
                }
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

    /// Runs the upstream `call` for the front call `cx`: the upstream's input requests made
    /// within it (2026-07-28's rounds) go to `cx`, and so do its log messages while `cx` is the
    /// only call in flight, those that arrived before its answer included.
    async fn serving<T>(&self, cx: &Context, call: impl Future<Output = T>) -> T {
        let (entered, route) = self.routes.enter(cx);
        let mut logs = self.upstream.notifications();
        let ours = |notification: &presa::core::Notification| {
            notification.method == "notifications/message" && self.routes.is_only(&entered)
        };
        let call = SERVING.scope(route, call);
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

    fn completion(
        &self,
        reference: CompletionReference,
    ) -> impl Fn(CompletionInput, Context) -> Boxed<presa::core::Completion> + Send + Sync + 'static
    {
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

/// Passes an upstream log message on to the front call `cx`.
async fn log(cx: &Context, notification: &presa::core::Notification) {
    let Some(message) = crate::output::log_message(notification) else {
        return;
    };
    match &message.logger {
        Some(logger) => cx.log_as(message.level, logger, message.data).await,
        None => cx.log(message.level, message.data).await,
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

/// The upstream's failure, as the front answers it: the upstream's own error as it is (also
/// the JSON-RPC error of a `401`, the source of the transport's failure), any other as an
/// internal error saying what happened.
fn protocol_error(error: ClientError) -> ProtocolError {
    let upstream = match &error {
        ClientError::Server(error) => Some(error.clone()),
        ClientError::Transport(failed) => std::error::Error::source(failed)
            .and_then(|source| source.downcast_ref::<ErrorObject>())
            .cloned(),
        _ => None,
    };
    match upstream {
        Some(error) => ProtocolError::from(error),
        None => ProtocolError::new(
            ErrorCode::INTERNAL_ERROR,
            format!("the proxied server: {}", chain(&error)),
        ),
    }
}
