//! The tasks extension of 2026-07-28 (`io.modelcontextprotocol/tasks`, SEP-2663): a server may
//! answer `tools/call` with a task instead of the result, when the request declared the
//! extension in its `clientCapabilities`; the client then polls `tasks/get`, answers the task's
//! input requests with `tasks/update`, and may `tasks/cancel` it.
//!
//! The shapes differ from the experimental tasks of 2025-11-25 ([`crate::Task`]): the task is
//! flat in its results (`resultType: "task"`), durations are `ttlMs` and `pollIntervalMs`, a
//! finished task carries its `result` or `error` itself, and there is no `tasks/result` or
//! `tasks/list`.
//!
//! ```
//! use presa_core::tasks_extension::{CreateTaskResult, DetailedTask};
//! use presa_core::TaskStatus;
//!
//! let created: CreateTaskResult = serde_json::from_str(r#"{
//!     "resultType": "task", "taskId": "t-5c1e", "status": "working",
//!     "createdAt": "2026-08-01T09:00:00Z", "lastUpdatedAt": "2026-08-01T09:00:00Z",
//!     "ttlMs": 86400000, "pollIntervalMs": 2000
//! }"#).unwrap();
//! assert_eq!(created.task.poll_interval_ms, Some(2000));
//!
//! let done: DetailedTask = serde_json::from_str(r#"{
//!     "resultType": "complete", "taskId": "t-5c1e", "status": "completed",
//!     "createdAt": "2026-08-01T09:00:00Z", "lastUpdatedAt": "2026-08-01T09:04:00Z",
//!     "ttlMs": null, "result": {"content": [{"type": "text", "text": "done"}]}
//! }"#).unwrap();
//! assert_eq!(done.task.status, TaskStatus::Completed);
//! assert_eq!(done.task.ttl_ms, None);
//! assert!(done.result.is_some());
//! ```

use serde::{Deserialize, Serialize};

use crate::{ErrorObject, InputRequests, InputResponses, JsonObject, Meta, ResultType, TaskStatus};

/// The `resultType` of a [`CreateTaskResult`]: `"task"`.
pub const RESULT_TYPE_TASK: &str = "task";

/// The notification that carries a task's state to a `subscriptions/listen` stream whose
/// filter names it (`taskIds`).
pub const TASK_NOTIFICATION: &str = "notifications/tasks";

/// A task's state as every tasks-extension message shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Task {
    /// The task id: unguessable, the only handle on the task.
    pub task_id: String,
    /// Current status.
    pub status: TaskStatus,
    /// Human-readable status detail.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    /// ISO 8601 creation time.
    pub created_at: String,
    /// ISO 8601 time of the last change.
    pub last_updated_at: String,
    /// How long from creation the server keeps the task, in milliseconds; `null` for no limit.
    /// Always written.
    #[serde(default)]
    pub ttl_ms: Option<u64>,
    /// The polling interval the server suggests, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poll_interval_ms: Option<u64>,
}

/// The answer to a request the server runs as a task: the task's first state, with
/// `resultType: "task"`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateTaskResult {
    /// `"task"` ([`RESULT_TYPE_TASK`]).
    pub result_type: ResultType,
    /// The task.
    #[serde(flatten)]
    pub task: Task,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl CreateTaskResult {
    /// The result announcing `task`.
    pub fn new(task: Task) -> Self {
        Self {
            result_type: ResultType::Other(RESULT_TYPE_TASK.to_owned()),
            task,
            meta: None,
        }
    }
}

/// A task with what its status brings: the pending `inputRequests` (`input_required`), the
/// `result` (`completed`, tool results with `isError: true` included) or the JSON-RPC `error`
/// (`failed`). The result of `tasks/get` (with `resultType: "complete"`) and the params of
/// `notifications/tasks` (without).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DetailedTask {
    /// `"complete"` on a `tasks/get` result; absent on a notification.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// The task.
    #[serde(flatten)]
    pub task: Task,
    /// What the task waits for, by key (keys are unique for the task's lifetime).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_requests: Option<InputRequests>,
    /// The result of the request the task runs, once `completed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<JsonObject>,
    /// The JSON-RPC error the request ended with, once `failed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorObject>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// Params of `tasks/update`: answers to some of a task's pending input requests.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UpdateTaskRequestParams {
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// The task.
    pub task_id: String,
    /// Answers by the keys of the task's `inputRequests`; the server ignores keys it is not
    /// waiting for.
    pub input_responses: InputResponses,
}

impl_has_meta!(CreateTaskResult, DetailedTask, UpdateTaskRequestParams);

impl crate::HasResultType for DetailedTask {
    fn result_type(&self) -> Option<&ResultType> {
        self.result_type.as_ref()
    }
    fn set_result_type(&mut self, result_type: Option<ResultType>) {
        self.result_type = result_type;
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use serde_json::json;

    use super::*;

    fn task() -> Task {
        Task {
            task_id: "t-1".into(),
            status: TaskStatus::Working,
            status_message: None,
            created_at: "2026-08-01T09:00:00Z".into(),
            last_updated_at: "2026-08-01T09:00:00Z".into(),
            ttl_ms: None,
            poll_interval_ms: Some(500),
        }
    }

    #[test]
    fn create_result_is_flat_and_writes_a_null_ttl() {
        let value = serde_json::to_value(CreateTaskResult::new(task())).unwrap();
        assert_eq!(
            value,
            json!({"resultType": "task", "taskId": "t-1", "status": "working",
                   "createdAt": "2026-08-01T09:00:00Z", "lastUpdatedAt": "2026-08-01T09:00:00Z",
                   "ttlMs": null, "pollIntervalMs": 500})
        );
    }

    #[test]
    fn detailed_task_carries_what_its_status_brings() {
        let failed = DetailedTask {
            result_type: None,
            task: Task {
                status: TaskStatus::Failed,
                ..task()
            },
            input_requests: None,
            result: None,
            error: Some(ErrorObject::internal_error("boom")),
            meta: None,
        };
        let value = serde_json::to_value(&failed).unwrap();
        assert_eq!(value["error"]["code"], -32603);
        assert!(value.get("result").is_none() && value.get("resultType").is_none());
        let back: DetailedTask = serde_json::from_value(value).unwrap();
        assert_eq!(back, failed);
    }
}
