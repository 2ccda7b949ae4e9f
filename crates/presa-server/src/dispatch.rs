//! Request dispatch: `method + params + context → result`, the same for every transport.

use std::sync::Arc;

use presa_core::{
    CallToolResult, CompleteRequestParams, CompleteResult, CompletionReference, Era, ErrorObject,
    GetPromptRequestParams, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult,
    ListToolsResult, META_SERVER_INFO, Meta, PaginatedRequestParams, RawJson,
    ReadResourceRequestParams, ReadResourceResult, ResourceNotFoundData, ResultType, Tool,
    paginate, parse_params,
};
use presa_core::{HasMeta, HasResultType};
use presa_core::{InputResponses, request_state_binding};
use serde::Serialize;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::BoxFuture;
use crate::catch::catch_unwind;
use crate::context::Context;
use presa_core::clipped;

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
use crate::tasks::{CallMode, TaskEnd};
use crate::wire::raw;

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
            _ => Err(ErrorObject::method_not_found(method)),
        }
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

    fn cache_hints(&self, era: Era) -> (Option<u64>, Option<presa_core::CacheScope>) {
        if era == Era::Stateless {
            (
                Some(self.inner.options.cache_ttl_ms),
                Some(self.inner.options.cache_scope),
            )
        } else {
            (None, None)
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
        let (ttl_ms, cache_scope) = self.cache_hints(era);
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

    /// `tools/call`: the answer, and whether the tool failed as a tool (`isError`).
    async fn call_tool(
        &self,
        defs: &Definitions,
        params: Option<&RawValue>,
        cx: Context,
    ) -> McpResponse {
        self.call_tool_result(defs, params, cx)
            .await
            .unwrap_or_else(McpResponse::error)
    }

    async fn call_tool_result(
        &self,
        defs: &Definitions,
        params: Option<&RawValue>,
        cx: Context,
    ) -> Result<McpResponse, ErrorObject> {
        let started = self.start_call(defs, params, cx)?;
        // the tool is known from here on: its answer, an error too, says which it was
        let tool = Arc::clone(&started.entry);
        let answer = self.run_call(started, params).await;
        Ok(answer
            .unwrap_or_else(McpResponse::error)
            .served_by(Served::Tool(tool)))
    }

    /// Runs a started call to its answer.
    async fn run_call(
        &self,
        started: StartedCall,
        params: Option<&RawValue>,
    ) -> Result<McpResponse, ErrorObject> {
        // Everything up to the handler's start is plain code, and what may become a task is
        // boxed: the call's future, boxed once per request, stays within the allocator's
        // small-block caches.
        let StartedCall {
            entry,
            cx,
            mode,
            round,
            mut running,
            request_cancellation,
        } = started;
        let era = cx.protocol_version().era();
        let ran = match mode {
            CallMode::Inline => running.await,
            CallMode::Task { ttl_ms } => {
                return Box::pin(self.call_as_task(&cx, entry, ttl_ms, running)).await;
            }
            CallMode::MayBecomeTask => {
                // answered at once when it finishes (or asks for input) on its first poll
                let first = std::future::poll_fn(|task_cx| {
                    std::task::Poll::Ready(running.as_mut().poll(task_cx))
                })
                .await;
                match first {
                    std::task::Poll::Ready(ran) => ran,
                    std::task::Poll::Pending => {
                        let became = self.become_task(&cx, &entry, running, request_cancellation);
                        match Box::pin(became).await {
                            Became::Task(answer) => return answer,
                            Became::Inline(ran) => ran,
                        }
                    }
                }
            }
        };
        match self.tool_call_end(&entry, era, ran) {
            CallEnd::Result(result, is_error) => Ok(McpResponse::tool_result(result, is_error)),
            CallEnd::Error(error) => Err(error),
            CallEnd::Input(requests) => {
                let binding = call_binding(params);
                self.input_required(round.as_deref(), requests, "tools/call", &binding)
                    .map(McpResponse::input_required)
            }
        }
    }

    /// A `tools/call` checked (the tool, its mirrored headers, scopes, task mode, input round,
    /// arguments) and its handler's future made, not polled yet.
    fn start_call(
        &self,
        defs: &Definitions,
        raw_params: Option<&RawValue>,
        cx: Context,
    ) -> Result<StartedCall, ErrorObject> {
        let params: CallParams = parse_params(raw_params)?;
        let Some(entry) = defs.tool(&params.name) else {
            return Err(ErrorObject::invalid_params(format!(
                "Unknown tool: {}",
                clipped(&params.name)
            )));
        };
        let arguments = Value::Object(params.arguments.unwrap_or_default());
        // a 2026-07-28 request over Streamable HTTP mirrors some arguments into headers: checked
        // as soon as the tool is known
        if let Some(headers) = cx.received_headers() {
            headers.check_params(&entry.headers, Some(&arguments))?;
        }
        check_scopes(&cx, Described("tool", &params.name), &entry.scopes)?;
        let mode = CallMode::of(&entry.tool, &cx, params.task.as_ref())?;
        // a call that may outlive its request is stopped by `tasks/cancel` alone once it does
        let request_cancellation = cx.cancellation().clone();
        let cx = match mode {
            CallMode::Inline => cx,
            CallMode::MayBecomeTask | CallMode::Task { .. } => cx.for_possible_task(),
        };
        let entry = Arc::clone(entry);
        let round = self.open_round(
            &cx,
            "tools/call",
            || call_binding(raw_params),
            raw_params,
            params.input_responses,
            params.request_state,
        )?;
        let checked = entry.input.as_ref().map(|v| v.validate_all(&arguments));
        let Value::Object(arguments) = arguments else {
            unreachable!("made as an object above")
        };
        let running: BoxFuture<'static, ToolRun> = match checked {
            Some(Err(errors)) => {
                let lines: Vec<_> = errors
                    .iter()
                    .map(|e| format!("Invalid arguments {e}"))
                    .collect();
                let refused = CallToolResult::error(lines.join("\n"));
                Box::pin(std::future::ready(Ran::Returned(Ok(refused))))
            }
            _ => {
                let handler = entry.handler.call(arguments, cx.clone());
                let cx = cx.clone();
                Box::pin(async move { run(&cx, handler).await })
            }
        };
        Ok(StartedCall {
            entry,
            cx,
            mode,
            round,
            running,
            request_cancellation,
        })
    }

    /// A 2025-11-25 call with a `task` param: its task record, answered at once, and the
    /// handler running on in the task.
    async fn call_as_task(
        &self,
        cx: &Context,
        entry: Arc<ToolEntry>,
        ttl_ms: Option<u64>,
        running: BoxFuture<'static, ToolRun>,
    ) -> Result<McpResponse, ErrorObject> {
        let era = cx.protocol_version().era();
        let record = self.create_task(cx, ttl_ms).await?;
        let task = self.task_run(entry, era, running);
        self.run_task(cx, record, task).map(task_created)
    }

    /// A 2026-07-28 call that did not finish on its first poll: a task, or inline when the
    /// store cannot keep one.
    async fn become_task(
        &self,
        cx: &Context,
        entry: &Arc<ToolEntry>,
        mut running: BoxFuture<'static, ToolRun>,
        request_cancellation: crate::context::Cancellation,
    ) -> Became {
        match self.create_task(cx, None).await {
            Ok(record) => {
                let era = cx.protocol_version().era();
                let task = self.task_run(Arc::clone(entry), era, running);
                Became::Task(self.run_task(cx, record, task).map(task_created))
            }
            // the client takes either answer: one the store cannot keep is inline, stopped by
            // its request's cancellation again
            Err(error) => {
                tracing::warn!(
                    tool = %entry.tool.name,
                    error = %error.message,
                    "no task could be made for a call: it is answered inline"
                );
                Became::Inline(tokio::select! {
                    ran = &mut running => ran,
                    () = request_cancellation.cancelled() => {
                        cx.cancellation().cancel();
                        running.await
                    }
                })
            }
        }
    }

    /// What a call running as a task ends with, from its handler's run.
    fn task_run(
        &self,
        entry: Arc<ToolEntry>,
        era: Era,
        running: BoxFuture<'static, ToolRun>,
    ) -> crate::tasks::TaskRun {
        let server = self.clone();
        Box::pin(async move {
            match server.tool_call_end(&entry, era, running.await) {
                CallEnd::Result(result, is_error) => TaskEnd::Completed { result, is_error },
                CallEnd::Error(error) => TaskEnd::Failed(error),
                // a task's input requests wait in the task: a handler never suspends in one
                CallEnd::Input(_) => TaskEnd::Failed(ErrorObject::internal_error(
                    "the tool asked for input outside of an input round",
                )),
            }
        })
    }

    /// The answer to a call whose handler ran: its result checked against the output schema,
    /// stamped for the era; a protocol error; or the input it asked for first.
    fn tool_call_end(&self, entry: &ToolEntry, era: Era, ran: ToolRun) -> CallEnd {
        let mut result = match ran {
            Ran::Returned(Ok(result)) => result,
            Ran::Returned(Err(error)) => return CallEnd::Error(error),
            Ran::Panicked(panic) => CallToolResult::error(panic),
            Ran::Suspended(Suspension::Input(requests)) => return CallEnd::Input(requests),
            Ran::Suspended(Suspension::Error(error)) => return CallEnd::Error(error),
        };
        if let (Some(validator), false) = (&entry.output, result.is_error()) {
            match &result.structured_content {
                Some(structured) => {
                    if let Err(errors) = validator.validate_all(structured) {
                        let lines: Vec<_> = errors
                            .iter()
                            .map(|e| format!("Invalid structured result {e}"))
                            .collect();
                        result = CallToolResult::error(lines.join("\n"));
                    }
                }
                None => {
                    result = CallToolResult::error(format!(
                        "Tool {} declares an output schema but returned no structured content",
                        entry.tool.name
                    ));
                }
            }
        }
        let is_error = result.is_error();
        match self.stamped(era, result) {
            Ok(json) => CallEnd::Result(json, is_error),
            Err(error) => CallEnd::Error(error),
        }
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
        let (ttl_ms, cache_scope) = self.cache_hints(era);
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

/// What running a tool handler produced.
type ToolRun = Ran<crate::tool::ToolOutcome>;

/// A `tools/call` past its checks, its handler's future made ([`Server::start_call`]).
struct StartedCall {
    entry: Arc<ToolEntry>,
    /// The handler's context (for a call that may become a task, its own cancellation).
    cx: Context,
    mode: CallMode,
    round: Option<Arc<crate::input::Round>>,
    running: BoxFuture<'static, ToolRun>,
    /// The request's own cancellation, which a call that became a task no longer heeds.
    request_cancellation: crate::context::Cancellation,
}

/// What a 2026-07-28 call that did not finish on its first poll became.
enum Became {
    /// A task: the answer to the request.
    Task(Result<McpResponse, ErrorObject>),
    /// No task could be made: the handler's run, waited for inline.
    Inline(ToolRun),
}

/// The answer announcing the task a call became, with the task for the middleware to watch.
fn task_created((answer, task): (RawJson, Arc<crate::tasks::LiveTask>)) -> McpResponse {
    McpResponse::task_created(answer, crate::middleware::TaskHandle::new(task))
}

/// The request-state binding of a `tools/call` (its `name` and `arguments`), made from the raw
/// params only when a sealed state is opened or sealed.
fn call_binding(raw_params: Option<&RawValue>) -> Value {
    let params: Value = raw_params
        .and_then(|p| serde_json::from_str(p.get()).ok())
        .unwrap_or(Value::Null);
    request_state_binding("tools/call", &params)
}

/// How a call whose handler ran is answered.
enum CallEnd {
    /// The result, and whether it is a tool error.
    Result(RawJson, bool),
    /// A protocol error.
    Error(ErrorObject),
    /// The handler asked for input the round does not hold (2026-07-28).
    Input(std::collections::BTreeMap<String, presa_core::InputRequest>),
}

/// What every list page holds before it becomes its list's result.
struct ListPage<T> {
    items: Vec<T>,
    next_cursor: Option<String>,
    ttl_ms: Option<u64>,
    cache_scope: Option<presa_core::CacheScope>,
}

/// The params of `tools/call` that dispatch reads: `_meta` is only checked to be an object (the
/// context already holds it, read once), so a call does not build it again.
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct CallParams {
    #[serde(rename = "_meta", default)]
    _meta: Option<MetaObject>,
    name: String,
    #[serde(default)]
    arguments: Option<presa_core::JsonObject>,
    #[serde(default)]
    input_responses: Option<InputResponses>,
    #[serde(default)]
    request_state: Option<String>,
    /// 2025-11-25: run the call as a task (ignored by the other revisions).
    #[serde(default)]
    task: Option<presa_core::TaskMetadata>,
}

/// A JSON object, skipped over without keeping any of it.
struct MetaObject;

impl<'de> serde::Deserialize<'de> for MetaObject {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Skip;
        impl<'de> serde::de::Visitor<'de> for Skip {
            type Value = MetaObject;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object")
            }

            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<MetaObject, A::Error> {
                use serde::de::IgnoredAny;
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(MetaObject)
            }
        }
        deserializer.deserialize_map(Skip)
    }
}

/// A 2026-07-28 result without `_meta` of its own, given the server's identity as its `_meta`.
#[derive(Serialize)]
struct WithServerInfo<'a, R> {
    #[serde(flatten)]
    result: &'a R,
    #[serde(rename = "_meta")]
    meta: &'a RawValue,
}
