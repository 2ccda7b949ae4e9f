//! One POST: a request and what answers it, or a notification or response and its `202`.

use presa_client::{TransportError, TransportErrorKind};
use presa_core::{Era, Message, Packet, RequestId, Response, ResponsePayload, decode_packet};
use reqwest::StatusCode;
use reqwest::header::HeaderMap;

use super::conn::{Conn, RequestCtx, SESSION_ID};
use super::stream::{self, describe_status, is_event_stream, media_type};

/// The most of an error body read to find a JSON-RPC error in it.
pub(crate) const ERROR_BODY_MAX: usize = 64 * 1024;
/// How much of an unusable body an error message quotes.
const EXCERPT_CHARS: usize = 200;

/// What a POST task tells the driver when it ends.
#[derive(Debug)]
pub(crate) enum Outcome {
    Done,
    /// `notifications/initialized` was accepted: open the session's GET stream.
    Initialized {
        generation: u64,
    },
    /// The transport is over: the server no longer knows the session (404 for a request
    /// carrying its id), or its HTTP+SSE stream ended.
    End(TransportError),
    /// `initialize` was refused in a way that suggests a 2024-11-05 HTTP+SSE server.
    HttpSse {
        ctx: RequestCtx,
        body: Vec<u8>,
        refused: TransportError,
    },
}

/// A message ready to POST.
#[derive(Debug)]
pub(crate) struct Post {
    /// The protocol headers, or why they could not be made.
    pub(crate) headers: Result<HeaderMap, TransportError>,
    pub(crate) body: Vec<u8>,
}

impl Post {
    fn carries_session(&self) -> bool {
        self.headers
            .as_ref()
            .is_ok_and(|h| h.contains_key(SESSION_ID))
    }
}

/// POSTs a request and delivers what answers it.
pub(crate) async fn request(conn: &Conn, post: Post, ctx: RequestCtx) -> Outcome {
    let session = post.carries_session();
    let headers = match post.headers {
        Ok(headers) => headers,
        Err(error) => {
            conn.fail(&ctx.id, error).await;
            return Outcome::Done;
        }
    };
    // kept for the HTTP+SSE fallback
    let fallback =
        (ctx.method == "initialize" && ctx.era == Era::Initialize).then(|| post.body.clone());
    let response = match conn.post(&headers, post.body).await {
        Ok(response) => response,
        Err(error) => {
            conn.fail(&ctx.id, error).await;
            return Outcome::Done;
        }
    };
    let status = response.status();
    if !status.is_success() {
        return error_status(conn, response, ctx, session, fallback).await;
    }
    if ctx.method == "initialize"
        && ctx.era == Era::Initialize
        && let Some(session_id) = response.headers().get(SESSION_ID)
    {
        conn.set_session_id(ctx.generation, session_id);
    }
    if is_event_stream(&response) {
        stream::answer(conn, response, &ctx).await;
        return Outcome::Done;
    }
    if matches!(status, StatusCode::ACCEPTED | StatusCode::NO_CONTENT) {
        let error = TransportError::new(
            TransportErrorKind::Protocol,
            format!("the server accepted the request without answering it (HTTP {status})"),
        );
        conn.fail(&ctx.id, error).await;
        return Outcome::Done;
    }
    // application/json, or no or another content type: read it as JSON all the same.
    let media = media_type(&response);
    let body = match read_body(response, conn.max_message_bytes).await {
        Ok(body) => body,
        Err(error) => {
            conn.fail(&ctx.id, error).await;
            return Outcome::Done;
        }
    };
    let mut messages = match decode_packet(&body, true) {
        Ok(packet) => messages_of(packet),
        Err(e) => {
            let what = media.unwrap_or_else(|| "no content type".to_owned());
            let mut detail = format!("HTTP {status} ({what}) is not a JSON-RPC response");
            if !body.is_empty() {
                detail.push_str(": ");
                detail.push_str(&excerpt(&body));
            }
            conn.fail(
                &ctx.id,
                TransportError::with_source(TransportErrorKind::Protocol, detail, e),
            )
            .await;
            return Outcome::Done;
        }
    };
    let answers = |m: &Message| matches!(m, Message::Response(r) if r.id.as_ref() == Some(&ctx.id));
    if !messages.iter().any(answers) {
        // An id-less error in the body of this POST can only be about this request.
        let idless = messages.iter_mut().find_map(|m| match m {
            Message::Response(r) if r.id.is_none() && r.as_error().is_some() => Some(r),
            _ => None,
        });
        if let Some(response) = idless {
            response.id = Some(ctx.id.clone());
        }
    }
    let mut answered = false;
    let share = body.len() / messages.len().max(1);
    for message in messages {
        answered |= matches!(&message, Message::Response(r) if r.id.as_ref() == Some(&ctx.id));
        if !conn.deliver(message, share).await {
            return Outcome::Done;
        }
    }
    if !answered {
        let error = TransportError::new(
            TransportErrorKind::Protocol,
            format!("HTTP {status} without a response to request {}", ctx.id),
        );
        conn.fail(&ctx.id, error).await;
    }
    Outcome::Done
}

/// An error status: the JSON-RPC error in the body if there is one (the server's answer),
/// else a transport failure; a 404 for a request in a session means the session expired.
async fn error_status(
    conn: &Conn,
    response: reqwest::Response,
    ctx: RequestCtx,
    session: bool,
    fallback: Option<Vec<u8>>,
) -> Outcome {
    let status = response.status();
    let body = read_body(response, ERROR_BODY_MAX)
        .await
        .unwrap_or_default();
    let answer = decode_packet(&body, true)
        .ok()
        .and_then(|packet| error_answer(packet, &ctx.id));
    if status == StatusCode::UNAUTHORIZED {
        // the request's failure whatever the body: no other request or revision gets past it
        conn.fail(&ctx.id, unauthorized(answer, &body)).await;
        return Outcome::Done;
    }
    match answer {
        Some((response, exact)) if exact || !(session && status == StatusCode::NOT_FOUND) => {
            let _ = conn.deliver(Message::Response(response), body.len()).await;
            Outcome::Done
        }
        _ if session && status == StatusCode::NOT_FOUND => Outcome::End(expired()),
        _ => {
            let mut detail = format!("HTTP {status}");
            if !body.is_empty() {
                detail.push_str(": ");
                detail.push_str(&excerpt(&body));
            }
            let refused = TransportError::new(TransportErrorKind::Protocol, detail);
            match fallback {
                Some(body)
                    if matches!(
                        status,
                        StatusCode::BAD_REQUEST
                            | StatusCode::NOT_FOUND
                            | StatusCode::METHOD_NOT_ALLOWED
                    ) =>
                {
                    Outcome::HttpSse { ctx, body, refused }
                }
                _ => {
                    conn.fail(&ctx.id, refused).await;
                    Outcome::Done
                }
            }
        }
    }
}

/// A `401` as the request's failure, kind `Unauthorized`: the status, with the body's JSON-RPC
/// error as the failure's source (it says itself what it is), or the start of any other body
/// in the message. The transport's token provider, if any, has had its say before this.
pub(crate) fn unauthorized(answer: Option<(Response, bool)>, body: &[u8]) -> TransportError {
    let detail = format!("HTTP {}", StatusCode::UNAUTHORIZED);
    match answer.map(|(response, _)| response.payload) {
        Some(ResponsePayload::Error(error)) => {
            TransportError::with_source(TransportErrorKind::Unauthorized, detail, error)
        }
        _ if body.is_empty() => TransportError::new(TransportErrorKind::Unauthorized, detail),
        _ => TransportError::new(
            TransportErrorKind::Unauthorized,
            format!("{detail}: {}", excerpt(body)),
        ),
    }
}

/// The error response for request `id` in an error body: one with that id (`true`), else an
/// id-less error, given that id (`false`).
pub(crate) fn error_answer(packet: Packet, id: &RequestId) -> Option<(Response, bool)> {
    let members = match packet {
        Packet::Single(message) => vec![message],
        Packet::Batch(members) => members.into_iter().filter_map(Result::ok).collect(),
    };
    let mut idless = None;
    for message in members {
        let Message::Response(response) = message else {
            continue;
        };
        match &response.id {
            Some(rid) if rid == id => return Some((response, true)),
            None if response.as_error().is_some() && idless.is_none() => {
                idless = Some(Response {
                    id: Some(id.clone()),
                    payload: response.payload,
                });
            }
            _ => {}
        }
    }
    idless.map(|response| (response, false))
}

fn expired() -> TransportError {
    TransportError::new(
        TransportErrorKind::Closed,
        "session expired: the server answered 404 for the session id; connect again to start a \
         new session",
    )
}

/// POSTs a notification, or a response to a server request; `202` (any 2xx) expected. Not
/// bounded in time here: the driver bounds the whole exchange, the body of a refusal included
/// (`Driver::answer`).
pub(crate) async fn notify(
    conn: &Conn,
    post: Post,
    what: &str,
    initialized: Option<u64>,
) -> Outcome {
    let session = post.carries_session();
    let headers = match post.headers {
        Ok(headers) => headers,
        Err(error) => {
            tracing::warn!(target: "presa_http", what, %error, "could not send a message");
            return Outcome::Done;
        }
    };
    match conn.post(&headers, post.body).await {
        Ok(response) if response.status().is_success() => match initialized {
            Some(generation) => Outcome::Initialized { generation },
            None => Outcome::Done,
        },
        Ok(response) if session && response.status() == StatusCode::NOT_FOUND => {
            Outcome::End(expired())
        }
        Ok(response) => {
            let status = describe_status(response.status(), &response);
            let body = read_body(response, ERROR_BODY_MAX)
                .await
                .unwrap_or_default();
            tracing::warn!(
                target: "presa_http",
                what,
                status,
                body = %excerpt(&body),
                "the server refused a message"
            );
            Outcome::Done
        }
        Err(error) => {
            tracing::warn!(target: "presa_http", what, %error, "could not send a message");
            Outcome::Done
        }
    }
}

fn messages_of(packet: Packet) -> Vec<Message> {
    match packet {
        Packet::Single(message) => vec![message],
        Packet::Batch(members) => members
            .into_iter()
            .filter_map(|member| {
                member
                    .map_err(|error| {
                        tracing::warn!(
                            target: "presa_http",
                            %error,
                            "skipping a batch member from the server"
                        );
                    })
                    .ok()
            })
            .collect(),
    }
}

/// Reads a body of at most `max` bytes.
pub(crate) async fn read_body(
    mut response: reqwest::Response,
    max: usize,
) -> Result<Vec<u8>, TransportError> {
    let too_large = || {
        TransportError::new(
            TransportErrorKind::Protocol,
            format!("the server's response body is larger than {max} bytes"),
        )
    };
    if response
        .content_length()
        .is_some_and(|len| len > max as u64)
    {
        return Err(too_large());
    }
    let mut body = Vec::new();
    loop {
        match response.chunk().await {
            Ok(Some(chunk)) => {
                if body.len() + chunk.len() > max {
                    return Err(too_large());
                }
                body.extend_from_slice(&chunk);
            }
            Ok(None) => return Ok(body),
            Err(e) => {
                return Err(TransportError::with_source(
                    TransportErrorKind::Io,
                    "reading the response failed",
                    e,
                ));
            }
        }
    }
}

/// Up to 200 characters of a body, on one line.
pub(crate) fn excerpt(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    let mut out = String::new();
    for (i, word) in text.split_whitespace().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(word);
        if out.chars().count() > EXCERPT_CHARS {
            break;
        }
    }
    if out.chars().count() > EXCERPT_CHARS {
        out = out.chars().take(EXCERPT_CHARS).collect();
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use presa_core::{ErrorCode, ErrorObject};

    use super::*;

    #[test]
    fn excerpts_are_one_short_line() {
        assert_eq!(excerpt(b"  not\n found \r\n"), "not found");
        let long = "x".repeat(500);
        let cut = excerpt(long.as_bytes());
        assert_eq!(cut.chars().count(), EXCERPT_CHARS + 1);
        assert!(cut.ends_with('…'));
    }

    #[test]
    fn an_error_body_answers_by_id_or_without_one() {
        let id = RequestId::from(7);
        let body = br#"{"jsonrpc":"2.0","id":7,"error":{"code":-32022,"message":"no"}}"#;
        let (response, exact) = error_answer(decode_packet(body, true).unwrap(), &id).unwrap();
        assert!(exact);
        assert_eq!(
            response.as_error().unwrap().code,
            ErrorCode::UNSUPPORTED_PROTOCOL_VERSION
        );

        let body = br#"{"jsonrpc":"2.0","error":{"code":-32001,"message":"Session not found"}}"#;
        let (response, exact) = error_answer(decode_packet(body, true).unwrap(), &id).unwrap();
        assert!(!exact);
        assert_eq!(response.id, Some(id.clone()));
        assert_eq!(
            response.as_error(),
            Some(&ErrorObject::new(ErrorCode(-32001), "Session not found"))
        );

        // another request's answer, or a request, is no answer
        let body = br#"{"jsonrpc":"2.0","id":8,"error":{"code":-32600,"message":"x"}}"#;
        assert!(error_answer(decode_packet(body, true).unwrap(), &id).is_none());
        let body = br#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#;
        assert!(error_answer(decode_packet(body, true).unwrap(), &id).is_none());
    }
}
