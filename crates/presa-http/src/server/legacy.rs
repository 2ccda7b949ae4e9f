//! Initialize-era requests on the endpoint: a POST to a session (or one that creates it with
//! `initialize`), the session's GET stream with `Last-Event-ID` resumption, and DELETE.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{Extension, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use presa_core::{
    ErrorCode, ErrorObject, Message, Packet, ProtocolVersion, RequestId, is_stateless_message,
};
use presa_server::{Arrival, AuthInfo};
use tokio::sync::mpsc;

use super::auth::{insufficient_scope_response, principal};
use super::headers::{SESSION_HEADER, accepts, header_str};
use super::live::{Admission, InUse, SessionsFull};
use super::reject::{draining, method_not_allowed, reject, service_unavailable};
use super::session::{Delivery, HttpSession, new_session_id};
use super::shared::{Shared, Unavailable};
use super::sse::{event, forward, json_response, sse_response};
use super::stateless::{accepted, received};
use super::store::SessionStoreError;
use presa_core::ErrorReport;

const LAST_EVENT_ID: &str = "last-event-id";

/// An initialize-era POST: a new session for `initialize`, else the session the id names.
pub(crate) async fn post(
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
                    // 2026-07-28 has no batches, and its header checks are made per POST: a
                    // 2026-07-28 message inside a batch would escape them (a request is
                    // answered with the refusal, a notification dropped)
                    Ok(message) if is_stateless_message(&message) => {
                        if let Message::Request(request) = message {
                            rejected.push(
                                Message::Response(presa_core::Response::error(
                                    Some(request.id),
                                    ErrorObject::invalid_request(
                                        "a 2026-07-28 request cannot be sent in a batch",
                                    ),
                                ))
                                .to_json(),
                            );
                        }
                    }
                    Ok(message) => messages.push(message),
                    Err(error) => rejected.push(Message::Response(error.to_response()).to_json()),
                }
            }
            (messages, rejected, true)
        }
    };
    // routing headers sent with initialize-era messages still tell the truth about each of
    // them (a batch with `Mcp-Method` can only be a batch of that method)
    let routing = received(headers);
    for message in &messages {
        if let Some(method) = message.method()
            && let Err(error) = routing.check_sent_routing(method, message.params())
        {
            return reject(
                StatusCode::BAD_REQUEST,
                ErrorCode::HEADER_MISMATCH,
                &ErrorObject::from(error).message,
            );
        }
    }
    let initialize = messages.iter().any(|m| m.method() == Some("initialize"));
    // a new session holds its place among the session limits until it is kept (or not); an
    // existing one is in use until the POST is served, so that it is not ended to make room
    let (session, held) = match session_id {
        // an `initialize` without an id could never be answered: it starts nothing
        None if initialize
            && (is_batch || !matches!(messages.as_slice(), [Message::Request(_)])) =>
        {
            return reject(
                StatusCode::BAD_REQUEST,
                ErrorCode::INVALID_REQUEST,
                "Invalid request: initialize must be a request (with an id), alone in its POST",
            );
        }
        None if initialize => {
            let admission = match shared.admit(caller.as_deref()).await {
                Ok(admission) => admission,
                Err(full) => return sessions_full(full),
            };
            shared.start_sweeper();
            shared.start_announcer();
            let Some(id) = new_session_id() else {
                return reject(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    ErrorCode::INTERNAL_ERROR,
                    "no randomness for a session id",
                );
            };
            let session = HttpSession::start(
                id,
                shared.server.clone(),
                shared.options.event_buffer_limits(),
                caller.clone(),
                shared.sharing(),
            );
            (
                session,
                Held::Admitted {
                    _admission: admission,
                },
            )
        }
        None => {
            return reject(
                StatusCode::BAD_REQUEST,
                ErrorCode::INVALID_REQUEST,
                "Bad Request: Mcp-Session-Id header is required",
            );
        }
        Some(id) => match shared.session(&id, caller.as_deref()).await {
            Ok(Some(session)) => (Arc::clone(&session), Held::Used { _in_use: session }),
            Ok(None) => return session_not_found(),
            Err(unavailable) => return unavailable_response(unavailable),
        },
    };
    let created = matches!(held, Held::Admitted { .. });
    if !created {
        let header = header_str(headers, presa_core::MCP_PROTOCOL_VERSION_HEADER);
        if let Err(error) =
            presa_core::check_session_delivery(session.version(), header, initialize, is_batch)
        {
            return reject(StatusCode::BAD_REQUEST, error.code, &error.message);
        }
    }
    // an answer or a cancellation that another instance serving the session waits for
    if let Some(relay) = shared.storage.sharing() {
        for relayed in session.for_elsewhere(&messages) {
            relay.relay(relayed);
        }
    }
    let requests: Vec<RequestId> = messages
        .iter()
        .filter_map(|m| match m {
            Message::Request(r) => Some(r.id.clone()),
            _ => None,
        })
        .collect();
    if requests.is_empty() {
        if !session.deliver(messages, arrival) {
            return session_not_found();
        }
        persist_after(&shared, &session).await;
        // a batch's members that were not messages are still answered
        if !rejected.is_empty() {
            return json_response(StatusCode::OK, format!("[{}]", rejected.join(",")));
        }
        return accepted();
    }
    let primed = session
        .version()
        .is_some_and(ProtocolVersion::primes_streams);
    let stream = match session.stream_number(&*shared.store, shared.ttl()).await {
        Ok(stream) => stream,
        // removed meanwhile (a DELETE elsewhere)
        Err(_) if !session.is_open() => return session_not_found(),
        Err(error) => return store_unavailable(&error),
    };
    let (priming, deliveries) = session.open_stream(stream, &requests, primed);
    if !session.deliver(messages, arrival) {
        session.forget_stream(stream);
        return session_not_found();
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
    if !super::sse::is_stream(&response) {
        session.forget_stream(stream);
    }
    if created {
        let Some(version) = session.negotiated() else {
            // initialize failed: there is no session
            session.close();
            return response;
        };
        session.set_version(version);
        if let Err(error) = session.persist(&*shared.store, shared.ttl()).await {
            session.close();
            return store_unavailable(&error);
        }
        shared.live.insert(Arc::clone(&session));
        tracing::debug!(target: "presa_http", session = %session.id(), "session started");
        if let Ok(value) = HeaderValue::from_str(session.id()) {
            response.headers_mut().insert(SESSION_HEADER, value);
        }
    } else {
        persist_after(&shared, &session).await;
    }
    response
}

/// What keeps a POST's session in place while the POST is served.
enum Held {
    /// A new session's place among the session limits.
    Admitted { _admission: Admission },
    /// An existing session, in use.
    Used { _in_use: InUse },
}

/// Saves what the messages just delivered changed. The messages were served already, so a
/// store that fails does not take their answer away: the change stays unsaved here, and the
/// next request this instance serves for the session saves it.
async fn persist_after(shared: &Shared, session: &Arc<HttpSession>) {
    match session.persist(&*shared.store, shared.ttl()).await {
        Ok(true) => {}
        // removed meanwhile (a DELETE elsewhere): its live parts here go too
        Ok(false) => shared.live.remove_this(session),
        Err(error) => tracing::warn!(
            target: "presa_http",
            "session {}: the state is saved with the next request this instance serves for it: {}",
            session.id(),
            ErrorReport(&error)
        ),
    }
}

fn session_not_found() -> Response {
    reject(
        StatusCode::NOT_FOUND,
        ErrorCode::INVALID_REQUEST,
        "Session not found",
    )
}

/// 503 with `Retry-After`: the session store failed before anything was served (the error is
/// logged, not shown).
fn store_unavailable(error: &SessionStoreError) -> Response {
    tracing::warn!(target: "presa_http", "{}", ErrorReport(error));
    service_unavailable("Service Unavailable: the session store failed; retry later")
}

/// 503 with `Retry-After`: the session exists but cannot be served here now.
fn unavailable_response(unavailable: Unavailable) -> Response {
    match unavailable {
        Unavailable::Store(error) => store_unavailable(&error),
        Unavailable::Full(full) => sessions_full(full),
    }
}

/// 503 with `Retry-After`: no place for another session.
fn sessions_full(full: SessionsFull) -> Response {
    let message = match full {
        SessionsFull::Total(max) => {
            format!("Service Unavailable: this server holds its most sessions ({max}); retry later")
        }
        SessionsFull::Caller(max) => format!(
            "Service Unavailable: you hold the most sessions one caller may ({max}); end one \
             (DELETE) or retry later"
        ),
    };
    service_unavailable(&message)
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
            && let Some(needed) = delivery.insufficient_scope
        {
            return insufficient_scope_response(delivery.json.to_string(), needed);
        }
        responses.push(delivery.json.to_string());
        if delivery.last {
            let body = if is_batch {
                format!("[{}]", responses.join(","))
            } else {
                responses.concat()
            };
            return json_response(StatusCode::OK, body);
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
    let primer = priming.map(|id| event(Some(&id), "", Some(retry)));
    let ready = primer.into_iter().chain(ready).collect();
    let deliveries = futures_util::stream::unfold(live, |live| async {
        let mut live = live?;
        let delivery = live.recv().await?;
        let event = event(Some(&delivery.event_id), &delivery.json, None);
        Some(((event, delivery.last), Some(live)))
    });
    forward(ready, Box::pin(deliveries))
}

/// `GET` on the endpoint: the session's standalone event stream, or the resumption of a stream
/// with `Last-Event-ID`.
pub(crate) async fn get(
    State(shared): State<Shared>,
    headers: HeaderMap,
    auth: Option<Extension<AuthInfo>>,
) -> Response {
    if !shared.supports_initialize_era() {
        return method_not_allowed(shared.allowed_methods());
    }
    if !accepts(&headers).sse {
        return reject(
            StatusCode::NOT_ACCEPTABLE,
            ErrorCode::INVALID_REQUEST,
            "Not Acceptable: Accept must list text/event-stream",
        );
    }
    if shared.is_draining() {
        return draining();
    }
    let Some(session_id) = header_str(&headers, SESSION_HEADER) else {
        return reject(
            StatusCode::BAD_REQUEST,
            ErrorCode::INVALID_REQUEST,
            "Bad Request: Mcp-Session-Id header is required",
        );
    };
    let caller = auth.and_then(|Extension(auth)| principal(&auth));
    let session = match shared.session(session_id, caller.as_deref()).await {
        Ok(Some(session)) => session,
        Ok(None) => return session_not_found(),
        Err(unavailable) => return unavailable_response(unavailable),
    };
    let resume = header_str(&headers, LAST_EVENT_ID).and_then(|id| {
        let (stream, seq) = id.split_once('-')?;
        Some((stream.parse::<u64>().ok()?, seq.parse::<u64>().ok()?))
    });
    let primed = session
        .version()
        .is_some_and(ProtocolVersion::primes_streams);
    let local = resume.and_then(|(stream, seq)| session.resume(stream, seq));
    let (replay, live, priming) = match (resume, local) {
        (_, Some((replay, live))) => (replay, live, None),
        (Some((stream, seq)), None) => {
            // a stream this instance does not hold: another one may have logged it
            let Some(store) = shared.storage.sharing() else {
                return unknown_event_id();
            };
            match session
                .continue_from_log(&**store, shared.ttl(), stream, seq, primed)
                .await
            {
                Ok(Some((replay, priming, live))) => (replay, Some(live), priming),
                Ok(None) => return unknown_event_id(),
                Err(error) => return store_unavailable(&error),
            }
        }
        (None, None) => {
            let stream = match session.stream_number(&*shared.store, shared.ttl()).await {
                Ok(stream) => stream,
                Err(_) if !session.is_open() => return session_not_found(),
                Err(error) => return store_unavailable(&error),
            };
            let (priming, live) = session.open_standalone(stream, primed);
            (Vec::new(), Some(live), priming)
        }
    };
    // a replay that reaches the stream's last message ends it there
    let end = replay.iter().position(|d| d.last);
    let mut ready: Vec<Bytes> = replay
        .iter()
        .take(end.map_or(usize::MAX, |at| at + 1))
        .map(|d| event(Some(&d.event_id), &d.json, None))
        .collect();
    // a stream continued here is primed after the replay: a client leaving right after it
    // resumes from the new stream, not from the replayed one
    let priming = match (resume, priming) {
        (Some(_), Some(id)) => {
            ready.push(event(Some(&id), "", Some(shared.options.retry)));
            None
        }
        (_, priming) => priming,
    };
    let events = forward_events(
        priming,
        shared.options.retry,
        ready,
        live.filter(|_| end.is_none()),
    );
    sse_response(events, Some(shared.options.keepalive), ())
}

fn unknown_event_id() -> Response {
    reject(
        StatusCode::NOT_FOUND,
        ErrorCode::INVALID_REQUEST,
        "Unknown Last-Event-ID",
    )
}

/// `DELETE` on the endpoint: ends an initialize-era session.
pub(crate) async fn delete(
    State(shared): State<Shared>,
    headers: HeaderMap,
    auth: Option<Extension<AuthInfo>>,
) -> Response {
    if !shared.supports_initialize_era() {
        return method_not_allowed(shared.allowed_methods());
    }
    let Some(session_id) = header_str(&headers, SESSION_HEADER) else {
        return reject(
            StatusCode::BAD_REQUEST,
            ErrorCode::INVALID_REQUEST,
            "Bad Request: Mcp-Session-Id header is required",
        );
    };
    let caller = auth.and_then(|Extension(auth)| principal(&auth));
    let owned = match shared.store.load(session_id, shared.ttl()).await {
        Ok(state) => state.is_some_and(|state| state.belongs_to(caller.as_deref())),
        Err(error) => return store_unavailable(&error),
    };
    if !owned {
        return session_not_found();
    }
    if let Err(error) = shared.store.remove(session_id).await {
        return store_unavailable(&error);
    }
    if let Some(session) = shared.live.remove(session_id) {
        session.close();
    }
    tracing::debug!(target: "presa_http", session = %session_id, "session deleted");
    StatusCode::OK.into_response()
}
