//! Tasks on Redis.

use std::sync::Arc;

use presa_server::{BoxFuture, TaskLimits, TaskRecord, TaskStore, TaskStoreError};
use redis::Script;

use crate::connection::Redis;

/// The eviction every script below shares: forgets the tasks whose expiry (`ARGV[1]`, in the
/// `expiring` set, KEYS[1]) has come, at most [`EVICT_BATCH`] per call (so that one call never
/// holds Redis for long); returns how many it forgot. KEYS[2] is the id → owner hash;
/// ARGV[2] the prefix of every task key (`…:task:`), ARGV[3] of every owner's set (`…:owner:`).
const EVICT: &str = r"
local function evict()
  local ids = redis.call('ZRANGE', KEYS[1], '-inf', ARGV[1], 'BYSCORE', 'LIMIT', 0, EVICT_BATCH)
  for _, id in ipairs(ids) do
    local owner = redis.call('HGET', KEYS[2], id)
    if owner then redis.call('ZREM', ARGV[3] .. owner, id) end
    redis.call('HDEL', KEYS[2], id)
    redis.call('DEL', ARGV[2] .. id)
    redis.call('ZREM', KEYS[1], id)
  end
  return #ids
end
";

/// The most tasks one script call evicts (written into [`EVICT`] where it says so).
const EVICT_BATCH: usize = 10_000;

/// Creates a task unless a limit forbids. KEYS: expiring, owners, the owner's set, the
/// counter, the task's hash. ARGV: now, task key prefix, owner set prefix, id, owner, JSON,
/// whether it ended (`1`/`0`), its expiry (empty: none), total limit, per-owner limit.
/// Returns `ok`, `total` or `per owner`.
const CREATE: &str = r"
local function full()
  if redis.call('HLEN', KEYS[2]) >= tonumber(ARGV[9]) then return 'total' end
  if redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[10]) then return 'per owner' end
  return nil
end
if full() then evict() end
local refused = full()
if refused then return refused end
local place = redis.call('INCR', KEYS[4])
redis.call('HSET', KEYS[5], 'json', ARGV[6], 'ended', ARGV[7])
redis.call('ZADD', KEYS[3], place, ARGV[4])
redis.call('HSET', KEYS[2], ARGV[4], ARGV[5])
if ARGV[8] ~= '' then redis.call('ZADD', KEYS[1], ARGV[8], ARGV[4]) end
return 'ok'
";

/// Replaces a task that exists and has not ended, and moves its expiry (a running task's is
/// its runner's lease). KEYS: expiring, the task's hash. ARGV: id, JSON, whether it ended, its
/// expiry (empty: none). Returns 1 when it did.
const UPDATE: &str = r"
local ended = redis.call('HGET', KEYS[2], 'ended')
if ended ~= '0' then return 0 end
redis.call('HSET', KEYS[2], 'json', ARGV[2], 'ended', ARGV[3])
if ARGV[4] ~= '' then
  redis.call('ZADD', KEYS[1], ARGV[4], ARGV[1])
else
  redis.call('ZREM', KEYS[1], ARGV[1])
end
return 1
";

/// Up to ARGV[3] of an owner's tasks after task ARGV[2] (empty: from the first), in creation
/// order, without the expired ones (expiry at or before ARGV[1]), read in chunks of 100 from
/// the last place read. KEYS: expiring, the owner's set. ARGV[4]: the task key prefix. Returns
/// their JSON.
const LIST: &str = r"
local from = '-inf'
if ARGV[2] ~= '' then
  local place = redis.call('ZSCORE', KEYS[2], ARGV[2])
  if place then from = '(' .. place end
end
local now, limit, page = tonumber(ARGV[1]), tonumber(ARGV[3]), {}
while #page < limit do
  local chunk = redis.call('ZRANGE', KEYS[2], from, '+inf', 'BYSCORE', 'LIMIT', 0, 100, 'WITHSCORES')
  if #chunk == 0 then break end
  for i = 1, #chunk, 2 do
    local id = chunk[i]
    local expiry = redis.call('ZSCORE', KEYS[1], id)
    if not expiry or tonumber(expiry) > now then
      local json = redis.call('HGET', ARGV[4] .. id, 'json')
      if json then
        page[#page + 1] = json
        if #page >= limit then break end
      end
    end
  end
  -- the next chunk starts after the last place read
  from = '(' .. chunk[#chunk]
end
return page
";

/// Forgets what expired, up to [`EVICT_BATCH`]; returns how many it forgot and how many tasks
/// are left. KEYS: expiring, owners.
const SWEEP: &str = r"
local evicted = evict()
return {evicted, redis.call('HLEN', KEYS[2])}
";

/// Tasks on Redis: every instance of a server sharing the Redis answers `tasks/get` and
/// `tasks/list` for any task, and a 2025-11-25 `tasks/cancel` made on any instance is stored
/// (the runner stops at its next write), while the handler keeps running on the instance that
/// started it. Answers for a task's input requests (`tasks/update`) and a 2026-07-28
/// `tasks/cancel` reach the handler only on its own instance yet.
///
/// A task is the hash `<prefix>:{tasks}:task:<id>` (its [`TaskRecord`] as JSON, and whether it
/// ended), indexed by its owner's sorted set (by creation) and, once it ended, by when it
/// expires. All of a deployment's tasks share one hash tag, so that [`TaskLimits`] are counted
/// atomically with each insert on a Redis Cluster too (the tasks then live on one of its
/// nodes). Every operation is one round trip.
///
/// Made by [`Redis::task_store`]; give it to the server with
/// [`TaskOptions::shared_store`](presa_server::TaskOptions::shared_store) or
/// [`TaskOptions::store`](presa_server::TaskOptions::store).
#[derive(Debug, Clone)]
pub struct RedisTaskStore {
    redis: Redis,
    scripts: Arc<Scripts>,
}

#[derive(Debug)]
struct Scripts {
    create: Script,
    update: Script,
    list: Script,
    sweep: Script,
}

impl Redis {
    /// A [`TaskStore`](presa_server::TaskStore) on this Redis.
    pub fn task_store(&self) -> RedisTaskStore {
        RedisTaskStore::new(self.clone())
    }
}

impl RedisTaskStore {
    pub(crate) fn new(redis: Redis) -> Self {
        let evict = EVICT.replace("EVICT_BATCH", &EVICT_BATCH.to_string());
        let scripts = Scripts {
            create: Script::new(&format!("{evict}{CREATE}")),
            update: Script::new(UPDATE),
            list: Script::new(LIST),
            sweep: Script::new(&format!("{evict}{SWEEP}")),
        };
        Self {
            redis,
            scripts: Arc::new(scripts),
        }
    }

    fn key(&self, rest: &str) -> String {
        self.redis.key(format_args!("{{tasks}}:{rest}"))
    }

    fn task_key(&self, id: &str) -> String {
        self.key(&format!("task:{id}"))
    }

    fn owner_key(&self, owner: &str) -> String {
        self.key(&format!("owner:{owner}"))
    }
}

fn backend(error: impl std::error::Error + Send + Sync + 'static) -> TaskStoreError {
    TaskStoreError::Backend(Box::new(error))
}

/// The task as the scripts store it: its JSON, whether it ended, and when it expires.
fn stored(task: &TaskRecord) -> Result<(String, &'static str, String), TaskStoreError> {
    let json = serde_json::to_string(task).map_err(backend)?;
    let ended = if task.status.is_terminal() { "1" } else { "0" };
    let expiry = task
        .expires_at_ms()
        .map(|at| at.to_string())
        .unwrap_or_default();
    Ok((json, ended, expiry))
}

fn decoded(json: &str) -> Result<TaskRecord, TaskStoreError> {
    serde_json::from_str(json).map_err(backend)
}

impl TaskStore for RedisTaskStore {
    fn create(
        &self,
        task: TaskRecord,
        limits: TaskLimits,
        now_ms: u64,
    ) -> BoxFuture<'_, Result<(), TaskStoreError>> {
        Box::pin(async move {
            let (json, ended, expiry) = stored(&task)?;
            let mut connection = self.redis.commands();
            let outcome: String = self
                .scripts
                .create
                .key(self.key("expiring"))
                .key(self.key("owners"))
                .key(self.owner_key(&task.owner))
                .key(self.key("next"))
                .key(self.task_key(&task.id))
                .arg(now_ms)
                .arg(self.task_key(""))
                .arg(self.owner_key(""))
                .arg(&task.id)
                .arg(&task.owner)
                .arg(json)
                .arg(ended)
                .arg(expiry)
                .arg(limits.total)
                .arg(limits.per_owner)
                .invoke_async(&mut connection)
                .await
                .map_err(backend)?;
            match outcome.as_str() {
                "ok" => Ok(()),
                "total" => Err(TaskStoreError::Full {
                    limit: "total",
                    max: limits.total,
                }),
                _ => Err(TaskStoreError::Full {
                    limit: "per owner",
                    max: limits.per_owner,
                }),
            }
        })
    }

    fn get(
        &self,
        id: &str,
        now_ms: u64,
    ) -> BoxFuture<'_, Result<Option<TaskRecord>, TaskStoreError>> {
        let key = self.task_key(id);
        Box::pin(async move {
            let mut connection = self.redis.commands();
            let json: Option<String> = redis::cmd("HGET")
                .arg(key)
                .arg("json")
                .query_async(&mut connection)
                .await
                .map_err(backend)?;
            match json {
                Some(json) => Ok(Some(decoded(&json)?).filter(|task| !task.is_expired(now_ms))),
                None => Ok(None),
            }
        })
    }

    fn update(&self, task: TaskRecord) -> BoxFuture<'_, Result<bool, TaskStoreError>> {
        Box::pin(async move {
            let (json, ended, expiry) = stored(&task)?;
            let mut connection = self.redis.commands();
            let updated: i64 = self
                .scripts
                .update
                .key(self.key("expiring"))
                .key(self.task_key(&task.id))
                .arg(&task.id)
                .arg(json)
                .arg(ended)
                .arg(expiry)
                .invoke_async(&mut connection)
                .await
                .map_err(backend)?;
            Ok(updated == 1)
        })
    }

    fn list(
        &self,
        owner: &str,
        after: Option<&str>,
        limit: usize,
        now_ms: u64,
    ) -> BoxFuture<'_, Result<Vec<TaskRecord>, TaskStoreError>> {
        let owner_key = self.owner_key(owner);
        let after = after.unwrap_or_default().to_owned();
        Box::pin(async move {
            if limit == 0 {
                return Ok(Vec::new());
            }
            let mut connection = self.redis.commands();
            let page: Vec<String> = self
                .scripts
                .list
                .key(self.key("expiring"))
                .key(owner_key)
                .arg(now_ms)
                .arg(after)
                .arg(limit)
                .arg(self.task_key(""))
                .invoke_async(&mut connection)
                .await
                .map_err(backend)?;
            page.iter().map(|json| decoded(json)).collect()
        })
    }

    fn evict_expired(&self, now_ms: u64) -> BoxFuture<'_, Result<usize, TaskStoreError>> {
        Box::pin(async move {
            let mut connection = self.redis.commands();
            // a call at a time, until one finds less than a full batch
            loop {
                let (evicted, left): (usize, usize) = self
                    .scripts
                    .sweep
                    .key(self.key("expiring"))
                    .key(self.key("owners"))
                    .arg(now_ms)
                    .arg(self.task_key(""))
                    .arg(self.owner_key(""))
                    .invoke_async(&mut connection)
                    .await
                    .map_err(backend)?;
                if evicted < EVICT_BATCH {
                    return Ok(left);
                }
            }
        })
    }
}
