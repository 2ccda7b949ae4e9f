//! The `library` server, observed: every request a span, written to stderr as JSON lines, and
//! with `--http HOST:PORT` the server's metrics for Prometheus at `/metrics` beside `/mcp` (the
//! URL of `/mcp` is printed on the first line). On stdio by default.
//!
//! ```sh
//! cargo run -p presa --features prometheus --example observed
//! cargo run -p presa --features prometheus --example observed -- --http 127.0.0.1:8080
//! curl http://127.0.0.1:8080/metrics
//! ```
//!
//! `RUST_LOG`-style filtering is left out on purpose: everything presa emits at INFO and above
//! is written, the request spans when they close (with their duration).

#[path = "library/definitions.rs"]
mod definitions;

use std::process::ExitCode;

use presa::http::{HttpOptions, PrometheusMetrics};
use tracing_subscriber::fmt::format::FmtSpan;

#[tokio::main]
async fn main() -> ExitCode {
    // spans as JSON lines on stderr: stdout is the stdio transport's
    tracing_subscriber::fmt()
        .json()
        .with_writer(std::io::stderr)
        .with_span_events(FmtSpan::CLOSE)
        .with_current_span(true)
        .with_span_list(false)
        .init();
    match serve().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("observed: {error}");
            ExitCode::FAILURE
        }
    }
}

async fn serve() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let http = match (args.next().as_deref(), args.next()) {
        (None, _) => None,
        (Some("--http"), Some(address)) => Some(address),
        _ => return Err("usage: observed [--http HOST:PORT]".into()),
    };
    let metrics = PrometheusMetrics::new()?;
    let meter = metrics.meter();
    let server = definitions::library_with(|builder| builder.meter(meter))?;
    let Some(address) = http else {
        presa::stdio::serve(server, presa::stdio::ServeOptions::default()).await?;
        return Ok(());
    };
    let (host, port) = address.rsplit_once(':').ok_or("--http takes HOST:PORT")?;
    let options = HttpOptions::default()
        .host(host)
        .port(port.parse()?)
        .metrics(metrics);
    let running = presa::http::serve(server, options).await?;
    println!("listening {}", running.url());
    let _ = tokio::signal::ctrl_c().await;
    running.stop().await?;
    Ok(())
}
