//! The `library` server of presa's documentation: two tools, a resource, a resource template,
//! a prompt and completions.

use presa::core::{Prompt, PromptArgument, Resource, ResourceTemplate, Tool};
use presa::server::{
    BuildError, CompletionInput, Content, Context, PromptArgs, Server, Variables, content,
};
use serde_json::{Value, json};

/// The logo: a one-pixel PNG, already base64-encoded.
pub(crate) const LOGO_PNG: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mP8/x8AAusB9Y9Z4p8AAAAASUVORK5CYII=";

/// Who the library knows, by id.
pub(crate) fn person(id: &str) -> Option<&'static str> {
    match id {
        "ada" => Some("Ada Lovelace"),
        "alan" => Some("Alan Turing"),
        _ => None,
    }
}

/// The ids starting with what was typed.
async fn complete_person(input: CompletionInput, _cx: Context) -> Vec<&'static str> {
    ["ada", "alan"]
        .into_iter()
        .filter(|id| id.starts_with(&input.value))
        .collect()
}

fn object(value: Value) -> serde_json::Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => serde_json::Map::new(),
    }
}

/// Builds the library server.
pub(crate) fn library() -> Result<Server, BuildError> {
    let add = Tool::new(
        "add",
        object(json!({
            "type": "object",
            "properties": {"numbers": {"type": "array", "items": {"type": "number"}}},
            "required": ["numbers"]
        })),
    )
    .description("Add numbers.")
    .output_schema(object(json!({
        "type": "object",
        "properties": {"sum": {"type": "number"}},
        "required": ["sum"]
    })));

    let introduce = Prompt::new("introduce")
        .description("Introduce a person.")
        .argument(PromptArgument::new("id").description("Who").required(true));

    Server::builder("library", "0.1.0")
        .page_size(10)
        .tool(add, |args: Value, _cx: Context| async move {
            let sum: f64 = args["numbers"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_f64)
                .sum();
            // whole sums read best as integers: {"sum": 6}, not {"sum": 6.0}
            let whole = sum.fract() == 0.0 && sum.abs() < 9_007_199_254_740_992.0;
            if whole {
                json!({ "sum": sum as i64 })
            } else {
                json!({ "sum": sum })
            }
        })
        .tool_sync(
            Tool::without_params("logo").description("A one-pixel PNG."),
            |_: Value, _cx: Context| {
                Content(vec![
                    content::text("Here is the logo:"),
                    content::image_base64(LOGO_PNG, "image/png"),
                ])
            },
        )
        .resource(
            Resource::new("file:///readme.txt", "readme").mime_type("text/plain"),
            |_cx: Context| async { "Read me first." },
        )
        .resource_template(
            ResourceTemplate::new("people://{id}", "person").mime_type("text/plain"),
            |vars: Variables, _cx: Context| async move { vars.get("id").and_then(|id| person(id)) },
        )
        .complete_template_variable("people://{id}", "id", complete_person)
        .prompt(introduce, |args: PromptArgs, _cx: Context| async move {
            let name = args
                .get("id")
                .and_then(|id| person(id))
                .unwrap_or("someone");
            format!("Introduce {name} in one sentence.")
        })
        .complete_prompt_argument("introduce", "id", complete_person)
        .build()
}
