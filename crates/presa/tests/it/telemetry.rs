//! The spans a server makes of the requests it serves, on every transport under both eras: named
//! and attributed as OpenTelemetry's semantic conventions for MCP say, errors marked, and a
//! handler's own events inside its request's span.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use presa::core::{ElicitRequestFormParams, ElicitResult, ElicitationSchema, Tool};
use presa::server::{Context, Server, ToolError, Transport};
use serde_json::{Value, json};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Subscriber};
use tracing_subscriber::layer::{Context as LayerContext, Layer, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;

use crate::harness::{ALICE, Harness, MODERN, everywhere};

/// A span as a subscriber saw it: its name and its fields (recorded as text).
#[derive(Clone, Debug, Default)]
struct SeenSpan {
    name: &'static str,
    fields: BTreeMap<String, String>,
}

impl SeenSpan {
    fn field(&self, name: &str) -> Option<&str> {
        self.fields.get(name).map(String::as_str)
    }
}

/// An event as a subscriber saw it: its message, and the span it happened in.
type SeenEvent = (String, Option<u64>);

/// What the subscriber saw: the spans by id, and the events.
#[derive(Clone, Default)]
struct Seen {
    spans: Arc<Mutex<HashMap<u64, SeenSpan>>>,
    events: Arc<Mutex<Vec<SeenEvent>>>,
}

struct Fields<'a>(&'a mut BTreeMap<String, String>);

impl Visit for Fields<'_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}"));
    }
}

impl<S: Subscriber + for<'a> LookupSpan<'a>> Layer<S> for Seen {
    fn on_new_span(&self, attributes: &Attributes<'_>, id: &Id, _cx: LayerContext<'_, S>) {
        let mut span = SeenSpan {
            name: attributes.metadata().name(),
            ..SeenSpan::default()
        };
        attributes.record(&mut Fields(&mut span.fields));
        self.spans.lock().unwrap().insert(id.into_u64(), span);
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, _cx: LayerContext<'_, S>) {
        if let Some(span) = self.spans.lock().unwrap().get_mut(&id.into_u64()) {
            values.record(&mut Fields(&mut span.fields));
        }
    }

    fn on_event(&self, event: &Event<'_>, cx: LayerContext<'_, S>) {
        let mut fields = BTreeMap::new();
        event.record(&mut Fields(&mut fields));
        let message = fields.remove("message").unwrap_or_default();
        let span = cx.event_span(event).map(|span| span.id().into_u64());
        self.events.lock().unwrap().push((message, span));
    }
}

impl Seen {
    /// Whether a server span of `method` began.
    fn has_method(&self, method: &str) -> bool {
        self.spans
            .lock()
            .unwrap()
            .values()
            .any(|span| span.name == "mcp.server" && span.field("mcp.method.name") == Some(method))
    }

    /// The server spans of `tools/call`, in the order they began.
    fn tool_calls(&self) -> Vec<(u64, SeenSpan)> {
        let mut calls: Vec<(u64, SeenSpan)> = self
            .spans
            .lock()
            .unwrap()
            .iter()
            .filter(|(_, span)| {
                span.name == "mcp.server" && span.field("mcp.method.name") == Some("tools/call")
            })
            .map(|(id, span)| (*id, span.clone()))
            .collect();
        calls.sort_by_key(|(_, span)| span.field("jsonrpc.request.id").map(str::to_owned));
        calls
    }
}

fn server() -> Server {
    Server::builder("observed", "1.0.0")
        .tool_sync(Tool::without_params("echo"), |_: Value, _: Context| {
            tracing::info!("inside echo");
            "echo"
        })
        .tool(
            Tool::without_params("wait"),
            |_: Value, cx: Context| async move {
                cx.cancelled().await;
                Ok::<_, ToolError>("cancelled")
            },
        )
        .tool(Tool::without_params("fail"), |_: Value, _: Context| async {
            Err::<String, _>(ToolError::new("the tool failed"))
        })
        .tool(
            Tool::without_params("confirm"),
            |_: Value, cx: Context| async move {
                let form = ElicitRequestFormParams::new("Sure?", ElicitationSchema::new());
                cx.elicit(form.into()).await?;
                Ok::<_, ToolError>("confirmed")
            },
        )
        .build()
        .unwrap()
}

#[tokio::test]
async fn each_request_has_a_server_span_named_and_attributed_by_the_conventions() {
    everywhere(|transport, version| async move {
        let seen = Seen::default();
        let subscriber = tracing_subscriber::registry().with(seen.clone());
        let _guard = tracing::subscriber::set_default(subscriber);
        let case = format!("{transport:?} {version}");

        let mut harness = Harness::start(transport, version, server()).await;
        let alice = harness.connect(ALICE).await;
        alice.call_tool("echo", json!({})).await.unwrap();
        let failed = alice.call_tool("fail", json!({})).await.unwrap();
        assert_eq!(failed.is_error, Some(true));
        alice.call_tool("nope", json!({})).await.unwrap_err();
        // a call given up on: the client's notifications/cancelled has a span when it arrives
        let waited = alice
            .call_tool("wait", json!({}))
            .timeout(Duration::from_millis(50))
            .await;
        assert!(waited.is_err(), "{case}");
        // (on 2026-07-28 over HTTP the client closes the request's stream instead)
        if !(transport == Transport::Http && version == MODERN) {
            let cancelled = tokio::time::timeout(Duration::from_secs(10), async {
                while !seen.has_method("notifications/cancelled") {
                    tokio::task::yield_now().await;
                }
            });
            assert!(
                cancelled.await.is_ok(),
                "{case}: no span of the cancellation"
            );
        }
        harness.stop().await;

        let calls = seen.tool_calls();
        let names: Vec<Option<&str>> = calls.iter().map(|(_, s)| s.field("otel.name")).collect();
        assert_eq!(
            names,
            [
                Some("tools/call echo"),
                Some("tools/call fail"),
                Some("tools/call nope"),
                Some("tools/call wait")
            ],
            "{case}"
        );
        for (_, span) in &calls {
            assert_eq!(span.field("otel.kind"), Some("server"), "{case}");
            assert_eq!(span.field("gen_ai.operation.name"), Some("execute_tool"));
            assert_eq!(span.field("mcp.protocol.version"), Some(version.as_str()));
            assert!(span.field("jsonrpc.request.id").is_some(), "{case}");
            let transport_name = match transport {
                Transport::Stdio => Some("pipe"),
                Transport::Http => Some("tcp"),
                _ => None,
            };
            assert_eq!(span.field("network.transport"), transport_name, "{case}");
            let http = (transport == Transport::Http).then_some("http");
            assert_eq!(span.field("network.protocol.name"), http, "{case}");
            // no session id on 2026-07-28, which has no sessions; an HTTP session's id before
            let session = span.field("mcp.session.id");
            if version == MODERN {
                assert_eq!(session, None, "{case}");
            } else if transport == Transport::Http {
                assert!(session.is_some_and(|id| !id.is_empty()), "{case}");
            }
        }
        let [(echo_id, echo), (_, fail), (_, nope), _] = &calls[..] else {
            panic!("{case}: {calls:?}")
        };
        assert_eq!(echo.field("gen_ai.tool.name"), Some("echo"));
        assert_eq!(echo.field("error.type"), None, "{case}");
        // the tool's error result, and the unknown tool's JSON-RPC error
        assert_eq!(fail.field("error.type"), Some("tool_error"), "{case}");
        assert_eq!(fail.field("rpc.response.status_code"), None, "{case}");
        assert_eq!(nope.field("error.type"), Some("-32602"), "{case}");
        assert_eq!(nope.field("rpc.response.status_code"), Some("-32602"));
        assert_eq!(nope.field("otel.status_code"), Some("error"));
        // what the session answers by itself has spans too: 2026-07-28's discovery
        if version == MODERN {
            let spans = seen.spans.lock().unwrap();
            let discover = spans
                .values()
                .find(|span| {
                    span.name == "mcp.server"
                        && span.field("mcp.method.name") == Some("server/discover")
                })
                .unwrap_or_else(|| panic!("{case}: no server/discover span"));
            assert!(
                discover.field("jsonrpc.request.id").is_some(),
                "{case}: {discover:?}"
            );
            assert_eq!(discover.field("otel.name"), Some("server/discover"));
            assert_eq!(
                discover.field("mcp.protocol.version"),
                Some(MODERN.as_str())
            );
        }
        // and the handshake of the initialize era
        if version != MODERN {
            let spans = seen.spans.lock().unwrap();
            let by_method = |method: &str| {
                spans
                    .values()
                    .find(|span| span.field("mcp.method.name") == Some(method))
                    .cloned()
            };
            let initialize = by_method("initialize").unwrap_or_else(|| panic!("{case}"));
            assert!(initialize.field("jsonrpc.request.id").is_some(), "{case}");
            let initialized =
                by_method("notifications/initialized").unwrap_or_else(|| panic!("{case}"));
            assert_eq!(initialized.field("jsonrpc.request.id"), None, "{case}");
            assert_eq!(
                initialized.field("otel.name"),
                Some("notifications/initialized")
            );
        }
        // the handler's own event is inside its request's span
        let events = seen.events.lock().unwrap();
        let inside = events.iter().find(|(message, _)| message == "inside echo");
        assert_eq!(
            inside.map(|(_, span)| *span),
            Some(Some(*echo_id)),
            "{case}"
        );
    })
    .await;
}

#[tokio::test]
async fn each_request_has_a_client_span_with_its_id_revision_and_transport() {
    everywhere(|transport, version| async move {
        let seen = Seen::default();
        let subscriber = tracing_subscriber::registry().with(seen.clone());
        let _guard = tracing::subscriber::set_default(subscriber);
        let case = format!("{transport:?} {version}");

        let mut harness = Harness::start(transport, version, server()).await;
        let alice = harness.connect(ALICE).await;
        alice.call_tool("echo", json!({})).await.unwrap();
        // 2026-07-28's long-lived request: its client span lasts as long as the subscription
        let listening = version == MODERN;
        if listening {
            let options = presa::client::SubscriptionOptions::new().tools_list_changed(true);
            drop(alice.subscribe(options).await.unwrap());
        }
        harness.stop().await;

        let spans = seen.spans.lock().unwrap();
        if listening {
            let listen = |name: &str| {
                spans
                    .values()
                    .find(|span| {
                        span.name == name
                            && span.field("mcp.method.name") == Some("subscriptions/listen")
                    })
                    .cloned()
                    .unwrap_or_else(|| panic!("{case}: no {name} span of the listen"))
            };
            let (client, server) = (listen("mcp.client"), listen("mcp.server"));
            assert!(client.field("jsonrpc.request.id").is_some(), "{case}");
            assert_eq!(
                client.field("jsonrpc.request.id"),
                server.field("jsonrpc.request.id"),
                "{case}"
            );
        }
        let call = |name: &str| {
            spans
                .values()
                .find(|span| {
                    span.name == name && span.field("otel.name") == Some("tools/call echo")
                })
                .cloned()
                .unwrap_or_else(|| panic!("{case}: no {name} span"))
        };
        let (client, server) = (call("mcp.client"), call("mcp.server"));
        // the id the client sent is the one the server served
        assert!(client.field("jsonrpc.request.id").is_some(), "{case}");
        assert_eq!(
            client.field("jsonrpc.request.id"),
            server.field("jsonrpc.request.id"),
            "{case}"
        );
        assert_eq!(client.field("mcp.protocol.version"), Some(version.as_str()));
        for field in ["network.transport", "network.protocol.name"] {
            assert_eq!(client.field(field), server.field(field), "{case}: {field}");
        }
    })
    .await;
}

#[cfg(feature = "otel")]
#[tokio::test]
async fn a_server_span_is_the_child_of_the_span_its_client_sent_in_meta() {
    use opentelemetry::trace::{SpanId, SpanKind, TraceId};

    let trace = "4bf92f3577b34da6a3ce929d0e0e4736";
    let client_span = "00f067aa0ba902b7";
    everywhere(|transport, version| async move {
        let (exporter, _guard) = exported_spans();
        let case = format!("{transport:?} {version}");

        let mut harness = Harness::start(transport, version, server()).await;
        let alice = harness.connect(ALICE).await;
        let traceparent = format!("00-{trace}-{client_span}-01");
        let params =
            json!({"name": "echo", "arguments": {}, "_meta": {"traceparent": traceparent}});
        alice.request_raw("tools/call", params).await.unwrap();
        harness.stop().await;

        let spans = finished_spans(&exporter, &[("tools/call echo", None)]).await;
        let call = spans
            .iter()
            .find(|span| span.name == "tools/call echo")
            .unwrap_or_else(|| {
                panic!(
                    "{case}: {:?}",
                    spans.iter().map(|s| &s.name).collect::<Vec<_>>()
                )
            });
        assert_eq!(call.span_kind, SpanKind::Server, "{case}");
        assert_eq!(
            call.span_context.trace_id(),
            TraceId::from_hex(trace).unwrap(),
            "{case}"
        );
        assert_eq!(
            call.parent_span_id,
            SpanId::from_hex(client_span).unwrap(),
            "{case}"
        );
        let tool = call
            .attributes
            .iter()
            .find(|kv| kv.key.as_str() == "gen_ai.tool.name")
            .map(|kv| kv.value.to_string());
        assert_eq!(tool.as_deref(), Some("echo"), "{case}");
    })
    .await;
}

#[cfg(feature = "otel")]
#[tokio::test]
async fn a_client_span_sends_its_context_and_the_server_span_is_its_child() {
    use opentelemetry::trace::SpanKind;

    everywhere(|transport, version| async move {
        let (exporter, _guard) = exported_spans();
        let case = format!("{transport:?} {version}");

        let mut harness = Harness::start(transport, version, server()).await;
        let alice = harness.connect(ALICE).await;
        alice.call_tool("echo", json!({})).await.unwrap();
        alice.call_tool("nope", json!({})).await.unwrap_err();
        harness.stop().await;

        let spans = finished_spans(
            &exporter,
            &[
                ("tools/call echo", Some(SpanKind::Client)),
                ("tools/call echo", Some(SpanKind::Server)),
            ],
        )
        .await;
        let named = |name: &str, kind: SpanKind| {
            spans
                .iter()
                .find(|span| span.name == name && span.span_kind == kind)
                .unwrap_or_else(|| panic!("{case}: no {kind:?} span {name}"))
        };
        let client = named("tools/call echo", SpanKind::Client);
        let server = named("tools/call echo", SpanKind::Server);
        assert_eq!(
            server.span_context.trace_id(),
            client.span_context.trace_id(),
            "{case}: one trace"
        );
        assert_eq!(
            server.parent_span_id,
            client.span_context.span_id(),
            "{case}"
        );
        // the unknown tool's error, on both sides
        let attribute = |span: &opentelemetry_sdk::trace::SpanData, key: &str| {
            span.attributes
                .iter()
                .find(|kv| kv.key.as_str() == key)
                .map(|kv| kv.value.to_string())
        };
        for kind in [SpanKind::Client, SpanKind::Server] {
            let failed = named("tools/call nope", kind.clone());
            assert_eq!(
                attribute(failed, "error.type").as_deref(),
                Some("-32602"),
                "{case} {kind:?}"
            );
        }
    })
    .await;
}

#[cfg(feature = "otel")]
#[tokio::test]
async fn a_request_of_the_server_to_its_client_has_spans_on_both_sides() {
    use opentelemetry::trace::SpanKind;

    everywhere(|transport, version| async move {
        let (exporter, _guard) = exported_spans();
        let case = format!("{transport:?} {version}");

        let mut harness = Harness::start(transport, version, server()).await;
        let alice = harness
            .connect_with(ALICE, |options| {
                options.elicitation(|_params, _cx| async move {
                    Ok(ElicitResult::accept(Default::default()))
                })
            })
            .await;
        alice.call_tool("confirm", json!({})).await.unwrap();
        harness.stop().await;

        let mut wanted = vec![("elicitation/create", Some(SpanKind::Server))];
        if version != MODERN {
            wanted.push(("elicitation/create", Some(SpanKind::Client)));
        }
        let spans = finished_spans(&exporter, &wanted).await;
        let find = |name: &str, kind: SpanKind| {
            spans
                .iter()
                .find(|span| span.name == name && span.span_kind == kind)
        };
        // the client answers the server's question in a span of kind server, in both eras
        let answered = find("elicitation/create", SpanKind::Server)
            .unwrap_or_else(|| panic!("{case}: the client's span of the question"));
        if version == MODERN {
            // the question came in a result: no request of the server's, no span of it
            assert!(
                find("elicitation/create", SpanKind::Client).is_none(),
                "{case}"
            );
            return;
        }
        // initialize era: the server's request, a child of the call's span; the client's span
        // a child of the server's request, in the call's trace
        let call = find("tools/call confirm", SpanKind::Server).unwrap();
        let asked = find("elicitation/create", SpanKind::Client)
            .unwrap_or_else(|| panic!("{case}: the server's span of its question"));
        assert_eq!(asked.parent_span_id, call.span_context.span_id(), "{case}");
        assert_eq!(
            answered.parent_span_id,
            asked.span_context.span_id(),
            "{case}"
        );
        assert_eq!(
            answered.span_context.trace_id(),
            call.span_context.trace_id(),
            "{case}"
        );
    })
    .await;
}

#[cfg(feature = "otel")]
#[tokio::test]
async fn the_operation_duration_histogram_counts_every_request_by_tool_and_error() {
    use opentelemetry::metrics::MeterProvider as _;
    use opentelemetry_sdk::metrics::{InMemoryMetricExporter, PeriodicReader, SdkMeterProvider};

    everywhere(|transport, version| async move {
        let exporter = InMemoryMetricExporter::default();
        let provider = SdkMeterProvider::builder()
            .with_reader(PeriodicReader::builder(exporter.clone()).build())
            .build();
        let server = Server::builder("observed", "1.0.0")
            .meter(provider.meter("test"))
            .tool_sync(Tool::without_params("echo"), |_: Value, _: Context| "echo")
            .tool(Tool::without_params("fail"), |_: Value, _: Context| async {
                Err::<String, _>(ToolError::new("the tool failed"))
            })
            .build()
            .unwrap();
        let case = format!("{transport:?} {version}");
        let mut harness = Harness::start(transport, version, server).await;
        let client_meter = provider.meter("client");
        let alice = harness
            .connect_with(ALICE, |options| options.meter(client_meter))
            .await;
        for _ in 0..3 {
            alice.call_tool("echo", json!({})).await.unwrap();
        }
        alice.call_tool("fail", json!({})).await.unwrap();
        alice.call_tool("made-up", json!({})).await.unwrap_err();
        // a method no revision defines: counted, but not by its name
        alice.request_raw("made/up", json!({})).await.unwrap_err();
        harness.stop().await;
        // a server's session ends when it sees its client go, which a closed client does not
        // wait for: read until the server has recorded it (or the guard fails the test)
        let ended_sessions = u64::from(version != MODERN);
        let seen = loop {
            provider.force_flush().unwrap();
            let seen = Collected::from(&exporter);
            if seen
                .sessions
                .get("mcp.server.session.duration")
                .copied()
                .unwrap_or(0)
                == ended_sessions
            {
                break seen;
            }
            tokio::task::yield_now().await;
        };
        let (counts, in_flight) = (seen.counts, seen.in_flight);
        // one client session in both eras; server sessions only where there are sessions
        assert_eq!(
            seen.sessions.get("mcp.client.session.duration"),
            Some(&1),
            "{case}"
        );
        // (2026-07-28 has no sessions: the count was never touched)
        assert_eq!(seen.active.unwrap_or(0), 0, "{case}: no session left live");
        let some = |s: &str| Some(s.to_owned());
        let (server, client) = (
            "mcp.server.operation.duration".to_owned(),
            "mcp.client.operation.duration".to_owned(),
        );
        let expected = BTreeMap::from([
            ((client.clone(), some("echo"), None), 3),
            ((client.clone(), some("fail"), some("tool_error")), 1),
            // the client names what it called
            ((client, some("made-up"), some("-32602")), 1),
            ((server.clone(), some("echo"), None), 3),
            ((server.clone(), some("fail"), some("tool_error")), 1),
            // a tool the server does not have is not named: clients cannot grow the attributes
            ((server, None, some("-32602")), 1),
        ]);
        assert_eq!(counts, expected, "{case}");
        assert!(
            seen.methods.contains("_OTHER"),
            "{case}: {:?}",
            seen.methods
        );
        assert!(
            !seen.methods.contains("made/up"),
            "{case}: {:?}",
            seen.methods
        );
        assert_eq!(in_flight, Some(0), "{case}: nothing left in flight");
    })
    .await;
}

/// What an in-memory metric exporter holds, as the metrics test reads it.
#[cfg(feature = "otel")]
#[derive(Default)]
struct Collected {
    /// (instrument, tool, error.type) -> count, for `tools/call`.
    counts: BTreeMap<(String, Option<String>, Option<String>), u64>,
    /// Requests in flight.
    in_flight: Option<i64>,
    /// Session histogram -> count.
    sessions: BTreeMap<String, u64>,
    /// Live server sessions.
    active: Option<i64>,
    /// The methods the server's operation histogram names.
    methods: std::collections::BTreeSet<String>,
}

#[cfg(feature = "otel")]
impl From<&opentelemetry_sdk::metrics::InMemoryMetricExporter> for Collected {
    fn from(exporter: &opentelemetry_sdk::metrics::InMemoryMetricExporter) -> Self {
        use opentelemetry_sdk::metrics::data::{AggregatedMetrics, MetricData};

        // each export holds every instrument so far (cumulative): the last one wins
        let mut seen = Self::default();
        for resource in exporter.get_finished_metrics().unwrap() {
            for scope in resource.scope_metrics() {
                for metric in scope.metrics() {
                    match (metric.name(), metric.data()) {
                        (name, AggregatedMetrics::F64(MetricData::Histogram(histogram))) => {
                            assert_eq!(metric.unit(), "s", "{name}");
                            for point in histogram.data_points() {
                                let get = |key: &str| {
                                    point
                                        .attributes()
                                        .find(|kv| kv.key.as_str() == key)
                                        .map(|kv| kv.value.to_string())
                                };
                                // the buckets the conventions advise
                                let bounds: Vec<f64> = point.bounds().collect();
                                assert_eq!(bounds.first(), Some(&0.01), "{name}");
                                assert_eq!(bounds.last(), Some(&300.0), "{name}");
                                if name == "mcp.server.operation.duration"
                                    && let Some(method) = get("mcp.method.name")
                                {
                                    seen.methods.insert(method);
                                }
                                if name.ends_with(".session.duration") {
                                    seen.sessions.insert(name.to_owned(), point.count());
                                } else if get("mcp.method.name").as_deref() == Some("tools/call") {
                                    let key = (
                                        name.to_owned(),
                                        get("gen_ai.tool.name"),
                                        get("error.type"),
                                    );
                                    seen.counts.insert(key, point.count());
                                }
                            }
                        }
                        (
                            "mcp.server.requests.in_flight",
                            AggregatedMetrics::I64(MetricData::Sum(sum)),
                        ) => {
                            seen.in_flight = sum.data_points().map(|p| p.value()).next();
                        }
                        (
                            "mcp.server.sessions.active",
                            AggregatedMetrics::I64(MetricData::Sum(sum)),
                        ) => {
                            seen.active = sum.data_points().map(|p| p.value()).next();
                        }
                        _ => {}
                    }
                }
            }
        }
        seen
    }
}

#[tokio::test]
async fn the_work_of_a_task_has_a_span_of_its_own() {
    everywhere(|transport, version| async move {
        let seen = Seen::default();
        let subscriber = tracing_subscriber::registry().with(seen.clone());
        let _guard = tracing::subscriber::set_default(subscriber);
        let case = format!("{transport:?} {version}");
        let server = Server::builder("observed", "1.0.0")
            .tool(
                Tool::without_params("export").task_support(presa::core::TaskSupport::Optional),
                |_: Value, cx: Context| async move {
                    cx.run_as_task().await;
                    tracing::info!("exporting");
                    "exported"
                },
            )
            .build()
            .unwrap();
        let mut harness = Harness::start(transport, version, server).await;
        let alice = harness
            .connect_with(ALICE, |options| options.tasks(true))
            .await;
        alice.call_tool("export", json!({})).await.unwrap();
        harness.stop().await;

        // the handler's event after the call became a task is in the task's span, not the call's
        let events = seen.events.lock().unwrap();
        let (_, span) = events
            .iter()
            .find(|(message, _)| message == "exporting")
            .unwrap_or_else(|| panic!("{case}: no event"));
        let spans = seen.spans.lock().unwrap();
        let name = span.and_then(|id| spans.get(&id)).map(|span| span.name);
        assert_eq!(name, Some("mcp.task"), "{case}");
    })
    .await;
}

/// A request the session refuses before dispatching it still names its target, and is the
/// child of the context its client sent.
#[cfg(feature = "otel")]
#[tokio::test]
async fn a_refused_request_has_its_target_and_its_parent() {
    use opentelemetry::trace::{SpanId, TraceId};

    let (exporter, _guard) = exported_spans();
    let (trace, client_span) = ("4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7");
    let (tx, mut sent) = tokio::sync::mpsc::unbounded_channel();
    let connection =
        presa::server::DrivenConnection::new(server(), move |transmit: presa::core::Transmit| {
            let _ = tx.send(transmit.message.to_json());
        });
    // a revision the server does not speak: refused with -32022 before any tool is looked up
    let request = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
        "name": "echo", "arguments": {}, "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2099-01-01",
            "io.modelcontextprotocol/clientCapabilities": {},
            "traceparent": format!("00-{trace}-{client_span}-01")}}});
    let request = presa::core::decode_message(request.to_string().as_bytes()).unwrap();
    connection.handle(request, &presa::server::Arrival::new(Transport::Stdio));
    let answer: Value = serde_json::from_str(&sent.recv().await.unwrap()).unwrap();
    assert_eq!(answer["error"]["code"], -32022, "{answer}");

    let spans = exporter.get_finished_spans().unwrap();
    let refused = spans
        .iter()
        .find(|span| span.name == "tools/call echo")
        .unwrap_or_else(|| panic!("{:?}", spans.iter().map(|s| &s.name).collect::<Vec<_>>()));
    assert_eq!(
        refused.span_context.trace_id(),
        TraceId::from_hex(trace).unwrap()
    );
    assert_eq!(
        refused.parent_span_id,
        SpanId::from_hex(client_span).unwrap()
    );
    let attribute = |key: &str| {
        refused
            .attributes
            .iter()
            .find(|kv| kv.key.as_str() == key)
            .map(|kv| kv.value.to_string())
    };
    assert_eq!(attribute("gen_ai.tool.name").as_deref(), Some("echo"));
    assert_eq!(attribute("error.type").as_deref(), Some("-32022"));
}

/// The finished spans once every `wanted` one (by name, and kind when given) is among them, or
/// after 10 s whatever there is. A span ends when its last handle drops, and a request's span
/// may be held by a task of its connection that runs a moment after the call returned.
#[cfg(feature = "otel")]
async fn finished_spans(
    exporter: &opentelemetry_sdk::trace::InMemorySpanExporter,
    wanted: &[(&str, Option<opentelemetry::trace::SpanKind>)],
) -> Vec<opentelemetry_sdk::trace::SpanData> {
    let all_there = |spans: &[opentelemetry_sdk::trace::SpanData]| {
        wanted.iter().all(|(name, kind)| {
            spans
                .iter()
                .any(|s| s.name == *name && kind.as_ref().is_none_or(|k| s.span_kind == *k))
        })
    };
    let waiting = async {
        loop {
            let spans = exporter.get_finished_spans().unwrap();
            if all_there(&spans) {
                return spans;
            }
            // the tasks holding the last handles run meanwhile
            tokio::task::yield_now().await;
        }
    };
    match tokio::time::timeout(Duration::from_secs(10), waiting).await {
        Ok(spans) => spans,
        Err(_) => exporter.get_finished_spans().unwrap(),
    }
}

/// Spans exported in memory through `tracing-opentelemetry`, on this thread until the guard
/// drops, with W3C trace context as the propagator (what an application sets up once).
#[cfg(feature = "otel")]
fn exported_spans() -> (
    opentelemetry_sdk::trace::InMemorySpanExporter,
    tracing::subscriber::DefaultGuard,
) {
    use opentelemetry::trace::TracerProvider as _;

    opentelemetry::global::set_text_map_propagator(
        opentelemetry_sdk::propagation::TraceContextPropagator::new(),
    );
    let exporter = opentelemetry_sdk::trace::InMemorySpanExporter::default();
    let provider = opentelemetry_sdk::trace::SdkTracerProvider::builder()
        .with_simple_exporter(exporter.clone())
        .build();
    let layer = tracing_opentelemetry::layer().with_tracer(provider.tracer("test"));
    let guard = tracing::subscriber::set_default(tracing_subscriber::registry().with(layer));
    // other tests of this binary, on other threads, register the same callsites while no
    // subscriber of theirs wants them: the callsites' cached interest is worked out again
    // with this subscriber in place
    tracing::callsite::rebuild_interest_cache();
    (exporter, guard)
}
