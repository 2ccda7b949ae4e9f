//! The resources of the runner's resource scenarios (`resources-*`, `caching`,
//! `sep-2164-resource-not-found`).
//!
//! `test://static-text` comes first: `caching` reads the first listed resource. Unknown URIs
//! need no code: presa answers "Resource not found" with the URI in `data`.

use presa_core::{BlobResourceContents, Resource, ResourceContents, ResourceTemplate};
use presa_server::{Context, ServerBuilder, Variables};
use serde_json::json;

use crate::tools::RED_PIXEL_PNG;

/// Adds the resources and the resource template.
pub(crate) fn register(builder: ServerBuilder) -> ServerBuilder {
    builder
        .resource(
            Resource::new("test://static-text", "static-text")
                .title("Static text")
                .description("A text resource whose content never changes.")
                .mime_type("text/plain"),
            |_: Context| async { "This is the content of the static text resource." },
        )
        .resource(
            Resource::new("test://static-binary", "static-binary")
                .title("Static binary")
                .description("A one-pixel PNG.")
                .mime_type("image/png"),
            |_: Context| async {
                ResourceContents::Blob(BlobResourceContents {
                    uri: "test://static-binary".into(),
                    mime_type: Some("image/png".into()),
                    blob: RED_PIXEL_PNG.into(),
                    ..BlobResourceContents::default()
                })
            },
        )
        .resource(
            Resource::new("test://watched-resource", "watched-resource")
                .title("Watched resource")
                .description("A text resource clients may subscribe to.")
                .mime_type("text/plain"),
            |_: Context| async { "This is the content of the watched resource." },
        )
        .resource_template(
            ResourceTemplate::new("test://template/{id}/data", "template-data")
                .title("Data by id")
                .description("JSON data for any id.")
                .mime_type("application/json"),
            |vars: Variables, _: Context| async move {
                let id = vars.get("id")?;
                let data =
                    json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")});
                Some(data.to_string())
            },
        )
}
