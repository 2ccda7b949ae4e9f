//! Tasks as defined by 2025-11-25 (experimental): task-augmented requests, `tasks/get`,
//! `tasks/result`, `tasks/list`, `tasks/cancel` and `notifications/tasks/status`.
//!
//! All of this is removed in 2026-07-28, where tasks are the `io.modelcontextprotocol/tasks`
//! extension (different shapes: `ttlMs`, `pollIntervalMs`, `resultType: "task"`); a client reads
//! such an extension result as [`MrtrResult::Other`](crate::MrtrResult::Other).

use serde::{Deserialize, Serialize};

use crate::{JsonObject, Meta};

/// The state of a task. `working` → `input_required` | terminal; `input_required` →
/// `working` | terminal; terminal states (`completed`, `failed`, `cancelled`) never change.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    /// Running (the initial state).
    Working,
    /// Waiting for input from the requestor.
    InputRequired,
    /// Finished successfully (for tool calls, also a result with `isError: true`).
    Completed,
    /// Finished with an error.
    Failed,
    /// Cancelled.
    Cancelled,
}

impl TaskStatus {
    /// Whether the status is final.
    pub fn is_terminal(self) -> bool {
        matches!(self, Self::Completed | Self::Failed | Self::Cancelled)
    }
}

/// A task's state (schema `Task`; also the whole of `GetTaskResult`, `CancelTaskResult` and
/// `TaskStatusNotificationParams`, which add `_meta`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Task {
    /// The task id.
    pub task_id: String,
    /// Current status.
    pub status: TaskStatus,
    /// Human-readable status detail.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    /// ISO 8601 creation time.
    pub created_at: String,
    /// ISO 8601 time of the last status change.
    pub last_updated_at: String,
    /// Retention in milliseconds from creation; `null` means unlimited. Required (written as
    /// `null` when `None`).
    pub ttl: Option<u64>,
    /// Suggested polling interval in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poll_interval: Option<u64>,
    /// Metadata (on results and notifications).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// Result of `tasks/get`.
pub type GetTaskResult = Task;
/// Result of `tasks/cancel`: the task, already `cancelled`.
pub type CancelTaskResult = Task;
/// Params of `notifications/tasks/status`.
pub type TaskStatusNotificationParams = Task;
/// Result of `tasks/result`: exactly what the original request would have returned (any
/// result object), with `_meta["io.modelcontextprotocol/related-task"]`.
pub type GetTaskPayloadResult = JsonObject;

/// The `task` param that makes a request task-augmented.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskMetadata {
    /// Requested retention in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl: Option<u64>,
}

/// The value of `_meta["io.modelcontextprotocol/related-task"]`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RelatedTaskMetadata {
    /// The task the message belongs to.
    pub task_id: String,
}

/// The immediate answer to a task-augmented request.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CreateTaskResult {
    /// The new task (status `working`).
    pub task: Task,
    /// Result metadata (may carry `io.modelcontextprotocol/model-immediate-response`).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// Params of `tasks/get`, `tasks/result` and `tasks/cancel`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskRequestParams {
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// The task.
    pub task_id: String,
}

impl TaskRequestParams {
    /// Params naming `task_id`.
    pub fn new(task_id: impl Into<String>) -> Self {
        Self {
            meta: None,
            task_id: task_id.into(),
        }
    }
}

/// Result of `tasks/list`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListTasksResult {
    /// This page of tasks.
    pub tasks: Vec<Task>,
    /// Cursor for the next page; absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl_has_meta!(Task, CreateTaskResult, TaskRequestParams, ListTasksResult);

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use serde_json::json;

    use super::*;

    #[test]
    fn ttl_is_required_and_nullable() {
        let task = json!({"taskId": "t", "status": "input_required", "createdAt": "a", "lastUpdatedAt": "b", "ttl": null});
        let parsed: Task = serde_json::from_value(task.clone()).unwrap();
        assert_eq!(parsed.ttl, None);
        assert_eq!(parsed.status, TaskStatus::InputRequired);
        assert!(!parsed.status.is_terminal());
        assert_eq!(serde_json::to_value(&parsed).unwrap(), task);
    }
}
