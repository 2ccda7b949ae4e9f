//! Tunables of the client transport: [`HttpClientOptions`] and [`TokenProvider`].

use std::fmt;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use presa_client::BoxFuture;

/// What a [`TokenProvider`] fails with: whatever error its own code returns.
pub type TokenError = Box<dyn std::error::Error + Send + Sync>;

/// Supplies the bearer token of each HTTP request (OAuth and the like).
///
/// [`token`](Self::token) is asked before every request the transport makes (POST, the GET
/// stream, DELETE); `Some(token)` is sent as `Authorization: Bearer <token>`, replacing an
/// `Authorization` header set with [`HttpClientOptions::header`]; `None` sends none. When it
/// fails, the request fails with a [`TransportErrorKind::Connect`](presa_client::TransportErrorKind)
/// error quoting the provider's error.
///
/// When the server answers `401 Unauthorized`, [`unauthorized`](Self::unauthorized) is told
/// (with the `WWW-Authenticate` challenge, if any); if it returns `true` the request is sent
/// once more with a fresh [`token`](Self::token). The default declines, and the 401 is reported
/// like any other error status.
///
/// Closures `Fn() -> impl Future<Output = Result<Option<String>, TokenError>>` are token
/// providers:
///
/// ```
/// use presa_http::{HttpClientOptions, TokenError};
///
/// let options = HttpClientOptions::default().token_provider(|| async {
///     let token = std::env::var("MCP_TOKEN").ok();
///     Ok::<_, TokenError>(token)
/// });
/// # drop(options);
/// ```
///
/// A provider that refreshes its token on a 401:
///
/// ```
/// use std::sync::Mutex;
/// use presa_client::BoxFuture;
/// use presa_http::{TokenError, TokenProvider};
///
/// struct Refreshing {
///     token: Mutex<String>,
/// }
///
/// impl TokenProvider for Refreshing {
///     fn token(&self) -> BoxFuture<'_, Result<Option<String>, TokenError>> {
///         Box::pin(async move { Ok(Some(self.token.lock().map_err(|e| e.to_string())?.clone())) })
///     }
///
///     fn unauthorized<'a>(&'a self, _challenge: Option<&'a str>) -> BoxFuture<'a, bool> {
///         Box::pin(async move {
///             // fetch a new token here, then retry with it
///             match self.token.lock() {
///                 Ok(mut token) => {
///                     *token = "fresh".into();
///                     true
///                 }
///                 Err(_) => false,
///             }
///         })
///     }
/// }
/// ```
pub trait TokenProvider: Send + Sync {
    /// The token for the next request, or `None` to send no `Authorization` header.
    fn token(&self) -> BoxFuture<'_, Result<Option<String>, TokenError>>;

    /// The server answered `401`, with this `WWW-Authenticate` challenge if it sent one. Return
    /// `true` to send the request once more with a fresh [`token`](Self::token).
    fn unauthorized<'a>(&'a self, challenge: Option<&'a str>) -> BoxFuture<'a, bool> {
        let _ = challenge;
        Box::pin(std::future::ready(false))
    }
}

impl<F, Fut> TokenProvider for F
where
    F: Fn() -> Fut + Send + Sync,
    Fut: Future<Output = Result<Option<String>, TokenError>> + Send + 'static,
{
    fn token(&self) -> BoxFuture<'_, Result<Option<String>, TokenError>> {
        Box::pin(self())
    }
}

/// Where diagnostics go.
#[derive(Clone)]
pub(crate) struct Log(Arc<dyn Fn(&str) + Send + Sync>);

impl Log {
    pub(crate) fn new(f: impl Fn(&str) + Send + Sync + 'static) -> Self {
        Self(Arc::new(f))
    }

    pub(crate) fn line(&self, line: &str) {
        (self.0)(line);
    }
}

impl Default for Log {
    /// A `tracing` warning with target `presa_http`.
    fn default() -> Self {
        Self::new(|line| tracing::warn!(target: "presa_http", "{line}"))
    }
}

impl fmt::Debug for Log {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Log(..)")
    }
}

/// Tunables of [`client`](crate::client()).
///
/// | Option | Default | Meaning |
/// |---|---|---|
/// | [`header`](Self::header) | none | a header added to every request, e.g. `Authorization` |
/// | [`token_provider`](Self::token_provider) | none | a bearer token per request |
/// | [`connect_timeout`](Self::connect_timeout) | 10 s | how long opening a connection may take |
/// | [`max_message_bytes`](Self::max_message_bytes) | 16 MiB | the largest JSON body or SSE event accepted |
/// | [`log`](Self::log) | `tracing` warnings | where diagnostics go |
///
/// ```
/// use std::time::Duration;
/// use presa_http::HttpClientOptions;
///
/// let options = HttpClientOptions::default()
///     .header("Authorization", "Bearer s3cr3t")
///     .connect_timeout(Duration::from_secs(3))
///     .log(|line| eprintln!("[mcp http] {line}"));
/// # drop(options);
/// ```
#[derive(Clone)]
pub struct HttpClientOptions {
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) token_provider: Option<Arc<dyn TokenProvider>>,
    pub(crate) connect_timeout: Duration,
    pub(crate) max_message_bytes: usize,
    pub(crate) log: Log,
}

impl Default for HttpClientOptions {
    /// No extra headers, no token provider, a 10 s connect timeout, messages up to 16 MiB,
    /// diagnostics as `tracing` warnings (target `presa_http`).
    fn default() -> Self {
        Self {
            headers: Vec::new(),
            token_provider: None,
            connect_timeout: Duration::from_secs(10),
            max_message_bytes: 16 * 1024 * 1024,
            log: Log::default(),
        }
    }
}

impl fmt::Debug for HttpClientOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.headers.iter().map(|(n, _)| n.as_str()).collect();
        f.debug_struct("HttpClientOptions")
            // values may be secrets
            .field("headers", &names)
            .field(
                "token_provider",
                &self.token_provider.as_ref().map(|_| "TokenProvider(..)"),
            )
            .field("connect_timeout", &self.connect_timeout)
            .field("max_message_bytes", &self.max_message_bytes)
            .field("log", &self.log)
            .finish()
    }
}

impl HttpClientOptions {
    /// Adds a header to every request (POST, GET, DELETE), e.g. `Authorization` or an API key.
    ///
    /// Setting the same name again replaces the earlier value. The protocol's own headers
    /// (`Content-Type`, `Accept`, `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`,
    /// `Mcp-Param-*`, `Mcp-Session-Id`, `Last-Event-ID`) cannot be overridden, and a
    /// [`token_provider`](Self::token_provider)'s token replaces `Authorization`. Names and
    /// values are checked by [`client`](crate::client())
    /// ([`HttpClientError::InvalidHeader`](crate::HttpClientError::InvalidHeader)).
    #[must_use]
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        let name = name.into();
        self.headers.retain(|(n, _)| !n.eq_ignore_ascii_case(&name));
        self.headers.push((name, value.into()));
        self
    }

    /// Supplies a bearer token for each request; see [`TokenProvider`].
    #[must_use]
    pub fn token_provider(mut self, provider: impl TokenProvider + 'static) -> Self {
        self.token_provider = Some(Arc::new(provider));
        self
    }

    /// How long opening a TCP (and TLS) connection may take (default 10 s). A request that
    /// cannot connect in time fails with a
    /// [`TransportErrorKind::Connect`](presa_client::TransportErrorKind) error. There is no
    /// overall request timeout here: responses may stream for long; the client's per-call
    /// timeouts end them.
    #[must_use]
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// The largest JSON response body or SSE event accepted from the server, in bytes (default
    /// 16 MiB). A larger one is not buffered: the request it answers fails (or, on the GET
    /// stream, the stream is dropped), and the size is logged.
    #[must_use]
    pub fn max_message_bytes(mut self, max: usize) -> Self {
        self.max_message_bytes = max;
        self
    }

    /// Where diagnostics go: tools dropped from a `tools/list` result, messages that do not
    /// decode, refused notifications, a GET stream that failed, a failed `DELETE`. The default
    /// emits a `tracing` warning (target `presa_http`).
    #[must_use]
    pub fn log(mut self, log: impl Fn(&str) + Send + Sync + 'static) -> Self {
        self.log = Log::new(log);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_header_set_twice_keeps_the_last_value_and_debug_hides_values() {
        let options = HttpClientOptions::default()
            .header("Authorization", "Bearer a")
            .header("authorization", "Bearer b");
        assert_eq!(
            options.headers,
            [("authorization".to_owned(), "Bearer b".to_owned())]
        );
        let debug = format!("{options:?}");
        assert!(!debug.contains("Bearer"), "{debug}");
    }
}
