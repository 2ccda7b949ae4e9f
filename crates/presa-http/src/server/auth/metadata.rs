//! RFC 9728 protected resource metadata: how a client finds out where to get a token.

use axum::Router;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde::{Deserialize, Serialize};

use super::options::AuthOptions;

/// The protected resource metadata document (RFC 9728) of an MCP server.
///
/// ```
/// use presa_http::ProtectedResourceMetadata;
///
/// let metadata = ProtectedResourceMetadata::new(
///     "https://api.example.net/mcp",
///     ["https://login.example.net/tenant-a"],
/// );
/// let json = serde_json::to_value(&metadata).unwrap();
/// assert_eq!(json["authorization_servers"][0], "https://login.example.net/tenant-a");
/// assert_eq!(json["bearer_methods_supported"][0], "header");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ProtectedResourceMetadata {
    /// The resource identifier: this MCP server's URI.
    pub resource: String,
    /// The issuer URLs of the authorization servers that issue tokens for it.
    pub authorization_servers: Vec<String>,
    /// The scopes a client may ask for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scopes_supported: Option<Vec<String>>,
    /// How tokens are sent: only `header` (`Authorization: Bearer`).
    #[serde(default)]
    pub bearer_methods_supported: Vec<String>,
    /// A human-readable name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_name: Option<String>,
}

impl ProtectedResourceMetadata {
    /// The metadata of `resource`, protected by tokens of `authorization_servers`, sent in the
    /// `Authorization` header.
    pub fn new<I, S>(resource: impl Into<String>, authorization_servers: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Self {
            resource: resource.into(),
            authorization_servers: authorization_servers.into_iter().map(Into::into).collect(),
            scopes_supported: None,
            bearer_methods_supported: vec!["header".into()],
            resource_name: None,
        }
    }
}

impl AuthOptions {
    /// A router serving only the protected resource metadata of the endpoint at
    /// `endpoint_path`, at [`metadata_path`](Self::metadata_path). It needs no token.
    ///
    /// [`router`](crate::router) includes it; use this one with an [`AuthLayer`] on routes of
    /// your own.
    ///
    /// [`AuthLayer`]: crate::AuthLayer
    pub fn metadata_router<S: Clone + Send + Sync + 'static>(
        &self,
        endpoint_path: &str,
    ) -> Router<S> {
        let auth = self.clone();
        let path = endpoint_path.to_owned();
        Router::new().route(
            &self.metadata_path(endpoint_path),
            get(move |headers: HeaderMap| async move { metadata_response(&auth, &headers, &path) }),
        )
    }
}

/// The metadata as a JSON response.
fn metadata_response(auth: &AuthOptions, headers: &HeaderMap, path: &str) -> Response {
    let target = auth.target(headers, path);
    let body = match serde_json::to_string(&auth.metadata(&target.uri)) {
        Ok(body) => body,
        Err(_) => return StatusCode::INTERNAL_SERVER_ERROR.into_response(),
    };
    let mut response = (StatusCode::OK, body).into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}
