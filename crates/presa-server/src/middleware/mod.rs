//! The middleware seam: one stack of [`Middleware`] over the MCP requests a server serves, run
//! the same way on every transport (stdio, in-process, Streamable HTTP in both eras).
//!
//! A middleware gets each request ([`McpRequest`]: the method, its params, the definition it
//! names, the caller, the revision, the transport and for HTTP the request's headers and
//! extensions) and the rest of the stack ([`Next`]). It can answer by itself, refuse with a
//! protocol error, or pass the request on and look at the answer. Middleware runs after the
//! session's own checks (headers, `_meta`, version) and before the definition's scope check and
//! its handler; what the session answers by itself (`initialize`, `ping`, `logging/setLevel`,
//! `server/discover`) does not pass through it.
//!
//! ```
//! use std::time::Instant;
//! use presa_core::Tool;
//! use presa_server::{Context, McpRequest, Next, Server};
//! use serde_json::Value;
//!
//! let server = Server::builder("timed", "1.0.0")
//!     .middleware(|request: McpRequest, next: Next| async move {
//!         let method = request.method().to_owned();
//!         let started = Instant::now();
//!         let response = next.run(request).await;
//!         eprintln!("{method} took {:?}", started.elapsed());
//!         response
//!     })
//!     .tool_sync(Tool::without_params("ping"), |_: Value, _: Context| "pong")
//!     .build()
//!     .unwrap();
//! # let _ = server;
//! ```

mod audit;
mod rate_limit;
mod visibility;

use std::fmt;
use std::future::Future;
use std::sync::{Arc, OnceLock};

use presa_core::{
    CompletionReference, Era, ErrorObject, Prompt, ProtocolVersion, RawJson, Resource,
    ResourceTemplate, Tool, to_raw,
};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::BoxFuture;
use crate::auth::AuthInfo;
use crate::call::CallInfo;
use crate::context::Context;
use crate::definitions::{Definitions, PromptEntry, ResourceEntry, TemplateEntry, ToolEntry};
use crate::server::Server;
use crate::tasks::{LiveTask, TaskOutcome};

pub use audit::{Audit, AuditRecord, Outcome};
pub use rate_limit::RateLimit;
pub use visibility::{ListFilter, ScopeFilteredLists};

/// One layer of a server's middleware stack (docs/middleware.md has the guide).
///
/// Any `Fn(McpRequest, Next) -> impl Future<Output = McpResponse>` is one; a type with state of
/// its own implements the trait. Add them with
/// [`ServerBuilder::middleware`](crate::ServerBuilder::middleware): the first added is the
/// outermost, seeing each request first and its answer last.
pub trait Middleware: Send + Sync + 'static {
    /// Serves `request`, usually by calling `next.run(request)` on the way.
    fn call(&self, request: McpRequest, next: Next) -> BoxFuture<'static, McpResponse>;
}

impl<F, Fut> Middleware for F
where
    F: Fn(McpRequest, Next) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = McpResponse> + Send + 'static,
{
    fn call(&self, request: McpRequest, next: Next) -> BoxFuture<'static, McpResponse> {
        Box::pin(self(request, next))
    }
}

/// A server's middleware, outermost first.
pub(crate) type Stack = Arc<[Arc<dyn Middleware>]>;

/// Who a request's caller is, as [`ServerBuilder::caller_key`](crate::ServerBuilder::caller_key)
/// tells it.
pub(crate) type CallerKeyFn = Arc<dyn Fn(&McpRequest) -> Option<String> + Send + Sync>;

/// One MCP request on its way through the middleware to its handler.
pub struct McpRequest {
    method: String,
    params: Option<RawJson>,
    cx: Context,
    definitions: Arc<Definitions>,
    /// The definition the request names, resolved when first asked for.
    target: OnceLock<Option<Resolved>>,
    /// The caller's key, resolved when first asked for.
    caller_key: OnceLock<Option<String>>,
    /// The task the request names (`tasks/*`), read when first asked for.
    task_id: OnceLock<Option<String>>,
    extensions: http::Extensions,
}

impl fmt::Debug for McpRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpRequest")
            .field("method", &self.method)
            .field("id", self.cx.request_id())
            .field("protocol_version", &self.cx.protocol_version())
            .field("transport", &self.cx.transport())
            .finish_non_exhaustive()
    }
}

impl McpRequest {
    pub(crate) fn new(
        method: String,
        params: Option<RawJson>,
        cx: Context,
        definitions: Arc<Definitions>,
    ) -> Self {
        Self {
            method,
            params,
            cx,
            definitions,
            target: OnceLock::new(),
            caller_key: OnceLock::new(),
            task_id: OnceLock::new(),
            extensions: http::Extensions::new(),
        }
    }

    /// The method, e.g. `tools/call`.
    pub fn method(&self) -> &str {
        &self.method
    }

    /// The params as sent.
    pub fn params(&self) -> Option<&RawValue> {
        self.params.as_deref()
    }

    /// The params read as `T` (e.g. [`presa_core::CallToolRequestParams`]); absent params read
    /// as `{}`. Each call reads them again: the request itself is read once, by its handler.
    pub fn params_as<T: DeserializeOwned>(&self) -> Result<T, ErrorObject> {
        presa_core::parse_params(self.params.as_deref())
    }

    /// What the handler will see of the request: its id, the client (revision, capabilities,
    /// identity), the caller, the transport, the HTTP request.
    pub fn context(&self) -> &Context {
        &self.cx
    }

    /// The identity the transport verified for the request, if any.
    pub fn caller(&self) -> Option<&AuthInfo> {
        self.cx.auth()
    }

    /// Who the caller is, as one key every middleware shares (presa's
    /// [`RateLimit`] counts by it, [`Audit`] records it): what the server's
    /// [`caller_key`](crate::ServerBuilder::caller_key) resolver gives, else the verified
    /// identity's subject, else its client id; `None` for an anonymous caller.
    pub fn caller_key(&self) -> Option<&str> {
        self.caller_key
            .get_or_init(|| {
                let resolver = self
                    .cx
                    .server()
                    .and_then(|server| server.inner.options.caller_key.clone());
                resolver.and_then(|key| key(self)).or_else(|| {
                    let auth = self.cx.auth()?;
                    auth.subject().or(auth.client_id()).map(str::to_owned)
                })
            })
            .as_deref()
    }

    /// The call this request belongs to: its id and round, the same id in every round of a
    /// 2026-07-28 call that asked the client for input (see [`CallInfo`]). Read from the
    /// request's sealed `requestState` when it continues a call, so any instance holding the
    /// key tells the same.
    pub fn call(&self) -> &CallInfo {
        self.cx.call_or_init(|| {
            continued(&self.cx, &self.method, self.params.as_deref())
                .unwrap_or_else(CallInfo::fresh)
        })
    }

    /// Whether this request answers every input request the previous round of its call asked
    /// for (true for a first round): a continuation that makes progress.
    pub(crate) fn answers_previous_round(&self) -> bool {
        #[derive(serde::Deserialize)]
        struct Answers {
            #[serde(rename = "inputResponses", default)]
            input_responses: Option<std::collections::BTreeMap<String, serde::de::IgnoredAny>>,
        }
        let asked = self.call().asked();
        if asked.is_empty() {
            return true;
        }
        let Ok(Answers {
            input_responses: Some(answers),
        }) = self.params_as::<Answers>()
        else {
            return false;
        };
        asked.iter().all(|key| answers.contains_key(key))
    }

    /// The task this request is about: the `taskId` of a `tasks/get`, `tasks/update`,
    /// `tasks/result` or `tasks/cancel`. (A `tools/call` that becomes a task says so in its
    /// answer: [`McpResponse::task`].)
    pub fn task_id(&self) -> Option<&str> {
        self.task_id
            .get_or_init(|| {
                #[derive(serde::Deserialize)]
                struct Names {
                    #[serde(rename = "taskId")]
                    task_id: String,
                }
                if !self.method.starts_with("tasks/") {
                    return None;
                }
                let names: Names = presa_core::parse_params(self.params.as_deref()).ok()?;
                Some(names.task_id)
            })
            .as_deref()
    }

    /// The revision the request is served under.
    pub fn protocol_version(&self) -> ProtocolVersion {
        self.cx.protocol_version()
    }

    /// The era of that revision.
    pub fn era(&self) -> Era {
        self.cx.protocol_version().era()
    }

    /// The definition the request names (the tool of `tools/call`, the prompt of `prompts/get`
    /// or of a completion, the resource or template of `resources/read` or of a completion), as
    /// the server's current snapshot holds it; `None` for other methods and unknown names.
    pub fn target(&self) -> Option<Target<'_>> {
        let resolved = self
            .target
            .get_or_init(|| resolve(&self.definitions, &self.method, self.params.as_deref()));
        resolved.as_ref().map(Resolved::view)
    }

    /// Values for the rest of the stack and the handler, which reads them with
    /// [`Context::extensions`].
    pub fn extensions(&self) -> &http::Extensions {
        &self.extensions
    }

    /// See [`extensions`](Self::extensions).
    pub fn extensions_mut(&mut self) -> &mut http::Extensions {
        &mut self.extensions
    }
}

/// The call the request `method` with `params` continues, read from its `requestState` when it
/// carries one that opens under the server's key (the opened state is kept for the dispatcher,
/// which reads the answers in it); `None` for a first round, or for a state that does not open
/// (the request fails as it is served, as round 1 of a call of its own).
fn continued(cx: &Context, method: &str, params: Option<&RawValue>) -> Option<CallInfo> {
    let rounds = matches!(method, "tools/call" | "prompts/get" | "resources/read");
    if cx.protocol_version().era() != presa_core::Era::Stateless || !rounds {
        return None;
    }
    // the common case, a first round, costs a substring search, not a parse
    let params = params.filter(|p| presa_core::json_may_name(p.get(), "requestState"))?;
    let params: Value = serde_json::from_str(params.get()).ok()?;
    let token = params.get("requestState")?.as_str()?;
    let server = cx.server()?;
    let codec = server.inner.options.request_state.as_ref()?;
    let binding = || presa_core::request_state_binding(method, &params);
    let state = cx.open_state(codec, method, token, binding).ok()?;
    CallInfo::continued_from(state)
}

/// The definition a request names.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub enum Target<'a> {
    /// A tool, with the scopes it requires.
    Tool(&'a Tool, &'a [String]),
    /// A prompt, with the scopes it requires.
    Prompt(&'a Prompt, &'a [String]),
    /// A resource, with the scopes it requires.
    Resource(&'a Resource, &'a [String]),
    /// A resource template, with the scopes it requires.
    ResourceTemplate(&'a ResourceTemplate, &'a [String]),
}

impl<'a> Target<'a> {
    /// The tool's or prompt's name, the resource's URI, the template's URI template.
    pub fn name(&self) -> &'a str {
        match self {
            Self::Tool(tool, _) => &tool.name,
            Self::Prompt(prompt, _) => &prompt.name,
            Self::Resource(resource, _) => &resource.uri,
            Self::ResourceTemplate(template, _) => &template.uri_template,
        }
    }

    /// The scopes a caller needs for it.
    pub fn scopes(&self) -> &'a [String] {
        match self {
            Self::Tool(_, scopes)
            | Self::Prompt(_, scopes)
            | Self::Resource(_, scopes)
            | Self::ResourceTemplate(_, scopes) => scopes,
        }
    }
}

enum Resolved {
    Tool(Arc<ToolEntry>),
    Prompt(Arc<PromptEntry>),
    Resource(Arc<ResourceEntry>),
    Template(Arc<TemplateEntry>),
}

impl Resolved {
    fn view(&self) -> Target<'_> {
        match self {
            Self::Tool(e) => Target::Tool(&e.tool, &e.scopes),
            Self::Prompt(e) => Target::Prompt(&e.prompt, &e.scopes),
            Self::Resource(e) => Target::Resource(&e.resource, &e.scopes),
            Self::Template(e) => Target::ResourceTemplate(&e.template, &e.scopes),
        }
    }
}

/// The definition `method` with `params` names, reading only the member that names it.
fn resolve(definitions: &Definitions, method: &str, params: Option<&RawValue>) -> Option<Resolved> {
    let names = crate::wire::ParamNames::read(Some(params?))?;
    let by_uri = |uri: &str| match definitions.resource(uri) {
        Some(entry) => Some(Resolved::Resource(Arc::clone(entry))),
        None => definitions
            .template(uri)
            .or_else(|| definitions.match_template(uri).map(|(entry, _)| entry))
            .map(|entry| Resolved::Template(Arc::clone(entry))),
    };
    match method {
        "tools/call" => definitions
            .tool(names.name.as_deref()?)
            .map(|e| Resolved::Tool(Arc::clone(e))),
        "prompts/get" => definitions
            .prompt(names.name.as_deref()?)
            .map(|e| Resolved::Prompt(Arc::clone(e))),
        "resources/read" => by_uri(names.uri.as_deref()?),
        "completion/complete" => match names.reference? {
            CompletionReference::Prompt(p) => definitions
                .prompt(&p.name)
                .map(|e| Resolved::Prompt(Arc::clone(e))),
            CompletionReference::Resource(r) => by_uri(&r.uri),
            _ => None,
        },
        _ => None,
    }
}

/// What a request ended with, as middleware sees it: a result or a protocol error. A tool call
/// that failed as a tool (`isError: true`) is a result, and says so; so does a 2026-07-28
/// request answered `input_required` (the call goes on in a next round), and a `tools/call`
/// that became a task (the call goes on in the task).
#[derive(Clone, Debug)]
pub struct McpResponse {
    result: Result<RawJson, ErrorObject>,
    kind: Kind,
    /// The tool or prompt that served it, once known.
    served: Option<Served>,
}

/// The definition that served a request.
#[derive(Clone)]
pub(crate) enum Served {
    Tool(Arc<ToolEntry>),
    Prompt(Arc<PromptEntry>),
}

impl Served {
    /// Its metric attribute (`gen_ai.tool.name` or `gen_ai.prompt.name`) and the measures
    /// bound to it.
    #[cfg(feature = "otel")]
    pub(crate) fn named(&self) -> &crate::metrics::Named {
        match self {
            Self::Tool(entry) => &entry.named,
            Self::Prompt(entry) => &entry.named,
        }
    }
}

impl fmt::Debug for Served {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Tool(entry) => f.debug_tuple("Tool").field(&entry.tool.name).finish(),
            Self::Prompt(entry) => f.debug_tuple("Prompt").field(&entry.prompt.name).finish(),
        }
    }
}

/// What kind of result a response holds.
#[derive(Clone, Debug)]
enum Kind {
    /// The request's own result (or an error).
    Done,
    /// A tool call's result reporting the tool failing.
    ToolError,
    /// `input_required`: the client is asked for input and makes the call again.
    InputRequired,
    /// The task a tool call became.
    Task(TaskHandle),
}

impl McpResponse {
    /// A result, serialized (an error if it cannot be).
    pub fn result(result: &impl Serialize) -> Self {
        to_raw(result)
            .map_err(|e| ErrorObject::internal_error(format!("unserializable result: {e}")))
            .into()
    }

    /// A protocol error.
    pub fn error(error: impl Into<ErrorObject>) -> Self {
        Self {
            result: Err(error.into()),
            kind: Kind::Done,
            served: None,
        }
    }

    pub(crate) fn tool_result(result: RawJson, is_error: bool) -> Self {
        Self {
            result: Ok(result),
            kind: if is_error {
                Kind::ToolError
            } else {
                Kind::Done
            },
            served: None,
        }
    }

    /// A request's own result.
    pub(crate) fn done(result: RawJson) -> Self {
        Self {
            result: Ok(result),
            kind: Kind::Done,
            served: None,
        }
    }

    /// An `input_required` result.
    pub(crate) fn input_required(result: RawJson) -> Self {
        Self {
            result: Ok(result),
            kind: Kind::InputRequired,
            served: None,
        }
    }

    /// The answer announcing the task a tool call became.
    pub(crate) fn task_created(result: RawJson, task: TaskHandle) -> Self {
        Self {
            result: Ok(result),
            kind: Kind::Task(task),
            served: None,
        }
    }

    /// This answer, served by `served`.
    pub(crate) fn served_by(mut self, served: Served) -> Self {
        self.served = Some(served);
        self
    }

    /// The result or the error, and the tool or prompt that served it.
    pub(crate) fn into_parts(self) -> (Result<RawJson, ErrorObject>, Option<Served>) {
        (self.result, self.served)
    }

    /// Whether this answers a 2026-07-28 request with `input_required`: the call is not over,
    /// its next round brings the client's answers (see [`McpRequest::call`]).
    pub fn is_input_required(&self) -> bool {
        matches!(self.kind, Kind::InputRequired)
    }

    /// The task a `tools/call` became: the answer announces it, and the work goes on in it.
    pub fn task(&self) -> Option<&TaskHandle> {
        match &self.kind {
            Kind::Task(task) => Some(task),
            _ => None,
        }
    }

    /// The result or the error.
    pub fn as_result(&self) -> Result<&RawValue, &ErrorObject> {
        match &self.result {
            Ok(raw) => Ok(raw),
            Err(error) => Err(error),
        }
    }

    /// The protocol error, if the request failed with one.
    pub fn protocol_error(&self) -> Option<&ErrorObject> {
        self.result.as_ref().err()
    }

    /// Whether this is a tool call's result that reports the tool failing (`isError: true`).
    pub fn is_tool_error(&self) -> bool {
        matches!(self.kind, Kind::ToolError)
    }

    /// The result or the error, to send.
    pub fn into_result(self) -> Result<RawJson, ErrorObject> {
        self.result
    }
}

impl From<Result<RawJson, ErrorObject>> for McpResponse {
    fn from(result: Result<RawJson, ErrorObject>) -> Self {
        Self {
            result,
            kind: Kind::Done,
            served: None,
        }
    }
}

/// A task a tool call became, as middleware sees it: its id, and a way to wait for its end.
#[derive(Clone)]
pub struct TaskHandle {
    live: Arc<LiveTask>,
}

impl fmt::Debug for TaskHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TaskHandle")
            .field("id", &self.live.id)
            .finish()
    }
}

impl TaskHandle {
    pub(crate) fn new(live: Arc<LiveTask>) -> Self {
        Self { live }
    }

    /// The task's id.
    pub fn id(&self) -> &str {
        &self.live.id
    }

    /// Waits for the task to end, and tells how. The task runs in this process (a task runs
    /// where its call was made), so its end is seen here whoever cancels it.
    pub async fn finished(&self) -> TaskOutcome {
        loop {
            let changed = self.live.changed.notified();
            tokio::pin!(changed);
            changed.as_mut().enable();
            if let Some(outcome) = self.live.outcome().await {
                return outcome;
            }
            changed.await;
        }
    }
}

/// The rest of the middleware stack, ending with the request's handler.
pub struct Next {
    server: Server,
    stack: Stack,
    index: usize,
}

impl fmt::Debug for Next {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Next")
            .field(
                "remaining",
                &(self.stack.len() - self.index.min(self.stack.len())),
            )
            .finish()
    }
}

impl Next {
    /// The whole stack of `server`.
    pub(crate) fn new(server: Server, stack: Stack) -> Self {
        Self {
            server,
            stack,
            index: 0,
        }
    }

    /// Passes `request` on to the next middleware, or to its handler after the last.
    pub async fn run(self, request: McpRequest) -> McpResponse {
        let Self {
            server,
            stack,
            index,
        } = self;
        match stack.get(index).cloned() {
            Some(middleware) => {
                let next = Self {
                    server,
                    stack,
                    index: index + 1,
                };
                middleware.call(request, next).await
            }
            None => {
                let McpRequest {
                    method,
                    params,
                    cx,
                    definitions,
                    extensions,
                    ..
                } = request;
                let cx = cx.with_extensions(extensions);
                server
                    .dispatch(&definitions, &method, params.as_deref(), cx)
                    .await
            }
        }
    }
}
