//! Where tasks live: the [`TaskStore`] trait, the state it keeps as plain data
//! ([`TaskRecord`]), and the in-memory store every server starts with.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;
use std::sync::{Mutex, MutexGuard};

use presa_core::{ErrorObject, InputRequests, TaskStatus};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use crate::BoxFuture;

/// One task as a store keeps it: plain, serializable data, so that a store can be shared by
/// several server instances (Redis, a database). What is running lives with the instance that
/// runs it; everything a caller can observe is here.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TaskRecord {
    /// The task id (random, unguessable: it is the only handle on the task).
    pub id: String,
    /// Who created it, the only one who sees it: `subject:<sub>` for an authenticated caller,
    /// `session:<id>` for a session or connection, empty for an anonymous 2026-07-28 caller.
    pub owner: String,
    /// The revision of the request that created it (`2025-11-25` or `2026-07-28`): the task is
    /// seen only by requests of a revision with the same tasks.
    pub protocol_version: String,
    /// Current status.
    pub status: TaskStatus,
    /// Human-readable status detail (the handler's last progress message).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    /// Creation time, milliseconds since the Unix epoch.
    pub created_at_ms: u64,
    /// Time of the last change, milliseconds since the Unix epoch.
    pub updated_at_ms: u64,
    /// How long from creation the task is kept, in milliseconds (`None`: no limit). It grows
    /// with every change, so that a task is kept for the server's retention after its last one.
    #[serde(default)]
    pub ttl_ms: Option<u64>,
    /// The polling interval suggested to the caller, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poll_interval_ms: Option<u64>,
    /// What the task waits for (`input_required`), by key.
    #[serde(default, skip_serializing_if = "InputRequests::is_empty")]
    pub input_requests: InputRequests,
    /// The result of the request, once `completed` (a tool result, `isError` ones included).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Box<RawValue>>,
    /// Whether the result is a tool's error (`isError: true`): 2026-07-28 shows such a task
    /// `completed`, 2025-11-25 `failed`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub is_error: bool,
    /// The JSON-RPC error the request ended with, once `failed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorObject>,
    /// While the task runs: until when (milliseconds since the Unix epoch) its runner vouches
    /// for it. The runner renews it as it goes; a running task whose lease lapsed belongs to
    /// an instance that stopped without ending it, and a store forgets it (`None`: kept while
    /// it runs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lease_until_ms: Option<u64>,
}

impl TaskRecord {
    /// When the store may forget the task: `ttl_ms` after creation once the task has ended
    /// (never without a TTL); while it runs, when its runner's lease lapses (never without one).
    pub fn expires_at_ms(&self) -> Option<u64> {
        if !self.status.is_terminal() {
            return self.lease_until_ms;
        }
        self.ttl_ms
            .map(|ttl| self.created_at_ms.saturating_add(ttl))
    }

    /// Stamps a change at `now_ms`: `updated_at_ms`, and `ttl_ms` grown by as much, so that the
    /// task is still kept for the same retention after this change as after the last one.
    pub fn touch(&mut self, now_ms: u64) {
        let now = now_ms.max(self.updated_at_ms);
        if let Some(ttl) = self.ttl_ms {
            let retention = ttl.saturating_sub(self.updated_at_ms - self.created_at_ms);
            self.ttl_ms = Some((now - self.created_at_ms).saturating_add(retention));
        }
        self.updated_at_ms = now;
    }

    /// Whether the task has expired at `now_ms`.
    pub fn is_expired(&self, now_ms: u64) -> bool {
        self.expires_at_ms().is_some_and(|at| at <= now_ms)
    }
}

/// How many tasks a store holds at most: per owner, and in all. A store refuses a new task
/// past either with [`TaskStoreError::Full`]; finished tasks count until they expire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TaskLimits {
    /// Tasks one owner may have at once (all unauthenticated 2026-07-28 callers are one
    /// owner: see [`TaskRecord::owner`]). It also bounds how many task ids one
    /// `subscriptions/listen` looks up.
    pub per_owner: usize,
    /// Tasks of all owners at once.
    pub total: usize,
}

impl Default for TaskLimits {
    /// 1,000 per owner, 10,000 in all.
    fn default() -> Self {
        Self {
            per_owner: 1_000,
            total: 10_000,
        }
    }
}

/// Why a store could not do what it was asked.
#[derive(Debug)]
#[non_exhaustive]
pub enum TaskStoreError {
    /// A new task would exceed a [`TaskLimits`] bound.
    Full {
        /// Which bound: `"per owner"` or `"total"`.
        limit: &'static str,
        /// Its value.
        max: usize,
    },
    /// The storage behind the store failed (a network store that cannot be reached).
    Backend(Box<dyn std::error::Error + Send + Sync>),
}

impl fmt::Display for TaskStoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Full { limit, max } => {
                write!(
                    f,
                    "too many tasks: at most {max} ({limit}) may exist at once"
                )
            }
            Self::Backend(_) => f.write_str("the task store failed"),
        }
    }
}

impl std::error::Error for TaskStoreError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Backend(error) => Some(&**error),
            Self::Full { .. } => None,
        }
    }
}

/// Where a server keeps its tasks.
///
/// Async, with the state as plain data ([`TaskRecord`]), so that a store over a shared engine
/// lets several instances of a server answer for the same tasks. A store forgets a task once it
/// [expired](TaskRecord::is_expired): it never returns an expired one, and
/// [`evict_expired`](Self::evict_expired) frees what they held.
pub trait TaskStore: Send + Sync + fmt::Debug + 'static {
    /// Stores a new task, unless that would exceed `limits` (counted atomically with the
    /// insert).
    fn create(
        &self,
        task: TaskRecord,
        limits: TaskLimits,
        now_ms: u64,
    ) -> BoxFuture<'_, Result<(), TaskStoreError>>;

    /// The task `id`, unless there is none or it expired.
    fn get(
        &self,
        id: &str,
        now_ms: u64,
    ) -> BoxFuture<'_, Result<Option<TaskRecord>, TaskStoreError>>;

    /// Replaces a task's state with `task` (its runner's writes); returns whether it did. A
    /// task that is gone stays gone, and one that ended stays as it ended: a late write (a
    /// runner that has not seen a cancel made elsewhere) changes nothing and returns `false`,
    /// which tells the runner to stop its handler.
    fn update(&self, task: TaskRecord) -> BoxFuture<'_, Result<bool, TaskStoreError>>;

    /// Up to `limit` of `owner`'s tasks in creation order, starting after the task `after`.
    fn list(
        &self,
        owner: &str,
        after: Option<&str>,
        limit: usize,
        now_ms: u64,
    ) -> BoxFuture<'_, Result<Vec<TaskRecord>, TaskStoreError>>;

    /// Forgets every task that expired by `now_ms`; returns how many tasks are left. A store
    /// whose engine expires entries itself returns what it holds.
    fn evict_expired(&self, now_ms: u64) -> BoxFuture<'_, Result<usize, TaskStoreError>>;
}

/// The in-process [`TaskStore`]: a map, bounded by the limits it is given.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// use presa_server::{InMemoryTaskStore, TaskStore};
///
/// let store = InMemoryTaskStore::new();
/// assert!(store.get("no-such-task", 0).await.unwrap().is_none());
/// assert_eq!(store.evict_expired(0).await.unwrap(), 0);
/// # });
/// ```
#[derive(Debug, Default)]
pub struct InMemoryTaskStore {
    inner: Mutex<Tables>,
}

#[derive(Debug, Default)]
struct Tables {
    /// Each task, with its place in its owner's creation order. A B-tree, whose memory is
    /// many small nodes: a hash table's one big table, grown and freed with each burst of
    /// tasks, makes the allocator keep (and not give back) far more than the tasks held.
    tasks: BTreeMap<String, (u64, TaskRecord)>,
    /// Each owner's task ids by creation order.
    by_owner: HashMap<String, BTreeMap<u64, String>>,
    /// The tasks that ended, by when they expire (an ended task changes no more): what
    /// eviction reads, touching only what expired.
    expiring: BTreeSet<(u64, String)>,
    /// The next place in creation order.
    next: u64,
}

impl InMemoryTaskStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    fn tables(&self) -> MutexGuard<'_, Tables> {
        self.inner
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl Tables {
    fn remove(&mut self, id: &str) {
        let Some((place, task)) = self.tasks.remove(id) else {
            return;
        };
        if let Some(at) = task.expires_at_ms() {
            self.expiring.remove(&(at, task.id.clone()));
        }
        if let Some(ids) = self.by_owner.get_mut(&task.owner) {
            ids.remove(&place);
            if ids.is_empty() {
                self.by_owner.remove(&task.owner);
            }
        }
    }

    fn owned(&self, owner: &str) -> usize {
        self.by_owner.get(owner).map_or(0, BTreeMap::len)
    }

    /// Notes when `task` expires, once it ended.
    fn note_expiry(&mut self, task: &TaskRecord) {
        if let Some(at) = task.expires_at_ms() {
            self.expiring.insert((at, task.id.clone()));
        }
    }

    fn evict_expired(&mut self, now_ms: u64) {
        while let Some((at, _)) = self.expiring.first()
            && *at <= now_ms
        {
            if let Some((_, id)) = self.expiring.pop_first() {
                self.remove(&id);
            }
        }
        // give back the room of owners that were many once
        if self.by_owner.capacity() > 64 && self.by_owner.len() < self.by_owner.capacity() / 4 {
            self.by_owner.shrink_to_fit();
        }
    }
}

impl TaskStore for InMemoryTaskStore {
    fn create(
        &self,
        task: TaskRecord,
        limits: TaskLimits,
        now_ms: u64,
    ) -> BoxFuture<'_, Result<(), TaskStoreError>> {
        let created = (|| {
            let mut tables = self.tables();
            if tables.tasks.len() >= limits.total || tables.owned(&task.owner) >= limits.per_owner {
                // full: what expired makes room first
                tables.evict_expired(now_ms);
            }
            if tables.tasks.len() >= limits.total {
                return Err(TaskStoreError::Full {
                    limit: "total",
                    max: limits.total,
                });
            }
            if tables.owned(&task.owner) >= limits.per_owner {
                return Err(TaskStoreError::Full {
                    limit: "per owner",
                    max: limits.per_owner,
                });
            }
            let place = tables.next;
            tables.next += 1;
            tables
                .by_owner
                .entry(task.owner.clone())
                .or_default()
                .insert(place, task.id.clone());
            tables.note_expiry(&task);
            tables.tasks.insert(task.id.clone(), (place, task));
            Ok(())
        })();
        Box::pin(std::future::ready(created))
    }

    fn get(
        &self,
        id: &str,
        now_ms: u64,
    ) -> BoxFuture<'_, Result<Option<TaskRecord>, TaskStoreError>> {
        let task = self
            .tables()
            .tasks
            .get(id)
            .map(|(_, task)| task)
            .filter(|task| !task.is_expired(now_ms))
            .cloned();
        Box::pin(std::future::ready(Ok(task)))
    }

    fn update(&self, task: TaskRecord) -> BoxFuture<'_, Result<bool, TaskStoreError>> {
        let mut tables = self.tables();
        let replaced = match tables.tasks.get_mut(&task.id) {
            Some((_, slot)) if !slot.status.is_terminal() => {
                let before = slot.expires_at_ms();
                *slot = task.clone();
                Some(before)
            }
            _ => None,
        };
        let updated = replaced.is_some();
        if let Some(before) = replaced {
            // a running task's expiry (its lease) moves with each renewal
            if let Some(at) = before {
                tables.expiring.remove(&(at, task.id.clone()));
            }
            tables.note_expiry(&task);
        }
        drop(tables);
        Box::pin(std::future::ready(Ok(updated)))
    }

    fn list(
        &self,
        owner: &str,
        after: Option<&str>,
        limit: usize,
        now_ms: u64,
    ) -> BoxFuture<'_, Result<Vec<TaskRecord>, TaskStoreError>> {
        let tables = self.tables();
        let page = match tables.by_owner.get(owner) {
            None => Vec::new(),
            Some(ids) => {
                // after a task of this owner's: the ones created later; else from the first
                let from = after
                    .and_then(|after| tables.tasks.get(after))
                    .filter(|(_, task)| task.owner == owner)
                    .map_or(0, |(place, _)| place + 1);
                ids.range(from..)
                    .filter_map(|(_, id)| tables.tasks.get(id))
                    .map(|(_, task)| task)
                    .filter(|task| !task.is_expired(now_ms))
                    .take(limit)
                    .cloned()
                    .collect()
            }
        };
        Box::pin(std::future::ready(Ok(page)))
    }

    fn evict_expired(&self, now_ms: u64) -> BoxFuture<'_, Result<usize, TaskStoreError>> {
        let mut tables = self.tables();
        tables.evict_expired(now_ms);
        Box::pin(std::future::ready(Ok(tables.tasks.len())))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn task(id: &str, owner: &str) -> TaskRecord {
        TaskRecord {
            id: id.into(),
            owner: owner.into(),
            protocol_version: "2026-07-28".into(),
            status: TaskStatus::Working,
            status_message: None,
            created_at_ms: 1_000,
            updated_at_ms: 1_000,
            ttl_ms: Some(100),
            poll_interval_ms: None,
            input_requests: InputRequests::new(),
            result: None,
            is_error: false,
            error: None,
            lease_until_ms: None,
        }
    }

    #[test]
    fn a_change_keeps_the_retention_after_it() {
        let mut record = task("t", "o");
        record.touch(1_050);
        assert_eq!((record.updated_at_ms, record.ttl_ms), (1_050, Some(150)));
        // time going back does not move it; a huge ttl saturates
        record.touch(10);
        assert_eq!(record.updated_at_ms, 1_050);
        record.ttl_ms = Some(u64::MAX);
        record.touch(2_000);
        assert_eq!(record.ttl_ms, Some(u64::MAX));
    }

    fn finished(mut task: TaskRecord) -> TaskRecord {
        task.status = TaskStatus::Completed;
        task
    }

    #[tokio::test]
    async fn limits_refuse_past_either_bound_and_expired_tasks_make_room() {
        let store = InMemoryTaskStore::new();
        let limits = TaskLimits {
            per_owner: 2,
            total: 3,
        };
        store.create(task("a1", "a"), limits, 1_000).await.unwrap();
        store.create(task("a2", "a"), limits, 1_000).await.unwrap();
        let refused = store
            .create(task("a3", "a"), limits, 1_000)
            .await
            .unwrap_err();
        assert!(matches!(
            refused,
            TaskStoreError::Full {
                limit: "per owner",
                max: 2
            }
        ));
        store.create(task("b1", "b"), limits, 1_000).await.unwrap();
        let refused = store
            .create(task("c1", "c"), limits, 1_000)
            .await
            .unwrap_err();
        assert!(matches!(
            refused,
            TaskStoreError::Full { limit: "total", .. }
        ));
        // a1 ends and expires 100 ms after its creation: room again
        store.update(finished(task("a1", "a"))).await.unwrap();
        store
            .create(task("c1", "c"), limits, 1_099)
            .await
            .unwrap_err();
        store.create(task("c1", "c"), limits, 1_100).await.unwrap();
        assert!(store.get("a1", 1_100).await.unwrap().is_none());
    }

    #[tokio::test]
    async fn running_tasks_never_expire_and_finished_ones_do() {
        let store = InMemoryTaskStore::new();
        store
            .create(task("t", "o"), TaskLimits::default(), 0)
            .await
            .unwrap();
        assert!(store.get("t", u64::MAX).await.unwrap().is_some());
        store.update(finished(task("t", "o"))).await.unwrap();
        assert!(store.get("t", 1_099).await.unwrap().is_some());
        assert!(store.get("t", 1_100).await.unwrap().is_none());
        assert_eq!(store.evict_expired(1_100).await.unwrap(), 0);
        // a task that is gone is not brought back by a late write
        assert!(!store.update(finished(task("t", "o"))).await.unwrap());
        assert!(store.get("t", 0).await.unwrap().is_none());
    }

    #[tokio::test]
    async fn eviction_takes_what_expired_in_order_and_nothing_else() {
        let store = InMemoryTaskStore::new();
        for (id, ttl) in [("soon", 10), ("later", 500), ("running", 1)] {
            let mut record = task(id, "o");
            record.ttl_ms = Some(ttl);
            store
                .create(record, TaskLimits::default(), 0)
                .await
                .unwrap();
        }
        for (id, ttl) in [("soon", 10), ("later", 500)] {
            let mut ended = finished(task(id, "o"));
            ended.ttl_ms = Some(ttl);
            assert!(store.update(ended).await.unwrap());
        }
        // expiry counts from creation (1,000 here)
        assert_eq!(store.evict_expired(1_009).await.unwrap(), 3);
        assert_eq!(store.evict_expired(1_010).await.unwrap(), 2);
        assert!(store.get("soon", 0).await.unwrap().is_none());
        assert_eq!(store.evict_expired(1_500).await.unwrap(), 1);
        // a running task never expires
        assert_eq!(store.evict_expired(u64::MAX).await.unwrap(), 1);
        assert!(store.get("running", u64::MAX).await.unwrap().is_some());
        assert!(store.tables().expiring.is_empty());
    }

    #[tokio::test]
    async fn a_task_that_ended_stays_as_it_ended() {
        let store = InMemoryTaskStore::new();
        store
            .create(task("t", "o"), TaskLimits::default(), 0)
            .await
            .unwrap();
        let mut cancelled = task("t", "o");
        cancelled.status = TaskStatus::Cancelled;
        assert!(store.update(cancelled).await.unwrap());
        // a runner elsewhere that missed the cancel writes its progress, then its end
        let mut progress = task("t", "o");
        progress.status_message = Some("half way".into());
        assert!(!store.update(progress).await.unwrap());
        assert!(!store.update(finished(task("t", "o"))).await.unwrap());
        let stored = store.get("t", 0).await.unwrap().unwrap();
        assert_eq!(stored.status, TaskStatus::Cancelled);
        assert_eq!(stored.status_message, None);
    }

    #[tokio::test]
    async fn lists_are_per_owner_in_creation_order_and_paged() {
        let store = InMemoryTaskStore::new();
        for id in ["x1", "y1", "x2", "x3"] {
            let owner = &id[..1];
            store
                .create(task(id, owner), TaskLimits::default(), 0)
                .await
                .unwrap();
        }
        let ids = |page: Vec<TaskRecord>| page.into_iter().map(|t| t.id).collect::<Vec<_>>();
        assert_eq!(
            ids(store.list("x", None, 2, 0).await.unwrap()),
            ["x1", "x2"]
        );
        assert_eq!(
            ids(store.list("x", Some("x2"), 2, 0).await.unwrap()),
            ["x3"]
        );
        assert_eq!(ids(store.list("y", None, 10, 0).await.unwrap()), ["y1"]);
        assert!(store.list("z", None, 10, 0).await.unwrap().is_empty());
    }

    #[test]
    fn a_record_is_plain_data() {
        let mut record = finished(task("t", "o"));
        record.result = Some(RawValue::from_string(r#"{"content":[]}"#.into()).unwrap());
        let json = serde_json::to_string(&record).unwrap();
        assert!(json.contains(r#""result":{"content":[]}"#), "{json}");
        let back: TaskRecord = serde_json::from_str(&json).unwrap();
        assert_eq!(back.result.unwrap().get(), r#"{"content":[]}"#);
        assert_eq!(back.status, TaskStatus::Completed);
    }
}
