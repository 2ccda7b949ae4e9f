//! Tasks as defined by 2025-11-25 (experimental): task-augmented requests, `tasks/get`,
//! `tasks/result`, `tasks/list`, `tasks/cancel` and `notifications/tasks/status`.
//!
//! All of this is removed in 2026-07-28, where tasks are the `io.modelcontextprotocol/tasks`
//! extension (SEP-2663) with shapes of their own: [`tasks_extension`](crate::tasks_extension).

use serde::{Deserialize, Serialize};

use crate::{JsonObject, Meta};

/// The id of the tasks extension of 2026-07-28 (SEP-2663), under which a client declares it in
/// `clientCapabilities.extensions` and a server in `capabilities.extensions`.
pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// An ISO 8601 (RFC 3339) UTC timestamp with milliseconds for a time given in milliseconds
/// since the Unix epoch: the form of a task's `createdAt` and `lastUpdatedAt`.
///
/// ```
/// assert_eq!(presa_core::format_timestamp(0), "1970-01-01T00:00:00.000Z");
/// assert_eq!(presa_core::format_timestamp(1_785_571_200_123), "2026-08-01T08:00:00.123Z");
/// ```
pub fn format_timestamp(unix_ms: u64) -> String {
    let (days, ms_of_day) = (unix_ms / 86_400_000, unix_ms % 86_400_000);
    // the civil date of a day count (Howard Hinnant's days_from_civil, inverted)
    let z = days + 719_468;
    let era = z / 146_097;
    let day_of_era = z % 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let mp = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = year_of_era + era * 400 + u64::from(month <= 2);
    let (h, m, s, ms) = (
        ms_of_day / 3_600_000,
        ms_of_day / 60_000 % 60,
        ms_of_day / 1000 % 60,
        ms_of_day % 1000,
    );
    format!("{year:04}-{month:02}-{day:02}T{h:02}:{m:02}:{s:02}.{ms:03}Z")
}

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
    /// The wire string (`"working"`, `"input_required"`, ...).
    ///
    /// ```
    /// assert_eq!(presa_core::TaskStatus::InputRequired.as_str(), "input_required");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Working => "working",
            Self::InputRequired => "input_required",
            Self::Completed => "completed",
            Self::Failed => "failed",
            Self::Cancelled => "cancelled",
        }
    }

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

/// Params of `tasks/list` (2025-11-25).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListTasksRequestParams {
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Where the page starts: a `nextCursor` of an earlier page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
}

impl_has_meta!(
    Task,
    CreateTaskResult,
    TaskRequestParams,
    ListTasksRequestParams,
    ListTasksResult
);

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
