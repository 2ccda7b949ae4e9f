//! The in-process row of `cargo xtask bench`: a [`presa::client::Client`] and the `library`
//! server in one process over [`presa::in_process`] (serialization included), N concurrent
//! callers of `tools/call add`. Prints one JSON line: `{"calls", "seconds", "p50_us", "p99_us"}`.
//!
//! ```sh
//! cargo run --release -p presa --example bench_in_process -- --callers 64 --warmup 2 --duration 5
//! ```

#[path = "library/definitions.rs"]
mod definitions;

use std::process::ExitCode;
use std::time::{Duration, Instant};

use presa::client::{Client, ClientOptions};
use presa::core::ErrorReport;
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

fn flag(args: &[String], name: &str, default: f64) -> Result<f64, String> {
    match args.iter().position(|a| a == name) {
        None => Ok(default),
        Some(i) => args
            .get(i + 1)
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| format!("{name} takes a number")),
    }
}

async fn run(args: &[String]) -> Result<(), String> {
    let callers = flag(args, "--callers", 64.0)? as usize;
    let warmup = Duration::from_secs_f64(flag(args, "--warmup", 2.0)?);
    let duration = Duration::from_secs_f64(flag(args, "--duration", 5.0)?);
    let server = definitions::library().map_err(|e| ErrorReport(&e).to_string())?;
    let client = Client::connect(presa::in_process(server), ClientOptions::default())
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
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    // `--workers 0`: a current-thread runtime; otherwise a multi-thread one with that many
    // workers (default: one per CPU, as `#[tokio::main]`)
    let runtime = match flag(&args, "--workers", -1.0) {
        Ok(workers) if workers == 0.0 => tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build(),
        Ok(workers) => {
            let mut builder = tokio::runtime::Builder::new_multi_thread();
            if workers > 0.0 {
                builder.worker_threads(workers as usize);
            }
            builder.enable_all().build()
        }
        Err(error) => {
            eprintln!("bench_in_process: {error}");
            return ExitCode::FAILURE;
        }
    };
    let runtime = match runtime {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("bench_in_process: no runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(&args)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("bench_in_process: {error}");
            ExitCode::FAILURE
        }
    }
}
