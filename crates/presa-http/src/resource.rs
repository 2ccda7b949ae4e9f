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
/// discovery), leniently: a member left out or `null` reads as empty, and the members a client
/// does not use (`bearer_methods_supported`, `resource_name`) as empty when malformed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ProtectedResourceMetadata {
    /// The resource identifier: this MCP server's URI (empty when a document left it out).
    #[serde(default, deserialize_with = "null_as_default")]
    pub resource: String,
    /// The issuer URLs of the authorization servers that issue tokens for it.
    #[serde(default, deserialize_with = "null_as_default")]
    pub authorization_servers: Vec<String>,
    /// The scopes a client may ask for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scopes_supported: Option<Vec<String>>,
    /// How tokens are sent: only `header` (`Authorization: Bearer`).
    #[serde(default, deserialize_with = "malformed_as_default")]
    pub bearer_methods_supported: Vec<String>,
    /// A human-readable name.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "malformed_as_default"
    )]
    pub resource_name: Option<String>,
}

/// `null` as the type's default.
fn null_as_default<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Option::<T>::deserialize(deserializer).map(Option::unwrap_or_default)
}

/// Anything that is not a `T` as `T`'s default.
fn malformed_as_default<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::de::DeserializeOwned + Default,
{
    let value = serde_json::Value::deserialize(deserializer)?;
    Ok(T::deserialize(value).unwrap_or_default())
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn a_client_reads_loose_documents_and_refuses_broken_members_it_uses() {
        let loose: ProtectedResourceMetadata = serde_json::from_value(serde_json::json!({
            "resource": null,
            "authorization_servers": ["https://as"],
            "bearer_methods_supported": "header",
            "resource_name": 5
        }))
        .unwrap();
        assert_eq!(loose.resource, "");
        assert_eq!(loose.authorization_servers, ["https://as"]);
        assert!(loose.bearer_methods_supported.is_empty());
        assert_eq!(loose.resource_name, None);
        let broken = serde_json::from_value::<ProtectedResourceMetadata>(serde_json::json!({
            "resource": "https://rs", "authorization_servers": "https://as"
        }));
        assert!(
            broken.is_err(),
            "the authorization servers are what a client needs"
        );
    }
}
