//! Tool calls the server runs as tasks: the handle a caller polls, awaits or cancels, in both
//! eras (the 2026-07-28 tasks extension, the experimental tasks of 2025-11-25).

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use presa_core::tasks_extension::{CreateTaskResult, DetailedTask, RESULT_TYPE_TASK};
use presa_core::{
    CallToolResult, ErrorCode, InputRequests, InputRequiredResult, JsonObject, RequestTasks,
    TASKS_EXTENSION, TaskStatus, TaskSupport, TasksFlavor,
};
use serde::Serialize;
use serde_json::{Map, Value};

use crate::mrtr::{Answered, call_or_task, fulfil, unexpected_result_type};
use crate::{CallOptions, Client, ClientError};

/// How often a task is polled when the server suggests nothing.
const DEFAULT_POLL: Duration = Duration::from_secs(1);

/// The shortest polling interval, whatever the server suggests: `pollIntervalMs: 0` would
/// otherwise make a busy loop of `tasks/get` requests.
const MIN_POLL: Duration = Duration::from_millis(10);

/// The longest polling interval, whatever the server suggests: a huge `pollIntervalMs` would
/// otherwise mean never polling again.
const MAX_POLL: Duration = Duration::from_secs(60);

/// The polling interval the server suggests (`pollIntervalMs`), held between [`MIN_POLL`] and
/// [`MAX_POLL`]; `None` when it suggests none.
fn poll_interval(suggested_ms: Option<u64>) -> Option<Duration> {
    suggested_ms.map(|ms| Duration::from_millis(ms).clamp(MIN_POLL, MAX_POLL))
}

/// How a tool call was answered: at once, or with a task to follow.
#[derive(Debug)]
pub enum ToolCall {
    /// The tool's result.
    Complete(CallToolResult),
    /// The server runs the call as a task.
    Task(TaskHandle),
}

/// A task's state as the server reported it last.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct TaskState {
    /// The status.
    pub status: TaskStatus,
    /// The server's status detail (e.g. the handler's progress message).
    pub status_message: Option<String>,
    /// The polling interval the server suggests, held between 10 ms and 60 s.
    pub poll_interval: Option<Duration>,
}

/// A tool call running as a task on the server: poll it ([`status`](Self::status)), wait for
/// its result ([`wait`](Self::wait)) or [`cancel`](Self::cancel) it. Its id can be saved and
/// the task taken up again later, from another client of the same caller
/// ([`Client::resume_task`]).
///
/// The task's questions (2026-07-28: its `inputRequests`) are answered with the client's input
/// handlers while polling, each once, however many clones of the handle poll at the same time.
#[derive(Clone, Debug)]
pub struct TaskHandle {
    client: Client,
    id: String,
    /// Input request keys being answered or answered (never asked twice), shared by clones.
    claimed: Arc<Mutex<HashSet<String>>>,
}

/// Input request keys claimed for one answer: given back when dropped unkept (the answer failed
/// or was abandoned), so that a later poll asks again.
struct Claim<'a> {
    claimed: &'a Mutex<HashSet<String>>,
    keys: Vec<String>,
    kept: bool,
}

impl Claim<'_> {
    /// The keys were answered: they stay claimed.
    fn keep(mut self) {
        self.kept = true;
    }
}

impl Drop for Claim<'_> {
    fn drop(&mut self) {
        if self.kept {
            return;
        }
        let mut claimed = self.claimed.lock().unwrap_or_else(|p| p.into_inner());
        for key in &self.keys {
            claimed.remove(key);
        }
    }
}

impl TaskHandle {
    fn new(client: &Client, id: String) -> Self {
        Self {
            client: client.clone(),
            id,
            claimed: Arc::default(),
        }
    }

    /// The task id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The tasks this client uses with its server.
    fn flavor(&self) -> TasksFlavor {
        match self.client.request_tasks() {
            RequestTasks::Experimental => TasksFlavor::Experimental,
            _ => TasksFlavor::Extension,
        }
    }

    fn id_params(&self) -> Map<String, Value> {
        let mut params = Map::new();
        params.insert("taskId".into(), Value::String(self.id.clone()));
        params
    }

    /// `tasks/get` (and, on 2026-07-28, answers to the questions it shows).
    async fn poll(&self) -> Result<DetailedTask, ClientError> {
        let raw = self
            .client
            .handle()
            .send("tasks/get", Some(self.id_params()), &CallOptions::default())
            .await?;
        let task = read_task(raw.get(), self.flavor())?;
        if let Some(requests) = task.input_requests.as_ref() {
            self.answer(requests).await?;
        }
        Ok(task)
    }

    /// Answers the questions no clone answers or answered yet with the client's input
    /// handlers, with one `tasks/update`. Their keys are claimed first, and given back when
    /// answering fails.
    async fn answer(&self, requests: &InputRequests) -> Result<(), ClientError> {
        let mut new = InputRequests::new();
        {
            let mut claimed = self.claimed.lock().unwrap_or_else(|p| p.into_inner());
            for (key, request) in requests {
                if claimed.insert(key.clone()) {
                    new.insert(key.clone(), request.clone());
                }
            }
        }
        if new.is_empty() {
            return Ok(());
        }
        let claim = Claim {
            claimed: &self.claimed,
            keys: new.keys().cloned().collect(),
            kept: false,
        };
        let asked = InputRequiredResult {
            input_requests: Some(new),
            ..InputRequiredResult::new()
        };
        let responses = fulfil(&self.client, &asked).await?;
        let mut params = self.id_params();
        let value = serde_json::to_value(&responses)
            .map_err(|e| ClientError::InvalidParams(e.to_string()))?;
        params.insert("inputResponses".into(), value);
        self.client
            .handle()
            .send("tasks/update", Some(params), &CallOptions::default())
            .await?;
        claim.keep();
        Ok(())
    }

    /// The task's state now (`tasks/get`); on 2026-07-28 its new questions are answered on the
    /// way.
    pub async fn status(&self) -> Result<TaskState, ClientError> {
        let task = self.poll().await?;
        Ok(TaskState {
            status: task.task.status,
            status_message: task.task.status_message,
            poll_interval: poll_interval(task.task.poll_interval_ms),
        })
    }

    /// Waits for the task's end and returns the tool's result: polling at the interval the
    /// server suggests, held between 10 ms and 60 s (1 s when it suggests none; 2026-07-28),
    /// or with `tasks/result` (2025-11-25). A task that failed is the server's error; one that
    /// was cancelled is [`ClientError::TaskCancelled`].
    pub async fn wait(&self) -> Result<CallToolResult, ClientError> {
        if self.flavor() == TasksFlavor::Experimental {
            return self.wait_legacy().await;
        }
        loop {
            let task = self.poll().await?;
            match task.task.status {
                TaskStatus::Completed => {
                    let result = task.result.ok_or_else(|| {
                        ClientError::InvalidResult("a completed task without a result".into())
                    })?;
                    return serde_json::from_value(Value::Object(result))
                        .map_err(|e| ClientError::InvalidResult(e.to_string()));
                }
                TaskStatus::Failed => {
                    return Err(match task.error {
                        Some(error) => ClientError::Server(error),
                        None => ClientError::InvalidResult("a failed task without an error".into()),
                    });
                }
                TaskStatus::Cancelled => {
                    return Err(ClientError::TaskCancelled {
                        task: self.id.clone(),
                    });
                }
                TaskStatus::Working | TaskStatus::InputRequired => {}
            }
            let interval = poll_interval(task.task.poll_interval_ms).unwrap_or(DEFAULT_POLL);
            tokio::time::sleep(interval).await;
        }
    }

    /// `tasks/result`, again after a timeout (the task may run longer than one request may).
    async fn wait_legacy(&self) -> Result<CallToolResult, ClientError> {
        loop {
            let sent = self
                .client
                .handle()
                .send(
                    "tasks/result",
                    Some(self.id_params()),
                    &CallOptions::default(),
                )
                .await;
            match sent {
                Ok(raw) => {
                    return serde_json::from_str(raw.get())
                        .map_err(|e| ClientError::InvalidResult(e.to_string()));
                }
                Err(ClientError::TimedOut) => continue,
                Err(error) => {
                    // the server ends a cancelled task's tasks/result with an error: say so
                    if let Ok(task) = self.poll().await
                        && task.task.status == TaskStatus::Cancelled
                    {
                        return Err(ClientError::TaskCancelled {
                            task: self.id.clone(),
                        });
                    }
                    return Err(error);
                }
            }
        }
    }

    /// Asks the server to cancel the task (`tasks/cancel`). On 2026-07-28 cancellation is
    /// cooperative: the task may still end otherwise, which [`wait`](Self::wait) reports.
    pub async fn cancel(&self) -> Result<(), ClientError> {
        self.client
            .handle()
            .send(
                "tasks/cancel",
                Some(self.id_params()),
                &CallOptions::default(),
            )
            .await
            .map(drop)
    }
}

/// A `tasks/get` result in either `flavor` of tasks, as the extension's shape.
fn read_task(json: &str, flavor: TasksFlavor) -> Result<DetailedTask, ClientError> {
    let invalid = |e: serde_json::Error| ClientError::InvalidResult(e.to_string());
    if flavor == TasksFlavor::Extension {
        return serde_json::from_str(json).map_err(invalid);
    }
    let task: presa_core::Task = serde_json::from_str(json).map_err(invalid)?;
    Ok(DetailedTask {
        result_type: None,
        task: presa_core::tasks_extension::Task {
            task_id: task.task_id,
            status: task.status,
            status_message: task.status_message,
            created_at: task.created_at,
            last_updated_at: task.last_updated_at,
            ttl_ms: task.ttl,
            poll_interval_ms: task.poll_interval,
        },
        input_requests: None,
        result: None,
        error: None,
        meta: None,
    })
}

impl Client {
    /// `tools/call`, handing back the task when the server runs the call as one (which it
    /// does only when the client allows tasks: [`ClientOptions::tasks`]).
    ///
    /// [`ClientOptions::tasks`]: crate::ClientOptions::tasks
    ///
    /// ```no_run
    /// # async fn demo(client: presa_client::Client) -> Result<(), presa_client::ClientError> {
    /// use presa_client::ToolCall;
    ///
    /// match client.start_tool("export", serde_json::json!({"year": 2026})).await? {
    ///     ToolCall::Complete(result) => println!("done at once: {result:?}"),
    ///     ToolCall::Task(task) => {
    ///         println!("task {} (save it to come back later)", task.id());
    ///         let state = task.status().await?;
    ///         println!("{:?}: {:?}", state.status, state.status_message);
    ///         println!("{:?}", task.wait().await?);
    ///     }
    /// }
    /// # Ok(()) }
    /// ```
    pub async fn start_tool(
        &self,
        name: impl Into<String>,
        arguments: impl Serialize,
    ) -> Result<ToolCall, ClientError> {
        let params = crate::params::tool_params(name.into(), &arguments)?;
        self.start_tool_with(params, &CallOptions::default()).await
    }

    /// `tools/call` with `params` (`name`, `arguments`): the result, or the task.
    pub(crate) async fn start_tool_with(
        &self,
        params: Map<String, Value>,
        options: &CallOptions,
    ) -> Result<ToolCall, ClientError> {
        let name = params
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        if self.request_tasks() == RequestTasks::Experimental {
            return self.start_legacy(name, params, options).await;
        }
        let answered = call_or_task::<CallToolResult>(self, "tools/call", params, options).await;
        match answered {
            Ok(Answered::Complete(done)) => Ok(ToolCall::Complete(done.result)),
            Ok(Answered::Other(object)) => self.created_task(object).map(ToolCall::Task),
            Err(error) if needs_tasks(&error) => Err(ClientError::TaskRequired { tool: name }),
            Err(error) => Err(error),
        }
    }

    /// The task a 2026-07-28 `tools/call` answered with (`resultType: "task"`). Refused, naming
    /// what came back: another `resultType`, or a task this client did not allow (no
    /// [`ClientOptions::tasks`](crate::ClientOptions::tasks), or a revision without the tasks
    /// extension).
    fn created_task(&self, result: JsonObject) -> Result<TaskHandle, ClientError> {
        if result.get("resultType").and_then(Value::as_str) != Some(RESULT_TYPE_TASK) {
            return Err(unexpected_result_type(&result));
        }
        // the core rule the server follows too: a task only for a request declaring the extension
        let refused = match self.request_tasks() {
            RequestTasks::Extension => None,
            RequestTasks::Undeclared => {
                Some("this client does not allow tasks (ClientOptions::tasks)".to_owned())
            }
            _ => Some(format!(
                "{} has no tasks extension",
                self.protocol_version()
            )),
        };
        if let Some(why) = refused {
            let task = result.get("taskId").cloned().unwrap_or(Value::Null);
            return Err(ClientError::InvalidResult(format!(
                "the server answered with task {}, but {why}",
                presa_core::clipped(&task.to_string())
            )));
        }
        let created: CreateTaskResult = serde_json::from_value(Value::Object(result))
            .map_err(|e| ClientError::InvalidResult(e.to_string()))?;
        Ok(TaskHandle::new(self, created.task.task_id))
    }

    /// Tool `name`'s task support as last listed (2025-11-25), listing the tools first (with
    /// the call's `options`) when they were not listed in full or changed since: a tool the
    /// server does not list has none.
    async fn task_support(
        &self,
        name: &str,
        options: &CallOptions,
    ) -> Result<TaskSupport, ClientError> {
        loop {
            if let Some(support) = self.tool_listing().task_support(name) {
                return Ok(support);
            }
            // read from the tools listed, kept or not: a list change meanwhile discards the
            // listing, not this call's answer
            if let Some(tools) = self.list_tools_again(options).await? {
                return Ok(crate::output::task_support_in(&tools, name));
            }
            // another caller listed them meanwhile: read its listing (again if it changed)
        }
    }

    /// 2025-11-25: a task-augmented call when the client allows tasks and the server lists the
    /// tool as task-capable (as last listed: [`task_support`](Self::task_support)); an
    /// ordinary call otherwise.
    async fn start_legacy(
        &self,
        name: String,
        mut params: Map<String, Value>,
        options: &CallOptions,
    ) -> Result<ToolCall, ClientError> {
        let offered = self
            .info()
            .capabilities
            .tasks
            .as_ref()
            .and_then(|t| t.requests.as_ref())
            .and_then(|r| r.tools.as_ref())
            .is_some_and(|tools| tools.contains_key("call"));
        let support = if offered {
            self.task_support(&name, options).await?
        } else {
            TaskSupport::Forbidden
        };
        let as_task = self.allows_tasks() && support != TaskSupport::Forbidden;
        if support == TaskSupport::Required && !as_task {
            return Err(ClientError::TaskRequired { tool: name });
        }
        if as_task {
            params.insert("task".into(), Value::Object(JsonObject::new()));
        }
        let raw = self
            .handle()
            .send("tools/call", Some(params), options)
            .await?;
        if as_task {
            let created: presa_core::CreateTaskResult = serde_json::from_str(raw.get())
                .map_err(|e| ClientError::InvalidResult(e.to_string()))?;
            return Ok(ToolCall::Task(TaskHandle::new(self, created.task.task_id)));
        }
        let result = serde_json::from_str(raw.get())
            .map_err(|e| ClientError::InvalidResult(e.to_string()))?;
        Ok(ToolCall::Complete(result))
    }

    /// Takes up a task by its id (saved from an earlier [`TaskHandle::id`], maybe by another
    /// process): the server shows it only to the caller who created it.
    pub fn resume_task(&self, task_id: impl Into<String>) -> TaskHandle {
        TaskHandle::new(self, task_id.into())
    }
}

/// Whether the server refused a call for want of the tasks extension (`-32021` naming it).
fn needs_tasks(error: &ClientError) -> bool {
    error.code() == Some(ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY)
        && error
            .data()
            .and_then(|data| data.get("requiredCapabilities"))
            .and_then(|required| required.get("extensions"))
            .and_then(|extensions| extensions.get(TASKS_EXTENSION))
            .is_some()
}
