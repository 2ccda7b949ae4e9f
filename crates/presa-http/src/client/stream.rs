//! Reading event streams: a request's SSE response (resumed with `Last-Event-ID` in the
//! initialize era), and the session's GET stream.

use std::time::Duration;

use presa_client::{TransportError, TransportErrorKind};
use presa_core::{Era, Message, Packet, decode_packet};
use reqwest::StatusCode;
use tokio::sync::oneshot;

use super::conn::{Conn, RequestCtx};
use super::sse::{SseEvent, SseParser, TooLarge};
use presa_core::ErrorReport;

/// The reconnection delay when the server gave no `retry`.
const DEFAULT_RETRY: Duration = Duration::from_secs(1);
/// The shortest reconnection delay, whatever `retry` says.
const MIN_RETRY: Duration = Duration::from_millis(100);
/// The longest reconnection delay, whatever `retry` says.
const MAX_RETRY: Duration = Duration::from_secs(600);
/// Reconnections in a row that bring no event before giving up.
const MAX_IDLE_RECONNECTS: u32 = 3;

/// How reading a stream ended.
#[derive(Debug)]
pub(crate) enum StreamEnd {
    /// The response to the stream's request arrived.
    Answered,
    /// The stream ended (cleanly or not) before that.
    Ended,
    /// The stream cannot go on.
    Failed(TransportError),
    /// The client is gone.
    Gone,
}

/// Whether a response's `Content-Type` is `text/event-stream`.
pub(crate) fn is_event_stream(response: &reqwest::Response) -> bool {
    media_type(response).as_deref() == Some("text/event-stream")
}

/// The media type of a response, lowercased, without parameters.
pub(crate) fn media_type(response: &reqwest::Response) -> Option<String> {
    let value = response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)?
        .to_str()
        .ok()?;
    let essence = value.split(';').next()?.trim();
    Some(essence.to_ascii_lowercase())
}

/// Reads events from one HTTP response, delivering the JSON-RPC messages they carry, until the
/// response to `ctx` (if any) arrives or the stream ends.
pub(crate) async fn read_events(
    conn: &Conn,
    mut response: reqwest::Response,
    parser: &mut SseParser,
    ctx: Option<&RequestCtx>,
) -> StreamEnd {
    let mut events = Vec::new();
    loop {
        let chunk = match response.chunk().await {
            Ok(Some(chunk)) => chunk,
            Ok(None) => return StreamEnd::Ended,
            Err(e) => {
                tracing::debug!(target: "presa_http", error = %ErrorReport(&e), "event stream broke");
                return StreamEnd::Ended;
            }
        };
        if let Err(TooLarge { max }) = parser.push(&chunk, &mut events) {
            return StreamEnd::Failed(TransportError::new(
                TransportErrorKind::Protocol,
                format!("the server sent an SSE event larger than {max} bytes"),
            ));
        }
        for event in events.drain(..) {
            let bytes = event.data.len();
            let messages = decode_event(event);
            let share = bytes / messages.len().max(1);
            for message in messages {
                let answered = matches!(
                    (&message, ctx),
                    (Message::Response(r), Some(ctx)) if r.id.as_ref() == Some(&ctx.id)
                );
                if !conn.deliver(message, share).await {
                    return StreamEnd::Gone;
                }
                if answered {
                    return StreamEnd::Answered;
                }
            }
        }
    }
}

/// The messages of one event: none for a priming event, an event of another type, or data
/// that is not JSON-RPC (logged).
pub(crate) fn decode_event(event: SseEvent) -> Vec<Message> {
    if event.event != "message" {
        // SSE lets a stream carry events of other types; skipping them is what a reader does
        tracing::debug!(
            target: "presa_http",
            event = event.event,
            "ignoring an SSE event whose type is not message"
        );
        return Vec::new();
    }
    if event.data.trim().is_empty() {
        return Vec::new();
    }
    match decode_packet(event.data.as_bytes(), true) {
        Ok(Packet::Single(message)) => vec![message],
        Ok(Packet::Batch(members)) => members
            .into_iter()
            .filter_map(|member| match member {
                Ok(message) => Some(message),
                Err(error) => {
                    tracing::warn!(
                        target: "presa_http",
                        %error,
                        "skipping a batch member from the server"
                    );
                    None
                }
            })
            .collect(),
        Err(error) => {
            tracing::warn!(
                target: "presa_http",
                %error,
                "skipping an SSE event that is not JSON-RPC"
            );
            Vec::new()
        }
    }
}

/// Serves a request answered with an event stream: delivers what it carries and, when it ends
/// early, resumes it (initialize era, event ids) or fails the request.
pub(crate) async fn answer(conn: &Conn, response: reqwest::Response, ctx: &RequestCtx) {
    let mut parser = SseParser::new(conn.max_message_bytes);
    let mut end = read_events(conn, response, &mut parser, Some(ctx)).await;
    let mut idle = 0;
    loop {
        match end {
            StreamEnd::Answered | StreamEnd::Gone => return,
            StreamEnd::Failed(error) => return conn.fail(&ctx.id, error).await,
            StreamEnd::Ended => {}
        }
        let ended = |detail: &str| {
            TransportError::new(
                TransportErrorKind::Io,
                format!("the response stream ended before the response: {detail}"),
            )
        };
        if ctx.era == Era::Stateless {
            let error =
                ended("2026-07-28 streams cannot be resumed; send the request again with a new id");
            return conn.fail(&ctx.id, error).await;
        }
        let Some(last_event_id) = parser.last_event_id().map(str::to_owned) else {
            let error = ended("the server sent no event id to resume from");
            return conn.fail(&ctx.id, error).await;
        };
        if conn.generation() != ctx.generation {
            let error = ended("the session was replaced by a new initialize");
            return conn.fail(&ctx.id, error).await;
        }
        tokio::time::sleep(reconnect_delay(parser.retry(), idle)).await;
        let seen = parser.blocks();
        end = match conn.get(Some(&last_event_id)).await {
            Ok(response) if response.status().is_success() && is_event_stream(&response) => {
                parser.reconnect();
                read_events(conn, response, &mut parser, Some(ctx)).await
            }
            Ok(response) => {
                let error = TransportError::new(
                    TransportErrorKind::Protocol,
                    format!(
                        "resuming the response stream failed: {}",
                        describe_status(response.status(), &response)
                    ),
                );
                return conn.fail(&ctx.id, error).await;
            }
            Err(error) if idle + 1 >= MAX_IDLE_RECONNECTS => {
                return conn.fail(&ctx.id, error).await;
            }
            Err(_) => StreamEnd::Ended,
        };
        if parser.blocks() == seen {
            idle += 1;
            if idle >= MAX_IDLE_RECONNECTS && matches!(end, StreamEnd::Ended) {
                let error = ended(&format!(
                    "{idle} reconnections in a row brought no event; giving up"
                ));
                return conn.fail(&ctx.id, error).await;
            }
        } else {
            idle = 0;
        }
    }
}

/// The session's GET stream (initialize era): server requests and notifications outside any
/// request. Reconnects when it ends (with `Last-Event-ID` when the server sent ids); stops on an
/// error status (405: the server offers none), or after reconnections that bring nothing.
/// `opened` fires once the first GET has its response (or failed).
pub(crate) async fn listen(conn: &Conn, generation: u64, opened: oneshot::Sender<()>) {
    let mut parser = SseParser::new(conn.max_message_bytes);
    let mut idle = 0;
    let mut opened = Some(opened);
    loop {
        let last_event_id = parser.last_event_id().map(str::to_owned);
        let response = conn.get(last_event_id.as_deref()).await;
        if let Some(opened) = opened.take() {
            let _ = opened.send(());
        }
        match response {
            Ok(response) if response.status() == StatusCode::METHOD_NOT_ALLOWED => {
                tracing::debug!(target: "presa_http", "the server offers no GET stream (405)");
                return;
            }
            Ok(response) if !response.status().is_success() || !is_event_stream(&response) => {
                let status = describe_status(response.status(), &response);
                tracing::warn!(target: "presa_http", status, "the server refused the GET stream");
                return;
            }
            Ok(response) => {
                let seen = parser.blocks();
                parser.reconnect();
                match read_events(conn, response, &mut parser, None).await {
                    StreamEnd::Gone => return,
                    StreamEnd::Failed(error) => {
                        tracing::warn!(target: "presa_http", %error, "dropping the GET stream");
                        return;
                    }
                    StreamEnd::Answered | StreamEnd::Ended => {}
                }
                if parser.blocks() == seen {
                    idle += 1;
                } else {
                    idle = 0;
                }
            }
            Err(error) => {
                idle += 1;
                tracing::debug!(target: "presa_http", %error, "GET stream failed");
            }
        }
        if idle >= MAX_IDLE_RECONNECTS {
            tracing::warn!(
                target: "presa_http",
                connections = idle,
                "giving up on the GET stream: connections in a row brought no event"
            );
            return;
        }
        if conn.generation() != generation {
            return;
        }
        tokio::time::sleep(reconnect_delay(parser.retry(), idle)).await;
    }
}

/// The server's `retry`, or 1 s doubling with each idle reconnection; between 100 ms and
/// 10 minutes.
fn reconnect_delay(retry: Option<Duration>, idle: u32) -> Duration {
    retry
        .unwrap_or_else(|| DEFAULT_RETRY * 2u32.saturating_pow(idle.min(5)))
        .clamp(MIN_RETRY, MAX_RETRY)
}

/// `HTTP 405 Method Not Allowed`, with the content type when it is not an event stream.
pub(crate) fn describe_status(status: StatusCode, response: &reqwest::Response) -> String {
    let mut text = format!("HTTP {status}");
    if status.is_success() {
        match media_type(response) {
            Some(media) => text.push_str(&format!(" with content type {media}")),
            None => text.push_str(" without a content type"),
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reconnect_delays_follow_retry_with_a_floor_and_back_off_without() {
        let ms = Duration::from_millis;
        assert_eq!(reconnect_delay(Some(ms(500)), 0), ms(500));
        assert_eq!(reconnect_delay(Some(ms(500)), 2), ms(500));
        assert_eq!(reconnect_delay(Some(ms(0)), 0), MIN_RETRY);
        assert_eq!(reconnect_delay(Some(ms(u64::MAX)), 0), MAX_RETRY);
        assert_eq!(reconnect_delay(None, 0), ms(1000));
        assert_eq!(reconnect_delay(None, 2), ms(4000));
        assert_eq!(reconnect_delay(None, 40), ms(32000));
    }
}
