//! The spans of the requests a server serves, named and attributed as OpenTelemetry's semantic
//! conventions for MCP say, with `tracing`: one span per request, on every transport and in both
//! eras, that a handler's own spans and events nest in.
//!
//! The span is `tracing`'s `mcp.server` at level INFO (target `presa::server`); its OpenTelemetry
//! name is the field `otel.name` (`{mcp.method.name} {target}`, the target a tool's or prompt's
//! name), which `tracing-opentelemetry` takes as the span's name. Without a subscriber that wants
//! it nothing is computed: the attributes that take reading the params are filled only for a
//! span that is enabled.
//!
//! With the `otel` feature the span's parent is the trace context the client sent in the
//! request's `params._meta` (`traceparent`, `tracestate`, `baggage`, unprefixed as SEP-414
//! reserves them), read with the OpenTelemetry propagator the application installed globally
//! (`opentelemetry::global::set_text_map_propagator`): the client's span is the server span's
//! parent whatever the transport.

use presa_core::{Era, ErrorObject, Meta, ProtocolVersion, RequestId, SpanTarget};
use serde_json::value::RawValue;
use tracing::Span;
use tracing::field::Empty;

use crate::transport::{Arrival, Transport};

/// What a request's (or a notification's) span is made from: the message as its session read
/// it, and how it arrived.
pub(crate) struct Spanned<'a> {
    pub(crate) method: &'a str,
    /// A request's id; none for a notification.
    pub(crate) id: Option<&'a RequestId>,
    /// The revision it is served under, when known (not before `initialize` was answered).
    pub(crate) version: Option<ProtocolVersion>,
    pub(crate) params: Option<&'a RawValue>,
    /// The params' `_meta`, where the client's trace context travels.
    pub(crate) meta: Option<&'a Meta>,
    pub(crate) arrival: &'a Arrival,
}

/// The span of a request; a disabled span when no subscriber wants it.
pub(crate) fn request_span(request: &Spanned<'_>) -> Span {
    let Spanned {
        method,
        id,
        version,
        params,
        meta,
        arrival,
    } = *request;
    let span = tracing::info_span!(
        target: "presa::server",
        "mcp.server",
        otel.name = Empty,
        otel.kind = "server",
        otel.status_code = Empty,
        otel.status_message = Empty,
        mcp.method.name = method,
        jsonrpc.request.id = Empty,
        mcp.protocol.version = Empty,
        mcp.session.id = Empty,
        gen_ai.operation.name = Empty,
        gen_ai.tool.name = Empty,
        gen_ai.prompt.name = Empty,
        mcp.resource.uri = Empty,
        network.transport = Empty,
        network.protocol.name = Empty,
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
    if let Some(version) = version {
        span.record("mcp.protocol.version", version.as_str());
    }
    #[cfg(feature = "otel")]
    parent_on_meta(&span, meta);
    #[cfg(not(feature = "otel"))]
    let _ = meta;
    let target =
        SpanTarget::of(method).and_then(|target| Some((target, named_in(params, target.param())?)));
    match &target {
        Some((target, named)) if target.names_span() => {
            span.record("otel.name", format!("{method} {named}"));
        }
        _ => {
            span.record("otel.name", method);
        }
    }
    if let Some((target, named)) = &target {
        span.record(target.attribute(), named.as_str());
    }
    if method == "tools/call" {
        span.record("gen_ai.operation.name", "execute_tool");
    }
    // a session id only where sessions are: the 2026-07-28 conventions forbid one
    if version.is_some_and(|version| version.era() == Era::Initialize)
        && let Some(session) = arrival.session()
    {
        span.record("mcp.session.id", session);
    }
    match arrival.transport() {
        Transport::Stdio => {
            span.record("network.transport", "pipe");
        }
        Transport::Http => {
            span.record("network.transport", "tcp");
            span.record("network.protocol.name", "http");
        }
        _ => {}
    }
    span
}

/// Records how the request ended on its `span`: a JSON-RPC error's code (`error.type` and
/// `rpc.response.status_code`, the span's status an error with the message), or a tool's error
/// result (`error.type` `tool_error`).
pub(crate) fn record_end(span: &Span, error: Option<&ErrorObject>, tool_error: bool) {
    if span.is_disabled() {
        return;
    }
    match error {
        Some(error) => presa_core::record_span_error(span, error),
        None if tool_error => presa_core::record_span_failure(span, "tool_error", None),
        None => {}
    }
}

/// Parents `span` on the trace context in `meta`, when it holds one.
#[cfg(feature = "otel")]
fn parent_on_meta(span: &Span, meta: Option<&Meta>) {
    use tracing_opentelemetry::OpenTelemetrySpanExt;

    let Some(meta) = meta.filter(|meta| meta.contains_key(presa_core::META_TRACEPARENT)) else {
        return;
    };
    let parent = opentelemetry::global::get_text_map_propagator(|propagator| {
        propagator.extract(&presa_core::MetaExtractor(meta))
    });
    // a context nobody can use (no tracing-opentelemetry layer) is refused, and that is fine
    let _ = span.set_parent(parent);
}

/// The span of a request the server sends its client (an initialize-era elicitation, sampling
/// or roots request): `mcp.client`, the server being the one who asks.
pub(crate) fn outgoing_span(method: &str) -> Span {
    tracing::info_span!(
        target: "presa::server",
        "mcp.client",
        otel.name = method,
        otel.kind = "client",
        otel.status_code = Empty,
        otel.status_message = Empty,
        mcp.method.name = method,
        error.type = Empty,
        rpc.response.status_code = Empty,
    )
}

/// Writes `span`'s trace context into `params._meta` (with `otel`; otherwise nothing).
pub(crate) fn inject(span: &Span, params: &mut serde_json::Value) {
    #[cfg(feature = "otel")]
    {
        use tracing_opentelemetry::OpenTelemetrySpanExt;

        if span.is_disabled() {
            return;
        }
        let context = span.context();
        let mut written = Meta::new();
        opentelemetry::global::get_text_map_propagator(|propagator| {
            propagator.inject_context(&context, &mut presa_core::MetaInjector(&mut written));
        });
        if written.is_empty() {
            return;
        }
        if let serde_json::Value::Object(params) = params
            && let serde_json::Value::Object(meta) = params
                .entry("_meta")
                .or_insert_with(|| serde_json::Value::Object(Meta::new()))
        {
            meta.extend(written);
        }
    }
    #[cfg(not(feature = "otel"))]
    let _ = (span, params);
}

/// Records how a request the server sent ended on its `span`.
pub(crate) fn record_outgoing_end(
    span: &Span,
    answer: &Result<serde_json::Value, crate::InputError>,
) {
    if span.is_disabled() {
        return;
    }
    let Err(error) = answer else {
        return;
    };
    match error {
        crate::InputError::Rejected(error) => presa_core::record_span_error(span, error),
        other => presa_core::record_span_failure(span, "_OTHER", Some(&other.to_string())),
    }
}

/// The member `member` (`name`, `uri`) of a request's params, reading only the names.
fn named_in(params: Option<&RawValue>, member: &str) -> Option<String> {
    let names = crate::wire::ParamNames::read(params)?;
    match member {
        "name" => names.name,
        "uri" => names.uri,
        _ => None,
    }
}
