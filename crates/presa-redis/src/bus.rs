//! An event bus over Redis pub/sub.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use presa_server::{Change, EventBus, InMemoryBus};
use redis::{PushInfo, PushKind, Value};
use serde::{Deserialize, Serialize};
use tokio::sync::{broadcast, mpsc};

use crate::connection::{Connection, Redis};
use crate::error::RedisError;

/// Changes waiting to be published while Redis is slow or away; past this they are dropped
/// (with a warning) instead of piling up.
const PUBLISH_ROOM: usize = 1024;

/// How many waiting changes go to Redis in one round trip.
const PUBLISH_BATCH: usize = 64;

/// How often the subscription is checked when nothing else goes over it.
const WATCH_EVERY: Duration = Duration::from_secs(1);

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
    outgoing: mpsc::Sender<String>,
    origin: String,
}

impl fmt::Debug for RedisBus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RedisBus")
            .field("origin", &self.origin)
            .finish_non_exhaustive()
    }
}

/// A change as it travels between instances, with the instance it came from (which heard of it
/// already).
#[derive(Serialize, Deserialize)]
struct Envelope {
    origin: String,
    #[serde(flatten)]
    change: Change,
}

impl RedisBus {
    pub(crate) async fn start(redis: Redis) -> Result<Self, RedisError> {
        let origin = instance_id();
        let channel = redis.key("changes");
        let local = Arc::new(InMemoryBus::default());
        let heard = Arc::clone(&local);
        let own = origin.clone();
        let subscription = redis
            .subscribed(&channel, move |info: PushInfo| {
                if let Some(change) = received(&info, &own) {
                    heard.publish(change);
                }
                Ok::<(), redis::aio::SendError>(())
            })
            .await?;
        let (outgoing, queued) = mpsc::channel::<String>(PUBLISH_ROOM);
        tokio::spawn(watch(subscription, outgoing.downgrade()));
        tokio::spawn(publish(queued, redis.commands(), channel));
        Ok(Self {
            local,
            outgoing,
            origin,
        })
    }
}

/// Publishes what `queued` holds, up to [`PUBLISH_BATCH`] changes per round trip, until the
/// bus is dropped.
async fn publish(mut queued: mpsc::Receiver<String>, mut connection: Connection, channel: String) {
    let mut batch = Vec::with_capacity(PUBLISH_BATCH);
    while queued.recv_many(&mut batch, PUBLISH_BATCH).await > 0 {
        let mut pipeline = redis::pipe();
        for envelope in batch.drain(..) {
            pipeline.cmd("PUBLISH").arg(&channel).arg(envelope).ignore();
        }
        if let Err(error) = pipeline.query_async::<()>(&mut connection).await {
            tracing::warn!(
                target: "presa_redis",
                %error,
                "changes could not be published to the other instances"
            );
        }
    }
}

/// Checks the subscription's connection every [`WATCH_EVERY`] while the bus lives (`bus`, a
/// weak handle on its queue, tells): a failed check makes it reconnect (and subscribe again),
/// also after an outage longer than its own retries.
async fn watch(mut subscription: Connection, bus: mpsc::WeakSender<String>) {
    let mut every = tokio::time::interval(WATCH_EVERY);
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        every.tick().await;
        if bus.upgrade().is_none() {
            return;
        }
        // an error here is what starts the reconnection; the next tick tells
        let _ = redis::cmd("PING")
            .query_async::<()>(&mut subscription)
            .await;
    }
}

/// The change a pushed pub/sub message carries, unless this instance sent it or it is not one.
fn received(info: &PushInfo, own: &str) -> Option<Change> {
    if info.kind != PushKind::Message {
        return None;
    }
    // [channel, payload]
    let Some(Value::BulkString(payload)) = info.data.get(1) else {
        return None;
    };
    match serde_json::from_slice::<Envelope>(payload) {
        Ok(envelope) if envelope.origin != own => Some(envelope.change),
        Ok(_) => None,
        Err(error) => {
            tracing::warn!(
                target: "presa_redis",
                %error,
                "a message on the changes channel is not a change presa knows"
            );
            None
        }
    }
}

/// 64 random bits, hex: what tells this bus's messages apart from other instances'. (Should
/// the system have no randomness, the process id and the clock's nanoseconds.)
fn instance_id() -> String {
    let mut bytes = [0u8; 8];
    if getrandom::fill(&mut bytes).is_err() {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |since| since.subsec_nanos());
        bytes = ((u64::from(std::process::id()) << 32) | u64::from(nanos)).to_le_bytes();
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

impl EventBus for RedisBus {
    fn publish(&self, change: Change) {
        let envelope = Envelope {
            origin: self.origin.clone(),
            change,
        };
        match serde_json::to_string(&envelope) {
            Ok(json) => {
                if self.outgoing.try_send(json).is_err() {
                    tracing::warn!(
                        target: "presa_redis",
                        "changes are published faster than Redis takes them: one was dropped"
                    );
                }
            }
            Err(error) => {
                tracing::warn!(target: "presa_redis", %error, "a change did not encode");
            }
        }
        // this instance's listeners hear of it at once
        self.local.publish(envelope.change);
    }

    fn subscribe(&self) -> broadcast::Receiver<Change> {
        self.local.subscribe()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use presa_server::ListKind;

    fn message(payload: &str) -> PushInfo {
        PushInfo {
            kind: PushKind::Message,
            data: vec![
                Value::BulkString(b"presa:changes".to_vec()),
                Value::BulkString(payload.as_bytes().to_vec()),
            ],
        }
    }

    #[test]
    fn changes_of_other_instances_are_heard_and_own_ones_skipped() {
        let envelope = |origin: &str| {
            serde_json::to_string(&Envelope {
                origin: origin.into(),
                change: Change::ResourceUpdated("file:///a".into()),
            })
            .unwrap()
        };
        assert_eq!(
            received(&message(&envelope("b")), "a"),
            Some(Change::ResourceUpdated("file:///a".into()))
        );
        assert_eq!(received(&message(&envelope("a")), "a"), None);
        assert_eq!(received(&message("{\"origin\":\"b\"}"), "a"), None);
        assert_eq!(received(&message("not json"), "a"), None);
        let subscribed = PushInfo {
            kind: PushKind::Subscribe,
            data: vec![Value::BulkString(b"presa:changes".to_vec()), Value::Int(1)],
        };
        assert_eq!(received(&subscribed, "a"), None);
        let tools = r#"{"origin":"b","change":"listChanged","of":"tools"}"#;
        assert_eq!(
            received(&message(tools), "a"),
            Some(Change::ListChanged(ListKind::Tools))
        );
    }

    #[test]
    fn instance_ids_differ() {
        assert_ne!(instance_id(), instance_id());
        assert_eq!(instance_id().len(), 16);
    }
}
