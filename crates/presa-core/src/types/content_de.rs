//! Deserialization of content blocks without buffering.
//!
//! serde's internally tagged enums buffer every member into an intermediate tree before they
//! look at the tag. Content blocks are on the hot path (every `tools/call` result), so this
//! visitor reads each member straight into its final type, then builds the variant the `type`
//! member names. Unknown members are skipped.

use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use crate::{
    Annotations, AudioContent, ContentBlock, EmbeddedResource, Icon, ImageContent, JsonObject,
    Meta, Resource, ResourceContents, SamplingContent, SamplingMessageContent, TextContent,
    ToolResultContent, ToolUseContent,
};

#[derive(Deserialize)]
#[serde(field_identifier, rename_all = "camelCase")]
enum Field {
    Type,
    Text,
    Data,
    MimeType,
    Annotations,
    #[serde(rename = "_meta")]
    Meta,
    Resource,
    Uri,
    Name,
    Title,
    Description,
    Size,
    Icons,
    Id,
    Input,
    ToolUseId,
    Content,
    StructuredContent,
    IsError,
    #[serde(other)]
    Other,
}

/// The members of every content block kind.
#[derive(Default)]
struct Fields {
    kind: Option<String>,
    text: Option<String>,
    data: Option<String>,
    mime_type: Option<String>,
    annotations: Option<Annotations>,
    meta: Option<Meta>,
    resource: Option<ResourceContents>,
    uri: Option<String>,
    name: Option<String>,
    title: Option<String>,
    description: Option<String>,
    size: Option<u64>,
    icons: Option<Vec<Icon>>,
    id: Option<String>,
    input: Option<JsonObject>,
    tool_use_id: Option<String>,
    content: Option<Vec<ContentBlock>>,
    structured_content: Option<Value>,
    is_error: Option<bool>,
}

/// Every content block kind, before it is narrowed to [`ContentBlock`] or [`SamplingContent`].
enum AnyContent {
    Text(TextContent),
    Image(ImageContent),
    Audio(AudioContent),
    ResourceLink(Resource),
    Resource(EmbeddedResource),
    ToolUse(ToolUseContent),
    ToolResult(ToolResultContent),
}

const ALL_KINDS: &[&str] = &[
    "text",
    "image",
    "audio",
    "resource_link",
    "resource",
    "tool_use",
    "tool_result",
];
const BLOCK_KINDS: &[&str] = &["text", "image", "audio", "resource_link", "resource"];
const SAMPLING_KINDS: &[&str] = &["text", "image", "audio", "tool_use", "tool_result"];

fn required<T, E: de::Error>(value: Option<T>, name: &'static str) -> Result<T, E> {
    value.ok_or_else(|| E::missing_field(name))
}

/// Sets an optional slot once; a second occurrence of the member is an error, as with derived
/// impls. A `null` value leaves the slot empty.
fn set_once<'de, A: MapAccess<'de>, T: Deserialize<'de>>(
    map: &mut A,
    slot: &mut Option<T>,
    seen: &mut bool,
    name: &'static str,
) -> Result<(), A::Error> {
    if std::mem::replace(seen, true) {
        return Err(de::Error::duplicate_field(name));
    }
    *slot = map.next_value::<Option<T>>()?;
    Ok(())
}

struct ContentVisitor;

impl<'de> Visitor<'de> for ContentVisitor {
    type Value = AnyContent;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a content block object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<AnyContent, A::Error> {
        let mut f = Fields::default();
        let mut seen = [false; 19];
        while let Some(key) = map.next_key::<Field>()? {
            match key {
                Field::Type => set_once(&mut map, &mut f.kind, &mut seen[0], "type")?,
                Field::Text => set_once(&mut map, &mut f.text, &mut seen[1], "text")?,
                Field::Data => set_once(&mut map, &mut f.data, &mut seen[2], "data")?,
                Field::MimeType => set_once(&mut map, &mut f.mime_type, &mut seen[3], "mimeType")?,
                Field::Annotations => {
                    set_once(&mut map, &mut f.annotations, &mut seen[4], "annotations")?
                }
                Field::Meta => set_once(&mut map, &mut f.meta, &mut seen[5], "_meta")?,
                Field::Resource => set_once(&mut map, &mut f.resource, &mut seen[6], "resource")?,
                Field::Uri => set_once(&mut map, &mut f.uri, &mut seen[7], "uri")?,
                Field::Name => set_once(&mut map, &mut f.name, &mut seen[8], "name")?,
                Field::Title => set_once(&mut map, &mut f.title, &mut seen[9], "title")?,
                Field::Description => {
                    set_once(&mut map, &mut f.description, &mut seen[10], "description")?
                }
                Field::Size => set_once(&mut map, &mut f.size, &mut seen[11], "size")?,
                Field::Icons => set_once(&mut map, &mut f.icons, &mut seen[12], "icons")?,
                Field::Id => set_once(&mut map, &mut f.id, &mut seen[13], "id")?,
                Field::Input => set_once(&mut map, &mut f.input, &mut seen[14], "input")?,
                Field::ToolUseId => {
                    set_once(&mut map, &mut f.tool_use_id, &mut seen[15], "toolUseId")?
                }
                Field::Content => set_once(&mut map, &mut f.content, &mut seen[16], "content")?,
                Field::StructuredContent => {
                    if std::mem::replace(&mut seen[17], true) {
                        return Err(de::Error::duplicate_field("structuredContent"));
                    }
                    // A present `null` is kept: structured content may be any JSON value.
                    f.structured_content = Some(map.next_value::<Value>()?);
                }
                Field::IsError => set_once(&mut map, &mut f.is_error, &mut seen[18], "isError")?,
                Field::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        build(f)
    }
}

fn build<E: de::Error>(f: Fields) -> Result<AnyContent, E> {
    let kind = required(f.kind, "type")?;
    Ok(match kind.as_str() {
        "text" => AnyContent::Text(TextContent {
            text: required(f.text, "text")?,
            annotations: f.annotations,
            meta: f.meta,
        }),
        "image" => AnyContent::Image(ImageContent {
            data: required(f.data, "data")?,
            mime_type: required(f.mime_type, "mimeType")?,
            annotations: f.annotations,
            meta: f.meta,
        }),
        "audio" => AnyContent::Audio(AudioContent {
            data: required(f.data, "data")?,
            mime_type: required(f.mime_type, "mimeType")?,
            annotations: f.annotations,
            meta: f.meta,
        }),
        "resource_link" => AnyContent::ResourceLink(Resource {
            uri: required(f.uri, "uri")?,
            name: required(f.name, "name")?,
            title: f.title,
            description: f.description,
            mime_type: f.mime_type,
            size: f.size,
            icons: f.icons,
            annotations: f.annotations,
            meta: f.meta,
        }),
        "resource" => AnyContent::Resource(EmbeddedResource {
            resource: required(f.resource, "resource")?,
            annotations: f.annotations,
            meta: f.meta,
        }),
        "tool_use" => AnyContent::ToolUse(ToolUseContent {
            id: required(f.id, "id")?,
            name: required(f.name, "name")?,
            input: required(f.input, "input")?,
            meta: f.meta,
        }),
        "tool_result" => AnyContent::ToolResult(ToolResultContent {
            tool_use_id: required(f.tool_use_id, "toolUseId")?,
            content: required(f.content, "content")?,
            structured_content: f.structured_content,
            is_error: f.is_error,
            meta: f.meta,
        }),
        other => return Err(E::unknown_variant(other, ALL_KINDS)),
    })
}

impl<'de> Deserialize<'de> for ContentBlock {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        match deserializer.deserialize_map(ContentVisitor)? {
            AnyContent::Text(c) => Ok(Self::Text(c)),
            AnyContent::Image(c) => Ok(Self::Image(c)),
            AnyContent::Audio(c) => Ok(Self::Audio(c)),
            AnyContent::ResourceLink(c) => Ok(Self::ResourceLink(c)),
            AnyContent::Resource(c) => Ok(Self::Resource(c)),
            AnyContent::ToolUse(_) => Err(de::Error::unknown_variant("tool_use", BLOCK_KINDS)),
            AnyContent::ToolResult(_) => {
                Err(de::Error::unknown_variant("tool_result", BLOCK_KINDS))
            }
        }
    }
}

impl<'de> Deserialize<'de> for SamplingContent {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        match deserializer.deserialize_map(ContentVisitor)? {
            AnyContent::Text(c) => Ok(Self::Text(c)),
            AnyContent::Image(c) => Ok(Self::Image(c)),
            AnyContent::Audio(c) => Ok(Self::Audio(c)),
            AnyContent::ToolUse(c) => Ok(Self::ToolUse(c)),
            AnyContent::ToolResult(c) => Ok(Self::ToolResult(c)),
            AnyContent::ResourceLink(_) => {
                Err(de::Error::unknown_variant("resource_link", SAMPLING_KINDS))
            }
            AnyContent::Resource(_) => Err(de::Error::unknown_variant("resource", SAMPLING_KINDS)),
        }
    }
}

impl<'de> Deserialize<'de> for SamplingMessageContent {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct OneOrMany;
        impl<'de> Visitor<'de> for OneOrMany {
            type Value = SamplingMessageContent;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a content block or an array of content blocks")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                let block =
                    SamplingContent::deserialize(de::value::MapAccessDeserializer::new(map))?;
                Ok(SamplingMessageContent::Single(block))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
                let blocks = Vec::deserialize(de::value::SeqAccessDeserializer::new(seq))?;
                Ok(SamplingMessageContent::Multiple(blocks))
            }
        }
        deserializer.deserialize_any(OneOrMany)
    }
}
