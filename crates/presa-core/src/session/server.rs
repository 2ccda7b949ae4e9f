//! The server side of one peer's session, in both eras.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Instant;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::endpoint::{
    CANCELLED, Endpoint, Finished, PROGRESS, ProgressError, RequestError, Transmit,
};
#[cfg(doc)]
use super::limits::SessionLimits;
use super::outbound::RequestOptions;
use crate::jsonrpc::parse_params;
use crate::{
    ClientCapabilities, Era, EraSigns, ErrorObject, Implementation, LoggingLevel,
    LoggingMessageNotificationParams, Message, Notification, ProgressNotificationParams,
    ProtocolVersion, RawJson, ReceivedHeaders, Request, RequestId, RequestMeta, RequestMethod,
    ResponsePayload, ServerCapabilities, SetLevelRequestParams, SubscriptionsListen, params_meta,
    params_meta_and_shape,
};

mod clients;
mod config;
mod state;
mod subscriptions;
pub use clients::ClientDescriptions;
pub use config::ServerSessionConfig;
pub use state::InitializeEraState;

/// Who the client is, as far as one request is concerned.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClientContext {
    /// The revision the request is served under.
    pub protocol_version: ProtocolVersion,
    /// The client's capabilities: declared on this request (2026-07-28) or at `initialize`.
    pub capabilities: ClientCapabilities,
    /// The client's identity, when it gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_info: Option<Implementation>,
}

/// A request from the peer, checked by the session and ready for the application.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct IncomingRequest {
    /// Its id; answer with [`ServerSession::respond`] (or the client's equivalent).
    pub id: RequestId,
    /// The method.
    pub method: String,
    /// The params, unparsed.
    pub params: Option<RawJson>,
    /// The peer, as this request sees it (shared with the session that keeps it).
    pub client: Arc<ClientContext>,
    /// The params' `_meta`, read once by the session (handlers see it through their context).
    pub meta: Option<crate::Meta>,
    /// The mirror headers a 2026-07-28 request arrived with over Streamable HTTP (see
    /// [`handle_stateless_request`](ServerSession::handle_stateless_request)): the server
    /// compares the `Mcp-Param-*` ones with the arguments once it knows the tool.
    pub headers: Option<Arc<ReceivedHeaders>>,
}

/// What a request brings beyond its client: its progress token, and on 2026-07-28 its log level
/// and mirror headers.
#[derive(Default)]
struct PerRequest {
    progress_token: Option<crate::ProgressToken>,
    log_level: Option<LoggingLevel>,
    headers: Option<Arc<ReceivedHeaders>>,
}

/// Something the server application acts on (a request to serve, a cancellation, ...) or
/// observes (a request the session answered by itself).
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum ServerEvent {
    /// An initialize-era client finished the handshake (`notifications/initialized`).
    Initialized(Arc<ClientContext>),
    /// A request to serve.
    Request(IncomingRequest),
    /// The client cancelled a request in flight: stop working on it; no response will be sent.
    Cancelled {
        /// The cancelled request.
        id: RequestId,
        /// Why, if the client said.
        reason: Option<String>,
    },
    /// A request this server sent (initialize era) finished.
    Response {
        /// The request's id.
        id: RequestId,
        /// Its method.
        method: String,
        /// The result, unparsed, or why there is none.
        outcome: Result<RawJson, RequestError>,
    },
    /// The client reported progress on a request this server sent.
    Progress {
        /// The request's id.
        id: RequestId,
        /// The report.
        params: ProgressNotificationParams,
    },
    /// Any other notification from the client (e.g. `notifications/roots/list_changed`).
    Notification(Notification),
    /// A request the session answered by itself, its answer queued: `initialize`, `ping`,
    /// `logging/setLevel`, `resources/subscribe` and `unsubscribe` (when it
    /// [keeps subscriptions](ServerSessionConfig::keep_subscriptions)), `server/discover`, or one
    /// it refused before it became a
    /// [`Request`](Self::Request) (an uninitialized session, a failed 2026-07-28 check, too many
    /// in flight). Nothing to serve; there to be observed (a span, a metric).
    Answered {
        /// The request's id.
        id: RequestId,
        /// Its method, as the client sent it.
        method: String,
        /// Its params as the client sent them (where a span finds its target and the trace
        /// context of `_meta`).
        params: Option<RawJson>,
        /// The revision it was read under: the initialize-era session's, or the 2026-07-28
        /// request's once its checks passed; `None` before either is known.
        version: Option<ProtocolVersion>,
        /// The error it was answered with, if it was refused.
        error: Option<ErrorObject>,
    },
}

/// Why the server could not send a request to the client.
#[derive(Debug)]
#[non_exhaustive]
pub enum ServerSendError {
    /// No initialize-era client has completed the handshake; 2026-07-28 servers send no
    /// requests (they return input-required results instead).
    NotInitialized,
    /// The params could not be serialized.
    Serialize(serde_json::Error),
    /// As many requests as [`SessionLimits::max_pending_server_requests`] allows already wait
    /// for the client's answers.
    TooManyPending {
        /// The limit.
        limit: usize,
    },
}

impl std::fmt::Display for ServerSendError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::NotInitialized => {
                f.write_str("no initialized initialize-era client to send a request to")
            }
            Self::Serialize(e) => write!(f, "params could not be serialized: {e}"),
            Self::TooManyPending { limit } => write!(
                f,
                "{limit} requests already wait for the client's answers, the most this session allows"
            ),
        }
    }
}

impl std::error::Error for ServerSendError {}

/// The server side of one peer's session: a sans-IO state machine for both eras.
///
/// One `ServerSession` serves one connection (a stdio process, an in-process pair, an
/// initialize-era HTTP session). Requests shaped for 2026-07-28 (their `_meta` carries
/// `io.modelcontextprotocol/` keys) are checked and served on their own; an `initialize` request
/// opens an initialize-era session scoped to this connection. Both may arrive on one connection.
///
/// The session performs no I/O and never reads the clock. Drive it like this:
///
/// - **Inputs:** [`handle_message`](Self::handle_message) for every message that arrives, and
///   [`handle_timeout`](Self::handle_timeout) when the instant from
///   [`poll_timeout`](Self::poll_timeout) has passed.
/// - **Commands:** [`respond`](Self::respond) to requests, [`progress`](Self::progress),
///   [`log`](Self::log), [`notify`](Self::notify); in the initialize era,
///   [`send_request`](Self::send_request) and [`cancel`](Self::cancel).
/// - **Outputs:** after every input or command, drain [`poll_transmit`](Self::poll_transmit)
///   (messages to send, in order), then [`poll_event`](Self::poll_event) (work for the
///   application), then ask [`poll_timeout`](Self::poll_timeout) for the next deadline.
///
/// The session answers by itself what is protocol rather than application: `initialize`,
/// `ping`, `logging/setLevel`, `resources/subscribe` and `unsubscribe` (when it keeps
/// subscriptions), `server/discover`,
/// malformed `_meta` (`-32602`), unsupported
/// versions (`-32022`), the removed stateful methods on 2026-07-28 (`-32601`), and duplicate
/// request ids (`-32600`).
///
/// ```
/// use std::time::Instant;
/// use presa_core::*;
///
/// let mut server = ServerSession::new(ServerSessionConfig::new(Implementation::new("demo", "1")));
/// let now = Instant::now();
/// let request = decode_message(br#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{
///     "io.modelcontextprotocol/protocolVersion":"2026-07-28",
///     "io.modelcontextprotocol/clientCapabilities":{}}}}"#).unwrap();
/// server.handle_message(now, request);
/// let Some(ServerEvent::Request(incoming)) = server.poll_event() else { panic!() };
/// assert_eq!(incoming.client.protocol_version, ProtocolVersion::V2026_07_28);
/// server.respond(&incoming.id, Ok(to_raw(&serde_json::json!({"tools": []})).unwrap()));
/// let sent = server.poll_transmit().unwrap();
/// assert_eq!(sent.message.id(), Some(&RequestId::from(1)));
/// ```
#[derive(Debug)]
pub struct ServerSession {
    /// Shared: a server with many sessions keeps one configuration.
    config: Arc<ServerSessionConfig>,
    endpoint: Endpoint,
    /// Shared with whoever keeps the state (a session store): it changes rarely, and is copied
    /// only then.
    legacy: Option<Arc<InitializeEraState>>,
    /// The initialize-era client's resource subscriptions.
    subscriptions: subscriptions::Subscriptions,
    /// Bumped whenever `legacy` or `subscriptions` change.
    state_changes: u64,
    events: VecDeque<ServerEvent>,
}

impl ServerSession {
    /// A session that has seen nothing yet. The configuration may be shared by many sessions
    /// (`Arc<ServerSessionConfig>`).
    pub fn new(config: impl Into<Arc<ServerSessionConfig>>) -> Self {
        let config = config.into();
        let timeout = config.request_timeout;
        Self {
            config,
            endpoint: Endpoint::new(timeout),
            legacy: None,
            subscriptions: subscriptions::Subscriptions::default(),
            state_changes: 0,
            events: VecDeque::new(),
        }
    }

    // ----- getters -----

    /// The configuration.
    pub fn config(&self) -> &ServerSessionConfig {
        &self.config
    }

    /// Replaces the configuration (e.g. with the server's shared one after definitions changed).
    pub fn set_config(&mut self, config: Arc<ServerSessionConfig>) {
        self.config = config;
    }

    /// Replaces the announced capabilities (e.g. after definitions changed).
    pub fn set_capabilities(&mut self, capabilities: ServerCapabilities) {
        Arc::make_mut(&mut self.config).capabilities = capabilities;
    }

    /// The initialize-era client, once `initialize` was answered.
    pub fn initialize_era_client(&self) -> Option<&ClientContext> {
        self.legacy.as_deref().map(|p| &*p.client)
    }

    /// The initialize-era state, once `initialize` was answered. It is shared: keeping a clone
    /// of the `Arc` costs no copy.
    pub fn initialize_era_state(&self) -> Option<&Arc<InitializeEraState>> {
        self.legacy.as_ref()
    }

    /// Continues an initialize-era session from its saved state (see [`InitializeEraState`]),
    /// replacing what this session knew of its client. Requests in flight are not touched.
    pub fn set_initialize_era_state(&mut self, state: impl Into<Arc<InitializeEraState>>) {
        let state = state.into();
        if self.legacy.as_deref() != Some(&*state) {
            self.legacy = Some(state);
            self.state_changes += 1;
        }
    }

    /// How many times the initialize-era state changed (`initialize`, `initialized`,
    /// `logging/setLevel`, `resources/subscribe` and `unsubscribe`,
    /// [`set_initialize_era_state`](Self::set_initialize_era_state),
    /// [`set_subscriptions`](Self::set_subscriptions)). A transport that keeps the state
    /// elsewhere saves it when this number moves.
    pub fn state_changes(&self) -> u64 {
        self.state_changes
    }

    /// Requests from the client still being served.
    pub fn requests_in_flight(&self) -> usize {
        self.endpoint.inbound.len()
    }

    /// Requests this server sent that still wait for a response.
    pub fn requests_pending(&self) -> usize {
        self.endpoint.outbound.len()
    }

    /// Makes the ids of the requests this server sends from now on strings starting with
    /// `prefix` (`<prefix><n>`), instead of numbers from 0: what tells them apart from those of
    /// another instance serving the same session, so that the client's answer, wherever it is
    /// posted, finds the instance waiting for it.
    pub fn set_request_id_prefix(&mut self, prefix: Arc<str>) {
        self.endpoint.outbound.set_id_prefix(prefix);
    }

    /// Frees the memory that queues and tables keep after they empty: for a transport that
    /// keeps many sessions idle (initialize-era HTTP sessions), called when a session goes
    /// quiet. Nothing in flight is touched, and the session works on as before.
    pub fn shrink_to_fit(&mut self) {
        if self.events.is_empty() {
            self.events = VecDeque::new();
        }
        self.endpoint.shrink_to_fit();
    }

    // ----- inputs -----

    /// Takes in one message from the client.
    pub fn handle_message(&mut self, now: Instant, message: Message) {
        match message {
            Message::Request(request) => self.handle_request(request),
            Message::Notification(notification) => self.handle_notification(now, notification),
            Message::Response(response) => {
                if let Some(Finished {
                    id,
                    method,
                    outcome,
                }) = self.endpoint.handle_response(response)
                {
                    self.events.push_back(ServerEvent::Response {
                        id,
                        method,
                        outcome,
                    });
                }
            }
        }
    }

    /// Fails every request of this server whose deadline has passed, telling the client to cancel.
    pub fn handle_timeout(&mut self, now: Instant) {
        for (id, pending) in self.endpoint.outbound.expire(now) {
            self.endpoint.send_cancel(&id, Some("timed out"));
            self.events.push_back(ServerEvent::Response {
                id,
                method: pending.method,
                outcome: Err(RequestError::TimedOut),
            });
        }
    }

    fn handle_request(&mut self, request: Request) {
        let (meta, shaped) = params_meta_and_shape(request.params.as_deref());
        let signs = EraSigns {
            on_session: true,
            version_header: None,
        };
        if signs.era(|| shaped) == Era::Stateless {
            return self.handle_stateless(request, meta, None);
        }
        let keeps_subscriptions = self.keeps_subscriptions();
        match (request.method.as_str(), &mut self.legacy) {
            ("initialize", _) => self.handle_initialize(request),
            ("ping", _) => self.answer_itself(request, &Map::new()),
            ("logging/setLevel", Some(peer)) => {
                if self.config.capabilities.logging.is_none() {
                    let error = ErrorObject::method_not_found(&request.method);
                    return self.refuse(request, error);
                }
                match parse_params::<SetLevelRequestParams>(request.params.as_deref()) {
                    Ok(params) => {
                        Arc::make_mut(peer).log_level = Some(params.level);
                        self.state_changes += 1;
                        self.answer_itself(request, &Map::new());
                    }
                    Err(error) => self.refuse(request, error),
                }
            }
            ("resources/subscribe", Some(_)) if keeps_subscriptions => {
                self.handle_subscription(request, true);
            }
            ("resources/unsubscribe", Some(_)) if keeps_subscriptions => {
                self.handle_subscription(request, false);
            }
            (_, Some(peer)) => {
                let client = peer.client.clone();
                let token = meta
                    .as_ref()
                    .and_then(|m| m.get("progressToken"))
                    .and_then(|t| serde_json::from_value(t.clone()).ok());
                let per_request = PerRequest {
                    progress_token: token,
                    ..PerRequest::default()
                };
                self.dispatch(request, client, meta, per_request);
            }
            (_, None) => {
                let error = if self.config.versions.supports_era(Era::Stateless) {
                    ErrorObject::invalid_params(format!(
                        "Missing _meta field {}; initialize-era clients must send initialize first",
                        crate::META_PROTOCOL_VERSION
                    ))
                } else {
                    ErrorObject::invalid_request("Server not initialized: send initialize first")
                };
                self.refuse(request, error);
            }
        }
    }

    /// Takes in one request that the transport routed to 2026-07-28 by its headers (a
    /// Streamable HTTP POST), with the mirror headers it arrived with. Every check runs here, in
    /// the order of
    /// <https://modelcontextprotocol.io/specification/2026-07-28/basic/transports#streamable-http>
    /// (see [`ReceivedHeaders`] for the steps): the `MCP-Protocol-Version` header, the request's
    /// `_meta`, header and body agreeing, the version, `Mcp-Method` and `Mcp-Name`, the removed
    /// methods. A request that passes is dispatched with its headers, for the `Mcp-Param-*`
    /// check once its tool is known.
    ///
    /// ```
    /// use std::time::Instant;
    /// use presa_core::*;
    ///
    /// let mut server = ServerSession::new(ServerSessionConfig::new(Implementation::new("demo", "1")));
    /// let Message::Request(request) = decode_message(br#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{
    ///     "io.modelcontextprotocol/protocolVersion":"2026-07-28",
    ///     "io.modelcontextprotocol/clientCapabilities":{}}}}"#).unwrap() else { panic!() };
    /// let headers = ReceivedHeaders::from_pairs([("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", "tools/call")]);
    /// server.handle_stateless_request(request, Some(headers));
    /// let sent = server.poll_transmit().unwrap();
    /// let Message::Response(Response { payload: ResponsePayload::Error(error), .. }) = sent.message else { panic!() };
    /// assert_eq!(error.code, ErrorCode::HEADER_MISMATCH);
    /// ```
    pub fn handle_stateless_request(&mut self, request: Request, headers: Option<ReceivedHeaders>) {
        let raw_meta = params_meta(request.params.as_deref());
        self.handle_stateless(request, raw_meta, headers);
    }

    fn handle_stateless(
        &mut self,
        request: Request,
        raw_meta: Option<Map<String, Value>>,
        headers: Option<ReceivedHeaders>,
    ) {
        let (version, meta) =
            match self.check_stateless(&request, raw_meta.as_ref(), headers.as_ref()) {
                Ok(checked) => checked,
                // under no revision yet: the checks decide which
                Err(error) => return self.refuse_under(request, None, error),
            };
        if request.method == "server/discover" {
            let result = self.config.discover_result();
            let id = self.answered(request, Some(version), None);
            return self.endpoint.answer(id, &result);
        }
        let client = Arc::new(ClientContext {
            protocol_version: version,
            capabilities: meta.client_capabilities,
            client_info: meta.client_info,
        });
        let per_request = PerRequest {
            progress_token: meta.progress_token,
            log_level: meta.log_level,
            headers: headers.map(Arc::new),
        };
        self.dispatch(request, client, raw_meta, per_request);
    }

    /// The checks of a 2026-07-28 request, in order; the version it is served under and its
    /// `_meta` read.
    fn check_stateless(
        &self,
        request: &Request,
        raw_meta: Option<&Map<String, Value>>,
        headers: Option<&ReceivedHeaders>,
    ) -> Result<(ProtocolVersion, RequestMeta), ErrorObject> {
        if let Some(headers) = headers {
            headers.check_protocol_version()?;
        }
        let meta = match raw_meta {
            Some(raw_meta) => RequestMeta::from_meta(raw_meta)?,
            // no `_meta`, or params that cannot be read: the error `from_params` names
            None => RequestMeta::from_params(request.params.as_deref())?,
        };
        if let Some(headers) = headers {
            headers.check_protocol_version_matches(&meta.protocol_version)?;
        }
        let version = meta.negotiate(&self.config.versions)?;
        if let Some(headers) = headers {
            headers.check_request_routing(&request.method, request.params.as_deref())?;
        }
        if version.removes(&request.method) {
            return Err(ErrorObject::method_not_found(&request.method));
        }
        Ok((version, meta))
    }

    fn dispatch(
        &mut self,
        request: Request,
        client: Arc<ClientContext>,
        meta: Option<crate::Meta>,
        per_request: PerRequest,
    ) {
        let era = client.protocol_version.era();
        let limit = self.config.limits.in_flight_requests();
        if self.endpoint.inbound.len() >= limit {
            let error = ErrorObject::invalid_request(format!(
                "Too many requests in flight: this session serves at most {limit} at once"
            ));
            return self.refuse_under(request, Some(client.protocol_version), error);
        }
        let listen = request.method == SubscriptionsListen::METHOD;
        let listens = self.config.limits.listens();
        if listen && self.endpoint.inbound.listens() >= listens {
            let error = ErrorObject::invalid_request(format!(
                "Too many listens: this connection holds at most {listens} at once"
            ));
            return self.refuse_under(request, Some(client.protocol_version), error);
        }
        if !self.endpoint.inbound.insert(
            request.id.clone(),
            per_request.progress_token,
            per_request.log_level,
            era,
            listen,
        ) {
            let error = ErrorObject::invalid_request(format!(
                "Request id {} is already in flight",
                request.id
            ));
            return self.refuse_under(request, Some(client.protocol_version), error);
        }
        self.events.push_back(ServerEvent::Request(IncomingRequest {
            id: request.id,
            method: request.method,
            params: request.params,
            client,
            meta,
            headers: per_request.headers,
        }));
    }

    /// Answers `request` by itself, and tells the application ([`ServerEvent::Answered`]).
    fn answer_itself(&mut self, request: Request, result: &impl serde::Serialize) {
        let id = self.answered(request, self.legacy_version(), None);
        self.endpoint.answer(id, result);
    }

    /// Refuses an initialize-era `request` with `error`, and tells the application
    /// ([`ServerEvent::Answered`]).
    fn refuse(&mut self, request: Request, error: ErrorObject) {
        let version = self.legacy_version();
        self.refuse_under(request, version, error);
    }

    /// Refuses `request`, read under `version` (when known), with `error`.
    fn refuse_under(
        &mut self,
        request: Request,
        version: Option<ProtocolVersion>,
        error: ErrorObject,
    ) {
        let id = self.answered(request, version, Some(error.clone()));
        self.endpoint.reject(id, error);
    }

    /// The initialize-era revision, once `initialize` was answered.
    fn legacy_version(&self) -> Option<ProtocolVersion> {
        self.legacy
            .as_ref()
            .map(|peer| peer.client.protocol_version)
    }

    /// Tells the application of `request`, answered by the session; returns its id to answer.
    fn answered(
        &mut self,
        request: Request,
        version: Option<ProtocolVersion>,
        error: Option<ErrorObject>,
    ) -> RequestId {
        let Request { id, method, params } = request;
        self.events.push_back(ServerEvent::Answered {
            id: id.clone(),
            method,
            params,
            version,
            error,
        });
        id
    }

    fn handle_notification(&mut self, now: Instant, notification: Notification) {
        match notification.method.as_str() {
            "notifications/initialized" => {
                if let Some(peer) = self.legacy.as_mut().filter(|p| !p.initialized) {
                    Arc::make_mut(peer).initialized = true;
                    self.state_changes += 1;
                    self.events
                        .push_back(ServerEvent::Initialized(peer.client.clone()));
                }
            }
            CANCELLED => {
                if let Some((id, reason)) =
                    self.endpoint.handle_cancelled(notification.params.as_ref())
                {
                    self.events.push_back(ServerEvent::Cancelled { id, reason });
                }
            }
            PROGRESS => {
                if let Some((id, params)) = self
                    .endpoint
                    .handle_progress(now, notification.params.as_ref())
                {
                    self.events.push_back(ServerEvent::Progress { id, params });
                }
            }
            _ => self
                .events
                .push_back(ServerEvent::Notification(notification)),
        }
    }

    // ----- commands -----

    /// Answers a request in flight. Returns `false`, sending nothing, when the request is no
    /// longer in flight (the client cancelled it, or it was answered already).
    pub fn respond(&mut self, id: &RequestId, result: Result<RawJson, ErrorObject>) -> bool {
        let payload = match result {
            Ok(raw) => ResponsePayload::Result(raw),
            Err(error) => ResponsePayload::Error(error),
        };
        self.endpoint.respond(id, payload)
    }

    /// Stops tracking a request in flight without answering it: what a transport does when the
    /// client went away from the request (it no longer counts against the session's limits).
    /// Returns whether it was in flight.
    pub fn forget(&mut self, id: &RequestId) -> bool {
        self.endpoint.inbound.remove(id).is_some()
    }

    /// Sends `notifications/progress` for a request in flight that carried a progress token.
    pub fn progress(
        &mut self,
        id: &RequestId,
        progress: f64,
        total: Option<f64>,
        message: Option<String>,
    ) -> Result<(), ProgressError> {
        self.endpoint.progress(id, progress, total, message)
    }

    /// Sends `notifications/message` if the client asked for messages of this level: for a
    /// 2026-07-28 request, its `_meta` log level (nothing without one); in the initialize era,
    /// the level set with `logging/setLevel` (everything until one is set). Either way only when
    /// the server announced the `logging` capability. Returns whether the message was sent.
    pub fn log(
        &mut self,
        request: Option<&RequestId>,
        level: LoggingLevel,
        logger: Option<&str>,
        data: Value,
    ) -> bool {
        // only a server that announced the `logging` capability sends log messages, in either era
        if self.config.capabilities.logging.is_none() {
            return false;
        }
        let threshold = match request.map(|id| self.endpoint.inbound.get(id)) {
            // a request that is no longer in flight gets no more messages
            Some(None) => return false,
            Some(Some(f)) if f.era == Era::Stateless => match f.log_level {
                Some(level) => Some(level),
                None => return false,
            },
            _ => match &self.legacy {
                Some(peer) => peer.log_level,
                None => return false,
            },
        };
        if threshold.is_some_and(|min| level < min) {
            return false;
        }
        let params = LoggingMessageNotificationParams {
            level,
            logger: logger.map(str::to_owned),
            data,
            meta: None,
        };
        match Notification::new("notifications/message", &params) {
            Ok(n) => {
                self.endpoint.push(n, request.cloned());
                true
            }
            Err(_) => false,
        }
    }

    /// Sends a notification to the client (e.g. a list-changed notice).
    pub fn notify(&mut self, notification: Notification, related_request: Option<RequestId>) {
        self.endpoint.push(notification, related_request);
    }

    /// Sends a request to an initialized initialize-era client (`sampling/createMessage`,
    /// `elicitation/create`, `roots/list`, `ping`). `related_request` names the client request
    /// being served, so an HTTP transport can put it on that request's stream.
    pub fn send_request(
        &mut self,
        now: Instant,
        method: &str,
        params: Option<Map<String, Value>>,
        options: &RequestOptions,
        related_request: Option<RequestId>,
    ) -> Result<RequestId, ServerSendError> {
        if self.legacy.is_none() {
            return Err(ServerSendError::NotInitialized);
        }
        let limit = self.config.limits.pending_server_requests();
        if self.endpoint.outbound.len() >= limit {
            return Err(ServerSendError::TooManyPending { limit });
        }
        let request = self
            .endpoint
            .request(now, method, params, options, &[], |_| {})
            .map_err(ServerSendError::Serialize)?;
        let id = request.id.clone();
        self.endpoint.push(request, related_request);
        Ok(id)
    }

    /// Stops waiting for a request this server sent and tells the client to cancel it; `false`
    /// when it was not pending.
    pub fn cancel(&mut self, id: &RequestId, reason: Option<&str>) -> bool {
        self.endpoint.cancel(id, reason).is_some()
    }

    /// Ends the session: every pending request of this server fails with
    /// [`RequestError::Closed`], and requests in flight are forgotten.
    pub fn close(&mut self) {
        for (id, pending) in self.endpoint.outbound.drain() {
            self.events.push_back(ServerEvent::Response {
                id,
                method: pending.method,
                outcome: Err(RequestError::Closed),
            });
        }
        self.endpoint.inbound.clear();
    }

    // ----- outputs -----

    /// The next message to send.
    pub fn poll_transmit(&mut self) -> Option<Transmit> {
        self.endpoint.poll_transmit()
    }

    /// The next event for the application.
    pub fn poll_event(&mut self) -> Option<ServerEvent> {
        self.events.pop_front()
    }

    /// When [`handle_timeout`](Self::handle_timeout) should next be called.
    pub fn poll_timeout(&mut self) -> Option<Instant> {
        self.endpoint.outbound.next_deadline()
    }
}
