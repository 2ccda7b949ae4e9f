//! The server's metrics (feature `otel`), named, bucketed and attributed as OpenTelemetry's
//! semantic conventions for MCP say: the histograms `mcp.server.operation.duration` of every
//! request served and `mcp.server.session.duration` of every initialize-era session, in seconds,
//! and the counts of requests in flight and of live sessions.

use std::sync::Arc;
use std::time::Instant;

use opentelemetry::KeyValue;
use std::sync::atomic::{AtomicI64, Ordering};

use opentelemetry::metrics::{AsyncInstrument, Histogram, Meter, ObservableUpDownCounter};
use presa_core::{ErrorObject, ProtocolVersion};

use crate::middleware::Served;
use crate::server::Server;
use crate::telemetry::Spanned;
use crate::transport::{Arrival, Transport};

/// The bucket boundaries the conventions advise for every MCP duration, in seconds.
pub(crate) const DURATION_BOUNDARIES: [f64; 14] = [
    0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0,
];

/// A server's instruments, made once from the meter it was given.
#[derive(Debug)]
pub(crate) struct ServerMetrics {
    operation: Histogram<f64>,
    /// Requests in flight, read by the observable counter when the metrics are collected (an
    /// atomic per request costs far less than a synchronous instrument's two measures).
    in_flight: Arc<AtomicI64>,
    _in_flight: ObservableUpDownCounter<i64>,
    session: Histogram<f64>,
    /// Live sessions, read the same way.
    sessions: Arc<AtomicI64>,
    _sessions: ObservableUpDownCounter<i64>,
}

impl ServerMetrics {
    pub(crate) fn new(meter: &Meter) -> Self {
        let in_flight = Arc::new(AtomicI64::new(0));
        let sessions = Arc::new(AtomicI64::new(0));
        let count = |count: &Arc<AtomicI64>| {
            let count = Arc::clone(count);
            move |observer: &dyn AsyncInstrument<i64>| {
                observer.observe(count.load(Ordering::Relaxed), &[]);
            }
        };
        Self {
            operation: meter
                .f64_histogram("mcp.server.operation.duration")
                .with_unit("s")
                .with_description(
                    "MCP request or notification duration as observed on the receiver from the \
                     time it was received until the result or ack is sent",
                )
                .with_boundaries(DURATION_BOUNDARIES.to_vec())
                .build(),
            _in_flight: meter
                .i64_observable_up_down_counter("mcp.server.requests.in_flight")
                .with_unit("{request}")
                .with_description("MCP requests a server is serving now")
                .with_callback(count(&in_flight))
                .build(),
            in_flight,
            session: meter
                .f64_histogram("mcp.server.session.duration")
                .with_unit("s")
                .with_description("The duration of the MCP session as observed on the MCP server")
                .with_boundaries(DURATION_BOUNDARIES.to_vec())
                .build(),
            _sessions: meter
                .i64_observable_up_down_counter("mcp.server.sessions.active")
                .with_unit("{session}")
                .with_description("Initialize-era MCP sessions a server holds now")
                .with_callback(count(&sessions))
                .build(),
            sessions,
        }
    }
}

/// One request being measured: counted in flight until it ends (or is dropped, cancelled), its
/// duration recorded when it ends.
pub(crate) struct Operation {
    metrics: Arc<ServerMetrics>,
    started: Instant,
    attributes: Vec<KeyValue>,
    ended: bool,
}

impl Operation {
    /// Starts measuring `request`, served by `server`.
    pub(crate) fn start(server: &Server, request: &Spanned<'_>) -> Self {
        let metrics = &server.inner.metrics;
        let mut attributes = Vec::with_capacity(8);
        // a method no revision defines is `_OTHER`: a client cannot grow the attribute sets
        attributes.push(KeyValue::new(
            "mcp.method.name",
            presa_core::method_attribute(request.method),
        ));
        if let Some(version) = request.version {
            attributes.push(KeyValue::new("mcp.protocol.version", version.as_str()));
        }
        if request.method == "tools/call" {
            attributes.push(KeyValue::new("gen_ai.operation.name", "execute_tool"));
        }
        transport_attributes(&mut attributes, request.arrival.transport());
        metrics.in_flight.fetch_add(1, Ordering::Relaxed);
        Self {
            metrics: Arc::clone(metrics),
            started: Instant::now(),
            attributes,
            ended: false,
        }
    }

    /// Records the request's end: its duration, with the tool or prompt that served it (only
    /// one the server has, as the dispatcher found it: names a client makes up must not grow
    /// the metrics' attribute sets) and the error it failed with.
    pub(crate) fn end(
        mut self,
        error: Option<&ErrorObject>,
        tool_error: bool,
        served: Option<&Served>,
    ) {
        if let Some(served) = served {
            self.attributes.push(served.name_attribute().clone());
        }
        match error {
            Some(error) => {
                let code = error.code.code().to_string();
                self.attributes
                    .push(KeyValue::new("error.type", code.clone()));
                self.attributes
                    .push(KeyValue::new("rpc.response.status_code", code));
            }
            None if tool_error => {
                self.attributes
                    .push(KeyValue::new("error.type", "tool_error"));
            }
            None => {}
        }
        self.record();
    }

    /// Records the end of what has no answer to tell of (a notification taken in).
    pub(crate) fn done(mut self) {
        self.record();
    }

    fn record(&mut self) {
        self.ended = true;
        let seconds = self.started.elapsed().as_secs_f64();
        self.metrics.operation.record(seconds, &self.attributes);
        self.metrics.in_flight.fetch_sub(1, Ordering::Relaxed);
    }
}

impl Drop for Operation {
    /// A request dropped before its end was cancelled (or its connection went away), unless
    /// its handling panicked (answered `-32603`), or it is a `subscriptions/listen`, which ends
    /// by design when its connection does.
    fn drop(&mut self) {
        if self.ended {
            return;
        }
        let listen = self
            .attributes
            .first()
            .is_some_and(|kv| kv.value.as_str() == "subscriptions/listen");
        if std::thread::panicking() {
            self.attributes.push(KeyValue::new("error.type", "-32603"));
        } else if !listen {
            self.attributes
                .push(KeyValue::new("error.type", "cancelled"));
        }
        self.record();
    }
}

/// One initialize-era session being measured, while a connection of this server holds it: live
/// until dropped, when its duration is recorded.
pub(crate) struct Session {
    metrics: Arc<ServerMetrics>,
    started: Instant,
    attributes: Vec<KeyValue>,
}

impl Session {
    /// Starts measuring a session of `version` that arrived as `arrival` tells.
    pub(crate) fn start(server: &Server, version: ProtocolVersion, arrival: &Arrival) -> Self {
        let metrics = Arc::clone(&server.inner.metrics);
        let mut attributes = vec![KeyValue::new("mcp.protocol.version", version.as_str())];
        transport_attributes(&mut attributes, arrival.transport());
        metrics.sessions.fetch_add(1, Ordering::Relaxed);
        Self {
            metrics,
            started: Instant::now(),
            attributes,
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let seconds = self.started.elapsed().as_secs_f64();
        self.metrics.session.record(seconds, &self.attributes);
        self.metrics.sessions.fetch_sub(1, Ordering::Relaxed);
    }
}

/// The conventions' `network.*` attributes of a transport.
fn transport_attributes(attributes: &mut Vec<KeyValue>, transport: Transport) {
    match transport {
        Transport::Stdio => attributes.push(KeyValue::new("network.transport", "pipe")),
        Transport::Http => {
            attributes.push(KeyValue::new("network.transport", "tcp"));
            attributes.push(KeyValue::new("network.protocol.name", "http"));
        }
        _ => {}
    }
}
