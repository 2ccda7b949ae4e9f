//! The client-http-64 row of `cargo xtask bench`: a presa [`Client`] over Streamable HTTP,
//! N concurrent callers of `tools/call add` against a server (the strict baseline, so that the
//! client's own cost is what the driver reads from `/proc`). The client speaks 2025-11-25, the
//! revision rmcp's client in the same row speaks, so both send the same requests. Prints one
//! JSON line: `{"calls", "seconds", "p50_us", "p99_us"}`.
//!
//! ```sh
//! cargo run --release -p presa-bench --bin http_client -- --url http://127.0.0.1:8080/mcp \
//!     --callers 64 --warmup 2 --duration 5
//! ```

use std::process::ExitCode;

use presa::client::{Client, ClientOptions};
use presa::core::{ErrorReport, ProtocolVersion};
use presa::http::HttpClientOptions;
use presa_bench::load::{self, LoadOptions};

async fn run(args: &[String]) -> Result<String, String> {
    let url = load::flag(args, "--url").ok_or("--url URL is required")?;
    let options = LoadOptions::from_args(args)?;
    let channel = presa::http::client(url, HttpClientOptions::default())
        .map_err(|e| ErrorReport(&e).to_string())?;
    let revision = ClientOptions::default().protocol_version(Some(ProtocolVersion::V2025_11_25));
    let client = Client::connect(channel, revision)
        .await
        .map_err(|e| ErrorReport(&e).to_string())?;
    let report = load::run(&client, options).await;
    client.close().await;
    report
}

#[tokio::main]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args).await {
        Ok(report) => {
            println!("{report}");
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("http_client: {error}");
            ExitCode::FAILURE
        }
    }
}
