//! Why the client transport could not be set up.

use std::fmt;

/// Why [`client`](crate::client()) could not set up the transport.
///
/// Only setup fails here. Once the transport runs, whatever goes wrong with one request (a
/// refused connection, an HTTP error status without a JSON-RPC body, a stream that broke) is
/// reported to the client as [`TransportEvent::RequestFailed`](presa_client::TransportEvent),
/// and an expired session as [`TransportEvent::Closed`](presa_client::TransportEvent).
///
/// ```
/// use presa_http::{client, HttpClientError, HttpClientOptions};
///
/// let error = client("ftp://example.com/mcp", HttpClientOptions::default()).unwrap_err();
/// assert!(matches!(error, HttpClientError::InvalidUrl { .. }));
/// assert_eq!(
///     error.to_string(),
///     "invalid server url `ftp://example.com/mcp`: the scheme must be http or https"
/// );
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub enum HttpClientError {
    /// The URL does not parse, or is not `http` or `https`.
    InvalidUrl {
        /// The URL, as given.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A header set with [`HttpClientOptions::header`](crate::HttpClientOptions::header) is not
    /// a valid HTTP header.
    InvalidHeader {
        /// The header name, as given.
        name: String,
        /// What is wrong with it.
        reason: String,
    },
    /// [`client`](crate::client()) was called outside a tokio runtime.
    NoRuntime,
    /// The HTTP client could not be built (e.g. the TLS backend failed to initialise): why is
    /// the error's [`source`](std::error::Error::source).
    Build(Box<dyn std::error::Error + Send + Sync>),
}

impl fmt::Display for HttpClientError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::InvalidUrl { url, reason } => write!(f, "invalid server url `{url}`: {reason}"),
            Self::InvalidHeader { name, reason } => write!(f, "invalid header `{name}`: {reason}"),
            Self::NoRuntime => {
                f.write_str("no tokio runtime: create the HTTP client transport from within one")
            }
            Self::Build(_) => f.write_str("failed to build the HTTP client"),
        }
    }
}

impl std::error::Error for HttpClientError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Build(source) => Some(&**source),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_are_send_sync_and_lowercase() {
        fn assert_error<E: std::error::Error + Send + Sync + 'static>() {}
        assert_error::<HttpClientError>();
        let errors = [
            HttpClientError::InvalidUrl {
                url: "x".into(),
                reason: "relative URL without a base".into(),
            },
            HttpClientError::InvalidHeader {
                name: "a b".into(),
                reason: "invalid HTTP header name".into(),
            },
            HttpClientError::NoRuntime,
            HttpClientError::Build("no TLS".into()),
        ];
        for error in errors {
            let text = error.to_string();
            assert!(text.starts_with(|c: char| c.is_lowercase()), "{text}");
            assert!(!text.ends_with('.'), "{text}");
        }
        // what failed underneath is the source, not repeated in the message
        let build = HttpClientError::Build("no TLS".into());
        assert_eq!(build.to_string(), "failed to build the HTTP client");
        let source = std::error::Error::source(&build).map(ToString::to_string);
        assert_eq!(source.as_deref(), Some("no TLS"));
    }
}
