//! Helpers that build content blocks for tool results and prompt messages.
//!
//! Binary data is given as bytes and base64-encoded here.
//!
//! ```
//! use presa_server::{content, Content};
//!
//! let blocks = Content(vec![
//!     content::text("Here is the logo:"),
//!     content::image(&[0x89, b'P', b'N', b'G'], "image/png"),
//! ]);
//! assert_eq!(blocks.0[1].kind(), "image");
//! ```

use presa_core::{
    AudioContent, ContentBlock, EmbeddedResource, ImageContent, Resource, ResourceContents,
};

/// A text block.
pub fn text(text: impl Into<String>) -> ContentBlock {
    ContentBlock::text(text)
}

/// An image block from raw bytes.
pub fn image(bytes: &[u8], mime_type: impl Into<String>) -> ContentBlock {
    ImageContent::from_bytes(bytes, mime_type).into()
}

/// An image block from data that is already base64-encoded.
pub fn image_base64(data: impl Into<String>, mime_type: impl Into<String>) -> ContentBlock {
    ContentBlock::image(data, mime_type)
}

/// An audio block from raw bytes.
pub fn audio(bytes: &[u8], mime_type: impl Into<String>) -> ContentBlock {
    AudioContent::from_bytes(bytes, mime_type).into()
}

/// An audio block from data that is already base64-encoded.
pub fn audio_base64(data: impl Into<String>, mime_type: impl Into<String>) -> ContentBlock {
    ContentBlock::audio(data, mime_type)
}

/// A link to a resource the client may read.
pub fn resource_link(resource: Resource) -> ContentBlock {
    ContentBlock::resource_link(resource)
}

/// An embedded text resource.
pub fn embedded_text(
    uri: impl Into<String>,
    text: impl Into<String>,
    mime_type: Option<&str>,
) -> ContentBlock {
    let mut contents = ResourceContents::text(uri, text);
    if let ResourceContents::Text(t) = &mut contents {
        t.mime_type = mime_type.map(str::to_owned);
    }
    EmbeddedResource::new(contents).into()
}

/// An embedded binary resource from raw bytes.
pub fn embedded_blob(
    uri: impl Into<String>,
    bytes: &[u8],
    mime_type: Option<&str>,
) -> ContentBlock {
    EmbeddedResource::new(ResourceContents::blob(
        uri,
        bytes,
        mime_type.map(str::to_owned),
    ))
    .into()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

    #[test]
    fn bytes_are_base64_encoded() {
        let block = serde_json::to_value(image(b"hi", "image/png")).unwrap();
        assert_eq!(
            block,
            json!({"type": "image", "data": "aGk=", "mimeType": "image/png"})
        );
        let block = serde_json::to_value(embedded_blob("file:///a", b"hi", Some("x/y"))).unwrap();
        assert_eq!(
            block["resource"],
            json!({"uri": "file:///a", "blob": "aGk=", "mimeType": "x/y"})
        );
        let block = serde_json::to_value(embedded_text("file:///t", "t", None)).unwrap();
        assert_eq!(
            block,
            json!({"type": "resource", "resource": {"uri": "file:///t", "text": "t"}})
        );
        assert_eq!(audio(b"hi", "audio/wav").kind(), "audio");
        assert_eq!(
            resource_link(Resource::new("file:///r", "r")).kind(),
            "resource_link"
        );
    }
}
