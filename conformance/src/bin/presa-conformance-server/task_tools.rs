//! The tools of the runner's `tasks-*` scenarios (the 2026-07-28 tasks extension). Each is an
//! ordinary async handler; what it declares with `task_support` decides whether presa runs it
//! as a task for a client that declared the extension.

use std::time::Duration;

use presa_core::{ElicitRequestParams, ErrorCode, TaskSupport, Tool};
use presa_server::{Context, InputError, ProtocolError, ServerBuilder, ToolError};
use serde_json::{Value, json};

use crate::tools::object;

/// A form asking to confirm, with an optional name.
fn confirmation(message: &str) -> Result<ElicitRequestParams, InputError> {
    serde_json::from_value(json!({
        "mode": "form",
        "message": message,
        "requestedSchema": {
            "type": "object",
            "properties": {"confirm": {"type": "boolean"}, "name": {"type": "string"}}
        }
    }))
    .map_err(|e| InputError::InvalidAnswer(e.to_string()))
}

/// Whether an answer accepted with `confirm: true`.
fn confirmed(answer: &presa_core::ElicitResult) -> bool {
    answer.action == presa_core::ElicitAction::Accept
        && answer
            .content
            .as_ref()
            .and_then(|c| c.get("confirm"))
            .and_then(Value::as_bool)
            == Some(true)
}

/// Adds the task tools.
pub(crate) fn register(builder: ServerBuilder) -> ServerBuilder {
    let greet = Tool::new(
        "greet",
        object(json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]})),
    )
    .description("Greets someone by name (never a task).");
    let slow = Tool::new(
        "slow_compute",
        object(json!({
            "type": "object",
            "properties": {"seconds": {"type": "number"}, "label": {"type": "string"}},
            "required": ["seconds"]
        })),
    )
    .description("Sleeps for `seconds`, then answers with its label (a task when allowed).")
    .task_support(TaskSupport::Optional);
    let failing = Tool::without_params("failing_job")
        .description("Fails as a tool after a second (only as a task).")
        .task_support(TaskSupport::Required);
    let protocol_error = Tool::without_params("protocol_error_job")
        .description("Fails with a JSON-RPC error (a task when allowed).")
        .task_support(TaskSupport::Optional);
    let confirm = Tool::new(
        "confirm_delete",
        object(json!({"type": "object", "properties": {"filename": {"type": "string"}}, "required": ["filename"]})),
    )
    .description("Asks to confirm deleting a file, then reports (a task when allowed).")
    .task_support(TaskSupport::Optional);
    let multi = Tool::without_params("multi_input")
        .description("Asks two questions at once (a task when allowed).")
        .task_support(TaskSupport::Optional);
    let composed = Tool::without_params("test_tool_with_task")
        .description("Asks for a name first, then greets it as a task (only as a task).")
        .task_support(TaskSupport::Required);
    builder
        .tool(greet, |args: Value, _cx: Context| async move {
            format!("Hello, {}!", args["name"].as_str().unwrap_or("you"))
        })
        .tool(slow, |args: Value, cx: Context| async move {
            let seconds = args["seconds"].as_f64().unwrap_or(0.0).clamp(0.0, 3600.0);
            let label = args["label"].as_str().unwrap_or("").to_owned();
            if seconds > 0.0 {
                cx.progress(0.0, Some(seconds), Some("computing")).await;
                tokio::time::sleep(Duration::from_secs_f64(seconds)).await;
            }
            format!("Computed {label} in {seconds} s")
        })
        .tool(failing, |_: Value, _cx: Context| async move {
            tokio::time::sleep(Duration::from_secs(1)).await;
            Err::<String, _>(ToolError::new("the job failed"))
        })
        .tool(protocol_error, |_: Value, _cx: Context| async move {
            tokio::time::sleep(Duration::from_millis(100)).await;
            Err::<String, _>(ProtocolError::new(
                ErrorCode::INTERNAL_ERROR,
                "the job hit an internal error",
            ))
        })
        .tool(confirm, |args: Value, cx: Context| async move {
            let file = args["filename"].as_str().unwrap_or("the file").to_owned();
            // the confirmation waits in the task (not in an input round first)
            cx.run_as_task().await;
            let answer = cx
                .elicit(confirmation(&format!("Delete {file}?"))?)
                .await?;
            Ok::<_, InputError>(match confirmed(&answer) {
                true => format!("Deleted {file}"),
                false => format!("Kept {file}"),
            })
        })
        .tool(multi, |_: Value, cx: Context| async move {
            cx.run_as_task().await;
            let (first, second) = tokio::join!(
                cx.elicit_keyed("first", confirmation("First question")?),
                cx.elicit_keyed("second", confirmation("Second question")?),
            );
            let (first, second) = (first?, second?);
            Ok::<_, InputError>(format!(
                "first confirmed: {}, second confirmed: {}",
                confirmed(&first),
                confirmed(&second)
            ))
        })
        .tool(composed, |_: Value, cx: Context| async move {
            let form: ElicitRequestParams = serde_json::from_value(json!({
                "mode": "form",
                "message": "What is your name?",
                "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
            }))
            .map_err(|e| InputError::InvalidAnswer(e.to_string()))?;
            let answer = cx.elicit_keyed("user_name", form).await?;
            let name = answer
                .content
                .as_ref()
                .and_then(|c| c.get("name"))
                .and_then(Value::as_str)
                .unwrap_or("stranger")
                .to_owned();
            // the long part: the call becomes a task here
            tokio::time::sleep(Duration::from_millis(200)).await;
            Ok::<_, InputError>(format!("Hello, {name}! Your task is done."))
        })
}
