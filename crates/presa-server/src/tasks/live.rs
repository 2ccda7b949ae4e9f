//! A task while its handler runs in this process: the state it writes through to the store,
//! its cancellation, and the input requests its handler waits on.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use presa_core::{
    ErrorObject, InputRequest, InputResponse, META_RELATED_TASK, Notification, ProtocolVersion,
    RequestId, TaskStatus,
};
use serde_json::Value;
use serde_json::value::RawValue;
use tokio::sync::{Notify, oneshot};

use crate::context::{Cancellation, Peer};
use crate::events::Change;
use crate::input::InputError;

use super::{Tasks, now_ms, wire};

/// The pause after a task's end failed to be saved: twice as long after each further failure,
/// up to [`FINAL_WRITE_MOST_PAUSE`].
const FINAL_WRITE_PAUSE: Duration = Duration::from_millis(100);
const FINAL_WRITE_MOST_PAUSE: Duration = Duration::from_secs(30);

/// Why a task's handler was stopped (see [`LiveTask::stopped`]).
const RUNNING: u8 = 0;
const CANCELLED: u8 = 1;
const EXPIRED: u8 = 2;

/// How a task's request ended.
pub(crate) enum TaskEnd {
    /// A result (for a tool call, `isError` results too).
    Completed {
        result: Box<RawValue>,
        is_error: bool,
    },
    /// A JSON-RPC error.
    Failed(ErrorObject),
    /// Stopped by `tasks/cancel`.
    Cancelled,
}

/// Checks an answer to one input request before the handler gets it.
pub(crate) type AnswerCheck = Box<dyn Fn(&InputResponse) -> Result<(), String> + Send + Sync>;

/// The handler's waits on one key: the first one's check, and a reply for each (a handler
/// asking the same key twice at once gets the one answer twice).
struct Waiter {
    check: AnswerCheck,
    replies: Vec<oneshot::Sender<InputResponse>>,
}

#[derive(Default)]
struct Inputs {
    /// Keys the handler waits on.
    waiting: HashMap<String, Waiter>,
    /// Answers given, by key: asking again under an answered key gets the same answer, so a key
    /// never names two requests.
    answered: HashMap<String, InputResponse>,
}

/// A task whose handler runs here.
pub(crate) struct LiveTask {
    pub(crate) id: String,
    pub(crate) version: ProtocolVersion,
    /// The state.
    record: tokio::sync::Mutex<super::TaskRecord>,
    /// Held by a change until it is written through and told, so that changes go out in their
    /// order (the state itself is not locked while the store works).
    writing: tokio::sync::Mutex<()>,
    pub(crate) cancellation: Cancellation,
    /// Why the handler was stopped, decided once: [`RUNNING`] until the task is cancelled
    /// ([`CANCELLED`]) or given up waiting for input ([`EXPIRED`]).
    stop: AtomicU8,
    inputs: Mutex<Inputs>,
    /// Told on every change of the state.
    pub(crate) changed: Notify,
    tasks: Arc<Tasks>,
    /// The session the task was created on (initialize era): where its requests to the client
    /// and its status notifications go.
    peer: Arc<dyn Peer>,
    /// `tasks/result` requests waiting for the task (initialize era): its requests to the
    /// client ride the newest one's stream.
    result_streams: Mutex<Vec<(RequestId, Arc<dyn Peer>)>>,
    /// Told when a `tasks/result` request starts waiting.
    stream_added: Notify,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl LiveTask {
    pub(crate) fn new(
        record: super::TaskRecord,
        version: ProtocolVersion,
        cancellation: Cancellation,
        tasks: Arc<Tasks>,
        peer: Arc<dyn Peer>,
    ) -> Self {
        Self {
            id: record.id.clone(),
            version,
            record: tokio::sync::Mutex::new(record),
            writing: tokio::sync::Mutex::new(()),
            cancellation,
            stop: AtomicU8::new(RUNNING),
            inputs: Mutex::default(),
            changed: Notify::new(),
            tasks,
            peer,
            result_streams: Mutex::default(),
            stream_added: Notify::new(),
        }
    }

    /// Whether the task was created under 2025-11-25's tasks (their shapes and rules).
    fn experimental(&self) -> bool {
        self.version.tasks() == Some(presa_core::TasksFlavor::Experimental)
    }

    /// Applies `edit` to a task that has not ended, stamps the change and writes it through.
    /// Returns whether anything was applied.
    ///
    /// Changes reach the store, the listeners and the session in the order they were made: the
    /// next one waits for this one's write, while the state itself is locked only to be edited
    /// (a `tasks/get` does not wait for the store).
    pub(crate) async fn change(&self, edit: impl FnOnce(&mut super::TaskRecord)) -> bool {
        if self.record.lock().await.status.is_terminal() {
            // no change queues behind an end that is still being saved
            return false;
        }
        let writing = self.writing.lock().await;
        let mut record = self.record.lock().await;
        if record.status.is_terminal() {
            return false;
        }
        let shown_before = self.experimental().then(|| wire::legacy_status(&record));
        edit(&mut record);
        let now = now_ms();
        record.touch(now);
        // every write of a running task renews its runner's lease
        if !record.status.is_terminal() && record.lease_until_ms.is_some() {
            let lease = super::duration_ms(self.tasks.options.get_lease());
            record.lease_until_ms = Some(now.saturating_add(lease));
        }
        let saved = record.clone();
        drop(record);
        self.save(&saved).await;
        self.changed.notify_waiters();
        self.tasks.bus.publish(Change::TaskChanged(self.id.clone()));
        let status_changed =
            shown_before.is_some_and(|before| wire::legacy_status(&saved) != before);
        if status_changed
            && let Ok(notification) =
                Notification::new("notifications/tasks/status", &wire::legacy_task(&saved))
        {
            self.peer.notify(None, notification).await;
        }
        drop(writing);
        true
    }

    /// Writes the state through to the store. The task's end is tried until the store takes
    /// it (a task whose end is lost would hold its place as a running one); a store that
    /// refuses a change because the task ended there (cancelled from another instance) stops
    /// the handler.
    async fn save(&self, record: &super::TaskRecord) {
        let mut pause = FINAL_WRITE_PAUSE;
        loop {
            match self.tasks.options.store.update(record.clone()).await {
                Ok(true) => return,
                Ok(false) => {
                    if !record.status.is_terminal() {
                        self.cancel();
                    }
                    return;
                }
                Err(error) if record.status.is_terminal() => {
                    tracing::warn!(task = %self.id, %error, "a task's end could not be saved yet");
                    tokio::time::sleep(pause).await;
                    pause = (pause * 2).min(FINAL_WRITE_MOST_PAUSE);
                }
                Err(error) => {
                    tracing::warn!(task = %self.id, %error, "a task's state could not be saved");
                    return;
                }
            }
        }
    }

    /// Stops the handler: the task ends `cancelled` (unless it was given up first).
    pub(crate) fn cancel(&self) {
        let _ = self
            .stop
            .compare_exchange(RUNNING, CANCELLED, Ordering::AcqRel, Ordering::Acquire);
        self.cancellation.cancel();
    }

    /// How the runner ends when the task's cancellation fired: cancelled, or failed when the
    /// sweeper gave it up ([`expire_if_waiting`](Self::expire_if_waiting)).
    pub(crate) fn stopped(&self) -> TaskEnd {
        match self.stop.load(Ordering::Acquire) {
            EXPIRED => TaskEnd::Failed(ErrorObject::internal_error(
                "The task expired waiting for input: no answer came in time",
            )),
            _ => TaskEnd::Cancelled,
        }
    }

    /// Gives up a task that has waited for input for `timeout` at `now_ms` (nobody is coming
    /// back for it: the client went away, its session closed): its handler is stopped and the
    /// task fails. A task being changed right now is not waiting.
    pub(crate) fn expire_if_waiting(&self, now_ms: u64, timeout: Duration) {
        let Ok(record) = self.record.try_lock() else {
            return;
        };
        let waiting = record.status == TaskStatus::InputRequired;
        let since = record.updated_at_ms;
        let timeout = u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX);
        let expired = waiting
            && since.saturating_add(timeout) <= now_ms
            && self
                .stop
                .compare_exchange(RUNNING, EXPIRED, Ordering::AcqRel, Ordering::Acquire)
                .is_ok();
        if expired {
            self.cancellation.cancel();
        }
    }

    /// Renews the runner's lease on the task for `lease_ms` once a third of it has passed at
    /// `now_ms`: the store is told the task still runs here (nothing a caller sees changes, and
    /// nobody is notified). A store that no longer has the task running (it ended, or was
    /// cancelled elsewhere) stops the handler, as any write would.
    pub(crate) async fn renew_lease(&self, now_ms: u64, lease_ms: u64) {
        // a change being written renews the lease itself: the sweeper never waits for one
        let Ok(writing) = self.writing.try_lock() else {
            return;
        };
        let mut renewed = {
            let record = self.record.lock().await;
            let due = record
                .lease_until_ms
                .is_some_and(|until| until.saturating_sub(now_ms) < lease_ms / 3 * 2);
            if record.status.is_terminal() || !due {
                return;
            }
            record.clone()
        };
        renewed.lease_until_ms = Some(now_ms.saturating_add(lease_ms));
        // kept only once the store has it, so that a failed renewal is tried at the next sweep
        match self.tasks.options.store.update(renewed.clone()).await {
            Ok(true) => self.record.lock().await.lease_until_ms = renewed.lease_until_ms,
            Ok(false) => self.cancel(),
            Err(error) => {
                tracing::warn!(task = %self.id, %error, "a task's lease could not be renewed");
            }
        }
        drop(writing);
    }

    /// The state now.
    pub(crate) async fn record(&self) -> super::TaskRecord {
        self.record.lock().await.clone()
    }

    /// The handler reported progress: its message becomes the status message.
    pub(crate) async fn progress(
        &self,
        progress: f64,
        total: Option<f64>,
        message: Option<String>,
    ) {
        let message = message.unwrap_or_else(|| match total {
            Some(total) => format!("{progress}/{total}"),
            None => progress.to_string(),
        });
        self.change(|record| record.status_message = Some(message))
            .await;
    }

    /// How the task ended, once it did.
    pub(crate) async fn outcome(&self) -> Option<super::TaskOutcome> {
        use super::TaskOutcome;
        let record = self.record.lock().await;
        Some(match record.status {
            TaskStatus::Completed => TaskOutcome::Completed {
                is_error: record.is_error,
            },
            TaskStatus::Failed => TaskOutcome::Failed(record.error.clone().unwrap_or_else(|| {
                ErrorObject::internal_error(record.status_message.clone().unwrap_or_default())
            })),
            TaskStatus::Cancelled => TaskOutcome::Cancelled,
            _ => return None,
        })
    }

    /// The request ended: the task's final state. The last progress message described the work
    /// under way, so it goes: a failed task's message is its error's, the others have none.
    pub(crate) async fn finish(&self, end: TaskEnd) {
        self.change(|record| {
            record.input_requests.clear();
            record.status_message = None;
            match end {
                TaskEnd::Completed { result, is_error } => {
                    record.status = TaskStatus::Completed;
                    record.result = Some(result);
                    record.is_error = is_error;
                }
                TaskEnd::Failed(error) => {
                    record.status = TaskStatus::Failed;
                    record.status_message = Some(error.message.clone());
                    record.error = Some(error);
                }
                TaskEnd::Cancelled => record.status = TaskStatus::Cancelled,
            }
        })
        .await;
        // nothing waits for input any more
        let mut inputs = lock(&self.inputs);
        inputs.waiting.clear();
        inputs.answered = HashMap::new();
    }

    /// Waits for the answer to an input request of the handler (2026-07-28): the task shows it
    /// in `inputRequests` until `tasks/update` brings the answer.
    pub(crate) async fn ask(
        &self,
        key: String,
        request: InputRequest,
        check: AnswerCheck,
    ) -> Result<InputResponse, InputError> {
        let answer = {
            let mut inputs = lock(&self.inputs);
            if let Some(answer) = inputs.answered.get(&key) {
                return Ok(answer.clone());
            }
            let (reply, answer) = oneshot::channel();
            match inputs.waiting.get_mut(&key) {
                Some(waiter) => waiter.replies.push(reply),
                None => {
                    let replies = vec![reply];
                    inputs
                        .waiting
                        .insert(key.clone(), Waiter { check, replies });
                }
            }
            answer
        };
        let shown = key.clone();
        let asked = self
            .change(|record| {
                // a key names one request: asked again, it is the first one still
                record.input_requests.entry(shown).or_insert(request);
                record.status = TaskStatus::InputRequired;
            })
            .await;
        if !asked {
            // the task ended meanwhile: nobody will answer
            lock(&self.inputs).waiting.remove(&key);
            return Err(InputError::Unavailable("the task ended".into()));
        }
        answer
            .await
            .map_err(|_| InputError::Unavailable("the task ended".into()))
    }

    /// An initialize-era request to the client for the task (tagged with it), on the stream of
    /// a `tasks/result` waiting for it when there is one; the task is `input_required` meanwhile.
    pub(crate) async fn ask_client(
        &self,
        method: &str,
        mut params: Value,
    ) -> Result<Value, InputError> {
        if let Value::Object(params) = &mut params {
            let meta = params
                .entry("_meta")
                .or_insert_with(|| Value::Object(serde_json::Map::new()));
            if let Value::Object(meta) = meta {
                meta.insert(
                    META_RELATED_TASK.into(),
                    serde_json::json!({ "taskId": self.id }),
                );
            }
        }
        self.change(|record| record.status = TaskStatus::InputRequired)
            .await;
        // the request rides a waiting `tasks/result`'s stream; without one it goes to the
        // session when that reaches the client (an HTTP session only while its GET stream is
        // open), else it waits for the `tasks/result` the `input_required` status calls for
        let stream = loop {
            let added = self.stream_added.notified();
            tokio::pin!(added);
            added.as_mut().enable();
            if let Some(stream) = lock(&self.result_streams).last().cloned() {
                break Some(stream);
            }
            if self.peer.reaches_client() {
                break None;
            }
            added.await;
        };
        let answer = match &stream {
            Some((related, peer)) => peer.request(Some(related), method, params).await,
            None => self.peer.request(None, method, params).await,
        };
        self.change(|record| record.status = TaskStatus::Working)
            .await;
        answer
    }

    /// `tasks/update`: hands the answers for keys the handler waits on to it, each checked
    /// first (one malformed answer refuses them all); other keys are ignored.
    pub(crate) async fn answer(
        &self,
        responses: presa_core::InputResponses,
    ) -> Result<(), ErrorObject> {
        let delivered: Vec<(Waiter, InputResponse)> = {
            let mut inputs = lock(&self.inputs);
            for (key, response) in &responses {
                if let Some(waiter) = inputs.waiting.get(key) {
                    (waiter.check)(response).map_err(|why| {
                        ErrorObject::invalid_params(format!("inputResponses.{key} {why}"))
                    })?;
                }
            }
            let mut delivered = Vec::new();
            for (key, response) in responses {
                if let Some(waiter) = inputs.waiting.remove(&key) {
                    inputs.answered.insert(key, response.clone());
                    delivered.push((waiter, response));
                }
            }
            delivered
        };
        if delivered.is_empty() {
            return Ok(());
        }
        let answered: HashSet<String> = {
            let inputs = lock(&self.inputs);
            inputs.answered.keys().cloned().collect()
        };
        // the state shows the answers taken before the handler goes on
        self.change(|record| {
            record
                .input_requests
                .retain(|key, _| !answered.contains(key));
            if record.input_requests.is_empty() {
                record.status = TaskStatus::Working;
            }
        })
        .await;
        for (waiter, response) in delivered {
            for reply in waiter.replies {
                let _ = reply.send(response.clone());
            }
        }
        Ok(())
    }

    /// A `tasks/result` request waits for this task on `related`'s stream.
    pub(crate) fn add_result_stream(&self, related: RequestId, peer: Arc<dyn Peer>) {
        lock(&self.result_streams).push((related, peer));
        self.stream_added.notify_waiters();
    }

    /// That `tasks/result` request got its answer (or went away).
    pub(crate) fn remove_result_stream(&self, related: &RequestId) {
        lock(&self.result_streams).retain(|(id, _)| id != related);
    }
}
