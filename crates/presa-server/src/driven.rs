//! A connection without a task of its own, driven by its transport's calls: what an
//! initialize-era HTTP session is, so that an idle session costs a few hundred bytes instead of
//! two tasks and their channels.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};

use presa_core::{
    ClientContext, ErrorObject, LoggingLevel, Message, Notification, RawJson, RequestId,
    RequestOptions, ServerEvent, ServerSession, Transmit,
};
use serde_json::Value;
use tokio::sync::oneshot;
use tokio::task::AbortHandle;
use tokio::time::Instant;

use crate::auth::AuthInfo;
use crate::connection::{Start, Started, announce, answer_of, guarded, start};
use crate::context::{BoxFuture, Cancellation, Peer};
use crate::events::Change;
use crate::input::InputError;
use crate::server::Server;

/// Where a [`DrivenConnection`] sends its messages: any `Fn(Transmit)`, or a type that can also
/// close a request's response stream early.
pub trait Outbox: Send + Sync + 'static {
    /// Sends one message. Called with the connection's state locked, in the order the messages
    /// are produced, so it must not call back into the connection.
    fn send(&self, transmit: Transmit);

    /// Ends the response stream of `related` early, where the client can resume it (see
    /// [`Context::close_stream`](crate::Context::close_stream)); whether it did. By default it cannot.
    fn close_stream(&self, related: &RequestId) -> bool {
        let _ = related;
        false
    }
}

impl<F: Fn(Transmit) + Send + Sync + 'static> Outbox for F {
    fn send(&self, transmit: Transmit) {
        self(transmit);
    }
}

/// One peer's session served without a task of its own: the transport hands it each message
/// with [`DrivenConnection::handle`], and everything the server sends goes to the outbox given
/// at creation. Each request runs on its own tokio task while it is in flight; between requests
/// the connection is only its state.
///
/// This is what an initialize-era Streamable HTTP session is built on, where every message
/// arrives on a request of its own; a transport with a byte stream (stdio) uses
/// [`serve_connection`](crate::serve_connection) instead.
///
/// ```
/// use std::sync::{Arc, Mutex};
/// use presa_core::decode_message;
/// use presa_server::{DrivenConnection, Server};
///
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let server = Server::builder("demo", "1.0.0").build().unwrap();
/// let sent = Arc::new(Mutex::new(Vec::new()));
/// let outbox = Arc::clone(&sent);
/// let connection = DrivenConnection::new(server, move |transmit: presa_core::Transmit| {
///     outbox.lock().unwrap().push(transmit.message.to_json());
/// });
/// let initialize = decode_message(br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{
///     "protocolVersion":"2025-06-18","capabilities":{},
///     "clientInfo":{"name":"c","version":"1"}}}"#).unwrap();
/// connection.handle(initialize, None);
/// assert!(sent.lock().unwrap()[0].contains(r#""protocolVersion":"2025-06-18""#));
/// # });
/// ```
pub struct DrivenConnection {
    inner: Arc<Driven>,
}

impl fmt::Debug for DrivenConnection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = self.inner.state();
        f.debug_struct("DrivenConnection")
            .field("client", &state.session.initialize_era_client())
            .field("in_flight", &state.in_flight.len())
            .field("closed", &self.inner.is_closed())
            .finish_non_exhaustive()
    }
}

struct Driven {
    server: Server,
    peer: Arc<dyn Peer>,
    outbox: Box<dyn Outbox>,
    /// Outside the state's lock, so that dropping the connection never waits for it (the outbox
    /// may hold the last reference to the connection's owner while the state is locked).
    closed: AtomicBool,
    state: Mutex<State>,
}

struct State {
    session: ServerSession,
    in_flight: HashMap<RequestId, (AbortHandle, Cancellation)>,
    /// Server→client requests waiting for the client's answer.
    waiting: HashMap<RequestId, oneshot::Sender<Result<Value, InputError>>>,
    /// Initialize-era resource subscriptions.
    subscribed: HashSet<String>,
    /// 2026-07-28 `subscriptions/listen` requests in flight: they never end by themselves, so
    /// closing the connection ends them.
    listens: HashSet<RequestId>,
}

impl DrivenConnection {
    /// A connection serving `server`, sending through `outbox`.
    pub fn new(server: Server, outbox: impl Outbox) -> Self {
        let session = ServerSession::new(server.shared_session_config());
        let inner = Arc::new_cyclic(|weak: &Weak<Driven>| Driven {
            server,
            peer: Arc::new(DrivenPeer {
                driven: weak.clone(),
            }),
            outbox: Box::new(outbox),
            closed: AtomicBool::new(false),
            state: Mutex::new(State {
                session,
                in_flight: HashMap::new(),
                waiting: HashMap::new(),
                subscribed: HashSet::new(),
                listens: HashSet::new(),
            }),
        });
        Self { inner }
    }

    /// Takes in one message of the peer; a request starts on a task of its own (so this needs a
    /// tokio runtime). `auth` is the identity the transport verified for it, which the request's
    /// handler sees as [`Context::auth`](crate::Context::auth). Returns `false`, taking nothing, once the connection is
    /// closed.
    pub fn handle(&self, message: Message, auth: Option<Arc<AuthInfo>>) -> bool {
        if self.inner.is_closed() {
            return false;
        }
        let mut state = self.inner.state();
        // deadlines of requests to the client pass on activity too, not only while a handler
        // waits for the answer (it may have been cancelled meanwhile)
        state.session.handle_timeout(now());
        state.session.handle_message(now(), message);
        self.inner.pump(&mut state, auth.as_ref());
        true
    }

    /// Tells the peer of a change it listens for (list changes when the server announces them,
    /// updates of the resources it subscribed to); nothing before it is initialized.
    pub fn announce(&self, change: Change) {
        if self.inner.is_closed() {
            return;
        }
        let mut state = self.inner.state();
        let State {
            session,
            subscribed,
            ..
        } = &mut *state;
        announce(&self.inner.server, session, subscribed, change);
        self.inner.pump(&mut state, None);
    }

    /// The initialize-era client, once `initialize` was answered.
    pub fn client(&self) -> Option<ClientContext> {
        self.inner.state().session.initialize_era_client().cloned()
    }

    /// Whether [`close`](Self::close) was called (or the connection dropped).
    pub fn is_closed(&self) -> bool {
        self.inner.is_closed()
    }

    /// Requests still being served.
    pub fn in_flight(&self) -> usize {
        self.inner.state().in_flight.len()
    }

    /// Takes no more messages. Requests in flight finish and their responses still go out
    /// (`subscriptions/listen` requests end with their result); server→client requests waiting
    /// for an answer fail.
    pub fn close(&self) {
        self.inner.closed.store(true, Ordering::Release);
        let mut state = self.inner.state();
        let State {
            in_flight, listens, ..
        } = &mut *state;
        for id in listens.drain() {
            if let Some((_, cancellation)) = in_flight.get(&id) {
                cancellation.cancel();
            }
        }
        for (_, reply) in state.waiting.drain() {
            let _ = reply.send(Err(InputError::Unavailable("the session ended".into())));
        }
    }
}

impl Drop for DrivenConnection {
    fn drop(&mut self) {
        // no lock here: see `Driven::closed`
        self.inner.closed.store(true, Ordering::Release);
    }
}

fn now() -> std::time::Instant {
    Instant::now().into_std()
}

impl Driven {
    fn is_closed(&self) -> bool {
        self.closed.load(Ordering::Acquire)
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Acts on everything the session produced: starts requests, routes answers to waiting
    /// handlers, and hands the messages to the outbox.
    fn pump(self: &Arc<Self>, state: &mut State, auth: Option<&Arc<AuthInfo>>) {
        loop {
            while let Some(transmit) = state.session.poll_transmit() {
                self.outbox.send(transmit);
            }
            let Some(event) = state.session.poll_event() else {
                if state.in_flight.is_empty() {
                    // quiet again: an idle session keeps only its state
                    state.session.shrink_to_fit();
                    if state.waiting.is_empty() {
                        state.in_flight = HashMap::new();
                        state.waiting = HashMap::new();
                    }
                }
                return;
            };
            match event {
                ServerEvent::Request(request) => {
                    let started = start(
                        &self.server,
                        &mut state.subscribed,
                        request,
                        &self.peer,
                        auth,
                    );
                    let Started {
                        id,
                        handling,
                        cancellation,
                        listen,
                    } = match started {
                        Start::Answered(id, result) => {
                            state.session.respond(&id, result);
                            continue;
                        }
                        Start::Handling(started) => started,
                    };
                    if listen {
                        state.listens.insert(id.clone());
                    }
                    let driven = Arc::clone(self);
                    let task_id = id.clone();
                    let task = tokio::spawn(async move {
                        let result = guarded(handling).await;
                        driven.finish(&task_id, result);
                    });
                    state
                        .in_flight
                        .insert(id, (task.abort_handle(), cancellation));
                }
                ServerEvent::Cancelled { id, .. } => {
                    state.listens.remove(&id);
                    if let Some((task, cancellation)) = state.in_flight.remove(&id) {
                        cancellation.cancel();
                        task.abort();
                    }
                }
                ServerEvent::Response { id, outcome, .. } => {
                    if let Some(reply) = state.waiting.remove(&id) {
                        let _ = reply.send(answer_of(outcome));
                    }
                }
                // Initialized, progress on server requests and other notifications: nothing to do.
                _ => {}
            }
        }
    }

    /// A handler finished: its response goes out unless the request was cancelled.
    fn finish(self: &Arc<Self>, id: &RequestId, result: Result<RawJson, ErrorObject>) {
        let mut state = self.state();
        state.listens.remove(id);
        if state.in_flight.remove(id).is_some() {
            state.session.respond(id, result);
            state.session.handle_timeout(now());
            self.pump(&mut state, None);
        }
    }

    /// Runs `f` on the session of a request still in flight, then sends what it produced.
    fn while_in_flight(self: &Arc<Self>, request: &RequestId, f: impl FnOnce(&mut ServerSession)) {
        let mut state = self.state();
        if state.in_flight.contains_key(request) {
            f(&mut state.session);
            self.pump(&mut state, None);
        }
    }
}

/// The [`Peer`] of a driven connection's handlers: each call acts on the session at once.
#[derive(Debug)]
struct DrivenPeer {
    driven: Weak<Driven>,
}

impl fmt::Debug for Driven {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Driven").finish_non_exhaustive()
    }
}

impl Peer for DrivenPeer {
    fn progress(
        &self,
        request: &RequestId,
        progress: f64,
        total: Option<f64>,
        message: Option<String>,
    ) -> BoxFuture<'static, ()> {
        if let Some(driven) = self.driven.upgrade() {
            driven.while_in_flight(request, |session| {
                let _ = session.progress(request, progress, total, message);
            });
        }
        Box::pin(async {})
    }

    fn log(
        &self,
        request: &RequestId,
        level: LoggingLevel,
        logger: Option<String>,
        data: Value,
    ) -> BoxFuture<'static, ()> {
        if let Some(driven) = self.driven.upgrade() {
            driven.while_in_flight(request, |session| {
                session.log(Some(request), level, logger.as_deref(), data);
            });
        }
        Box::pin(async {})
    }

    fn close_stream(&self, request: &RequestId) -> bool {
        let Some(driven) = self.driven.upgrade() else {
            return false;
        };
        let in_flight = driven.state().in_flight.contains_key(request);
        in_flight && driven.outbox.close_stream(request)
    }

    fn notify(&self, related: &RequestId, notification: Notification) -> BoxFuture<'static, ()> {
        if let Some(driven) = self.driven.upgrade() {
            driven.while_in_flight(related, |session| {
                session.notify(notification, Some(related.clone()));
            });
        }
        Box::pin(async {})
    }

    fn request(
        &self,
        related: &RequestId,
        method: &str,
        params: Value,
    ) -> BoxFuture<'static, Result<Value, InputError>> {
        let ended = || InputError::Unavailable("the session ended".into());
        let Some(driven) = self.driven.upgrade() else {
            return Box::pin(async move { Err(ended()) });
        };
        let params = match params {
            Value::Object(map) => Some(map),
            _ => None,
        };
        let (reply, answer) = oneshot::channel();
        let sent = {
            let mut state = driven.state();
            if driven.is_closed() {
                Err(ended())
            } else {
                match state.session.send_request(
                    now(),
                    method,
                    params,
                    &RequestOptions::default(),
                    Some(related.clone()),
                ) {
                    Ok(id) => {
                        state.waiting.insert(id, reply);
                        driven.pump(&mut state, None);
                        Ok(())
                    }
                    Err(error) => Err(InputError::Unavailable(error.to_string())),
                }
            }
        };
        let weak = Arc::downgrade(&driven);
        drop(driven);
        Box::pin(async move {
            sent?;
            let mut answer = answer;
            loop {
                // the session's deadline for its own requests, checked while waiting
                let deadline = weak
                    .upgrade()
                    .and_then(|driven| driven.state().session.poll_timeout());
                let Some(deadline) = deadline else {
                    return answer.await.unwrap_or_else(|_| Err(ended()));
                };
                tokio::select! {
                    outcome = &mut answer => return outcome.unwrap_or_else(|_| Err(ended())),
                    () = tokio::time::sleep_until(Instant::from_std(deadline)) => {
                        let Some(driven) = weak.upgrade() else { return Err(ended()) };
                        let mut state = driven.state();
                        state.session.handle_timeout(now());
                        driven.pump(&mut state, None);
                    }
                }
            }
        })
    }
}
