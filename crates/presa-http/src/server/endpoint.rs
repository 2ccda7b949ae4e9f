//! The MCP endpoint: POST, GET and DELETE, routed per request to the 2026-07-28 path or an
//! initialize-era session.

use std::sync::Arc;

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use presa_core::{
    Era, EraSigns, ErrorCode, Message, Packet, decode_packet_limited, is_stateless_message,
};
use presa_server::{Arrival, AuthInfo, HttpParts, Transport};

use super::headers::{SESSION_HEADER, accepts, header_str, is_json_content};
use super::legacy;
use super::reject::{draining, method_not_allowed, reject};
use super::shared::Shared;
use super::stateless::{self, accepted, bad_message};

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
    if !accepts(headers).both() {
        return reject(
            StatusCode::NOT_ACCEPTABLE,
            ErrorCode::INVALID_REQUEST,
            "Not Acceptable: Accept must list application/json and text/event-stream",
        );
    }
    let read = axum::body::to_bytes(body, shared.options.max_body_bytes);
    let read = match shared.options.body_timeout {
        Some(timeout) => match tokio::time::timeout(timeout, read).await {
            Ok(read) => read,
            Err(_) => {
                let message = format!(
                    "Request Timeout: the body did not arrive within {} ms",
                    timeout.as_millis()
                );
                return reject(
                    StatusCode::REQUEST_TIMEOUT,
                    ErrorCode::INVALID_REQUEST,
                    &message,
                );
            }
        },
        None => read.await,
    };
    let bytes = match read {
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
    // only a 2025-03-26 session takes batches: without a session id a batch is refused before
    // its members are split apart; with one, at most `max_batch_members` are split before the
    // session's revision is checked
    let most_members = match session_id {
        Some(_) => shared.options.max_batch_members,
        None => 0,
    };
    let packet = match decode_packet_limited(&bytes, most_members) {
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
    let carries_request = match &packet {
        Packet::Single(message) => matches!(message, Message::Request(_)),
        Packet::Batch(members) => members.iter().any(|m| matches!(m, Ok(Message::Request(_)))),
    };
    if !carries_request {
        return route(shared, headers, session_id, packet, &arrival).await;
    }
    // answers to the server and notifications are still taken while draining: the requests in
    // flight may need them to finish
    let Some(serving) = shared.serving() else {
        return draining();
    };
    let response = route(shared, headers, session_id, packet, &arrival).await;
    hold_until_sent(response, serving)
}

/// `response`, with `guard` held until its body is sent (or dropped) when it is a stream.
fn hold_until_sent<G: Send + 'static>(response: Response, guard: G) -> Response {
    if !super::sse::is_stream(&response) {
        return response;
    }
    response.map(|body| {
        let chunks = body.into_data_stream();
        axum::body::Body::from_stream(futures_util::StreamExt::map(chunks, move |chunk| {
            let _held = &guard;
            chunk
        }))
    })
}

/// A decoded POST, to the era it belongs to.
async fn route(
    shared: Shared,
    headers: &HeaderMap,
    session_id: Option<String>,
    packet: Packet,
    arrival: &Arrival,
) -> Response {
    // (a batch has a session id: without one it was refused above)
    let era = EraSigns {
        on_session: session_id.is_some(),
        version_header: header_str(headers, presa_core::MCP_PROTOCOL_VERSION_HEADER),
    }
    .era(|| matches!(&packet, Packet::Single(m) if is_stateless_message(m)));
    if era == Era::Initialize {
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
        return legacy::post(shared, headers, session_id, packet, arrival).await;
    }
    match packet {
        Packet::Single(Message::Request(request)) => {
            stateless::request(shared, headers, request, arrival).await
        }
        Packet::Single(Message::Notification(notification)) => {
            stateless::notification(&shared, headers, notification, arrival)
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

/// The fallback handler for other methods.
pub(crate) async fn other(State(shared): State<Shared>) -> Response {
    method_not_allowed(shared.allowed_methods())
}
