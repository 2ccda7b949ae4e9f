//! The server of the `tasks` row of `cargo xtask bench`: Streamable HTTP at `/mcp` with one
//! short job, `work`, that becomes a task for a client declaring the tasks extension (it yields
//! once, so it does not finish on its first poll). Finished tasks are kept for `RETENTION_MS`
//! (default 1000) after they end, so that the bench can see the memory they held come back.
//!
//! ```sh
//! cargo run --release -p presa --example bench_tasks -- 127.0.0.1:0 [RETENTION_MS]
//! ```

use std::process::ExitCode;
use std::time::Duration;

use presa::core::ErrorReport;
use presa::http::{HttpOptions, serve};
use presa::server::{Context, Server, TaskLimits, TaskOptions, TaskSupport, Tool};
use serde_json::Value;

#[tokio::main]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let address = args.first().map_or("127.0.0.1:0", String::as_str);
    let retention = args.get(1).and_then(|ms| ms.parse().ok()).unwrap_or(1000);
    match run(address, retention).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("bench_tasks: {error}");
            ExitCode::FAILURE
        }
    }
}

async fn run(address: &str, retention_ms: u64) -> Result<(), String> {
    let options = TaskOptions::default()
        .retention(Some(Duration::from_millis(retention_ms)))
        .poll_interval(Duration::from_millis(1))
        .limits(TaskLimits {
            per_owner: 100_000,
            total: 100_000,
        });
    let server = Server::builder("bench-tasks", "1.0.0")
        .tasks(options)
        .tool(
            Tool::without_params("work").task_support(TaskSupport::Optional),
            |_: Value, _cx: Context| async {
                tokio::task::yield_now().await;
                "done"
            },
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
