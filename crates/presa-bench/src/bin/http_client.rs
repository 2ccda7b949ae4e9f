//! The client-http-64 row of `cargo xtask bench`: a presa [`Client`] over Streamable HTTP,
//! N concurrent callers of `tools/call add` against a server (the strict baseline, so that the
//! client's own cost is what the driver reads from `/proc`). Prints one JSON line:
//! `{"calls", "seconds", "p50_us", "p99_us"}`.
//!
//! ```sh
//! cargo run --release -p presa-bench --bin http_client -- --url http://127.0.0.1:8080/mcp \
//!     --callers 64 --warmup 2 --duration 5
//! ```

use std::process::ExitCode;
use std::time::{Duration, Instant};

use presa::client::{Client, ClientOptions};
use presa::core::ErrorReport;
use presa::http::HttpClientOptions;
use serde_json::json;

/// What one caller saw in the measured window: its latencies in microseconds.
async fn caller(client: Client, warm: Instant, stop: Instant) -> Result<Vec<u32>, String> {
    let mut latencies = Vec::new();
    let arguments = json!({"numbers": [1, 2, 3]});
    loop {
        let start = Instant::now();
        if start >= stop {
            return Ok(latencies);
        }
        let result = client
            .call_tool("add", &arguments)
            .await
            .map_err(|e| ErrorReport(&e).to_string())?;
        if result.is_error == Some(true) {
            return Err(format!("add failed: {:?}", result.content));
        }
        let end = Instant::now();
        if start >= warm && end <= stop {
            latencies
                .push(u32::try_from(end.duration_since(start).as_micros()).unwrap_or(u32::MAX));
        }
    }
}

/// The value after `name`, or `default`.
fn flag<'a>(args: &'a [String], name: &str, default: &'a str) -> &'a str {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .map_or(default, String::as_str)
}

fn number(args: &[String], name: &str, default: &str) -> Result<f64, String> {
    let text = flag(args, name, default);
    text.parse()
        .map_err(|_| format!("{name}: not a number: {text}"))
}

async fn run(args: &[String]) -> Result<(), String> {
    let url = flag(args, "--url", "");
    if url.is_empty() {
        return Err("--url is required".to_owned());
    }
    let callers = number(args, "--callers", "64")? as usize;
    let warmup = Duration::from_secs_f64(number(args, "--warmup", "2")?);
    let duration = Duration::from_secs_f64(number(args, "--duration", "5")?);
    let channel = presa::http::client(url, HttpClientOptions::default())
        .map_err(|e| ErrorReport(&e).to_string())?;
    let client = Client::connect(channel, ClientOptions::default())
        .await
        .map_err(|e| ErrorReport(&e).to_string())?;
    let warm = Instant::now() + warmup;
    let stop = warm + duration;
    let tasks: Vec<_> = (0..callers)
        .map(|_| tokio::spawn(caller(client.clone(), warm, stop)))
        .collect();
    let mut latencies = Vec::new();
    for task in tasks {
        latencies.extend(task.await.map_err(|e| ErrorReport(&e).to_string())??);
    }
    latencies.sort_unstable();
    let at = |q: f64| {
        latencies
            .get(((latencies.len() as f64 - 1.0) * q) as usize)
            .copied()
    };
    let report = json!({
        "calls": latencies.len(),
        "seconds": duration.as_secs_f64(),
        "p50_us": at(0.50),
        "p99_us": at(0.99),
    });
    println!("{report}");
    client.close().await;
    Ok(())
}

#[tokio::main]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("http_client: {error}");
            ExitCode::FAILURE
        }
    }
}
