//! Resource and resource-template handlers, and what they may return.

use std::collections::BTreeMap;
use std::future::Future;

use presa_core::{ErrorObject, ReadResourceResult, ResourceContents};

use crate::BoxFuture;
use crate::context::Context;
use crate::error::IntoHandlerFailure;

/// What reading a resource produced.
#[derive(Clone, Debug, PartialEq)]
pub enum ResourceOutcome {
    /// The contents.
    Found(Vec<ResourceContents>),
    /// There is no such resource (the client gets "Resource not found").
    NotFound,
    /// A JSON-RPC error to answer with.
    Error(ErrorObject),
}

/// The URI being read and the MIME type its definition declares, for turning plain handler
/// output into contents.
#[derive(Clone, Copy, Debug)]
pub struct ReadTarget<'a> {
    /// The URI the client asked for.
    pub uri: &'a str,
    /// The MIME type of the resource or template definition.
    pub mime_type: Option<&'a str>,
}

/// Turns what a resource handler returns into contents.
///
/// | handler returns | contents |
/// |---|---|
/// | `String`, `&str` | one text item (the definition's MIME type) |
/// | `Vec<u8>`, `&[u8]` | one blob item, base64-encoded |
/// | `ResourceContents`, `Vec<ResourceContents>` | those items |
/// | `ReadResourceResult` | its contents |
/// | `None` | resource not found |
/// | `Err(e)` | a JSON-RPC internal error with `e`'s message (or the [`ProtocolError`](crate::ProtocolError)) |
pub trait IntoResourceContents {
    /// The outcome for `target`.
    fn into_resource_contents(self, target: ReadTarget<'_>) -> ResourceOutcome;
}

impl IntoResourceContents for String {
    fn into_resource_contents(self, target: ReadTarget<'_>) -> ResourceOutcome {
        let mut contents = ResourceContents::text(target.uri, self);
        if let ResourceContents::Text(t) = &mut contents {
            t.mime_type = target.mime_type.map(str::to_owned);
        }
        ResourceOutcome::Found(vec![contents])
    }
}

impl IntoResourceContents for &str {
    fn into_resource_contents(self, target: ReadTarget<'_>) -> ResourceOutcome {
        self.to_owned().into_resource_contents(target)
    }
}

impl IntoResourceContents for Vec<u8> {
    fn into_resource_contents(self, target: ReadTarget<'_>) -> ResourceOutcome {
        self.as_slice().into_resource_contents(target)
    }
}

impl IntoResourceContents for &[u8] {
    fn into_resource_contents(self, target: ReadTarget<'_>) -> ResourceOutcome {
        ResourceOutcome::Found(vec![ResourceContents::blob(
            target.uri,
            self,
            target.mime_type.map(str::to_owned),
        )])
    }
}

impl IntoResourceContents for ResourceContents {
    fn into_resource_contents(self, _: ReadTarget<'_>) -> ResourceOutcome {
        ResourceOutcome::Found(vec![self])
    }
}

impl IntoResourceContents for Vec<ResourceContents> {
    fn into_resource_contents(self, _: ReadTarget<'_>) -> ResourceOutcome {
        ResourceOutcome::Found(self)
    }
}

impl IntoResourceContents for ReadResourceResult {
    fn into_resource_contents(self, _: ReadTarget<'_>) -> ResourceOutcome {
        ResourceOutcome::Found(self.contents)
    }
}

impl<T: IntoResourceContents> IntoResourceContents for Option<T> {
    fn into_resource_contents(self, target: ReadTarget<'_>) -> ResourceOutcome {
        match self {
            Some(value) => value.into_resource_contents(target),
            None => ResourceOutcome::NotFound,
        }
    }
}

impl<T: IntoResourceContents, E: IntoHandlerFailure> IntoResourceContents for Result<T, E> {
    fn into_resource_contents(self, target: ReadTarget<'_>) -> ResourceOutcome {
        match self {
            Ok(value) => value.into_resource_contents(target),
            Err(error) => ResourceOutcome::Error(error.into_handler_failure().into_error_object()),
        }
    }
}

/// A fixed resource's behaviour, object-safe.
pub trait ResourceHandler: Send + Sync + 'static {
    /// Reads the resource at `uri` (the definition's own URI).
    fn read(
        &self,
        uri: String,
        mime_type: Option<String>,
        cx: Context,
    ) -> BoxFuture<'static, ResourceOutcome>;
}

/// The variables a resource template matched, by name.
pub type Variables = BTreeMap<String, String>;

/// A resource template's behaviour, object-safe.
pub trait ResourceTemplateHandler: Send + Sync + 'static {
    /// Reads the resource at `uri`, which matched the template with `variables`.
    fn read(
        &self,
        uri: String,
        variables: Variables,
        mime_type: Option<String>,
        cx: Context,
    ) -> BoxFuture<'static, ResourceOutcome>;
}

/// An async closure of the context as a [`ResourceHandler`].
pub(crate) struct ResourceFn<F>(pub(crate) F);

impl<F, Fut, R> ResourceHandler for ResourceFn<F>
where
    F: Fn(Context) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = R> + Send + 'static,
    R: IntoResourceContents,
{
    fn read(
        &self,
        uri: String,
        mime_type: Option<String>,
        cx: Context,
    ) -> BoxFuture<'static, ResourceOutcome> {
        let fut = (self.0)(cx);
        Box::pin(async move {
            fut.await.into_resource_contents(ReadTarget {
                uri: &uri,
                mime_type: mime_type.as_deref(),
            })
        })
    }
}

/// An async closure of the variables and the context as a [`ResourceTemplateHandler`].
pub(crate) struct TemplateFn<F>(pub(crate) F);

impl<F, Fut, R> ResourceTemplateHandler for TemplateFn<F>
where
    F: Fn(Variables, Context) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = R> + Send + 'static,
    R: IntoResourceContents,
{
    fn read(
        &self,
        uri: String,
        variables: Variables,
        mime_type: Option<String>,
        cx: Context,
    ) -> BoxFuture<'static, ResourceOutcome> {
        let fut = (self.0)(variables, cx);
        Box::pin(async move {
            fut.await.into_resource_contents(ReadTarget {
                uri: &uri,
                mime_type: mime_type.as_deref(),
            })
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

    fn contents(r: impl IntoResourceContents) -> serde_json::Value {
        match r.into_resource_contents(ReadTarget {
            uri: "file:///x",
            mime_type: Some("text/plain"),
        }) {
            ResourceOutcome::Found(c) => serde_json::to_value(c).unwrap(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn text_bytes_and_contents() {
        assert_eq!(
            contents("hi"),
            json!([{"uri": "file:///x", "mimeType": "text/plain", "text": "hi"}])
        );
        assert_eq!(
            contents(b"hi".to_vec()),
            json!([{"uri": "file:///x", "mimeType": "text/plain", "blob": "aGk="}])
        );
        assert_eq!(
            contents(ResourceContents::text("file:///y", "y")),
            json!([{"uri": "file:///y", "text": "y"}])
        );
        let target = ReadTarget {
            uri: "u",
            mime_type: None,
        };
        assert_eq!(
            None::<String>.into_resource_contents(target),
            ResourceOutcome::NotFound
        );
        let failed: Result<String, &str> = Err("boom");
        assert!(
            matches!(failed.into_resource_contents(target), ResourceOutcome::Error(e) if e.code.code() == -32603)
        );
    }
}
