//! Who is calling, and which scopes an operation needs: the verified identity a transport attaches
//! to a request ([`AuthInfo`]), scope requirements per tool, resource and prompt, and the
//! [`InsufficientScope`] error the dispatcher answers with when the caller lacks them.
//!
//! presa-server verifies no tokens: a transport does (presa-http's auth layer, for one) and
//! hands the result over with [`Context::with_auth`], an
//! [`Incoming::Authenticated`](crate::Incoming::Authenticated) message, or
//! [`ConnectionOptions::auth`](crate::ConnectionOptions::auth).

use std::collections::BTreeSet;
use std::fmt;
use std::time::SystemTime;

use presa_core::{ErrorCode, ErrorObject};
use serde_json::{Map, Value};

/// The identity a transport verified for a request: subject, client, granted scopes, claims.
///
/// Handlers read it with [`Context::auth`](crate::Context::auth); it is `None` where the transport authenticates no
/// one (stdio, an HTTP server without auth).
///
/// ```
/// use presa_server::AuthInfo;
///
/// let info = AuthInfo::new()
///     .with_subject("alice")
///     .with_scopes(["tickets:read", "tickets:write"]);
/// assert_eq!(info.subject(), Some("alice"));
/// assert!(info.has_scope("tickets:write"));
/// assert!(!info.has_scopes(["tickets:read", "admin"]));
/// ```
#[derive(Clone, Default, PartialEq)]
pub struct AuthInfo {
    subject: Option<String>,
    client_id: Option<String>,
    scopes: BTreeSet<String>,
    claims: Map<String, Value>,
    expires_at: Option<SystemTime>,
    token: Option<String>,
}

impl fmt::Debug for AuthInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AuthInfo")
            .field("subject", &self.subject)
            .field("client_id", &self.client_id)
            .field("scopes", &self.scopes)
            .field("claims", &self.claims.keys().collect::<Vec<_>>())
            .field("expires_at", &self.expires_at)
            .field("token", &self.token.as_ref().map(|_| "<redacted>"))
            .finish()
    }
}

impl AuthInfo {
    /// An identity with no subject, client, scopes or claims.
    pub fn new() -> Self {
        Self::default()
    }

    /// This identity with its subject (the token's `sub`: the user, or the client acting for
    /// itself).
    #[must_use]
    pub fn with_subject(mut self, subject: impl Into<String>) -> Self {
        self.subject = Some(subject.into());
        self
    }

    /// This identity with the OAuth client the token was issued to (`client_id` or `azp`).
    #[must_use]
    pub fn with_client_id(mut self, client_id: impl Into<String>) -> Self {
        self.client_id = Some(client_id.into());
        self
    }

    /// This identity with these granted scopes (replacing earlier ones).
    #[must_use]
    pub fn with_scopes<I, S>(mut self, scopes: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// This identity with all the token's claims.
    #[must_use]
    pub fn with_claims(mut self, claims: Map<String, Value>) -> Self {
        self.claims = claims;
        self
    }

    /// This identity with the time its token expires.
    #[must_use]
    pub fn with_expires_at(mut self, expires_at: SystemTime) -> Self {
        self.expires_at = Some(expires_at);
        self
    }

    /// This identity with the raw access token it was verified from.
    #[must_use]
    pub fn with_token(mut self, token: impl Into<String>) -> Self {
        self.token = Some(token.into());
        self
    }

    /// The subject (`sub`), if the token named one.
    pub fn subject(&self) -> Option<&str> {
        self.subject.as_deref()
    }

    /// The OAuth client the token was issued to, if known.
    pub fn client_id(&self) -> Option<&str> {
        self.client_id.as_deref()
    }

    /// The granted scopes.
    pub fn scopes(&self) -> &BTreeSet<String> {
        &self.scopes
    }

    /// Whether `scope` was granted.
    pub fn has_scope(&self, scope: &str) -> bool {
        self.scopes.contains(scope)
    }

    /// Whether every one of `scopes` was granted.
    pub fn has_scopes<I, S>(&self, scopes: I) -> bool
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        scopes.into_iter().all(|s| self.scopes.contains(s.as_ref()))
    }

    /// All the token's claims (for a JWT, its payload), for decisions the scopes don't cover.
    pub fn claims(&self) -> &Map<String, Value> {
        &self.claims
    }

    /// One claim.
    pub fn claim(&self, name: &str) -> Option<&Value> {
        self.claims.get(name)
    }

    /// When the token expires, if known.
    pub fn expires_at(&self) -> Option<SystemTime> {
        self.expires_at
    }

    /// The raw access token, when the verifier kept it: for exchanging it for a token of an
    /// upstream API (RFC 8693). Never forward it to an upstream API as is: the token was issued
    /// for this server, and MCP forbids token passthrough.
    pub fn token(&self) -> Option<&str> {
        self.token.as_deref()
    }
}

/// The caller lacks scopes an operation requires.
///
/// The dispatcher answers with it when a tool, resource or prompt declared scopes (see
/// [`RequireScopes`](crate::RequireScopes)) the request's [`AuthInfo`] lacks; a handler may
/// return it too, for a decision only it can make. On the wire it is a JSON-RPC error
/// (`-32600`) whose `data` is `{"error": "insufficient_scope", "scope": "<space-separated
/// scopes>"}`; presa-http turns it
/// into `403` with `WWW-Authenticate: Bearer error="insufficient_scope", scope="…"`, so the
/// client can ask for the missing scopes (step-up authorization).
///
/// It implements neither `Display` nor `Error`, like [`ProtocolError`](crate::ProtocolError): returned from a
/// handler it stays a JSON-RPC error instead of becoming a tool error.
///
/// ```
/// use presa_server::InsufficientScope;
///
/// let error = InsufficientScope::new(["tickets:read", "tickets:write"]).into_error();
/// let back = InsufficientScope::from_error(&error).unwrap();
/// assert_eq!(back.scope(), "tickets:read tickets:write");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InsufficientScope {
    scopes: Vec<String>,
    description: String,
}

/// The `data.error` value that marks an [`InsufficientScope`] error.
const MARKER: &str = "insufficient_scope";

impl InsufficientScope {
    /// The operation needs all of `scopes` (every scope it needs, not only the missing ones:
    /// the client asks for exactly these).
    pub fn new<I, S>(scopes: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let list = scope_list(scopes);
        let description = format!("Insufficient scope: this needs {}", list.join(" "));
        Self {
            scopes: list,
            description,
        }
    }

    /// This error with a description for the client (the error message and the challenge's
    /// `error_description`).
    #[must_use]
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = description.into();
        self
    }

    /// The scopes the operation needs.
    pub fn scopes(&self) -> &[String] {
        &self.scopes
    }

    /// The scopes as one space-separated string (the challenge's `scope`).
    pub fn scope(&self) -> String {
        self.scopes.join(" ")
    }

    /// The description.
    pub fn get_description(&self) -> &str {
        &self.description
    }

    /// The JSON-RPC error sent to the client.
    pub fn into_error(self) -> ErrorObject {
        let data = serde_json::json!({ "error": MARKER, "scope": self.scope() });
        ErrorObject::new(ErrorCode::INVALID_REQUEST, self.description).with_data(data)
    }

    /// Recognizes an error made by [`into_error`](Self::into_error).
    pub fn from_error(error: &ErrorObject) -> Option<Self> {
        let data = error.data.as_ref()?;
        if error.code != ErrorCode::INVALID_REQUEST
            || data.get("error").and_then(Value::as_str) != Some(MARKER)
        {
            return None;
        }
        let scope = data.get("scope").and_then(Value::as_str)?;
        Some(Self::new(scope.split_whitespace()).description(error.message.clone()))
    }
}

impl fmt::Display for InsufficientScope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (needs scope {})", self.description, self.scope())
    }
}

impl std::error::Error for InsufficientScope {}

/// Scopes, each once, in the order given (empty names left out).
pub(crate) fn scope_list<I, S>(scopes: I) -> Vec<String>
where
    I: IntoIterator<Item = S>,
    S: Into<String>,
{
    let mut list: Vec<String> = Vec::new();
    presa_core::merge_scopes(&mut list, scopes.into_iter().map(Into::<String>::into));
    list
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn insufficient_scope_round_trips_through_the_error_object() {
        let error = InsufficientScope::new(["a", "b", "a"])
            .description("writing needs b")
            .into_error();
        assert_eq!(error.code, ErrorCode::INVALID_REQUEST);
        assert_eq!(error.message, "writing needs b");
        let back = InsufficientScope::from_error(&error).unwrap();
        assert_eq!(back.scopes(), ["a", "b"]);
        assert_eq!(back.get_description(), "writing needs b");
        assert_eq!(
            InsufficientScope::from_error(&ErrorObject::invalid_params("x")),
            None
        );
    }

    #[test]
    fn debug_redacts_the_token() {
        let info = AuthInfo::new().with_token("secret-token").with_subject("s");
        let debug = format!("{info:?}");
        assert!(!debug.contains("secret-token"), "{debug}");
        assert_eq!(info.token(), Some("secret-token"));
    }
}
