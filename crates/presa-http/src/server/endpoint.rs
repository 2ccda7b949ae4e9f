//! The MCP endpoint: POST, GET and DELETE, routed per request to the 2026-07-28 path or an
//! initialize-era session.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Once};
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::{Extension, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use presa_core::ErrorObject;
use presa_core::{
    Era, ErrorCode, Message, Packet, ProtocolVersion, RequestId, decode_packet,
    is_stateless_shaped, params_meta,
};
use presa_server::{
    Arrival, AuthInfo, DrivenConnection, HttpParts, InsufficientScope, Server, Transport,
};
use tokio::sync::mpsc;

use super::auth::{insufficient_scope_response, principal};
use super::options::{CancellationPolicy, HttpOptions};
use super::reject::reject;
use super::session::{Delivery, HttpSession, SessionStore, new_session_id};
use super::sse::{event, json_response, sse_response};
use super::stateless::{self, accepted, bad_message};

pub(crate) const SESSION_HEADER: &str = "mcp-session-id";
const LAST_EVENT_ID: &str = "last-event-id";

/// The requests a posted `notifications/cancelled` may stop, by subject and request id.
type Cancellable = HashMap<(String, RequestId), Arc<DrivenConnection>>;

/// What every request of one endpoint shares: one reference, cloned per request.
#[derive(Clone)]
pub(crate) struct Shared(Arc<SharedState>);

pub(crate) struct SharedState {
    pub(crate) server: Server,
    pub(crate) options: Arc<HttpOptions>,
    pub(crate) sessions: Arc<dyn SessionStore>,
    cancellable: Mutex<Cancellable>,
    sweeper: Once,
    /// The task telling sessions of the server's changes, ended with the endpoint.
    announcer: std::sync::OnceLock<tokio::task::AbortHandle>,
    /// The connection of each open 2026-07-28 listen stream, closed at shutdown.
    listens: Mutex<HashMap<u64, Arc<DrivenConnection>>>,
    next_listen: std::sync::atomic::AtomicU64,
}

impl Drop for SharedState {
    fn drop(&mut self) {
        if let Some(announcer) = self.announcer.get() {
            announcer.abort();
        }
    }
}

impl std::ops::Deref for Shared {
    type Target = SharedState;

    fn deref(&self) -> &SharedState {
        &self.0
    }
}

impl Shared {
    pub(crate) fn new(
        server: Server,
        options: HttpOptions,
        sessions: Arc<dyn SessionStore>,
    ) -> Self {
        Self(Arc::new(SharedState {
            server,
            options: Arc::new(options),
            sessions,
            cancellable: Mutex::default(),
            listens: Mutex::default(),
            next_listen: std::sync::atomic::AtomicU64::default(),
            sweeper: Once::new(),
            announcer: std::sync::OnceLock::new(),
        }))
    }

    /// The subject of a request, when posted cancellation is on.
    pub(crate) fn subject(&self, headers: &HeaderMap, auth: Option<&AuthInfo>) -> Option<String> {
        match &self.options.cancellation {
            CancellationPolicy::Subject(subject) => subject(headers),
            CancellationPolicy::AuthSubject => auth.and_then(principal),
            CancellationPolicy::None => None,
        }
    }

    pub(crate) fn remember_cancellable(
        &self,
        subject: &str,
        id: &RequestId,
        connection: Arc<DrivenConnection>,
    ) {
        if let Ok(mut map) = self.cancellable.lock() {
            map.insert((subject.to_owned(), id.clone()), connection);
        }
    }

    pub(crate) fn forget_cancellable(&self, subject: &str, id: &RequestId) {
        if let Ok(mut map) = self.cancellable.lock() {
            map.remove(&(subject.to_owned(), id.clone()));
        }
    }

    pub(crate) fn cancel(&self, subject: &str, id: &RequestId) {
        let entry = self
            .cancellable
            .lock()
            .ok()
            .and_then(|mut map| map.remove(&(subject.to_owned(), id.clone())));
        if let Some(connection) = entry {
            connection.cancel(id);
        }
    }

    /// Starts, once, the task that ends idle sessions.
    fn start_sweeper(&self) {
        let Some(timeout) = self.options.session_idle_timeout else {
            return;
        };
        let sessions = Arc::downgrade(&self.sessions);
        self.sweeper.call_once(|| {
            tokio::spawn(async move {
                let mut ticks = tokio::time::interval((timeout / 4).clamp(Duration::from_millis(10), Duration::from_secs(60)));
                loop {
                    ticks.tick().await;
                    let Some(sessions) = sessions.upgrade() else { return };
                    for session in sessions.all() {
                        if session.is_idle(timeout) {
                            sessions.remove(session.id());
                            session.close();
                            tracing::debug!(target: "presa_http", "session {} ended after being idle", session.id());
                        }
                    }
                }
            });
        });
    }

    /// Starts, once, the task that tells sessions of the server's changes (sessions have no task
    /// of their own).
    fn start_announcer(&self) {
        let sessions = Arc::downgrade(&self.sessions);
        let server = &self.server;
        self.announcer.get_or_init(|| {
            let mut changes = server.changes();
            let task = tokio::spawn(async move {
                loop {
                    match changes.recv().await {
                        Ok(change) => {
                            let Some(sessions) = sessions.upgrade() else {
                                return;
                            };
                            for session in sessions.all() {
                                session.announce(change.clone());
                            }
                        }
                        Err(tokio::sync::broadcast::error::RecvError::Lagged(missed)) => {
                            tracing::warn!(
                                target: "presa_http",
                                "sessions missed {missed} changes: the change bus overflowed"
                            );
                        }
                        Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
                    }
                }
            });
            task.abort_handle()
        });
    }

    /// Remembers an open listen stream, to end it gracefully at shutdown; returns its key.
    pub(crate) fn remember_listen(&self, connection: Arc<DrivenConnection>) -> u64 {
        let key = self
            .next_listen
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        if let Ok(mut listens) = self.listens.lock() {
            listens.insert(key, connection);
        }
        key
    }

    pub(crate) fn forget_listen(&self, key: u64) {
        if let Ok(mut listens) = self.listens.lock() {
            listens.remove(&key);
        }
    }

    /// Ends every session and listen stream (graceful stop).
    pub(crate) fn close_sessions(&self) {
        if let Ok(mut listens) = self.listens.lock() {
            for (_, connection) in listens.drain() {
                connection.close();
            }
        }
        for session in self.sessions.all() {
            self.sessions.remove(session.id());
            session.close();
        }
    }

    fn supports_initialize_era(&self) -> bool {
        self.server
            .supported_versions()
            .supports_era(Era::Initialize)
    }
}

/// Parses an `Accept` header into what it admits.
fn accepts(headers: &HeaderMap) -> (bool, bool) {
    let mut json = false;
    let mut sse = false;
    for value in headers.get_all(header::ACCEPT) {
        for item in value.to_str().unwrap_or("").split(',') {
            let media = item
                .split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase();
            match media.as_str() {
                "*/*" => (json, sse) = (true, true),
                "application/json" | "application/*" => json = true,
                "text/event-stream" | "text/*" => sse = true,
                _ => {}
            }
        }
    }
    (json, sse)
}

fn is_json_content(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|media| media.trim().eq_ignore_ascii_case("application/json"))
}

fn header_str<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
}

/// `POST` on the endpoint.
pub(crate) async fn post(
    State(shared): State<Shared>,
    request: axum::extract::Request,
) -> Response {
    let (parts, body) = request.into_parts();
    let auth = parts.extensions.get::<AuthInfo>().cloned().map(Arc::new);
    // the request's headers and extensions go to the handler's context as they are
    let http = Arc::new(HttpParts::new(parts.headers, parts.extensions));
    let arrival = Arrival::new(Transport::Http)
        .with_optional_auth(auth)
        .with_http(Arc::clone(&http));
    let headers = http.headers();
    if !is_json_content(headers) {
        return reject(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ErrorCode::INVALID_REQUEST,
            "Unsupported Media Type: send application/json",
        );
    }
    if accepts(headers) != (true, true) {
        return reject(
            StatusCode::NOT_ACCEPTABLE,
            ErrorCode::INVALID_REQUEST,
            "Not Acceptable: Accept must list application/json and text/event-stream",
        );
    }
    let bytes = match axum::body::to_bytes(body, shared.options.max_body_bytes).await {
        Ok(bytes) => bytes,
        Err(_) => {
            let message = format!(
                "Payload too large: the limit is {} bytes",
                shared.options.max_body_bytes
            );
            return reject(
                StatusCode::PAYLOAD_TOO_LARGE,
                ErrorCode::INVALID_REQUEST,
                &message,
            );
        }
    };
    let session_id = header_str(headers, SESSION_HEADER).map(str::to_owned);
    let packet = match decode_packet(&bytes, true) {
        Ok(packet) => packet,
        Err(error) => {
            let status = if session_id.is_some() {
                StatusCode::OK
            } else {
                StatusCode::BAD_REQUEST
            };
            return bad_message(error.code(), error.to_string(), error.id().cloned(), status);
        }
    };
    let version_header = header_str(headers, presa_core::MCP_PROTOCOL_VERSION_HEADER);
    let header_era = version_header
        .and_then(|v| v.parse::<ProtocolVersion>().ok())
        .map(ProtocolVersion::era);
    let legacy = match (&session_id, header_era, &packet) {
        (Some(_), _, _) => true,
        (None, Some(Era::Initialize), _) => true,
        (None, _, Packet::Batch(_)) => true,
        (None, None, Packet::Single(message)) if version_header.is_none() => {
            let params = match message {
                Message::Request(r) => r.params.as_deref(),
                Message::Notification(n) => n.params.as_deref(),
                Message::Response(_) => None,
            };
            !is_stateless_shaped(params_meta(params).as_ref())
        }
        _ => false,
    };
    if legacy {
        if !shared.supports_initialize_era() {
            let supported = shared.server.supported_versions().to_strings().join(", ");
            let message =
                format!("Missing MCP-Protocol-Version header; this server speaks {supported}");
            return bad_message(
                ErrorCode::HEADER_MISMATCH,
                message,
                None,
                StatusCode::BAD_REQUEST,
            );
        }
        return legacy_post(shared, headers, session_id, packet, &arrival).await;
    }
    match packet {
        Packet::Single(Message::Request(request)) => {
            stateless::request(shared, headers, request, &arrival).await
        }
        Packet::Single(Message::Notification(notification)) => {
            stateless::notification(&shared, headers, &notification, arrival.auth())
        }
        Packet::Single(Message::Response(_)) => accepted(),
        Packet::Batch(_) => bad_message(
            ErrorCode::INVALID_REQUEST,
            "Invalid request: batches are not allowed".into(),
            None,
            StatusCode::BAD_REQUEST,
        ),
    }
}

/// An initialize-era POST: a new session for `initialize`, else the session the id names.
async fn legacy_post(
    shared: Shared,
    headers: &HeaderMap,
    session_id: Option<String>,
    packet: Packet,
    arrival: &Arrival,
) -> Response {
    let caller = arrival.auth().and_then(principal);
    let (messages, mut rejected, is_batch) = match packet {
        Packet::Single(message) => (vec![message], Vec::new(), false),
        Packet::Batch(members) => {
            let mut messages = Vec::new();
            let mut rejected = Vec::new();
            for member in members {
                match member {
                    Ok(message) => messages.push(message),
                    Err(error) => rejected.push(Message::Response(error.to_response()).to_json()),
                }
            }
            (messages, rejected, true)
        }
    };
    let initialize = messages.iter().any(|m| m.method() == Some("initialize"));
    let (session, created) = match session_id {
        None if initialize && !is_batch => {
            shared.start_sweeper();
            shared.start_announcer();
            let Some(id) = new_session_id() else {
                return reject(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    ErrorCode::INTERNAL_ERROR,
                    "no randomness for a session id",
                );
            };
            shared.options.log_line(&format!("session {id} started"));
            let session = HttpSession::start(
                id,
                shared.server.clone(),
                shared.options.event_buffer,
                caller.clone(),
            );
            shared.sessions.insert(Arc::clone(&session));
            (session, true)
        }
        None => {
            return reject(
                StatusCode::BAD_REQUEST,
                ErrorCode::INVALID_REQUEST,
                "Bad Request: Mcp-Session-Id header is required",
            );
        }
        Some(id) => match shared.sessions.get(&id) {
            Some(session) if session.belongs_to(caller.as_deref()) => (session, false),
            _ => {
                return reject(
                    StatusCode::NOT_FOUND,
                    ErrorCode::INVALID_REQUEST,
                    "Session not found",
                );
            }
        },
    };
    if !created {
        if initialize {
            return reject(
                StatusCode::BAD_REQUEST,
                ErrorCode::INVALID_REQUEST,
                "Session already initialized",
            );
        }
        if let (Some(header), Some(version)) = (
            header_str(headers, presa_core::MCP_PROTOCOL_VERSION_HEADER),
            session.version(),
        ) && header != version.as_str()
        {
            let message =
                format!("MCP-Protocol-Version {header:?} does not match the session's {version}");
            return reject(
                StatusCode::BAD_REQUEST,
                ErrorCode::INVALID_REQUEST,
                &message,
            );
        }
        if is_batch && session.version() != Some(ProtocolVersion::V2025_03_26) {
            return reject(
                StatusCode::BAD_REQUEST,
                ErrorCode::INVALID_REQUEST,
                "Invalid request: batches are not allowed in this protocol revision",
            );
        }
    }
    session.touch();
    let requests: Vec<RequestId> = messages
        .iter()
        .filter_map(|m| match m {
            Message::Request(r) => Some(r.id.clone()),
            _ => None,
        })
        .collect();
    if requests.is_empty() {
        return if session.deliver(messages, arrival) {
            accepted()
        } else {
            reject(
                StatusCode::NOT_FOUND,
                ErrorCode::INVALID_REQUEST,
                "Session not found",
            )
        };
    }
    let primed = session.version() == Some(ProtocolVersion::V2025_11_25);
    let (stream, priming, deliveries) = session.open_stream(&requests, primed);
    if !session.deliver(messages, arrival) {
        session.forget_stream(stream);
        return reject(
            StatusCode::NOT_FOUND,
            ErrorCode::INVALID_REQUEST,
            "Session not found",
        );
    }
    let single = !is_batch && requests.len() == 1;
    let mut response = respond(
        &shared,
        &session,
        priming,
        deliveries,
        &mut rejected,
        is_batch,
        single,
    )
    .await;
    let streamed = response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|t| t.as_bytes().starts_with(b"text/event-stream"));
    if !streamed {
        session.forget_stream(stream);
    }
    if created {
        let initialized = match session_version_from(&response) {
            Some(version) => {
                session.set_version(version);
                true
            }
            None => false,
        };
        if initialized {
            if let Ok(value) = HeaderValue::from_str(session.id()) {
                response.headers_mut().insert(SESSION_HEADER, value);
            }
        } else {
            shared.sessions.remove(session.id());
            session.close();
        }
    }
    response
}

/// The negotiated version, read from the `initialize` answer this response carries (JSON mode).
fn session_version_from(response: &Response) -> Option<ProtocolVersion> {
    response
        .extensions()
        .get::<NegotiatedVersion>()
        .map(|v| v.0)
}

#[derive(Clone, Copy)]
struct NegotiatedVersion(ProtocolVersion);

fn negotiated(json: &str) -> Option<ProtocolVersion> {
    let value: serde_json::Value = serde_json::from_str(json).ok()?;
    value
        .get("result")?
        .get("protocolVersion")?
        .as_str()?
        .parse()
        .ok()
}

/// The scopes a response's error says the request lacked, if it is an `insufficient_scope`
/// error.
fn insufficient_scope(json: &str) -> Option<InsufficientScope> {
    if !json.contains("insufficient_scope") {
        return None;
    }
    let value: serde_json::Value = serde_json::from_str(json).ok()?;
    let error: ErrorObject = serde_json::from_value(value.get("error")?.clone()).ok()?;
    InsufficientScope::from_error(&error)
}

/// Answers a POST from its stream: one JSON body (an array for a batch) when the responses come
/// first; an SSE stream as soon as anything else comes first.
async fn respond(
    shared: &Shared,
    session: &HttpSession,
    priming: Option<String>,
    mut deliveries: mpsc::Receiver<Delivery>,
    responses: &mut Vec<String>,
    is_batch: bool,
    single: bool,
) -> Response {
    let mut version = None;
    loop {
        let Some(delivery) = deliveries.recv().await else {
            if priming.is_some() && session.is_open() {
                // a handler closed the stream early (SEP-1699): the client resumes from the
                // priming event's id and gets the rest on its GET
                let ready = responses
                    .iter()
                    .map(|json| event(None, json, None))
                    .collect();
                let events = forward_events(priming, shared.options.retry, ready, None);
                return sse_response(events, None, ());
            }
            return reject(
                StatusCode::NOT_FOUND,
                ErrorCode::INVALID_REQUEST,
                "Session ended",
            );
        };
        if !delivery.is_response {
            return stream_response(
                shared,
                priming,
                deliveries,
                std::mem::take(responses),
                delivery,
            );
        }
        if single
            && delivery.last
            && let Some(needed) = insufficient_scope(&delivery.json)
        {
            return insufficient_scope_response(delivery.json.to_string(), needed);
        }
        version = version.or_else(|| negotiated(&delivery.json));
        responses.push(delivery.json.to_string());
        if delivery.last {
            let body = if is_batch {
                format!("[{}]", responses.join(","))
            } else {
                responses.concat()
            };
            let mut response = json_response(StatusCode::OK, body);
            if let Some(version) = version {
                response.extensions_mut().insert(NegotiatedVersion(version));
            }
            return response;
        }
    }
}

/// Switches a POST's answer to SSE: the responses collected so far, then the stream's messages.
fn stream_response(
    shared: &Shared,
    priming: Option<String>,
    deliveries: mpsc::Receiver<Delivery>,
    earlier: Vec<String>,
    first: Delivery,
) -> Response {
    // responses collected before the switch carry no event id: they were not routed as events
    let mut ready: Vec<Bytes> = earlier.iter().map(|json| event(None, json, None)).collect();
    let last = first.last;
    ready.push(event(Some(&first.event_id), &first.json, None));
    let events = forward_events(
        priming,
        shared.options.retry,
        ready,
        (!last).then_some(deliveries),
    );
    sse_response(events, None, ())
}

/// Feeds an SSE stream: a priming event (an id to resume from, and `retry`) when given, the
/// events at hand, then the stream's live messages until the one that ends it.
fn forward_events(
    priming: Option<String>,
    retry: std::time::Duration,
    ready: Vec<Bytes>,
    live: Option<mpsc::Receiver<Delivery>>,
) -> mpsc::Receiver<Bytes> {
    let (events_tx, events) = mpsc::channel::<Bytes>(64);
    tokio::spawn(async move {
        let primer = priming.map(|id| event(Some(&id), "", Some(retry)));
        for bytes in primer.into_iter().chain(ready) {
            if events_tx.send(bytes).await.is_err() {
                return;
            }
        }
        let Some(mut live) = live else { return };
        while let Some(delivery) = live.recv().await {
            let bytes = event(Some(&delivery.event_id), &delivery.json, None);
            if events_tx.send(bytes).await.is_err() || delivery.last {
                return;
            }
        }
    });
    events
}

/// `GET` on the endpoint: the session's standalone event stream, or the resumption of a stream
/// with `Last-Event-ID`.
pub(crate) async fn get(
    State(shared): State<Shared>,
    headers: HeaderMap,
    auth: Option<Extension<AuthInfo>>,
) -> Response {
    if !shared.supports_initialize_era() {
        return method_not_allowed(&shared);
    }
    if !accepts(&headers).1 {
        return reject(
            StatusCode::NOT_ACCEPTABLE,
            ErrorCode::INVALID_REQUEST,
            "Not Acceptable: Accept must list text/event-stream",
        );
    }
    let Some(session_id) = header_str(&headers, SESSION_HEADER) else {
        return reject(
            StatusCode::BAD_REQUEST,
            ErrorCode::INVALID_REQUEST,
            "Bad Request: Mcp-Session-Id header is required",
        );
    };
    let caller = auth.and_then(|Extension(auth)| principal(&auth));
    let Some(session) = shared
        .sessions
        .get(session_id)
        .filter(|s| s.belongs_to(caller.as_deref()))
    else {
        return reject(
            StatusCode::NOT_FOUND,
            ErrorCode::INVALID_REQUEST,
            "Session not found",
        );
    };
    session.touch();
    let resume = header_str(&headers, LAST_EVENT_ID).and_then(|id| {
        let (stream, seq) = id.split_once('-')?;
        Some((stream.parse::<u64>().ok()?, seq.parse::<u64>().ok()?))
    });
    let (replay, live, priming) = match resume {
        Some((stream, seq)) => match session.resume(stream, seq) {
            Some((replay, live)) => (replay, live, None),
            None => {
                return reject(
                    StatusCode::NOT_FOUND,
                    ErrorCode::INVALID_REQUEST,
                    "Unknown Last-Event-ID",
                );
            }
        },
        None => {
            let (priming, live) =
                session.open_standalone(session.version() == Some(ProtocolVersion::V2025_11_25));
            (Vec::new(), Some(live), priming)
        }
    };
    // a replay that reaches the stream's last message ends it there
    let end = replay.iter().position(|d| d.last);
    let replay = replay
        .iter()
        .take(end.map_or(usize::MAX, |at| at + 1))
        .map(|d| event(Some(&d.event_id), &d.json, None))
        .collect();
    let events = forward_events(
        priming,
        shared.options.retry,
        replay,
        live.filter(|_| end.is_none()),
    );
    sse_response(events, Some(shared.options.keepalive), ())
}

/// `DELETE` on the endpoint: ends an initialize-era session.
pub(crate) async fn delete(
    State(shared): State<Shared>,
    headers: HeaderMap,
    auth: Option<Extension<AuthInfo>>,
) -> Response {
    if !shared.supports_initialize_era() {
        return method_not_allowed(&shared);
    }
    let Some(session_id) = header_str(&headers, SESSION_HEADER) else {
        return reject(
            StatusCode::BAD_REQUEST,
            ErrorCode::INVALID_REQUEST,
            "Bad Request: Mcp-Session-Id header is required",
        );
    };
    let caller = auth.and_then(|Extension(auth)| principal(&auth));
    let owned = shared
        .sessions
        .get(session_id)
        .is_some_and(|s| s.belongs_to(caller.as_deref()));
    let removed = if owned {
        shared.sessions.remove(session_id)
    } else {
        None
    };
    match removed {
        Some(session) => {
            session.close();
            shared
                .options
                .log_line(&format!("session {} deleted", session.id()));
            StatusCode::OK.into_response()
        }
        None => reject(
            StatusCode::NOT_FOUND,
            ErrorCode::INVALID_REQUEST,
            "Session not found",
        ),
    }
}

/// Any other method, or GET/DELETE on a server without initialize-era sessions: 405 with `Allow`.
pub(crate) fn method_not_allowed(shared: &Shared) -> Response {
    let allow = if shared.supports_initialize_era() {
        "GET, POST, DELETE"
    } else {
        "POST"
    };
    let mut response = reject(
        StatusCode::METHOD_NOT_ALLOWED,
        ErrorCode::INVALID_REQUEST,
        "Method Not Allowed",
    );
    response
        .headers_mut()
        .insert(header::ALLOW, HeaderValue::from_static(allow));
    response
}

/// The fallback handler for other methods.
pub(crate) async fn other(State(shared): State<Shared>) -> Response {
    method_not_allowed(&shared)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accept_is_parsed_as_a_list() {
        let mut h = HeaderMap::new();
        h.insert(
            header::ACCEPT,
            HeaderValue::from_static("text/event-stream, application/json;q=0.9"),
        );
        assert_eq!(accepts(&h), (true, true));
        h.insert(header::ACCEPT, HeaderValue::from_static("application/json"));
        assert_eq!(accepts(&h), (true, false));
        h.insert(header::ACCEPT, HeaderValue::from_static("*/*"));
        assert_eq!(accepts(&h), (true, true));
    }
}
