//! The transport's authorization hook: [`TokenProvider`], what it is asked ([`AuthRequest`],
//! [`Refusal`]) and what it answers ([`Credential`]).

use std::fmt;
use std::future::Future;

use presa_client::BoxFuture;

/// What a [`TokenProvider`] fails with: whatever error its own code returns.
pub type TokenError = Box<dyn std::error::Error + Send + Sync>;

/// How one HTTP request is authorized: the `Authorization` header (and, for DPoP, the `DPoP`
/// proof header) a [`TokenProvider`] puts on it.
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Credential {
    /// `Authorization: Bearer <token>` (RFC 6750).
    Bearer(String),
    /// `Authorization: DPoP <token>` with the proof `DPoP: <proof>` (RFC 9449): a
    /// sender-constrained token and a proof made for this one request.
    Dpop {
        /// The access token.
        token: String,
        /// The DPoP proof JWT for this request's method and URL.
        proof: String,
    },
}

impl Credential {
    /// The access token, whatever the scheme.
    pub fn token(&self) -> &str {
        match self {
            Self::Bearer(token) | Self::Dpop { token, .. } => token,
        }
    }
}

impl fmt::Debug for Credential {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // tokens are secrets
        match self {
            Self::Bearer(_) => f.write_str("Bearer(..)"),
            Self::Dpop { .. } => f.write_str("Dpop { .. }"),
        }
    }
}

/// The HTTP request a [`TokenProvider`] is asked to authorize.
#[derive(Clone, Copy, Debug)]
pub struct AuthRequest<'a> {
    method: &'a str,
    url: &'a str,
}

impl<'a> AuthRequest<'a> {
    /// A request with this method (`POST`, `GET`, `DELETE`) to this URL.
    pub fn new(method: &'a str, url: &'a str) -> Self {
        Self { method, url }
    }

    /// The HTTP method.
    pub fn method(&self) -> &'a str {
        self.method
    }

    /// The full URL the request goes to.
    pub fn url(&self) -> &'a str {
        self.url
    }
}

/// The server refused a request with `401 Unauthorized` or `403 Forbidden`: what a
/// [`TokenProvider`] is told so it can decide whether to send the request again.
#[derive(Clone, Copy, Debug)]
pub struct Refusal<'a> {
    request: AuthRequest<'a>,
    status: u16,
    challenge: Option<&'a str>,
    dpop_nonce: Option<&'a str>,
    sent: Option<&'a Credential>,
    attempt: u32,
}

impl<'a> Refusal<'a> {
    /// A refusal of `request` with `status`; the rest is set with the `with_*` methods.
    pub fn new(request: AuthRequest<'a>, status: u16) -> Self {
        Self {
            request,
            status,
            challenge: None,
            dpop_nonce: None,
            sent: None,
            attempt: 0,
        }
    }

    /// With the `WWW-Authenticate` challenge (several header fields joined with `, `).
    #[must_use]
    pub fn with_challenge(mut self, challenge: Option<&'a str>) -> Self {
        self.challenge = challenge;
        self
    }

    /// With the `DPoP-Nonce` header of the response.
    #[must_use]
    pub fn with_dpop_nonce(mut self, nonce: Option<&'a str>) -> Self {
        self.dpop_nonce = nonce;
        self
    }

    /// With the credential the refused request carried.
    #[must_use]
    pub fn with_sent(mut self, sent: Option<&'a Credential>) -> Self {
        self.sent = sent;
        self
    }

    /// With the number of times this request was already sent again after a refusal.
    #[must_use]
    pub fn with_attempt(mut self, attempt: u32) -> Self {
        self.attempt = attempt;
        self
    }

    /// The refused request.
    pub fn request(&self) -> AuthRequest<'a> {
        self.request
    }

    /// `401` or `403`.
    pub fn status(&self) -> u16 {
        self.status
    }

    /// The `WWW-Authenticate` challenge, if the server sent one.
    pub fn challenge(&self) -> Option<&'a str> {
        self.challenge
    }

    /// The `DPoP-Nonce` the server sent, if any (RFC 9449 §9).
    pub fn dpop_nonce(&self) -> Option<&'a str> {
        self.dpop_nonce
    }

    /// The credential the refused request carried (`None`: it carried none).
    pub fn sent(&self) -> Option<&'a Credential> {
        self.sent
    }

    /// How many times this request was already sent again after a refusal: 0 the first time.
    pub fn attempt(&self) -> u32 {
        self.attempt
    }
}

/// Authorizes the transport's HTTP requests: a static or refreshed bearer token, or a whole
/// OAuth client (presa-oauth's `OAuthClient`).
///
/// [`credential`](Self::credential) is asked before every request the transport makes (POST,
/// the GET stream, DELETE); its answer replaces an `Authorization` header set with
/// [`HttpClientOptions::header`](crate::HttpClientOptions::header); `None` sends none. By
/// default it sends [`token`](Self::token) as a bearer token. When it fails, the request fails
/// with a [`TransportErrorKind::Connect`](presa_client::TransportErrorKind) error quoting the
/// provider's error.
///
/// When the server answers `401` or `403`, [`refused`](Self::refused) is told (with the
/// `WWW-Authenticate` challenge and what was sent); `Ok(true)` sends the request again with a
/// fresh [`credential`](Self::credential), `Ok(false)` reports the status like any other error
/// status, `Err` fails the request with the provider's error. The default declines. The
/// transport sends one request at most 8 times in all, whatever the provider says; the
/// provider sees the count in [`Refusal::attempt`] and should stop well before.
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
/// A provider that refreshes its token on a 401, once:
///
/// ```
/// use std::sync::Mutex;
/// use presa_client::BoxFuture;
/// use presa_http::{Refusal, TokenError, TokenProvider};
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
///     fn refused<'a>(&'a self, refusal: Refusal<'a>) -> BoxFuture<'a, Result<bool, TokenError>> {
///         Box::pin(async move {
///             if refusal.status() != 401 || refusal.attempt() > 0 {
///                 return Ok(false);
///             }
///             // fetch a new token here, then retry with it
///             *self.token.lock().map_err(|e| e.to_string())? = "fresh".into();
///             Ok(true)
///         })
///     }
/// }
/// ```
pub trait TokenProvider: Send + Sync {
    /// The bearer token for the next request, or `None` to send no `Authorization` header.
    fn token(&self) -> BoxFuture<'_, Result<Option<String>, TokenError>>;

    /// The credential for one request. The default sends [`token`](Self::token) as
    /// [`Credential::Bearer`]; DPoP providers make a proof for the request's method and URL.
    fn credential<'a>(
        &'a self,
        request: AuthRequest<'a>,
    ) -> BoxFuture<'a, Result<Option<Credential>, TokenError>> {
        let _ = request;
        Box::pin(async move { Ok(self.token().await?.map(Credential::Bearer)) })
    }

    /// The server answered `401` or `403`. Return `Ok(true)` to send the request again with a
    /// fresh [`credential`](Self::credential). The default declines.
    fn refused<'a>(&'a self, refusal: Refusal<'a>) -> BoxFuture<'a, Result<bool, TokenError>> {
        let _ = refusal;
        Box::pin(std::future::ready(Ok(false)))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_hide_their_tokens() {
        let bearer = Credential::Bearer("s3cr3t".into());
        assert_eq!(format!("{bearer:?}"), "Bearer(..)");
        assert_eq!(bearer.token(), "s3cr3t");
        let dpop = Credential::Dpop {
            token: "t".into(),
            proof: "p".into(),
        };
        assert_eq!(format!("{dpop:?}"), "Dpop { .. }");
    }
}
