//! The `patterns` server: tools that ask the client for input (elicitation, sampling, roots,
//! several rounds), a tool reporting progress and logging, and tools that change the server
//! while it serves (a resource updated, a tool added), for subscriptions to report.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use presa::core::{CreateMessageRequestParams, SamplingMessage};
use presa::prelude::*;
use presa::server::{BooleanSchema, StringSchema};
use serde::Deserialize;
use serde_json::{Value, json};

/// The resource `set_status` changes.
pub(crate) const STATUS: &str = "file:///status.txt";

/// What the tools share: the status `set_status` changes, and how often `onboard` ran.
#[derive(Default)]
struct Shared {
    status: Mutex<String>,
    runs: AtomicUsize,
}

/// A path to delete.
#[derive(Deserialize, JsonSchema)]
struct Delete {
    path: String,
}

/// A text.
#[derive(Deserialize, JsonSchema)]
struct Text {
    text: String,
}

/// How far to count.
#[derive(Deserialize, JsonSchema)]
struct Count {
    #[serde(default = "three")]
    to: u64,
}

fn three() -> u64 {
    3
}

/// The name of a tool to add.
#[derive(Deserialize, JsonSchema)]
struct NewTool {
    name: String,
}

fn text_of(sampled: &presa::core::CreateMessageResult) -> String {
    sampled
        .content
        .as_slice()
        .iter()
        .filter_map(|c| c.as_text())
        .collect()
}

/// Asks the user to confirm (a form with one boolean), then deletes — or not.
async fn confirm_delete(
    Args(Delete { path }): Args<Delete>,
    cx: Context,
) -> Result<String, InputError> {
    let form = ElicitationSchema::new().property(
        "sure",
        BooleanSchema {
            title: Some("Yes, delete it".into()),
            ..BooleanSchema::default()
        },
        true,
    );
    let answer = cx
        .elicit_keyed(
            "confirm",
            ElicitRequestFormParams::new(format!("Delete {path}?"), form).into(),
        )
        .await?;
    let sure = answer
        .content
        .as_ref()
        .and_then(|c| c.get("sure"))
        .and_then(Value::as_bool);
    Ok(match (answer.action, sure) {
        (ElicitAction::Accept, Some(true)) => format!("deleted {path}"),
        _ => format!("kept {path}"),
    })
}

/// Asks the client's model for a summary.
async fn summarize(Args(Text { text }): Args<Text>, cx: Context) -> Result<String, InputError> {
    let ask = CreateMessageRequestParams::new(
        vec![SamplingMessage::user_text(format!("Summarize: {text}"))],
        100,
    );
    let sampled = cx.sample_keyed("summary", ask).await?;
    Ok(format!("{} says: {}", sampled.model, text_of(&sampled)))
}

/// Lists the client's roots.
async fn workspace((): (), cx: Context) -> Result<String, InputError> {
    let roots = cx.roots_keyed("roots").await?;
    let names: Vec<String> = roots
        .roots
        .iter()
        .map(|r| r.name.clone().unwrap_or_else(|| r.uri.clone()))
        .collect();
    Ok(names.join(", "))
}

/// Three questions in a row. On 2026-07-28 each is a round: the handler runs again from the
/// start on every retry, so `runs` counts four runs for one call (one in the initialize era).
async fn onboard((): (), cx: Context) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
    // code before the first question runs once per round: keep it idempotent
    let run = cx.state::<Shared>()?.runs.fetch_add(1, Ordering::SeqCst) + 1;
    let form = ElicitationSchema::new().property("name", StringSchema::titled("Name"), true);
    let answer = cx
        .elicit_keyed(
            "name",
            ElicitRequestFormParams::new("What is your name?", form).into(),
        )
        .await?;
    let name = answer
        .content
        .as_ref()
        .and_then(|c| c.get("name"))
        .and_then(Value::as_str)
        .unwrap_or("stranger")
        .to_owned();
    let welcome = CreateMessageRequestParams::new(
        vec![SamplingMessage::user_text(format!("Welcome {name}"))],
        50,
    );
    let welcome = text_of(&cx.sample_keyed("welcome", welcome).await?);
    let roots = cx.roots_keyed("roots").await?.roots.len();
    Ok(json!({"name": name, "welcome": welcome, "roots": roots, "runs": run}))
}

/// Counts to `to`, reporting progress and logging each step.
async fn count(Args(Count { to }): Args<Count>, cx: Context) -> String {
    for step in 1..=to {
        cx.progress(step as f64, Some(to as f64), Some(&format!("step {step}")))
            .await;
        cx.log(LoggingLevel::Info, json!({ "step": step })).await;
    }
    format!("counted to {to}")
}

/// Sets the status, and tells the resource's subscribers.
fn set_status(Args(Text { text }): Args<Text>, cx: Context) -> Result<&'static str, ToolError> {
    if let Ok(mut status) = cx.state::<Shared>()?.status.lock() {
        *status = text;
    }
    if let Some(server) = cx.server() {
        server.resource_updated(STATUS);
    }
    Ok("status set")
}

/// Adds a tool named `name` to the running server.
fn add_tool(Args(NewTool { name }): Args<NewTool>, cx: Context) -> Result<String, ToolError> {
    let server = cx
        .server()
        .ok_or_else(|| ToolError::new("the server is not running"))?;
    server
        .add_typed_tool(name.as_str(), |(), _cx: Context| async { "hello" })
        .map_err(|e| ToolError::new(e.to_string()))?;
    Ok(format!("added {name}"))
}

/// Builds the patterns server.
pub(crate) fn patterns() -> Result<Server, BuildError> {
    Server::builder("patterns", "1.0.0")
        .logging(true)
        .list_changed(true)
        .subscribe(true)
        .state(Shared {
            status: Mutex::new("idle".into()),
            ..Shared::default()
        })
        .typed_tool(
            Tool::named("confirm_delete").description("Delete a file, once the user confirms (elicitation)."),
            confirm_delete,
        )
        .typed_tool(
            Tool::named("summarize").description("Summarize a text with the client's model (sampling)."),
            summarize,
        )
        .typed_tool(
            Tool::named("workspace").description("Name the client's roots."),
            workspace,
        )
        .typed_tool(
            Tool::named("onboard").description("Ask for a name, then greet with the client's model and count its roots: three rounds."),
            onboard,
        )
        .typed_tool(
            Tool::named("count").description("Count to `to`, reporting progress and logging each step."),
            count,
        )
        .resource(
            Resource::new(STATUS, "status").mime_type("text/plain"),
            |cx: Context| async move {
                let shared = cx.state::<Shared>()?;
                let status = shared.status.lock().map(|s| s.clone()).unwrap_or_default();
                Ok::<_, MissingState>(status)
            },
        )
        .typed_tool_sync(
            Tool::named("set_status").description("Set the status resource, telling its subscribers."),
            set_status,
        )
        .typed_tool_sync(
            Tool::named("add_tool").description("Add a tool named `name` to the running server."),
            add_tool,
        )
        .build()
}
