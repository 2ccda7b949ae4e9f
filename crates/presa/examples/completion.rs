//! Completion: suggestions for a prompt's argument and for a resource template's variable as
//! the user types, narrowed by the other arguments filled in so far.
//!
//! ```sh
//! cargo run -p presa --example completion
//! ```
//!
//! Prints:
//!
//! ```text
//! language "r": ["ruby", "rust"]
//! table "ord" in schema sales: ["orders", "order_lines"]
//! ```

use presa::client::{Client, ClientOptions};
use presa::core::CompletionReference;
use presa::prelude::*;

/// The values that start with what the user typed so far.
fn starting_with(values: &[&str], typed: &str) -> Vec<String> {
    values
        .iter()
        .filter(|v| v.starts_with(typed))
        .map(|v| v.to_string())
        .collect()
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = Server::builder("completion", "1.0.0")
        .prompt(
            Prompt::new("review").argument(PromptArgument::new("language").required(true)),
            |args: PromptArgs, _cx: Context| async move {
                format!(
                    "Review this {} code.",
                    args.get("language").map_or("", String::as_str)
                )
            },
        )
        .complete_prompt_argument(
            "review",
            "language",
            |input: CompletionInput, _cx: Context| async move {
                starting_with(&["go", "python", "ruby", "rust"], &input.value)
            },
        )
        .resource_template(
            ResourceTemplate::new("db://{schema}/{table}", "table"),
            |_: Variables, _cx: Context| async { Some("rows") },
        )
        // the other variables the user filled in narrow the suggestions
        .complete_template_variable(
            "db://{schema}/{table}",
            "table",
            |input: CompletionInput, _cx: Context| async move {
                match input.arguments.get("schema").map(String::as_str) {
                    Some("sales") => {
                        starting_with(&["orders", "order_lines", "customers"], &input.value)
                    }
                    _ => Vec::new(),
                }
            },
        )
        .build()?;
    let client = Client::connect(presa::in_process(server), ClientOptions::default()).await?;

    let languages = client
        .complete(CompletionReference::prompt("review"), "language", "r")
        .await?;
    println!("language \"r\": {:?}", languages.completion.values);
    let table = CompletionReference::resource("db://{schema}/{table}");
    let tables = client
        .complete_with_context(table, "table", "ord", [("schema", "sales")])
        .await?;
    println!(
        "table \"ord\" in schema sales: {:?}",
        tables.completion.values
    );
    client.close().await;
    Ok(())
}
