//! The token verifier: what turns a bearer token into an identity.

use std::fmt;
use std::future::Future;

use presa_server::{AuthInfo, BoxFuture};

/// Checks a bearer access token and says whose it is.
///
/// Implement it for your token format (opaque tokens checked by introspection, a session
/// store, API keys), or use the built-in `JwtVerifier` (feature `jwt`). Object-safe: the auth
/// layer holds it as `Arc<dyn TokenVerifier>`. Any `Fn(String) -> impl Future<Output =
/// Result<AuthInfo, VerifyError>>` is one.
///
/// A verifier MUST accept only tokens issued for this server (their audience is this
/// resource) by an authorization server it trusts.
///
/// ```
/// use presa_http::{VerifyError, TokenVerifier};
/// use presa_server::AuthInfo;
///
/// let verifier = |token: String| async move {
///     match token.as_str() {
///         "let-me-in" => Ok(AuthInfo::new().with_subject("alice").with_scopes(["mcp"])),
///         _ => Err(VerifyError::Invalid("unknown token".into())),
///     }
/// };
/// # fn takes(_: impl TokenVerifier) {}
/// takes(verifier);
/// ```
pub trait TokenVerifier: Send + Sync + 'static {
    /// The identity `token` proves, or why it proves none.
    fn verify<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<AuthInfo, VerifyError>>;
}

impl<F, Fut> TokenVerifier for F
where
    F: Fn(String) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<AuthInfo, VerifyError>> + Send + 'static,
{
    fn verify<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<AuthInfo, VerifyError>> {
        Box::pin(self(token.to_owned()))
    }
}

/// Why a token proves no identity.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum VerifyError {
    /// The token is not valid here: malformed, forged, expired, or issued by someone else or
    /// for another resource. Answered with 401 and `error="invalid_token"`; the text becomes the
    /// challenge's `error_description`, so keep secrets out of it.
    Invalid(String),
    /// The token could not be checked now (e.g. the authorization server's keys could not be
    /// fetched). Answered with 503.
    Unavailable(String),
}

impl fmt::Display for VerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Invalid(why) => write!(f, "invalid token: {why}"),
            Self::Unavailable(why) => write!(f, "the token cannot be checked now: {why}"),
        }
    }
}

impl std::error::Error for VerifyError {}
