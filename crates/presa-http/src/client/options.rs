//! Tunables of the client transport: [`HttpClientOptions`].

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use super::token::TokenProvider;

/// Tunables of [`client`](crate::client()).
///
/// | Option | Default | Meaning |
/// |---|---|---|
/// | [`header`](Self::header) | none | a header added to every request, e.g. `Authorization` |
/// | [`token_provider`](Self::token_provider) | none | a bearer token per request, or OAuth |
/// | [`connect_timeout`](Self::connect_timeout) | 10 s | how long opening a connection may take |
/// | [`max_message_bytes`](Self::max_message_bytes) | 16 MiB | the largest JSON body or SSE event accepted |
///
/// Diagnostics (a message that does not decode, a refused notification, a GET stream given
/// up, a failed `DELETE`) are not an option: they are `tracing` events with target
/// `presa_http`.
///
/// ```
/// use std::time::Duration;
/// use presa_http::HttpClientOptions;
///
/// let options = HttpClientOptions::default()
///     .header("Authorization", "Bearer s3cr3t")
///     .connect_timeout(Duration::from_secs(3));
/// # drop(options);
/// ```
#[derive(Clone)]
pub struct HttpClientOptions {
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) token_provider: Option<Arc<dyn TokenProvider>>,
    pub(crate) connect_timeout: Duration,
    pub(crate) max_message_bytes: usize,
}

impl Default for HttpClientOptions {
    /// No extra headers, no token provider, a 10 s connect timeout, messages up to 16 MiB.
    fn default() -> Self {
        Self {
            headers: Vec::new(),
            token_provider: None,
            connect_timeout: Duration::from_secs(10),
            max_message_bytes: 16 * 1024 * 1024,
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

    /// Authorizes each request: a bearer token, or presa-oauth's `OAuthClient`; see
    /// [`TokenProvider`].
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
    /// stream, the stream is dropped), and the size is logged. The messages waiting for the
    /// client hold at most twice this: past it the transport stops reading the server.
    #[must_use]
    pub fn max_message_bytes(mut self, max: usize) -> Self {
        self.max_message_bytes = max;
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
