//! The tasks methods: `tasks/get`, `tasks/update` and `tasks/cancel` of the 2026-07-28
//! extension; `tasks/get`, `tasks/result`, `tasks/list` and `tasks/cancel` of 2025-11-25.

use std::sync::Arc;

use presa_core::tasks_extension::{CreateTaskResult, UpdateTaskRequestParams};
use presa_core::{
    EmptyResult, ErrorObject, ListTasksRequestParams, ListTasksResult, META_RELATED_TASK, Meta,
    ProtocolVersion, RawJson, RequestId, RequestTasks, ResultType, TaskRequestParams, TaskStatus,
    TasksFlavor, parse_params,
};
use serde_json::Value;
use serde_json::value::RawValue;

use super::{LiveTask, TaskRecord, TaskSignal, now_ms, owner_of, require_tasks, wire};
use crate::context::Context;
use crate::server::Server;
use crate::wire::raw;

/// The error for a task the caller cannot see: unknown, expired, or someone else's.
fn not_found(id: &str) -> ErrorObject {
    ErrorObject::invalid_params(format!(
        "Failed to retrieve task: Task not found: {}",
        presa_core::clipped(id)
    ))
}

/// Removes a `tasks/result` request's stream from its task when the request ends, answered or
/// not.
struct ResultStream<'a> {
    task: &'a LiveTask,
    request: RequestId,
}

impl Drop for ResultStream<'_> {
    fn drop(&mut self) {
        self.task.remove_result_stream(&self.request);
    }
}

impl Server {
    /// The answer announcing a new task, in the shape of the request's revision.
    pub(crate) fn created_result(
        &self,
        record: &TaskRecord,
        version: ProtocolVersion,
    ) -> Result<RawJson, ErrorObject> {
        if version.tasks() == Some(TasksFlavor::Experimental) {
            return raw(&presa_core::CreateTaskResult {
                task: wire::legacy_task(record),
                meta: None,
            });
        }
        let mut result = CreateTaskResult::new(wire::task(record));
        self.stamp_server_info(&mut result.meta);
        raw(&result)
    }

    /// Serves a `tasks/*` request of a server that declares tasks.
    pub(crate) async fn task_method(
        &self,
        method: &str,
        params: Option<&RawValue>,
        cx: Context,
    ) -> Result<RawJson, ErrorObject> {
        // the extension is checked before anything else, a bogus task id included
        match require_tasks(&cx)? {
            RequestTasks::Extension => match method {
                "tasks/get" => self.get_task(params, &cx, TasksFlavor::Extension).await,
                "tasks/update" => self.update_task(params, &cx).await,
                "tasks/cancel" => self.cancel_task(params, &cx, TasksFlavor::Extension).await,
                _ => Err(ErrorObject::method_not_found(method)),
            },
            RequestTasks::Experimental => match method {
                "tasks/get" => self.get_task(params, &cx, TasksFlavor::Experimental).await,
                "tasks/result" => self.task_result(params, &cx).await,
                "tasks/list" => self.list_tasks(params, &cx).await,
                "tasks/cancel" => {
                    self.cancel_task(params, &cx, TasksFlavor::Experimental)
                        .await
                }
                _ => Err(ErrorObject::method_not_found(method)),
            },
            RequestTasks::Unavailable | RequestTasks::Undeclared => {
                Err(ErrorObject::method_not_found(method))
            }
        }
    }

    /// The task `id` as the caller of `cx` may see it, and its live part when its handler runs
    /// here.
    pub(crate) async fn find_task(
        &self,
        id: &str,
        cx: &Context,
    ) -> Result<(TaskRecord, Option<Arc<LiveTask>>), ErrorObject> {
        let tasks = &self.inner.tasks;
        let (record, live) = match tasks.live_task(id) {
            Some(live) => (live.record().await, Some(live)),
            None => {
                let stored = tasks
                    .options
                    .store
                    .get(id, now_ms())
                    .await
                    .map_err(|error| ErrorObject::internal_error(error.to_string()))?;
                (stored.ok_or_else(|| not_found(id))?, None)
            }
        };
        // a task is the caller's, and seen in the tasks it was made with: a 2025-11-25 task has
        // no `inputRequests` to show a 2026-07-28 caller, nor the other way round
        let flavor = record
            .protocol_version
            .parse::<ProtocolVersion>()
            .ok()
            .and_then(ProtocolVersion::tasks);
        if record.owner != owner_of(cx) || flavor != cx.protocol_version().tasks() {
            return Err(not_found(id));
        }
        Ok((record, live))
    }

    /// `tasks/get`, answered in the shape of the `flavor` of tasks the caller uses.
    async fn get_task(
        &self,
        params: Option<&RawValue>,
        cx: &Context,
        flavor: TasksFlavor,
    ) -> Result<RawJson, ErrorObject> {
        let legacy = flavor == TasksFlavor::Experimental;
        let params: TaskRequestParams = parse_params(params)?;
        let (record, _) = self.find_task(&params.task_id, cx).await?;
        if legacy {
            return raw(&wire::legacy_task(&record));
        }
        let mut task = wire::detailed(&record);
        task.result_type = Some(ResultType::Complete);
        self.stamp_server_info(&mut task.meta);
        raw(&task)
    }

    /// `tasks/update`: answers to the task's input requests, handed to its handler; answers for
    /// keys it does not wait on are ignored, as the extension says.
    async fn update_task(
        &self,
        params: Option<&RawValue>,
        cx: &Context,
    ) -> Result<RawJson, ErrorObject> {
        let params: UpdateTaskRequestParams = parse_params(params)?;
        let (record, live) = self.find_task(&params.task_id, cx).await?;
        match live {
            Some(live) => live.answer(params.input_responses).await?,
            // ended: nothing waits for an answer any more
            None if record.status.is_terminal() => {}
            // its handler runs on another instance: the signals take the answers there
            None if let Some(signals) = &self.inner.tasks.signals => {
                signals.signal(TaskSignal::Answers {
                    task: record.id.clone(),
                    responses: params.input_responses,
                });
            }
            // on another instance no bus reaches: the client keeps them and asks again
            None => {
                return Err(ErrorObject::internal_error(format!(
                    "Task {} runs on another server instance: its answers cannot be delivered here; send them again",
                    record.id
                )));
            }
        }
        self.ack()
    }

    /// `tasks/cancel`. 2026-07-28: cooperative, an empty acknowledgement (also for a task that
    /// ended). 2025-11-25: the task is `cancelled` before the answer, which is the task; a task
    /// that ended is an error.
    async fn cancel_task(
        &self,
        params: Option<&RawValue>,
        cx: &Context,
        flavor: TasksFlavor,
    ) -> Result<RawJson, ErrorObject> {
        let legacy = flavor == TasksFlavor::Experimental;
        let params: TaskRequestParams = parse_params(params)?;
        let (record, live) = self.find_task(&params.task_id, cx).await?;
        if legacy && record.status.is_terminal() {
            return Err(ErrorObject::invalid_params(format!(
                "Task {} already ended ({}); it cannot be cancelled",
                record.id,
                record.status.as_str()
            )));
        }
        let record = match live {
            Some(live) => {
                if legacy {
                    live.change(|record| record.status = TaskStatus::Cancelled)
                        .await;
                }
                live.cancel();
                live.record().await
            }
            None if !record.status.is_terminal() => {
                // its handler runs on another instance, or no longer: one sharing the bus is
                // told to stop it; at 2025-11-25 the stored state is cancelled at once (a runner
                // that missed the signal stops at its next write, which the store refuses)
                if let Some(signals) = &self.inner.tasks.signals {
                    signals.signal(TaskSignal::Cancel {
                        task: record.id.clone(),
                    });
                }
                if legacy {
                    self.cancel_stored(record, &params.task_id, cx).await?
                } else {
                    record
                }
            }
            None => record,
        };
        if legacy {
            return raw(&wire::legacy_task(&record));
        }
        self.ack()
    }

    /// Cancels `record` in the store; the record as it is afterwards (as another instance left
    /// it, when it ended or went meanwhile).
    async fn cancel_stored(
        &self,
        record: TaskRecord,
        task_id: &str,
        cx: &Context,
    ) -> Result<TaskRecord, ErrorObject> {
        let mut cancelled = record;
        cancelled.status = TaskStatus::Cancelled;
        cancelled.touch(now_ms());
        let store = &self.inner.tasks.options.store;
        let failed = |error: super::TaskStoreError| ErrorObject::internal_error(error.to_string());
        Ok(
            match store.update(cancelled.clone()).await.map_err(failed)? {
                true => cancelled,
                false => self.find_task(task_id, cx).await?.0,
            },
        )
    }

    /// `tasks/result` (2025-11-25): waits for the task to end, then answers exactly what the
    /// call would have, tagged with the task.
    async fn task_result(
        &self,
        params: Option<&RawValue>,
        cx: &Context,
    ) -> Result<RawJson, ErrorObject> {
        let params: TaskRequestParams = parse_params(params)?;
        let (mut record, live) = self.find_task(&params.task_id, cx).await?;
        if let Some(live) = &live {
            // the task's requests to the client ride this request's stream meanwhile
            live.add_result_stream(cx.request_id().clone(), cx.peer());
            let _stream = ResultStream {
                task: live,
                request: cx.request_id().clone(),
            };
            loop {
                let changed = live.changed.notified();
                tokio::pin!(changed);
                changed.as_mut().enable();
                record = live.record().await;
                if record.status.is_terminal() {
                    break;
                }
                changed.await;
            }
        }
        while !record.status.is_terminal() {
            // its handler runs elsewhere: the store tells when it ends
            let interval = record.poll_interval_ms.unwrap_or(1000);
            tokio::time::sleep(std::time::Duration::from_millis(interval)).await;
            record = self.find_task(&params.task_id, cx).await?.0;
        }
        let related = serde_json::json!({ "taskId": record.id });
        match (record.result, record.error) {
            (Some(result), _) => {
                let mut result: serde_json::Map<String, Value> = serde_json::from_str(result.get())
                    .map_err(|e| ErrorObject::internal_error(e.to_string()))?;
                let meta = result
                    .entry("_meta")
                    .or_insert_with(|| Value::Object(Meta::new()));
                if let Value::Object(meta) = meta {
                    meta.insert(META_RELATED_TASK.into(), related);
                }
                raw(&result)
            }
            (None, Some(error)) => Err(error),
            (None, None) => Err(ErrorObject::internal_error(format!(
                "Task {} was cancelled before it produced a result",
                record.id
            ))),
        }
    }

    /// `tasks/list` (2025-11-25): the caller's tasks, a page at a time; the cursor is the last
    /// task id of the page before.
    async fn list_tasks(
        &self,
        params: Option<&RawValue>,
        cx: &Context,
    ) -> Result<RawJson, ErrorObject> {
        let params: ListTasksRequestParams = parse_params(params)?;
        let owner = owner_of(cx);
        let store = &self.inner.tasks.options.store;
        let now = now_ms();
        let failed = |error: super::TaskStoreError| ErrorObject::internal_error(error.to_string());
        if let Some(cursor) = &params.cursor {
            let known = store.get(cursor, now).await.map_err(failed)?;
            if known.is_none_or(|task| task.owner != owner) {
                return Err(ErrorObject::invalid_params(format!(
                    "Invalid cursor: {}",
                    presa_core::clipped(cursor)
                )));
            }
        }
        let page_size = self.inner.options.page_size;
        let mut page = store
            .list(&owner, params.cursor.as_deref(), page_size + 1, now)
            .await
            .map_err(failed)?;
        let more = page.len() > page_size;
        page.truncate(page_size);
        let next_cursor = more
            .then(|| page.last().map(|task| task.id.clone()))
            .flatten();
        let mut tasks = Vec::with_capacity(page.len());
        for record in page {
            // a task running here is shown as it is now
            let record = match self.inner.tasks.live_task(&record.id) {
                Some(live) => live.record().await,
                None => record,
            };
            tasks.push(wire::legacy_task(&record));
        }
        raw(&ListTasksResult {
            tasks,
            next_cursor,
            meta: None,
        })
    }

    /// The empty acknowledgement of `tasks/update` and `tasks/cancel` (2026-07-28).
    fn ack(&self) -> Result<RawJson, ErrorObject> {
        let mut ack = EmptyResult {
            result_type: Some(ResultType::Complete),
            ..Default::default()
        };
        self.stamp_server_info(&mut ack.meta);
        raw(&ack)
    }

    /// A `notifications/tasks` for task `id` as the caller of `cx` may see it, tagged for the
    /// listen `listen`; `None` when it is gone.
    pub(crate) async fn task_notification(
        &self,
        id: &str,
        cx: &Context,
        listen: &RequestId,
    ) -> Option<presa_core::Notification> {
        let (record, _) = self.find_task(id, cx).await.ok()?;
        let mut task = wire::detailed(&record);
        task.meta = Some(presa_core::subscription_meta(listen));
        presa_core::Notification::new(presa_core::tasks_extension::TASK_NOTIFICATION, &task).ok()
    }
}
