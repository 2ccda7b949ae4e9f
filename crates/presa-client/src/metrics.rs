//! The client's metrics (feature `otel`), as OpenTelemetry's semantic conventions for MCP name
//! them: the histogram `mcp.client.operation.duration` of every request sent, in seconds.

use std::time::{Duration, Instant};

use opentelemetry::KeyValue;
use opentelemetry::metrics::{Histogram, Meter};
use presa_core::{ProtocolVersion, RawJson, SpanTarget};
use serde_json::{Map, Value};

use crate::ClientError;

/// The bucket boundaries the conventions advise for every MCP duration, in seconds.
const DURATION_BOUNDARIES: [f64; 14] = [
    0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0,
];

/// A client's instruments, made once from the meter it was given.
#[derive(Debug)]
pub(crate) struct ClientMetrics {
    operation: Histogram<f64>,
    session: Histogram<f64>,
}

impl ClientMetrics {
    pub(crate) fn new(meter: &Meter) -> Self {
        Self {
            operation: meter
                .f64_histogram("mcp.client.operation.duration")
                .with_unit("s")
                .with_description(
                    "The duration of the MCP request or notification as observed on the sender \
                     from the time it was sent until the response or ack is received",
                )
                .with_boundaries(DURATION_BOUNDARIES.to_vec())
                .build(),
            session: meter
                .f64_histogram("mcp.client.session.duration")
                .with_unit("s")
                .with_description("The duration of the MCP session as observed on the MCP client")
                .with_boundaries(DURATION_BOUNDARIES.to_vec())
                .build(),
        }
    }

    /// Records a session (a connection, from its start to its end) that lasted `lasted`, of
    /// the revision negotiated (none if it ended first).
    pub(crate) fn record_session(&self, lasted: Duration, version: Option<ProtocolVersion>) {
        let attributes: Vec<KeyValue> = version
            .map(|version| KeyValue::new("mcp.protocol.version", version.as_str()))
            .into_iter()
            .collect();
        self.session.record(lasted.as_secs_f64(), &attributes);
    }
}

/// One request being measured, from its sending to its answer.
pub(crate) struct Operation {
    started: Instant,
    attributes: Vec<KeyValue>,
}

impl Operation {
    /// Starts measuring the request `method` with `params`.
    pub(crate) fn start(method: &str, params: Option<&Map<String, Value>>) -> Self {
        let mut attributes = vec![KeyValue::new(
            "mcp.method.name",
            presa_core::method_attribute(method),
        )];
        if let Some(target) = SpanTarget::of(method).filter(|t| t.names_span())
            && let Some(named) = params
                .and_then(|p| p.get(target.param()))
                .and_then(Value::as_str)
        {
            attributes.push(KeyValue::new(target.attribute(), named.to_owned()));
        }
        if method == "tools/call" {
            attributes.push(KeyValue::new("gen_ai.operation.name", "execute_tool"));
        }
        Self {
            started: Instant::now(),
            attributes,
        }
    }

    /// Records the request's end on `metrics`: its duration, with the error it failed with.
    pub(crate) fn end(
        mut self,
        metrics: &ClientMetrics,
        outcome: &Result<RawJson, ClientError>,
        tool_error: bool,
    ) {
        if tool_error {
            self.attributes
                .push(KeyValue::new("error.type", "tool_error"));
        }
        if let Err(error) = outcome {
            match error.as_server_error() {
                Some(error) => {
                    // a code the server makes up is `_OTHER`: it cannot grow the attribute sets
                    let code = presa_core::error_code_attribute(error.code.code());
                    self.attributes
                        .push(KeyValue::new("error.type", code.clone()));
                    self.attributes
                        .push(KeyValue::new("rpc.response.status_code", code));
                }
                None => self.attributes.push(KeyValue::new("error.type", "_OTHER")),
            }
        }
        let seconds = self.started.elapsed().as_secs_f64();
        metrics.operation.record(seconds, &self.attributes);
    }
}
