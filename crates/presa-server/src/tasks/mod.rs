//! Tasks: a tool call that runs on after its request was answered, polled by the client.
//!
//! One handler serves both eras. A tool declares whether it runs as a task
//! ([`Tool::task_support`](presa_core::Tool::task_support)); then
//!
//! - **2026-07-28** (the `io.modelcontextprotocol/tasks` extension): when the request declared the
//!   extension, the handler is started as usual; one that finishes on its first poll is answered
//!   at once, one that asks for input first gets its input rounds (MRTR), and one that goes on
//!   working becomes a task: the task is stored, the request is answered with it
//!   (`resultType: "task"`), and the same handler future runs on. Its input requests wait in the
//!   task's `inputRequests` for `tasks/update`.
//! - **2025-11-25** (experimental core tasks): a `tools/call` with a `task` param becomes a task at
//!   once; the handler's input requests are requests to the client tied to the task, and
//!   `tasks/result` waits for the end.
//!
//! The tasks live in a [`TaskStore`] (in memory unless told otherwise), bounded by
//! [`TaskLimits`]; each belongs to its caller (the authenticated subject, else the session) and
//! nobody else sees it.

mod live;
mod methods;
mod store;
mod wire;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::{Duration, SystemTime};

use base64::Engine as _;
use presa_core::{
    ClientCapabilities, Era, ErrorCode, ErrorObject, RawJson, RequestTasks, TASKS_EXTENSION,
    TaskMetadata, TaskStatus, TaskSupport, Tool,
};

pub(crate) use live::{AnswerCheck, LiveTask, TaskEnd};
pub use store::{InMemoryTaskStore, TaskLimits, TaskRecord, TaskStore, TaskStoreError};

use crate::BoxFuture;
use crate::context::Context;
use crate::events::{EventBus, Missed, TaskSignal, TaskSignals};
use crate::server::Server;

/// How a server keeps and runs its tasks.
///
/// ```
/// use std::time::Duration;
/// use presa_server::{InMemoryTaskStore, TaskLimits, TaskOptions};
///
/// let options = TaskOptions::default()
///     .store(InMemoryTaskStore::new())
///     .retention(Some(Duration::from_secs(600)))
///     .poll_interval(Duration::from_millis(500))
///     .limits(TaskLimits { per_owner: 50, total: 5_000 });
/// assert_eq!(options.get_poll_interval(), Duration::from_millis(500));
/// assert_eq!(options.get_limits().per_owner, 50);
/// ```
#[derive(Clone, Debug)]
pub struct TaskOptions {
    pub(crate) store: Arc<dyn TaskStore>,
    limits: TaskLimits,
    retention: Option<Duration>,
    poll_interval: Duration,
    input_timeout: Option<Duration>,
    lease: Duration,
}

impl Default for TaskOptions {
    /// In memory, finished tasks kept for an hour after their last change, a poll every
    /// second suggested, a task waiting for input given up after an hour, a runner's lease
    /// of a minute, the default [`TaskLimits`].
    fn default() -> Self {
        Self {
            store: Arc::new(InMemoryTaskStore::new()),
            limits: TaskLimits::default(),
            retention: Some(Duration::from_secs(3600)),
            poll_interval: Duration::from_secs(1),
            input_timeout: Some(Duration::from_secs(3600)),
            lease: Duration::from_secs(60),
        }
    }
}

impl TaskOptions {
    /// Where tasks are kept.
    #[must_use]
    pub fn store(mut self, store: impl TaskStore) -> Self {
        self.store = Arc::new(store);
        self
    }

    /// Where tasks are kept, shared.
    #[must_use]
    pub fn shared_store(mut self, store: Arc<dyn TaskStore>) -> Self {
        self.store = store;
        self
    }

    /// How many tasks may exist at once, per caller and in all.
    #[must_use]
    pub fn limits(mut self, limits: TaskLimits) -> Self {
        self.limits = limits;
        self
    }

    /// How long a task is kept after its last change (its `ttlMs` counts from creation and grows
    /// with each change); `None` keeps finished tasks for good, counted by the limits (which
    /// then never make room: new 2025-11-25 tasks are refused, 2026-07-28 calls answered
    /// inline). A 2025-11-25 client may ask for less with the `task.ttl` of its request.
    #[must_use]
    pub fn retention(mut self, retention: Option<Duration>) -> Self {
        self.retention = retention;
        self
    }

    /// The polling interval suggested to clients (`pollIntervalMs`, at least 1 ms).
    #[must_use]
    pub fn poll_interval(mut self, interval: Duration) -> Self {
        self.poll_interval = interval.max(Duration::from_millis(1));
        self
    }

    /// How long a task may wait for an answer to its input request before it is given up
    /// (its handler dropped, the task `failed`): the client went away, or its session closed.
    /// `None` waits for good.
    #[must_use]
    pub fn input_timeout(mut self, timeout: Option<Duration>) -> Self {
        self.input_timeout = timeout;
        self
    }

    /// How long the instance running a task vouches for it at a time
    /// ([`TaskRecord::lease_until_ms`]; at least 3 s, default a minute): it renews the lease
    /// once a third of it has passed, and a store shared by several instances forgets a
    /// running task whose instance stopped without ending it this long after the last renewal.
    #[must_use]
    pub fn lease(mut self, lease: Duration) -> Self {
        self.lease = lease.max(Duration::from_secs(3));
        self
    }

    /// The input timeout.
    pub fn get_input_timeout(&self) -> Option<Duration> {
        self.input_timeout
    }

    /// The lease.
    pub fn get_lease(&self) -> Duration {
        self.lease
    }

    /// The limits.
    pub fn get_limits(&self) -> TaskLimits {
        self.limits
    }

    /// The retention.
    pub fn get_retention(&self) -> Option<Duration> {
        self.retention
    }

    /// The suggested polling interval.
    pub fn get_poll_interval(&self) -> Duration {
        self.poll_interval
    }

    pub(crate) fn retention_ms(&self) -> Option<u64> {
        self.retention.map(duration_ms)
    }
}

fn duration_ms(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// Milliseconds since the Unix epoch.
pub(crate) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, duration_ms)
}

/// A server's tasks: the options, the bus that tells listeners of changes, the signals between
/// instances (a shared deployment's), and the tasks whose handlers run in this process.
pub(crate) struct Tasks {
    pub(crate) options: TaskOptions,
    pub(crate) bus: Arc<dyn EventBus>,
    pub(crate) signals: Option<Arc<dyn TaskSignals>>,
    live: Mutex<HashMap<String, Arc<LiveTask>>>,
    /// Whether a sweeper evicts expired tasks now.
    sweeping: AtomicBool,
    /// Tasks created so far (a sweeper about to stop looks whether one came meanwhile).
    created: AtomicU64,
    /// Set once the task handing other instances' signals to the tasks here runs.
    hearing: std::sync::Once,
}

impl Tasks {
    pub(crate) fn new(
        options: TaskOptions,
        bus: Arc<dyn EventBus>,
        signals: Option<Arc<dyn TaskSignals>>,
    ) -> Self {
        Self {
            options,
            bus,
            signals,
            live: Mutex::default(),
            sweeping: AtomicBool::new(false),
            created: AtomicU64::new(0),
            hearing: std::sync::Once::new(),
        }
    }

    /// Starts, once (with the first task here), the task that hands what other instances
    /// signal (answers, cancels of tasks running here) to the tasks' handlers; it ends with
    /// the server's tasks.
    fn hear_signals(self: &Arc<Self>) {
        self.hearing.call_once(|| {
            let Some(mut signals) = self.signals.as_ref().map(|s| s.signals()) else {
                return;
            };
            let tasks: Weak<Self> = Arc::downgrade(self);
            tokio::spawn(async move {
                loop {
                    let signal = match signals.recv().await {
                        Some(Ok(signal)) => signal,
                        Some(Err(Missed(missed))) => {
                            tracing::warn!(
                                target: "presa_server",
                                "{missed} task signals of other instances were missed"
                            );
                            continue;
                        }
                        None => return,
                    };
                    let Some(tasks) = tasks.upgrade() else { return };
                    match signal {
                        TaskSignal::Answers { task, responses } => {
                            if let Some(live) = tasks.live_task(&task)
                                && let Err(error) = live.answer(responses).await
                            {
                                tracing::warn!(
                                    target: "presa_server",
                                    "answers to task {task} sent through another instance do not fit: {}",
                                    error.message
                                );
                            }
                        }
                        TaskSignal::Cancel { task } => {
                            if let Some(live) = tasks.live_task(&task) {
                                live.cancel();
                            }
                        }
                    }
                }
            });
        });
    }

    fn live(&self) -> MutexGuard<'_, HashMap<String, Arc<LiveTask>>> {
        self.live
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub(crate) fn live_task(&self, id: &str) -> Option<Arc<LiveTask>> {
        self.live().get(id).cloned()
    }

    /// Evicts expired tasks now and then while the store holds any, and fails the tasks running
    /// here that waited for input past the input timeout.
    fn sweep(self: &Arc<Self>) {
        self.hear_signals();
        self.created.fetch_add(1, Ordering::AcqRel);
        if self.sweeping.swap(true, Ordering::AcqRel) {
            return;
        }
        let tasks: Weak<Self> = Arc::downgrade(self);
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(SWEEP_INTERVAL).await;
                let Some(tasks) = tasks.upgrade() else { return };
                let created = tasks.created.load(Ordering::Acquire);
                let now = now_ms();
                // a task waiting for input too long was given up on: it fails
                if let Some(timeout) = tasks.options.input_timeout {
                    for task in tasks.live().values() {
                        task.expire_if_waiting(now, timeout);
                    }
                }
                // the tasks running here vouch for themselves again before their lease lapses
                let running: Vec<Arc<LiveTask>> = tasks.live().values().cloned().collect();
                let lease = duration_ms(tasks.options.lease);
                for task in running {
                    task.renew_lease(now, lease).await;
                }
                let left = tasks.options.store.evict_expired(now).await;
                if matches!(left, Ok(0)) && tasks.live().is_empty() {
                    tasks.sweeping.store(false, Ordering::Release);
                    // a task created meanwhile may have seen this sweeper still running
                    let more = tasks.created.load(Ordering::Acquire) != created;
                    if !more || tasks.sweeping.swap(true, Ordering::AcqRel) {
                        return;
                    }
                }
            }
        });
    }
}

/// How a task ended.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum TaskOutcome {
    /// The tool's result; `is_error` when the tool failed as a tool (`isError: true`).
    Completed {
        /// Whether the result reports the tool failing.
        is_error: bool,
    },
    /// A protocol error (also a task given up waiting for input).
    Failed(ErrorObject),
    /// Cancelled: by `tasks/cancel` (made here or through another instance).
    Cancelled,
}

/// How often expired tasks are looked for while there are tasks.
const SWEEP_INTERVAL: Duration = Duration::from_secs(1);

/// How a `tools/call` is served.
#[derive(Debug)]
pub(crate) enum CallMode {
    /// Answered with the tool's result (or input rounds).
    Inline,
    /// 2026-07-28 with the extension: answered inline if the handler finishes on its first poll
    /// or asks for input first, else it becomes a task.
    MayBecomeTask,
    /// 2025-11-25 with a `task` param: a task from the start, kept for at most `ttl_ms`.
    Task { ttl_ms: Option<u64> },
}

impl CallMode {
    /// How a call of `tool` from the client `cx` describes is served: what the tool declares,
    /// what this request allows.
    pub(crate) fn of(
        tool: &Tool,
        cx: &Context,
        task: Option<&TaskMetadata>,
    ) -> Result<Self, ErrorObject> {
        let support = tool.get_task_support();
        match request_tasks(cx) {
            RequestTasks::Extension => match support {
                TaskSupport::Forbidden => Ok(Self::Inline),
                TaskSupport::Optional | TaskSupport::Required => Ok(Self::MayBecomeTask),
            },
            RequestTasks::Undeclared => match support {
                TaskSupport::Required => Err(missing_extension()),
                TaskSupport::Forbidden | TaskSupport::Optional => Ok(Self::Inline),
            },
            RequestTasks::Experimental => match (support, task) {
                (TaskSupport::Forbidden, Some(_)) => Err(ErrorObject::new(
                    ErrorCode::METHOD_NOT_FOUND,
                    format!("Tool {} does not run as a task", tool.name),
                )),
                (TaskSupport::Required, None) => Err(ErrorObject::new(
                    ErrorCode::METHOD_NOT_FOUND,
                    format!(
                        "Tool {} runs only as a task: call it with a task",
                        tool.name
                    ),
                )),
                (_, Some(task)) => Ok(Self::Task { ttl_ms: task.ttl }),
                (_, None) => Ok(Self::Inline),
            },
            // revisions without tasks: every tool is answered inline
            RequestTasks::Unavailable => Ok(Self::Inline),
        }
    }
}

/// Which tasks the request `cx` serves may use (presa-core's rule).
pub(crate) fn request_tasks(cx: &Context) -> RequestTasks {
    cx.protocol_version()
        .request_tasks(cx.client_capabilities())
}

/// Which tasks the request `cx` serves may use, refusing one that needs them without having
/// declared the extension its revision asks for.
pub(crate) fn require_tasks(cx: &Context) -> Result<RequestTasks, ErrorObject> {
    match request_tasks(cx) {
        RequestTasks::Undeclared => Err(missing_extension()),
        tasks => Ok(tasks),
    }
}

/// `-32021` naming the tasks extension (the error of a request that needs it undeclared).
fn missing_extension() -> ErrorObject {
    let mut extensions = presa_core::JsonObject::new();
    extensions.insert(TASKS_EXTENSION.into(), serde_json::json!({}));
    let required = ClientCapabilities {
        extensions: Some(extensions),
        ..Default::default()
    };
    crate::input::missing_capability_error(required, Era::Stateless)
}

/// Who a task belongs to: the authenticated subject, else the session (an initialize-era
/// session, a stdio or in-process connection); a 2026-07-28 caller without either is anonymous,
/// and only the unguessable task id guards its tasks.
pub(crate) fn owner_of(cx: &Context) -> String {
    if let Some(subject) = cx.auth().and_then(crate::AuthInfo::subject) {
        return format!("subject:{subject}");
    }
    match cx.session() {
        Some(session) => format!("session:{session}"),
        None => String::new(),
    }
}

/// A new task id: 128 random bits, base64url.
fn new_task_id() -> Result<String, ErrorObject> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes)
        .map_err(|e| ErrorObject::internal_error(format!("no randomness for a task id: {e}")))?;
    Ok(base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes))
}

/// What running a tool handler produced, as the task keeps it.
pub(crate) type TaskRun = BoxFuture<'static, TaskEnd>;

impl Server {
    /// Stores a new task for the call `cx` serves, kept for at most `ttl_ms` (what a 2025-11-25
    /// request asked for) and the server's retention. Fails when the store refuses it (full, or
    /// its engine failed).
    pub(crate) async fn create_task(
        &self,
        cx: &Context,
        ttl_ms: Option<u64>,
    ) -> Result<TaskRecord, ErrorObject> {
        let options = &self.inner.tasks.options;
        let now = now_ms();
        let retention = match (options.retention_ms(), ttl_ms) {
            (Some(kept), Some(asked)) => Some(kept.min(asked)),
            (kept, asked) => kept.or(asked),
        };
        let record = TaskRecord {
            id: new_task_id()?,
            owner: owner_of(cx),
            protocol_version: cx.protocol_version().as_str().to_owned(),
            status: TaskStatus::Working,
            status_message: None,
            created_at_ms: now,
            updated_at_ms: now,
            ttl_ms: retention,
            poll_interval_ms: Some(duration_ms(options.poll_interval)),
            input_requests: Default::default(),
            result: None,
            is_error: false,
            error: None,
            lease_until_ms: Some(now.saturating_add(duration_ms(options.lease))),
        };
        options
            .store
            .create(record.clone(), options.limits, now)
            .await
            .map_err(|error| ErrorObject::internal_error(error.to_string()))?;
        Ok(record)
    }

    /// Runs `run` (the handler, already started when the call may have been answered inline)
    /// as the task `record` (stored by [`create_task`](Self::create_task) before the answer goes
    /// out, so that a `tasks/get` right after it finds the task). Returns the answer announcing
    /// the task, with the task for the middleware to watch.
    pub(crate) fn run_task(
        &self,
        cx: &Context,
        record: TaskRecord,
        run: TaskRun,
    ) -> Result<(RawJson, Arc<LiveTask>), ErrorObject> {
        let tasks = &self.inner.tasks;
        let version = cx.protocol_version();
        let answer = self.created_result(&record, version)?;
        let live = Arc::new(LiveTask::new(
            record,
            version,
            cx.cancellation().clone(),
            Arc::clone(tasks),
            cx.peer(),
        ));
        tasks.live().insert(live.id.clone(), Arc::clone(&live));
        let running = Running {
            tasks: Arc::clone(tasks),
            id: live.id.clone(),
        };
        cx.attach_task(Arc::clone(&live));
        let task = Arc::clone(&live);
        tasks.sweep();
        // the work goes on after the call's answer, so in a span of its own that follows the
        // call's (a child would hold the call's span open until the task ends)
        let span = tracing::info_span!(
            target: "presa::server",
            parent: None,
            "mcp.task",
            otel.name = "task",
            mcp.task.id = %live.id,
        );
        span.follows_from(tracing::Span::current());
        tokio::spawn(tracing::Instrument::instrument(
            async move {
                let _running = running;
                let end = tokio::select! {
                    // a handler that finished as the cancel came reports its real end
                    biased;
                    end = run => end,
                    () = live.cancellation.cancelled() => live.stopped(),
                };
                live.finish(end).await;
            },
            span,
        ));
        Ok((answer, task))
    }
}

/// A task's runner: takes the task off the live ones when it ends, however it ends.
struct Running {
    tasks: Arc<Tasks>,
    id: String,
}

impl Drop for Running {
    fn drop(&mut self) {
        self.tasks.live().remove(&self.id);
    }
}
