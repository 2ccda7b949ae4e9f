//! A Prometheus scrape endpoint for a server's metrics (feature `prometheus`): an OpenTelemetry
//! meter provider exporting into a Prometheus registry, whose text `/metrics` serves next to the
//! MCP endpoint, behind the same `Host` and `Origin` guards.
//!
//! The bridge is `opentelemetry-prometheus`, released with the `opentelemetry` crates it
//! bridges: the server records through the OpenTelemetry API as it does for any exporter, and
//! the scrape reads what was recorded.

use std::fmt;

use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use opentelemetry::metrics::{Meter, MeterProvider as _};
use opentelemetry_sdk::metrics::{MeterProviderBuilder, SdkMeterProvider};
use prometheus::{Encoder, TextEncoder};

/// The metrics a server records, for Prometheus to scrape at `/metrics` (or
/// [`path`](Self::path)): give [`meter`](Self::meter) to the server's builder and these to
/// [`HttpOptions::metrics`](crate::HttpOptions::metrics).
///
/// ```
/// use presa_http::{HttpOptions, PrometheusMetrics};
/// use presa_server::Server;
///
/// let metrics = PrometheusMetrics::new().unwrap();
/// let server = Server::builder("observed", "1.0.0")
///     .meter(metrics.meter())
///     .build()
///     .unwrap();
/// let options = HttpOptions::default().metrics(metrics);
/// # let _ = (server, options);
/// ```
#[derive(Clone)]
pub struct PrometheusMetrics {
    registry: prometheus::Registry,
    provider: SdkMeterProvider,
    path: String,
    authenticated: bool,
}

impl fmt::Debug for PrometheusMetrics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PrometheusMetrics")
            .field("path", &self.path)
            .field("authenticated", &self.authenticated)
            .finish_non_exhaustive()
    }
}

/// Why the metrics could not be set up.
#[derive(Debug)]
pub struct PrometheusError(String);

impl fmt::Display for PrometheusError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the Prometheus exporter could not be made: {}", self.0)
    }
}

impl std::error::Error for PrometheusError {}

impl PrometheusMetrics {
    /// A registry of its own, and a meter provider exporting into it; served at `/metrics`
    /// without authentication.
    ///
    /// # Errors
    ///
    /// When the exporter cannot register with the registry.
    pub fn new() -> Result<Self, PrometheusError> {
        Self::with_provider(|provider| provider)
    }

    /// Like [`new`](Self::new), with the meter provider's builder handed to `configure` first:
    /// to add readers (an OTLP exporter's, so that the same measurements also leave by push),
    /// views or a resource.
    ///
    /// ```
    /// use opentelemetry_sdk::Resource;
    /// use presa_http::PrometheusMetrics;
    ///
    /// let metrics = PrometheusMetrics::with_provider(|provider| {
    ///     provider.with_resource(Resource::builder().with_service_name("library").build())
    /// })
    /// .unwrap();
    /// # let _ = metrics;
    /// ```
    ///
    /// # Errors
    ///
    /// When the exporter cannot register with the registry.
    pub fn with_provider(
        configure: impl FnOnce(MeterProviderBuilder) -> MeterProviderBuilder,
    ) -> Result<Self, PrometheusError> {
        let registry = prometheus::Registry::new();
        let exporter = opentelemetry_prometheus::exporter()
            .with_registry(registry.clone())
            .build()
            .map_err(|error| PrometheusError(error.to_string()))?;
        let provider = configure(SdkMeterProvider::builder().with_reader(exporter)).build();
        Ok(Self {
            registry,
            provider,
            path: "/metrics".into(),
            authenticated: false,
        })
    }

    /// The meter a server records with: give it to `ServerBuilder::meter`.
    pub fn meter(&self) -> Meter {
        self.provider.meter("presa")
    }

    /// The meter provider, for meters of your own whose metrics should be scraped too.
    pub fn provider(&self) -> &SdkMeterProvider {
        &self.provider
    }

    /// The path served (default `/metrics`).
    #[must_use]
    pub fn path(mut self, path: impl Into<String>) -> Self {
        self.path = path.into();
        self
    }

    /// Whether a scrape needs the bearer token the MCP endpoint needs (its
    /// [`AuthOptions`](crate::AuthOptions)); off by default (a scraper usually has none). A
    /// server without `AuthOptions` has nothing to check a token with: it serves the metrics
    /// without, and warns (`presa_http`) when it starts.
    #[must_use]
    pub fn authenticated(mut self, authenticated: bool) -> Self {
        self.authenticated = authenticated;
        self
    }

    pub(crate) fn get_path(&self) -> &str {
        &self.path
    }

    pub(crate) fn is_authenticated(&self) -> bool {
        self.authenticated
    }

    /// What was recorded, in Prometheus's text format.
    pub fn render(&self) -> Result<String, PrometheusError> {
        let mut text = Vec::new();
        TextEncoder::new()
            .encode(&self.registry.gather(), &mut text)
            .map_err(|error| PrometheusError(error.to_string()))?;
        String::from_utf8(text).map_err(|error| PrometheusError(error.to_string()))
    }

    /// The scrape's answer.
    pub(crate) fn response(&self) -> Response {
        match self.render() {
            Ok(text) => (
                [(
                    header::CONTENT_TYPE,
                    "text/plain; version=0.0.4; charset=utf-8",
                )],
                text,
            )
                .into_response(),
            Err(error) => {
                tracing::warn!(target: "presa_http", %error, "a metrics scrape failed");
                StatusCode::INTERNAL_SERVER_ERROR.into_response()
            }
        }
    }
}
