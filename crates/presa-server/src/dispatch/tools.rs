//! `tools/call`: checks, the handler's run (inline, as a task, or suspended for input), and the
//! answer.

use std::sync::Arc;

use presa_core::{
    CallToolResult, Era, ErrorObject, InputResponses, RawJson, clipped, parse_params,
    request_state_binding,
};
use serde_json::Value;
use serde_json::value::RawValue;

use crate::BoxFuture;
use crate::context::Context;
use crate::definitions::{Definitions, ToolEntry};
use crate::input::Suspension;
use crate::middleware::{McpResponse, Served};
use crate::rounds::{Ran, run};
use crate::scopes::{Described, check_scopes};
use crate::server::Server;
use crate::tasks::{CallMode, TaskEnd};

impl Server {
    /// `tools/call`: the answer, and whether the tool failed as a tool (`isError`).
    pub(super) async fn call_tool(
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
