//! An event bus over Redis pub/sub.

use std::fmt;
use std::sync::Arc;

use presa_server::{Change, EventBus, InMemoryBus};
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
/// Made by [`Redis::event_bus`].
pub struct RedisBus {
    /// This instance's listeners: the in-memory bus, fed by this instance's publishes and by
    /// what Redis brings from the others.
    local: Arc<InMemoryBus>,
    channel: Channel,
}

impl fmt::Debug for RedisBus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RedisBus")
            .field("channel", &self.channel)
            .finish_non_exhaustive()
    }
}

impl RedisBus {
    pub(crate) async fn start(redis: Redis) -> Result<Self, RedisError> {
        let local = Arc::new(InMemoryBus::default());
        let heard = Arc::clone(&local);
        let channel = Channel::open(&redis, "changes", "changes", move |change: Change| {
            heard.publish(change);
        })
        .await?;
        Ok(Self { local, channel })
    }
}

impl EventBus for RedisBus {
    fn publish(&self, change: Change) {
        self.channel.publish(&change);
        // this instance's listeners hear of it at once
        self.local.publish(change);
    }

    fn subscribe(&self) -> broadcast::Receiver<Change> {
        self.local.subscribe()
    }
}
