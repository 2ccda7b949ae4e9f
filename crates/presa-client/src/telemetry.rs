//! The spans of the requests a client sends, named and attributed as OpenTelemetry's semantic
//! conventions for MCP say, with `tracing`: `mcp.client` at level INFO (target
//! `presa::client`), its OpenTelemetry name the field `otel.name` (`{mcp.method.name} {target}`),
//! from the request's sending to its answer.
//!
//! With the `otel` feature the span's context goes with the request, in its `params._meta`
//! (`traceparent`, `tracestate`, `baggage`), written by the OpenTelemetry propagator the
//! application installed globally: the server's span of the request is then its child.

use presa_core::{ErrorObject, Meta, ProtocolVersion, RawJson, RequestId, SpanTarget};
use serde_json::{Map, Value};
use tracing::Span;
use tracing::field::Empty;

use crate::{ClientError, Network};

/// The span of the request `method` with `params`, about to be sent; with `otel`, its trace
/// context is written into the params' `_meta`. A disabled span when no subscriber wants it.
pub(crate) fn request_span(
    method: &str,
    params: &mut Option<Map<String, Value>>,
    network: Network,
) -> Span {
    let span = tracing::info_span!(
        target: "presa::client",
        "mcp.client",
        otel.name = Empty,
        otel.kind = "client",
        otel.status_code = Empty,
        otel.status_message = Empty,
        mcp.method.name = method,
        jsonrpc.request.id = Empty,
        mcp.protocol.version = Empty,
        network.transport = network.transport,
        network.protocol.name = network.protocol,
        gen_ai.operation.name = Empty,
        gen_ai.tool.name = Empty,
        gen_ai.prompt.name = Empty,
        mcp.resource.uri = Empty,
        error.type = Empty,
        rpc.response.status_code = Empty,
    );
    if span.is_disabled() {
        return span;
    }
    let target = SpanTarget::of(method).and_then(|target| {
        let named = params.as_ref()?.get(target.param())?.as_str()?;
        Some((target, named))
    });
    match target {
        Some((target, named)) if target.names_span() => {
            span.record("otel.name", format!("{method} {named}"));
        }
        _ => {
            span.record("otel.name", method);
        }
    }
    if let Some((target, named)) = target {
        span.record(target.attribute(), named);
    }
    if method == "tools/call" {
        span.record("gen_ai.operation.name", "execute_tool");
    }
    #[cfg(feature = "otel")]
    inject(&span, params);
    span
}

/// Records on a request's `span` what is known once it is sent: its `id`, and the revision
/// it went out under.
pub(crate) fn record_sent(span: &Span, id: &RequestId, version: Option<ProtocolVersion>) {
    if span.is_disabled() {
        return;
    }
    span.record(
        "jsonrpc.request.id",
        presa_core::request_id_attribute(id).as_str(),
    );
    if let Some(version) = version {
        span.record("mcp.protocol.version", version.as_str());
    }
}

/// Whether `outcome`, the answer to a request of `method`, is a tool's error result
/// (`isError: true`), read only for `tools/call`.
pub(crate) fn is_tool_error(method: &str, outcome: &Result<RawJson, ClientError>) -> bool {
    #[derive(serde::Deserialize)]
    struct Flag {
        #[serde(rename = "isError", default)]
        is_error: Option<bool>,
    }
    match outcome {
        Ok(raw) if method == "tools/call" => {
            serde_json::from_str::<Flag>(raw.get()).is_ok_and(|flag| flag.is_error == Some(true))
        }
        _ => false,
    }
}

/// Records how a request ended on its `span`: a JSON-RPC error's code, the failure, or a tool's
/// error result (`tool_error`, see [`is_tool_error`]).
pub(crate) fn record_end(span: &Span, outcome: &Result<RawJson, ClientError>, tool_error: bool) {
    if span.is_disabled() {
        return;
    }
    let Err(error) = outcome else {
        if tool_error {
            presa_core::record_span_failure(span, "tool_error", None);
        }
        return;
    };
    match error.as_server_error() {
        Some(error) => presa_core::record_span_error(span, error),
        None => presa_core::record_span_failure(span, "_OTHER", Some(&error.to_string())),
    }
}

/// The span of a request the server asks of this client (an elicitation, a sampling, the
/// roots): `mcp.server`, this client being the one who serves it; `id` and `meta` those of an
/// initialize-era request (a 2026-07-28 input request comes in a result, and has neither). With
/// `otel` its parent is the trace context the server sent in `meta`.
pub(crate) fn served_span(
    method: &str,
    id: Option<&RequestId>,
    version: ProtocolVersion,
    meta: Option<&Meta>,
) -> Span {
    let span = tracing::info_span!(
        target: "presa::client",
        "mcp.server",
        otel.name = method,
        otel.kind = "server",
        otel.status_code = Empty,
        otel.status_message = Empty,
        mcp.method.name = method,
        jsonrpc.request.id = Empty,
        mcp.protocol.version = version.as_str(),
        error.type = Empty,
        rpc.response.status_code = Empty,
    );
    if span.is_disabled() {
        return span;
    }
    if let Some(id) = id {
        span.record(
            "jsonrpc.request.id",
            presa_core::request_id_attribute(id).as_str(),
        );
    }
    #[cfg(feature = "otel")]
    if let Some(meta) = meta.filter(|meta| meta.contains_key(presa_core::META_TRACEPARENT)) {
        use tracing_opentelemetry::OpenTelemetrySpanExt;
        let parent = opentelemetry::global::get_text_map_propagator(|propagator| {
            propagator.extract(&presa_core::MetaExtractor(meta))
        });
        let _ = span.set_parent(parent);
    }
    #[cfg(not(feature = "otel"))]
    let _ = meta;
    span
}

/// Records how a request this client served ended on its `span`: refused with an error.
pub(crate) fn record_served_end<T>(span: &Span, outcome: &Result<T, ErrorObject>) {
    if span.is_disabled() {
        return;
    }
    if let Err(error) = outcome {
        presa_core::record_span_error(span, error);
    }
}

/// Writes `span`'s trace context into the params' `_meta`.
#[cfg(feature = "otel")]
fn inject(span: &Span, params: &mut Option<Map<String, Value>>) {
    use tracing_opentelemetry::OpenTelemetrySpanExt;

    // a trace context the caller put in `_meta` itself is the one sent
    let given = params
        .as_ref()
        .and_then(|params| params.get("_meta")?.get(presa_core::META_TRACEPARENT));
    if given.is_some() {
        return;
    }
    let context = span.context();
    let mut written = Map::new();
    opentelemetry::global::get_text_map_propagator(|propagator| {
        propagator.inject_context(&context, &mut presa_core::MetaInjector(&mut written));
    });
    // nothing to send (no propagator installed, no sampled context): the params stay as they are
    if written.is_empty() {
        return;
    }
    let params = params.get_or_insert_with(Map::new);
    let meta = params
        .entry("_meta")
        .or_insert_with(|| Value::Object(Map::new()));
    // a `_meta` that is not an object is the caller's mistake, sent as it is
    if let Value::Object(meta) = meta {
        meta.extend(written);
    }
}
