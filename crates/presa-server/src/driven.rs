//! The request runner: one peer's session, driven by its transport's calls. Every transport
//! serves through it: stdio and in-process connections ([`serve_connection`] drives one), each
//! initialize-era Streamable HTTP session, and each 2026-07-28 HTTP request.
//!
//! [`serve_connection`]: crate::serve_connection

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use presa_core::{
    ClientContext, ErrorObject, Message, Packet, RawJson, ReceivedHeaders, Request, RequestId,
    ServerEvent, ServerSession, Transmit, decode_packet,
};
use serde_json::Value;
use tokio::sync::oneshot;
use tokio::task::AbortHandle;
use tokio::time::Instant;

use crate::BoxFuture;
use crate::context::{Cancellation, Peer};
use crate::events::Change;
use crate::input::InputError;
use crate::server::Server;
use crate::start::{
    Handling, announce, answer_of, guarded, open_notification, open_request, poll_once,
};
use crate::transport::Arrival;

mod notifying;
mod peer;
mod state;
mod to_run;

use notifying::Notifying;
use peer::DrivenPeer;
pub use state::ConnectionState;
use to_run::{Answered, ToRun};

/// Where a [`DrivenConnection`] sends its messages: any `Fn(Transmit)`, or a type that can also
/// close a request's response stream early or slow handlers down.
pub trait Outbox: Send + Sync + 'static {
    /// Sends one message. Called with the connection's state locked, in the order the messages
    /// are produced, so it must not call back into the connection.
    fn send(&self, transmit: Transmit);

    /// Ends the response stream of `related` early, where the client can resume it (see
    /// [`Context::close_stream`](crate::Context::close_stream)); whether it did. By default it
    /// cannot.
    fn close_stream(&self, related: &RequestId) -> bool {
        let _ = related;
        false
    }

    /// Whether a message related to no request (a task's request to the client, a session-wide
    /// notification) reaches the client now. An HTTP session's does only while its standalone
    /// GET stream is open; by default it always does.
    fn reaches_client(&self) -> bool {
        true
    }

    /// Completes when the outbox has room for more. A handler that reports progress or logs
    /// waits on it after each message, so a peer that reads slowly slows the handler down
    /// instead of growing a queue. By default there is always room.
    fn ready(&self) -> BoxFuture<'static, ()> {
        Box::pin(async {})
    }
}

impl<F: Fn(Transmit) + Send + Sync + 'static> Outbox for F {
    fn send(&self, transmit: Transmit) {
        self(transmit);
    }
}

/// One peer's session, served without a task of its own: the transport hands it each message
/// with [`handle`](Self::handle), and everything the server sends goes to the outbox given at
/// creation. This is presa's one request runner: the session (presa-core) checks each message,
/// and the runner starts the requests that pass, answers those whose handling finishes on its
/// first poll at once, runs the others on tasks of their own, and carries their progress, logs
/// and requests to the client back through the session. Between requests the connection is
/// only its state.
///
/// Transports use it as it fits them: an initialize-era Streamable HTTP session is one
/// connection that every POST of the session drives; a 2026-07-28 POST is a connection of its
/// own for one request ([`handle_stateless_request`](Self::handle_stateless_request)); a byte
/// stream (stdio, in-process) is driven by [`serve_connection`](crate::serve_connection).
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
/// connection.handle(initialize, &presa_server::Arrival::default());
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

/// The connection behind its handle, with its outbox in the same allocation (`O` is unsized to
/// `dyn Outbox` once made): an idle HTTP session costs one allocation less.
struct Driven<O: ?Sized = dyn Outbox> {
    server: Server,
    /// Outside the state's lock, so that dropping the connection never waits for it (the outbox
    /// may hold the last reference to the connection's owner while the state is locked).
    closed: AtomicBool,
    /// Whether an idle initialize-era session gives its tables' memory back (many idle HTTP
    /// sessions); a byte-stream connection keeps them for its next request.
    shrink_when_idle: bool,
    /// The notification handlers waiting past their first poll; outside the lock, so that one
    /// ending never waits for it.
    notifying: Notifying,
    state: Mutex<State>,
    outbox: O,
}

/// A request being served: its task once it has one (none while its first poll runs), and its
/// cancellation signal.
struct Running {
    task: Option<AbortHandle>,
    cancellation: Cancellation,
}

impl Running {
    fn stop(self) {
        // the task is aborted first, so that a handler polled meanwhile is dropped at its next
        // await rather than woken into a cancellation branch; then the signal tells what the
        // handler handed elsewhere (spawned tasks holding its context)
        if let Some(task) = self.task {
            task.abort();
        }
        self.cancellation.cancel();
    }
}

/// The requests being served: those in their first poll (almost always none or one, found
/// without hashing their id) and those running on tasks.
#[derive(Default)]
struct ServedRequests {
    polling: Vec<(RequestId, Cancellation)>,
    running: HashMap<RequestId, Running>,
}

impl ServedRequests {
    fn len(&self) -> usize {
        self.polling.len() + self.running.len()
    }

    fn is_empty(&self) -> bool {
        self.polling.is_empty() && self.running.is_empty()
    }

    fn contains(&self, id: &RequestId) -> bool {
        self.polling.iter().any(|(polled, _)| polled == id) || self.running.contains_key(id)
    }

    fn cancellation(&self, id: &RequestId) -> Option<&Cancellation> {
        match self.polling.iter().find(|(polled, _)| polled == id) {
            Some((_, cancellation)) => Some(cancellation),
            None => self.running.get(id).map(|running| &running.cancellation),
        }
    }

    /// A request starts its first poll.
    fn track(&mut self, id: RequestId, cancellation: Cancellation) {
        self.polling.push((id, cancellation));
    }

    /// A request left pending by its first poll now runs on `task`; `false` (and nothing
    /// kept) when it was stopped meanwhile. `start` is its cancellation signal, which tells it
    /// from a later request that reused its id.
    fn promote(
        &mut self,
        id: &RequestId,
        start: &Cancellation,
        task: &tokio::task::JoinHandle<()>,
    ) -> bool {
        let found = self
            .polling
            .iter()
            .position(|(polled, cancellation)| polled == id && cancellation.same(start));
        let Some(at) = found else {
            return false;
        };
        let (id, cancellation) = self.polling.swap_remove(at);
        let running = Running {
            task: Some(task.abort_handle()),
            cancellation,
        };
        self.running.insert(id, running);
        true
    }

    /// Takes out the request `id` started with `start`, if it is still the one in flight.
    fn finish(&mut self, id: &RequestId, start: &Cancellation) -> bool {
        if let Some(at) = self
            .polling
            .iter()
            .position(|(polled, cancellation)| polled == id && cancellation.same(start))
        {
            self.polling.swap_remove(at);
            return true;
        }
        match self.running.get(id) {
            Some(running) if running.cancellation.same(start) => {
                self.running.remove(id);
                true
            }
            _ => false,
        }
    }

    fn remove(&mut self, id: &RequestId) -> Option<Running> {
        match self.polling.iter().position(|(polled, _)| polled == id) {
            Some(at) => {
                let (_, cancellation) = self.polling.swap_remove(at);
                Some(Running {
                    task: None,
                    cancellation,
                })
            }
            None => self.running.remove(id),
        }
    }

    fn drain(&mut self) -> impl Iterator<Item = Running> + '_ {
        let polling = self.polling.drain(..).map(|(_, cancellation)| Running {
            task: None,
            cancellation,
        });
        polling.chain(self.running.drain().map(|(_, running)| running))
    }

    fn shrink_to_fit(&mut self) {
        *self = Self::default();
    }
}

/// Where the client's answers to the server's requests go, by request.
type Replies = HashMap<RequestId, oneshot::Sender<Result<Value, InputError>>>;

struct State {
    session: ServerSession,
    /// What the handlers of this connection's requests talk to the session through, made for
    /// the first request the session starts (a session that only initialized has none).
    peer: Option<Arc<dyn Peer>>,
    in_flight: ServedRequests,
    /// Server→client requests waiting for the client's answer; made for the first (most
    /// sessions never ask their client anything): a pointer, not an empty map's 48 bytes.
    waiting: Option<Box<Replies>>,
    /// 2026-07-28 `subscriptions/listen` requests in flight: they never end by themselves, so
    /// closing the connection ends them. Made for the first.
    #[expect(
        clippy::box_collection,
        reason = "a pointer, not an empty set's 48 bytes"
    )]
    listens: Option<Box<HashSet<RequestId>>>,
    /// The initialize-era session's measurement, from when this connection first held it
    /// initialized until it closes or is dropped.
    #[cfg(feature = "otel")]
    measured: Option<crate::metrics::Session>,
}

impl State {
    /// `id` is no longer a listen in flight (if it was one).
    fn forget_listen(&mut self, id: &RequestId) {
        if let Some(listens) = &mut self.listens {
            listens.remove(id);
        }
    }

    /// The initialize-era state as data, once `initialize` was answered.
    fn connection_state(&self) -> Option<ConnectionState> {
        let session = Arc::clone(self.session.initialize_era_state()?);
        Some(ConnectionState {
            session,
            subscriptions: self.session.subscriptions(),
        })
    }

    fn set_connection_state(&mut self, saved: ConnectionState) {
        self.session.set_initialize_era_state(saved.session);
        self.session.set_subscriptions(&saved.subscriptions);
    }

    /// How many times the session's state (subscriptions included) changed.
    fn state_changes(&self) -> u64 {
        self.session.state_changes()
    }
}

impl DrivenConnection {
    /// A connection serving `server`, sending through `outbox`.
    pub fn new(server: Server, outbox: impl Outbox) -> Self {
        Self::with_idle_shrink(server, outbox, true)
    }

    /// [`new`](Self::new), keeping its tables' memory between requests when `shrink` is false
    /// (one busy connection, not many idle ones).
    pub(crate) fn with_idle_shrink(server: Server, outbox: impl Outbox, shrink: bool) -> Self {
        let session = ServerSession::new(server.shared_session_config());
        let inner: Arc<Driven> = Arc::new(Driven {
            server,
            closed: AtomicBool::new(false),
            shrink_when_idle: shrink,
            notifying: Notifying::default(),
            state: Mutex::new(State {
                session,
                peer: None,
                in_flight: ServedRequests::default(),
                waiting: None,
                listens: None,
                #[cfg(feature = "otel")]
                measured: None,
            }),
            outbox,
        });
        Self { inner }
    }

    /// Takes in one message of the peer (this needs a tokio runtime: a request whose handling
    /// does not finish on its first poll goes on a task of its own). `arrival` is what the
    /// transport knows of it (the identity it verified, the HTTP request), which the request's
    /// handler sees in its [`Context`](crate::Context). Returns `false`, taking nothing, once
    /// the connection is closed.
    pub fn handle(&self, message: Message, arrival: &Arrival) -> bool {
        let server = &self.inner.server;
        self.inner.take(arrival, |session| {
            take_in(server, session, message, arrival);
            Vec::new()
        })
    }

    /// Takes in one frame of bytes (a stdio line): a message, or on a session of a revision
    /// that allows them, a batch. What is not a message is answered through the outbox with
    /// `-32700` or `-32600`, in order with everything else. Returns `false`, taking nothing,
    /// once the connection is closed.
    pub fn handle_frame(&self, bytes: &[u8], arrival: &Arrival) -> bool {
        let server = &self.inner.server;
        self.inner.take(arrival, |session| {
            let batches = session
                .initialize_era_client()
                .is_some_and(|c| c.protocol_version.allows_batches());
            match decode_packet(bytes, batches) {
                Ok(Packet::Single(message)) => {
                    take_in(server, session, message, arrival);
                    Vec::new()
                }
                Ok(Packet::Batch(members)) => {
                    let mut rejected = Vec::new();
                    for member in members {
                        match member {
                            Ok(message) => take_in(server, session, message, arrival),
                            Err(error) => rejected.push(error.to_response()),
                        }
                    }
                    rejected
                }
                Err(error) => vec![error.to_response()],
            }
        })
    }

    /// Takes in one request that the transport routed to 2026-07-28 by its headers, with the
    /// mirror headers it arrived with: the session checks both in the order the protocol names
    /// (see [`ServerSession::handle_stateless_request`]). What a Streamable HTTP server does
    /// with each 2026-07-28 POST, on a connection of its own.
    pub fn handle_stateless_request(
        &self,
        request: Request,
        headers: ReceivedHeaders,
        arrival: &Arrival,
    ) -> bool {
        self.inner.take(arrival, |session| {
            session.handle_stateless_request(request, Some(headers));
            Vec::new()
        })
    }

    /// Takes in one notification posted on its own, outside any session (what a Streamable
    /// HTTP server does with a 2026-07-28 notification), on a connection made for it alone:
    /// from then on the connection is sessionless. Its handler, if an extension registered one,
    /// may outlive this connection: it runs to its end (its context's cancellation never
    /// fires), and such handlers count against one bound across the server (as many as a
    /// session may have requests in flight) instead of a session's.
    pub fn handle_stateless_notification(
        &self,
        notification: presa_core::Notification,
        arrival: &Arrival,
    ) -> bool {
        self.inner.notifying.set_sessionless();
        self.handle(Message::Notification(notification), arrival)
    }

    /// Tells the peer of a change it listens for (list changes when the server announces them,
    /// updates of the resources it subscribed to); nothing before it is initialized.
    pub fn announce(&self, change: Change) {
        if self.inner.is_closed() {
            return;
        }
        let started = {
            let mut state = self.inner.state();
            announce(&self.inner.server, &mut state.session, change);
            self.inner.pump(&mut state, &UNKNOWN)
        };
        self.inner.run(started);
    }

    /// The initialize-era client, once `initialize` was answered.
    pub fn client(&self) -> Option<ClientContext> {
        self.inner.state().session.initialize_era_client().cloned()
    }

    /// The initialize-era state as data, once `initialize` was answered (see
    /// [`ConnectionState`]).
    pub fn state(&self) -> Option<ConnectionState> {
        self.inner.state().connection_state()
    }

    /// Continues an initialize-era session from its saved state, replacing what this connection
    /// knew of it; requests in flight go on.
    pub fn set_state(&self, saved: ConnectionState) {
        self.inner.state().set_connection_state(saved);
    }

    /// Takes over `onto`, a newer saved state, in one step: when this connection's state
    /// changed since `base` was saved (its change count is not `saved_changes`), those changes
    /// are kept on top ([`ConnectionState::rebased`]). Returns the change count afterwards and
    /// whether changes of this connection are still to be saved.
    pub fn take_over_state(
        &self,
        saved_changes: u64,
        base: &ConnectionState,
        onto: &ConnectionState,
    ) -> (u64, bool) {
        let mut state = self.inner.state();
        let unsaved = state.state_changes() != saved_changes;
        let next = match state.connection_state() {
            Some(current) if unsaved => current.rebased(base, onto),
            _ => onto.clone(),
        };
        state.set_connection_state(next);
        (state.state_changes(), unsaved)
    }

    /// How many times the initialize-era state changed: `initialize`, `initialized`,
    /// `logging/setLevel`, a subscription, [`set_state`](Self::set_state). A transport that
    /// keeps the state elsewhere saves [`state`](Self::state) when this number moves.
    pub fn state_changes(&self) -> u64 {
        self.inner.state().state_changes()
    }

    /// Whether [`close`](Self::close) was called (or the connection dropped).
    pub fn is_closed(&self) -> bool {
        self.inner.is_closed()
    }

    /// Requests still being served.
    pub fn in_flight(&self) -> usize {
        self.inner.state().in_flight.len()
    }

    /// Whether the peer's request `id` is being served here.
    pub fn serves(&self, id: &RequestId) -> bool {
        self.inner.state().in_flight.contains(id)
    }

    /// Makes the ids of the requests the server sends the peer from now on strings starting
    /// with `prefix` (see [`ServerSession::set_request_id_prefix`]): what an instance serving a
    /// session that other instances serve too sets, so that an answer posted to any of them
    /// finds the one waiting for it.
    pub fn set_request_id_prefix(&self, prefix: Arc<str>) {
        self.inner.state().session.set_request_id_prefix(prefix);
    }

    /// Stops serving the request `id` (its handler is cancelled at its next await) without
    /// answering it: what a transport does when the client went away from the request, e.g.
    /// closed a 2026-07-28 response stream. Returns whether the request was in flight.
    pub fn cancel(&self, id: &RequestId) -> bool {
        let mut state = self.inner.state();
        state.forget_listen(id);
        // no longer counted against the session's requests in flight and listens
        state.session.forget(id);
        match state.in_flight.remove(id) {
            Some(running) => {
                running.stop();
                true
            }
            None => false,
        }
    }

    /// Takes no more messages. Requests in flight finish and their responses still go out
    /// (`subscriptions/listen` requests end with their result); server→client requests waiting
    /// for an answer fail; notification handlers still waiting are cancelled and dropped (a
    /// notification has no answer to send).
    pub fn close(&self) {
        self.inner.closed.store(true, Ordering::Release);
        // its notification handlers end with it
        self.inner.notifying.end();
        let mut state = self.inner.state();
        for id in state
            .listens
            .take()
            .into_iter()
            .flat_map(|listens| *listens)
        {
            if let Some(cancellation) = state.in_flight.cancellation(&id) {
                cancellation.cancel();
            }
        }
        for (_, reply) in state
            .waiting
            .take()
            .into_iter()
            .flat_map(|waiting| *waiting)
        {
            let _ = reply.send(Err(InputError::Unavailable("the session ended".into())));
        }
        // the session ends here: its duration is recorded
        #[cfg(feature = "otel")]
        drop(state.measured.take());
    }

    /// Closes the connection and stops every request in flight, unanswered: the peer is gone.
    pub fn abort(&self) {
        self.close();
        let mut state = self.inner.state();
        for running in state.in_flight.drain() {
            running.stop();
        }
    }
}

impl Drop for DrivenConnection {
    fn drop(&mut self) {
        // no lock here: see `Driven::closed`
        self.inner.closed.store(true, Ordering::Release);
        // the session is gone, and its notification handlers with it
        self.inner.notifying.end();
    }
}

/// Hands `message` to `session`. A notification is observed while the session takes it in: its
/// span, its duration. A request is observed when it starts, or when the session answered it
/// by itself ([`ServerEvent::Answered`]).
fn take_in(server: &Server, session: &mut ServerSession, message: Message, arrival: &Arrival) {
    let version = session.initialize_era_client().map(|c| c.protocol_version);
    match crate::observe::Observed::notification(server, &message, version, arrival) {
        Some(observed) => {
            observed
                .span()
                .in_scope(|| session.handle_message(now(), message));
            observed.taken();
        }
        None => session.handle_message(now(), message),
    }
}

/// The arrival of what the session produces without a message (timeouts, finished handlers):
/// it starts no request.
const UNKNOWN: Arrival = Arrival::new(crate::Transport::Unspecified);

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

    /// Feeds input to the session with `feed` (which returns answers to send that never reached
    /// the session, such as decoding errors), then starts what it produced. `false` once closed.
    fn take(
        self: &Arc<Self>,
        arrival: &Arrival,
        feed: impl FnOnce(&mut ServerSession) -> Vec<presa_core::Response>,
    ) -> bool {
        if self.is_closed() {
            return false;
        }
        let started = {
            let mut state = self.state();
            // deadlines of requests to the client pass on activity too, not only while a
            // handler waits for the answer (it may have been cancelled meanwhile)
            if state.session.requests_pending() > 0 {
                state.session.handle_timeout(now());
            }
            for rejection in feed(&mut state.session) {
                self.outbox.send(Transmit::new(rejection, None));
            }
            #[cfg(feature = "otel")]
            if state.measured.is_none()
                && let Some(client) = state.session.initialize_era_client()
            {
                let version = client.protocol_version;
                state.measured = Some(crate::metrics::Session::start(
                    &self.server.inner.metrics,
                    version,
                    arrival,
                ));
            }
            self.pump(&mut state, arrival)
        };
        self.run(started);
        true
    }

    /// Acts on everything the session produced: routes answers to waiting handlers, hands the
    /// messages to the outbox, and registers the requests to start, which it returns for
    /// [`run`](Self::run) (their first poll happens outside the lock, since a handler may talk
    /// back to the session at once).
    fn pump(self: &Arc<Self>, state: &mut State, arrival: &Arrival) -> ToRun {
        let mut started = ToRun::default();
        loop {
            while let Some(transmit) = state.session.poll_transmit() {
                self.outbox.send(transmit);
            }
            let Some(event) = state.session.poll_event() else {
                let idle = state.in_flight.is_empty() && started.requests.is_empty();
                if idle && self.shrink_when_idle && state.session.initialize_era_client().is_some()
                {
                    // quiet again: an idle session keeps only its state
                    state.session.shrink_to_fit();
                    if state
                        .waiting
                        .as_ref()
                        .is_none_or(|waiting| waiting.is_empty())
                    {
                        state.in_flight.shrink_to_fit();
                        state.waiting = None;
                        // a listen is a request in flight: none is left
                        state.listens = None;
                    }
                }
                return started;
            };
            match event {
                ServerEvent::Request(request) => {
                    let peer = state.peer.get_or_insert_with(|| {
                        Arc::new(DrivenPeer {
                            driven: Arc::downgrade(self),
                        })
                    });
                    let request = open_request(&self.server, request, peer, arrival);
                    if request.listen {
                        state
                            .listens
                            .get_or_insert_default()
                            .insert(request.id.clone());
                    }
                    state
                        .in_flight
                        .track(request.id.clone(), request.cancellation.clone());
                    started.push(request);
                }
                ServerEvent::Cancelled { id, .. } => {
                    state.forget_listen(&id);
                    if let Some(running) = state.in_flight.remove(&id) {
                        running.stop();
                    }
                }
                ServerEvent::Response { id, outcome, .. } => {
                    if let Some(reply) = state.waiting.as_mut().and_then(|w| w.remove(&id)) {
                        let _ = reply.send(answer_of(outcome));
                    }
                }
                ServerEvent::Answered {
                    id,
                    method,
                    params,
                    version,
                    error,
                } => started.answered.push(Answered {
                    id,
                    method,
                    version,
                    params,
                    error,
                    arrival: arrival.clone(),
                }),
                ServerEvent::Notification(notification) => {
                    let peer = state.peer.get_or_insert_with(|| {
                        Arc::new(DrivenPeer {
                            driven: Arc::downgrade(self),
                        })
                    });
                    let client = state.session.initialize_era_client();
                    let ended = || self.notifying.cancellation();
                    if let Some(taking) =
                        open_notification(&self.server, notification, client, peer, ended, arrival)
                    {
                        started.notifications.push(taking);
                    }
                }
                // Initialized, and progress on server requests: nothing to do.
                _ => {}
            }
        }
    }

    /// Runs started requests: a handling that finishes on its first poll (a `tool_sync` tool, a
    /// listing) is answered at once, any other moves to a task of its own.
    fn run(self: &Arc<Self>, started: ToRun) {
        for answered in started.answered {
            answered.observe(&self.server);
        }
        for mut taking in started.notifications {
            let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
            if taking.as_mut().poll(&mut cx).is_ready() {
                continue;
            }
            match Notifying::slot(self) {
                Some(slot) => {
                    tokio::spawn(async move {
                        taking.await;
                        drop(slot);
                    });
                }
                // as many handlers wait as requests may be in flight: this one is dropped
                None => tracing::debug!("a notification handler was dropped: too many waiting"),
            }
        }
        for Handling {
            id,
            mut handling,
            cancellation,
            ..
        } in started.requests
        {
            if let Some(result) = poll_once(&mut handling) {
                self.finish(&id, &cancellation, result);
                continue;
            }
            let mut state = self.state();
            // cancelled during its first poll: nothing to run
            if !state.in_flight.contains(&id) {
                continue;
            }
            let driven = Arc::clone(self);
            let (task_id, start) = (id.clone(), cancellation.clone());
            let task = tokio::spawn(async move {
                let result = guarded(handling).await;
                driven.finish(&task_id, &start, result);
            });
            if !state.in_flight.promote(&id, &cancellation, &task) {
                // stopped, and its id already taken by a newer request: this one must not run
                task.abort();
            }
        }
    }

    /// A handler finished: its response goes out unless the request was cancelled (or its id
    /// now names a newer request).
    fn finish(
        self: &Arc<Self>,
        id: &RequestId,
        start: &Cancellation,
        result: Result<RawJson, ErrorObject>,
    ) {
        let started = {
            let mut state = self.state();
            if !state.in_flight.finish(id, start) {
                return;
            }
            state.forget_listen(id);
            state.session.respond(id, result);
            if state.session.requests_pending() > 0 {
                state.session.handle_timeout(now());
            }
            self.pump(&mut state, &UNKNOWN)
        };
        self.run(started);
    }

    /// Runs `f` on the session of a request still in flight (or of the open session itself:
    /// `None`), then sends what it produced; returns the outbox's readiness for the handler to
    /// wait on.
    fn while_in_flight(
        self: &Arc<Self>,
        request: Option<&RequestId>,
        f: impl FnOnce(&mut ServerSession),
    ) -> BoxFuture<'static, ()> {
        let started = {
            let mut state = self.state();
            let open = match request {
                Some(request) => state.in_flight.contains(request),
                None => !self.is_closed(),
            };
            if !open {
                return Box::pin(async {});
            }
            f(&mut state.session);
            self.pump(&mut state, &UNKNOWN)
        };
        self.run(started);
        self.outbox.ready()
    }
}

impl fmt::Debug for Driven {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Driven").finish_non_exhaustive()
    }
}
