//! The `library` server, observed: every request a span, written to stderr as JSON lines, and
//! with `--http HOST:PORT` the server's metrics for Prometheus at `/metrics` beside `/mcp` (the
//! URL of `/mcp` is printed on the first line). On stdio by default.
//!
//! When `OTEL_EXPORTER_OTLP_ENDPOINT` names an OpenTelemetry collector (Jaeger, Grafana Alloy,
//! the OpenTelemetry Collector: `http://127.0.0.1:4318`), the spans and the metrics are also
//! pushed there over OTLP/HTTP, as the `OTEL_*` variables configure (`OTEL_SERVICE_NAME`,
//! default `library`; `OTEL_METRIC_EXPORT_INTERVAL`, default 60 s); what is left is pushed when
//! the server stops.
//!
//! ```sh
//! cargo run -p presa --features prometheus --example observed
//! cargo run -p presa --features prometheus --example observed -- --http 127.0.0.1:8080
//! curl http://127.0.0.1:8080/metrics
//! OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318 \
//!     cargo run -p presa --features prometheus --example observed -- --http 127.0.0.1:8080
//! ```
//!
//! The session below asks it with the [`presa` command](presa::guide::cli) (`cargo install
//! --path crates/presa-cli`).
//!
//! Prints:
//!
//! ```text
//! $ presa call add 'numbers=[1,2]' -- cargo run -q -p presa --features prometheus --example observed
//! {"sum":3}
//! ```
//!
//! `RUST_LOG`-style filtering is left out on purpose: everything presa emits at INFO and above
//! is written, the request spans when they close (with their duration).

#[path = "library/definitions.rs"]
mod definitions;

use std::process::ExitCode;

use opentelemetry::trace::TracerProvider as _;
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::metrics::PeriodicReader;
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::SdkTracerProvider;
use presa::http::{HttpOptions, PrometheusMetrics};
use tracing_subscriber::fmt::format::FmtSpan;
use tracing_subscriber::layer::SubscriberExt as _;
use tracing_subscriber::util::SubscriberInitExt as _;

type Error = Box<dyn std::error::Error + Send + Sync>;

#[tokio::main]
async fn main() -> ExitCode {
    match observe_and_serve().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("observed: {error}");
            ExitCode::FAILURE
        }
    }
}

async fn observe_and_serve() -> Result<(), Error> {
    let mut args = std::env::args().skip(1);
    let http = match (args.next().as_deref(), args.next()) {
        (None, _) => None,
        (Some("--http"), Some(address)) => Some(address),
        _ => return Err("usage: observed [--http HOST:PORT]".into()),
    };
    let otlp = std::env::var_os("OTEL_EXPORTER_OTLP_ENDPOINT").is_some();
    let resource = Resource::builder()
        .with_service_name(std::env::var("OTEL_SERVICE_NAME").unwrap_or_else(|_| "library".into()))
        .build();

    let traces = if otlp {
        let exporter = opentelemetry_otlp::SpanExporter::builder()
            .with_http()
            .build()?;
        Some(
            SdkTracerProvider::builder()
                .with_batch_exporter(exporter)
                .with_resource(resource.clone())
                .build(),
        )
    } else {
        None
    };
    // a client's `traceparent` in `_meta` parents the server's spans
    opentelemetry::global::set_text_map_propagator(TraceContextPropagator::new());
    tracing_subscriber::registry()
        // spans as JSON lines on stderr: stdout is the stdio transport's
        .with(
            tracing_subscriber::fmt::layer()
                .json()
                .with_writer(std::io::stderr)
                .with_span_events(FmtSpan::CLOSE)
                .with_current_span(true)
                .with_span_list(false),
        )
        .with(
            traces.as_ref().map(|provider| {
                tracing_opentelemetry::layer().with_tracer(provider.tracer("presa"))
            }),
        )
        .init();

    let metrics = PrometheusMetrics::with_provider(|provider| {
        let provider = provider.with_resource(resource);
        if !otlp {
            return provider;
        }
        match opentelemetry_otlp::MetricExporter::builder()
            .with_http()
            .build()
        {
            Ok(exporter) => provider.with_reader(PeriodicReader::builder(exporter).build()),
            Err(error) => {
                tracing::warn!(%error, "metrics are not pushed over OTLP");
                provider
            }
        }
    })?;
    let meters = metrics.provider().clone();

    let served = serve(http, metrics).await;
    // push what the export threads still hold, both whatever either says
    let traced = traces.map_or(Ok(()), |traces| traces.shutdown());
    let measured = meters.shutdown();
    served?;
    traced?;
    measured?;
    Ok(())
}

async fn serve(http: Option<String>, metrics: PrometheusMetrics) -> Result<(), Error> {
    let server = definitions::library_with(|builder| builder.meter(metrics.meter()))?;
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
