//! The fallback to the deprecated 2024-11-05 HTTP+SSE transport (<https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#backwards-compatibility>): when `initialize` is refused with 400, 404 or 405 and no JSON-RPC answer, GET the
//! URL; if its first event is `endpoint`, every message is POSTed there from then on and
//! everything the server says arrives on that one stream.

use presa_client::{TransportError, TransportErrorKind};
use presa_core::RequestId;
use reqwest::header::HeaderMap;
use reqwest::{StatusCode, Url};

use super::conn::{Conn, RequestCtx};
use super::post::{ERROR_BODY_MAX, Outcome, Post, error_answer, excerpt, read_body, unauthorized};
use super::sse::{SseParser, TooLarge};
use super::stream::{decode_event, is_event_stream};
use presa_core::ErrorReport;

/// Tries the HTTP+SSE transport for a refused `initialize`; fails it with `refused` when the
/// server does not speak it either. Runs for as long as the stream stays open.
pub(crate) async fn fallback(
    conn: &Conn,
    ctx: RequestCtx,
    body: Vec<u8>,
    refused: TransportError,
) -> Outcome {
    let mut response = match conn.get(None).await {
        Ok(response) if response.status().is_success() && is_event_stream(&response) => response,
        _ => {
            conn.fail(&ctx.id, refused).await;
            return Outcome::Done;
        }
    };
    let mut parser = SseParser::new(conn.max_message_bytes);
    let mut events = Vec::new();
    let mut endpoint: Option<Url> = None;
    let mut init = Some(body);
    loop {
        let chunk = match response.chunk().await {
            Ok(Some(chunk)) => chunk,
            Ok(None) => break,
            Err(e) => {
                tracing::debug!(target: "presa_http", error = %ErrorReport(&e), "HTTP+SSE stream broke");
                break;
            }
        };
        if let Err(TooLarge { max }) = parser.push(&chunk, &mut events) {
            return Outcome::End(TransportError::new(
                TransportErrorKind::Protocol,
                format!("the server sent an SSE event larger than {max} bytes"),
            ));
        }
        for event in events.drain(..) {
            if endpoint.is_none() {
                // The first event must name the endpoint, on the same origin.
                let url = (event.event == "endpoint")
                    .then(|| conn.url.join(event.data.trim()).ok())
                    .flatten()
                    .filter(|url| url.origin() == conn.url.origin());
                let Some(url) = url else {
                    conn.fail(&ctx.id, refused).await;
                    return Outcome::Done;
                };
                conn.set_sse_endpoint(ctx.generation, url.clone());
                if let Some(init) = init.take() {
                    let post = Post {
                        headers: Ok(HeaderMap::new()),
                        body: init,
                    };
                    if !send(conn, &url, post, Some(&ctx.id), "initialize").await {
                        return Outcome::Done;
                    }
                }
                endpoint = Some(url);
                continue;
            }
            let bytes = event.data.len();
            let messages = decode_event(event);
            let share = bytes / messages.len().max(1);
            for message in messages {
                if !conn.deliver(message, share).await {
                    return Outcome::Done;
                }
            }
        }
    }
    if endpoint.is_none() {
        conn.fail(&ctx.id, refused).await;
        return Outcome::Done;
    }
    Outcome::End(TransportError::new(
        TransportErrorKind::Closed,
        "the server closed its HTTP+SSE stream",
    ))
}

/// POSTs a message to the HTTP+SSE endpoint; its answer, if any, comes on the stream. A
/// refused request fails (or gets the JSON-RPC error of the body); a refused notification or
/// response is logged. `false` when a request failed. Not bounded in time here: the driver
/// bounds a notification's or response's (`Driver::answer`).
pub(crate) async fn send(
    conn: &Conn,
    url: &Url,
    post: Post,
    request: Option<&RequestId>,
    what: &str,
) -> bool {
    let headers = post.headers.unwrap_or_default();
    let error = match conn.post_to(url, &headers, post.body).await {
        Ok(response) if response.status().is_success() => return true,
        Ok(response) => {
            let status = response.status();
            let body = read_body(response, ERROR_BODY_MAX)
                .await
                .unwrap_or_default();
            let answer = request.and_then(|id| {
                presa_core::decode_packet(&body, true)
                    .ok()
                    .and_then(|packet| error_answer(packet, id))
            });
            if status == StatusCode::UNAUTHORIZED {
                unauthorized(answer, &body)
            } else if let Some((answer, _)) = answer {
                let _ = conn.deliver(answer.into(), body.len()).await;
                return false;
            } else {
                let mut detail = format!("HTTP {status}");
                if !body.is_empty() {
                    detail.push_str(": ");
                    detail.push_str(&excerpt(&body));
                }
                TransportError::new(TransportErrorKind::Protocol, detail)
            }
        }
        Err(error) => error,
    };
    match request {
        Some(id) => conn.fail(id, error).await,
        None => tracing::warn!(
            target: "presa_http",
            what,
            %error,
            "the server refused a message"
        ),
    }
    false
}
