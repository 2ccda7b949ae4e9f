//! The client side of one connection, in both eras.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Map, Value};

use super::endpoint::{CANCELLED, Endpoint, Finished, PROGRESS, RequestError, Transmit};
use super::outbound::RequestOptions;
use super::server::{ClientContext, IncomingRequest};
use crate::jsonrpc::parse_params;
use crate::{
    CancelledNotificationParams, ClientCapabilities, Era, ErrorObject, Implementation,
    InitializeRequestParams, InitializeResult, LoggingLevel, Message, Notification, ParamHeaders,
    ProgressNotificationParams, ProtocolVersion, RawJson, Request, RequestId, RequestMeta,
    ResponsePayload, SupportedVersions, XMcpHeaderError, request_headers, to_raw,
};

mod errors;
pub use errors::{ClientSendError, HandshakeError};

/// What a [`ClientSession`] says about the client it speaks for.
///
/// ```
/// use std::time::Duration;
/// use presa_core::{ClientSessionConfig, Implementation};
///
/// let config = ClientSessionConfig::new(Implementation::new("my-app", "0.1.0"))
///     .request_timeout(Some(Duration::from_secs(30)));
/// assert_eq!(config.client_info().name, "my-app");
/// ```
#[derive(Clone, Debug)]
pub struct ClientSessionConfig {
    versions: SupportedVersions,
    client_info: Implementation,
    capabilities: ClientCapabilities,
    request_timeout: Option<Duration>,
    mirror_headers: bool,
}

impl ClientSessionConfig {
    /// A configuration for the client `client_info`: every revision, no capabilities, a
    /// 60-second request timeout, and 2026-07-28 messages sent with their mirror headers.
    pub fn new(client_info: Implementation) -> Self {
        Self {
            versions: SupportedVersions::all(),
            client_info,
            capabilities: ClientCapabilities::default(),
            request_timeout: Some(Duration::from_secs(60)),
            mirror_headers: true,
        }
    }

    /// Whether 2026-07-28 messages go out with the HTTP headers that mirror them
    /// ([`Transmit::headers`]): what Streamable HTTP needs, and work for nothing on a transport
    /// without headers (stdio, in-process). On by default.
    pub fn mirror_headers(mut self, mirror: bool) -> Self {
        self.mirror_headers = mirror;
        self
    }

    /// The revisions to speak.
    pub fn versions(mut self, versions: SupportedVersions) -> Self {
        self.versions = versions;
        self
    }

    /// The capabilities to declare (at `initialize`, or on every 2026-07-28 request).
    pub fn capabilities(mut self, capabilities: ClientCapabilities) -> Self {
        self.capabilities = capabilities;
        self
    }

    /// The default request timeout; `None` waits forever.
    pub fn request_timeout(mut self, timeout: Option<Duration>) -> Self {
        self.request_timeout = timeout;
        self
    }

    /// The client's identity.
    pub fn client_info(&self) -> &Implementation {
        &self.client_info
    }

    /// The revisions spoken.
    pub fn supported_versions(&self) -> &SupportedVersions {
        &self.versions
    }
}

/// Something the client application must act on.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum ClientEvent {
    /// The initialize handshake succeeded; requests queued meanwhile have been sent.
    Initialized {
        /// The negotiated revision.
        protocol_version: ProtocolVersion,
        /// The server's answer.
        result: Box<InitializeResult>,
    },
    /// The initialize handshake failed; requests queued meanwhile failed with
    /// [`RequestError::HandshakeFailed`].
    HandshakeFailed(HandshakeError),
    /// A request finished.
    Response {
        /// The request's id.
        id: RequestId,
        /// Its method.
        method: String,
        /// The result, unparsed, or why there is none.
        outcome: Result<RawJson, RequestError>,
    },
    /// The server reported progress on a request.
    Progress {
        /// The request's id.
        id: RequestId,
        /// The report.
        params: ProgressNotificationParams,
    },
    /// A server→client request (initialize era): sampling, elicitation or roots.
    Request(Box<IncomingRequest>),
    /// The server cancelled one of its requests to this client.
    Cancelled {
        /// The cancelled request.
        id: RequestId,
        /// Why, if the server said.
        reason: Option<String>,
    },
    /// Any other notification (log messages, list changes, resource updates, …).
    Notification(Notification),
    /// A 2026-07-28 `tools/list` result listed a tool whose `x-mcp-header` annotations are
    /// invalid: it was left out of the result that follows.
    ToolDropped {
        /// The tool.
        name: String,
        /// What is wrong with its annotations.
        error: XMcpHeaderError,
    },
}

/// The names of the tools a `tools/list` result lists.
#[derive(serde::Deserialize)]
struct ListedNames {
    #[serde(default)]
    tools: Vec<ListedName>,
}

#[derive(serde::Deserialize)]
struct ListedName {
    name: String,
}

/// What a request may carry besides its params (see [`ClientSession::send_request_with`]).
///
/// ```
/// use presa_core::{LoggingLevel, RequestExtras};
///
/// let extras = RequestExtras::default().log_level(LoggingLevel::Warning);
/// assert_eq!(extras.log_level, Some(LoggingLevel::Warning));
/// ```
#[derive(Clone, Copy, Debug, Default)]
#[non_exhaustive]
pub struct RequestExtras {
    /// 2026-07-28: opt the request in to log messages of this level and above (`_meta`
    /// `io.modelcontextprotocol/logLevel`; the initialize era sets the level for the session).
    pub log_level: Option<LoggingLevel>,
}

impl RequestExtras {
    /// With `level` as the request's log level.
    pub fn log_level(mut self, level: LoggingLevel) -> Self {
        self.log_level = Some(level);
        self
    }
}

#[derive(Debug)]
enum Mode {
    Idle,
    Initializing { id: RequestId, queued: Vec<Request> },
    Initialized { version: ProtocolVersion },
    Stateless { version: ProtocolVersion },
    Failed,
}

/// The client side of one connection: a sans-IO state machine for both eras.
///
/// Choose the era first: [`initialize`](Self::initialize) runs the initialize-era handshake
/// (requests sent meanwhile are queued and go out once it succeeds);
/// [`use_stateless`](Self::use_stateless) speaks 2026-07-28, where every request carries the
/// protocol version, the client capabilities and the client info in its `_meta`.
///
/// The session performs no I/O and never reads the clock:
///
/// - **Inputs:** [`handle_message`](Self::handle_message), [`handle_timeout`](Self::handle_timeout).
/// - **Commands:** [`initialize`](Self::initialize), [`use_stateless`](Self::use_stateless),
///   [`send_request`](Self::send_request), [`notify`](Self::notify), [`cancel`](Self::cancel),
///   [`respond`](Self::respond) (to server→client requests).
/// - **Outputs:** drain [`poll_transmit`](Self::poll_transmit), then
///   [`poll_event`](Self::poll_event), then ask [`poll_timeout`](Self::poll_timeout).
///
/// Answers `ping` by itself, drops responses to requests it no longer waits on, and on a timeout
/// fails the request and tells the server to cancel it.
///
/// ```
/// use std::time::Instant;
/// use presa_core::*;
///
/// let mut client = ClientSession::new(ClientSessionConfig::new(Implementation::new("app", "1")));
/// client.use_stateless(ProtocolVersion::V2026_07_28);
/// let id = client.send_request(Instant::now(), "tools/list", None, &RequestOptions::default()).unwrap();
/// let sent = client.poll_transmit().unwrap().message.to_json();
/// assert!(sent.contains(r#""io.modelcontextprotocol/protocolVersion":"2026-07-28""#));
/// assert_eq!(id, RequestId::from(0));
/// ```
#[derive(Debug)]
pub struct ClientSession {
    config: ClientSessionConfig,
    endpoint: Endpoint,
    mode: Mode,
    events: VecDeque<ClientEvent>,
    /// The `_meta` members every 2026-07-28 request carries (version, capabilities, client
    /// info), made once per version instead of per request.
    stateless_meta: Option<(ProtocolVersion, Vec<(String, RawJson)>)>,
    /// The compiled `x-mcp-header` annotations of each tool that has some, from the latest
    /// 2026-07-28 `tools/list` results: a `tools/call` mirrors those arguments into headers.
    tool_headers: HashMap<String, ParamHeaders>,
    /// The 2026-07-28 `tools/list` requests pending (with mirror headers on).
    tool_listings: Vec<RequestId>,
}

impl ClientSession {
    /// A session that has sent nothing yet.
    pub fn new(config: ClientSessionConfig) -> Self {
        let timeout = config.request_timeout;
        Self {
            config,
            endpoint: Endpoint::new(timeout),
            mode: Mode::Idle,
            events: VecDeque::new(),
            stateless_meta: None,
            tool_headers: HashMap::new(),
            tool_listings: Vec::new(),
        }
    }

    // ----- getters -----

    /// The configuration.
    pub fn config(&self) -> &ClientSessionConfig {
        &self.config
    }

    /// The revision in use, once known.
    pub fn protocol_version(&self) -> Option<ProtocolVersion> {
        match self.mode {
            Mode::Initialized { version } | Mode::Stateless { version } => Some(version),
            _ => None,
        }
    }

    /// Whether requests go out now (handshake done, or stateless).
    pub fn is_ready(&self) -> bool {
        matches!(self.mode, Mode::Initialized { .. } | Mode::Stateless { .. })
    }

    /// Requests still waiting for a response.
    pub fn requests_pending(&self) -> usize {
        self.endpoint.outbound.len()
    }

    // ----- commands -----

    /// Starts the initialize-era handshake, proposing the newest initialize-era revision this
    /// client speaks. Returns the id of the `initialize` request.
    pub fn initialize(&mut self, now: Instant) -> Result<RequestId, ClientSendError> {
        let version = self
            .config
            .versions
            .newest_of(Era::Initialize)
            .ok_or(ClientSendError::NotConnected)?;
        let params = InitializeRequestParams {
            protocol_version: version.as_str().to_owned(),
            capabilities: self.config.capabilities.for_version(version),
            client_info: self.config.client_info.clone(),
            meta: None,
        };
        let params = object(&params).map_err(ClientSendError::Serialize)?;
        let request = self
            .endpoint
            .request(
                now,
                "initialize",
                Some(params),
                &RequestOptions::default(),
                &[],
                |_| {},
            )
            .map_err(ClientSendError::Serialize)?;
        let id = request.id.clone();
        self.endpoint.push(request, None);
        let queued = match std::mem::replace(&mut self.mode, Mode::Idle) {
            Mode::Initializing { queued, .. } => queued,
            _ => Vec::new(),
        };
        self.mode = Mode::Initializing {
            id: id.clone(),
            queued,
        };
        Ok(id)
    }

    /// Speaks a 2026-07-28-era revision from now on: no handshake; each request carries its
    /// context in `_meta`.
    pub fn use_stateless(&mut self, version: ProtocolVersion) {
        self.mode = Mode::Stateless { version };
    }

    /// Sends a request (queued while the handshake runs). `params` may carry `_meta` entries of
    /// its own; the session adds the progress token and, on 2026-07-28, the request context.
    pub fn send_request(
        &mut self,
        now: Instant,
        method: &str,
        params: Option<Map<String, Value>>,
        options: &RequestOptions,
    ) -> Result<RequestId, ClientSendError> {
        self.send_request_with(now, method, params, options, RequestExtras::default())
    }

    /// Like [`send_request`](Self::send_request), with what `extras` adds. On 2026-07-28 the
    /// request goes out with its mirror headers ([`Transmit::headers`]); a `tools/call` of a
    /// tool whose annotations a `tools/list` result showed gets its `Mcp-Param-*` ones too.
    pub fn send_request_with(
        &mut self,
        now: Instant,
        method: &str,
        params: Option<Map<String, Value>>,
        options: &RequestOptions,
        extras: RequestExtras,
    ) -> Result<RequestId, ClientSendError> {
        let stateless = match &self.mode {
            Mode::Stateless { version } => Some(*version),
            Mode::Initializing { .. } | Mode::Initialized { .. } => None,
            Mode::Idle | Mode::Failed => return Err(ClientSendError::NotConnected),
        };
        // a 2026-07-28 tools/list result shows the tools' annotations, which only the mirror
        // headers use
        let listing = stateless.is_some() && self.config.mirror_headers && method == "tools/list";
        let (params, headers) = match stateless {
            Some(version) if self.config.mirror_headers => {
                // the params as a JSON object for the headers, moved in and out without a copy
                let value = params.map(Value::Object);
                let tool = match (method, &value) {
                    ("tools/call", Some(params)) => params
                        .get("name")
                        .and_then(Value::as_str)
                        .and_then(|name| self.tool_headers.get(name)),
                    _ => None,
                };
                let headers = request_headers(version.as_str(), method, value.as_ref(), tool)
                    .map_err(ClientSendError::Header)?;
                let params = match value {
                    Some(Value::Object(params)) => Some(params),
                    _ => None,
                };
                (params, headers)
            }
            _ => (params, Vec::new()),
        };
        let base = match stateless {
            Some(version) => {
                if self
                    .stateless_meta
                    .as_ref()
                    .is_none_or(|(made_for, _)| *made_for != version)
                {
                    let mut meta = Map::new();
                    RequestMeta {
                        protocol_version: version.as_str().to_owned(),
                        client_capabilities: self.config.capabilities.for_version(version),
                        client_info: Some(self.config.client_info.clone()),
                        log_level: None,
                        progress_token: None,
                    }
                    .write_into(&mut meta);
                    // serialized once: each request writes them as they are
                    let meta = meta
                        .into_iter()
                        .map(|(name, value)| Ok((name, to_raw(&value)?)))
                        .collect::<Result<_, serde_json::Error>>()
                        .map_err(ClientSendError::Serialize)?;
                    self.stateless_meta = Some((version, meta));
                }
                self.stateless_meta
                    .as_ref()
                    .map(|(_, meta)| meta.as_slice())
            }
            None => None,
        };
        let request = self
            .endpoint
            .request(
                now,
                method,
                params,
                options,
                base.unwrap_or_default(),
                |meta| {
                    if let (Some(_), Some(level)) = (base, extras.log_level) {
                        RequestMeta::write_log_level(meta, level);
                    }
                },
            )
            .map_err(ClientSendError::Serialize)?;
        let id = request.id.clone();
        if listing {
            let outbound = &self.endpoint.outbound;
            self.tool_listings.retain(|id| outbound.contains(id));
            self.tool_listings.push(id.clone());
        }
        match &mut self.mode {
            Mode::Initializing { queued, .. } => queued.push(request),
            _ => self.endpoint.push_transmit(Transmit {
                headers,
                ..Transmit::new(request, None)
            }),
        }
        Ok(id)
    }

    /// Sends a notification.
    pub fn notify(&mut self, notification: Notification) {
        self.endpoint.push(notification, None);
    }

    /// Stops waiting for a request and tells the server to cancel it. Returns `Ok(false)` when the
    /// request was not pending (already answered: the race is harmless).
    pub fn cancel(
        &mut self,
        id: &RequestId,
        reason: Option<&str>,
    ) -> Result<bool, ClientSendError> {
        if matches!(&self.mode, Mode::Initializing { id: init, .. } if init == id) {
            return Err(ClientSendError::CannotCancelInitialize);
        }
        if let Mode::Initializing { queued, .. } = &mut self.mode
            && let Some(at) = queued.iter().position(|r| &r.id == id)
        {
            // never sent: nothing to tell the server
            queued.remove(at);
            return Ok(self.endpoint.outbound.remove(id).is_some());
        }
        Ok(self.endpoint.cancel(id, reason).is_some())
    }

    /// Stops waiting for a request without telling the server (the transport already failed to
    /// deliver it, so there is nothing to cancel). Returns `false` when it was not pending.
    pub fn forget(&mut self, id: &RequestId) -> bool {
        if let Mode::Initializing { queued, .. } = &mut self.mode {
            queued.retain(|r| &r.id != id);
        }
        self.endpoint.outbound.remove(id).is_some()
    }

    /// Answers a server→client request. Returns `false`, sending nothing, when it is no longer
    /// in flight.
    pub fn respond(&mut self, id: &RequestId, result: Result<RawJson, ErrorObject>) -> bool {
        let payload = match result {
            Ok(raw) => ResponsePayload::Result(raw),
            Err(error) => ResponsePayload::Error(error),
        };
        self.endpoint.respond(id, payload)
    }

    /// Ends the session: every pending request fails with [`RequestError::Closed`].
    pub fn close(&mut self) {
        if let Mode::Initializing { .. } = self.mode {
            self.fail_handshake(HandshakeError::Closed);
        }
        for (id, pending) in self.endpoint.outbound.drain() {
            self.events.push_back(ClientEvent::Response {
                id,
                method: pending.method,
                outcome: Err(RequestError::Closed),
            });
        }
        self.endpoint.inbound.clear();
    }

    // ----- inputs -----

    /// Takes in one message from the server.
    pub fn handle_message(&mut self, now: Instant, message: Message) {
        match message {
            Message::Response(response) => {
                if let Some(finished) = self.endpoint.handle_response(response) {
                    self.finish(finished);
                }
            }
            Message::Notification(n) => match n.method.as_str() {
                PROGRESS => {
                    if let Some((id, params)) =
                        self.endpoint.handle_progress(now, n.params.as_ref())
                    {
                        self.events.push_back(ClientEvent::Progress { id, params });
                    }
                }
                // 2026-07-28 servers make no requests: a cancellation names one of ours, a
                // `subscriptions/listen` the server ends
                CANCELLED if matches!(self.mode, Mode::Stateless { .. }) => {
                    self.cancelled_by_server(n.params.as_ref());
                }
                CANCELLED => {
                    if let Some((id, reason)) = self.endpoint.handle_cancelled(n.params.as_ref()) {
                        self.events.push_back(ClientEvent::Cancelled { id, reason });
                    }
                }
                _ => self.events.push_back(ClientEvent::Notification(n)),
            },
            Message::Request(request) => self.handle_request(request),
        }
    }

    /// Fails every request whose deadline has passed and tells the server to cancel it.
    pub fn handle_timeout(&mut self, now: Instant) {
        for (id, pending) in self.endpoint.outbound.expire(now) {
            if matches!(&self.mode, Mode::Initializing { id: init, .. } if *init == id) {
                self.fail_handshake(HandshakeError::TimedOut);
                continue;
            }
            if let Mode::Initializing { queued, .. } = &mut self.mode {
                queued.retain(|r| r.id != id);
            } else {
                self.endpoint.send_cancel(&id, Some("timed out"));
            }
            self.events.push_back(ClientEvent::Response {
                id,
                method: pending.method,
                outcome: Err(RequestError::TimedOut),
            });
        }
    }

    /// The server cancelled one of this client's requests (2026-07-28): it fails with
    /// [`RequestError::CancelledByPeer`]. Cancellations of requests not pending are ignored.
    fn cancelled_by_server(&mut self, params: Option<&RawJson>) {
        let Some(params) = CancelledNotificationParams::from_raw(params) else {
            return;
        };
        let Some(id) = params.request_id else {
            return;
        };
        if let Some(pending) = self.endpoint.outbound.remove(&id) {
            self.events.push_back(ClientEvent::Response {
                id,
                method: pending.method,
                outcome: Err(RequestError::CancelledByPeer {
                    reason: params.reason,
                }),
            });
        }
    }

    fn handle_request(&mut self, request: Request) {
        let version = match self.mode {
            Mode::Initialized { version } => version,
            _ if request.method == "ping" => return self.endpoint.answer(request.id, &Map::new()),
            Mode::Stateless { .. } => {
                return self
                    .endpoint
                    .reject(request.id, ErrorObject::method_not_found(&request.method));
            }
            _ => {
                let error = ErrorObject::invalid_request("Client not initialized");
                return self.endpoint.reject(request.id, error);
            }
        };
        if request.method == "ping" {
            return self.endpoint.answer(request.id, &Map::new());
        }
        let meta = crate::params_meta(request.params.as_deref());
        let token = meta
            .as_ref()
            .and_then(|m| m.get("progressToken").cloned())
            .and_then(|t| serde_json::from_value(t).ok());
        if !self
            .endpoint
            .inbound
            .insert(request.id.clone(), token, None, Era::Initialize, false)
        {
            let error = ErrorObject::invalid_request(format!(
                "Request id {} is already in flight",
                request.id
            ));
            return self.endpoint.reject(request.id, error);
        }
        let client = Arc::new(ClientContext {
            protocol_version: version,
            capabilities: self.config.capabilities.for_version(version),
            client_info: Some(self.config.client_info.clone()),
        });
        self.events
            .push_back(ClientEvent::Request(Box::new(IncomingRequest {
                id: request.id,
                method: request.method,
                params: request.params,
                client,
                meta,
                headers: None,
            })));
    }

    fn finish(&mut self, mut finished: Finished) {
        let is_initialize =
            matches!(&self.mode, Mode::Initializing { id, .. } if *id == finished.id);
        if !is_initialize {
            if let Some(at) = self.tool_listings.iter().position(|id| *id == finished.id) {
                self.tool_listings.swap_remove(at);
                if let Ok(result) = &mut finished.outcome {
                    self.learn_tools(result);
                }
            }
            self.events.push_back(ClientEvent::Response {
                id: finished.id,
                method: finished.method,
                outcome: finished.outcome,
            });
            return;
        }
        let result = match finished.outcome {
            Ok(raw) => parse_params::<InitializeResult>(Some(&raw))
                .map_err(|e| HandshakeError::MalformedResult(e.message)),
            Err(RequestError::Peer(error)) => Err(HandshakeError::Rejected(error)),
            Err(RequestError::TimedOut) => Err(HandshakeError::TimedOut),
            Err(_) => Err(HandshakeError::Closed),
        };
        let accepted = result.and_then(|result| {
            self.config
                .versions
                .accept_initialize_answer(&result.protocol_version)
                .map(|version| (version, result))
                .map_err(|e| HandshakeError::UnsupportedVersion(e.0))
        });
        match accepted {
            Ok((version, result)) => {
                let queued = match std::mem::replace(&mut self.mode, Mode::Initialized { version })
                {
                    Mode::Initializing { queued, .. } => queued,
                    _ => Vec::new(),
                };
                self.endpoint.push(
                    Notification::without_params("notifications/initialized"),
                    None,
                );
                for request in queued {
                    self.endpoint.push(request, None);
                }
                self.events.push_back(ClientEvent::Initialized {
                    protocol_version: version,
                    result: Box::new(result),
                });
            }
            Err(error) => self.fail_handshake(error),
        }
    }

    /// Learns the annotations of the tools a 2026-07-28 `tools/list` result lists, and leaves
    /// out of `result` the tools whose annotations are invalid (the spec forbids calling them;
    /// each is reported as [`ClientEvent::ToolDropped`]). What a page lists replaces what was
    /// known of those tools; tools it does not list keep theirs (a client may have the other
    /// pages cached).
    fn learn_tools(&mut self, result: &mut RawJson) {
        if !crate::json_may_name(result.get(), crate::X_MCP_HEADER) {
            // no annotation anywhere: nothing to compile, nothing to leave out; only tools that
            // had annotations before lose them
            if self.tool_headers.is_empty() {
                return;
            }
            if let Ok(listed) = serde_json::from_str::<ListedNames>(result.get()) {
                for tool in listed.tools {
                    self.tool_headers.remove(&tool.name);
                }
            }
            return;
        }
        let screened = crate::headers::screen::screen(result);
        for (name, error) in screened.dropped {
            self.tool_headers.remove(&name);
            self.events
                .push_back(ClientEvent::ToolDropped { name, error });
        }
        for (name, headers) in screened.headers {
            if headers.is_empty() {
                self.tool_headers.remove(&name);
            } else {
                self.tool_headers.insert(name, headers);
            }
        }
        if let Some(rewritten) = screened.result {
            *result = rewritten;
        }
    }

    fn fail_handshake(&mut self, error: HandshakeError) {
        if let Mode::Initializing { queued, .. } = std::mem::replace(&mut self.mode, Mode::Failed) {
            for request in queued {
                if let Some(pending) = self.endpoint.outbound.remove(&request.id) {
                    self.events.push_back(ClientEvent::Response {
                        id: request.id,
                        method: pending.method,
                        outcome: Err(RequestError::HandshakeFailed),
                    });
                }
            }
        }
        self.events.push_back(ClientEvent::HandshakeFailed(error));
    }

    // ----- outputs -----

    /// The next message to send.
    pub fn poll_transmit(&mut self) -> Option<Transmit> {
        let mut transmit = self.endpoint.poll_transmit()?;
        if transmit.protocol_version.is_none() {
            transmit.protocol_version = self.protocol_version();
        }
        if let (Mode::Stateless { version }, Message::Notification(notification), true) =
            (&self.mode, &transmit.message, self.config.mirror_headers)
        {
            // a notification has no name to mirror, and no tool: this fails only for a method
            // `Mcp-Method` cannot carry, which then goes without headers (and is refused)
            transmit.headers = request_headers(version.as_str(), &notification.method, None, None)
                .unwrap_or_default();
        }
        Some(transmit)
    }

    /// The next event for the application.
    pub fn poll_event(&mut self) -> Option<ClientEvent> {
        self.events.pop_front()
    }

    /// When [`handle_timeout`](Self::handle_timeout) should next be called.
    pub fn poll_timeout(&mut self) -> Option<Instant> {
        self.endpoint.outbound.next_deadline()
    }
}

fn object(value: &impl serde::Serialize) -> Result<Map<String, Value>, serde_json::Error> {
    match serde_json::to_value(value)? {
        Value::Object(map) => Ok(map),
        _ => Ok(Map::new()),
    }
}

#[cfg(test)]
mod tests;
