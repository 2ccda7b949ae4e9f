//! The `library` server as `cargo xtask bench` measures the cost of observing it: on stdio, or
//! on Streamable HTTP with `--http HOST:PORT`, with
//! - `--spans`: a `tracing` subscriber that wants every span and event and keeps nothing (the
//!   cost of making the spans, with no output to pay for);
//! - `--metrics`: the OpenTelemetry metrics recorded into an SDK meter provider with a reader,
//!   so that every measure is aggregated (the cost of recording, with no export);
//! - neither: no subscriber and the global no-op meter (the spans' disabled fast path).
//!
//! ```sh
//! cargo run --release -p presa --features prometheus --example bench_observed -- --spans
//! ```

#[path = "library/definitions.rs"]
mod definitions;

use std::process::ExitCode;

use opentelemetry::metrics::MeterProvider as _;
use presa::http::HttpOptions;
use tracing_subscriber::layer::{Layer, SubscriberExt};

/// Wants everything, keeps nothing.
struct Drop;

impl<S: tracing::Subscriber> Layer<S> for Drop {}

#[tokio::main]
async fn main() -> ExitCode {
    match serve().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("bench_observed: {error}");
            ExitCode::FAILURE
        }
    }
}

async fn serve() -> Result<(), Box<dyn std::error::Error>> {
    let (mut spans, mut metrics, mut http) = (false, false, None);
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--spans" => spans = true,
            "--metrics" => metrics = true,
            "--http" => http = Some(args.next().ok_or("--http takes HOST:PORT")?),
            _ => {
                return Err(
                    "usage: bench_observed [--spans] [--metrics] [--http HOST:PORT]".into(),
                );
            }
        }
    }
    if spans {
        tracing::subscriber::set_global_default(tracing_subscriber::registry().with(Drop))?;
    }
    // an SDK provider whose reader is never asked: every measure is aggregated, none exported
    let reader = opentelemetry_sdk::metrics::ManualReader::builder().build();
    let provider = opentelemetry_sdk::metrics::SdkMeterProvider::builder()
        .with_reader(reader)
        .build();
    let server = definitions::library_with(|builder| match metrics {
        true => builder.meter(provider.meter("presa")),
        false => builder,
    })?;
    let Some(address) = http else {
        presa::stdio::serve(server, presa::stdio::ServeOptions::default()).await?;
        return Ok(());
    };
    let (host, port) = address.rsplit_once(':').ok_or("--http takes HOST:PORT")?;
    let options = HttpOptions::default().host(host).port(port.parse()?);
    let running = presa::http::serve(server, options).await?;
    println!("listening {}", running.url());
    let _ = tokio::signal::ctrl_c().await;
    running.stop().await?;
    Ok(())
}
