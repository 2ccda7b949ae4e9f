//! Content blocks: what tools return, prompts contain and sampling exchanges, tagged by `type`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::serde_util;
use crate::{Annotations, JsonObject, Meta, Resource, ResourceContents};

/// Text content (`"type": "text"`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TextContent {
    /// The text.
    pub text: String,
    /// Display hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Metadata. Since 2025-06-18.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl TextContent {
    /// Plain text without annotations.
    pub fn new(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            annotations: None,
            meta: None,
        }
    }
}

/// Image content (`"type": "image"`): base64 data and a MIME type.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageContent {
    /// Base64-encoded image bytes.
    pub data: String,
    /// The image MIME type, e.g. `image/png`.
    pub mime_type: String,
    /// Display hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Metadata. Since 2025-06-18.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl ImageContent {
    /// An image from already base64-encoded data.
    pub fn new(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        Self {
            data: data.into(),
            mime_type: mime_type.into(),
            annotations: None,
            meta: None,
        }
    }

    /// An image from raw bytes, base64-encoded here.
    pub fn from_bytes(bytes: &[u8], mime_type: impl Into<String>) -> Self {
        Self::new(encode_base64(bytes), mime_type)
    }
}

/// Audio content (`"type": "audio"`). Since 2025-03-26.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AudioContent {
    /// Base64-encoded audio bytes.
    pub data: String,
    /// The audio MIME type, e.g. `audio/wav`.
    pub mime_type: String,
    /// Display hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Metadata. Since 2025-06-18.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl AudioContent {
    /// Audio from already base64-encoded data.
    pub fn new(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        Self {
            data: data.into(),
            mime_type: mime_type.into(),
            annotations: None,
            meta: None,
        }
    }

    /// Audio from raw bytes, base64-encoded here.
    pub fn from_bytes(bytes: &[u8], mime_type: impl Into<String>) -> Self {
        Self::new(encode_base64(bytes), mime_type)
    }
}

/// The contents of a resource embedded in a message (`"type": "resource"`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EmbeddedResource {
    /// The resource's text or blob contents.
    pub resource: ResourceContents,
    /// Display hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Metadata. Since 2025-06-18.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl EmbeddedResource {
    /// Embeds `resource` without annotations.
    pub fn new(resource: ResourceContents) -> Self {
        Self {
            resource,
            annotations: None,
            meta: None,
        }
    }
}

/// A request from the model to call a tool, in sampling (`"type": "tool_use"`). Since
/// 2025-11-25.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolUseContent {
    /// Identifies this call; the matching [`ToolResultContent::tool_use_id`] echoes it.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The tool arguments.
    pub input: JsonObject,
    /// Metadata; clients SHOULD keep it when echoing the block.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// The result of a tool call, in sampling (`"type": "tool_result"`). Since 2025-11-25.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolResultContent {
    /// The [`ToolUseContent::id`] this answers.
    pub tool_use_id: String,
    /// Unstructured result.
    pub content: Vec<ContentBlock>,
    /// Structured result: an object in 2025-11-25, any JSON value in 2026-07-28. A present
    /// `null` is kept as `Some(Value::Null)`.
    #[serde(
        default,
        deserialize_with = "serde_util::present",
        skip_serializing_if = "Option::is_none"
    )]
    pub structured_content: Option<Value>,
    /// Whether the tool call failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// Metadata; clients SHOULD keep it when echoing the block.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// A content block (schema `ContentBlock`), tagged by `type`.
///
/// Which blocks exist depends on the revision: `text`, `image`, `resource` in all; `audio` since
/// 2025-03-26; `resource_link` since 2025-06-18.
///
/// ```
/// use presa_core::ContentBlock;
///
/// let block = ContentBlock::text("hello");
/// let json = serde_json::to_value(&block).unwrap();
/// assert_eq!(json, serde_json::json!({"type": "text", "text": "hello"}));
/// assert_eq!(serde_json::from_value::<ContentBlock>(json).unwrap(), block);
/// ```
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum ContentBlock {
    /// `"text"`.
    Text(TextContent),
    /// `"image"`.
    Image(ImageContent),
    /// `"audio"`. Since 2025-03-26.
    Audio(AudioContent),
    /// `"resource_link"`: a link to a resource, with the [`Resource`] fields. Since 2025-06-18.
    ResourceLink(Resource),
    /// `"resource"`: an embedded resource.
    Resource(EmbeddedResource),
}

impl ContentBlock {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self::Text(TextContent::new(text))
    }

    /// An image block from base64 data.
    pub fn image(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        Self::Image(ImageContent::new(data, mime_type))
    }

    /// An audio block from base64 data.
    pub fn audio(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        Self::Audio(AudioContent::new(data, mime_type))
    }

    /// A `resource_link` block.
    pub fn resource_link(resource: Resource) -> Self {
        Self::ResourceLink(resource)
    }

    /// An embedded resource block.
    pub fn embedded(contents: ResourceContents) -> Self {
        Self::Resource(EmbeddedResource::new(contents))
    }

    /// The text, if this is a text block.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Self::Text(t) => Some(&t.text),
            _ => None,
        }
    }

    /// The wire tag of this block.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Text(_) => "text",
            Self::Image(_) => "image",
            Self::Audio(_) => "audio",
            Self::ResourceLink(_) => "resource_link",
            Self::Resource(_) => "resource",
        }
    }
}

impl From<TextContent> for ContentBlock {
    fn from(c: TextContent) -> Self {
        Self::Text(c)
    }
}

impl From<ImageContent> for ContentBlock {
    fn from(c: ImageContent) -> Self {
        Self::Image(c)
    }
}

impl From<AudioContent> for ContentBlock {
    fn from(c: AudioContent) -> Self {
        Self::Audio(c)
    }
}

impl From<EmbeddedResource> for ContentBlock {
    fn from(c: EmbeddedResource) -> Self {
        Self::Resource(c)
    }
}

/// A content block of a sampling message (schema `SamplingMessageContentBlock`), tagged by
/// `type`: text, image, audio (since 2025-03-26), `tool_use` and `tool_result` (since
/// 2025-11-25).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum SamplingContent {
    /// `"text"`.
    Text(TextContent),
    /// `"image"`.
    Image(ImageContent),
    /// `"audio"`.
    Audio(AudioContent),
    /// `"tool_use"`.
    ToolUse(ToolUseContent),
    /// `"tool_result"`.
    ToolResult(ToolResultContent),
}

impl SamplingContent {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self::Text(TextContent::new(text))
    }

    /// The text, if this is a text block.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Self::Text(t) => Some(&t.text),
            _ => None,
        }
    }
}

impl From<TextContent> for SamplingContent {
    fn from(c: TextContent) -> Self {
        Self::Text(c)
    }
}

impl From<ToolUseContent> for SamplingContent {
    fn from(c: ToolUseContent) -> Self {
        Self::ToolUse(c)
    }
}

impl From<ToolResultContent> for SamplingContent {
    fn from(c: ToolResultContent) -> Self {
        Self::ToolResult(c)
    }
}

/// The `content` of a sampling message or `sampling/createMessage` result: one block, or (since
/// 2025-11-25) an array of blocks.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum SamplingMessageContent {
    /// A single block (the only form before 2025-11-25).
    Single(SamplingContent),
    /// Several blocks. Since 2025-11-25.
    Multiple(Vec<SamplingContent>),
}

impl SamplingMessageContent {
    /// The blocks, one or many, as a slice.
    pub fn as_slice(&self) -> &[SamplingContent] {
        match self {
            Self::Single(block) => std::slice::from_ref(block),
            Self::Multiple(blocks) => blocks,
        }
    }
}

impl From<SamplingContent> for SamplingMessageContent {
    fn from(block: SamplingContent) -> Self {
        Self::Single(block)
    }
}

impl From<Vec<SamplingContent>> for SamplingMessageContent {
    fn from(blocks: Vec<SamplingContent>) -> Self {
        Self::Multiple(blocks)
    }
}

fn encode_base64(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

impl_has_meta!(
    TextContent,
    ImageContent,
    AudioContent,
    EmbeddedResource,
    ToolUseContent,
    ToolResultContent
);

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use serde_json::json;

    use super::*;

    #[test]
    fn blocks_are_tagged_by_type() {
        let cases = [
            json!({"type": "text", "text": "hi"}),
            json!({"type": "image", "data": "AAAA", "mimeType": "image/png"}),
            json!({"type": "audio", "data": "AAAA", "mimeType": "audio/wav"}),
            json!({"type": "resource_link", "uri": "file:///a", "name": "a"}),
            json!({"type": "resource", "resource": {"uri": "file:///a", "blob": "AAAA"}}),
        ];
        let kinds = ["text", "image", "audio", "resource_link", "resource"];
        for (case, kind) in cases.into_iter().zip(kinds) {
            let block: ContentBlock = serde_json::from_value(case.clone()).unwrap();
            assert_eq!(block.kind(), kind);
            assert_eq!(serde_json::to_value(&block).unwrap(), case);
        }
    }

    #[test]
    fn bad_blocks_are_rejected() {
        for bad in [
            json!({"text": "no type"}),
            json!({"type": "video", "data": "AAAA"}),
            json!({"type": "text"}),
            json!({"type": "tool_use", "id": "1", "name": "x", "input": {}}),
        ] {
            assert!(
                serde_json::from_value::<ContentBlock>(bad.clone()).is_err(),
                "{bad}"
            );
        }
        let dup = r#"{"type": "text", "text": "a", "text": "b"}"#;
        assert!(serde_json::from_str::<ContentBlock>(dup).is_err());
    }

    #[test]
    fn sampling_content_is_one_or_many() {
        let one: SamplingMessageContent =
            serde_json::from_value(json!({"type": "text", "text": "x"})).unwrap();
        assert_eq!(one.as_slice().len(), 1);
        let many: SamplingMessageContent = serde_json::from_value(json!([
            {"type": "tool_use", "id": "a", "name": "t", "input": {}},
            {"type": "tool_result", "toolUseId": "a", "content": [], "structuredContent": null}
        ]))
        .unwrap();
        let SamplingMessageContent::Multiple(blocks) = &many else {
            panic!("expected many")
        };
        let SamplingContent::ToolResult(result) = &blocks[1] else {
            panic!("expected result")
        };
        assert_eq!(result.structured_content, Some(Value::Null));
        assert_eq!(
            serde_json::to_value(&many).unwrap()[1]["structuredContent"],
            Value::Null,
            "a present null survives"
        );
    }

    #[test]
    fn unknown_members_are_ignored() {
        let block: ContentBlock =
            serde_json::from_str(r#"{"type":"text","text":"x","future":{"a":[1,2]}}"#).unwrap();
        assert_eq!(block, ContentBlock::text("x"));
    }
}
