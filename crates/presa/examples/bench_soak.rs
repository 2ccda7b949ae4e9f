//! The server of `cargo xtask soak`: Streamable HTTP at `/mcp`, both eras, with `add` (answered
//! at once), `chatty` (logs four times, a millisecond apart, then answers: a streamed response a
//! client can walk away from), and one subscribable resource for listens.
//!
//! ```sh
//! cargo run --release -p presa --example bench_soak -- 127.0.0.1:0
//! ```

use std::process::ExitCode;
use std::time::Duration;

use presa::core::ErrorReport;
use presa::http::{HttpOptions, serve};
use presa::server::{Context, LoggingLevel, Resource, Server, Tool};
use serde_json::Value;

#[tokio::main]
async fn main() -> ExitCode {
    let address = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:0".to_owned());
    match run(&address).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("bench_soak: {error}");
            ExitCode::FAILURE
        }
    }
}

async fn run(address: &str) -> Result<(), String> {
    let server = Server::builder("bench-soak", "1.0.0")
        .subscribe(true)
        .tool(
            Tool::without_params("add"),
            |_: Value, _cx: Context| async { "6" },
        )
        .tool(
            Tool::without_params("chatty"),
            |_: Value, cx: Context| async move {
                for step in 0..4 {
                    cx.log(LoggingLevel::Info, format!("step {step}")).await;
                    tokio::time::sleep(Duration::from_millis(1)).await;
                }
                "done"
            },
        )
        .resource(
            Resource::new("soak://watched", "watched"),
            |_: Context| async { "v1" },
        )
        .build()
        .map_err(|e| ErrorReport(&e).to_string())?;
    let (host, port) = address.rsplit_once(':').ok_or("takes HOST:PORT")?;
    let port: u16 = port.parse().map_err(|_| format!("not a port: {port}"))?;
    let running = serve(server, HttpOptions::default().host(host).port(port))
        .await
        .map_err(|e| ErrorReport(&e).to_string())?;
    println!("listening {}", running.url());
    let _ = tokio::signal::ctrl_c().await;
    running
        .stop()
        .await
        .map_err(|e| ErrorReport(&e).to_string())
}
