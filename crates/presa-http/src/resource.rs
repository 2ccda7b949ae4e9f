//! What the server and the client sides of authorization share: the protected resource
//! metadata document (RFC 9728).

use serde::{Deserialize, Serialize};

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
///
/// The server side serves it (presa-http's auth layer); the client side reads it (presa-oauth's
/// discovery), leniently: a member a server left out reads as empty.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ProtectedResourceMetadata {
    /// The resource identifier: this MCP server's URI (empty when a document left it out).
    #[serde(default)]
    pub resource: String,
    /// The issuer URLs of the authorization servers that issue tokens for it.
    #[serde(default)]
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
