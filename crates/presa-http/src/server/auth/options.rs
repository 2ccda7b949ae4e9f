//! What the auth layer checks, and what the protected resource metadata says.

use std::fmt;
use std::sync::Arc;

use axum::http::{HeaderMap, header};

use super::verifier::TokenVerifier;
use crate::ProtectedResourceMetadata;

/// The well-known path prefix of RFC 9728 protected resource metadata.
pub(crate) const WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";

/// How an MCP endpoint is protected: the token verifier, the authorization servers clients
/// should get tokens from, this resource's identifier, and the scopes every request needs.
///
/// Give it to [`HttpOptions::auth`](crate::HttpOptions::auth), or to an [`AuthLayer`] of your
/// own.
///
/// ```
/// use presa_http::{AuthOptions, VerifyError};
/// use presa_server::AuthInfo;
///
/// let verify = |token: String| async move {
///     if token == "valid" { Ok(AuthInfo::new().with_scopes(["mcp"])) }
///     else { Err(VerifyError::Invalid("unknown token".into())) }
/// };
/// let auth = AuthOptions::new("https://login.example.net", verify)
///     .resource("https://api.example.net/mcp")
///     .required_scopes(["mcp"])
///     .scopes_supported(["mcp", "tickets:read", "tickets:write"]);
/// assert_eq!(auth.get_resource(), Some("https://api.example.net/mcp"));
/// ```
///
/// [`AuthLayer`]: crate::AuthLayer
#[derive(Clone)]
pub struct AuthOptions {
    pub(crate) verifier: Arc<dyn TokenVerifier>,
    pub(crate) authorization_servers: Vec<String>,
    pub(crate) resource: Option<String>,
    pub(crate) resource_name: Option<String>,
    pub(crate) scopes_supported: Option<Vec<String>>,
    pub(crate) required_scopes: Vec<String>,
}

impl fmt::Debug for AuthOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AuthOptions")
            .field("authorization_servers", &self.authorization_servers)
            .field("resource", &self.resource)
            .field("resource_name", &self.resource_name)
            .field("scopes_supported", &self.scopes_supported)
            .field("required_scopes", &self.required_scopes)
            .finish_non_exhaustive()
    }
}

impl AuthOptions {
    /// Tokens are checked by `verifier`; clients get them from the authorization server whose
    /// issuer URL is `authorization_server`. No scopes are required server-wide, and the
    /// resource identifier is taken from each request (see [`resource`](Self::resource)).
    pub fn new(authorization_server: impl Into<String>, verifier: impl TokenVerifier) -> Self {
        Self::with_verifier(authorization_server, Arc::new(verifier))
    }

    /// [`new`](Self::new) with a shared verifier.
    pub fn with_verifier(
        authorization_server: impl Into<String>,
        verifier: Arc<dyn TokenVerifier>,
    ) -> Self {
        Self {
            verifier,
            authorization_servers: vec![authorization_server.into()],
            resource: None,
            resource_name: None,
            scopes_supported: None,
            required_scopes: Vec::new(),
        }
    }

    /// Another authorization server clients may get tokens from.
    pub fn authorization_server(mut self, issuer: impl Into<String>) -> Self {
        self.authorization_servers.push(issuer.into());
        self
    }

    /// This MCP server's canonical URI (e.g. `https://api.example.net/mcp`): the `resource` of
    /// its metadata, the audience its tokens must name, and where the metadata URL is derived
    /// from. Set it in production.
    ///
    /// Without it, the URI is made from each request's `Host` header and the endpoint's path,
    /// with the `http` scheme: right for local development, wrong behind TLS or a proxy.
    pub fn resource(mut self, uri: impl Into<String>) -> Self {
        self.resource = Some(uri.into());
        self
    }

    /// A human-readable name of this resource, for the metadata's `resource_name`.
    pub fn resource_name(mut self, name: impl Into<String>) -> Self {
        self.resource_name = Some(name.into());
        self
    }

    /// The metadata's `scopes_supported`: what clients ask for when no challenge names scopes
    /// (default: the [required scopes](Self::required_scopes), omitted when there are none).
    /// Don't list `offline_access`.
    pub fn scopes_supported<I, S>(mut self, scopes: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.scopes_supported = Some(scopes.into_iter().map(Into::into).collect());
        self
    }

    /// Scopes every request needs: a valid token without them gets 403 `insufficient_scope`.
    /// They are also the `scope` of the 401 challenge, and are added to every
    /// `insufficient_scope` challenge so that a client asking again keeps them.
    pub fn required_scopes<I, S>(mut self, scopes: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.required_scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// The configured resource URI.
    pub fn get_resource(&self) -> Option<&str> {
        self.resource.as_deref()
    }

    /// Where the metadata is served for an endpoint at `endpoint_path`:
    /// `/.well-known/oauth-protected-resource` followed by the resource's path (the
    /// configured resource's, else the endpoint's).
    ///
    /// ```
    /// # let verify = |_: String| async { Err(presa_http::VerifyError::Invalid("no".into())) };
    /// use presa_http::AuthOptions;
    ///
    /// let auth = AuthOptions::new("https://login.example.net", verify);
    /// assert_eq!(auth.metadata_path("/mcp"), "/.well-known/oauth-protected-resource/mcp");
    /// let auth = auth.resource("https://api.example.net/public/mcp");
    /// assert_eq!(auth.metadata_path("/mcp"), "/.well-known/oauth-protected-resource/public/mcp");
    /// ```
    pub fn metadata_path(&self, endpoint_path: &str) -> String {
        let path = match &self.resource {
            Some(resource) => split_uri(resource).1,
            None => endpoint_path,
        };
        format!("{WELL_KNOWN}{}", path.trim_end_matches('/'))
    }

    /// The resource this request reaches at `path`: its URI and its metadata URL.
    pub(crate) fn target(&self, headers: &HeaderMap, path: &str) -> Target {
        let uri = match &self.resource {
            Some(resource) => resource.clone(),
            None => {
                let host = headers
                    .get(header::HOST)
                    .and_then(|h| h.to_str().ok())
                    .filter(|h| !h.is_empty())
                    .unwrap_or("localhost");
                format!("http://{host}{path}")
            }
        };
        let (origin, resource_path) = split_uri(&uri);
        let metadata_url = format!(
            "{origin}{WELL_KNOWN}{}",
            resource_path.trim_end_matches('/')
        );
        Target { uri, metadata_url }
    }

    /// The metadata document for the resource `uri`.
    pub(crate) fn metadata(&self, uri: &str) -> ProtectedResourceMetadata {
        let mut metadata =
            ProtectedResourceMetadata::new(uri, self.authorization_servers.iter().cloned());
        metadata.scopes_supported = match &self.scopes_supported {
            Some(scopes) => Some(scopes.clone()),
            None if !self.required_scopes.is_empty() => Some(self.required_scopes.clone()),
            None => None,
        };
        metadata.resource_name.clone_from(&self.resource_name);
        metadata
    }
}

/// The protected resource one request reaches.
#[derive(Clone, Debug)]
pub(crate) struct Target {
    /// The resource URI.
    pub(crate) uri: String,
    /// Its metadata URL (the challenge's `resource_metadata`).
    pub(crate) metadata_url: String,
}

/// Splits an absolute URI into its origin (`scheme://authority`) and its path (without query
/// or fragment).
fn split_uri(uri: &str) -> (&str, &str) {
    let start = uri.find("://").map_or(0, |i| i + 3);
    let rest = &uri[start..];
    let authority_end = rest.find(['/', '?', '#']).map_or(uri.len(), |i| start + i);
    let tail = &uri[authority_end..];
    let path_end = tail.find(['?', '#']).unwrap_or(tail.len());
    (&uri[..authority_end], &tail[..path_end])
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn uris_split_into_origin_and_path() {
        assert_eq!(
            split_uri("https://api.example.net/public/mcp?x=1"),
            ("https://api.example.net", "/public/mcp")
        );
        assert_eq!(
            split_uri("http://localhost:3000"),
            ("http://localhost:3000", "")
        );
        assert_eq!(split_uri("http://h/"), ("http://h", "/"));
    }

    #[test]
    fn targets_come_from_the_resource_or_the_request() {
        let verify = |_: String| async { Err(super::super::VerifyError::Invalid("no".into())) };
        let auth = AuthOptions::new("https://as", verify);
        let mut headers = HeaderMap::new();
        headers.insert(header::HOST, "127.0.0.1:8080".parse().unwrap());
        let target = auth.target(&headers, "/mcp");
        assert_eq!(target.uri, "http://127.0.0.1:8080/mcp");
        assert_eq!(
            target.metadata_url,
            "http://127.0.0.1:8080/.well-known/oauth-protected-resource/mcp"
        );
        let auth = auth.resource("https://api.example.net/");
        let target = auth.target(&headers, "/mcp");
        assert_eq!(target.uri, "https://api.example.net/");
        assert_eq!(
            target.metadata_url,
            "https://api.example.net/.well-known/oauth-protected-resource"
        );
        assert_eq!(
            auth.metadata_path("/mcp"),
            "/.well-known/oauth-protected-resource"
        );
    }
}
