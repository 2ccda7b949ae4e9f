//! A server with one long job that runs as a task: `export_report` asks the user to confirm,
//! then works for a minute, reporting progress (a task's status message), and answers with the
//! report. On stdio by default, or on Streamable HTTP at `/mcp` with `--http HOST:PORT`.
//!
//! A client that allows tasks (2026-07-28: the `io.modelcontextprotocol/tasks` extension;
//! 2025-11-25: a task-augmented `tools/call`) gets the task at once and polls it; any other
//! client waits for the answer of an ordinary call, from the same handler.
//!
//! ```sh
//! cargo run -p presa --example tasks
//! cargo run -p presa --example tasks -- --http 127.0.0.1:8080
//! ```
//!
//! The session below asks it with the [`presa` command](presa::guide::cli) (`cargo install
//! --path crates/presa-cli`).
//!
//! Prints:
//!
//! ```text
//! $ presa call export_report year=2026 seconds=2 --answer confirm=yes -- cargo run -q -p presa --example tasks
//! Report 2026: 6078 rows exported.
//! $ presa call export_report year=2026 --decline -- cargo run -q -p presa --example tasks
//! The 2026 export was not confirmed.
//! ```

use std::process::ExitCode;
use std::time::Duration;

use presa::core::ErrorReport;
use presa::http::{HttpOptions, serve};
use presa::prelude::*;
use presa::stdio::ServeOptions;
use serde::Deserialize;

/// Export the yearly report (a minute of work; it asks to confirm first).
#[derive(Deserialize, JsonSchema)]
struct Export {
    /// The year to report on.
    year: u32,
    /// How long the export takes, in seconds (default 60).
    #[serde(default = "a_minute")]
    seconds: u64,
}

fn a_minute() -> u64 {
    60
}

/// The confirmation the job asks for.
#[derive(Deserialize, JsonSchema)]
struct Confirm {
    /// Go ahead with the export?
    confirm: bool,
}

/// The job: confirmation, then a step per second with progress, then the report.
async fn export_report(Args(export): Args<Export>, cx: Context) -> Result<String, InputError> {
    // from here on a task, when the client allows one: the confirmation below waits in the
    // task (`input_required`) instead of holding the request open
    cx.run_as_task().await;
    let question = format!(
        "Export the {} report? It takes {} s.",
        export.year, export.seconds
    );
    match cx.elicit_as::<Confirm>(question).await? {
        Elicitation::Accepted(Confirm { confirm: true }) => {}
        _ => return Ok(format!("The {} export was not confirmed.", export.year)),
    }
    for second in 0..export.seconds {
        let status = format!("exporting: {second} of {} s", export.seconds);
        cx.progress(second as f64, Some(export.seconds as f64), Some(&status))
            .await;
        // `tasks/cancel` drops the handler here
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
    Ok(format!(
        "Report {}: {} rows exported.",
        export.year,
        export.year * 3
    ))
}

/// The server: `export_report` runs as a task when the client allows one.
fn server() -> Result<Server, BuildError> {
    Server::builder("reports", "1.0.0")
        .elicitation_form::<Confirm>()
        .tasks(TaskOptions::default().poll_interval(Duration::from_millis(500)))
        .typed_tool(
            Tool::named("export_report").task_support(TaskSupport::Optional),
            export_report,
        )
        .build()
}

#[tokio::main]
async fn main() -> ExitCode {
    let server = match server() {
        Ok(server) => server,
        Err(error) => {
            eprintln!("tasks: {error}");
            return ExitCode::FAILURE;
        }
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.as_slice() {
        [] => presa::stdio::serve(server, ServeOptions::default())
            .await
            .map_err(|e| ErrorReport(&e).to_string()),
        [flag, address] if flag == "--http" => serve_http(server, address).await,
        _ => Err("usage: tasks [--http HOST:PORT]".to_owned()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("tasks: {error}");
            ExitCode::FAILURE
        }
    }
}

async fn serve_http(server: Server, address: &str) -> Result<(), String> {
    let (host, port) = address.rsplit_once(':').ok_or("--http takes HOST:PORT")?;
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
