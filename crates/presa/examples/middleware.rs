//! Middleware: one stack over every MCP request a server serves, on every transport. A middleware
//! of your own (a closure around `next`), presa's rate limit, and its audit trail.
//!
//! ```sh
//! cargo run -p presa --example middleware
//! ```
//!
//! Prints:
//!
//! ```text
//! -> tools/call search
//! audit: tools/call search by Some("alice"): Ok
//! call 1: found 3 papers
//! -> tools/call search
//! audit: tools/call search by Some("alice"): Ok
//! call 2: found 3 papers
//! -> tools/call search
//! audit: tools/call search by Some("alice"): error -32000
//! call 3: refused, rate_limited
//! ```

use std::time::Duration;

use presa::client::{Client, ClientOptions, ResultText};
use presa::prelude::*;
use presa::server::{Audit, McpRequest, Next, Outcome, RateLimit};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = Server::builder("papers", "1.0.0")
        // who is calling: here one fixed caller; over HTTP, a verified identity by default
        .caller_key(|_request: &McpRequest| Some("alice".to_owned()))
        // the first middleware added is the outermost
        .middleware(|request: McpRequest, next: Next| async move {
            if request.method() != "tools/list" {
                let target = request
                    .target()
                    .map(|t| t.name().to_owned())
                    .unwrap_or_default();
                println!("-> {} {target}", request.method());
            }
            next.run(request).await
        })
        .middleware(Audit::new(|record| {
            let target = record.target.as_deref().unwrap_or("");
            let outcome = match &record.outcome {
                Outcome::Error { code, .. } => format!("error {}", code.0),
                other => format!("{other:?}"),
            };
            println!(
                "audit: {} {target} by {:?}: {outcome}",
                record.method, record.caller
            );
        }))
        // two calls a minute per caller and tool
        .middleware(RateLimit::new(2, Duration::from_secs(60)))
        .typed_tool(
            Tool::named("search").description("Search the papers."),
            |(), _cx: Context| async { "found 3 papers" },
        )
        .build()?;
    let client = Client::connect(presa::in_process(server), ClientOptions::default()).await?;

    for call in 1..=3 {
        match client.call_tool("search", ()).await {
            Ok(result) => println!("call {call}: {}", result.text()),
            // the error's data says when to retry: {"error": "rate_limited", "retryAfterMs": …}
            Err(error) => println!(
                "call {call}: refused, {}",
                error
                    .data()
                    .map_or("", |d| d["error"].as_str().unwrap_or(""))
            ),
        }
    }
    client.close().await;
    Ok(())
}
