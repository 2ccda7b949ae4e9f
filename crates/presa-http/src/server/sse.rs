//! Server-sent events: framing, and a streaming response body fed from a channel.

use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures_util::{Stream, StreamExt};
use tokio::sync::mpsc;
use tokio::time::{Instant, MissedTickBehavior, interval_at};

/// One SSE event; JSON-RPC messages are written compactly, so `data` is always one line.
pub(crate) fn event(id: Option<&str>, data: &str, retry: Option<Duration>) -> Bytes {
    let mut out = String::with_capacity(data.len() + 32);
    if let Some(retry) = retry {
        out.push_str("retry: ");
        out.push_str(&retry.as_millis().to_string());
        out.push('\n');
    }
    if let Some(id) = id {
        out.push_str("id: ");
        out.push_str(id);
        out.push('\n');
    }
    out.push_str("data: ");
    out.push_str(data);
    out.push_str("\n\n");
    Bytes::from(out)
}

const KEEPALIVE: &[u8] = b": keepalive\n\n";

/// Feeds an SSE body on a task of its own: the events `ready` at once, then each one `live`
/// yields, until it ends or yields one marked last (the response that ends a request's
/// stream). The client going away (the body dropped) ends the task at once, not at the next
/// event, so that what the stream holds is let go.
pub(crate) fn forward<S>(ready: Vec<Bytes>, mut live: S) -> mpsc::Receiver<Bytes>
where
    S: Stream<Item = (Bytes, bool)> + Send + Unpin + 'static,
{
    let (events_tx, events) = mpsc::channel::<Bytes>(64);
    tokio::spawn(async move {
        for bytes in ready {
            if events_tx.send(bytes).await.is_err() {
                return;
            }
        }
        loop {
            let next = tokio::select! {
                next = live.next() => next,
                () = events_tx.closed() => return,
            };
            let Some((bytes, last)) = next else { return };
            if events_tx.send(bytes).await.is_err() || last {
                return;
            }
        }
    });
    events
}

/// An SSE response whose events come from `events`; the stream ends when the channel closes.
/// `keep` is dropped with the body (when the client goes away or the stream ends): put what must
/// stop with the stream there. With `keepalive`, an idle stream gets a comment that often.
pub(crate) fn sse_response<K: Send + 'static>(
    events: mpsc::Receiver<Bytes>,
    keepalive: Option<Duration>,
    keep: K,
) -> Response {
    let ticks = keepalive.map(|every| {
        let mut ticks = interval_at(Instant::now() + every, every);
        ticks.set_missed_tick_behavior(MissedTickBehavior::Delay);
        ticks
    });
    let state = (events, ticks, keep);
    let stream = futures_util::stream::unfold(state, |(mut events, mut ticks, keep)| async move {
        let next = match ticks.as_mut() {
            Some(ticks) => tokio::select! {
                event = events.recv() => event,
                _ = ticks.tick() => Some(Bytes::from_static(KEEPALIVE)),
            },
            None => events.recv().await,
        };
        next.map(|bytes| {
            (
                Ok::<_, std::convert::Infallible>(bytes),
                (events, ticks, keep),
            )
        })
    });
    let mut response = (StatusCode::OK, Body::from_stream(stream)).into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert("x-accel-buffering", HeaderValue::from_static("no"));
    response.extensions_mut().insert(SseBody);
    response
}

/// The mark of a response [`sse_response`] made: its body is a stream that goes on after the
/// handler returned.
#[derive(Clone, Copy)]
struct SseBody;

/// Whether `response` is an SSE stream made here (not a JSON answer or a refusal).
pub(crate) fn is_stream(response: &Response) -> bool {
    response.extensions().get::<SseBody>().is_some()
}

/// A JSON response.
pub(crate) fn json_response(status: StatusCode, body: String) -> Response {
    // built whole: no text/plain type set first only to be replaced
    let mut response = Response::new(Body::from(body));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_are_framed_on_single_lines() {
        assert_eq!(&event(None, "{}", None)[..], b"data: {}\n\n");
        assert_eq!(
            &event(Some("3-1"), "", Some(Duration::from_millis(500)))[..],
            b"retry: 500\nid: 3-1\ndata: \n\n"
        );
    }
}
