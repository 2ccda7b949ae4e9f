//! Tools: a typed tool whose input and output schemas come from its Rust types, listed and
//! called by a client connected in the same process.
//!
//! ```sh
//! cargo run -p presa --example tools
//! ```
//!
//! Prints:
//!
//! ```text
//! add: Add two numbers.
//! input schema requires ["a","b"]
//! add(2, 3) = 5
//! add(2, "three") failed: Invalid arguments at /b: expected number, got string
//! ```

use presa::client::{Client, ClientOptions, ResultText};
use presa::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::json;

/// Add two numbers.
#[derive(Deserialize, Serialize, JsonSchema)]
struct Add {
    /// The first number.
    a: f64,
    /// The second number.
    b: f64,
}

#[derive(Deserialize, Serialize, JsonSchema)]
struct Sum {
    sum: f64,
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = Server::builder("calculator", "1.0.0")
        .typed_tool("add", |Args(add): Args<Add>, _cx: Context| async move {
            Json(Sum { sum: add.a + add.b })
        })
        .build()?;
    let client = Client::connect(presa::in_process(server), ClientOptions::default()).await?;

    for tool in client.list_tools().await? {
        println!(
            "{}: {}",
            tool.name,
            tool.description.as_deref().unwrap_or("")
        );
        println!(
            "input schema requires {}",
            json!(tool.input_schema.get("required"))
        );
    }

    // the typed call: arguments serialized, the result checked against the output schema
    let sum: Sum = client.call_tool_as("add", Add { a: 2.0, b: 3.0 }).await?;
    println!("add(2, 3) = {}", sum.sum);

    // arguments that break the schema come back as a tool error the model can act on
    let result = client
        .call_tool("add", json!({"a": 2, "b": "three"}))
        .await?;
    if result.is_error() {
        println!("add(2, \"three\") failed: {}", result.text());
    }
    client.close().await;
    Ok(())
}
