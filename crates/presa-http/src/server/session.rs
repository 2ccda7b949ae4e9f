//! Initialize-era sessions over Streamable HTTP: `Mcp-Session-Id`, the POST and GET event
//! streams, event ids and `Last-Event-ID` resumption.

use std::collections::{HashMap, HashSet, VecDeque};
use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::Duration;

use presa_core::{
    Cancelled, CancelledNotificationParams, Message, NotificationMethod, ProtocolVersion,
    RequestId, Transmit,
};
#[cfg(doc)]
use presa_server::ConnectionState;
use presa_server::{Arrival, Change, DrivenConnection, InsufficientScope, Outbox, Server};

use super::store::{
    LoggedEvent, Relayed, SessionState, SessionStore, SessionStoreError, SharedSessionStore,
};
use tokio::sync::mpsc;
use tokio::time::Instant;

mod persist;
use persist::{SAVE_ATTEMPTS, Saved};

/// One message on its way to a client's event stream.
#[derive(Clone, Debug)]
pub(crate) struct Delivery {
    /// The SSE event id, `<stream>-<seq>`.
    pub(crate) event_id: String,
    /// The message, as JSON.
    pub(crate) json: Arc<str>,
    /// Whether this is a response (it counts toward finishing the stream).
    pub(crate) is_response: bool,
    /// The scopes an `insufficient_scope` error response says the request lacked, read from
    /// the typed error as it was routed.
    pub(crate) insufficient_scope: Option<InsufficientScope>,
    /// Whether the stream ends after this message.
    pub(crate) last: bool,
}

struct Stored {
    stream: u64,
    seq: u64,
    json: Arc<str>,
    is_response: bool,
    last: bool,
}

/// The streams of one session: the standalone GET stream and one stream for every POST that
/// carries requests. Each takes its number from the block this process reserved, so that event
/// ids (`<stream>-<seq>`) are the session's alone whichever instance gave them; stream 0 is the
/// GET stream's until a GET opens one.
#[derive(Default)]
struct Streams {
    next_stream: u64,
    /// The number of the standalone GET stream (the newest one a GET opened).
    standalone: u64,
    /// The end of the block of stream numbers this process reserved (see
    /// [`SessionState::next_stream`]).
    reserved_until: u64,
    /// How far this process's own saves reserved: numbers below it that this process has not
    /// used are its own, whatever another instance saved since (it reserves past them).
    confirmed_until: u64,
    /// The tables of open and resumable streams; `None` while there are none, which is what
    /// an idle session keeps (one pointer instead of five empty tables).
    active: Option<Box<Active>>,
}

/// What a session's streams hold while any is open or can be resumed.
#[derive(Default)]
struct Active {
    by_request: HashMap<RequestId, u64>,
    remaining: HashMap<u64, HashSet<RequestId>>,
    next_seq: HashMap<u64, u64>,
    live: HashMap<u64, mpsc::Sender<Delivery>>,
    buffer: VecDeque<Stored>,
    /// The bytes of JSON `buffer` holds.
    buffered_bytes: usize,
}

/// How much a session keeps for `Last-Event-ID` resumption: at most `events` events and
/// `bytes` bytes of them (the newest event is kept whatever its size).
#[derive(Clone, Copy, Debug)]
pub(crate) struct EventBuffer {
    pub(crate) events: usize,
    pub(crate) bytes: usize,
}

/// What a session served by several instances (a shared [`SessionStore`]) needs: where its GET
/// stream's events go to be logged, and what the ids of the requests this process sends its
/// client start with.
///
/// [`SessionStore`]: super::store::SessionStore
#[derive(Clone, Debug)]
pub(crate) struct Sharing {
    pub(crate) log: mpsc::Sender<LoggedEvent>,
    pub(crate) request_ids: Arc<str>,
}

impl Active {
    fn is_empty(&self) -> bool {
        self.by_request.is_empty()
            && self.remaining.is_empty()
            && self.next_seq.is_empty()
            && self.live.is_empty()
            && self.buffer.is_empty()
    }
}

impl Streams {
    /// The next number of the current block.
    fn take(&mut self) -> u64 {
        let stream = self.next_stream;
        self.next_stream += 1;
        stream
    }

    /// Starts a new block, past every number any instance reserved (`known`: the store's
    /// record), when this one is used up; whether it did.
    fn reserve_if_used_up(&mut self, known: u64) -> bool {
        if self.next_stream < self.reserved_until {
            return false;
        }
        let from = self.next_stream.max(known);
        self.next_stream = from;
        self.reserved_until = from.saturating_add(STREAM_BLOCK);
        true
    }

    /// Whether any stream's sender is open.
    fn any_live(&self) -> bool {
        self.active
            .as_deref()
            .is_some_and(|active| active.live.values().any(|sender| !sender.is_closed()))
    }

    /// Whether stream `stream`'s sender is open.
    fn is_live(&self, stream: u64) -> bool {
        self.active
            .as_deref()
            .and_then(|active| active.live.get(&stream))
            .is_some_and(|tx| !tx.is_closed())
    }

    /// The tables, made when the first stream opens.
    fn active(&mut self) -> &mut Active {
        self.active.get_or_insert_with(Box::default)
    }

    /// Gives the tables back once nothing is open or resumable.
    fn settle(&mut self) {
        if self.active.as_deref().is_some_and(Active::is_empty) {
            self.active = None;
        }
    }
}

const STREAM_QUEUE: usize = 256;

/// How many stream numbers a process reserves at once, so that the session's state is saved
/// once per this many POSTs rather than on each.
const STREAM_BLOCK: u64 = 1024;

/// The live parts of one initialize-era session, held by the process serving it: a connection
/// of the server driven by the session's POSTs (no task of its own while idle), and the event
/// streams its messages go out on. Its state is saved in the [`SessionStore`] whenever it
/// changes, and any instance can continue the session from there.
///
/// [`SessionStore`]: super::store::SessionStore
pub(crate) struct HttpSession {
    /// The session id, one allocation shared with the maps and the stored state.
    id: Arc<str>,
    connection: DrivenConnection,
    streams: Mutex<Streams>,
    last_active: Mutex<Instant>,
    /// The requests using the session now (see [`InUse`]): a session in use is not ended to
    /// make room, even before its request has opened a stream or delivered a message.
    ///
    /// [`InUse`]: super::live::InUse
    users: AtomicUsize,
    /// The negotiated revision, kept apart from the connection's: the connection's outbox
    /// (`close_stream_of`) needs it while the connection's state is locked.
    version: Mutex<Option<ProtocolVersion>>,
    buffer_limits: EventBuffer,
    /// Who created the session (an authenticated caller), the only one who may use it.
    owner: Option<String>,
    saved: Mutex<Saved>,
    /// Set while a save is under way: saves of one session in this process go one at a time,
    /// and a newer stored state is taken over only between them (see
    /// [`Saving`](persist::Saving)).
    saving: AtomicBool,
    /// Set when other instances may serve the session too.
    sharing: Option<Sharing>,
}

impl fmt::Debug for HttpSession {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpSession")
            .field("id", &self.id)
            .field("version", &self.version())
            .finish_non_exhaustive()
    }
}

pub(super) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl HttpSession {
    /// A session serving `server`. `owner` is the authenticated caller who created it, if any.
    pub(crate) fn start(
        id: Arc<str>,
        server: Server,
        buffer_limits: EventBuffer,
        owner: Option<String>,
        sharing: Option<Sharing>,
    ) -> Arc<Self> {
        let saved = Saved::default();
        Self::with_connection(id, server, buffer_limits, owner, saved, None, sharing)
    }

    /// The live parts of a session continued from its saved state (on an instance that held
    /// none of it, or no longer).
    pub(crate) fn restore(
        state: &Arc<SessionState>,
        server: Server,
        buffer_limits: EventBuffer,
        sharing: Option<Sharing>,
    ) -> Arc<Self> {
        let saved = Saved {
            base: Some(Arc::clone(state)),
            changes: 0,
        };
        let session = Self::with_connection(
            Arc::clone(&state.id),
            server,
            buffer_limits,
            state.owner.clone(),
            saved,
            Some(state.version()),
            sharing,
        );
        session.connection.set_state(state.connection.clone());
        lock(&session.saved).changes = session.connection.state_changes();
        session
    }

    fn with_connection(
        id: Arc<str>,
        server: Server,
        buffer_limits: EventBuffer,
        owner: Option<String>,
        saved: Saved,
        version: Option<ProtocolVersion>,
        sharing: Option<Sharing>,
    ) -> Arc<Self> {
        let next_stream = saved.next_stream().max(1);
        Arc::new_cyclic(|session: &Weak<Self>| {
            let outbox = SessionOutbox(session.clone());
            let connection = DrivenConnection::new(server, outbox);
            if let Some(sharing) = &sharing {
                connection.set_request_id_prefix(Arc::clone(&sharing.request_ids));
            }
            Self {
                id,
                connection,
                streams: Mutex::new(Streams {
                    next_stream,
                    reserved_until: next_stream,
                    confirmed_until: next_stream,
                    ..Streams::default()
                }),
                last_active: Mutex::new(Instant::now()),
                users: AtomicUsize::new(0),
                version: Mutex::new(version),
                buffer_limits,
                owner,
                saved: Mutex::new(saved),
                saving: AtomicBool::new(false),
                sharing,
            }
        })
    }

    /// The session id.
    pub(crate) fn id(&self) -> &str {
        &self.id
    }

    /// The session id, shared.
    pub(crate) fn shared_id(&self) -> &Arc<str> {
        &self.id
    }

    /// The authenticated caller who created the session, if one did.
    pub(crate) fn owner(&self) -> Option<&str> {
        self.owner.as_deref()
    }

    /// The negotiated revision, once `initialize` was answered.
    pub(crate) fn version(&self) -> Option<ProtocolVersion> {
        *lock(&self.version)
    }

    /// The revision the session's connection negotiated, once `initialize` was answered.
    pub(crate) fn negotiated(&self) -> Option<ProtocolVersion> {
        self.connection
            .client()
            .map(|client| client.protocol_version)
    }

    pub(crate) fn set_version(&self, version: ProtocolVersion) {
        *lock(&self.version) = Some(version);
    }

    /// Marks the session used now, for its idle timeout (see [`LiveSessions::use_session`],
    /// which the endpoint calls).
    ///
    /// [`LiveSessions::use_session`]: super::live::LiveSessions::use_session
    pub(crate) fn touch(&self) {
        *lock(&self.last_active) = Instant::now();
    }

    /// Whether nothing of the session is under way here: no request using it, no stream open
    /// (GET or POST) and no message in flight. Such a session can be ended without cutting
    /// anything off.
    pub(crate) fn is_quiet(&self) -> bool {
        self.users.load(Ordering::Acquire) == 0
            && self.connection.in_flight() == 0
            && !lock(&self.streams).any_live()
    }

    /// The count of requests using the session (see [`InUse`](super::live::InUse)).
    pub(super) fn users(&self) -> &AtomicUsize {
        &self.users
    }

    /// Whether the session has an open GET stream.
    pub(crate) fn is_streaming(&self) -> bool {
        let streams = lock(&self.streams);
        streams.is_live(streams.standalone)
    }

    /// Whether the session saw no request for `timeout` and has no open GET stream.
    pub(crate) fn is_idle(&self, timeout: Duration) -> bool {
        !self.is_streaming() && lock(&self.last_active).elapsed() >= timeout
    }

    /// Ends the session: the connection takes no more messages, and every stream ends.
    pub(crate) fn close(&self) {
        self.connection.close();
        let mut streams = lock(&self.streams);
        if let Some(active) = streams.active.as_deref_mut() {
            active.live.clear();
        }
        streams.settle();
    }

    /// Ends the session's GET stream, if one is open; the session goes on (its client may open
    /// another, on this instance or, with a shared store, on another).
    pub(crate) fn end_get_stream(&self) {
        let mut streams = lock(&self.streams);
        let standalone = streams.standalone;
        if let Some(active) = streams.active.as_deref_mut() {
            active.live.remove(&standalone);
        }
        streams.settle();
    }

    /// Ends the session here and stops its requests in flight, unanswered; returns whether any
    /// was.
    pub(crate) fn abort(&self) -> bool {
        let had_requests = self.connection.in_flight() > 0;
        self.connection.abort();
        self.close();
        had_requests
    }

    /// Hands messages to the session's connection, with the identity verified for them;
    /// `false` once the session is closed.
    pub(crate) fn deliver(&self, messages: Vec<Message>, arrival: &Arrival) -> bool {
        // the session is what its callers are known by (the owner of their tasks)
        let arrival = arrival.clone().with_session(Arc::clone(&self.id));
        messages
            .into_iter()
            .all(|message| self.connection.handle(message, &arrival))
    }

    /// The messages of the client, among `messages`, that another instance serving the session
    /// may be waiting for: answers to requests that this process did not send (their ids do not
    /// start with its prefix), and cancellations of requests not served here. Nothing when no
    /// other instance serves the session.
    pub(crate) fn for_elsewhere(&self, messages: &[Message]) -> Vec<Relayed> {
        let Some(sharing) = &self.sharing else {
            return Vec::new();
        };
        let elsewhere = |message: &Message| match message {
            Message::Response(response) => !matches!(
                &response.id,
                Some(RequestId::String(id)) if id.starts_with(&*sharing.request_ids)
            ),
            Message::Notification(notification) if notification.method == Cancelled::METHOD => {
                CancelledNotificationParams::from_raw(notification.params.as_ref())
                    .and_then(|params| params.request_id)
                    .is_some_and(|id| !self.connection.serves(&id))
            }
            _ => false,
        };
        messages
            .iter()
            .filter(|message| elsewhere(message))
            .map(|message| Relayed::new(Arc::clone(&self.id), message.to_json()))
            .collect()
    }

    /// Whether the session still takes messages.
    pub(crate) fn is_open(&self) -> bool {
        !self.connection.is_closed()
    }

    /// Ends the POST stream carrying `request` early (SEP-1699 polling), when the client can
    /// resume it: at 2025-11-25 every POST stream starts with a priming event id. The stream's
    /// later messages stay in the buffer for the client's `GET` with `Last-Event-ID`.
    fn close_stream_of(&self, request: &RequestId) -> bool {
        if !self.version().is_some_and(ProtocolVersion::primes_streams) {
            return false;
        }
        let mut streams = lock(&self.streams);
        let Some(active) = streams.active.as_deref_mut() else {
            return false;
        };
        match active.by_request.get(request).copied() {
            Some(stream) => active.live.remove(&stream).is_some(),
            None => false,
        }
    }

    /// Tells the session's client of a change it listens for.
    pub(crate) fn announce(&self, change: Change) {
        self.connection.announce(change);
    }

    /// A stream number no other instance gives: from a block this process saved in the store
    /// (reserving the next block first when this one is used up), or, for a session not saved
    /// yet, from its first block, which its first save reserves.
    pub(crate) async fn stream_number(
        &self,
        store: &dyn SessionStore,
        ttl: Option<Duration>,
    ) -> Result<u64, SessionStoreError> {
        for _ in 0..SAVE_ATTEMPTS {
            let known = lock(&self.saved).base.as_ref().map(|base| base.next_stream);
            {
                let mut streams = lock(&self.streams);
                let Some(known) = known else {
                    streams.reserve_if_used_up(1);
                    return Ok(streams.take());
                };
                // a block saved is this instance's to use; one whose save (by another request
                // here) is under way is saved below, or found saved
                if !streams.reserve_if_used_up(known)
                    && streams.reserved_until <= streams.confirmed_until
                {
                    return Ok(streams.take());
                }
            }
            // saved: the block is this instance's, and the next round takes from it; or
            // another instance's newer reservation was taken over, which drops the block, and
            // the next round reserves past it
            if !self.persist(store, ttl).await? {
                return Err(SessionStoreError::new(format!(
                    "session {} was removed while a stream opened",
                    self.id
                )));
            }
        }
        Err(SessionStoreError::new(format!(
            "session {}: no block of stream numbers could be reserved",
            self.id
        )))
    }

    /// Opens stream `stream` (a number from [`stream_number`](Self::stream_number)) for a POST
    /// carrying `requests`; their responses and related messages are delivered on the returned
    /// channel. With `primed`, the stream's first event id is reserved for a priming event and
    /// returned.
    pub(crate) fn open_stream(
        &self,
        stream: u64,
        requests: &[RequestId],
        primed: bool,
    ) -> (Option<String>, mpsc::Receiver<Delivery>) {
        // room for every answer of a batch the session gives at once (pings, errors) before the
        // POST starts reading; the channel allocates as it fills
        let (tx, rx) = mpsc::channel(STREAM_QUEUE + requests.len());
        let mut streams = lock(&self.streams);
        let active = streams.active();
        for id in requests {
            active.by_request.insert(id.clone(), stream);
        }
        active
            .remaining
            .insert(stream, requests.iter().cloned().collect());
        active.next_seq.insert(stream, if primed { 2 } else { 1 });
        active.live.insert(stream, tx);
        (primed.then(|| format!("{stream}-1")), rx)
    }

    /// Forgets a finished stream whose messages went out as a JSON body: there is nothing to
    /// resume, so nothing of it is kept.
    pub(crate) fn forget_stream(&self, stream: u64) {
        let mut streams = lock(&self.streams);
        let Some(active) = streams.active.as_deref_mut() else {
            return;
        };
        active.next_seq.remove(&stream);
        active.live.remove(&stream);
        if active.remaining.remove(&stream).is_some() {
            active.by_request.retain(|_, s| *s != stream);
        }
        active.buffer.retain(|e| e.stream != stream);
        active.buffered_bytes = active.buffer.iter().map(|e| e.json.len()).sum();
        // nothing open or resumable: an idle session keeps none of the tables
        streams.settle();
    }

    /// Opens stream `stream` (a number from [`stream_number`](Self::stream_number)) as the
    /// standalone GET stream, the one that reaches the client from now on: the GET stream it
    /// replaces ends, and is no longer resumed here (its events stay in the buffer until they
    /// are evicted, and, with a shared store, in the event log). With `primed`, returns an
    /// event id for a priming event.
    pub(crate) fn open_standalone(
        &self,
        stream: u64,
        primed: bool,
    ) -> (Option<String>, mpsc::Receiver<Delivery>) {
        let (tx, rx) = mpsc::channel(STREAM_QUEUE);
        let mut streams = lock(&self.streams);
        let replaced = std::mem::replace(&mut streams.standalone, stream);
        let active = streams.active();
        active.live.remove(&replaced);
        active.next_seq.remove(&replaced);
        let opened = u64::from(primed);
        active.next_seq.insert(stream, opened + 1);
        active.live.insert(stream, tx);
        // logged under the lock: the log's order is the streams' order
        self.log(LoggedEvent::opening(Arc::clone(&self.id), stream, opened));
        (primed.then(|| format!("{stream}-1")), rx)
    }

    /// Hands an event of the GET stream to the store's event log, when other instances share
    /// the session (dropped, with a warning, when the log falls that far behind).
    fn log(&self, event: LoggedEvent) {
        if let Some(sharing) = &self.sharing
            && sharing.log.try_send(event).is_err()
        {
            tracing::warn!(
                target: "presa_http",
                "session {}: an event was not logged: the event log falls behind",
                self.id
            );
        }
    }

    /// Continues, on a new standalone stream of this process, stream `stream` that another
    /// instance held: the events its log holds after event `seq`, then the new stream's live
    /// messages (with `primed`, after a priming event of its own, so that a client leaving
    /// right after the replay resumes from there). `None` when the log does not hold event
    /// `seq` of the stream.
    pub(crate) async fn continue_from_log(
        &self,
        store: &dyn SharedSessionStore,
        ttl: Option<Duration>,
        stream: u64,
        seq: u64,
        primed: bool,
    ) -> Result<Option<(Vec<Delivery>, Option<String>, mpsc::Receiver<Delivery>)>, SessionStoreError>
    {
        let Some(mut logged) = store.events_after(&self.id, stream, seq).await? else {
            return Ok(None);
        };
        logged.sort_by_key(|event| event.seq);
        let replay = logged
            .into_iter()
            .filter(|event| !event.is_opening())
            .map(|event| Delivery {
                event_id: event.event_id(),
                json: event.json,
                is_response: false,
                insufficient_scope: None,
                last: false,
            })
            .collect();
        let number = self.stream_number(store, ttl).await?;
        let (priming, live) = self.open_standalone(number, primed);
        Ok(Some((replay, priming, live)))
    }

    /// Resumes stream `stream` after event `seq`: the buffered events that followed, then the
    /// stream's live messages. `None` when the stream is unknown.
    pub(crate) fn resume(
        &self,
        stream: u64,
        seq: u64,
    ) -> Option<(Vec<Delivery>, Option<mpsc::Receiver<Delivery>>)> {
        let mut streams = lock(&self.streams);
        let standalone = streams.standalone;
        let active = streams.active.as_deref_mut()?;
        if !active.next_seq.contains_key(&stream) {
            return None;
        }
        let replay: Vec<Delivery> = active
            .buffer
            .iter()
            .filter(|e| e.stream == stream && e.seq > seq)
            .map(|e| Delivery {
                event_id: format!("{}-{}", e.stream, e.seq),
                json: Arc::clone(&e.json),
                is_response: e.is_response,
                insufficient_scope: None,
                last: e.last,
            })
            .collect();
        let finished =
            stream != standalone && active.remaining.get(&stream).is_none_or(HashSet::is_empty);
        if finished {
            return Some((replay, None));
        }
        let (tx, rx) = mpsc::channel(STREAM_QUEUE);
        active.live.insert(stream, tx);
        Some((replay, Some(rx)))
    }

    /// Sends a message of the connection to the stream it belongs to, keeping it for resumption.
    fn route(&self, transmit: Transmit) {
        let (response_id, insufficient_scope) = match &transmit.message {
            Message::Response(r) => (
                r.id.clone(),
                r.as_error().and_then(InsufficientScope::from_error),
            ),
            _ => (None, None),
        };
        let json: Arc<str> = Arc::from(transmit.message.to_json());
        let mut streams = lock(&self.streams);
        let standalone = streams.standalone;
        let streams = streams.active();
        let stream = transmit
            .related_request
            .as_ref()
            .and_then(|id| streams.by_request.get(id))
            .copied()
            .unwrap_or(standalone);
        let mut last = false;
        if let (Some(id), true) = (&response_id, stream != standalone) {
            streams.by_request.remove(id);
            if let Some(remaining) = streams.remaining.get_mut(&stream) {
                remaining.remove(id);
                last = remaining.is_empty();
            }
        }
        let seq_slot = streams.next_seq.entry(stream).or_insert(1);
        let seq = *seq_slot;
        *seq_slot += 1;
        let limits = self.buffer_limits;
        while (streams.buffer.len() >= limits.events.max(1)
            || streams.buffered_bytes + json.len() > limits.bytes)
            && let Some(evicted) = streams.buffer.pop_front()
        {
            streams.buffered_bytes -= evicted.json.len();
            if evicted.last {
                // the oldest event of a finished stream was its last: none of it is left to
                // resume
                streams.next_seq.remove(&evicted.stream);
            }
        }
        streams.buffered_bytes += json.len();
        let is_response = response_id.is_some();
        streams.buffer.push_back(Stored {
            stream,
            seq,
            json: Arc::clone(&json),
            is_response,
            last,
        });
        let delivery = Delivery {
            event_id: format!("{stream}-{seq}"),
            json,
            is_response,
            insufficient_scope,
            last,
        };
        if stream == standalone && standalone != 0 {
            // a GET stream's events go to the shared log too (under the lock, in order), for
            // a client that resumes on another instance
            self.log(LoggedEvent::new(
                Arc::clone(&self.id),
                stream,
                seq,
                Arc::clone(&delivery.json),
            ));
        }
        if let Some(tx) = streams.live.get(&stream)
            && tx.try_send(delivery).is_err()
        {
            // gone or not keeping up: the client can resume from the buffer
            streams.live.remove(&stream);
        }
        if last {
            streams.live.remove(&stream);
            streams.remaining.remove(&stream);
        }
    }
}

/// Where a session's connection sends its messages: the session's streams.
struct SessionOutbox(Weak<HttpSession>);

impl Outbox for SessionOutbox {
    fn send(&self, transmit: Transmit) {
        if let Some(session) = self.0.upgrade() {
            session.route(transmit);
        }
    }

    fn close_stream(&self, related: &RequestId) -> bool {
        self.0
            .upgrade()
            .is_some_and(|session| session.close_stream_of(related))
    }

    fn reaches_client(&self) -> bool {
        self.0
            .upgrade()
            .is_some_and(|session| session.is_streaming())
    }
}

/// A fresh session id: 128 random bits, hex-encoded (visible ASCII only); none without
/// randomness (the session is then refused: a guessable id would hand it to anyone).
pub(crate) fn new_session_id() -> Option<Arc<str>> {
    presa_server::random_id().map(Arc::from)
}
