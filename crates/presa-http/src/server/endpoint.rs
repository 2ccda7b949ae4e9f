//! The MCP endpoint: POST, GET and DELETE, routed per request to the 2026-07-28 path or an
//! initialize-era session.

use std::sync::Arc;

use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;
use presa_core::{
    Era, ErrorCode, Message, Packet, ProtocolVersion, decode_packet_limited, is_stateless_message,
};
use presa_server::{Arrival, AuthInfo, HttpParts, Transport};

use super::legacy;
use super::reject::{reject, service_unavailable};
use super::shared::Shared;
use super::stateless::{self, accepted, bad_message};

pub(crate) const SESSION_HEADER: &str = "mcp-session-id";

/// What a request's `Accept` header admits, of the two answers a POST can get.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Accepted {
    /// `application/json`: one JSON answer.
    pub(crate) json: bool,
    /// `text/event-stream`: an SSE stream.
    pub(crate) sse: bool,
}

impl Accepted {
    /// Both, as a POST must accept.
    pub(crate) fn both(self) -> bool {
        self.json && self.sse
    }
}

/// Parses an `Accept` header into what it admits.
pub(crate) fn accepts(headers: &HeaderMap) -> Accepted {
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
    Accepted { json, sse }
}

fn is_json_content(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|media| media.trim().eq_ignore_ascii_case("application/json"))
}

pub(crate) fn header_str<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
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

/// 503 with `Retry-After`: the endpoint is draining.
pub(crate) fn draining() -> Response {
    service_unavailable(
        "Service Unavailable: the server is shutting down; retry on another instance",
    )
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
    let version_header = header_str(headers, presa_core::MCP_PROTOCOL_VERSION_HEADER);
    let header_era = version_header
        .and_then(|v| v.parse::<ProtocolVersion>().ok())
        .map(ProtocolVersion::era);
    let era = match (&session_id, header_era, &packet) {
        // without a session, a 2026-07-28 version header says it all (the body is checked
        // against it later)
        (None, Some(Era::Stateless), _) => Era::Stateless,
        // a 2026-07-28 request is checked as one (its headers against its body) whatever
        // session id or version header it carries: a session anyone can make is no way
        // around those checks
        (_, _, Packet::Single(message)) if is_stateless_message(message) => Era::Stateless,
        // (a batch has a session id: without one it was refused above)
        (Some(_), _, _) | (None, Some(Era::Initialize), _) => Era::Initialize,
        (None, None, Packet::Single(_)) if version_header.is_none() => Era::Initialize,
        _ => Era::Stateless,
    };
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
        assert_eq!(
            accepts(&h),
            Accepted {
                json: true,
                sse: true
            }
        );
        h.insert(header::ACCEPT, HeaderValue::from_static("application/json"));
        assert_eq!(
            accepts(&h),
            Accepted {
                json: true,
                sse: false
            }
        );
        h.insert(header::ACCEPT, HeaderValue::from_static("*/*"));
        assert_eq!(
            accepts(&h),
            Accepted {
                json: true,
                sse: true
            }
        );
    }
}
