//! The `library` server of presa's documentation: two tools, a resource, a resource template,
//! a prompt and completions.

use presa::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::Number;

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

/// Add numbers.
#[derive(Deserialize, JsonSchema)]
struct Add {
    /// The numbers to add.
    numbers: Vec<f64>,
}

#[derive(Serialize, JsonSchema)]
struct Sum {
    /// The sum of the numbers.
    sum: Number,
}

/// The sum, written as an integer when it is whole (`{"sum": 6}`, not `{"sum": 6.0}`).
fn add(Args(add): Args<Add>, _cx: Context) -> Result<Json<Sum>, ToolError> {
    let sum: f64 = add.numbers.iter().sum();
    let whole = sum.fract() == 0.0 && sum.abs() < 9_007_199_254_740_992.0;
    let sum = if whole {
        Some(Number::from(sum as i64))
    } else {
        Number::from_f64(sum)
    };
    let sum = sum.ok_or_else(|| ToolError::new("the sum is not a finite number"))?;
    Ok(Json(Sum { sum }))
}

/// Builds the library server.
#[allow(
    dead_code,
    reason = "not every user of these definitions configures the builder"
)]
pub(crate) fn library() -> Result<Server, BuildError> {
    library_with(|builder| builder)
}

/// Builds the library server, `configure` given the builder last (a bus, a key).
pub(crate) fn library_with(
    configure: impl FnOnce(ServerBuilder) -> ServerBuilder,
) -> Result<Server, BuildError> {
    let introduce = Prompt::new("introduce")
        .description("Introduce a person.")
        .argument(PromptArgument::new("id").description("Who").required(true));

    let builder = Server::builder("library", "0.1.0")
        .page_size(10)
        .typed_tool_sync("add", add)
        .typed_tool_sync(
            Tool::named("logo").description("A one-pixel PNG."),
            |(), _cx: Context| {
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
        .complete_prompt_argument("introduce", "id", complete_person);
    configure(builder).build()
}
