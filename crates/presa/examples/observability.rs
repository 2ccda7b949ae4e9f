//! Observability: every request a server serves is a `tracing` span named and attributed after
//! OpenTelemetry's conventions for MCP. Any subscriber sees them; this one prints the server's
//! spans as they close (`tracing-opentelemetry` would export them to a collector instead).
//!
//! ```sh
//! cargo run -p presa --example observability
//! ```
//!
//! Prints:
//!
//! ```text
//! span otel.name="server/discover"
//! span otel.name="tools/call divide"
//! span otel.name="tools/call divide" error.type="tool_error"
//! ```

use presa::client::{Client, ClientOptions};
use presa::prelude::*;
use serde::Deserialize;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing_subscriber::Layer;
use tracing_subscriber::layer::{Context as Layers, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;

/// The fields of a server span this example prints, as text.
#[derive(Default)]
struct Fields(String);

impl Visit for Fields {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if matches!(field.name(), "otel.name" | "error.type") {
            self.0 += &format!(" {}={value:?}", field.name());
        }
    }
}

/// Prints each span of the server (target `presa::server`) when it closes.
struct PrintServerSpans;

impl<S: tracing::Subscriber + for<'a> LookupSpan<'a>> Layer<S> for PrintServerSpans {
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, cx: Layers<'_, S>) {
        let server = attrs.metadata().target() == "presa::server";
        let Some(span) = cx.span(id).filter(|_| server) else {
            return;
        };
        let mut fields = Fields::default();
        attrs.record(&mut fields);
        span.extensions_mut().insert(fields);
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, cx: Layers<'_, S>) {
        let Some(span) = cx.span(id) else { return };
        if let Some(fields) = span.extensions_mut().get_mut::<Fields>() {
            values.record(fields);
        }
    }

    fn on_close(&self, id: Id, cx: Layers<'_, S>) {
        let Some(span) = cx.span(&id) else { return };
        if let Some(fields) = span.extensions().get::<Fields>() {
            println!("span{}", fields.0);
        }
    }
}

/// Divide one number by another.
#[derive(Deserialize, JsonSchema)]
struct Divide {
    a: f64,
    b: f64,
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    tracing::subscriber::set_global_default(tracing_subscriber::registry().with(PrintServerSpans))?;
    let server = Server::builder("calculator", "1.0.0")
        .typed_tool("divide", |Args(d): Args<Divide>, _cx: Context| async move {
            let quotient = (d.b != 0.0).then(|| (d.a / d.b).to_string());
            quotient.ok_or_else(|| ToolError::new("cannot divide by zero"))
        })
        .build()?;
    let client = Client::connect(presa::in_process(server), ClientOptions::default()).await?;
    for divisor in [2, 0] {
        let arguments = serde_json::json!({"a": 1, "b": divisor});
        client.call_tool("divide", arguments).await?;
    }
    client.close().await;
    Ok(())
}
