//! Resource subscriptions: a client watches a resource and reads it again when the server says
//! it changed (`subscriptions/listen` on 2026-07-28, `resources/subscribe` before).
//!
//! ```sh
//! cargo run -p presa --example subscriptions
//! ```
//!
//! Prints:
//!
//! ```text
//! status: idle
//! updated: file:///status.txt
//! status: building
//! ```

use std::sync::Mutex;

use presa::client::{ChangeEvent, Client, ClientOptions, ResultText, SubscriptionOptions};
use presa::prelude::*;

struct Status(Mutex<&'static str>);

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = Server::builder("ci", "1.0.0")
        .subscribe(true)
        .state(Status(Mutex::new("idle")))
        .resource(
            Resource::new("file:///status.txt", "status"),
            |cx: Context| async move {
                let status = cx.state::<Status>()?;
                Ok::<_, MissingState>(status.0.lock().map(|s| s.to_string()).unwrap_or_default())
            },
        )
        .typed_tool(
            Tool::named("build").description("Start a build."),
            |(), cx: Context| async move {
                let status = cx.state::<Status>()?;
                *status
                    .0
                    .lock()
                    .map_err(|_| ToolError::new("status unavailable"))? = "building";
                // tell everyone watching the resource
                if let Some(server) = cx.server() {
                    server.resource_updated("file:///status.txt");
                }
                Ok::<_, ToolError>("started")
            },
        )
        .build()?;
    let client = Client::connect(presa::in_process(server), ClientOptions::default()).await?;

    let mut changes = client
        .subscribe(SubscriptionOptions::new().resource("file:///status.txt"))
        .await?;
    println!(
        "status: {}",
        client.read_resource("file:///status.txt").await?.text()
    );
    client.call_tool("build", ()).await?;
    if let Some(ChangeEvent::ResourceUpdated { uri }) = changes.next().await {
        println!("updated: {uri}");
        println!("status: {}", client.read_resource(&uri).await?.text());
    }
    client.close().await;
    Ok(())
}
