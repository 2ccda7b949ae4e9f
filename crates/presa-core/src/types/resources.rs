//! Resources: descriptors, templates, contents, and the `resources/*` params and results.

use std::fmt;

use serde::de::{self, IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};

use super::serde_util;
use crate::{Annotations, CacheScope, Icon, InputResponses, Meta, ResultType};

/// A resource the server can read (schema `Resource`); also the fields of a `resource_link`
/// content block.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Resource {
    /// The resource URI.
    pub uri: String,
    /// Programmatic name.
    pub name: String,
    /// Display name. Since 2025-06-18.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the resource is, for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// MIME type, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Size of the raw content in bytes (before base64), if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// Icons for display. Since 2025-11-25.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Display hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Metadata. Since 2025-06-18.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl Resource {
    /// A resource with a URI and a name.
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> Self {
        Self {
            uri: uri.into(),
            name: name.into(),
            ..Self::default()
        }
    }

    /// Sets the description.
    #[must_use]
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Sets the MIME type.
    #[must_use]
    pub fn mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }

    /// Sets the size in bytes.
    #[must_use]
    pub fn size(mut self, size: u64) -> Self {
        self.size = Some(size);
        self
    }

    /// Sets the display name.
    #[must_use]
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Sets the display hints.
    #[must_use]
    pub fn annotations(mut self, annotations: Annotations) -> Self {
        self.annotations = Some(annotations);
        self
    }
}

/// A `resource_link` content block has exactly the [`Resource`] fields.
pub type ResourceLink = Resource;

/// A family of resources addressed by an RFC 6570 URI template.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceTemplate {
    /// The URI template.
    pub uri_template: String,
    /// Programmatic name.
    pub name: String,
    /// Display name. Since 2025-06-18.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the resources are, for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// MIME type, only if all matching resources share it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Icons for display. Since 2025-11-25.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Display hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Metadata. Since 2025-06-18.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl ResourceTemplate {
    /// A template with a URI template and a name.
    pub fn new(uri_template: impl Into<String>, name: impl Into<String>) -> Self {
        Self {
            uri_template: uri_template.into(),
            name: name.into(),
            ..Self::default()
        }
    }

    /// Sets the description.
    #[must_use]
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Sets the MIME type shared by every matching resource.
    #[must_use]
    pub fn mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }

    /// Sets the display name.
    #[must_use]
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Sets the display hints.
    #[must_use]
    pub fn annotations(mut self, annotations: Annotations) -> Self {
        self.annotations = Some(annotations);
        self
    }
}

/// Text contents of a resource.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TextResourceContents {
    /// The URI of this content.
    pub uri: String,
    /// MIME type, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// The text.
    pub text: String,
    /// Metadata. Since 2025-06-18.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// Binary contents of a resource, base64-encoded.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BlobResourceContents {
    /// The URI of this content.
    pub uri: String,
    /// MIME type, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Base64-encoded bytes.
    pub blob: String,
    /// Metadata. Since 2025-06-18.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl BlobResourceContents {
    /// Contents from raw bytes, base64-encoded here.
    pub fn from_bytes(uri: impl Into<String>, bytes: &[u8], mime_type: Option<String>) -> Self {
        use base64::Engine as _;
        let blob = base64::engine::general_purpose::STANDARD.encode(bytes);
        Self {
            uri: uri.into(),
            mime_type,
            blob,
            meta: None,
        }
    }

    /// Decodes the base64 blob.
    pub fn decode(&self) -> Result<Vec<u8>, base64::DecodeError> {
        use base64::Engine as _;
        base64::engine::general_purpose::STANDARD.decode(&self.blob)
    }
}

/// The contents of a resource: text or blob, told apart by which member is present.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum ResourceContents {
    /// Has `text`.
    Text(TextResourceContents),
    /// Has `blob`.
    Blob(BlobResourceContents),
}

impl ResourceContents {
    /// Text contents.
    pub fn text(uri: impl Into<String>, text: impl Into<String>) -> Self {
        Self::Text(TextResourceContents {
            uri: uri.into(),
            mime_type: None,
            text: text.into(),
            meta: None,
        })
    }

    /// Blob contents from raw bytes.
    pub fn blob(uri: impl Into<String>, bytes: &[u8], mime_type: Option<String>) -> Self {
        Self::Blob(BlobResourceContents::from_bytes(uri, bytes, mime_type))
    }

    /// The URI of this content.
    pub fn uri(&self) -> &str {
        match self {
            Self::Text(t) => &t.uri,
            Self::Blob(b) => &b.uri,
        }
    }
}

impl<'de> Deserialize<'de> for ResourceContents {
    /// Reads members straight into their types (no buffering: blobs can be large).
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(field_identifier, rename_all = "camelCase")]
        enum Field {
            Uri,
            MimeType,
            Text,
            Blob,
            #[serde(rename = "_meta")]
            Meta,
            #[serde(other)]
            Other,
        }

        struct ContentsVisitor;
        impl<'de> Visitor<'de> for ContentsVisitor {
            type Value = ResourceContents;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("resource contents with `text` or `blob`")
            }
            fn visit_map<A: MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<ResourceContents, A::Error> {
                let (mut uri, mut mime_type, mut text, mut blob, mut meta) =
                    (None, None, None, None, None);
                while let Some(key) = map.next_key::<Field>()? {
                    match key {
                        Field::Uri => uri = Some(map.next_value::<String>()?),
                        Field::MimeType => mime_type = map.next_value::<Option<String>>()?,
                        Field::Text => text = Some(map.next_value::<String>()?),
                        Field::Blob => blob = Some(map.next_value::<String>()?),
                        Field::Meta => meta = map.next_value::<Option<Meta>>()?,
                        Field::Other => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                let uri = uri.ok_or_else(|| de::Error::missing_field("uri"))?;
                match (text, blob) {
                    (Some(text), None) => Ok(ResourceContents::Text(TextResourceContents {
                        uri,
                        mime_type,
                        text,
                        meta,
                    })),
                    (None, Some(blob)) => Ok(ResourceContents::Blob(BlobResourceContents {
                        uri,
                        mime_type,
                        blob,
                        meta,
                    })),
                    (None, None) => Err(de::Error::missing_field("text` or `blob")),
                    (Some(_), Some(_)) => Err(de::Error::custom(
                        "resource contents have both `text` and `blob`",
                    )),
                }
            }
        }
        deserializer.deserialize_map(ContentsVisitor)
    }
}

/// Result of `resources/list`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListResourcesResult {
    /// 2026-07-28 only: the result type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// This page of resources.
    pub resources: Vec<Resource>,
    /// Cursor for the next page; absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// Freshness in milliseconds. 2026-07-28 only (required there).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "serde_util::lenient_ttl"
    )]
    pub ttl_ms: Option<u64>,
    /// Who may reuse the result. 2026-07-28 only (required there).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<CacheScope>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// Result of `resources/templates/list`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListResourceTemplatesResult {
    /// 2026-07-28 only: the result type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// This page of templates.
    pub resource_templates: Vec<ResourceTemplate>,
    /// Cursor for the next page; absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// Freshness in milliseconds. 2026-07-28 only (required there).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "serde_util::lenient_ttl"
    )]
    pub ttl_ms: Option<u64>,
    /// Who may reuse the result. 2026-07-28 only (required there).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<CacheScope>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// Params of `resources/read`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadResourceRequestParams {
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// The URI to read.
    pub uri: String,
    /// MRTR retry: answers to the previous `inputRequests`. 2026-07-28 only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_responses: Option<InputResponses>,
    /// MRTR retry: the `requestState` echoed byte for byte. 2026-07-28 only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
}

impl ReadResourceRequestParams {
    /// Params reading `uri`.
    pub fn new(uri: impl Into<String>) -> Self {
        Self {
            uri: uri.into(),
            ..Self::default()
        }
    }
}

/// Result of `resources/read`. Under 2026-07-28 the method may answer with an
/// [`InputRequiredResult`](crate::InputRequiredResult) instead; see
/// [`MrtrResult`](crate::MrtrResult).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadResourceResult {
    /// 2026-07-28 only: the result type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// The contents (several for e.g. a directory). Never empty for a found resource.
    pub contents: Vec<ResourceContents>,
    /// Freshness in milliseconds. 2026-07-28 only (required there).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "serde_util::lenient_ttl"
    )]
    pub ttl_ms: Option<u64>,
    /// Who may reuse the result. 2026-07-28 only (required there).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<CacheScope>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// Params of `resources/subscribe` and `resources/unsubscribe` (initialize era only; removed in
/// 2026-07-28, replaced by `subscriptions/listen`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SubscribeRequestParams {
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// The resource URI.
    pub uri: String,
}

/// Params of `resources/unsubscribe` (same shape as [`SubscribeRequestParams`]).
pub type UnsubscribeRequestParams = SubscribeRequestParams;

/// Params of `notifications/resources/updated`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ResourceUpdatedNotificationParams {
    /// Notification metadata (2026-07-28: the subscription id).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// The URI that changed; may be a sub-resource of the subscribed URI.
    pub uri: String,
}

impl_has_meta!(
    Resource,
    ResourceTemplate,
    TextResourceContents,
    BlobResourceContents,
    ListResourcesResult,
    ListResourceTemplatesResult,
    ReadResourceRequestParams,
    ReadResourceResult,
    SubscribeRequestParams,
    ResourceUpdatedNotificationParams,
);
impl_has_result_type!(
    ListResourcesResult,
    ListResourceTemplatesResult,
    ReadResourceResult
);

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use serde_json::json;

    use super::*;

    #[test]
    fn contents_are_told_apart_by_member() {
        let text: ResourceContents =
            serde_json::from_value(json!({"uri": "a:b", "text": "x"})).unwrap();
        assert!(matches!(text, ResourceContents::Text(_)));
        let blob: ResourceContents =
            serde_json::from_value(json!({"uri": "a:b", "blob": "AAEC"})).unwrap();
        let ResourceContents::Blob(b) = &blob else {
            panic!("expected blob")
        };
        assert_eq!(b.decode().unwrap(), vec![0, 1, 2]);
        for bad in [
            json!({"uri": "a:b"}),
            json!({"uri": "a:b", "text": "x", "blob": "AA=="}),
            json!({"text": "x"}),
        ] {
            assert!(
                serde_json::from_value::<ResourceContents>(bad.clone()).is_err(),
                "{bad}"
            );
        }
    }

    #[test]
    fn legacy_result_has_no_cache_hints() {
        let result = ReadResourceResult {
            contents: vec![ResourceContents::text("a:b", "x")],
            ..Default::default()
        };
        assert_eq!(
            serde_json::to_value(&result).unwrap(),
            json!({"contents": [{"uri": "a:b", "text": "x"}]})
        );
    }
}
