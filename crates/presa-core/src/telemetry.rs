//! What OpenTelemetry's semantic conventions for MCP name a request's span by, shared by the
//! server's and the client's spans; with the `otel` feature, a message's `_meta` as
//! OpenTelemetry's propagators read and write the trace context in it (SEP-414: `traceparent`,
//! `tracestate`, `baggage`, unprefixed).

#[cfg(feature = "otel")]
use crate::Meta;
use crate::RequestId;

/// What a request is about, as the conventions for MCP record it: the tool of `tools/call`, the
/// prompt of `prompts/get`, the resource of `resources/read`, `resources/subscribe` and
/// `resources/unsubscribe`.
///
/// ```
/// use presa_core::SpanTarget;
///
/// let target = SpanTarget::of("tools/call").unwrap();
/// assert_eq!((target.param(), target.attribute()), ("name", "gen_ai.tool.name"));
/// assert!(target.names_span());
/// assert!(!SpanTarget::of("resources/read").unwrap().names_span());
/// assert_eq!(SpanTarget::of("tools/list"), None);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpanTarget {
    /// A tool: `gen_ai.tool.name`.
    Tool,
    /// A prompt: `gen_ai.prompt.name`.
    Prompt,
    /// A resource: `mcp.resource.uri`.
    Resource,
}

impl SpanTarget {
    /// What requests of `method` are about, if anything.
    pub fn of(method: &str) -> Option<Self> {
        match method {
            "tools/call" => Some(Self::Tool),
            "prompts/get" => Some(Self::Prompt),
            "resources/read" | "resources/subscribe" | "resources/unsubscribe" => {
                Some(Self::Resource)
            }
            _ => None,
        }
    }

    /// The member of the params that names it (`name`, `uri`).
    pub fn param(self) -> &'static str {
        match self {
            Self::Tool | Self::Prompt => "name",
            Self::Resource => "uri",
        }
    }

    /// The span attribute that records it.
    pub fn attribute(self) -> &'static str {
        match self {
            Self::Tool => "gen_ai.tool.name",
            Self::Prompt => "gen_ai.prompt.name",
            Self::Resource => "mcp.resource.uri",
        }
    }

    /// Whether it names the span too (`{method} {target}`): a tool's or prompt's name does; a
    /// resource's URI, too varied to name spans by, does not.
    pub fn names_span(self) -> bool {
        !matches!(self, Self::Resource)
    }
}

/// The `mcp.method.name` a metric records for `method`: the method when a revision of MCP defines
/// it, else `_OTHER`, so that a peer cannot grow a metric's attribute sets with methods it makes
/// up.
///
/// ```
/// assert_eq!(presa_core::method_attribute("tools/call"), "tools/call");
/// assert_eq!(presa_core::method_attribute("notifications/initialized"), "notifications/initialized");
/// assert_eq!(presa_core::method_attribute("made/up"), "_OTHER");
/// ```
pub fn method_attribute(method: &str) -> &'static str {
    crate::defined_method(method).unwrap_or("_OTHER")
}

/// Marks a request's `span` failed with the JSON-RPC `error`, as the conventions say: its code
/// as `error.type` and `rpc.response.status_code`, its message as the span's status message
/// (`otel.status_code` `error`). The spans of presa's server and client are marked alike.
pub fn record_span_error(span: &tracing::Span, error: &crate::ErrorObject) {
    let code = error.code.code().to_string();
    span.record("rpc.response.status_code", code.as_str());
    record_span_failure(span, &code, Some(&error.message));
}

/// Marks a request's `span` failed with `error_type` (`tool_error` for a tool's error result,
/// `_OTHER` when no answer came), and `message` as its status message when there is one.
pub fn record_span_failure(span: &tracing::Span, error_type: &str, message: Option<&str>) {
    span.record("error.type", error_type);
    span.record("otel.status_code", "error");
    if let Some(message) = message {
        span.record("otel.status_message", message);
    }
}

/// The `error.type` and `rpc.response.status_code` a metric records for a JSON-RPC error `code`:
/// the code as text when JSON-RPC or MCP could have defined it (-32768 to -32000), else `_OTHER`,
/// so that a peer cannot grow a metric's attribute sets with codes it makes up.
///
/// ```
/// assert_eq!(presa_core::error_code_attribute(-32602), "-32602");
/// assert_eq!(presa_core::error_code_attribute(7), "_OTHER");
/// ```
pub fn error_code_attribute(code: i32) -> String {
    if (-32768..=-32000).contains(&code) {
        code.to_string()
    } else {
        "_OTHER".to_owned()
    }
}

/// A request id as a span records it (`jsonrpc.request.id`): a number's digits, a string as it
/// is (not quoted, as [`RequestId`]'s `Display` quotes it).
///
/// ```
/// use presa_core::{RequestId, request_id_attribute};
///
/// assert_eq!(request_id_attribute(&RequestId::from(7)), "7");
/// assert_eq!(request_id_attribute(&RequestId::from("req-7")), "req-7");
/// ```
pub fn request_id_attribute(id: &RequestId) -> String {
    match id {
        RequestId::Number(n) => n.to_string(),
        RequestId::String(s) => s.clone(),
    }
}

/// A message's `_meta` as an OpenTelemetry propagator reads it: its string members by key.
///
/// ```
/// use opentelemetry::propagation::Extractor;
/// use presa_core::{Meta, MetaExtractor};
///
/// let mut meta = Meta::new();
/// meta.insert("traceparent".into(), "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01".into());
/// assert!(MetaExtractor(&meta).get("traceparent").is_some());
/// ```
#[cfg(feature = "otel")]
#[derive(Debug)]
pub struct MetaExtractor<'a>(pub &'a Meta);

#[cfg(feature = "otel")]
impl opentelemetry::propagation::Extractor for MetaExtractor<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).and_then(serde_json::Value::as_str)
    }

    fn keys(&self) -> Vec<&str> {
        self.0.keys().map(String::as_str).collect()
    }
}

/// A message's `_meta` as an OpenTelemetry propagator writes the trace context into it.
///
/// ```
/// use opentelemetry::propagation::Injector;
/// use presa_core::{Meta, MetaInjector};
///
/// let mut meta = Meta::new();
/// MetaInjector(&mut meta).set("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01".into());
/// assert_eq!(meta.len(), 1);
/// ```
#[cfg(feature = "otel")]
#[derive(Debug)]
pub struct MetaInjector<'a>(pub &'a mut Meta);

#[cfg(feature = "otel")]
impl opentelemetry::propagation::Injector for MetaInjector<'_> {
    fn set(&mut self, key: &str, value: String) {
        self.0
            .insert(key.to_owned(), serde_json::Value::String(value));
    }
}
