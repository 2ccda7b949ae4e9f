//! Resource templates: one handler serves a family of URIs (RFC 6570 templates), reading the
//! variables the URI filled in; a URI the handler does not know is "not found".
//!
//! ```sh
//! cargo run -p presa --example resource_templates
//! ```
//!
//! Prints:
//!
//! ```text
//! template people://{id} (person)
//! template docs://{+path} (document)
//! people://ada: Ada Lovelace
//! docs://guides/tools.md: the document at guides/tools.md
//! people://nobody: not found
//! ```

use presa::client::{Client, ClientOptions, ResultText};
use presa::prelude::*;

fn person(id: &str) -> Option<&'static str> {
    match id {
        "ada" => Some("Ada Lovelace"),
        "alan" => Some("Alan Turing"),
        _ => None,
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = Server::builder("library", "1.0.0")
        // `{id}` matches one path segment
        .resource_template(
            ResourceTemplate::new("people://{id}", "person").mime_type("text/plain"),
            |vars: Variables, _cx: Context| async move { vars.get("id").and_then(|id| person(id)) },
        )
        // `{+path}` matches the rest of the URI, slashes included
        .resource_template(
            ResourceTemplate::new("docs://{+path}", "document"),
            |vars: Variables, _cx: Context| async move {
                vars.get("path")
                    .map(|path| format!("the document at {path}"))
            },
        )
        .build()?;
    let client = Client::connect(presa::in_process(server), ClientOptions::default()).await?;

    for template in client.list_resource_templates().await? {
        println!("template {} ({})", template.uri_template, template.name);
    }
    for uri in ["people://ada", "docs://guides/tools.md", "people://nobody"] {
        match client.read_resource(uri).await {
            Ok(read) => println!("{uri}: {}", read.text()),
            Err(error) if error.is_resource_not_found() => println!("{uri}: not found"),
            Err(error) => return Err(error.into()),
        }
    }
    client.close().await;
    Ok(())
}
