//! 2026-07-28 requests: each POST is a connection of the server's request runner for one
//! request, answered with JSON or, once the handler reports progress or logs, an SSE stream.
//! Every protocol check (headers, `_meta`, version, removed methods) is the runner's; this
//! module turns its messages into statuses and bodies.

use std::sync::Arc;

use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use presa_core::{
    Era, ErrorCode, ErrorObject, Message, Notification, ReceivedHeaders, Request, RequestId,
    ResponsePayload, http_status,
};
use presa_server::{Arrival, DrivenConnection, InsufficientScope, TransmitQueue};

use super::auth::insufficient_scope_response;
use super::shared::Shared;
use super::sse::{event, forward, json_response, sse_response};

/// Serves one 2026-07-28 request.
pub(crate) async fn request(
    shared: Shared,
    headers: &HeaderMap,
    request: Request,
    arrival: &Arrival,
) -> Response {
    let id = request.id.clone();
    let listen =
        request.method == <presa_core::SubscriptionsListen as presa_core::RequestMethod>::METHOD;
    let subject = shared.subject(headers, arrival.auth());
    let queue = TransmitQueue::new();
    let connection = DrivenConnection::new(shared.server.clone(), queue.clone());
    connection.handle_stateless_request(request, received(headers), arrival);
    // answered at once (a check failed, a sync tool, a listing): nothing to cancel or to keep
    let first = match queue.pop() {
        Some(transmit) if transmit.message.is_response() => return answer(transmit.message),
        first => first,
    };
    let connection = Arc::new(connection);
    let guard = RequestGuard::register(&shared, &connection, &queue, &id, subject, listen);
    let first = match first {
        Some(first) => Some(first),
        None => queue.next().await,
    };
    match first {
        Some(first) if first.message.is_response() => {
            drop(guard);
            answer(first.message)
        }
        Some(first) => stream(&shared, queue, first, guard),
        // stopped by a posted cancellation before it had anything to say
        None => answer(Message::Response(presa_core::Response::error(
            Some(id),
            ErrorObject::internal_error("the request was cancelled"),
        ))),
    }
}

/// The MCP headers of an HTTP request, as presa-core checks them.
pub(crate) fn received(headers: &HeaderMap) -> ReceivedHeaders {
    ReceivedHeaders::from_pairs(
        headers
            .iter()
            .map(|(name, value)| (name.as_str(), value.as_bytes())),
    )
}

/// The request's answer as one JSON body, with the status its outcome calls for.
fn answer(message: Message) -> Response {
    let Message::Response(response) = &message else {
        return json_response(StatusCode::OK, message.to_json());
    };
    let ResponsePayload::Error(error) = &response.payload else {
        return json_response(StatusCode::OK, message.to_json());
    };
    if let Some(needed) = InsufficientScope::from_error(error) {
        return insufficient_scope_response(message.to_json(), needed);
    }
    let status = StatusCode::from_u16(http_status(error.code, Era::Stateless))
        .unwrap_or(StatusCode::BAD_REQUEST);
    json_response(status, message.to_json())
}

/// A request still in flight while its answer is awaited or streamed: dropped with the
/// response, it stops the request (on 2026-07-28 a client closing the stream cancels it) and
/// forgets where the endpoint kept it.
struct RequestGuard {
    connection: Arc<DrivenConnection>,
    queue: TransmitQueue,
    id: RequestId,
    shared: Shared,
    /// The key of a posted cancellation, when the server takes them.
    subject: Option<String>,
    /// Its key among the requests being answered, which a drain ends or stops.
    key: u64,
}

impl RequestGuard {
    fn register(
        shared: &Shared,
        connection: &Arc<DrivenConnection>,
        queue: &TransmitQueue,
        id: &RequestId,
        subject: Option<String>,
        listen: bool,
    ) -> Self {
        if let Some(subject) = &subject {
            shared.remember_cancellable(subject, id, Arc::clone(connection), queue.clone());
        }
        let key = shared.remember_in_flight(Arc::clone(connection), queue.clone(), listen);
        Self {
            connection: Arc::clone(connection),
            queue: queue.clone(),
            id: id.clone(),
            shared: shared.clone(),
            subject,
            key,
        }
    }
}

impl Drop for RequestGuard {
    fn drop(&mut self) {
        self.connection.cancel(&self.id);
        // the forwarder of an abandoned stream stops waiting
        self.queue.close();
        if let Some(subject) = &self.subject {
            self.shared.forget_cancellable(subject, &self.id);
        }
        self.shared.forget_in_flight(self.key);
    }
}

/// The request's messages as an SSE stream: `first`, then the rest until its response.
fn stream(
    shared: &Shared,
    queue: TransmitQueue,
    first: presa_core::Transmit,
    guard: RequestGuard,
) -> Response {
    // the client going away drops the stream, and its guard closes the queue: either ends it
    let messages = futures_util::stream::unfold((Some(first), queue), |(first, queue)| async {
        let transmit = match first {
            Some(first) => first,
            None => queue.next().await?,
        };
        let last = transmit.message.is_response();
        let event = event(None, &transmit.message.to_json(), None);
        Some(((event, last), (None, queue)))
    });
    let events = forward(Vec::new(), Box::pin(messages));
    sse_response(events, Some(shared.options.keepalive), guard)
}

/// A posted notification on the 2026-07-28 path: accepted (202); a `notifications/cancelled`
/// stops a request of the same subject when the server allows that.
pub(crate) fn notification(
    shared: &Shared,
    headers: &HeaderMap,
    notification: Notification,
    arrival: &Arrival,
) -> Response {
    if notification.method == "notifications/cancelled"
        && let Some(subject) = shared.subject(headers, arrival.auth())
        && let Some(params) =
            presa_core::CancelledNotificationParams::from_raw(notification.params.as_ref())
        && let Some(id) = params.request_id
    {
        shared.cancel(&subject, &id);
    }
    // taken in by a connection of its own, as every message is: observed there (its span, its
    // duration); what the server does with a notification is done there too
    DrivenConnection::new(shared.server.clone(), TransmitQueue::new())
        .handle_stateless_notification(notification, arrival);
    accepted()
}

/// 202 Accepted, no body.
pub(crate) fn accepted() -> Response {
    axum::response::IntoResponse::into_response(StatusCode::ACCEPTED)
}

/// A parse or shape error before the era is known.
pub(crate) fn bad_message(
    code: ErrorCode,
    message: String,
    id: Option<RequestId>,
    status: StatusCode,
) -> Response {
    json_response(
        status,
        Message::Response(presa_core::Response::error(
            id,
            ErrorObject::new(code, message),
        ))
        .to_json(),
    )
}
