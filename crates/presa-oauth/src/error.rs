//! Why authorizing failed: [`OAuthError`].

use std::fmt;
use std::sync::Arc;

/// Why an [`OAuthClient`](crate::OAuthClient) could not obtain a token, or refused to use one.
///
/// The transport fails the refused request with a
/// [`TransportErrorKind::Connect`](presa_client::TransportErrorKind) error whose source is this
/// error; the most recent one is also kept by
/// [`OAuthClient::last_error`](crate::OAuthClient::last_error).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum OAuthError {
    /// A URL (the server's, or one a document names) is not an absolute `http`/`https` URL,
    /// or one a peer names breaks the client's rule for peer-named URLs: `https` (plain
    /// `http` only loopback to loopback), and a loopback or private address only for an MCP
    /// server on the same kind of address.
    InvalidUrl {
        /// The URL, as found.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// An HTTP exchange with a metadata, registration or token endpoint failed.
    Http {
        /// The URL requested.
        url: String,
        /// What went wrong.
        reason: String,
        /// The HTTP client's error, when it failed (its own causes are its sources).
        source: Option<HttpFailure>,
    },
    /// The protected resource metadata (RFC 9728) names another resource than the server.
    ResourceMismatch {
        /// The metadata's `resource`.
        resource: String,
        /// The MCP server's URL.
        server: String,
    },
    /// The protected resource metadata names no authorization server.
    NoAuthorizationServer {
        /// Where the metadata came from.
        metadata_url: String,
    },
    /// No authorization server metadata was found for the issuer (RFC 8414 and OpenID
    /// Connect Discovery were both tried).
    NoServerMetadata {
        /// The issuer.
        issuer: String,
        /// What the last attempt found.
        reason: String,
    },
    /// The authorization server metadata states another `issuer` than the one it was looked
    /// up for: it is not used (RFC 8414 §3.3).
    IssuerMismatch {
        /// The issuer the metadata was fetched for.
        expected: String,
        /// The metadata's `issuer`.
        found: String,
    },
    /// The authorization server does not support PKCE with `S256`.
    PkceUnsupported {
        /// The issuer.
        issuer: String,
    },
    /// There is no way to get a client id at this authorization server: no pre-registered
    /// credentials for it, no client ID metadata document support, no dynamic registration.
    NoClientRegistration {
        /// The issuer.
        issuer: String,
    },
    /// Dynamic client registration (RFC 7591) was refused.
    Registration {
        /// The HTTP status.
        status: u16,
        /// The error the server gave, if any.
        error: String,
    },
    /// The authorization flow needs an [`AuthorizationHandler`](crate::AuthorizationHandler),
    /// and none is set.
    NoAuthorizationHandler,
    /// The [`AuthorizationHandler`](crate::AuthorizationHandler) failed.
    Handler(String),
    /// An [`AssertionSource`](crate::AssertionSource) (a workload JWT, an ID token) failed.
    Assertion(String),
    /// The authorization server redirected back with an error.
    AuthorizationDenied {
        /// The `error` parameter.
        error: String,
        /// The `error_description` parameter, if any.
        description: Option<String>,
    },
    /// The redirect does not belong to the authorization request: another `state`.
    StateMismatch,
    /// The redirect's `iss` (RFC 9207) is not the recorded issuer, or is missing although the
    /// server advertised it: the code is not redeemed.
    IssMismatch {
        /// The recorded issuer.
        expected: String,
        /// The `iss` received, if any.
        found: Option<String>,
    },
    /// The redirect carries no `code`.
    MissingCode,
    /// The token endpoint (or an identity provider's) refused the request.
    TokenRefused {
        /// The HTTP status.
        status: u16,
        /// The OAuth `error` code.
        error: String,
        /// The `error_description`, if any.
        description: Option<String>,
    },
    /// A document or response does not have the expected shape.
    InvalidResponse {
        /// What was read.
        what: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The grant needs a client secret or key that is not configured.
    MissingCredentials(String),
    /// A private key could not be read, or signing failed.
    Key(String),
    /// The [`TokenStore`](crate::TokenStore) failed.
    Store(String),
    /// Re-authorizing did not satisfy the server within the retry limit.
    RetryLimit {
        /// The limit.
        limit: u32,
    },
}

impl fmt::Display for OAuthError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::InvalidUrl { url, reason } => write!(f, "invalid url `{url}`: {reason}"),
            Self::Http { url, reason, .. } => write!(f, "request to {url} failed: {reason}"),
            Self::ResourceMismatch { resource, server } => write!(
                f,
                "the protected resource metadata is for {resource}, not for the server {server}"
            ),
            Self::NoAuthorizationServer { metadata_url } => write!(
                f,
                "the protected resource metadata at {metadata_url} names no authorization server"
            ),
            Self::NoServerMetadata { issuer, reason } => {
                write!(f, "no authorization server metadata for {issuer}: {reason}")
            }
            Self::IssuerMismatch { expected, found } => write!(
                f,
                "the authorization server metadata for {expected} names the issuer {found}"
            ),
            Self::PkceUnsupported { issuer } => {
                write!(
                    f,
                    "the authorization server {issuer} does not support PKCE with S256"
                )
            }
            Self::NoClientRegistration { issuer } => write!(
                f,
                "no client registration for {issuer}: no pre-registered credentials for it, \
                 no client ID metadata document support, no dynamic registration"
            ),
            Self::Registration { status, error } => {
                write!(
                    f,
                    "dynamic client registration refused (HTTP {status}): {error}"
                )
            }
            Self::NoAuthorizationHandler => {
                f.write_str("authorization needs the user, and no authorization handler is set")
            }
            Self::Handler(reason) => write!(f, "the authorization handler failed: {reason}"),
            Self::Assertion(reason) => write!(f, "the assertion source failed: {reason}"),
            Self::AuthorizationDenied { error, description } => {
                write!(f, "authorization denied: {error}")?;
                if let Some(description) = description {
                    write!(f, ": {description}")?;
                }
                Ok(())
            }
            Self::StateMismatch => {
                f.write_str("the authorization response's state does not match the request")
            }
            Self::IssMismatch { expected, found } => match found {
                Some(found) => write!(
                    f,
                    "the authorization response comes from the issuer {found}, not {expected}"
                ),
                None => write!(
                    f,
                    "the authorization response lacks the iss parameter {expected} advertised"
                ),
            },
            Self::MissingCode => f.write_str("the authorization response carries no code"),
            Self::TokenRefused {
                status,
                error,
                description,
            } => {
                write!(f, "token request refused (HTTP {status}): {error}")?;
                if let Some(description) = description {
                    write!(f, ": {description}")?;
                }
                Ok(())
            }
            Self::InvalidResponse { what, reason } => write!(f, "invalid {what}: {reason}"),
            Self::MissingCredentials(what) => write!(f, "missing client credentials: {what}"),
            Self::Key(reason) => write!(f, "signing key: {reason}"),
            Self::Store(reason) => write!(f, "token store: {reason}"),
            Self::RetryLimit { limit } => write!(
                f,
                "the server still refuses the request after {limit} authorization attempts"
            ),
        }
    }
}

/// The HTTP client's error of [`OAuthError::Http`], when there is one.
impl std::error::Error for OAuthError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Http {
                source: Some(failure),
                ..
            } => Some(failure),
            _ => None,
        }
    }
}

/// The HTTP client's error behind an [`OAuthError::Http`]: shared, so that the error stays
/// `Clone`, and compared by its text.
#[derive(Clone, Debug)]
pub struct HttpFailure(Arc<reqwest::Error>);

impl HttpFailure {
    pub(crate) fn new(error: reqwest::Error) -> Self {
        Self(Arc::new(error))
    }

    /// Whether the request timed out.
    pub fn is_timeout(&self) -> bool {
        self.0.is_timeout()
    }

    /// Whether no connection could be made.
    pub fn is_connect(&self) -> bool {
        self.0.is_connect()
    }
}

impl PartialEq for HttpFailure {
    fn eq(&self, other: &Self) -> bool {
        self.0.to_string() == other.0.to_string()
    }
}

impl Eq for HttpFailure {}

impl fmt::Display for HttpFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for HttpFailure {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0.source()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_are_send_sync_lowercase_without_period() {
        fn assert_error<E: std::error::Error + Send + Sync + 'static>() {}
        assert_error::<OAuthError>();
        let errors = [
            OAuthError::StateMismatch,
            OAuthError::MissingCode,
            OAuthError::NoAuthorizationHandler,
            OAuthError::IssMismatch {
                expected: "https://as".into(),
                found: None,
            },
            OAuthError::RetryLimit { limit: 3 },
            OAuthError::TokenRefused {
                status: 400,
                error: "invalid_grant".into(),
                description: Some("expired".into()),
            },
        ];
        for error in errors {
            let text = error.to_string();
            assert!(text.starts_with(|c: char| c.is_lowercase()), "{text}");
            assert!(!text.ends_with('.'), "{text}");
        }
    }
}
