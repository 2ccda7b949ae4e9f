//! Sampling: a tool asks the client's model for a completion; the client's handler answers
//! (here a stand-in for a real model), in either protocol era.
//!
//! ```sh
//! cargo run -p presa --example sampling
//! ```
//!
//! Prints:
//!
//! ```text
//! the server asks for at most 60 tokens: "Summarize: presa serves MCP in both eras."
//! summary by echo-model: A summary of 1 message.
//! ```

use presa::client::{Client, ClientOptions, ResultText};
use presa::core::{CreateMessageRequestParams, CreateMessageResult, SamplingMessage};
use presa::prelude::*;
use serde::Deserialize;

/// Summarize a text with the client's model.
#[derive(Deserialize, JsonSchema)]
struct Summarize {
    text: String,
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = Server::builder("summarizer", "1.0.0")
        .typed_tool(
            "summarize",
            |Args(input): Args<Summarize>, cx: Context| async move {
                let ask = CreateMessageRequestParams::new(
                    vec![SamplingMessage::user_text(format!(
                        "Summarize: {}",
                        input.text
                    ))],
                    60,
                );
                let answer = cx.sample(ask).await?;
                let text: String = answer
                    .content
                    .as_slice()
                    .iter()
                    .filter_map(|c| c.as_text())
                    .collect();
                Ok::<_, InputError>(format!("summary by {}: {text}", answer.model))
            },
        )
        .build()?;

    // registering a sampling handler declares the capability
    let options = ClientOptions::default().sampling(|params, _cx| async move {
        let asked: String = params
            .messages
            .iter()
            .flat_map(|m| m.content.as_slice())
            .filter_map(|c| c.as_text())
            .collect();
        println!(
            "the server asks for at most {} tokens: {asked:?}",
            params.max_tokens
        );
        let count = params.messages.len();
        Ok(CreateMessageResult::text(
            "echo-model",
            format!("A summary of {count} message."),
        ))
    });
    let client = Client::connect(presa::in_process(server), options).await?;
    let result = client
        .call_tool(
            "summarize",
            serde_json::json!({"text": "presa serves MCP in both eras."}),
        )
        .await?;
    println!("{}", result.text());
    client.close().await;
    Ok(())
}
