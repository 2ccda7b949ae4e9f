//! The connection layer for byte streams: one peer's session over a pair of channels, driven by
//! a task of its own.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use presa_core::{Message, Transmit};
use tokio::sync::mpsc::error::TryRecvError;
use tokio::sync::{Notify, mpsc};

use crate::BoxFuture;
use crate::auth::AuthInfo;
use crate::driven::{DrivenConnection, Outbox};
use crate::events::Missed;
use crate::server::Server;
use crate::transport::{Arrival, Transport};

/// What a transport hands the connection layer.
#[derive(Debug)]
#[non_exhaustive]
pub enum Incoming {
    /// Undecoded bytes of one frame (a stdio line); decoding errors are answered with `-32700`
    /// or `-32600`.
    Frame(Vec<u8>),
    /// A message the transport already decoded.
    Message(Message),
    /// A decoded message with the identity the transport verified for it (an authenticated HTTP
    /// request); a request's handler sees it as [`Context::auth`](crate::Context::auth), instead of the connection's
    /// [`ConnectionOptions::auth`].
    Authenticated(Message, Arc<AuthInfo>),
}

/// The server's end of a transport: frames in, messages out.
///
/// When `incoming` ends, the connection finishes the requests in flight, sends their
/// responses, and returns. If `outgoing` closes, requests in flight are abandoned.
///
/// ```
/// use presa_server::ServerChannel;
/// use tokio::sync::mpsc;
///
/// let (_to_server, incoming) = mpsc::channel(16);
/// let (outgoing, _from_server) = mpsc::channel(16);
/// let channel = ServerChannel { incoming: incoming.into(), outgoing };
/// # let _ = channel;
/// ```
#[derive(Debug)]
pub struct ServerChannel {
    /// What the client sent.
    pub incoming: Inputs,
    /// What to send to the client, in order.
    pub outgoing: mpsc::Sender<Transmit>,
}

/// What a transport hands a connection, on its way in: made from an
/// `mpsc::Receiver<Incoming>` (`.into()`), or with [`Inputs::serialized`] from the messages a
/// client in the same process sends.
#[derive(Debug)]
pub struct Inputs(Source);

#[derive(Debug)]
enum Source {
    Channel(mpsc::Receiver<Incoming>),
    Serialized(mpsc::Receiver<Transmit>),
}

impl Inputs {
    /// The messages a client in this process sends, each serialized to JSON as it is taken and
    /// handed over as a frame, so that the connection decodes it exactly as a stdio line: no
    /// task of the transport's stands between the two ends.
    pub fn serialized(messages: mpsc::Receiver<Transmit>) -> Self {
        Self(Source::Serialized(messages))
    }

    /// The next input, once there is one; `None` when the transport is done. Cancel-safe.
    async fn recv(&mut self) -> Option<Incoming> {
        match &mut self.0 {
            Source::Channel(inputs) => inputs.recv().await,
            Source::Serialized(messages) => messages.recv().await.map(as_frame),
        }
    }

    /// The next input if one is waiting.
    fn try_recv(&mut self) -> Result<Incoming, TryRecvError> {
        match &mut self.0 {
            Source::Channel(inputs) => inputs.try_recv(),
            Source::Serialized(messages) => messages.try_recv().map(as_frame),
        }
    }
}

impl From<mpsc::Receiver<Incoming>> for Inputs {
    fn from(inputs: mpsc::Receiver<Incoming>) -> Self {
        Self(Source::Channel(inputs))
    }
}

/// A message as the bytes a byte stream would carry.
fn as_frame(transmit: Transmit) -> Incoming {
    Incoming::Frame(transmit.message.to_json().into_bytes())
}

/// Tunables of one connection.
///
/// ```
/// let options = presa_server::ConnectionOptions::default().max_in_flight(16);
/// assert_eq!(options.get_max_in_flight(), 16);
/// ```
#[derive(Clone, Debug)]
pub struct ConnectionOptions {
    max_in_flight: usize,
    /// The transport and the identity of everyone on the connection.
    arrival: Arrival,
}

impl Default for ConnectionOptions {
    /// At most 128 requests served at once; no identity; an unspecified transport.
    fn default() -> Self {
        Self {
            max_in_flight: 128,
            arrival: Arrival::default(),
        }
    }
}

impl ConnectionOptions {
    /// How many requests are served at once; past that the connection stops reading input, so a
    /// flooding peer is slowed down instead of buffered (at least 1).
    pub fn max_in_flight(mut self, max: usize) -> Self {
        self.max_in_flight = max.max(1);
        self
    }

    /// The identity of everyone on this connection, for transports that authenticate the
    /// connection as a whole (e.g. a stdio server trusting the user who started it with the
    /// scopes its tools require). Requests see it as [`Context::auth`](crate::Context::auth) unless they arrive as
    /// [`Incoming::Authenticated`].
    ///
    /// ```
    /// use presa_server::{AuthInfo, ConnectionOptions};
    ///
    /// let options = ConnectionOptions::default()
    ///     .auth(AuthInfo::new().with_subject("local-user").with_scopes(["files:write"]));
    /// assert_eq!(options.get_auth().and_then(|a| a.subject()), Some("local-user"));
    /// ```
    pub fn auth(mut self, auth: impl Into<Arc<AuthInfo>>) -> Self {
        self.arrival.auth = Some(auth.into());
        self
    }

    /// The transport this connection runs on, which requests see as [`Context::transport`]
    /// (presa-stdio and the in-process pairing set it).
    ///
    /// [`Context::transport`]: crate::Context::transport
    pub fn transport(mut self, transport: Transport) -> Self {
        self.arrival.transport = transport;
        self
    }

    /// The identity of everyone on this connection.
    pub fn get_auth(&self) -> Option<&AuthInfo> {
        self.arrival.auth.as_deref()
    }

    /// The transport this connection runs on.
    pub fn get_transport(&self) -> Transport {
        self.arrival.transport
    }

    /// The limit on requests served at once.
    pub fn get_max_in_flight(&self) -> usize {
        self.max_in_flight
    }
}

/// How many messages may wait for the writer before handlers that report progress or log wait
/// for it.
const QUEUE_ROOM: usize = 256;

/// An [`Outbox`] that keeps a connection's messages in order for one task to take them: what a
/// Streamable HTTP response streams from, and what [`serve_connection`] writes from. Clones
/// share the queue; only one of them at a time may wait in [`next`](Self::next). A handler reporting progress or logging waits while 256 messages are
/// queued, so a peer that reads slowly slows the handler instead of growing the queue.
///
/// ```
/// use presa_core::{Notification, Transmit};
/// use presa_server::{Outbox, TransmitQueue};
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let queue = TransmitQueue::new();
/// let message = Notification::without_params("notifications/tools/list_changed");
/// queue.send(Transmit::new(message, None));
/// let next = queue.next().await.unwrap();
/// assert_eq!(next.message.method(), Some("notifications/tools/list_changed"));
/// assert!(queue.pop().is_none());
/// # });
/// ```
#[derive(Clone, Debug, Default)]
pub struct TransmitQueue(Arc<QueueInner>);

#[derive(Debug, Default)]
struct QueueInner {
    messages: Mutex<VecDeque<Transmit>>,
    /// Set by [`TransmitQueue::close`]: nothing more will come.
    closed: AtomicBool,
    /// Whether the writer waits for a message (else a message queued while it works on input
    /// needs no wake-up: it looks at the queue next anyway).
    writer_waits: AtomicBool,
    /// Wakes the writer: a message is waiting.
    queued: Notify,
    /// Wakes handlers waiting for room.
    drained: Notify,
}

impl TransmitQueue {
    /// An empty queue.
    pub fn new() -> Self {
        Self::default()
    }

    fn messages(&self) -> MutexGuard<'_, VecDeque<Transmit>> {
        self.0
            .messages
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The oldest message, if one is waiting.
    pub fn pop(&self) -> Option<Transmit> {
        let (next, was_full) = {
            let mut messages = self.messages();
            let was_full = messages.len() >= QUEUE_ROOM;
            (messages.pop_front(), was_full)
        };
        // handlers wait for room only past QUEUE_ROOM messages
        if was_full {
            self.0.drained.notify_waiters();
        }
        next
    }

    /// Waits for the oldest message; `None` once the queue is [closed](Self::close) and empty.
    pub async fn next(&self) -> Option<Transmit> {
        loop {
            if let Some(transmit) = self.pop() {
                return Some(transmit);
            }
            if self.0.closed.load(Ordering::Acquire) {
                return None;
            }
            self.queued().await;
        }
    }

    /// Says that nothing more will be queued (the request it carried was stopped): a writer
    /// waiting in [`next`](Self::next) gets what is left, then `None`.
    pub fn close(&self) {
        self.0.closed.store(true, Ordering::Release);
        self.0.queued.notify_waiters();
    }

    /// Completes once a message is queued (at once if one is); for a writer that also waits on
    /// other things.
    async fn queued(&self) {
        let notified = self.0.queued.notified();
        tokio::pin!(notified);
        notified.as_mut().enable();
        // cleared however this ends, also when a `select!` drops it for another branch
        let _waiting = WriterWaits::set(&self.0.writer_waits);
        if self.messages().is_empty() && !self.0.closed.load(Ordering::Acquire) {
            notified.await;
        }
    }
}

/// [`QueueInner::writer_waits`], set while the writer waits and cleared when it stops waiting.
struct WriterWaits<'a>(&'a AtomicBool);

impl<'a> WriterWaits<'a> {
    fn set(flag: &'a AtomicBool) -> Self {
        flag.store(true, Ordering::Release);
        Self(flag)
    }
}

impl Drop for WriterWaits<'_> {
    fn drop(&mut self) {
        self.0.store(false, Ordering::Release);
    }
}

impl Outbox for TransmitQueue {
    fn send(&self, transmit: Transmit) {
        self.messages().push_back(transmit);
        if self.0.writer_waits.load(Ordering::Acquire) {
            self.0.queued.notify_waiters();
        }
    }

    fn ready(&self) -> BoxFuture<'static, ()> {
        let queue = self.clone();
        Box::pin(async move {
            loop {
                let drained = queue.0.drained.notified();
                tokio::pin!(drained);
                drained.as_mut().enable();
                if queue.messages().len() < QUEUE_ROOM {
                    return;
                }
                drained.await;
            }
        })
    }
}

/// Serves `server` to one peer over `channel` until the peer's input ends and every request in
/// flight has been answered.
///
/// The connection is a [`DrivenConnection`] driven by this task, writing from a
/// [`TransmitQueue`] that its handlers fill: a request whose handling finishes on its first poll
/// (a `tool_sync` tool, a listing) is answered at once on the connection's task; any other runs
/// on a task of its own, and `notifications/cancelled` aborts it (no response is sent). So a
/// sync handler holds up the connection while it runs: long or blocking work belongs in an async
/// handler (with `tokio::task::spawn_blocking` for blocking calls). Progress and log messages
/// reach the peer only when the request asked for them. With the server's `list_changed` option,
/// an initialize-era peer is told when lists change. When the input ends,
/// `subscriptions/listen` requests end with their result, requests waiting for the client's
/// answer fail, and notification handlers still waiting are cancelled and dropped (what they
/// would send could no longer go out).
pub async fn serve_connection(server: Server, channel: ServerChannel, options: ConnectionOptions) {
    let ServerChannel {
        mut incoming,
        outgoing,
    } = channel;
    let mut changes = server.changes();
    let mut changes_open = true;
    // What the connection sends waits here for this task. A message sent while this task is
    // busy (a request answered on its first poll, as most are) wakes nobody: the loop looks at
    // the queue next anyway.
    let queue = TransmitQueue::new();
    let connection = DrivenConnection::with_idle_shrink(server, queue.clone(), false);
    // the connection is the session its callers are known by (the owner of their tasks)
    let arrival = options.arrival.clone().with_session(connection_id());
    let mut input_open = true;
    let mut burst = 0;
    loop {
        // counted before draining: a request that finished had its response queued under the
        // same lock that took it out of flight, so nothing is left behind at the end
        let in_flight = connection.in_flight();
        while let Some(transmit) = queue.pop() {
            if outgoing.send(transmit).await.is_err() {
                connection.abort();
                return;
            }
        }
        if !input_open && in_flight == 0 {
            return;
        }
        let reading = input_open && in_flight < options.max_in_flight;
        // Input already waiting is taken without waiting on everything else first (a busy
        // peer's next request usually is); every `READ_BURST` inputs the loop waits on all of
        // it, so that list changes are not held back by a peer that never pauses.
        if reading && burst < READ_BURST {
            match incoming.try_recv() {
                Ok(input) => {
                    burst += 1;
                    take(&connection, &arrival, input);
                    continue;
                }
                Err(TryRecvError::Disconnected) => {
                    input_open = false;
                    connection.close();
                    continue;
                }
                Err(TryRecvError::Empty) => {}
            }
        }
        burst = 0;
        tokio::select! {
            biased;
            // a message to write, which is also how a finished request makes room (it is
            // written at the top of the loop)
            () = queue.queued() => {}
            // before input: a peer whose input never pauses must not hold back list changes
            change = changes.recv(), if changes_open => match change {
                Some(Ok(change)) => connection.announce(change),
                Some(Err(Missed(missed))) => tracing::warn!(
                    target: "presa_server",
                    "a connection missed {missed} changes: the change bus overflowed"
                ),
                None => changes_open = false,
            },
            input = incoming.recv(), if reading => match input {
                Some(input) => take(&connection, &arrival, input),
                None => {
                    input_open = false;
                    connection.close();
                }
            },
        }
    }
}

/// How many inputs [`serve_connection`] takes in a row while more are waiting.
const READ_BURST: usize = 32;

/// Hands one input of the transport to the connection.
fn take(connection: &DrivenConnection, arrival: &Arrival, input: Incoming) {
    match input {
        Incoming::Message(message) => {
            connection.handle(message, arrival);
        }
        Incoming::Authenticated(message, identity) => {
            connection.handle(message, &arrival.clone().with_auth(identity));
        }
        Incoming::Frame(bytes) => {
            connection.handle_frame(&bytes, arrival);
        }
    }
}

/// A random id for one connection (128 bits, hex), unique across processes that share a task
/// store.
fn connection_id() -> String {
    crate::random_id().unwrap_or_else(|| {
        // without randomness, unique within the process at least
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        format!("connection-{}", NEXT.fetch_add(1, Ordering::Relaxed))
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use presa_core::Notification;

    use super::*;

    #[tokio::test]
    async fn serialized_messages_are_handed_over_as_their_json_frames() {
        let (to_server, messages) = mpsc::channel(4);
        let mut inputs = Inputs::serialized(messages);
        assert!(matches!(inputs.try_recv(), Err(TryRecvError::Empty)));
        let ping = Notification::without_params("notifications/initialized");
        to_server
            .send(Transmit::new(ping.clone(), None))
            .await
            .unwrap();
        to_server.send(Transmit::new(ping, None)).await.unwrap();
        drop(to_server);
        let expected = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
        for input in [inputs.try_recv().ok(), inputs.recv().await] {
            match input {
                Some(Incoming::Frame(bytes)) => assert_eq!(bytes, expected.as_bytes()),
                other => panic!("expected a frame, got {other:?}"),
            }
        }
        assert!(inputs.recv().await.is_none());
        assert!(matches!(inputs.try_recv(), Err(TryRecvError::Disconnected)));
    }

    fn waits(queue: &TransmitQueue) -> bool {
        queue.0.writer_waits.load(Ordering::Acquire)
    }

    /// Far longer than any step below takes: a step not done by then is a failure, not a hang.
    const PATIENCE: std::time::Duration = std::time::Duration::from_secs(10);

    /// A writer task, once it waits in `next`.
    async fn waiting_writer(queue: &TransmitQueue) -> tokio::task::JoinHandle<Option<Transmit>> {
        let writer = tokio::spawn({
            let queue = queue.clone();
            async move { queue.next().await }
        });
        let waiting = async {
            while !waits(queue) {
                tokio::task::yield_now().await;
            }
        };
        tokio::time::timeout(PATIENCE, waiting)
            .await
            .expect("the writer waits");
        writer
    }

    /// What the writer got, failing if it was not woken.
    async fn woken(writer: tokio::task::JoinHandle<Option<Transmit>>) -> Option<Transmit> {
        tokio::time::timeout(PATIENCE, writer)
            .await
            .expect("the writer was woken")
            .unwrap()
    }

    #[tokio::test]
    async fn the_writer_is_woken_while_it_waits_and_its_flag_goes_however_the_wait_ends() {
        let queue = TransmitQueue::new();
        // a wait that a `select!` gives up for another branch leaves no flag behind
        tokio::select! {
            biased;
            _ = queue.next() => panic!("nothing was queued"),
            () = std::future::ready(()) => {}
        }
        assert!(!waits(&queue));
        // a writer waiting is woken by a message
        let writer = waiting_writer(&queue).await;
        let message = Notification::without_params("notifications/tools/list_changed");
        queue.send(Transmit::new(message, None));
        let got = woken(writer).await.expect("the message");
        assert_eq!(
            got.message.method(),
            Some("notifications/tools/list_changed")
        );
        assert!(!waits(&queue));
        // a writer waiting on a closed, empty queue ends
        let writer = waiting_writer(&queue).await;
        queue.close();
        assert!(woken(writer).await.is_none());
    }
}
