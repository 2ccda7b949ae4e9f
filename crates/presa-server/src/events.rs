//! Changes a server announces, and the bus that fans them out to every listening connection;
//! the signals that carry a client's word about a task to the instance running it.

use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use tokio::sync::broadcast;
use tokio::sync::broadcast::error::{RecvError, TryRecvError};

/// Which list a change touched.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum ListKind {
    /// `tools/list`.
    Tools,
    /// `resources/list` and `resources/templates/list`.
    Resources,
    /// `prompts/list`.
    Prompts,
}

/// Something that changed on a server, which listening clients may be told about.
///
/// It serializes as plain JSON, for a bus that carries changes between instances:
///
/// ```
/// use presa_server::{Change, ListKind};
///
/// let change = Change::ListChanged(ListKind::Tools);
/// let json = serde_json::to_string(&change).unwrap();
/// assert_eq!(json, r#"{"change":"listChanged","of":"tools"}"#);
/// assert_eq!(serde_json::from_str::<Change>(&json).unwrap(), change);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "change", content = "of", rename_all = "camelCase")]
#[non_exhaustive]
pub enum Change {
    /// A list changed (definitions added or removed).
    ListChanged(ListKind),
    /// A resource's contents changed.
    ResourceUpdated(String),
    /// The task of this id changed (its status, its input requests, its status message): what
    /// a 2026-07-28 listen whose filter names it is told.
    TaskChanged(String),
}

/// What one instance tells the instance running a task, when a client's request about the
/// task reached another one (see [`TaskSignals`]). It serializes as plain JSON:
///
/// ```
/// use presa_server::TaskSignal;
///
/// let cancel = TaskSignal::Cancel { task: "t1".into() };
/// let json = serde_json::to_string(&cancel).unwrap();
/// assert_eq!(json, r#"{"signal":"cancel","task":"t1"}"#);
/// assert_eq!(serde_json::from_str::<TaskSignal>(&json).unwrap(), cancel);
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "signal", rename_all = "camelCase")]
#[non_exhaustive]
pub enum TaskSignal {
    /// A `tasks/update`: answers to the task's input requests, for its handler.
    Answers {
        /// The task id.
        task: String,
        /// The answers, by input key.
        responses: presa_core::InputResponses,
    },
    /// A `tasks/cancel`: the handler is to stop.
    Cancel {
        /// The task id.
        task: String,
    },
}

/// Fans changes out to every connection that listens (2026-07-28 `subscriptions/listen`
/// streams, initialize-era sessions).
///
/// The in-memory default serves one process. Several instances behind a load balancer that
/// must all hear of a change (a resource updated through one of them) plug in a bus over a
/// shared engine, e.g. Redis pub/sub, that republishes what any instance publishes.
pub trait EventBus: Send + Sync + fmt::Debug + 'static {
    /// Announces a change.
    fn publish(&self, change: Change);
    /// Receives every change published from now on.
    fn subscribe(&self) -> BusReceiver<Change>;
}

/// Carries a client's `tasks/update` or `tasks/cancel` to the instance running the task, when
/// several instances share a task store and the request reached another one. Only a shared
/// deployment has one (given with [`ServerBuilder::shared_bus`](crate::ServerBuilder::shared_bus));
/// in one process every task runs where its requests arrive.
pub trait TaskSignals: Send + Sync + fmt::Debug + 'static {
    /// Sends `signal` to the other instances (the one running the task acts on it), in the
    /// background: at most once.
    fn signal(&self, signal: TaskSignal);
    /// Receives what the other instances signal from now on.
    fn signals(&self) -> BusReceiver<TaskSignal>;
}

/// A bus several instances share: the changes it fans out, and the [`TaskSignals`] it carries
/// between instances. Made from any bus that is both, e.g. presa-redis's `RedisBus`; given to
/// [`ServerBuilder::shared_bus`](crate::ServerBuilder::shared_bus).
#[derive(Clone, Debug)]
pub struct SharedBus {
    pub(crate) changes: Arc<dyn EventBus>,
    pub(crate) signals: Arc<dyn TaskSignals>,
}

impl<B: EventBus + TaskSignals> From<Arc<B>> for SharedBus {
    fn from(bus: Arc<B>) -> Self {
        Self {
            signals: Arc::clone(&bus) as Arc<dyn TaskSignals>,
            changes: bus,
        }
    }
}

/// What a bus hands one listener: its items in order, from when it subscribed. A listener that
/// falls behind the bus's capacity misses the oldest, and is told how many.
pub struct BusReceiver<T> {
    inner: broadcast::Receiver<T>,
}

/// A listener fell behind its bus: this many items were missed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Missed(pub u64);

impl<T: Clone> BusReceiver<T> {
    /// The next item, or how many were missed; `None` once the bus is gone.
    pub async fn recv(&mut self) -> Option<Result<T, Missed>> {
        match self.inner.recv().await {
            Ok(item) => Some(Ok(item)),
            Err(RecvError::Lagged(missed)) => Some(Err(Missed(missed))),
            Err(RecvError::Closed) => None,
        }
    }

    /// The next item if one is queued now, or how many were missed; `None` when nothing is
    /// queued (or the bus is gone).
    pub fn try_recv(&mut self) -> Option<Result<T, Missed>> {
        match self.inner.try_recv() {
            Ok(item) => Some(Ok(item)),
            Err(TryRecvError::Lagged(missed)) => Some(Err(Missed(missed))),
            Err(TryRecvError::Empty | TryRecvError::Closed) => None,
        }
    }

    /// Drops what is queued now: for a listener that missed items and starts over from what is
    /// current, which covers what queued meanwhile too.
    pub fn skip_queued(&mut self) {
        while self.try_recv().is_some() {}
    }
}

/// A receiver of a tokio broadcast channel, the in-process fan-out a bus is usually built on.
impl<T> From<broadcast::Receiver<T>> for BusReceiver<T> {
    fn from(inner: broadcast::Receiver<T>) -> Self {
        Self { inner }
    }
}

impl<T> fmt::Debug for BusReceiver<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BusReceiver")
            .field("queued", &self.inner.len())
            .finish()
    }
}

/// The in-process [`EventBus`]: a broadcast channel.
#[derive(Debug)]
pub struct InMemoryBus {
    sender: broadcast::Sender<Change>,
}

impl InMemoryBus {
    /// A bus keeping up to `capacity` changes for a slow listener (who then skips the oldest).
    pub fn new(capacity: usize) -> Self {
        Self {
            sender: broadcast::channel(capacity.max(1)).0,
        }
    }
}

impl Default for InMemoryBus {
    /// Up to 256 changes held for a slow listener.
    fn default() -> Self {
        Self::new(256)
    }
}

impl EventBus for InMemoryBus {
    fn publish(&self, change: Change) {
        // nobody listening is fine
        let _ = self.sender.send(change);
    }

    fn subscribe(&self) -> BusReceiver<Change> {
        self.sender.subscribe().into()
    }
}

/// The notification method announcing a change of `kind`.
pub(crate) fn list_changed_method(kind: ListKind) -> &'static str {
    match kind {
        ListKind::Tools => "notifications/tools/list_changed",
        ListKind::Resources => "notifications/resources/list_changed",
        ListKind::Prompts => "notifications/prompts/list_changed",
    }
}
