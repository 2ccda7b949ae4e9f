//! In-process: a client and a server in one process, over the real protocol path (every
//! message serialized and parsed), in either era; for tests and for embedding a server.
//!
//! ```sh
//! cargo run -p presa --example in_process
//! ```
//!
//! Prints:
//!
//! ```text
//! 2026-07-28: echo says "hello"
//! 2025-11-25: echo says "hello"
//! 2024-11-05: echo says "hello"
//! ```

use presa::client::{Client, ClientOptions, ResultText};
use presa::core::ProtocolVersion;
use presa::prelude::*;
use serde::Deserialize;

/// Say something back.
#[derive(Deserialize, JsonSchema)]
struct Echo {
    text: String,
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = Server::builder("echo", "1.0.0")
        .typed_tool("echo", |Args(echo): Args<Echo>, _cx: Context| async move {
            format!("echo says {:?}", echo.text)
        })
        .build()?;

    // one server, any number of clients: each in_process(..) is a new connection
    for version in [
        ProtocolVersion::V2026_07_28,
        ProtocolVersion::V2025_11_25,
        ProtocolVersion::V2024_11_05,
    ] {
        let options = ClientOptions::default().protocol_version(Some(version));
        let client = Client::connect(presa::in_process(server.clone()), options).await?;
        let result = client
            .call_tool("echo", serde_json::json!({"text": "hello"}))
            .await?;
        println!("{}: {}", client.protocol_version(), result.text());
        client.close().await;
    }
    Ok(())
}
