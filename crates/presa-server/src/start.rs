//! How the runner starts one request its session handed over: the handler's context and its
//! handling future; and what the runner shares between its connection shapes (panic guards,
//! change announcements, answers to the server's own requests).

use std::sync::Arc;

use presa_core::{
    ClientContext, ErrorObject, IncomingRequest, Notification, RawJson, RequestError, RequestId,
    RequestMeta, RequestMethod, ServerSession, SubscriptionsListen,
};
use serde_json::Value;
use tracing::Instrument;

use crate::BoxFuture;
use crate::context::{Cancellation, Context, Peer, SessionPeer};
use crate::events::{Change, list_changed_method};
use crate::input::InputError;
use crate::middleware::{McpRequest, McpResponse, Next};
use crate::server::Server;
use crate::telemetry;
use crate::transport::Arrival;

/// A request's handling, ready to be polled, with what the connection keeps of it.
pub(crate) struct Handling {
    pub(crate) id: RequestId,
    /// The dispatcher's answer to it, not yet polled.
    pub(crate) handling: BoxFuture<'static, Result<RawJson, ErrorObject>>,
    pub(crate) cancellation: Cancellation,
    /// Whether it is a 2026-07-28 `subscriptions/listen`, which never ends by itself.
    pub(crate) listen: bool,
}

/// Opens a request: its context (with what the transport knows of it) and its handling. The
/// definitions snapshot is read here, once, and the request is served from it to the end.
pub(crate) fn open_request(
    server: &Server,
    request: IncomingRequest,
    peer: &Arc<dyn Peer>,
    arrival: &Arrival,
) -> Handling {
    let observed = crate::observe::Observed::start(
        server,
        &telemetry::Spanned {
            method: &request.method,
            id: Some(&request.id),
            version: Some(request.client.protocol_version),
            params: request.params.as_deref(),
            meta: request.meta.as_ref(),
            arrival,
        },
    );
    let cancellation = Cancellation::new();
    let cx = Context::new(
        request.id.clone(),
        request.client,
        request.meta,
        Arc::clone(peer),
        cancellation.clone(),
        arrival.clone(),
        request.headers,
        Some(server.clone()),
    );
    let listen = request.method == SubscriptionsListen::METHOD;
    let definitions = server.snapshot();
    let (server, method, params) = (server.clone(), request.method, request.params);
    // the request's span holds its handling: a handler's own spans and events nest in it
    let span = observed.span().clone();
    let handling = if server.inner.stack.is_empty() {
        boxed_in(span, async move {
            let response = server
                .dispatch(&definitions, &method, params.as_deref(), cx)
                .await;
            ended_with(observed, response)
        })
    } else {
        let stack = Arc::clone(&server.inner.stack);
        let request = McpRequest::new(method, params, cx, definitions);
        boxed_in(span, async move {
            let response = Next::new(server, stack).run(request).await;
            ended_with(observed, response)
        })
    };
    Handling {
        id: request.id,
        handling,
        cancellation,
        listen,
    }
}

/// Opens a notification an extension's handler takes (`None` when no handler does): the
/// handler's future, with a context of the client `client` describes (the session's handshake,
/// else what the notification's own `_meta` says, else the newest revision with no
/// capabilities). A notification has no id: its context's [`request_id`] is 0, and what its
/// handler sends goes to the session as a whole ([`SessionPeer`]). `ended` gives its context's
/// cancellation (asked for only when a handler takes the notification): when it fires, the
/// handler is dropped at its next wait.
///
/// [`request_id`]: Context::request_id
pub(crate) fn open_notification(
    server: &Server,
    notification: Notification,
    client: Option<&ClientContext>,
    peer: &Arc<dyn Peer>,
    ended: impl FnOnce() -> Cancellation,
    arrival: &Arrival,
) -> Option<BoxFuture<'static, ()>> {
    let handler = server
        .inner
        .options
        .extensions
        .notifications
        .get(&notification.method)?;
    let meta = presa_core::params_meta(notification.params.as_deref());
    let client = client.cloned().unwrap_or_else(|| {
        // from the `_meta` read above, not a second reading of the params
        let sent = meta
            .as_ref()
            .and_then(|meta| RequestMeta::from_meta(meta).ok());
        ClientContext {
            protocol_version: sent
                .as_ref()
                .and_then(|meta| meta.protocol_version.parse().ok())
                .unwrap_or(presa_core::ProtocolVersion::LATEST),
            capabilities: sent
                .as_ref()
                .map(|meta| meta.client_capabilities.clone())
                .unwrap_or_default(),
            client_info: sent.and_then(|meta| meta.client_info),
        }
    });
    let ended = ended();
    let cx = Context::for_notification(
        Arc::new(client),
        meta,
        Arc::new(SessionPeer(Arc::clone(peer))),
        ended.clone(),
        arrival.clone(),
        server.clone(),
    );
    // the handler is called on the first poll, out of the connection's lock
    let handler = Arc::clone(handler);
    let params = notification.params;
    let taking: BoxFuture<'static, ()> =
        Box::pin(async move { handler.notify(params.as_deref(), cx).await });
    Some(Box::pin(async move {
        tokio::select! {
            biased;
            caught = crate::catch::catch_unwind(taking) => if let Err(panic) = caught {
                tracing::warn!(error = %panic, "a notification handler panicked");
            },
            () = ended.cancelled() => {}
        }
    }))
}

/// `handling`, boxed, inside `span` when a subscriber wants it: a disabled span would still be
/// entered and exited on every poll, and once more when dropped, for nothing.
fn boxed_in(
    span: tracing::Span,
    handling: impl Future<Output = Result<RawJson, ErrorObject>> + Send + 'static,
) -> BoxFuture<'static, Result<RawJson, ErrorObject>> {
    if span.is_disabled() {
        Box::pin(handling)
    } else {
        Box::pin(handling.instrument(span))
    }
}

/// A request's answer, recorded as its end.
fn ended_with(
    observed: crate::observe::Observed,
    response: McpResponse,
) -> Result<RawJson, ErrorObject> {
    let tool_error = response.is_tool_error();
    let (result, served) = response.into_parts();
    observed.end(&result, tool_error, served.as_ref());
    result
}

/// Runs a request's handling to its end on a task: a panic on the way (handlers' own panics are
/// already tool errors; this catches the rest, such as a handler object that panics before it
/// returns its future) is an internal error, so a request never goes unanswered.
pub(crate) async fn guarded(
    handling: BoxFuture<'static, Result<RawJson, ErrorObject>>,
) -> Result<RawJson, ErrorObject> {
    crate::catch::catch_unwind(handling)
        .await
        .unwrap_or_else(|panic| Err(ErrorObject::internal_error(panic)))
}

/// Polls a request's handling once; its result if it finished (a panic is an internal error,
/// as in [`guarded`]). A future left pending is polled again, with a real waker, by the task it
/// moves to, so nothing it waits for is missed.
pub(crate) fn poll_once(
    handling: &mut BoxFuture<'static, Result<RawJson, ErrorObject>>,
) -> Option<Result<RawJson, ErrorObject>> {
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    let polled = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        handling.as_mut().poll(&mut cx)
    }));
    match polled {
        Ok(std::task::Poll::Ready(output)) => Some(output),
        Ok(std::task::Poll::Pending) => None,
        Err(payload) => Some(Err(ErrorObject::internal_error(
            crate::catch::panic_message(&*payload),
        ))),
    }
}
/// Tells an initialized initialize-era peer of a change it listens for: list changes when the
/// server announces them, resource updates for the URIs it subscribed to.
pub(crate) fn announce(server: &Server, session: &mut ServerSession, change: Change) {
    if matches!(change, Change::ListChanged(_)) {
        session.set_config(server.shared_session_config());
    }
    if session.initialize_era_client().is_none() {
        return;
    }
    let notification = match change {
        Change::ListChanged(kind) if server.notifies_list_changes() => {
            Notification::without_params(list_changed_method(kind))
        }
        Change::ResourceUpdated(uri) if session.is_subscribed(&uri) => {
            match Notification::new(
                "notifications/resources/updated",
                &serde_json::json!({ "uri": uri }),
            ) {
                Ok(notification) => notification,
                Err(_) => return,
            }
        }
        _ => return,
    };
    session.notify(notification, None);
}

/// What a handler waiting on a server→client request gets.
pub(crate) fn answer_of(outcome: Result<RawJson, RequestError>) -> Result<Value, InputError> {
    match outcome {
        Ok(raw) => {
            serde_json::from_str(raw.get()).map_err(|e| InputError::InvalidAnswer(e.to_string()))
        }
        Err(RequestError::Peer(error)) => Err(InputError::Rejected(error)),
        Err(other) => Err(InputError::Unavailable(other.to_string())),
    }
}
