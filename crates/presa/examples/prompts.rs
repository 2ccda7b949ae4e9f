//! Prompts: templates of messages with arguments, listed and filled in by a client; a missing
//! required argument is refused before the handler runs.
//!
//! ```sh
//! cargo run -p presa --example prompts
//! ```
//!
//! Prints:
//!
//! ```text
//! introduce (id): Introduce a person.
//! small-talk (): Talk about the weather.
//! introduce alan -> user: Introduce alan in one sentence.
//! small-talk -> user: How is the weather?
//! small-talk -> assistant: Sunny, thanks.
//! introduce without id: server error -32602: Missing required argument for prompt introduce: id
//! ```

use presa::client::{Client, ClientOptions};
use presa::prelude::*;
use serde_json::json;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = Server::builder("prompts", "1.0.0")
        .prompt(
            Prompt::new("introduce")
                .description("Introduce a person.")
                .argument(PromptArgument::new("id").description("Who").required(true)),
            |args: PromptArgs, _cx: Context| async move {
                format!(
                    "Introduce {} in one sentence.",
                    args.get("id").map_or("someone", String::as_str)
                )
            },
        )
        .prompt(
            Prompt::new("small-talk").description("Talk about the weather."),
            |_args: PromptArgs, _cx: Context| async {
                vec![
                    Message::from("How is the weather?"),
                    Message::from((Role::Assistant, "Sunny, thanks.")),
                ]
            },
        )
        .build()?;
    let client = Client::connect(presa::in_process(server), ClientOptions::default()).await?;

    for prompt in client.list_prompts().await? {
        let arguments: Vec<_> = prompt
            .arguments
            .iter()
            .flatten()
            .map(|a| a.name.as_str())
            .collect();
        let description = prompt.description.as_deref().unwrap_or("");
        println!("{} ({}): {description}", prompt.name, arguments.join(", "));
    }
    for (name, arguments, label) in [
        ("introduce", json!({"id": "alan"}), "introduce alan"),
        ("small-talk", json!({}), "small-talk"),
    ] {
        for message in client.get_prompt(name, arguments).await?.messages {
            let role = if message.role == Role::User {
                "user"
            } else {
                "assistant"
            };
            if let ContentBlock::Text(text) = &message.content {
                println!("{label} -> {role}: {}", text.text);
            }
        }
    }
    if let Err(error) = client.get_prompt("introduce", json!({})).await {
        println!("introduce without id: {error}");
    }
    client.close().await;
    Ok(())
}
