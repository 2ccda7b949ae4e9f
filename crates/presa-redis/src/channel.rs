//! A pub/sub channel the instances sharing a Redis talk over: what one publishes, every other
//! one hears. The event bus and the session relay are each one.

use std::time::Duration;

use redis::{PushInfo, PushKind, Value};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;

use crate::connection::{Connection, Redis};
use crate::error::RedisError;

/// Messages waiting to be published while Redis is slow or away; past this they are dropped
/// (with a warning) instead of piling up.
const PUBLISH_ROOM: usize = 1024;

/// How many waiting messages go to Redis in one round trip.
const PUBLISH_BATCH: usize = 64;

/// How often the subscription is checked when nothing else goes over it.
const WATCH_EVERY: Duration = Duration::from_secs(1);

/// One instance's end of a channel: it publishes in the background, in order, and hands what
/// the other instances publish to the function it was opened with.
#[derive(Debug)]
pub(crate) struct Channel {
    outgoing: mpsc::Sender<String>,
    origin: String,
    /// What the channel carries, for warnings.
    what: &'static str,
}

/// A message as it travels between instances, with the instance it came from (which skips
/// it).
#[derive(Serialize, Deserialize)]
struct Envelope<T> {
    origin: String,
    #[serde(flatten)]
    message: T,
}

impl Channel {
    /// Subscribes to `<prefix>:<name>` on a connection of its own; every message of another
    /// instance that decodes as a `T` goes to `heard`. `what` names the messages in warnings.
    pub(crate) async fn open<T: DeserializeOwned>(
        redis: &Redis,
        name: &str,
        what: &'static str,
        heard: impl Fn(T) + Send + Sync + 'static,
    ) -> Result<Self, RedisError> {
        let origin = instance_id();
        let channel = redis.key(name);
        let own = origin.clone();
        let subscription = redis
            .subscribed(&channel, move |info: PushInfo| {
                if let Some(message) = received(&info, &own, what) {
                    heard(message);
                }
                Ok::<(), redis::aio::SendError>(())
            })
            .await?;
        let (outgoing, queued) = mpsc::channel::<String>(PUBLISH_ROOM);
        tokio::spawn(watch(subscription, outgoing.downgrade()));
        tokio::spawn(publish(queued, redis.commands(), channel, what));
        Ok(Self {
            outgoing,
            origin,
            what,
        })
    }

    /// Publishes `message` to the other instances, in the background.
    pub(crate) fn publish<T: Serialize>(&self, message: T) {
        let envelope = Envelope {
            origin: self.origin.clone(),
            message,
        };
        match serde_json::to_string(&envelope) {
            Ok(json) => {
                if self.outgoing.try_send(json).is_err() {
                    tracing::warn!(
                        target: "presa_redis",
                        "{} are published faster than Redis takes them: one was dropped",
                        self.what
                    );
                }
            }
            Err(error) => {
                tracing::warn!(target: "presa_redis", %error, "one of the {} did not encode", self.what);
            }
        }
    }
}

/// Publishes what `queued` holds, up to [`PUBLISH_BATCH`] messages per round trip, until the
/// channel is dropped.
async fn publish(
    mut queued: mpsc::Receiver<String>,
    mut connection: Connection,
    channel: String,
    what: &'static str,
) {
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
                "{what} could not be published to the other instances"
            );
        }
    }
}

/// Checks the subscription's connection every [`WATCH_EVERY`] while the channel lives
/// (`channel`, a weak handle on its queue, tells): a failed check makes it reconnect (and
/// subscribe again), also after an outage longer than its own retries.
async fn watch(mut subscription: Connection, channel: mpsc::WeakSender<String>) {
    let mut every = tokio::time::interval(WATCH_EVERY);
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        every.tick().await;
        if channel.upgrade().is_none() {
            return;
        }
        // an error here is what starts the reconnection; the next tick tells
        let _ = redis::cmd("PING")
            .query_async::<()>(&mut subscription)
            .await;
    }
}

/// The message a pushed pub/sub message carries, unless this instance sent it or it is not
/// one.
fn received<T: DeserializeOwned>(info: &PushInfo, own: &str, what: &str) -> Option<T> {
    if info.kind != PushKind::Message {
        return None;
    }
    // [channel, payload]
    let Some(Value::BulkString(payload)) = info.data.get(1) else {
        return None;
    };
    match serde_json::from_slice::<Envelope<T>>(payload) {
        Ok(envelope) if envelope.origin != own => Some(envelope.message),
        Ok(_) => None,
        Err(error) => {
            tracing::warn!(
                target: "presa_redis",
                %error,
                "a message on the channel of {what} is not one presa knows"
            );
            None
        }
    }
}

/// 64 random bits, hex: what tells this instance's messages apart from other instances'.
/// (Should the system have no randomness, the process id and the clock's nanoseconds.)
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use presa_server::{Change, ListKind};

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
    fn messages_of_other_instances_are_heard_and_own_ones_skipped() {
        let envelope = |origin: &str| {
            serde_json::to_string(&Envelope {
                origin: origin.to_owned(),
                message: Change::ResourceUpdated("file:///a".into()),
            })
            .unwrap()
        };
        let heard = |payload: &str| received::<Change>(&message(payload), "a", "changes");
        assert_eq!(
            heard(&envelope("b")),
            Some(Change::ResourceUpdated("file:///a".into()))
        );
        assert_eq!(heard(&envelope("a")), None);
        assert_eq!(heard("{\"origin\":\"b\"}"), None);
        assert_eq!(heard("not json"), None);
        let subscribed = PushInfo {
            kind: PushKind::Subscribe,
            data: vec![Value::BulkString(b"presa:changes".to_vec()), Value::Int(1)],
        };
        assert_eq!(received::<Change>(&subscribed, "a", "changes"), None);
        let tools = r#"{"origin":"b","change":"listChanged","of":"tools"}"#;
        assert_eq!(heard(tools), Some(Change::ListChanged(ListKind::Tools)));
    }

    #[test]
    fn instance_ids_differ() {
        assert_ne!(instance_id(), instance_id());
        assert_eq!(instance_id().len(), 16);
    }
}
