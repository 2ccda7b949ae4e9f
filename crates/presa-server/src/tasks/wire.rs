//! A stored task in the shapes of each era: the flat tasks of the 2026-07-28 extension and the
//! `Task` of 2025-11-25.

use presa_core::tasks_extension::{self, DetailedTask};
use presa_core::{JsonObject, TaskStatus, format_timestamp};

use super::TaskRecord;

/// The 2026-07-28 task fields.
pub(crate) fn task(record: &TaskRecord) -> tasks_extension::Task {
    tasks_extension::Task {
        task_id: record.id.clone(),
        status: record.status,
        status_message: record.status_message.clone(),
        created_at: format_timestamp(record.created_at_ms),
        last_updated_at: format_timestamp(record.updated_at_ms),
        ttl_ms: record.ttl_ms,
        poll_interval_ms: record.poll_interval_ms,
    }
}

/// The 2026-07-28 task with what its status brings: pending input requests, the result or the
/// error. `resultType` is the caller's (a `tasks/get` result has one, a notification none).
pub(crate) fn detailed(record: &TaskRecord) -> DetailedTask {
    let result = record
        .result
        .as_ref()
        .and_then(|raw| serde_json::from_str::<JsonObject>(raw.get()).ok());
    DetailedTask {
        result_type: None,
        task: task(record),
        input_requests: (!record.input_requests.is_empty()).then(|| record.input_requests.clone()),
        result,
        error: record.error.clone(),
        meta: None,
    }
}

/// The status 2025-11-25 shows: a tool's error (`isError`) is a failed task there.
pub(crate) fn legacy_status(record: &TaskRecord) -> TaskStatus {
    match record.status {
        TaskStatus::Completed if record.is_error => TaskStatus::Failed,
        status => status,
    }
}

/// The 2025-11-25 `Task`.
pub(crate) fn legacy_task(record: &TaskRecord) -> presa_core::Task {
    presa_core::Task {
        task_id: record.id.clone(),
        status: legacy_status(record),
        status_message: record.status_message.clone(),
        created_at: format_timestamp(record.created_at_ms),
        last_updated_at: format_timestamp(record.updated_at_ms),
        ttl: record.ttl_ms,
        poll_interval: record.poll_interval_ms,
        meta: None,
    }
}
