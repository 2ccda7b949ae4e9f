//! How the runner starts one request its session handed over: the handler's context, its
//! handling future, and the requests a session answers itself; and what the runner shares
//! between its connection shapes (panic guards, change announcements, answers to the server's
//! own requests).

use std::collections::HashSet;
use std::sync::Arc;

use presa_core::{
    ErrorObject, IncomingRequest, MAX_WATCHED_RESOURCES, Notification, RawJson, RequestError,
    RequestId, RequestMethod, ServerSession, SubscriptionsListen, watchable_resources,
};
use serde_json::Value;
use tracing::Instrument;

use crate::BoxFuture;
use crate::context::{Cancellation, Context, Peer};
use crate::events::{Change, list_changed_method};
use crate::input::InputError;
use crate::middleware::{McpRequest, McpResponse, Next};
use crate::server::Server;
use crate::telemetry;
use crate::transport::Arrival;

/// The resources an initialize-era session subscribed to, counting its changes (so that a
/// transport keeping session state elsewhere knows when to save it).
#[derive(Debug, Default)]
pub(crate) struct Subscriptions {
    uris: HashSet<String>,
    changes: u64,
}

impl Subscriptions {
    pub(crate) fn contains(&self, uri: &str) -> bool {
        self.uris.contains(uri)
    }

    pub(crate) fn changes(&self) -> u64 {
        self.changes
    }

    /// The URIs, sorted (a stable form for saved state).
    pub(crate) fn to_sorted(&self) -> Vec<String> {
        let mut uris: Vec<String> = self.uris.iter().cloned().collect();
        uris.sort_unstable();
        uris
    }

    /// Replaces the URIs with saved ones.
    pub(crate) fn replace(&mut self, uris: &[String]) {
        let uris: HashSet<String> = watchable_resources(uris).into_iter().collect();
        if uris != self.uris {
            self.uris = uris;
            self.changes += 1;
        }
    }

    /// Subscribes to `uri`, or unsubscribes from it. A subscription is held to the rule of
    /// [`watchable_resources`]: the empty string watches nothing, and a session watches at
    /// most [`MAX_WATCHED_RESOURCES`] (one more is refused until it unsubscribes from one).
    fn set(&mut self, uri: String, subscribed: bool) -> Result<(), ErrorObject> {
        let changed = if subscribed {
            if watchable_resources(std::slice::from_ref(&uri)).is_empty() {
                return Err(ErrorObject::invalid_params(
                    "Invalid params: uri must not be empty",
                ));
            }
            if self.uris.len() >= MAX_WATCHED_RESOURCES && !self.uris.contains(&uri) {
                return Err(ErrorObject::invalid_params(format!(
                    "Invalid params: a session subscribes to at most {MAX_WATCHED_RESOURCES} \
                     resources; unsubscribe from one first"
                )));
            }
            self.uris.insert(uri)
        } else {
            self.uris.remove(&uri)
        };
        if changed {
            self.changes += 1;
        }
        Ok(())
    }
}

/// What a connection does with a request its session handed over.
pub(crate) enum Opened {
    /// Answered already: an initialize-era `resources/subscribe` or `unsubscribe`, whose
    /// subscriptions live with the connection.
    Answered(RequestId, Result<RawJson, ErrorObject>),
    /// To be handled.
    Handling(Handling),
}

/// A request's handling, ready to be polled, with what the connection keeps of it.
pub(crate) struct Handling {
    pub(crate) id: RequestId,
    /// The dispatcher's answer to it, not yet polled.
    pub(crate) handling: BoxFuture<'static, Result<RawJson, ErrorObject>>,
    pub(crate) cancellation: Cancellation,
    /// Whether it is a 2026-07-28 `subscriptions/listen`, which never ends by itself.
    pub(crate) listen: bool,
}

/// Opens a request: its context (with what the transport knows of it) and its
/// handling, or its answer when the connection serves it itself. The definitions snapshot is
/// read here, once, and the request is served from it to the end.
pub(crate) fn open_request(
    server: &Server,
    subscribed: &mut Subscriptions,
    request: IncomingRequest,
    peer: &Arc<dyn Peer>,
    arrival: &Arrival,
) -> Opened {
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
    if request.client.protocol_version.era() == presa_core::Era::Initialize
        && let Some(result) = observed.span().in_scope(|| {
            subscription_request(
                server,
                subscribed,
                &request.method,
                request.params.as_deref(),
            )
        })
    {
        observed.end(&result, false, None);
        return Opened::Answered(request.id, result);
    }
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
    Opened::Handling(Handling {
        id: request.id,
        handling,
        cancellation,
        listen,
    })
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
pub(crate) fn announce(
    server: &Server,
    session: &mut ServerSession,
    subscribed: &Subscriptions,
    change: Change,
) {
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
        Change::ResourceUpdated(uri) if subscribed.contains(&uri) => {
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

/// Serves `resources/subscribe` and `resources/unsubscribe` of an initialize-era session, whose
/// subscriptions live with the connection: answered here, before the middleware stack (as
/// docs/middleware.md says). `None` when the request is not one of them.
pub(crate) fn subscription_request(
    server: &Server,
    subscribed: &mut Subscriptions,
    method: &str,
    params: Option<&serde_json::value::RawValue>,
) -> Option<Result<RawJson, ErrorObject>> {
    let subscribe = match method {
        "resources/subscribe" => true,
        "resources/unsubscribe" => false,
        _ => return None,
    };
    if !server.supports_subscriptions() {
        return None;
    }
    let uri = match presa_core::parse_params::<presa_core::SubscribeRequestParams>(params) {
        Ok(params) => params.uri,
        Err(error) => {
            return Some(Err(error));
        }
    };
    if let Err(error) = subscribed.set(uri, subscribe) {
        return Some(Err(error));
    }
    Some(
        presa_core::to_raw(&serde_json::Map::new())
            .map_err(|e| ErrorObject::internal_error(e.to_string())),
    )
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
