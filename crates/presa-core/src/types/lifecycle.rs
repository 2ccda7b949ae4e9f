//! Identity and lifecycle: `Implementation`, the `initialize` handshake (initialize era) and
//! `server/discover` (2026-07-28).

use serde::{Deserialize, Serialize};

use super::serde_util;
use crate::{CacheScope, ClientCapabilities, Icon, Meta, ResultType, ServerCapabilities};

/// The name and version of a client or server (`clientInfo`, `serverInfo`).
///
/// ```
/// use presa_core::Implementation;
///
/// let info = Implementation::new("presa-cli", "0.3.1");
/// assert_eq!(serde_json::to_string(&info).unwrap(), r#"{"name":"presa-cli","version":"0.3.1"}"#);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Implementation {
    /// Programmatic name.
    pub name: String,
    /// Display name. Since 2025-06-18.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Version string.
    pub version: String,
    /// What the implementation is. Since 2025-11-25.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Icons for display. Since 2025-11-25.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Home page. Since 2025-11-25.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub website_url: Option<String>,
}

impl Implementation {
    /// An implementation with a name and a version.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            version: version.into(),
            ..Self::default()
        }
    }

    /// Sets the title.
    #[must_use]
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }
}

/// Params of `initialize` (initialize era only).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializeRequestParams {
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// The revision the client proposes (its newest).
    pub protocol_version: String,
    /// What the client supports.
    pub capabilities: ClientCapabilities,
    /// Who the client is.
    pub client_info: Implementation,
}

impl InitializeRequestParams {
    /// Params proposing `protocol_version`.
    pub fn new(
        protocol_version: impl Into<String>,
        capabilities: ClientCapabilities,
        client_info: Implementation,
    ) -> Self {
        Self {
            meta: None,
            protocol_version: protocol_version.into(),
            capabilities,
            client_info,
        }
    }
}

/// Result of `initialize` (initialize era only; never carries `resultType`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializeResult {
    /// The revision the server chose: the client's proposal if supported, else its own newest.
    pub protocol_version: String,
    /// What the server supports.
    pub capabilities: ServerCapabilities,
    /// Who the server is.
    pub server_info: Implementation,
    /// Usage hints for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// Result of `server/discover` (2026-07-28): versions, capabilities and instructions. The
/// server's identity travels in `_meta["io.modelcontextprotocol/serverInfo"]`.
///
/// Clients ignore unknown members (some pre-final servers still send a top-level
/// `serverInfo`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DiscoverResult {
    /// The result type (required in 2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// Revisions the server speaks; the client picks one for later requests.
    pub supported_versions: Vec<String>,
    /// What the server supports.
    pub capabilities: ServerCapabilities,
    /// Usage hints for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// Freshness in milliseconds (required).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "serde_util::lenient_ttl"
    )]
    pub ttl_ms: Option<u64>,
    /// Who may reuse the result (required).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<CacheScope>,
    /// Result metadata, with `io.modelcontextprotocol/serverInfo`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl DiscoverResult {
    /// The server's identity, from `_meta["io.modelcontextprotocol/serverInfo"]`.
    ///
    /// ```
    /// use presa_core::DiscoverResult;
    ///
    /// let result: DiscoverResult = serde_json::from_value(serde_json::json!({
    ///     "supportedVersions": ["2026-07-28"], "capabilities": {},
    ///     "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "weather", "version": "2"}}
    /// })).unwrap();
    /// assert_eq!(result.server_info().unwrap().name, "weather");
    /// ```
    pub fn server_info(&self) -> Option<Implementation> {
        let info = self.meta.as_ref()?.get(crate::META_SERVER_INFO)?;
        Implementation::deserialize(info).ok()
    }
}

impl_has_meta!(InitializeRequestParams, InitializeResult, DiscoverResult);
impl_has_result_type!(DiscoverResult);
