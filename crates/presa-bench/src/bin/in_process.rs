//! The in-process row of `cargo xtask bench`: a [`presa::client::Client`] and presa's
//! `library` example server in one process over [`presa::in_process`] (serialization
//! included), N concurrent callers of `tools/call add`. Prints one JSON line:
//! `{"calls", "seconds", "p50_us", "p99_us"}`.
//!
//! ```sh
//! cargo run --release -p presa-bench --bin in_process -- --callers 64 --warmup 2 --duration 5
//! ```
//!
//! `--workers N` runs it on a multi-thread runtime of N workers (default: one per CPU, as
//! `#[tokio::main]`), `--workers 0` on a current-thread runtime.

#[path = "../../../presa/examples/library/definitions.rs"]
mod definitions;

use std::process::ExitCode;

use presa::client::{Client, ClientOptions};
use presa::core::ErrorReport;
use presa_bench::load::{self, LoadOptions};

async fn run(options: LoadOptions) -> Result<String, String> {
    let server = definitions::library().map_err(|e| ErrorReport(&e).to_string())?;
    let client = Client::connect(presa::in_process(server), ClientOptions::default())
        .await
        .map_err(|e| ErrorReport(&e).to_string())?;
    let report = load::run(&client, options).await;
    client.close().await;
    report
}

/// The runtime `--workers` asks for.
fn runtime(args: &[String]) -> Result<tokio::runtime::Runtime, String> {
    let workers = load::number(args, "--workers", -1.0)?;
    let mut builder = if workers == 0.0 {
        tokio::runtime::Builder::new_current_thread()
    } else {
        let mut builder = tokio::runtime::Builder::new_multi_thread();
        if workers >= 1.0 {
            builder.worker_threads(workers as usize);
        }
        builder
    };
    builder
        .enable_all()
        .build()
        .map_err(|e| format!("no runtime: {e}"))
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let report = LoadOptions::from_args(&args)
        .and_then(|options| Ok((options, runtime(&args)?)))
        .and_then(|(options, runtime)| runtime.block_on(run(options)));
    match report {
        Ok(report) => {
            println!("{report}");
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("in_process: {error}");
            ExitCode::FAILURE
        }
    }
}
