//! Progress: a slow tool reports how far it got; the client follows each report of its call.
//!
//! ```sh
//! cargo run -p presa --example progress
//! ```
//!
//! Prints:
//!
//! ```text
//! 1 of 3: copying part 1
//! 2 of 3: copying part 2
//! 3 of 3: copying part 3
//! copied 3 parts
//! ```

use presa::client::{Client, ClientOptions, ResultText};
use presa::prelude::*;
use serde::Deserialize;

/// Copy a file in parts.
#[derive(Deserialize, JsonSchema)]
struct Copy {
    parts: u32,
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = Server::builder("copier", "1.0.0")
        .typed_tool("copy", |Args(copy): Args<Copy>, cx: Context| async move {
            for part in 1..=copy.parts {
                // sent only when the request asked for progress (it carried a progress token)
                let message = format!("copying part {part}");
                cx.progress(f64::from(part), Some(f64::from(copy.parts)), Some(&message))
                    .await;
            }
            format!("copied {} parts", copy.parts)
        })
        .build()?;
    let client = Client::connect(presa::in_process(server), ClientOptions::default()).await?;

    // asking for progress sends a progress token; the callback runs on the connection's task,
    // in order, before the call returns: keep it short
    let result = client
        .call_tool("copy", serde_json::json!({"parts": 3}))
        .on_progress(|p| {
            let total = p.total.unwrap_or_default();
            println!(
                "{} of {total}: {}",
                p.progress,
                p.message.as_deref().unwrap_or("")
            );
        })
        .await?;
    println!("{}", result.text());
    client.close().await;
    Ok(())
}
