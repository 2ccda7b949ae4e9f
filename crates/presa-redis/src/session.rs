//! Initialize-era session state on Redis.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use presa_http::{
    EventLog, LoggedEvent, Relay, Relayed, SessionState, SessionStore, SessionStoreError,
    StoreFuture,
};
use presa_server::BusReceiver;
use redis::Script;
use tokio::sync::broadcast;

use crate::channel::Channel;
use crate::connection::Redis;
use crate::error::RedisError;

/// Loads a session's state and sets its time to live, and its event log's. KEYS[1]: the
/// session's hash, KEYS[2]: its event log; ARGV[1]: the TTL in milliseconds, empty for none.
const LOAD: &str = r"
local state = redis.call('HGET', KEYS[1], 'state')
if state then
  for _, key in ipairs(KEYS) do
    if ARGV[1] == '' then
      redis.call('PERSIST', key)
    else
      redis.call('PEXPIRE', key, ARGV[1])
    end
  end
end
return state
";

/// Appends events to a session's log, unless the session is gone (a `DELETE` ran meanwhile,
/// or it expired): a log is never made again for a session that no longer exists. KEYS[1]: the
/// session's hash, KEYS[2]: its event log; ARGV: the entries kept, the TTL in milliseconds
/// (empty for none), then each event's stream, seq and JSON. Returns 1 when it appended.
const LOG: &str = r"
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
for i = 3, #ARGV, 3 do
  redis.call('XADD', KEYS[2], 'MAXLEN', ARGV[1], '*', 's', ARGV[i], 'q', ARGV[i + 1], 'd', ARGV[i + 2])
end
if ARGV[2] == '' then
  redis.call('PERSIST', KEYS[2])
else
  redis.call('PEXPIRE', KEYS[2], ARGV[2])
end
return 1
";

/// The logged events of one stream after one event: a flat array of `seq, json` pairs, or
/// nil when the log does not hold that event (nor an earlier one of the stream). KEYS[1]: the
/// event log; ARGV: the stream, the seq.
const EVENTS_AFTER: &str = r"
local after = tonumber(ARGV[2])
local known = false
local found = {}
for _, entry in ipairs(redis.call('XRANGE', KEYS[1], '-', '+')) do
  local fields = entry[2]
  local stream, seq, json
  for i = 1, #fields, 2 do
    local name, value = fields[i], fields[i + 1]
    if name == 's' then stream = value
    elseif name == 'q' then seq = tonumber(value)
    elseif name == 'd' then json = value end
  end
  if stream == ARGV[1] and seq then
    if seq <= after then
      known = true
    elseif json and json ~= '' then
      found[#found + 1] = tostring(seq)
      found[#found + 1] = json
    end
  end
end
if not known then return false end
return found
";

/// Saves a state if the stored revision is the one the saver last saw. KEYS[1]: the session's
/// hash; ARGV: the revision replaced (empty: none may be stored), the new revision, the state,
/// the TTL in milliseconds (empty for none). Returns 1 when it saved.
const SAVE: &str = r"
local stored = redis.call('HGET', KEYS[1], 'rev')
if ARGV[1] == '' then
  if stored then return 0 end
elseif stored ~= ARGV[1] then
  return 0
end
redis.call('HSET', KEYS[1], 'rev', ARGV[2], 'state', ARGV[3])
if ARGV[4] == '' then
  redis.call('PERSIST', KEYS[1])
else
  redis.call('PEXPIRE', KEYS[1], ARGV[4])
end
return 1
";

/// Initialize-era session state on Redis: each session is a hash
/// `<prefix>:session:{<id>}` holding its revision and its state as JSON, expiring after the
/// endpoint's session idle timeout and kept alive by every load. A load is one round trip, a
/// save one (a Lua script that compares the revision and writes, atomically).
///
/// Each session's GET-stream events go to a Redis Stream `<prefix>:events:{<id>}` (in the
/// session's slot), capped at [`RedisOptions::events_kept`] entries and expiring with the
/// session, so that a client resuming with `Last-Event-ID` on any instance gets the events it
/// missed. Client messages one instance gets for another (an answer to its elicitation, a
/// cancellation of its handler) go over the pub/sub channel `<prefix>:relay`.
///
/// Made by [`Redis::session_store`].
///
/// [`RedisOptions::events_kept`]: crate::RedisOptions::events_kept
#[derive(Clone)]
pub struct RedisSessionStore {
    redis: Redis,
    load: Arc<Script>,
    save: Arc<Script>,
    events_after: Arc<Script>,
    log: Arc<Script>,
    relay: Arc<RelayChannel>,
}

/// The channel client messages are relayed over, and this instance's receivers of it.
struct RelayChannel {
    channel: Channel,
    heard: broadcast::Sender<Relayed>,
}

/// Relayed messages held for a receiver that falls behind (which then skips the oldest).
const RELAY_ROOM: usize = 1024;

impl fmt::Debug for RedisSessionStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RedisSessionStore")
            .field("redis", &self.redis)
            .field("relay", &self.relay.channel)
            .finish_non_exhaustive()
    }
}

/// A time to live as the scripts take it: whole milliseconds, rounded up (so that a TTL under
/// a millisecond keeps the state for one, not none), empty for none. A TTL past a century is
/// none (Redis refuses an expiry time it cannot add to the clock).
fn ttl_arg(ttl: Option<Duration>) -> String {
    const CENTURY_MS: u128 = 100 * 365 * 24 * 3_600_000;
    ttl.map(|ttl| ttl.as_nanos().div_ceil(1_000_000))
        .filter(|&ms| ms <= CENTURY_MS)
        .map(|ms| ms.to_string())
        .unwrap_or_default()
}

impl Redis {
    /// A [`SharedSessionStore`](presa_http::SharedSessionStore) for initialize-era sessions on
    /// this Redis (give it to presa-http as
    /// [`SessionStorage::shared`](presa_http::SessionStorage::shared)), with their GET streams'
    /// event logs; it opens a connection of its own for the channel that relays client messages
    /// between instances.
    ///
    /// # Errors
    ///
    /// [`RedisError::Unreachable`] when that connection cannot be opened or subscribed.
    pub async fn session_store(&self) -> Result<RedisSessionStore, RedisError> {
        RedisSessionStore::start(self.clone()).await
    }
}

impl RedisSessionStore {
    pub(crate) async fn start(redis: Redis) -> Result<Self, RedisError> {
        let heard = broadcast::channel(RELAY_ROOM).0;
        let relayed = heard.clone();
        let channel = Channel::open(&redis, "relay", "relayed client messages", move |m| {
            // no receiver (no endpoint serves sessions yet) is fine
            let _ = relayed.send(m);
        })
        .await?;
        Ok(Self {
            redis,
            load: Arc::new(Script::new(LOAD)),
            save: Arc::new(Script::new(SAVE)),
            events_after: Arc::new(Script::new(EVENTS_AFTER)),
            log: Arc::new(Script::new(LOG)),
            relay: Arc::new(RelayChannel { channel, heard }),
        })
    }

    /// The key of session `id`: the id is the hash tag, so that everything of one session
    /// lives in one slot of a cluster.
    fn key(&self, id: &str) -> String {
        self.redis.key(format_args!("session:{{{id}}}"))
    }

    /// The key of session `id`'s event log, in the session's slot.
    fn events_key(&self, id: &str) -> String {
        self.redis.key(format_args!("events:{{{id}}}"))
    }
}

fn failed(what: String, source: redis::RedisError) -> SessionStoreError {
    SessionStoreError::with_source(what, source)
}

impl SessionStore for RedisSessionStore {
    fn load<'a>(
        &'a self,
        id: &'a str,
        ttl: Option<Duration>,
    ) -> StoreFuture<'a, Option<Arc<SessionState>>> {
        Box::pin(async move {
            let mut connection = self.redis.commands();
            let json: Option<String> = self
                .load
                .key(self.key(id))
                .key(self.events_key(id))
                .arg(ttl_arg(ttl))
                .invoke_async(&mut connection)
                .await
                .map_err(|e| failed(format!("could not load session {id}"), e))?;
            let Some(json) = json else {
                return Ok(None);
            };
            let state: SessionState = serde_json::from_str(&json).map_err(|e| {
                SessionStoreError::with_source(
                    format!("the stored state of session {id} does not decode"),
                    e,
                )
            })?;
            Ok(Some(Arc::new(state)))
        })
    }

    fn save(
        &self,
        state: Arc<SessionState>,
        replaces: Option<u64>,
        ttl: Option<Duration>,
    ) -> StoreFuture<'_, bool> {
        Box::pin(async move {
            let json = serde_json::to_string(&*state).map_err(|e| {
                SessionStoreError::with_source(
                    format!("the state of session {} does not encode", state.id),
                    e,
                )
            })?;
            let mut connection = self.redis.commands();
            let saved: i64 = self
                .save
                .key(self.key(&state.id))
                .arg(replaces.map(|r| r.to_string()).unwrap_or_default())
                .arg(state.revision)
                .arg(json)
                .arg(ttl_arg(ttl))
                .invoke_async(&mut connection)
                .await
                .map_err(|e| failed(format!("could not save session {}", state.id), e))?;
            Ok(saved == 1)
        })
    }

    fn remove<'a>(&'a self, id: &'a str) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let mut connection = self.redis.commands();
            redis::cmd("DEL")
                .arg(self.key(id))
                .arg(self.events_key(id))
                .query_async::<()>(&mut connection)
                .await
                .map_err(|e| failed(format!("could not remove session {id}"), e))
        })
    }
}

/// The GET streams' events: a Redis Stream per session, capped at
/// [`RedisOptions::events_kept`](crate::RedisOptions::events_kept) entries and expiring with
/// the session.
impl EventLog for RedisSessionStore {
    fn log_events(&self, events: Vec<LoggedEvent>, ttl: Option<Duration>) -> StoreFuture<'_, ()> {
        Box::pin(async move {
            let kept = self.redis.options().get_events_kept();
            let ttl = ttl_arg(ttl);
            // one script per session (its keys share a slot, so a cluster takes it), in the
            // order the events came; the calls go out together over the shared connection
            let mut by_session: Vec<(&str, redis::ScriptInvocation<'_>)> = Vec::new();
            for event in &events {
                let at = match by_session.iter().position(|(id, _)| *id == &*event.session) {
                    Some(at) => at,
                    None => {
                        let mut call = self.log.prepare_invoke();
                        call.key(self.key(&event.session))
                            .key(self.events_key(&event.session))
                            .arg(kept)
                            .arg(&ttl);
                        by_session.push((&event.session, call));
                        by_session.len() - 1
                    }
                };
                by_session[at]
                    .1
                    .arg(event.stream)
                    .arg(event.seq)
                    .arg(&*event.json);
            }
            let writes = by_session.into_iter().map(|(_, call)| {
                let mut connection = self.redis.commands();
                async move { call.invoke_async::<i64>(&mut connection).await }
            });
            futures_util::future::try_join_all(writes)
                .await
                .map(drop)
                .map_err(|e| failed(format!("could not log {} events", events.len()), e))
        })
    }

    fn events_after<'a>(
        &'a self,
        session: &'a str,
        stream: u64,
        seq: u64,
    ) -> StoreFuture<'a, Option<Vec<LoggedEvent>>> {
        Box::pin(async move {
            let mut connection = self.redis.commands();
            let found: Option<Vec<String>> = self
                .events_after
                .key(self.events_key(session))
                .arg(stream)
                .arg(seq)
                .invoke_async(&mut connection)
                .await
                .map_err(|e| {
                    failed(
                        format!("could not read the event log of session {session}"),
                        e,
                    )
                })?;
            let Some(found) = found else {
                return Ok(None);
            };
            let session: Arc<str> = Arc::from(session);
            let events = found
                .chunks_exact(2)
                .filter_map(|pair| {
                    let seq = pair[0].parse().ok()?;
                    Some(LoggedEvent::new(
                        Arc::clone(&session),
                        stream,
                        seq,
                        pair[1].as_str(),
                    ))
                })
                .collect();
            Ok(Some(events))
        })
    }
}

/// Client messages between instances, over the pub/sub channel `<prefix>:relay`.
impl Relay for RedisSessionStore {
    fn relay(&self, message: Relayed) {
        self.relay.channel.publish(message);
    }

    fn relayed(&self) -> BusReceiver<Relayed> {
        self.relay.heard.subscribe().into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ttls_are_whole_milliseconds_rounded_up_to_a_century() {
        assert_eq!(ttl_arg(None), "");
        assert_eq!(ttl_arg(Some(Duration::from_secs(1800))), "1800000");
        assert_eq!(ttl_arg(Some(Duration::ZERO)), "0");
        assert_eq!(ttl_arg(Some(Duration::from_micros(1))), "1");
        assert_eq!(ttl_arg(Some(Duration::MAX)), "", "forever");
    }
}
