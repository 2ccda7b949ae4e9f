//! Where initialize-era sessions keep their state: the [`SessionStore`] trait, its in-memory
//! default, and the state itself as plain data; and what instances sharing sessions need
//! besides: the [`EventLog`] of their GET streams and the [`Relay`] between them.

use std::collections::HashMap;
use std::error::Error;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use presa_core::ProtocolVersion;
use presa_server::{BusReceiver, ConnectionState};
use serde::{Deserialize, Serialize};

/// What an initialize-era session is between its requests, as plain data that a store outside
/// the process can keep: everything an instance needs to serve the session's next request.
///
/// The live parts of a session (its open GET and POST streams, the handlers running for it, the
/// events kept for `Last-Event-ID`) stay with the process that holds them. The time of the last
/// activity is the store's to keep, as the state's time to live (see [`SessionStore`]): a field
/// for it would make every request a write.
///
/// ```
/// use presa_http::SessionState;
///
/// let json = r#"{"id":"5f1c","owner":"alice","revision":2,"nextStream":65,
///     "connection":{"session":{"client":{"protocolVersion":"2025-06-18","capabilities":{},
///     "clientInfo":{"name":"c","version":"1"}},"initialized":true,"logLevel":"warning"},
///     "subscriptions":["file:///notes.txt"]}}"#;
/// let state: SessionState = serde_json::from_str(json).unwrap();
/// assert_eq!(state.version().as_str(), "2025-06-18");
/// assert!(state.belongs_to(Some("alice")));
/// assert!(!state.belongs_to(Some("mallory")));
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SessionState {
    /// The session id (`Mcp-Session-Id`).
    pub id: Arc<str>,
    /// The authenticated caller who created the session, the only one who may use it; `None`
    /// for a session created without authentication, which anyone holding its id may use.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    /// Bumped by every save (the first save is revision 1): an instance holding the session's
    /// live parts compares it with the revision it last saw, and takes a newer stored state
    /// over, its own unsaved changes on top.
    pub revision: u64,
    /// The first event-stream number no instance has reserved (event ids are
    /// `<stream>-<seq>`). An instance reserves numbers in blocks, so a save is not needed for
    /// every stream it opens.
    pub next_stream: u64,
    /// The negotiated revision, the client's capabilities and info, the log level and the
    /// subscriptions.
    pub connection: ConnectionState,
}

impl SessionState {
    /// The state of session `id`, created by `owner` (if authenticated), before its first
    /// save: revision 0, no stream numbers reserved.
    pub fn new(
        id: impl Into<Arc<str>>,
        owner: Option<String>,
        connection: ConnectionState,
    ) -> Self {
        Self {
            id: id.into(),
            owner,
            revision: 0,
            next_stream: 1,
            connection,
        }
    }

    /// The negotiated revision.
    pub fn version(&self) -> ProtocolVersion {
        self.connection.session.client.protocol_version
    }

    /// Whether `caller` may use the session: anyone, unless an authenticated caller created it.
    pub fn belongs_to(&self, caller: Option<&str>) -> bool {
        self.owner.is_none() || self.owner.as_deref() == caller
    }
}

/// What the [`SessionStore`] methods return: a boxed future, so that stores whose reads and
/// writes are network calls fit as well as the in-memory one.
pub type StoreFuture<'a, T> =
    Pin<Box<dyn Future<Output = Result<T, SessionStoreError>> + Send + 'a>>;

/// Where initialize-era session state is kept.
///
/// The endpoint loads a session's state for each of its requests, saves it when it changed
/// (`initialize`, `notifications/initialized`, `logging/setLevel`, a subscription, a new block
/// of stream numbers), and removes it on `DELETE`. `ttl` is the endpoint's
/// [`session_idle_timeout`](crate::HttpOptions::session_idle_timeout): a store forgets a state
/// that was neither loaded nor saved for that long (`None`: never by itself). Loading counts as
/// activity.
///
/// A save is conditional, so that instances sharing a store never overwrite each other's
/// changes: it replaces only the revision the saver last saw (compare-and-set, e.g. a Redis
/// transaction or a SQL `UPDATE … WHERE revision = ?`). An instance whose save lost loads the
/// newer state, puts its own changes on top and saves again.
///
/// [`InMemorySessionStore`] serves one process. With a store shared by several instances (a
/// [`SharedSessionStore`], given as [`SessionStorage::shared`]), any instance serves a
/// session's plain requests from its state; what lives in one process (a
/// handler waiting for the client's answer to its request, the events kept for
/// `Last-Event-ID`, the GET stream) still needs requests routed to it. 2026-07-28 clients need
/// no store at all.
///
/// ```
/// use std::sync::Arc;
/// use presa_http::{HttpOptions, InMemorySessionStore, SessionStorage, router_with_store};
///
/// let server = presa_server::Server::builder("app", "1.0.0").build().unwrap();
/// let store = SessionStorage::local(Arc::new(InMemorySessionStore::default()));
/// let app: axum::Router = router_with_store(server, HttpOptions::default(), store);
/// ```
pub trait SessionStore: Send + Sync + fmt::Debug + 'static {
    /// The state of session `id`, unless it is unknown or expired; it is kept for `ttl` from
    /// now.
    fn load<'a>(
        &'a self,
        id: &'a str,
        ttl: Option<Duration>,
    ) -> StoreFuture<'a, Option<Arc<SessionState>>>;

    /// Keeps `state` for `ttl` from now if the state stored under its id has revision
    /// `replaces` (`None`: no state is stored, a new session). Returns whether it did: `false`
    /// when another instance saved meanwhile or the session was removed.
    fn save(
        &self,
        state: Arc<SessionState>,
        replaces: Option<u64>,
        ttl: Option<Duration>,
    ) -> StoreFuture<'_, bool>;

    /// Forgets session `id` (nothing happens when it is unknown), its event log with it.
    fn remove<'a>(&'a self, id: &'a str) -> StoreFuture<'a, ()>;
}

/// The events of sessions' GET streams, kept where every instance sharing the sessions reads
/// them, so that a client resuming with `Last-Event-ID` on any instance gets what it missed.
pub trait EventLog: Send + Sync + fmt::Debug + 'static {
    /// Appends `events` to their sessions' event logs, in order, each log keeping the newest
    /// events it has room for and expiring with its session's state (`ttl` from now). The
    /// endpoint calls it in the background, with events already sent to their clients: one that
    /// fails is logged and lost to resumption elsewhere, nothing more.
    fn log_events(&self, events: Vec<LoggedEvent>, ttl: Option<Duration>) -> StoreFuture<'_, ()>;

    /// The logged events of session `session`'s stream `stream` that came after event `seq`,
    /// in order, when the log still holds that event (or the stream's opening, when `seq` is
    /// its first); `None` when it does not: the stream is unknown, or its start was trimmed
    /// away and events after `seq` may be missing.
    fn events_after<'a>(
        &'a self,
        session: &'a str,
        stream: u64,
        seq: u64,
    ) -> StoreFuture<'a, Option<Vec<LoggedEvent>>>;
}

/// Carries a client's message from the instance it was posted to to the others, one of which
/// may be waiting for it: an answer to a request it sent, a cancellation of a request it
/// serves.
pub trait Relay: Send + Sync + fmt::Debug + 'static {
    /// Sends `message` to every other instance (to their [`relayed`](Self::relayed)
    /// receivers), in the background: at most once, in the order sent.
    fn relay(&self, message: Relayed);

    /// What other instances relay from now on.
    fn relayed(&self) -> BusReceiver<Relayed>;
}

/// A session store that several instances share, e.g. presa-redis's: the sessions' state
/// ([`SessionStore`]), their GET streams' [`EventLog`], and the [`Relay`] between instances. An
/// endpoint given one ([`SessionStorage::shared`]) also gives the requests it sends clients
/// ids no other instance gives. Implemented for every type that is all three.
pub trait SharedSessionStore: SessionStore + EventLog + Relay {}

impl<T: SessionStore + EventLog + Relay> SharedSessionStore for T {}

/// Where an endpoint keeps its initialize-era sessions: in a store of this instance alone, or
/// in one that several instances share.
///
/// ```
/// use std::sync::Arc;
/// use presa_http::{InMemorySessionStore, SessionStorage};
///
/// let local = SessionStorage::local(Arc::new(InMemorySessionStore::default()));
/// assert!(!local.is_shared());
/// ```
#[derive(Clone, Debug)]
pub enum SessionStorage {
    /// A store only this instance uses (the in-memory default, or one that outlives restarts).
    Local(Arc<dyn SessionStore>),
    /// A store several instances share: each serves any session, resumes any stream from the
    /// log, and relays to the others what they wait for.
    Shared(Arc<dyn SharedSessionStore>),
}

impl SessionStorage {
    /// `store`, for this instance alone.
    pub fn local(store: Arc<impl SessionStore>) -> Self {
        Self::Local(store)
    }

    /// `store`, shared by several instances.
    pub fn shared(store: Arc<impl SharedSessionStore>) -> Self {
        Self::Shared(store)
    }

    /// Whether several instances share it.
    pub fn is_shared(&self) -> bool {
        matches!(self, Self::Shared(_))
    }

    /// The sessions' state.
    pub(crate) fn store(&self) -> Arc<dyn SessionStore> {
        match self {
            Self::Local(store) => Arc::clone(store),
            Self::Shared(store) => Arc::clone(store) as Arc<dyn SessionStore>,
        }
    }

    /// What only a shared store has.
    pub(crate) fn sharing(&self) -> Option<&Arc<dyn SharedSessionStore>> {
        match self {
            Self::Local(_) => None,
            Self::Shared(store) => Some(store),
        }
    }
}

impl Default for SessionStorage {
    /// An [`InMemorySessionStore`] of this instance.
    fn default() -> Self {
        Self::local(Arc::new(InMemorySessionStore::default()))
    }
}

/// One event of a session's GET stream, as a shared store's event log keeps it (see
/// [`EventLog::log_events`]): the SSE event `<stream>-<seq>`.
///
/// ```
/// use presa_http::LoggedEvent;
///
/// let event = LoggedEvent::new("5f1c", 65, 3, r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#);
/// assert_eq!(event.event_id(), "65-3");
/// assert!(!event.is_opening());
/// assert!(LoggedEvent::opening("5f1c", 65, 1).is_opening());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct LoggedEvent {
    /// The session id.
    pub session: Arc<str>,
    /// The stream number.
    pub stream: u64,
    /// The event's number in its stream.
    pub seq: u64,
    /// The message, as JSON; empty for the mark a stream leaves when it opens (a resumption
    /// from its first event id finds it, and it is never sent).
    pub json: Arc<str>,
}

impl LoggedEvent {
    /// Event `seq` of stream `stream` of session `session`, carrying the message `json`.
    pub fn new(
        session: impl Into<Arc<str>>,
        stream: u64,
        seq: u64,
        json: impl Into<Arc<str>>,
    ) -> Self {
        Self {
            session: session.into(),
            stream,
            seq,
            json: json.into(),
        }
    }

    /// The mark stream `stream` leaves as it opens: `seq` is the number before its first
    /// message's (its priming event's, or 0).
    pub fn opening(session: impl Into<Arc<str>>, stream: u64, seq: u64) -> Self {
        Self::new(session, stream, seq, "")
    }

    /// Whether this is a stream's opening mark rather than a message.
    pub fn is_opening(&self) -> bool {
        self.json.is_empty()
    }

    /// The SSE event id, `<stream>-<seq>`.
    pub fn event_id(&self) -> String {
        format!("{}-{}", self.stream, self.seq)
    }
}

/// A message of a session's client, posted to one instance, that another instance sharing the
/// session store may be waiting for: an answer to a request the server sent (its id names the
/// instance that sent it), or a `notifications/cancelled` for a request being served elsewhere
/// (see [`Relay`]). It serializes as plain JSON, for a store that carries it
/// between processes:
///
/// ```
/// use presa_http::Relayed;
///
/// let answer = Relayed::new("5f1c", r#"{"jsonrpc":"2.0","id":"b7:0","result":{}}"#);
/// let json = serde_json::to_string(&answer).unwrap();
/// assert_eq!(json, r#"{"session":"5f1c","message":"{\"jsonrpc\":\"2.0\",\"id\":\"b7:0\",\"result\":{}}"}"#);
/// assert_eq!(serde_json::from_str::<Relayed>(&json).unwrap(), answer);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Relayed {
    /// The session id.
    pub session: Arc<str>,
    /// The client's message, as JSON.
    pub message: Arc<str>,
}

impl Relayed {
    /// The message `message` (JSON) of session `session`'s client.
    pub fn new(session: impl Into<Arc<str>>, message: impl Into<Arc<str>>) -> Self {
        Self {
            session: session.into(),
            message: message.into(),
        }
    }
}

/// Why a [`SessionStore`] could not load, save or remove a state. The endpoint answers the
/// request with HTTP 503 and `Retry-After`.
#[derive(Debug)]
pub struct SessionStoreError {
    message: String,
    source: Option<Box<dyn Error + Send + Sync>>,
}

impl SessionStoreError {
    /// An error described by `message`.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            source: None,
        }
    }

    /// An error described by `message`, caused by `source` (e.g. the store's client error).
    pub fn with_source(
        message: impl Into<String>,
        source: impl Into<Box<dyn Error + Send + Sync>>,
    ) -> Self {
        Self {
            message: message.into(),
            source: Some(source.into()),
        }
    }
}

impl fmt::Display for SessionStoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "session store: {}", self.message)
    }
}

impl Error for SessionStoreError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        self.source
            .as_deref()
            .map(|source| source as &(dyn Error + 'static))
    }
}

/// Session states in a map in this process. Expired states are dropped when they are loaded,
/// and swept at most once a second as states are saved. Its futures are ready at once: the work
/// is done when a method is called.
#[derive(Debug, Default)]
pub struct InMemorySessionStore {
    map: Mutex<InMemory>,
}

#[derive(Debug, Default)]
struct InMemory {
    states: HashMap<Arc<str>, Kept>,
    swept: Option<Instant>,
}

#[derive(Debug)]
struct Kept {
    state: Arc<SessionState>,
    expires: Option<Instant>,
}

const SWEEP_EVERY: Duration = Duration::from_secs(1);

impl InMemorySessionStore {
    fn map(&self) -> MutexGuard<'_, InMemory> {
        self.map
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// How many states are kept (expired ones not yet swept included).
    pub fn len(&self) -> usize {
        self.map().states.len()
    }

    /// Whether no state is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

fn expiry(now: Instant, ttl: Option<Duration>) -> Option<Instant> {
    ttl.and_then(|ttl| now.checked_add(ttl))
}

impl SessionStore for InMemorySessionStore {
    fn load<'a>(
        &'a self,
        id: &'a str,
        ttl: Option<Duration>,
    ) -> StoreFuture<'a, Option<Arc<SessionState>>> {
        let now = Instant::now();
        let mut map = self.map();
        let state = match map.states.get_mut(id) {
            Some(kept) if kept.expires.is_none_or(|at| at > now) => {
                kept.expires = expiry(now, ttl);
                Some(Arc::clone(&kept.state))
            }
            Some(_) => {
                map.states.remove(id);
                None
            }
            None => None,
        };
        Box::pin(std::future::ready(Ok(state)))
    }

    fn save(
        &self,
        state: Arc<SessionState>,
        replaces: Option<u64>,
        ttl: Option<Duration>,
    ) -> StoreFuture<'_, bool> {
        let now = Instant::now();
        let mut map = self.map();
        if map
            .swept
            .is_none_or(|at| now.duration_since(at) >= SWEEP_EVERY)
        {
            map.swept = Some(now);
            map.states
                .retain(|_, kept| kept.expires.is_none_or(|at| at > now));
        }
        let stored = map
            .states
            .get(&state.id)
            .filter(|kept| kept.expires.is_none_or(|at| at > now))
            .map(|kept| kept.state.revision);
        if stored != replaces {
            return Box::pin(std::future::ready(Ok(false)));
        }
        let kept = Kept {
            expires: expiry(now, ttl),
            state: Arc::clone(&state),
        };
        map.states.insert(Arc::clone(&state.id), kept);
        Box::pin(std::future::ready(Ok(true)))
    }

    fn remove<'a>(&'a self, id: &'a str) -> StoreFuture<'a, ()> {
        self.map().states.remove(id);
        Box::pin(std::future::ready(Ok(())))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn state(id: &str) -> Arc<SessionState> {
        let json = format!(
            r#"{{"id":"{id}","revision":1,"nextStream":1,"connection":{{"session":{{
            "client":{{"protocolVersion":"2025-11-25","capabilities":{{}}}},"initialized":false}}}}}}"#
        );
        Arc::new(serde_json::from_str(&json).unwrap())
    }

    fn saved(
        store: &InMemorySessionStore,
        state: Arc<SessionState>,
        replaces: Option<u64>,
        ttl: Option<Duration>,
    ) -> bool {
        let mut future = store.save(state, replaces, ttl);
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        match future.as_mut().poll(&mut cx) {
            std::task::Poll::Ready(Ok(saved)) => saved,
            other => panic!("the in-memory store answers at once: {other:?}"),
        }
    }

    fn load(store: &InMemorySessionStore, id: &str, ttl: Option<Duration>) -> Option<u64> {
        let mut future = store.load(id, ttl);
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        match future.as_mut().poll(&mut cx) {
            std::task::Poll::Ready(Ok(state)) => state.map(|s| s.revision),
            other => panic!("the in-memory store answers at once: {other:?}"),
        }
    }

    #[test]
    fn a_saved_state_loads_until_removed() {
        let store = InMemorySessionStore::default();
        assert!(saved(&store, state("a"), None, None));
        assert_eq!(load(&store, "a", None), Some(1));
        assert_eq!(load(&store, "b", None), None);
        drop(store.remove("a"));
        assert_eq!(load(&store, "a", None), None);
        assert!(store.is_empty());
    }

    #[test]
    fn a_state_expires_after_its_ttl_and_is_swept() {
        let store = InMemorySessionStore::default();
        assert!(saved(&store, state("a"), None, Some(Duration::ZERO)));
        assert_eq!(load(&store, "a", None), None, "expired at once");
        assert!(saved(&store, state("b"), None, Some(Duration::ZERO)));
        store.map().swept = None;
        assert!(saved(&store, state("c"), None, None));
        assert_eq!(store.len(), 1, "the expired state was swept by the save");
    }

    #[test]
    fn loading_sets_a_new_ttl() {
        let store = InMemorySessionStore::default();
        assert!(saved(
            &store,
            state("a"),
            None,
            Some(Duration::from_secs(3600))
        ));
        assert_eq!(load(&store, "a", Some(Duration::ZERO)), Some(1));
        assert_eq!(load(&store, "a", None), None, "expired after its new ttl");
    }

    #[test]
    fn a_save_replaces_only_the_revision_it_names() {
        let store = InMemorySessionStore::default();
        assert!(saved(&store, state("a"), None, None));
        assert!(
            !saved(&store, state("a"), None, None),
            "a new session's id is taken"
        );
        let mut second = (*state("a")).clone();
        second.revision = 2;
        let second = Arc::new(second);
        assert!(
            !saved(&store, Arc::clone(&second), Some(7), None),
            "a stale revision"
        );
        assert!(saved(&store, Arc::clone(&second), Some(1), None));
        assert_eq!(load(&store, "a", None), Some(2));
        drop(store.remove("a"));
        assert!(
            !saved(&store, second, Some(2), None),
            "removed: nothing to replace"
        );
    }

    #[test]
    fn errors_keep_their_cause() {
        let cause = std::io::Error::other("connection refused");
        let error = SessionStoreError::with_source("could not load session 5f1c", cause);
        assert_eq!(
            error.to_string(),
            "session store: could not load session 5f1c"
        );
        assert_eq!(error.source().unwrap().to_string(), "connection refused");
    }
}
