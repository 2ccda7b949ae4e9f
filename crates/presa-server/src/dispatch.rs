//! Request dispatch: `method + params + context → result`, the same for every transport.

use std::sync::Arc;

use presa_core::{
    CompleteRequestParams, CompleteResult, CompletionReference, Era, ErrorObject,
    GetPromptRequestParams, HasMeta, HasResultType, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, ListToolsResult, META_SERVER_INFO, Meta, PaginatedRequestParams, RawJson,
    ReadResourceRequestParams, ReadResourceResult, ResourceNotFoundData, ResultType, Tool, clipped,
    paginate, parse_params, request_state_binding,
};
use serde::Serialize;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::catch::catch_unwind;
use crate::context::Context;
use crate::definitions::{
    CompletionTarget, Definitions, ListShape, ListSlot, PromptEntry, ResourceEntry, TemplateEntry,
    ToolEntry,
};
use crate::input::Suspension;
use crate::middleware::{ListFilter, McpResponse, Served, Target};
use crate::prompt::CompletionInput;
use crate::resource::ResourceOutcome;
use crate::rounds::{Ran, run};
use crate::scopes::{Described, check_scopes};
use crate::server::Server;
use crate::wire::raw;

mod tools;

impl Server {
    /// Serves one request: `method` with its raw `params`, for the client `cx` describes, by
    /// the definitions alone.
    ///
    /// The connections do not call this directly: they run each request through the server's
    /// middleware stack, whose innermost layer dispatches the same way. A request served here
    /// skips the middleware (no rate limit, no audit record, no span of its own): use it to
    /// test definitions, or to serve them from a transport of your own that applies its own
    /// policy. It does not handle the protocol-level methods a session answers by itself
    /// (`initialize`, `ping`, `logging/setLevel`); `server/discover` is answered for
    /// 2026-07-28 requests.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// use presa_core::Tool;
    /// use presa_server::{Context, Server};
    /// use serde_json::{json, Value};
    ///
    /// let server = Server::builder("demo", "1")
    ///     .tool(Tool::new("echo", json!({"type": "object"}).as_object().unwrap().clone()),
    ///           |args: Value, _cx: Context| async move { args })
    ///     .build()
    ///     .unwrap();
    /// let params = serde_json::value::to_raw_value(&json!({"name": "echo", "arguments": {"a": 1}})).unwrap();
    /// let result = server.handle("tools/call", Some(&params), Context::detached()).await.unwrap();
    /// let result: Value = serde_json::from_str(result.get()).unwrap();
    /// assert_eq!(result["structuredContent"], json!({"a": 1}));
    /// assert_eq!(result["resultType"], "complete");
    /// # });
    /// ```
    pub async fn handle(
        &self,
        method: &str,
        params: Option<&RawValue>,
        cx: Context,
    ) -> Result<RawJson, ErrorObject> {
        let definitions = self.snapshot();
        let cx = cx.with_server(self);
        self.dispatch(&definitions, method, params, cx)
            .await
            .into_result()
    }

    /// [`handle`](Self::handle) on the definitions snapshot the request was started with.
    pub(crate) async fn dispatch(
        &self,
        defs: &Definitions,
        method: &str,
        params: Option<&RawValue>,
        cx: Context,
    ) -> McpResponse {
        // the methods whose answers say more than their result: a tool error, input required,
        // a task
        let declared = self.declared(defs);
        match method {
            "tools/call" if declared.tools => self.call_tool(defs, params, cx).await,
            "resources/read" if declared.resources => self
                .read_resource(defs, params, cx)
                .await
                .unwrap_or_else(McpResponse::error),
            "prompts/get" if declared.prompts => self
                .get_prompt(defs, params, cx)
                .await
                .unwrap_or_else(McpResponse::error),
            _ => self
                .dispatch_other(defs, declared, method, params, cx)
                .await
                .into(),
        }
    }

    async fn dispatch_other(
        &self,
        defs: &Definitions,
        declared: crate::definitions::Declared,
        method: &str,
        params: Option<&RawValue>,
        cx: Context,
    ) -> Result<RawJson, ErrorObject> {
        let era = cx.protocol_version().era();
        match method {
            "tools/list" if declared.tools => self.list(
                defs,
                ListSlot::Tools,
                &defs.tools,
                params,
                &cx,
                |t, shape| match shape {
                    // `execution.taskSupport` is 2025-11-25's: the extension decides by request,
                    // earlier revisions have no tasks
                    ListShape::Stateless | ListShape::Initialize if t.tool.execution.is_some() => {
                        Tool {
                            execution: None,
                            ..t.tool.clone()
                        }
                    }
                    _ => t.tool.clone(),
                },
                |p| ListToolsResult {
                    tools: p.items,
                    next_cursor: p.next_cursor,
                    ttl_ms: p.ttl_ms,
                    cache_scope: p.cache_scope,
                    ..Default::default()
                },
            ),
            "resources/list" if declared.resources => self.list(
                defs,
                ListSlot::Resources,
                &defs.resources,
                params,
                &cx,
                |r, _| r.resource.clone(),
                |p| ListResourcesResult {
                    resources: p.items,
                    next_cursor: p.next_cursor,
                    ttl_ms: p.ttl_ms,
                    cache_scope: p.cache_scope,
                    ..Default::default()
                },
            ),
            "resources/templates/list" if declared.resources => self.list(
                defs,
                ListSlot::Templates,
                &defs.templates,
                params,
                &cx,
                |t, _| t.template.clone(),
                |p| ListResourceTemplatesResult {
                    resource_templates: p.items,
                    next_cursor: p.next_cursor,
                    ttl_ms: p.ttl_ms,
                    cache_scope: p.cache_scope,
                    ..Default::default()
                },
            ),
            "prompts/list" if declared.prompts => self.list(
                defs,
                ListSlot::Prompts,
                &defs.prompts,
                params,
                &cx,
                |p, _| p.prompt.clone(),
                |p| ListPromptsResult {
                    prompts: p.items,
                    next_cursor: p.next_cursor,
                    ttl_ms: p.ttl_ms,
                    cache_scope: p.cache_scope,
                    ..Default::default()
                },
            ),
            "completion/complete" if declared.completions => self.complete(defs, params, cx).await,
            // a connection's session answers it before dispatch; called directly
            // (`Server::handle`), the dispatcher does
            "server/discover" if era == Era::Stateless => raw(&self.discover_result()),
            // boxed: far larger than the other methods' futures, which every request's future
            // would otherwise be sized for
            "subscriptions/listen" if era == Era::Stateless => {
                Box::pin(self.listen(params, cx)).await
            }
            tasks if declared.tasks && tasks.starts_with("tasks/") => {
                Box::pin(self.task_method(method, params, cx)).await
            }
            _ => match self.inner.options.extensions.methods.get(method) {
                Some(handler) => {
                    let result = handler.call(params, cx).await?;
                    self.stamped_value(era, result)
                }
                None => Err(ErrorObject::method_not_found(method)),
            },
        }
    }

    /// A custom method's result as JSON, stamped as [`stamped`](Self::stamped) stamps the
    /// built-in ones when it is an object (a result that is not breaks MCP's rule, and goes out
    /// as the handler made it).
    fn stamped_value(&self, era: Era, mut result: Value) -> Result<RawJson, ErrorObject> {
        if era == Era::Initialize {
            return raw(&result);
        }
        if let Value::Object(fields) = &mut result {
            fields
                .entry("resultType")
                .or_insert_with(|| Value::from("complete"));
            let mut meta = match fields.remove("_meta") {
                Some(Value::Object(meta)) => Some(meta),
                _ => None,
            };
            self.stamp_server_info(&mut meta);
            if let Some(meta) = meta {
                fields.insert("_meta".to_owned(), Value::Object(meta));
            }
        }
        raw(&result)
    }

    /// A result as JSON, stamped when it answers a 2026-07-28 request: `resultType` and the
    /// server's identity (the caching hints are the caller's). Initialize-era results get none
    /// of these. The common case (no `_meta` of the handler's own) gets the identity as a `_meta`
    /// made once per server, in the same serialization pass ([`WithServerInfo`]: `R` must
    /// serialize as a struct or map, as every result type does), instead of a copy of it as a
    /// `Value` per result.
    fn stamped<R: HasResultType + HasMeta + Serialize>(
        &self,
        era: Era,
        mut result: R,
    ) -> Result<RawJson, ErrorObject> {
        if era == Era::Initialize {
            return raw(&result);
        }
        if result.result_type().is_none() {
            result.set_result_type(Some(ResultType::Complete));
        }
        if !self.inner.options.server_info_in_meta || result.meta_mut().is_some() {
            self.stamp_server_info(result.meta_mut());
            return raw(&result);
        }
        // in one pass, without building the `_meta` map or parsing the text again
        raw(&WithServerInfo {
            result: &result,
            meta: &self.inner.info_meta,
        })
    }

    /// Puts the server's identity in a 2026-07-28 result's `_meta`, unless told not to.
    pub(crate) fn stamp_server_info(&self, meta: &mut Option<Meta>) {
        if self.inner.options.server_info_in_meta {
            meta.get_or_insert_with(Meta::new)
                .entry(META_SERVER_INFO)
                .or_insert_with(|| self.inner.info_value.clone());
        }
    }

    /// One page of a list: the entries' wire descriptions, the next cursor and the cache hints,
    /// made into the list's result by `build`. A page that starts where pages start is made once
    /// per snapshot and shape (`describe` is told which) and kept with the snapshot.
    #[allow(clippy::too_many_arguments)]
    fn list<E: Listed, T, R>(
        &self,
        defs: &Definitions,
        slot: ListSlot,
        entries: &[Arc<E>],
        params: Option<&RawValue>,
        cx: &Context,
        describe: impl Fn(&E, ListShape) -> T,
        build: impl FnOnce(ListPage<T>) -> R,
    ) -> Result<RawJson, ErrorObject>
    where
        R: Serialize + HasResultType + HasMeta,
    {
        let era = cx.protocol_version().era();
        // the shape the page is made in and cached under: one value for both
        let shape = ListShape::of(cx.protocol_version());
        let params: PaginatedRequestParams = parse_params(params)?;
        let page_size = self.inner.options.page_size;
        // a middleware may show this request only part of the list: its pages are its own
        let visible: Option<Vec<&Arc<E>>> = cx.extensions().get::<ListFilter>().map(|filter| {
            entries
                .iter()
                .filter(|entry| filter.admits(&entry.target(), cx))
                .collect()
        });
        let len = visible.as_ref().map_or(entries.len(), Vec::len);
        let page = paginate(len, params.cursor.as_deref(), page_size, defs.generation)?;
        let (range, next_cursor) = page.into_parts();
        let cached = (visible.is_none() && range.start % page_size == 0).then(|| {
            let pages = entries.len().div_ceil(page_size).max(1);
            defs.cache.page(slot, shape, pages, range.start / page_size)
        });
        if let Some(json) = cached.flatten().and_then(|slot| slot.get()) {
            return Ok(json.clone());
        }
        let hints = self.cache_hints().for_era(era);
        let (ttl_ms, cache_scope) = (hints.map(|h| h.ttl_ms), hints.map(|h| h.scope));
        let items = match &visible {
            Some(visible) => visible
                .get(range)
                .unwrap_or_default()
                .iter()
                .map(|entry| describe(entry, shape))
                .collect(),
            None => entries
                .get(range)
                .unwrap_or_default()
                .iter()
                .map(|entry| describe(entry, shape))
                .collect(),
        };
        let result = build(ListPage {
            items,
            next_cursor,
            ttl_ms,
            cache_scope,
        });
        let json = self.stamped(era, result)?;
        if let Some(slot) = cached.flatten() {
            let _ = slot.set(json.clone());
        }
        Ok(json)
    }

    async fn read_resource(
        &self,
        defs: &Definitions,
        params: Option<&RawValue>,
        cx: Context,
    ) -> Result<McpResponse, ErrorObject> {
        let raw_params = params;
        let params: ReadResourceRequestParams = parse_params(params)?;
        let version = cx.protocol_version();
        let era = version.era();
        if let Some(entry) = defs.resource(&params.uri) {
            check_scopes(&cx, Described("resource", &params.uri), &entry.scopes)?;
        } else if let Some((entry, _)) = defs.match_template(&params.uri) {
            let template = &entry.template.uri_template;
            check_scopes(&cx, Described("resource", template), &entry.scopes)?;
        }
        let binding =
            request_state_binding("resources/read", &serde_json::json!({ "uri": params.uri }));
        let round = self.open_round(
            &cx,
            "resources/read",
            || binding.clone(),
            raw_params,
            params.input_responses,
            params.request_state,
        )?;
        let outcome = if let Some(entry) = defs.resource(&params.uri) {
            let future = entry.handler.read(
                params.uri.clone(),
                entry.resource.mime_type.clone(),
                cx.clone(),
            );
            run(&cx, future).await
        } else if let Some((entry, variables)) = defs.match_template(&params.uri) {
            let future = entry.handler.read(
                params.uri.clone(),
                variables,
                entry.template.mime_type.clone(),
                cx.clone(),
            );
            run(&cx, future).await
        } else {
            Ran::Returned(ResourceOutcome::NotFound)
        };
        let contents = match outcome {
            Ran::Returned(ResourceOutcome::Found(contents)) => contents,
            Ran::Returned(ResourceOutcome::NotFound) => {
                return Err(ResourceNotFoundData { uri: params.uri }.into_error(era));
            }
            Ran::Returned(ResourceOutcome::Error(error)) => return Err(error),
            Ran::Panicked(panic) => return Err(ErrorObject::internal_error(panic)),
            Ran::Suspended(Suspension::Input(requests)) => {
                return self
                    .input_required(round.as_deref(), requests, "resources/read", &binding)
                    .map(McpResponse::input_required);
            }
            Ran::Suspended(Suspension::Error(error)) => return Err(error),
        };
        let hints = self.cache_hints().for_era(era);
        let (ttl_ms, cache_scope) = (hints.map(|h| h.ttl_ms), hints.map(|h| h.scope));
        let result = ReadResourceResult {
            contents,
            ttl_ms,
            cache_scope,
            ..Default::default()
        };
        self.stamped(era, result).map(McpResponse::done)
    }

    async fn get_prompt(
        &self,
        defs: &Definitions,
        params: Option<&RawValue>,
        cx: Context,
    ) -> Result<McpResponse, ErrorObject> {
        let raw_params = params;
        let params: GetPromptRequestParams = parse_params(params)?;
        let Some(entry) = defs.prompt(&params.name) else {
            return Err(ErrorObject::invalid_params(format!(
                "Unknown prompt: {}",
                clipped(&params.name)
            )));
        };
        let entry = Arc::clone(entry);
        // the prompt is known from here on: its answer, an error too, says which it was
        let answer = self.render_prompt(&entry, raw_params, params, cx).await;
        Ok(answer
            .unwrap_or_else(McpResponse::error)
            .served_by(Served::Prompt(entry)))
    }

    /// A known prompt's answer.
    async fn render_prompt(
        &self,
        entry: &PromptEntry,
        raw_params: Option<&RawValue>,
        params: GetPromptRequestParams,
        cx: Context,
    ) -> Result<McpResponse, ErrorObject> {
        check_scopes(&cx, Described("prompt", &params.name), &entry.scopes)?;
        let arguments = params.arguments.unwrap_or_default();
        let missing: Vec<&str> = entry
            .prompt
            .arguments
            .iter()
            .flatten()
            .filter(|a| a.required == Some(true) && !arguments.contains_key(&a.name))
            .map(|a| a.name.as_str())
            .collect();
        if !missing.is_empty() {
            let noun = if missing.len() == 1 {
                "argument"
            } else {
                "arguments"
            };
            return Err(ErrorObject::invalid_params(format!(
                "Missing required {noun} for prompt {}: {}",
                params.name,
                missing.join(", ")
            )));
        }
        let era = cx.protocol_version().era();
        let binding = request_state_binding(
            "prompts/get",
            &serde_json::json!({ "name": params.name, "arguments": serde_json::to_value(&arguments).unwrap_or_default() }),
        );
        let round = self.open_round(
            &cx,
            "prompts/get",
            || binding.clone(),
            raw_params,
            params.input_responses,
            params.request_state,
        )?;
        let result = match run(&cx, entry.handler.get(arguments, cx.clone())).await {
            Ran::Returned(result) => result?,
            Ran::Panicked(panic) => return Err(ErrorObject::internal_error(panic)),
            Ran::Suspended(Suspension::Input(requests)) => {
                return self
                    .input_required(round.as_deref(), requests, "prompts/get", &binding)
                    .map(McpResponse::input_required);
            }
            Ran::Suspended(Suspension::Error(error)) => return Err(error),
        };
        self.stamped(era, result).map(McpResponse::done)
    }

    async fn complete(
        &self,
        defs: &Definitions,
        params: Option<&RawValue>,
        cx: Context,
    ) -> Result<RawJson, ErrorObject> {
        let params: CompleteRequestParams = parse_params(params)?;
        let target = match &params.reference {
            CompletionReference::Prompt(p) => {
                let Some(entry) = defs.prompt(&p.name) else {
                    return Err(ErrorObject::invalid_params(format!(
                        "Unknown prompt: {}",
                        clipped(&p.name)
                    )));
                };
                check_scopes(&cx, Described("prompt", &p.name), &entry.scopes)?;
                CompletionTarget::Prompt(p.name.clone())
            }
            CompletionReference::Resource(r) => {
                let scopes = match (defs.template(&r.uri), defs.resource(&r.uri)) {
                    (Some(template), _) => &template.scopes,
                    (None, Some(resource)) => &resource.scopes,
                    (None, None) => {
                        return Err(ErrorObject::invalid_params(format!(
                            "Unknown resource template: {}",
                            clipped(&r.uri)
                        )));
                    }
                };
                check_scopes(&cx, Described("resource", &r.uri), scopes)?;
                CompletionTarget::Template(r.uri.clone())
            }
            _ => {
                return Err(ErrorObject::invalid_params(
                    "Unsupported completion reference",
                ));
            }
        };
        let era = cx.protocol_version().era();
        let completion = match defs.completer(&target, &params.argument.name) {
            Some(completer) => {
                let input = CompletionInput {
                    argument: params.argument.name.clone(),
                    value: params.argument.value.clone(),
                    arguments: params.context.and_then(|c| c.arguments).unwrap_or_default(),
                };
                match catch_unwind(completer.complete(input, cx)).await {
                    Ok(completion) => completion,
                    Err(panic) => return Err(ErrorObject::internal_error(panic)),
                }
            }
            None => presa_core::Completion::default(),
        };
        let result = CompleteResult {
            completion,
            ..Default::default()
        };
        self.stamped(era, result)
    }
}

/// A definition a list shows, as a [`ListFilter`] sees it.
trait Listed {
    fn target(&self) -> Target<'_>;
}

impl Listed for ToolEntry {
    fn target(&self) -> Target<'_> {
        Target::Tool(&self.tool, &self.scopes)
    }
}

impl Listed for ResourceEntry {
    fn target(&self) -> Target<'_> {
        Target::Resource(&self.resource, &self.scopes)
    }
}

impl Listed for TemplateEntry {
    fn target(&self) -> Target<'_> {
        Target::ResourceTemplate(&self.template, &self.scopes)
    }
}

impl Listed for PromptEntry {
    fn target(&self) -> Target<'_> {
        Target::Prompt(&self.prompt, &self.scopes)
    }
}

/// What every list page holds before it becomes its list's result.
struct ListPage<T> {
    items: Vec<T>,
    next_cursor: Option<String>,
    ttl_ms: Option<u64>,
    cache_scope: Option<presa_core::CacheScope>,
}

/// A 2026-07-28 result without `_meta` of its own, given the server's identity as its `_meta`.
#[derive(Serialize)]
struct WithServerInfo<'a, R> {
    #[serde(flatten)]
    result: &'a R,
    #[serde(rename = "_meta")]
    meta: &'a RawValue,
}
