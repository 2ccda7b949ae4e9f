//! Changes a server announces, and the bus that fans them out to every listening connection.

use std::fmt;

use serde::{Deserialize, Serialize};
use tokio::sync::broadcast;

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
/// task reached another one (see [`EventBus::signal_task`]). It serializes as plain JSON:
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
    fn subscribe(&self) -> broadcast::Receiver<Change>;

    /// Whether other instances share this bus: then a `tasks/update` or `tasks/cancel` for a
    /// task whose handler runs on another instance is sent there with
    /// [`signal_task`](Self::signal_task). By default `false`, for a bus of one process.
    fn is_shared(&self) -> bool {
        false
    }

    /// Sends `signal` to the other instances sharing the bus (the one running the task acts on
    /// it), in the background: at most once.
    fn signal_task(&self, signal: TaskSignal) {
        let _ = signal;
    }

    /// The signals other instances send from now on; `None` for a bus of one process.
    fn task_signals(&self) -> Option<broadcast::Receiver<TaskSignal>> {
        None
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

    fn subscribe(&self) -> broadcast::Receiver<Change> {
        self.sender.subscribe()
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
