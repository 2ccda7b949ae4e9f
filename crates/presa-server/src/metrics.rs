//! The server's metrics (feature `otel`), named, bucketed and attributed as OpenTelemetry's
//! semantic conventions for MCP say: the histograms `mcp.server.operation.duration` of every
//! request served and `mcp.server.session.duration` of every initialize-era session, in seconds,
//! and the counts of requests in flight and of live sessions.

use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, PoisonError, RwLock, RwLockReadGuard};
use std::time::Instant;

use fnv::FnvBuildHasher;
use opentelemetry::KeyValue;
use opentelemetry::metrics::{
    AsyncInstrument, BoundHistogram, Histogram, Meter, ObservableUpDownCounter,
};
use presa_core::{ErrorObject, ProtocolVersion};

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
    /// `operation` bound to the attribute sets of requests no tool or prompt served (those
    /// that one did are bound in its [`Named`]).
    unnamed: BoundSets,
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
            unnamed: BoundSets::default(),
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
    /// `mcp.method.name`: a method no revision defines is `_OTHER`, so that a client cannot
    /// grow the attribute sets.
    method: &'static str,
    version: Option<ProtocolVersion>,
    transport: Transport,
    ended: bool,
}

impl Operation {
    /// Starts measuring `request` in the server's `metrics`.
    pub(crate) fn start(metrics: &Arc<ServerMetrics>, request: &Spanned<'_>) -> Self {
        metrics.in_flight.fetch_add(1, Ordering::Relaxed);
        Self {
            metrics: Arc::clone(metrics),
            started: Instant::now(),
            method: presa_core::method_attribute(request.method),
            version: request.version,
            transport: request.arrival.transport(),
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
        named: Option<&Named>,
    ) {
        let outcome = match error {
            Some(error) => Outcome::Failed(error.code.code()),
            None if tool_error => Outcome::ToolError,
            None => Outcome::Succeeded,
        };
        self.record(outcome, named);
    }

    /// Records the end of what has no answer to tell of (a notification taken in).
    pub(crate) fn done(mut self) {
        self.record(Outcome::Succeeded, None);
    }

    fn record(&mut self, outcome: Outcome, named: Option<&Named>) {
        self.ended = true;
        let seconds = self.started.elapsed().as_secs_f64();
        let shape = Shape {
            method: self.method,
            version: self.version,
            transport: self.transport,
            outcome,
        };
        let metrics = &self.metrics;
        match named {
            Some(named) => {
                named
                    .bound
                    .record(&metrics.operation, shape, Some(&named.attribute), seconds)
            }
            None => metrics
                .unnamed
                .record(&metrics.operation, shape, None, seconds),
        }
        metrics.in_flight.fetch_sub(1, Ordering::Relaxed);
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
        let outcome = if std::thread::panicking() {
            Outcome::Panicked
        } else if self.method == "subscriptions/listen" {
            Outcome::Succeeded
        } else {
            Outcome::Cancelled
        };
        self.record(outcome, None);
    }
}

/// How a request ended, as its `error.type` (and `rpc.response.status_code`) tell.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Outcome {
    Succeeded,
    /// A tool's result with `isError`.
    ToolError,
    /// A JSON-RPC error of this code.
    Failed(i32),
    /// Dropped before its end: cancelled, or its connection went away.
    Cancelled,
    /// Dropped by a panic on its way (answered `-32603` by the runner).
    Panicked,
}

/// What a measure's attributes are made of, but for the tool or prompt name: cheap to hash and
/// compare, where the attributes themselves cost the SDK a SipHash of every key and value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Shape {
    method: &'static str,
    version: Option<ProtocolVersion>,
    transport: Transport,
    outcome: Outcome,
}

impl Shape {
    /// The conventions' attributes of a measure of this shape, naming `name` when given.
    fn attributes(&self, name: Option<&KeyValue>) -> Vec<KeyValue> {
        let mut attributes = Vec::with_capacity(8);
        attributes.push(KeyValue::new("mcp.method.name", self.method));
        if let Some(version) = self.version {
            attributes.push(KeyValue::new("mcp.protocol.version", version.as_str()));
        }
        if self.method == "tools/call" {
            attributes.push(KeyValue::new("gen_ai.operation.name", "execute_tool"));
        }
        transport_attributes(&mut attributes, self.transport);
        attributes.extend(name.cloned());
        match self.outcome {
            Outcome::Succeeded => {}
            Outcome::ToolError => attributes.push(KeyValue::new("error.type", "tool_error")),
            Outcome::Failed(code) => {
                let code = code.to_string();
                attributes.push(KeyValue::new("error.type", code.clone()));
                attributes.push(KeyValue::new("rpc.response.status_code", code));
            }
            Outcome::Cancelled => attributes.push(KeyValue::new("error.type", "cancelled")),
            Outcome::Panicked => attributes.push(KeyValue::new("error.type", "-32603")),
        }
        attributes
    }
}

/// The histogram bound to each attribute set it has measured, by shape: a measure finds its
/// tracker with one small hash instead of the SDK's lookup of the whole attribute set.
#[derive(Debug, Default)]
pub(crate) struct BoundSets(RwLock<HashMap<Shape, BoundHistogram<f64>, FnvBuildHasher>>);

/// The most attribute sets one [`BoundSets`] binds; any more are recorded unbound (the SDK
/// folds sets beyond its cardinality limit into an overflow set in either case).
const MAX_BOUND_SETS: usize = 256;

impl BoundSets {
    fn record(
        &self,
        histogram: &Histogram<f64>,
        shape: Shape,
        name: Option<&KeyValue>,
        seconds: f64,
    ) {
        if let Some(bound) = self.read().get(&shape) {
            bound.record(seconds);
            return;
        }
        let attributes = shape.attributes(name);
        let mut sets = self.0.write().unwrap_or_else(PoisonError::into_inner);
        if sets.len() >= MAX_BOUND_SETS && !sets.contains_key(&shape) {
            drop(sets);
            histogram.record(seconds, &attributes);
            return;
        }
        sets.entry(shape)
            .or_insert_with(|| histogram.bind(&attributes))
            .record(seconds);
    }

    fn read(&self) -> RwLockReadGuard<'_, HashMap<Shape, BoundHistogram<f64>, FnvBuildHasher>> {
        self.0.read().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A tool's or prompt's metric attribute (`gen_ai.tool.name`, `gen_ai.prompt.name`), made once
/// with its name shared, and the measures of its requests, bound.
#[derive(Debug)]
pub(crate) struct Named {
    attribute: KeyValue,
    bound: BoundSets,
}

impl Named {
    pub(crate) fn new(target: presa_core::SpanTarget, name: &str) -> Self {
        Self {
            attribute: KeyValue::new(target.attribute(), Arc::<str>::from(name)),
            bound: BoundSets::default(),
        }
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
    pub(crate) fn start(
        metrics: &Arc<ServerMetrics>,
        version: ProtocolVersion,
        arrival: &Arrival,
    ) -> Self {
        let metrics = Arc::clone(metrics);
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::collections::BTreeMap;

    use opentelemetry::metrics::MeterProvider as _;
    use opentelemetry_sdk::metrics::data::{AggregatedMetrics, MetricData};
    use opentelemetry_sdk::metrics::{InMemoryMetricExporter, PeriodicReader, SdkMeterProvider};
    use presa_core::SpanTarget;

    use super::*;

    /// (attributes as `key=value` pairs, sorted) -> count, of the one histogram `exporter` has.
    fn counts(exporter: &InMemoryMetricExporter) -> BTreeMap<Vec<String>, u64> {
        let mut counts = BTreeMap::new();
        for resource in exporter.get_finished_metrics().unwrap() {
            for scope in resource.scope_metrics() {
                for metric in scope.metrics() {
                    let AggregatedMetrics::F64(MetricData::Histogram(histogram)) = metric.data()
                    else {
                        continue;
                    };
                    for point in histogram.data_points() {
                        let mut set: Vec<String> = point
                            .attributes()
                            .map(|kv| format!("{}={}", kv.key, kv.value))
                            .collect();
                        set.sort();
                        counts.insert(set, point.count());
                    }
                }
            }
        }
        counts
    }

    fn shape(outcome: Outcome) -> Shape {
        Shape {
            method: "tools/call",
            version: Some(ProtocolVersion::V2025_06_18),
            transport: Transport::Http,
            outcome,
        }
    }

    #[test]
    fn every_set_is_counted_with_its_attributes_bound_or_beyond_the_bound_ones() {
        let exporter = InMemoryMetricExporter::default();
        let provider = SdkMeterProvider::builder()
            .with_reader(PeriodicReader::builder(exporter.clone()).build())
            .build();
        let histogram = provider.meter("test").f64_histogram("h").build();
        let named = Named::new(SpanTarget::Tool, "echo");
        // more error codes than sets are bound, each measured twice
        let sets = MAX_BOUND_SETS + 10;
        for code in 0..i32::try_from(sets).unwrap() {
            for _ in 0..2 {
                let failed = shape(Outcome::Failed(-code));
                named
                    .bound
                    .record(&histogram, failed, Some(&named.attribute), 0.5);
            }
        }
        named
            .bound
            .record(&histogram, shape(Outcome::Cancelled), None, 0.5);
        named
            .bound
            .record(&histogram, shape(Outcome::Panicked), None, 0.5);
        provider.force_flush().unwrap();

        let counts = counts(&exporter);
        assert_eq!(counts.len(), sets + 2);
        assert!(counts.values().all(|&count| count == 2 || count == 1));
        let base = [
            "gen_ai.operation.name=execute_tool",
            "mcp.method.name=tools/call",
            "mcp.protocol.version=2025-06-18",
            "network.protocol.name=http",
            "network.transport=tcp",
        ];
        let set = |extra: &[&str]| {
            let mut set: Vec<String> = base.iter().chain(extra).map(|s| s.to_string()).collect();
            set.sort();
            set
        };
        // the first set bound, and the last one (recorded unbound)
        for code in ["0", "-265"] {
            let failed = set(&[
                "gen_ai.tool.name=echo",
                &format!("error.type={code}"),
                &format!("rpc.response.status_code={code}"),
            ]);
            assert_eq!(counts.get(&failed), Some(&2), "{code}: {counts:#?}");
        }
        assert_eq!(counts.get(&set(&["error.type=cancelled"])), Some(&1));
        // a panic is told by its error type alone, as the runner's answer is not seen
        assert_eq!(counts.get(&set(&["error.type=-32603"])), Some(&1));
    }
}
