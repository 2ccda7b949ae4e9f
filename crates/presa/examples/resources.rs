//! Resources: fixed resources with text and binary contents, listed and read by a client;
//! reading a URI the server does not have is a "not found" error the client can tell apart.
//!
//! ```sh
//! cargo run -p presa --example resources
//! ```
//!
//! Prints:
//!
//! ```text
//! file:///readme.txt (readme, text/plain)
//! file:///logo.png (logo, image/png)
//! readme: Read me first.
//! logo: 4 bytes of image/png
//! file:///missing.txt: not found
//! ```

use presa::client::{Client, ClientOptions, ResultText};
use presa::core::ResourceContents;
use presa::prelude::*;

const LOGO: &[u8] = &[0x89, b'P', b'N', b'G'];

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = Server::builder("files", "1.0.0")
        .resource(
            Resource::new("file:///readme.txt", "readme").mime_type("text/plain"),
            |_cx: Context| async { "Read me first." },
        )
        // bytes are a blob, base64 on the wire
        .resource(
            Resource::new("file:///logo.png", "logo").mime_type("image/png"),
            |_cx: Context| async { LOGO.to_vec() },
        )
        .build()?;
    let client = Client::connect(presa::in_process(server), ClientOptions::default()).await?;

    for resource in client.list_resources().await? {
        let mime = resource.mime_type.as_deref().unwrap_or("?");
        println!("{} ({}, {mime})", resource.uri, resource.name);
    }
    println!(
        "readme: {}",
        client.read_resource("file:///readme.txt").await?.text()
    );

    let logo = client.read_resource("file:///logo.png").await?;
    for contents in &logo.contents {
        if let ResourceContents::Blob(blob) = contents {
            let bytes = blob.decode()?;
            println!(
                "logo: {} bytes of {}",
                bytes.len(),
                blob.mime_type.as_deref().unwrap_or("?")
            );
        }
    }

    match client.read_resource("file:///missing.txt").await {
        Err(error) if error.is_resource_not_found() => println!("file:///missing.txt: not found"),
        other => println!("unexpected: {other:?}"),
    }
    client.close().await;
    Ok(())
}
