//! The built-in verifier of JWT access tokens (feature `jwt`).

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use jsonwebtoken::errors::{Error as JwtError, ErrorKind};
use jsonwebtoken::{Algorithm, Validation, decode, decode_header};
use presa_server::{AuthInfo, BoxFuture};
use serde_json::{Map, Value};

use crate::jwks::JwksSource;
use crate::key::{JwtKey, install_crypto};
use presa_http::{TokenVerifier, VerifyError};

#[derive(Clone, Debug)]
enum Keys {
    Static(Arc<[JwtKey]>),
    Jwks(JwksSource),
}

/// Verifies JWT access tokens (RFC 9068 style): the signature, with a key from a fixed set or
/// from the authorization server's JWKS; the issuer; the audience (this MCP server); expiry
/// and not-before, with a clock-skew leeway.
///
/// The verified token becomes an [`AuthInfo`]: subject from `sub`, client from `client_id` or
/// `azp`, scopes from `scope` (space-separated) and `scp` (a list or a string), every claim,
/// the expiry and the token itself.
///
/// JWKS keys are cached; the set is fetched again when it is older than
/// [`jwks_max_age`](Self::jwks_max_age), or when a token names a key id the cache lacks (key
/// rotation) — at most once per [`jwks_min_refresh`](Self::jwks_min_refresh), so forged key
/// ids cannot make the server hammer the authorization server.
///
/// ```
/// use std::time::Duration;
/// use presa_http::{AuthOptions, HttpOptions};
/// use presa_oauth::JwtVerifier;
///
/// let verifier = JwtVerifier::jwks(
///     "https://login.example.net",
///     "https://api.example.net/mcp",
///     "https://login.example.net/.well-known/jwks.json",
/// )
/// .leeway(Duration::from_secs(30));
/// let options = HttpOptions::default().auth(
///     AuthOptions::new("https://login.example.net", verifier)
///         .resource("https://api.example.net/mcp"),
/// );
/// # let _ = options;
/// ```
#[derive(Clone, Debug)]
pub struct JwtVerifier {
    issuer: String,
    audiences: Vec<String>,
    leeway: Duration,
    keys: Keys,
}

impl JwtVerifier {
    /// Tokens from `issuer` for `audience` (this server's resource URI), signed by one of `keys`.
    pub fn new(
        issuer: impl Into<String>,
        audience: impl Into<String>,
        keys: impl IntoIterator<Item = JwtKey>,
    ) -> Self {
        install_crypto();
        Self {
            issuer: issuer.into(),
            audiences: vec![audience.into()],
            leeway: Duration::from_secs(60),
            keys: Keys::Static(keys.into_iter().collect()),
        }
    }

    /// Tokens from `issuer` for `audience`, signed by a key of the JWKS at `jwks_url` (the
    /// authorization server metadata's `jwks_uri`). Nothing is fetched until the first token.
    pub fn jwks(
        issuer: impl Into<String>,
        audience: impl Into<String>,
        jwks_url: impl Into<String>,
    ) -> Self {
        install_crypto();
        Self {
            issuer: issuer.into(),
            audiences: vec![audience.into()],
            leeway: Duration::from_secs(60),
            keys: Keys::Jwks(JwksSource::new(jwks_url.into())),
        }
    }

    /// Accepts tokens for another audience too (e.g. the resource URI with a trailing slash).
    #[must_use]
    pub fn audience(mut self, audience: impl Into<String>) -> Self {
        self.audiences.push(audience.into());
        self
    }

    /// How far clocks may disagree when checking `exp` and `nbf` (default 60 s).
    #[must_use]
    pub fn leeway(mut self, leeway: Duration) -> Self {
        self.leeway = leeway;
        self
    }

    /// How old the cached JWKS may get before it is fetched again (default 1 hour; JWKS only).
    #[must_use]
    pub fn jwks_max_age(mut self, max_age: Duration) -> Self {
        if let Keys::Jwks(source) = &mut self.keys {
            source.max_age = max_age;
        }
        self
    }

    /// The least time between two fetches of the JWKS for unknown key ids (default 30 s;
    /// JWKS only).
    #[must_use]
    pub fn jwks_min_refresh(mut self, interval: Duration) -> Self {
        if let Keys::Jwks(source) = &mut self.keys {
            source.min_refresh = interval;
        }
        self
    }

    /// The HTTP client that fetches the JWKS (default: rustls, 10 s timeout; JWKS only).
    #[must_use]
    pub fn http_client(mut self, client: reqwest::Client) -> Self {
        if let Keys::Jwks(source) = &mut self.keys {
            source.client = client;
        }
        self
    }

    /// Verifies `token`.
    pub async fn verify_token(&self, token: &str) -> Result<AuthInfo, VerifyError> {
        let header = decode_header(token)
            .map_err(|_| VerifyError::Invalid("the token is not a JWT".into()))?;
        let mut keys = match &self.keys {
            Keys::Static(keys) => Arc::clone(keys),
            Keys::Jwks(source) => source.keys().await?,
        };
        if !keys.iter().any(|k| k.fits(&header))
            && let Keys::Jwks(source) = &self.keys
        {
            keys = source.refresh(&keys).await?;
        }
        let validation = self.validation(header.alg);
        let mut tried = false;
        for key in keys.iter().filter(|k| k.fits(&header)) {
            tried = true;
            match decode::<Map<String, Value>>(token, &key.key, &validation) {
                Ok(data) => return Ok(auth_info(token, data.claims)),
                Err(error) if *error.kind() == ErrorKind::InvalidSignature => {}
                Err(error) => return Err(VerifyError::Invalid(describe(&error))),
            }
        }
        Err(VerifyError::Invalid(if tried {
            "the token's signature does not verify".into()
        } else {
            "the token's signing key is unknown".into()
        }))
    }

    fn validation(&self, alg: Algorithm) -> Validation {
        let mut validation = Validation::new(alg);
        validation.leeway = self.leeway.as_secs();
        validation.validate_nbf = true;
        validation.set_issuer(&[&self.issuer]);
        validation.set_audience(&self.audiences);
        validation.set_required_spec_claims(&["exp", "iss", "aud"]);
        validation
    }
}

impl TokenVerifier for JwtVerifier {
    fn verify<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<AuthInfo, VerifyError>> {
        Box::pin(self.verify_token(token))
    }
}

/// What the client is told about a rejected token.
fn describe(error: &JwtError) -> String {
    match error.kind() {
        ErrorKind::ExpiredSignature => "the token expired".into(),
        ErrorKind::ImmatureSignature => "the token is not valid yet".into(),
        ErrorKind::InvalidAudience => "the token was not issued for this resource".into(),
        ErrorKind::InvalidIssuer => "the token's issuer is not trusted".into(),
        ErrorKind::InvalidSignature => "the token's signature does not verify".into(),
        ErrorKind::MissingRequiredClaim(claim) => format!("the token has no {claim} claim"),
        ErrorKind::InvalidClaimFormat(claim) => format!("the token's {claim} claim is malformed"),
        ErrorKind::InvalidAlgorithm => "the token's algorithm does not fit its key".into(),
        _ => "the token is malformed".into(),
    }
}

/// The identity of a verified token.
fn auth_info(token: &str, claims: Map<String, Value>) -> AuthInfo {
    let text = |name: &str| claims.get(name).and_then(Value::as_str).map(str::to_owned);
    let mut scopes: Vec<String> = Vec::new();
    for name in ["scope", "scp"] {
        match claims.get(name) {
            Some(Value::String(list)) => scopes.extend(list.split_whitespace().map(str::to_owned)),
            Some(Value::Array(items)) => {
                scopes.extend(items.iter().filter_map(Value::as_str).map(str::to_owned))
            }
            _ => {}
        }
    }
    let mut info = AuthInfo::new().with_scopes(scopes).with_token(token);
    if let Some(subject) = text("sub") {
        info = info.with_subject(subject);
    }
    if let Some(client) = text("client_id").or_else(|| text("azp")) {
        info = info.with_client_id(client);
    }
    if let Some(exp) = claims.get("exp").and_then(Value::as_u64) {
        // an `exp` past what SystemTime holds is no expiry worth keeping: none
        if let Some(at) = SystemTime::UNIX_EPOCH.checked_add(Duration::from_secs(exp)) {
            info = info.with_expires_at(at);
        }
    }
    info.with_claims(claims)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

    #[test]
    fn claims_become_an_identity() {
        let claims = json!({
            "sub": "alice", "azp": "app", "scope": "a b", "scp": ["c"], "exp": 2_000_000_000u64,
            "extra": 1,
        });
        let info = auth_info("t", claims.as_object().unwrap().clone());
        assert_eq!(info.subject(), Some("alice"));
        assert_eq!(info.client_id(), Some("app"));
        assert!(info.has_scopes(["a", "b", "c"]));
        assert_eq!(info.claim("extra"), Some(&json!(1)));
        assert_eq!(info.token(), Some("t"));
        assert_eq!(
            info.expires_at(),
            Some(SystemTime::UNIX_EPOCH + Duration::from_secs(2_000_000_000))
        );
    }
}
