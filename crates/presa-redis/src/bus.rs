//! An event bus over Redis pub/sub.

use std::fmt;
use std::sync::Arc;

use presa_server::{BusReceiver, Change, EventBus, InMemoryBus, TaskSignal, TaskSignals};
use serde::{Deserialize, Serialize};
use tokio::sync::broadcast;

use crate::channel::Channel;
use crate::connection::Redis;
use crate::error::RedisError;

/// An [`EventBus`] over Redis pub/sub: a change published on any instance reaches the listeners
/// of every instance sharing the Redis (the channel `<prefix>:changes`).
///
/// Listeners of the publishing instance hear of a change at once, whether or not Redis is
/// reachable; other instances hear of it through Redis, typically within a millisecond.
/// Changes published together go to Redis in one round trip. While Redis is away, changes
/// published meanwhile do not reach the other instances (pub/sub keeps nothing); the
/// subscription, checked every second, is renewed by itself when Redis returns.
///
/// The same channel carries [`TaskSignal`]s ([`TaskSignals`]): a `tasks/update` or
/// `tasks/cancel` that reached an instance not running the task goes to the one that does.
/// Give it to the server with `ServerBuilder::shared_bus`, which takes it as both.
///
/// Made by [`Redis::event_bus`].
pub struct RedisBus {
    /// This instance's listeners: the in-memory bus, fed by this instance's publishes and by
    /// what Redis brings from the others.
    local: Arc<InMemoryBus>,
    /// What other instances signal to the tasks running here.
    signals: broadcast::Sender<TaskSignal>,
    channel: Channel,
}

/// What travels on the channel: a change, or a signal to a task's instance (told apart by
/// their tags, `change` and `signal`).
#[derive(Serialize, Deserialize)]
#[serde(untagged)]
enum Carried {
    Change(Change),
    Signal(TaskSignal),
}

/// Signals held for a receiver that falls behind (which then skips the oldest).
const SIGNAL_ROOM: usize = 256;

impl fmt::Debug for RedisBus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RedisBus")
            .field("channel", &self.channel)
            .finish_non_exhaustive()
    }
}

impl Redis {
    /// An [`EventBus`](presa_server::EventBus) over this Redis's pub/sub; it opens a connection
    /// of its own for its subscription.
    ///
    /// # Errors
    ///
    /// [`RedisError::Unreachable`] when that connection cannot be opened or subscribed.
    pub async fn event_bus(&self) -> Result<RedisBus, RedisError> {
        RedisBus::start(self.clone()).await
    }
}

impl RedisBus {
    pub(crate) async fn start(redis: Redis) -> Result<Self, RedisError> {
        let local = Arc::new(InMemoryBus::default());
        let signals = broadcast::channel(SIGNAL_ROOM).0;
        let (heard, signalled) = (Arc::clone(&local), signals.clone());
        let channel = Channel::open(&redis, "changes", "changes", move |carried| match carried {
            Carried::Change(change) => heard.publish(change),
            // no task here listens yet: none runs here
            Carried::Signal(signal) => drop(signalled.send(signal)),
        })
        .await?;
        Ok(Self {
            local,
            signals,
            channel,
        })
    }
}

impl EventBus for RedisBus {
    fn publish(&self, change: Change) {
        self.channel.publish(Carried::Change(change.clone()));
        // this instance's listeners hear of it at once
        self.local.publish(change);
    }

    fn subscribe(&self) -> BusReceiver<Change> {
        self.local.subscribe()
    }
}

impl TaskSignals for RedisBus {
    fn signal(&self, signal: TaskSignal) {
        self.channel.publish(Carried::Signal(signal));
    }

    fn signals(&self) -> BusReceiver<TaskSignal> {
        self.signals.subscribe().into()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn changes_and_signals_are_told_apart() {
        let change = serde_json::to_string(&Carried::Change(Change::TaskChanged("t".into())));
        assert_eq!(change.unwrap(), r#"{"change":"taskChanged","of":"t"}"#);
        let signal = r#"{"signal":"cancel","task":"t"}"#;
        assert!(matches!(
            serde_json::from_str::<Carried>(signal).unwrap(),
            Carried::Signal(TaskSignal::Cancel { task }) if task == "t"
        ));
        let change = r#"{"change":"listChanged","of":"tools"}"#;
        assert!(matches!(
            serde_json::from_str::<Carried>(change).unwrap(),
            Carried::Change(_)
        ));
    }
}
