//! What every request of one endpoint shares: the server, the options, the session store, the
//! requests a posted cancellation may stop, and the tasks that sweep idle sessions and announce
//! changes.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Once, PoisonError, Weak};
use std::time::Duration;

use axum::http::HeaderMap;
use futures_util::StreamExt;
use presa_core::{Cancelled, Era, Message, NotificationMethod, RequestId};
use presa_server::{Arrival, AuthInfo, Change, DrivenConnection, Missed, Server, TransmitQueue};
use tokio::sync::mpsc;

use super::auth::principal;
use super::live::{Admission, InUse, LiveSessions, SessionsFull};
use super::options::{CancellationPolicy, HttpOptions};
use super::session::{HttpSession, Sharing};
use super::store::{EventLog, LoggedEvent, SessionStorage, SessionStore, SessionStoreError};
use presa_core::ErrorReport;

/// The requests a posted `notifications/cancelled` may stop, by subject and request id.
type Cancellable = HashMap<(String, RequestId), (Arc<DrivenConnection>, TransmitQueue)>;

/// What every request of one endpoint shares: one reference, cloned per request.
#[derive(Clone)]
pub(crate) struct Shared(Arc<SharedState>);

pub(crate) struct SharedState {
    pub(crate) server: Server,
    pub(crate) options: Arc<HttpOptions>,
    /// Where session state is kept, and whether other instances share it.
    pub(crate) storage: SessionStorage,
    /// The storage's state store.
    pub(crate) store: Arc<dyn SessionStore>,
    /// The sessions whose live parts this process holds.
    pub(crate) live: Arc<LiveSessions>,
    cancellable: Mutex<Cancellable>,
    sweeper: Once,
    /// The task telling sessions of the server's changes, ended with the endpoint.
    announcer: std::sync::OnceLock<tokio::task::AbortHandle>,
    /// The task handing relayed client messages to the sessions here, ended with the endpoint.
    relay: std::sync::OnceLock<Option<tokio::task::AbortHandle>>,
    /// What sessions need when the store is shared (made, with the task writing the event log,
    /// by the first session); `None` inside for a store of one process.
    sharing: std::sync::OnceLock<Option<Sharing>>,
    /// Each 2026-07-28 request still being answered after its POST's handler returned (a
    /// stream, or an answer awaited): what a drain ends or stops.
    in_flight: Mutex<HashMap<u64, Streamed>>,
    next_in_flight: AtomicU64,
    /// Set by a drain: no new sessions or requests.
    draining: AtomicBool,
    /// POSTs with a request whose response is not finished, in both eras.
    serving: Arc<Serving>,
}

/// A 2026-07-28 request being answered.
struct Streamed {
    connection: Arc<DrivenConnection>,
    queue: TransmitQueue,
    /// A `subscriptions/listen`, which a drain ends at once (with its result).
    listen: bool,
}

/// Why a session that exists cannot be served here now.
#[derive(Debug)]
pub(crate) enum Unavailable {
    /// The session store failed.
    Store(SessionStoreError),
    /// Restoring it would pass this instance's session limits.
    Full(SessionsFull),
}

/// How many POSTs with a request are being answered, and a signal when that reaches zero.
#[derive(Debug, Default)]
pub(crate) struct Serving {
    count: AtomicUsize,
    idle: tokio::sync::Notify,
}

/// One POST being answered, counted in [`Serving`] until dropped (with the response body, for
/// a streamed answer).
#[derive(Debug)]
pub(crate) struct ServingGuard(Arc<Serving>);

impl Drop for ServingGuard {
    fn drop(&mut self) {
        if self.0.count.fetch_sub(1, Ordering::SeqCst) == 1 {
            self.0.idle.notify_waiters();
        }
    }
}

impl Serving {
    /// Waits until no POST is being answered.
    pub(crate) async fn idle(&self) {
        loop {
            // listen before looking, so that the last answer ending in between is not missed
            let idle = self.idle.notified();
            tokio::pin!(idle);
            idle.as_mut().enable();
            if self.count.load(Ordering::SeqCst) == 0 {
                return;
            }
            idle.await;
        }
    }
}

impl Drop for SharedState {
    fn drop(&mut self) {
        if let Some(announcer) = self.announcer.get() {
            announcer.abort();
        }
        if let Some(Some(relay)) = self.relay.get() {
            relay.abort();
        }
    }
}

impl std::ops::Deref for Shared {
    type Target = SharedState;

    fn deref(&self) -> &SharedState {
        &self.0
    }
}

impl Shared {
    pub(crate) fn new(server: Server, options: HttpOptions, storage: SessionStorage) -> Self {
        Self(Arc::new(SharedState {
            server,
            options: Arc::new(options),
            store: storage.store(),
            storage,
            live: Arc::default(),
            cancellable: Mutex::default(),
            in_flight: Mutex::default(),
            next_in_flight: AtomicU64::default(),
            draining: AtomicBool::new(false),
            serving: Arc::default(),
            sweeper: Once::new(),
            announcer: std::sync::OnceLock::new(),
            relay: std::sync::OnceLock::new(),
            sharing: std::sync::OnceLock::new(),
        }))
    }

    /// What a session needs when other instances share the store: made once, with the task
    /// that writes the event log (it ends when the endpoint and its sessions are gone).
    pub(crate) fn sharing(&self) -> Option<Sharing> {
        self.sharing
            .get_or_init(|| {
                let shared = self.storage.sharing()?;
                let event_log: Arc<dyn EventLog> = Arc::clone(shared) as Arc<dyn EventLog>;
                let (log, events) = mpsc::channel(LOG_ROOM);
                tokio::spawn(write_log(events, Arc::downgrade(&event_log), self.ttl()));
                // an instance's own prefix for the ids of its requests to clients: random, or
                // (no randomness) the process id and the clock
                let request_ids: Arc<str> = match presa_server::random_id() {
                    Some(id) => Arc::from(format!("{}:", &id[..12])),
                    None => {
                        let nanos = std::time::SystemTime::now()
                            .duration_since(std::time::UNIX_EPOCH)
                            .map_or(0, |since| since.as_nanos());
                        Arc::from(format!("{:x}-{nanos:x}:", std::process::id()))
                    }
                };
                Some(Sharing { log, request_ids })
            })
            .clone()
    }

    /// Starts, once, the task that hands client messages relayed by other instances (answers
    /// to this instance's requests, cancellations of its handlers) to the sessions here.
    pub(crate) fn start_relay(&self) {
        let sessions = Arc::downgrade(&self.live);
        self.relay.get_or_init(|| {
            let mut relayed = self.storage.sharing()?.relayed();
            let task = tokio::spawn(async move {
                loop {
                    match relayed.recv().await {
                        Some(Ok(relayed)) => {
                            let Some(sessions) = sessions.upgrade() else {
                                return;
                            };
                            let Some(session) = sessions.get(&relayed.session) else {
                                continue;
                            };
                            match presa_core::decode_message(relayed.message.as_bytes()) {
                                // what may be waited for elsewhere: an answer, a cancellation
                                Ok(message @ Message::Response(_)) => {
                                    session.deliver(vec![message], &Arrival::default());
                                }
                                Ok(Message::Notification(notification))
                                    if notification.method == Cancelled::METHOD =>
                                {
                                    let message = Message::Notification(notification);
                                    session.deliver(vec![message], &Arrival::default());
                                }
                                Ok(_) => tracing::warn!(
                                    target: "presa_http",
                                    "a relayed message of session {} is neither an answer nor a \
                                     cancellation",
                                    relayed.session
                                ),
                                Err(error) => tracing::warn!(
                                    target: "presa_http",
                                    "a relayed message of session {} is not one: {error}",
                                    relayed.session
                                ),
                            }
                        }
                        Some(Err(Missed(missed))) => tracing::warn!(
                            target: "presa_http",
                            "{missed} relayed client messages were missed: the relay overflowed"
                        ),
                        None => return,
                    }
                }
            });
            Some(task.abort_handle())
        });
    }

    /// The subject of a request, when posted cancellation is on.
    pub(crate) fn subject(&self, headers: &HeaderMap, auth: Option<&AuthInfo>) -> Option<String> {
        match &self.options.cancellation {
            CancellationPolicy::Subject(subject) => subject(headers),
            CancellationPolicy::AuthSubject => auth.and_then(principal),
            CancellationPolicy::None => None,
        }
    }

    /// The 2026-07-28 requests a `notifications/cancelled` may stop. A panic while the lock
    /// was held leaves the map whole (each change is one insert or remove), so a poisoned lock
    /// is taken over, as every lock in presa is.
    fn cancellable(&self) -> MutexGuard<'_, Cancellable> {
        self.cancellable
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// The 2026-07-28 requests being answered, by key; taken over when poisoned, likewise.
    fn in_flight(&self) -> MutexGuard<'_, HashMap<u64, Streamed>> {
        self.in_flight
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    pub(crate) fn remember_cancellable(
        &self,
        subject: &str,
        id: &RequestId,
        connection: Arc<DrivenConnection>,
        queue: TransmitQueue,
    ) {
        self.cancellable()
            .insert((subject.to_owned(), id.clone()), (connection, queue));
    }

    pub(crate) fn forget_cancellable(&self, subject: &str, id: &RequestId) {
        self.cancellable().remove(&(subject.to_owned(), id.clone()));
    }

    pub(crate) fn cancel(&self, subject: &str, id: &RequestId) {
        let entry = self.cancellable().remove(&(subject.to_owned(), id.clone()));
        if let Some((connection, queue)) = entry {
            // stopped unanswered: the POST waiting for its messages is told there are no more
            connection.cancel(id);
            queue.close();
        }
    }

    /// A place for a new session of `owner` under the session limits. At the total, the least
    /// recently used quiet session is ended here to make room. A store of one process forgets
    /// it (its client gets 404 and starts anew); a shared store keeps its state, for the
    /// instances that may be serving it and for its next request to restore it.
    pub(crate) async fn admit(&self, owner: Option<&str>) -> Result<Admission, SessionsFull> {
        let mut admission = self.live.admit(
            owner,
            self.options.max_sessions,
            self.options.max_sessions_per_caller,
        )?;
        if let Some(evicted) = admission.evicted.take() {
            evicted.close();
            tracing::debug!(
                target: "presa_http",
                "session {} ended to make room for a new one",
                evicted.id()
            );
            if !self.storage.is_shared()
                && let Err(error) = self.store.remove(evicted.id()).await
            {
                tracing::warn!(
                    target: "presa_http",
                    "session {} ended to make room, but its state was not removed: {}",
                    evicted.id(),
                    ErrorReport(&error)
                );
            }
        }
        Ok(admission)
    }

    /// How long the store keeps a session's state after its last activity.
    pub(crate) fn ttl(&self) -> Option<Duration> {
        self.options.session_idle_timeout
    }

    /// The session `id` names, when `caller` may use it: its state loaded from the store, its
    /// live parts those this process holds (brought up to date with the state) or new ones.
    pub(crate) async fn session(
        &self,
        id: &str,
        caller: Option<&str>,
    ) -> Result<Option<InUse>, Unavailable> {
        let Some(state) = self
            .store
            .load(id, self.ttl())
            .await
            .map_err(Unavailable::Store)?
        else {
            // deleted or expired, perhaps by another instance: so are the live parts here
            if let Some(live) = self.live.remove(id) {
                live.close();
            }
            return Ok(None);
        };
        if !state.belongs_to(caller) {
            return Ok(None);
        }
        if let Some(live) = self.live.use_session(id).filter(|live| live.is_open()) {
            live.adopt(&state);
            return Ok(Some(live));
        }
        // a session another instance created takes a place among this one's sessions too
        let _admission = self
            .admit(state.owner.as_deref())
            .await
            .map_err(Unavailable::Full)?;
        self.start_sweeper();
        self.start_announcer();
        let restored = HttpSession::restore(
            &state,
            self.server.clone(),
            self.options.event_buffer_limits(),
            self.sharing(),
        );
        Ok(Some(self.live.insert(restored)))
    }

    /// Starts, once, the task that ends the live parts of idle sessions (the store forgets
    /// their state by itself) and keeps the state of sessions with an open GET stream alive.
    pub(crate) fn start_sweeper(&self) {
        let Some(timeout) = self.options.session_idle_timeout else {
            return;
        };
        let live = Arc::downgrade(&self.live);
        let store = Arc::downgrade(&self.store);
        self.sweeper.call_once(|| {
            tokio::spawn(async move {
                let mut ticks = tokio::time::interval((timeout / 4).clamp(Duration::from_millis(10), Duration::from_secs(60)));
                loop {
                    ticks.tick().await;
                    let (Some(live), Some(store)) = (live.upgrade(), store.upgrade()) else { return };
                    for session in live.all() {
                        if session.is_streaming() {
                            // a GET stream is activity: its state must outlive the idle timeout
                            match store.load(session.id(), Some(timeout)).await {
                                Ok(Some(_)) => continue,
                                Ok(None) => {}
                                Err(error) => {
                                    tracing::warn!(target: "presa_http", "could not refresh session {}: {error}", session.id());
                                    continue;
                                }
                            }
                        } else if !session.is_idle(timeout) {
                            continue;
                        }
                        live.remove_this(&session);
                        session.close();
                        tracing::debug!(target: "presa_http", "session {} ended after being idle", session.id());
                    }
                }
            });
        });
    }

    /// Starts, once, the task that tells sessions of the server's changes (sessions have no task
    /// of their own).
    ///
    /// With a shared store, a session's client may have subscribed to a resource through
    /// another instance: before a resource update, each session here with an open GET stream
    /// (the only ones it reaches) takes over the stored state, up to [`REFRESH_AT_ONCE`] loads at
    /// a time.
    pub(crate) fn start_announcer(&self) {
        self.start_relay();
        let sessions = Arc::downgrade(&self.live);
        let server = &self.server;
        let store = Arc::downgrade(&self.store);
        let ttl = self.ttl();
        let shared_store = self.storage.is_shared();
        self.announcer.get_or_init(|| {
            let mut changes = server.changes();
            let task = tokio::spawn(async move {
                loop {
                    match changes.recv().await {
                        Some(Ok(change)) => {
                            let Some(sessions) = sessions.upgrade() else {
                                return;
                            };
                            if shared_store
                                && matches!(change, Change::ResourceUpdated(_))
                                && let Some(store) = store.upgrade()
                            {
                                refresh_streaming(&sessions, &*store, ttl).await;
                            }
                            for session in sessions.all() {
                                session.announce(change.clone());
                            }
                        }
                        Some(Err(Missed(missed))) => {
                            tracing::warn!(
                                target: "presa_http",
                                "sessions missed {missed} changes: the change bus overflowed"
                            );
                        }
                        None => return,
                    }
                }
            });
            task.abort_handle()
        });
    }

    /// Remembers a 2026-07-28 request being answered, for a drain to end (a listen) or stop;
    /// returns its key.
    pub(crate) fn remember_in_flight(
        &self,
        connection: Arc<DrivenConnection>,
        queue: TransmitQueue,
        listen: bool,
    ) -> u64 {
        let key = self.next_in_flight.fetch_add(1, Ordering::Relaxed);
        let streamed = Streamed {
            connection,
            queue,
            listen,
        };
        self.in_flight().insert(key, streamed);
        key
    }

    pub(crate) fn forget_in_flight(&self, key: u64) {
        self.in_flight().remove(&key);
    }

    /// Counts a POST with a request as being answered until the guard drops; `None` once a
    /// drain has started. Counted first, then the flag read (both `SeqCst`, as in
    /// [`start_draining`](Self::start_draining) and [`Serving::idle`]): a POST either sees the
    /// drain or is seen by it, never slips between the drain's flag and its count.
    pub(crate) fn serving(&self) -> Option<ServingGuard> {
        self.serving.count.fetch_add(1, Ordering::SeqCst);
        let guard = ServingGuard(Arc::clone(&self.serving));
        (!self.is_draining()).then_some(guard)
    }

    /// The count of POSTs being answered.
    pub(crate) fn serving_count(&self) -> &Serving {
        &self.serving
    }

    /// Whether a drain started: new sessions and requests are refused.
    pub(crate) fn is_draining(&self) -> bool {
        self.draining.load(Ordering::SeqCst)
    }

    /// Refuses new sessions and requests from now on.
    pub(crate) fn start_draining(&self) {
        self.draining.store(true, Ordering::SeqCst);
    }

    /// Ends every listen stream with its result (the requests' own signal that the server
    /// stops sending) and every session's GET stream.
    pub(crate) fn end_streams(&self) {
        self.end_listens();
        for session in self.live.all() {
            session.end_get_stream();
        }
    }

    /// Ends every listen with its result.
    fn end_listens(&self) {
        for streamed in self.in_flight().values().filter(|s| s.listen) {
            streamed.connection.close();
        }
    }

    /// Stops every request still being answered, unanswered, and ends the live parts of every
    /// session; returns how many 2026-07-28 requests and sessions were stopped.
    pub(crate) fn stop_everything(&self) -> usize {
        let mut stopped = 0;
        for (_, streamed) in self.in_flight().drain() {
            streamed.connection.abort();
            streamed.queue.close();
            stopped += 1;
        }
        for session in self.live.all() {
            self.live.remove(session.id());
            if session.abort() {
                stopped += 1;
            }
        }
        stopped
    }

    /// Ends every listen stream and the live parts of every session (graceful stop). The
    /// sessions' state stays in the store: with a store shared by several instances, another
    /// one continues them.
    pub(crate) fn close_sessions(&self) {
        self.end_listens();
        for session in self.live.all() {
            self.live.remove(session.id());
            session.close();
        }
    }

    pub(crate) fn supports_initialize_era(&self) -> bool {
        self.server
            .supported_versions()
            .supports_era(Era::Initialize)
    }

    /// The HTTP methods the endpoint takes: GET and DELETE only with initialize-era sessions.
    pub(crate) fn allowed_methods(&self) -> &'static str {
        if self.supports_initialize_era() {
            "GET, POST, DELETE"
        } else {
            "POST"
        }
    }
}

/// Events waiting to be logged while the store is slow or away; past this they are dropped
/// (with a warning) instead of piling up.
const LOG_ROOM: usize = 4096;

/// How many waiting events go to the store in one call.
const LOG_BATCH: usize = 256;

/// How many sessions' states a resource update loads at once.
const REFRESH_AT_ONCE: usize = 32;

/// Writes the events sessions hand over to the store's event log, in batches, until every
/// sender (the endpoint's and its sessions') is gone.
async fn write_log(
    mut events: mpsc::Receiver<LoggedEvent>,
    store: Weak<dyn EventLog>,
    ttl: Option<Duration>,
) {
    let mut batch = Vec::with_capacity(LOG_BATCH);
    while events.recv_many(&mut batch, LOG_BATCH).await > 0 {
        let Some(store) = store.upgrade() else { return };
        let written = std::mem::replace(&mut batch, Vec::with_capacity(LOG_BATCH));
        if let Err(error) = store.log_events(written, ttl).await {
            tracing::warn!(
                target: "presa_http",
                "events were not logged, and cannot be resumed on another instance: {}",
                ErrorReport(&error)
            );
        }
    }
}

/// Brings the sessions here with an open GET stream up to date with their stored state.
async fn refresh_streaming(
    sessions: &LiveSessions,
    store: &dyn SessionStore,
    ttl: Option<Duration>,
) {
    let streaming = sessions.all().into_iter().filter(|s| s.is_streaming());
    futures_util::stream::iter(streaming)
        .for_each_concurrent(REFRESH_AT_ONCE, |session| async move {
            match store.load(session.id(), ttl).await {
                Ok(Some(state)) => session.adopt(&state),
                // removed: the next request finds it gone
                Ok(None) => {}
                Err(error) => tracing::warn!(
                    target: "presa_http",
                    "session {}: a resource update is announced from the state held here: {}",
                    session.id(),
                    ErrorReport(&error)
                ),
            }
        })
        .await;
}
