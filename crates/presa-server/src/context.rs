//! What a handler knows about the request it serves, and how it talks back while working.

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

use presa_core::{
    ClientCapabilities, ClientContext, Era, Implementation, LoggingLevel, Meta, NotificationMethod,
    ProtocolVersion, ReceivedHeaders, RequestId, RequestStateCodec, RequestStateError,
};
use serde_json::Value;
use tokio::sync::Notify;

use crate::auth::{AuthInfo, InsufficientScope};
use crate::call::CallInfo;
use crate::input::{Asks, Round};
use crate::server::Server;
use crate::state::MissingState;
use crate::transport::{Arrival, HttpParts, Transport};

mod ask;
mod peer;

pub(crate) use peer::{NoPeer, Peer, SessionPeer};

/// A request's cancellation signal: set once, observed by polling or awaiting.
#[derive(Clone, Debug, Default)]
pub struct Cancellation {
    inner: Arc<CancellationInner>,
}

#[derive(Debug, Default)]
struct CancellationInner {
    cancelled: AtomicBool,
    notify: Notify,
}

impl Cancellation {
    /// A signal that has not fired.
    pub fn new() -> Self {
        Self::default()
    }

    /// Fires the signal; every waiter wakes.
    pub fn cancel(&self) {
        self.inner.cancelled.store(true, Ordering::Release);
        self.inner.notify.notify_waiters();
    }

    /// Whether `other` is this very signal (a clone of it), not another one.
    pub(crate) fn same(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }

    /// Whether the signal fired.
    pub fn is_cancelled(&self) -> bool {
        self.inner.cancelled.load(Ordering::Acquire)
    }

    /// Completes once the signal fires.
    pub async fn cancelled(&self) {
        loop {
            let notified = self.inner.notify.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if self.is_cancelled() {
                return;
            }
            notified.await;
        }
    }
}

/// What a handler knows about the request it serves, and its way to talk back.
///
/// The same in both protocol eras: on 2026-07-28 the client's version, capabilities and identity
/// come from the request's own `_meta`; in the initialize era, from the session's handshake.
/// Cheap to clone.
#[derive(Clone)]
pub struct Context {
    inner: Arc<ContextInner>,
}

#[derive(Clone)]
struct ContextInner {
    request_id: RequestId,
    client: Arc<ClientContext>,
    meta: Option<Meta>,
    peer: Arc<dyn Peer>,
    cancellation: Cancellation,
    /// What the handler asked for and cannot have yet (2026-07-28), or why it must fail.
    asks: Arc<Asks>,
    /// The answers of a 2026-07-28 round; absent where the request cannot ask for input.
    round: OnceLock<Arc<Round>>,
    /// The transport, the identity it verified, the HTTP request.
    arrival: Arrival,
    /// The mirror headers of a 2026-07-28 request over Streamable HTTP.
    headers: Option<Arc<ReceivedHeaders>>,
    /// What middleware attached to the request.
    extensions: http::Extensions,
    /// The server serving the request; `None` for a detached context not handed to one yet.
    server: Option<Server>,
    /// The task the request became, once it did.
    task: OnceLock<Arc<crate::tasks::LiveTask>>,
    /// The call the request belongs to, once asked for or once its round opened.
    call: OnceLock<CallInfo>,
    /// The request's sealed `requestState`, opened once for everyone who reads it (a
    /// middleware asking for the call, the dispatcher reading the answers).
    state: OnceLock<Result<Value, RequestStateError>>,
    /// Whether the request may still become a task (a 2026-07-28 call of a task-capable tool
    /// from a client that declared the tasks extension).
    may_become_task: bool,
    /// Whether this is a notification handler's context: no request waits on its `asks`, so
    /// asking the client what it cannot answer fails the ask instead of the request.
    notification: bool,
}

impl fmt::Debug for Context {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Context")
            .field("request_id", &self.inner.request_id)
            .field("protocol_version", &self.inner.client.protocol_version)
            .field("cancelled", &self.inner.cancellation.is_cancelled())
            .field("subject", &self.auth().and_then(AuthInfo::subject))
            .finish_non_exhaustive()
    }
}

impl Context {
    /// A context for one request; the runner builds these, handlers receive them.
    // crate-private, with two callers that name every part of a request's context
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        request_id: RequestId,
        client: Arc<ClientContext>,
        meta: Option<Meta>,
        peer: Arc<dyn Peer>,
        cancellation: Cancellation,
        arrival: Arrival,
        headers: Option<Arc<ReceivedHeaders>>,
        server: Option<Server>,
    ) -> Self {
        Self {
            inner: Arc::new(ContextInner {
                request_id,
                client,
                meta,
                peer,
                cancellation,
                asks: Arc::default(),
                round: OnceLock::new(),
                arrival,
                headers,
                extensions: http::Extensions::new(),
                server,
                task: OnceLock::new(),
                call: OnceLock::new(),
                state: OnceLock::new(),
                may_become_task: false,
                notification: false,
            }),
        }
    }

    /// The context of a notification handler: no request id (0), and `ended` as its
    /// cancellation.
    pub(crate) fn for_notification(
        client: Arc<ClientContext>,
        meta: Option<Meta>,
        peer: Arc<dyn Peer>,
        ended: Cancellation,
        arrival: Arrival,
        server: Server,
    ) -> Self {
        let cx = Self::new(
            RequestId::Number(0),
            client,
            meta,
            peer,
            ended,
            arrival,
            None,
            Some(server),
        );
        let mut inner = Arc::unwrap_or_clone(cx.inner);
        inner.notification = true;
        Self {
            inner: Arc::new(inner),
        }
    }

    /// A context for calling a server directly, without a connection: the newest revision, no
    /// client capabilities, progress and log messages dropped.
    ///
    /// ```
    /// let cx = presa_server::Context::detached();
    /// assert!(!cx.is_cancelled());
    /// ```
    pub fn detached() -> Self {
        Self::for_client(ClientContext {
            protocol_version: ProtocolVersion::LATEST,
            capabilities: ClientCapabilities::default(),
            client_info: None,
        })
    }

    /// A context for calling a server directly as the client `client` describes (its revision,
    /// capabilities and identity), without a connection: progress and log messages are
    /// dropped, and asking the client for input fails as it would with a client that cannot
    /// answer.
    ///
    /// ```
    /// use presa_core::{ClientCapabilities, ClientContext, ProtocolVersion};
    /// use presa_server::Context;
    ///
    /// let cx = Context::for_client(ClientContext {
    ///     protocol_version: ProtocolVersion::V2025_06_18,
    ///     capabilities: ClientCapabilities::default(),
    ///     client_info: None,
    /// });
    /// assert_eq!(cx.protocol_version(), ProtocolVersion::V2025_06_18);
    /// ```
    pub fn for_client(client: ClientContext) -> Self {
        Self::new(
            RequestId::Number(0),
            Arc::new(client),
            None,
            Arc::new(NoPeer),
            Cancellation::new(),
            Arrival::default(),
            None,
            None,
        )
    }

    /// This context with the identity the transport verified for the request (see [`auth`]).
    ///
    /// [`auth`]: Self::auth
    ///
    /// ```
    /// use presa_server::{AuthInfo, Context};
    ///
    /// let cx = Context::detached().with_auth(AuthInfo::new().with_subject("alice"));
    /// assert_eq!(cx.auth().and_then(|a| a.subject()), Some("alice"));
    /// ```
    #[must_use]
    pub fn with_auth(self, auth: impl Into<Arc<AuthInfo>>) -> Self {
        let mut inner = Arc::unwrap_or_clone(self.inner);
        inner.arrival.auth = Some(auth.into());
        Self {
            inner: Arc::new(inner),
        }
    }

    /// This context, serving a request of `server` (a detached context handed to
    /// [`Server::handle`]).
    pub(crate) fn with_server(self, server: &Server) -> Self {
        if self.inner.server.is_some() {
            return self;
        }
        let mut inner = Arc::unwrap_or_clone(self.inner);
        inner.server = Some(server.clone());
        Self {
            inner: Arc::new(inner),
        }
    }

    /// The server serving this request: a handler can change its definitions
    /// ([`Server::add_resource`], [`Server::remove_tool`], ...) or tell subscribers of a change
    /// ([`Server::resource_updated`]). `None` only for a context made outside a server
    /// ([`detached`](Self::detached), [`for_client`](Self::for_client)) and not handed to one.
    ///
    /// ```
    /// use presa_server::{Context, Server};
    ///
    /// let server = Server::builder("notes", "1.0.0")
    ///     .subscribe(true)
    ///     .tool_sync("touch", |_: (), cx: Context| {
    ///         if let Some(server) = cx.server() {
    ///             server.resource_updated("notes://index");
    ///         }
    ///         "touched"
    ///     })
    ///     .build()
    ///     .unwrap();
    /// # let _ = server;
    /// ```
    pub fn server(&self) -> Option<&Server> {
        self.inner.server.as_ref()
    }

    /// The state of type `T` the server was given ([`ServerBuilder::state`]).
    ///
    /// [`ServerBuilder::state`]: crate::ServerBuilder::state
    ///
    /// ```
    /// use std::sync::Mutex;
    /// use presa_server::{Context, Server, ToolError};
    ///
    /// struct Notes(Mutex<Vec<String>>);
    ///
    /// let server = Server::builder("notes", "1.0.0")
    ///     .state(Notes(Mutex::new(Vec::new())))
    ///     .tool_sync("count", |_: (), cx: Context| {
    ///         let notes = cx.state::<Notes>()?;
    ///         let count = notes.0.lock().map(|n| n.len()).unwrap_or(0);
    ///         Ok::<_, ToolError>(count.to_string())
    ///     })
    ///     .build()
    ///     .unwrap();
    /// # let _ = server;
    /// ```
    pub fn state<T: Send + Sync + 'static>(&self) -> Result<&T, MissingState> {
        self.inner
            .server
            .as_ref()
            .and_then(|server| server.inner.state.get::<T>())
            .ok_or_else(MissingState::of::<T>)
    }

    /// This context with what middleware attached to the request.
    pub(crate) fn with_extensions(self, extensions: http::Extensions) -> Self {
        if extensions.is_empty() {
            return self;
        }
        let mut inner = Arc::unwrap_or_clone(self.inner);
        inner.extensions.extend(extensions);
        Self {
            inner: Arc::new(inner),
        }
    }

    /// The identity the transport verified for this request (subject, scopes, claims), or
    /// `None` where the transport authenticates no one.
    pub fn auth(&self) -> Option<&AuthInfo> {
        self.inner.arrival.auth.as_deref()
    }

    /// The transport the request arrived by.
    pub fn transport(&self) -> Transport {
        self.inner.arrival.transport
    }

    /// The HTTP request this request arrived on (its headers and the extensions layers in front
    /// of the endpoint put there); `None` on other transports.
    ///
    /// ```
    /// use presa_core::Tool;
    /// use presa_server::{Context, Server};
    /// use serde_json::Value;
    ///
    /// let server = Server::builder("tenants", "1.0.0")
    ///     .tool_sync(Tool::without_params("tenant"), |_: Value, cx: Context| {
    ///         let tenant = cx.http().and_then(|http| http.headers().get("x-tenant"));
    ///         tenant.and_then(|t| t.to_str().ok()).unwrap_or("none").to_owned()
    ///     })
    ///     .build()
    ///     .unwrap();
    /// # let _ = server;
    /// ```
    pub fn http(&self) -> Option<&HttpParts> {
        self.inner.arrival.http.as_deref()
    }

    /// What middleware attached to this request (see
    /// [`McpRequest::extensions_mut`](crate::McpRequest::extensions_mut)).
    pub fn extensions(&self) -> &http::Extensions {
        &self.inner.extensions
    }

    /// The mirror headers the request arrived with (2026-07-28 over Streamable HTTP).
    pub(crate) fn received_headers(&self) -> Option<&ReceivedHeaders> {
        self.inner.headers.as_deref()
    }

    /// The id of the request being served: 0 in the context of a notification's handler (a
    /// notification has no id; what that handler sends goes to the session as a whole) and of a
    /// detached context.
    pub fn request_id(&self) -> &RequestId {
        &self.inner.request_id
    }

    /// The revision the request is served under.
    pub fn protocol_version(&self) -> ProtocolVersion {
        self.inner.client.protocol_version
    }

    /// The client's capabilities for this request.
    pub fn client_capabilities(&self) -> &ClientCapabilities {
        &self.inner.client.capabilities
    }

    /// The settings of extension `id` as the client declared it for this request, or `None`
    /// when it did not. On 2026-07-28 a client declares its capabilities with each request, so
    /// an extension that needs the client's support asks here, per request.
    ///
    /// ```
    /// use presa_core::{ClientCapabilities, ClientContext, ProtocolVersion};
    /// use presa_server::Context;
    ///
    /// let mut capabilities = ClientCapabilities::default();
    /// capabilities.extensions = Some(serde_json::json!({"com.example/things": {"max": 3}})
    ///     .as_object().unwrap().clone());
    /// let cx = Context::for_client(ClientContext {
    ///     protocol_version: ProtocolVersion::V2026_07_28,
    ///     capabilities,
    ///     client_info: None,
    /// });
    /// assert_eq!(cx.client_extension("com.example/things").unwrap()["max"], 3);
    /// assert!(cx.client_extension("com.example/other").is_none());
    /// ```
    pub fn client_extension(&self, id: &str) -> Option<&Value> {
        self.inner.client.capabilities.extensions.as_ref()?.get(id)
    }

    /// Whether the client renders MCP Apps (SEP-1865) for this request: it declared the
    /// `io.modelcontextprotocol/ui` extension with the app MIME type. A tool with an app
    /// answers every client with `content` that stands on its own; this says whether the page
    /// will be shown too.
    pub fn client_supports_apps(&self) -> bool {
        use serde::Deserialize as _;
        self.client_extension(presa_core::apps::APPS_EXTENSION)
            .and_then(|settings| presa_core::apps::UiClientSettings::deserialize(settings).ok())
            .is_some_and(|settings| settings.renders_apps())
    }

    /// The client's identity, when it gave one. Self-asserted: for display and logs, not for
    /// security decisions.
    pub fn client_info(&self) -> Option<&Implementation> {
        self.inner.client.client_info.as_ref()
    }

    /// The request's `_meta`, as sent (trace context and extension keys live here).
    pub fn meta(&self) -> Option<&Meta> {
        self.inner.meta.as_ref()
    }

    /// Reports progress, if the client asked for it (its request carried a `progressToken`);
    /// otherwise does nothing. `progress` must grow with every report.
    pub async fn progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        let message = message.map(str::to_owned);
        if let Some(task) = self.inner.task.get() {
            return task.progress(progress, total, message).await;
        }
        self.inner
            .peer
            .progress(&self.inner.request_id, progress, total, message)
            .await;
    }

    /// Sends notification `N` (an extension's, a [`NotificationMethod`] of your own) to the
    /// client, on this request's stream: where the request's progress and log messages go. Once
    /// the request has been answered it is dropped, as they are. Fails only when `params`
    /// cannot be serialized.
    ///
    /// ```
    /// use presa_core::NotificationMethod;
    /// use presa_server::{Context, ProtocolError, Server};
    ///
    /// enum Ticked {}
    /// impl NotificationMethod for Ticked {
    ///     const METHOD: &'static str = "notifications/example/ticked";
    ///     type Params = serde_json::Value;
    /// }
    ///
    /// let server = Server::builder("clock", "1")
    ///     .tool(presa_core::Tool::without_params("tick"), |_: serde_json::Value, cx: Context| async move {
    ///         cx.notify::<Ticked>(&serde_json::json!({"at": 1})).await?;
    ///         Ok::<_, serde_json::Error>("ticked")
    ///     })
    ///     .build()
    ///     .unwrap();
    /// # let _ = server;
    /// ```
    pub async fn notify<N: NotificationMethod>(
        &self,
        params: &N::Params,
    ) -> Result<(), serde_json::Error> {
        let notification = presa_core::Notification::new(N::METHOD, params)?;
        self.send_notification(notification).await;
        Ok(())
    }

    /// Closes this request's response stream early so that the client polls: on Streamable HTTP
    /// in an initialize-era session at 2025-11-25 (SEP-1699), the stream ends after its priming
    /// event, and the rest of the request's messages, its result included, reach the client
    /// when it reconnects with `Last-Event-ID`. Useful for a long-running tool behind proxies
    /// that cut idle connections. Returns whether the stream was closed; elsewhere (stdio,
    /// in-process, 2026-07-28, older revisions) it does nothing and returns `false`.
    ///
    /// ```
    /// use presa_core::Tool;
    /// use presa_server::{Context, Server};
    /// use serde_json::Value;
    ///
    /// let server = Server::builder("reports", "1.0.0")
    ///     .tool(Tool::without_params("long_report"), |_: Value, cx: Context| async move {
    ///         cx.close_stream(); // the client comes back for the result
    ///         "the report"
    ///     })
    ///     .build()
    ///     .unwrap();
    /// # let _ = server;
    /// ```
    pub fn close_stream(&self) -> bool {
        self.inner.task.get().is_none() && self.inner.peer.close_stream(&self.inner.request_id)
    }

    /// Sends a log message, if the client asked for messages of this level (2026-07-28: the
    /// request's `_meta` log level, nothing without one; initialize era: `logging/setLevel`,
    /// and only when the server enables logging).
    pub async fn log(&self, level: LoggingLevel, data: impl Into<Value>) {
        self.send_log(level, None, data.into()).await;
    }

    /// Like [`log`](Self::log), naming the logger.
    pub async fn log_as(&self, level: LoggingLevel, logger: &str, data: impl Into<Value>) {
        self.send_log(level, Some(logger.to_owned()), data.into())
            .await;
    }

    /// A log message for the request, or for the session once the request became a task (the
    /// 2026-07-28 extension has no stream for a task's messages: they are dropped there).
    async fn send_log(&self, level: LoggingLevel, logger: Option<String>, data: Value) {
        let related = match self.inner.task.get() {
            None => Some(&self.inner.request_id),
            Some(_) if self.protocol_version().era() == Era::Initialize => None,
            Some(_) => return,
        };
        self.inner.peer.log(related, level, logger, data).await;
    }

    /// Whether the client cancelled the request. A handler that computes without awaiting
    /// should check this now and then; one that awaits is stopped at its next await point.
    pub fn is_cancelled(&self) -> bool {
        self.inner.cancellation.is_cancelled()
    }

    /// Completes when the client cancels the request.
    pub async fn cancelled(&self) {
        self.inner.cancellation.cancelled().await;
    }

    /// The request's cancellation signal.
    pub fn cancellation(&self) -> &Cancellation {
        &self.inner.cancellation
    }

    /// Sends a notification on this request's stream while it is in flight.
    pub(crate) async fn send_notification(&self, notification: presa_core::Notification) {
        self.inner
            .peer
            .notify(Some(&self.inner.request_id), notification)
            .await;
    }

    pub(crate) fn asks(&self) -> Arc<Asks> {
        Arc::clone(&self.inner.asks)
    }

    /// The request's peer, for what outlives the request (a task).
    pub(crate) fn peer(&self) -> Arc<dyn Peer> {
        Arc::clone(&self.inner.peer)
    }

    /// The session or connection the request belongs to (see [`Arrival::with_session`]).
    pub(crate) fn session(&self) -> Option<&str> {
        self.inner.arrival.session()
    }

    /// This context for a call that may become a task: with a cancellation signal of its own
    /// (a task outlives its request, and only `tasks/cancel` may stop it then).
    pub(crate) fn for_possible_task(self) -> Self {
        let mut inner = Arc::unwrap_or_clone(self.inner);
        inner.cancellation = Cancellation::new();
        inner.may_become_task = true;
        Self {
            inner: Arc::new(inner),
        }
    }

    /// Makes this call a task from here on, when it can be one: the request is answered with
    /// the task now, and the handler goes on as the task. Returns whether the call runs as a
    /// task (at once when it already does; `false` when the tool or the request allows no
    /// task, and the call goes on as an ordinary request).
    ///
    /// Without this a call of a task-capable tool (2026-07-28, the client declared the tasks
    /// extension) becomes a task at its first wait for something other than input; input it
    /// asks for before that is gathered with input rounds, as SEP-2663 recommends. Calling this
    /// first makes the input requests wait in the task instead (its `inputRequests`, answered
    /// with `tasks/update`).
    ///
    /// ```
    /// use presa_core::{TaskSupport, Tool};
    /// use presa_server::{Context, Server};
    /// use serde_json::Value;
    ///
    /// let server = Server::builder("files", "1.0.0")
    ///     .tool(
    ///         Tool::without_params("purge").task_support(TaskSupport::Optional),
    ///         |_: Value, cx: Context| async move {
    ///             // from here on a task, when the request allows one: input asked for below
    ///             // waits in the task
    ///             let as_task = cx.run_as_task().await;
    ///             format!("purged (as a task: {as_task})")
    ///         },
    ///     )
    ///     .build();
    /// # let _ = server;
    /// ```
    pub async fn run_as_task(&self) -> bool {
        if self.inner.task.get().is_some() {
            return true;
        }
        if !self.inner.may_become_task {
            return false;
        }
        // pending once: the dispatcher sees the call go on and makes it a task
        let mut yielded = false;
        std::future::poll_fn(|task_cx| {
            if yielded {
                return std::task::Poll::Ready(());
            }
            yielded = true;
            task_cx.waker().wake_by_ref();
            std::task::Poll::Pending
        })
        .await;
        self.inner.task.get().is_some()
    }

    /// The call this request belongs to, made by `init` when nobody asked before.
    pub(crate) fn call_or_init(&self, init: impl FnOnce() -> CallInfo) -> &CallInfo {
        self.inner.call.get_or_init(init)
    }

    /// The call this request belongs to, if anyone asked for it or its round opened.
    pub(crate) fn call(&self) -> Option<&CallInfo> {
        self.inner.call.get()
    }

    /// The request's sealed `requestState` `token`, opened with `codec` for `method` and the
    /// binding `binding` makes, once: a second reader gets the first one's result.
    pub(crate) fn open_state(
        &self,
        codec: &RequestStateCodec,
        method: &str,
        token: &str,
        binding: impl FnOnce() -> Value,
    ) -> Result<&Value, RequestStateError> {
        let opened = self
            .inner
            .state
            .get_or_init(|| codec.open(std::time::SystemTime::now(), token, method, &binding()));
        opened.as_ref().map_err(Clone::clone)
    }

    /// The request became `task`: its handler's progress, logs and input requests go there.
    pub(crate) fn attach_task(&self, task: Arc<crate::tasks::LiveTask>) {
        let _ = self.inner.task.set(task);
    }

    /// The id of the task this call runs as, once it became one (see
    /// [`Tool::task_support`](presa_core::Tool::task_support)); `None` while it is an ordinary
    /// request.
    ///
    /// ```
    /// assert_eq!(presa_server::Context::detached().task_id(), None);
    /// ```
    pub fn task_id(&self) -> Option<&str> {
        self.inner.task.get().map(|task| task.id.as_str())
    }

    /// Gives a 2026-07-28 request its round of answers, making it able to ask for input.
    pub(crate) fn attach_round(&self, round: Arc<Round>) {
        let _ = self.inner.round.set(round);
    }

    /// Fails unless the request's identity holds every one of `scopes`: for decisions a handler
    /// makes itself (declared requirements are checked before it runs).
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// use presa_server::{AuthInfo, Context};
    ///
    /// let cx = Context::detached().with_auth(AuthInfo::new().with_scopes(["tickets:read"]));
    /// assert!(cx.require_scopes(["tickets:read"]).is_ok());
    /// let error = cx.require_scopes(["tickets:read", "tickets:write"]).unwrap_err();
    /// assert_eq!(error.scope(), "tickets:read tickets:write");
    /// # });
    /// ```
    pub fn require_scopes<I, S>(&self, scopes: I) -> Result<(), InsufficientScope>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let scopes: Vec<String> = scopes.into_iter().map(Into::into).collect();
        match self.auth() {
            Some(auth) if auth.has_scopes(&scopes) => Ok(()),
            _ => Err(InsufficientScope::new(scopes)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn cancellation_wakes_waiters_and_stays_set() {
        let c = Cancellation::new();
        let waiter = tokio::spawn({
            let c = c.clone();
            async move { c.cancelled().await }
        });
        tokio::task::yield_now().await;
        assert!(!c.is_cancelled());
        c.cancel();
        waiter.await.unwrap_or(());
        assert!(c.is_cancelled());
        c.cancelled().await; // already set: returns at once
    }
}
