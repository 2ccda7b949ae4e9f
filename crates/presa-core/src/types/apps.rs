//! MCP Apps (SEP-1865, `io.modelcontextprotocol/ui`): a tool names an HTML page, a `ui://`
//! resource, that a host which supports apps renders in a sandboxed frame. The page talks to
//! the host over `postMessage`, and can call the server's tools through it.
//!
//! A host declares the extension with the MIME types it renders ([`UiClientSettings`]); a tool
//! links its page in `_meta.ui` ([`UiToolMeta`]); the page's resource says, in its own
//! `_meta.ui` ([`UiResourceMeta`]), what the frame may load and use.
//!
//! ```
//! use presa_core::apps::{UiToolMeta, UiVisibility};
//!
//! let meta = UiToolMeta::new("ui://weather/dashboard").visibility([UiVisibility::Model, UiVisibility::App]);
//! assert_eq!(
//!     serde_json::to_value(&meta).unwrap(),
//!     serde_json::json!({"resourceUri": "ui://weather/dashboard", "visibility": ["model", "app"]}),
//! );
//! ```

use serde::{Deserialize, Serialize};

use crate::{JsonObject, Meta};

/// The extension's identifier, under which a host declares it in `capabilities.extensions`.
pub const APPS_EXTENSION: &str = "io.modelcontextprotocol/ui";

/// The MIME type of an app's HTML page.
pub const APP_MIME_TYPE: &str = "text/html;profile=mcp-app";

/// The scheme of an app's resource URI.
pub const UI_SCHEME: &str = "ui://";

/// The `_meta` key of a tool's and a resource's [`UiToolMeta`] and [`UiResourceMeta`].
pub const UI_META: &str = "ui";

/// The deprecated flat `_meta` key of a tool's page, which hosts still read:
/// `_meta["ui/resourceUri"]`.
pub const LEGACY_RESOURCE_URI_META: &str = "ui/resourceUri";

/// The extension's settings as a host declares them.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UiClientSettings {
    /// The MIME types of the pages the host renders ([`APP_MIME_TYPE`]).
    #[serde(default)]
    pub mime_types: Vec<String>,
}

impl UiClientSettings {
    /// Whether the host renders app pages.
    pub fn renders_apps(&self) -> bool {
        self.mime_types.iter().any(|m| m == APP_MIME_TYPE)
    }
}

/// Who may call a tool linked to an app.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum UiVisibility {
    /// The model: the host lists the tool to the agent.
    Model,
    /// The app: its page may call the tool through the host.
    App,
}

/// A tool's `_meta.ui`: the page that shows its results, and who may call it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UiToolMeta {
    /// The `ui://` resource of the page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_uri: Option<String>,
    /// Who may call the tool; both when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub visibility: Option<Vec<UiVisibility>>,
}

impl UiToolMeta {
    /// The page at `resource_uri`, for both the model and the app.
    pub fn new(resource_uri: impl Into<String>) -> Self {
        Self {
            resource_uri: Some(resource_uri.into()),
            visibility: None,
        }
    }

    /// Only these may call the tool (e.g. `[UiVisibility::App]` for a tool only the page calls).
    #[must_use]
    pub fn visibility(mut self, visibility: impl IntoIterator<Item = UiVisibility>) -> Self {
        self.visibility = Some(visibility.into_iter().collect());
        self
    }

    /// This as a tool's `_meta`: `ui`, and the deprecated `ui/resourceUri` beside it, which hosts
    /// still read, merged into `meta`.
    pub fn merge_into(&self, meta: &mut Meta) {
        if let Ok(value) = serde_json::to_value(self) {
            meta.insert(UI_META.to_owned(), value);
        }
        if let Some(uri) = &self.resource_uri {
            meta.insert(LEGACY_RESOURCE_URI_META.to_owned(), uri.clone().into());
        }
    }
}

/// A page resource's `_meta.ui`: what its frame may load and use. Everything is optional; a
/// host's default lets a page load nothing from the network.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UiResourceMeta {
    /// The Content Security Policy's allowed origins.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub csp: Option<UiCsp>,
    /// The browser features the frame asks for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permissions: Option<UiPermissions>,
    /// A dedicated origin for the frame, in the host's format.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub domain: Option<String>,
    /// Whether the host should draw a border and background around the frame.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefers_border: Option<bool>,
}

/// The origins a page may reach, by kind (each becomes a CSP directive).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UiCsp {
    /// `connect-src`: fetch, XHR and WebSocket.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connect_domains: Option<Vec<String>>,
    /// Images, scripts, styles, fonts and media.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_domains: Option<Vec<String>>,
    /// `frame-src`: nested frames.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame_domains: Option<Vec<String>>,
    /// `base-uri`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_uri_domains: Option<Vec<String>>,
}

/// The browser features a page asks for (each an empty object when asked).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UiPermissions {
    /// The camera.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub camera: Option<JsonObject>,
    /// The microphone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub microphone: Option<JsonObject>,
    /// The location.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub geolocation: Option<JsonObject>,
    /// Writing to the clipboard.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clipboard_write: Option<JsonObject>,
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use serde_json::json;

    use super::*;

    #[test]
    fn a_tool_names_its_page_in_both_keys_hosts_read() {
        let mut meta = Meta::new();
        UiToolMeta::new("ui://a/page")
            .visibility([UiVisibility::App])
            .merge_into(&mut meta);
        assert_eq!(
            serde_json::Value::Object(meta),
            json!({"ui": {"resourceUri": "ui://a/page", "visibility": ["app"]},
                   "ui/resourceUri": "ui://a/page"})
        );
    }

    #[test]
    fn a_host_renders_apps_when_it_declares_their_mime_type() {
        let settings: UiClientSettings =
            serde_json::from_value(json!({"mimeTypes": [APP_MIME_TYPE]})).unwrap();
        assert!(settings.renders_apps());
        assert!(!UiClientSettings::default().renders_apps());
    }
}
