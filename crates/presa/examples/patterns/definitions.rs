//! The `patterns` server: tools that ask the client for input (elicitation, sampling, roots,
//! several rounds), a tool reporting progress and logging, and tools that change the server
//! while it serves (a resource updated, a tool added), for subscriptions to report.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use presa::core::{
    BooleanSchema, CreateMessageRequestParams, ElicitAction, ElicitRequestFormParams,
    ElicitationSchema, LoggingLevel, Resource, SamplingMessage, StringSchema, Tool,
};
use presa::server::{BuildError, Context, InputError, Server};
use serde_json::{Value, json};

/// The resource `set_status` changes.
pub(crate) const STATUS: &str = "file:///status.txt";

fn schema(properties: Value) -> serde_json::Map<String, Value> {
    let keys: Vec<&String> = properties
        .as_object()
        .into_iter()
        .flatten()
        .map(|(k, _)| k)
        .collect();
    let schema = json!({"type": "object", "properties": properties, "required": keys});
    schema.as_object().cloned().unwrap_or_default()
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
async fn confirm_delete(args: Value, cx: Context) -> Result<String, InputError> {
    let path = args["path"].as_str().unwrap_or_default();
    let form = ElicitationSchema::new().property(
        "sure",
        BooleanSchema {
            title: Some("Yes, delete it".into()),
            ..BooleanSchema::default()
        },
        true,
    );
    let answer = cx
        .elicit_as(
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
async fn summarize(args: Value, cx: Context) -> Result<String, InputError> {
    let text = args["text"].as_str().unwrap_or_default();
    let ask = CreateMessageRequestParams::new(
        vec![SamplingMessage::user_text(format!("Summarize: {text}"))],
        100,
    );
    let sampled = cx.sample_as("summary", ask).await?;
    Ok(format!("{} says: {}", sampled.model, text_of(&sampled)))
}

/// Lists the client's roots.
async fn workspace(_: Value, cx: Context) -> Result<String, InputError> {
    let roots = cx.roots_as("roots").await?;
    let names: Vec<String> = roots
        .roots
        .iter()
        .map(|r| r.name.clone().unwrap_or_else(|| r.uri.clone()))
        .collect();
    Ok(names.join(", "))
}

/// Three questions in a row. On 2026-07-28 each is a round: the handler runs again from the
/// start on every retry, so `runs` counts four runs for one call (one in the initialize era).
async fn onboard(runs: Arc<AtomicUsize>, cx: Context) -> Result<Value, InputError> {
    // code before the first question runs once per round: keep it idempotent
    let run = runs.fetch_add(1, Ordering::SeqCst) + 1;
    let form = ElicitationSchema::new().property("name", StringSchema::titled("Name"), true);
    let answer = cx
        .elicit_as(
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
    let welcome = text_of(&cx.sample_as("welcome", welcome).await?);
    let roots = cx.roots_as("roots").await?.roots.len();
    Ok(json!({"name": name, "welcome": welcome, "roots": roots, "runs": run}))
}

/// Counts to `to`, reporting progress and logging each step.
async fn count(args: Value, cx: Context) -> String {
    let to = args["to"].as_u64().unwrap_or(3);
    for step in 1..=to {
        cx.progress(step as f64, Some(to as f64), Some(&format!("step {step}")))
            .await;
        cx.log(LoggingLevel::Info, json!({ "step": step })).await;
    }
    format!("counted to {to}")
}

/// Builds the patterns server.
pub(crate) fn patterns() -> Result<Server, BuildError> {
    let status = Arc::new(Mutex::new(String::from("idle")));
    // The tools that change the server hold it; it lives as long as the process anyway.
    let this: Arc<OnceLock<Server>> = Arc::default();
    let runs = Arc::new(AtomicUsize::new(0));
    let text = schema(json!({"text": {"type": "string"}}));
    let server = Server::builder("patterns", "1.0.0")
        .logging(true)
        .list_changed(true)
        .subscribe(true)
        .tool(
            Tool::new(
                "confirm_delete",
                schema(json!({"path": {"type": "string"}})),
            ),
            confirm_delete,
        )
        .tool(Tool::new("summarize", text.clone()), summarize)
        .tool(Tool::without_params("workspace"), workspace)
        .tool(
            Tool::without_params("onboard"),
            move |_: Value, cx: Context| onboard(runs.clone(), cx),
        )
        .tool(
            Tool::new(
                "count",
                schema(json!({"to": {"type": "integer", "minimum": 0}})),
            ),
            count,
        )
        .resource(Resource::new(STATUS, "status").mime_type("text/plain"), {
            let status = status.clone();
            move |_cx: Context| {
                let now = status.lock().map(|s| s.clone()).unwrap_or_default();
                async move { now }
            }
        })
        .tool(Tool::new("set_status", text), {
            let this = this.clone();
            move |args: Value, _cx: Context| {
                if let Ok(mut now) = status.lock() {
                    *now = args["text"].as_str().unwrap_or_default().to_owned();
                }
                if let Some(server) = this.get() {
                    server.resource_updated(STATUS);
                }
                async { "status set" }
            }
        })
        .tool(
            Tool::new("add_tool", schema(json!({"name": {"type": "string"}}))),
            {
                let this = this.clone();
                move |args: Value, _cx: Context| {
                    let name = args["name"].as_str().unwrap_or_default().to_owned();
                    let added = match this.get() {
                        Some(server) => server
                            .add_tool(
                                Tool::without_params(name.clone()),
                                |_: Value, _cx: Context| async { "hello" },
                            )
                            .map(|()| format!("added {name}"))
                            .map_err(|e| e.to_string()),
                        None => Err("the server is not running".to_owned()),
                    };
                    async move { added }
                }
            },
        )
        .build()?;
    let _ = this.set(server.clone());
    Ok(server)
}
