//! A request as the server observes it: its span (telemetry.rs) and, with `otel`, its
//! measurement (metrics.rs), started when the request starts and ended with its answer.

use presa_core::{ErrorObject, ProtocolVersion, RawJson};
use serde_json::value::RawValue;
use tracing::Span;

use crate::middleware::Served;
use crate::server::Server;
use crate::telemetry::{Spanned, record_end, request_span};
use crate::transport::Arrival;

/// A request as it is observed: its span and, with `otel`, its measurement.
pub(crate) struct Observed {
    span: Span,
    #[cfg(feature = "otel")]
    operation: crate::metrics::Operation,
}

impl Observed {
    /// Starts observing `request`, served by `server`.
    pub(crate) fn start(server: &Server, request: &Spanned<'_>) -> Self {
        #[cfg(not(feature = "otel"))]
        let _ = server;
        Self {
            span: request_span(request),
            #[cfg(feature = "otel")]
            operation: crate::metrics::Operation::start(&server.inner.metrics, request),
        }
    }

    /// The request's span.
    pub(crate) fn span(&self) -> &Span {
        &self.span
    }

    /// Starts observing a notification the session takes in (`None` for any other message:
    /// the requests are observed when they start, or when the session answered them).
    pub(crate) fn notification(
        server: &Server,
        message: &presa_core::Message,
        version: Option<ProtocolVersion>,
        arrival: &Arrival,
    ) -> Option<Self> {
        let presa_core::Message::Notification(notification) = message else {
            return None;
        };
        let params = notification.params.as_deref();
        Some(Self::start(
            server,
            &Spanned {
                method: &notification.method,
                id: None,
                version: version.or_else(|| version_in_meta(params)),
                params: notification.params.as_deref(),
                meta: None,
                arrival,
            },
        ))
    }

    /// Observes a request the session answered by itself (`initialize`, `ping`,
    /// `server/discover`, ...; or refused before dispatch): a span, and a duration, that end as
    /// they begin, since its answer is already on its way.
    pub(crate) fn answered(server: &Server, request: &Spanned<'_>, error: Option<&ErrorObject>) {
        Self::start(server, request).ended(error, false, None);
    }

    /// Records the end of a message the session took in by itself.
    pub(crate) fn taken(self) {
        #[cfg(feature = "otel")]
        self.operation.done();
    }

    /// Records how the request ended (a tool's error result when `tool_error`), served by the
    /// tool or prompt `served` names.
    pub(crate) fn end(
        self,
        result: &Result<RawJson, ErrorObject>,
        tool_error: bool,
        served: Option<&Served>,
    ) {
        self.ended(result.as_ref().err(), tool_error, served);
    }

    fn ended(self, error: Option<&ErrorObject>, tool_error: bool, served: Option<&Served>) {
        record_end(&self.span, error, tool_error);
        #[cfg(feature = "otel")]
        self.operation
            .end(error, tool_error, served.map(Served::named));
        #[cfg(not(feature = "otel"))]
        let _ = served;
    }
}

/// The revision a 2026-07-28 message names in its `_meta` (its session has none to tell).
fn version_in_meta(params: Option<&RawValue>) -> Option<ProtocolVersion> {
    let params: serde_json::Value = serde_json::from_str(params?.get()).ok()?;
    params
        .get("_meta")?
        .get(presa_core::META_PROTOCOL_VERSION)?
        .as_str()?
        .parse()
        .ok()
}
