//! Reading results: their text, and a tool's structured content.

use presa_core::{CallToolResult, GetPromptResult, ReadResourceResult, ResourceContents};
use serde::de::DeserializeOwned;

use crate::ClientError;

/// The text of a result: its text blocks (or text contents) joined with `"\n"`; images, audio,
/// blobs and links are left out.
///
/// ```
/// use presa_client::ResultText;
/// use presa_core::{CallToolResult, ContentBlock};
///
/// let result = CallToolResult::new(vec![
///     ContentBlock::text("Here is the logo:"),
///     ContentBlock::image("iVBORw0KGgo=", "image/png"),
///     ContentBlock::text("(1x1)"),
/// ]);
/// assert_eq!(result.text(), "Here is the logo:\n(1x1)");
/// ```
pub trait ResultText {
    /// The text, joined with `"\n"`; empty when there is none.
    fn text(&self) -> String;
}

impl ResultText for CallToolResult {
    fn text(&self) -> String {
        join(self.content.iter().filter_map(|c| c.as_text()))
    }
}

impl ResultText for GetPromptResult {
    fn text(&self) -> String {
        join(self.messages.iter().filter_map(|m| m.content.as_text()))
    }
}

impl ResultText for ReadResourceResult {
    fn text(&self) -> String {
        join(self.contents.iter().filter_map(|c| match c {
            ResourceContents::Text(t) => Some(t.text.as_str()),
            _ => None,
        }))
    }
}

fn join<'a>(parts: impl Iterator<Item = &'a str>) -> String {
    parts.collect::<Vec<_>>().join("\n")
}

/// A tool result's `structuredContent`, read as a type of the caller's choosing.
///
/// ```
/// use presa_client::StructuredContent;
/// use presa_core::CallToolResult;
///
/// #[derive(serde::Deserialize)]
/// struct Sum { sum: f64 }
///
/// let result = CallToolResult::structured(serde_json::json!({"sum": 6}));
/// assert_eq!(result.structured::<Sum>().unwrap().sum, 6.0);
/// assert!(CallToolResult::text("6").structured::<Sum>().is_err());
/// ```
pub trait StructuredContent {
    /// `structuredContent` as `T`; [`ClientError::InvalidResult`] when it is absent or has
    /// another shape.
    fn structured<T: DeserializeOwned>(&self) -> Result<T, ClientError>;
}

impl StructuredContent for CallToolResult {
    fn structured<T: DeserializeOwned>(&self) -> Result<T, ClientError> {
        let value = self
            .structured_content
            .as_ref()
            .ok_or_else(|| ClientError::InvalidResult("no structuredContent".into()))?;
        T::deserialize(value).map_err(|e| ClientError::InvalidResult(e.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use presa_core::{ContentBlock, PromptMessage, Role};

    use super::*;

    #[test]
    fn text_joins_text_parts_only() {
        let prompt = GetPromptResult::new(vec![
            PromptMessage::text(Role::User, "a"),
            PromptMessage::text(Role::Assistant, "b"),
        ]);
        assert_eq!(prompt.text(), "a\nb");
        let read = ReadResourceResult {
            result_type: None,
            contents: vec![
                ResourceContents::text("file:///a", "x"),
                ResourceContents::blob("file:///b", b"\x00", None),
                ResourceContents::text("file:///c", "y"),
            ],
            ttl_ms: None,
            cache_scope: None,
            meta: None,
        };
        assert_eq!(read.text(), "x\ny");
        assert_eq!(CallToolResult::new(vec![]).text(), "");
        let image = CallToolResult::new(vec![ContentBlock::image("AA==", "image/png")]);
        assert_eq!(image.text(), "");
    }
}
