//! Initialize-era session state on Redis.

use std::sync::Arc;
use std::time::Duration;

use presa_http::{SessionState, SessionStore, SessionStoreError, StoreFuture};
use redis::Script;

use crate::connection::Redis;

/// Loads a session's state and sets its time to live. KEYS[1]: the session's hash; ARGV[1]:
/// the TTL in milliseconds, empty for none.
const LOAD: &str = r"
local state = redis.call('HGET', KEYS[1], 'state')
if state then
  if ARGV[1] == '' then
    redis.call('PERSIST', KEYS[1])
  else
    redis.call('PEXPIRE', KEYS[1], ARGV[1])
  end
end
return state
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
/// Made by [`Redis::session_store`].
#[derive(Debug, Clone)]
pub struct RedisSessionStore {
    redis: Redis,
    load: Arc<Script>,
    save: Arc<Script>,
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

impl RedisSessionStore {
    pub(crate) fn new(redis: Redis) -> Self {
        Self {
            redis,
            load: Arc::new(Script::new(LOAD)),
            save: Arc::new(Script::new(SAVE)),
        }
    }

    /// The key of session `id`: the id is the hash tag, so that everything of one session
    /// lives in one slot of a cluster.
    fn key(&self, id: &str) -> String {
        self.redis.key(format_args!("session:{{{id}}}"))
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
                .query_async::<()>(&mut connection)
                .await
                .map_err(|e| failed(format!("could not remove session {id}"), e))
        })
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
