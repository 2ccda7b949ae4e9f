//! What every request of one endpoint shares: the server, the options, the session store, the
//! requests a posted cancellation may stop, and the tasks that sweep idle sessions and announce
//! changes.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Once};
use std::time::Duration;

use axum::http::HeaderMap;
use presa_core::{Era, RequestId};
use presa_server::{AuthInfo, DrivenConnection, Server, TransmitQueue};

use super::auth::principal;
use super::options::{CancellationPolicy, HttpOptions};
use super::session::{HttpSession, LiveSessions};
use super::store::{SessionStore, SessionStoreError};

/// The requests a posted `notifications/cancelled` may stop, by subject and request id.
type Cancellable = HashMap<(String, RequestId), (Arc<DrivenConnection>, TransmitQueue)>;

/// What every request of one endpoint shares: one reference, cloned per request.
#[derive(Clone)]
pub(crate) struct Shared(Arc<SharedState>);

pub(crate) struct SharedState {
    pub(crate) server: Server,
    pub(crate) options: Arc<HttpOptions>,
    /// Where session state is kept.
    pub(crate) store: Arc<dyn SessionStore>,
    /// The sessions whose live parts this process holds.
    pub(crate) live: Arc<LiveSessions>,
    cancellable: Mutex<Cancellable>,
    sweeper: Once,
    /// The task telling sessions of the server's changes, ended with the endpoint.
    announcer: std::sync::OnceLock<tokio::task::AbortHandle>,
    /// The connection of each open 2026-07-28 listen stream, closed at shutdown.
    listens: Mutex<HashMap<u64, Arc<DrivenConnection>>>,
    next_listen: std::sync::atomic::AtomicU64,
}

impl Drop for SharedState {
    fn drop(&mut self) {
        if let Some(announcer) = self.announcer.get() {
            announcer.abort();
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
    pub(crate) fn new(server: Server, options: HttpOptions, store: Arc<dyn SessionStore>) -> Self {
        Self(Arc::new(SharedState {
            server,
            options: Arc::new(options),
            store,
            live: Arc::default(),
            cancellable: Mutex::default(),
            listens: Mutex::default(),
            next_listen: std::sync::atomic::AtomicU64::default(),
            sweeper: Once::new(),
            announcer: std::sync::OnceLock::new(),
        }))
    }

    /// The subject of a request, when posted cancellation is on.
    pub(crate) fn subject(&self, headers: &HeaderMap, auth: Option<&AuthInfo>) -> Option<String> {
        match &self.options.cancellation {
            CancellationPolicy::Subject(subject) => subject(headers),
            CancellationPolicy::AuthSubject => auth.and_then(principal),
            CancellationPolicy::None => None,
        }
    }

    pub(crate) fn remember_cancellable(
        &self,
        subject: &str,
        id: &RequestId,
        connection: Arc<DrivenConnection>,
        queue: TransmitQueue,
    ) {
        if let Ok(mut map) = self.cancellable.lock() {
            map.insert((subject.to_owned(), id.clone()), (connection, queue));
        }
    }

    pub(crate) fn forget_cancellable(&self, subject: &str, id: &RequestId) {
        if let Ok(mut map) = self.cancellable.lock() {
            map.remove(&(subject.to_owned(), id.clone()));
        }
    }

    pub(crate) fn cancel(&self, subject: &str, id: &RequestId) {
        let entry = self
            .cancellable
            .lock()
            .ok()
            .and_then(|mut map| map.remove(&(subject.to_owned(), id.clone())));
        if let Some((connection, queue)) = entry {
            // stopped unanswered: the POST waiting for its messages is told there are no more
            connection.cancel(id);
            queue.close();
        }
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
    ) -> Result<Option<Arc<HttpSession>>, SessionStoreError> {
        let Some(state) = self.store.load(id, self.ttl()).await? else {
            // deleted or expired, perhaps by another instance: so are the live parts here
            if let Some(live) = self.live.remove(id) {
                live.close();
            }
            return Ok(None);
        };
        if !state.belongs_to(caller) {
            return Ok(None);
        }
        if let Some(live) = self.live.get(id).filter(|live| live.is_open()) {
            live.adopt(&state);
            return Ok(Some(live));
        }
        self.start_sweeper();
        self.start_announcer();
        let restored = HttpSession::restore(&state, self.server.clone(), self.options.event_buffer);
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
                        live.remove(session.id());
                        session.close();
                        tracing::debug!(target: "presa_http", "session {} ended after being idle", session.id());
                    }
                }
            });
        });
    }

    /// Starts, once, the task that tells sessions of the server's changes (sessions have no task
    /// of their own).
    pub(crate) fn start_announcer(&self) {
        let sessions = Arc::downgrade(&self.live);
        let server = &self.server;
        self.announcer.get_or_init(|| {
            let mut changes = server.changes();
            let task = tokio::spawn(async move {
                loop {
                    match changes.recv().await {
                        Ok(change) => {
                            let Some(sessions) = sessions.upgrade() else {
                                return;
                            };
                            for session in sessions.all() {
                                session.announce(change.clone());
                            }
                        }
                        Err(tokio::sync::broadcast::error::RecvError::Lagged(missed)) => {
                            tracing::warn!(
                                target: "presa_http",
                                "sessions missed {missed} changes: the change bus overflowed"
                            );
                        }
                        Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
                    }
                }
            });
            task.abort_handle()
        });
    }

    /// Remembers an open listen stream, to end it gracefully at shutdown; returns its key.
    pub(crate) fn remember_listen(&self, connection: Arc<DrivenConnection>) -> u64 {
        let key = self
            .next_listen
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        if let Ok(mut listens) = self.listens.lock() {
            listens.insert(key, connection);
        }
        key
    }

    pub(crate) fn forget_listen(&self, key: u64) {
        if let Ok(mut listens) = self.listens.lock() {
            listens.remove(&key);
        }
    }

    /// Ends every listen stream and the live parts of every session (graceful stop). The
    /// sessions' state stays in the store: with a store shared by several instances, another
    /// one continues them.
    pub(crate) fn close_sessions(&self) {
        if let Ok(mut listens) = self.listens.lock() {
            for (_, connection) in listens.drain() {
                connection.close();
            }
        }
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
}
