//! List changes: a server whose tools change while it serves tells the clients that asked;
//! they list again. Here a tool installs another one.
//!
//! ```sh
//! cargo run -p presa --example list_changes
//! ```
//!
//! Prints:
//!
//! ```text
//! tools: install
//! changed: ToolsListChanged
//! tools: install, weather
//! weather: sunny
//! ```

use presa::client::{Client, ClientOptions, ResultText, SubscriptionOptions};
use presa::prelude::*;

async fn tool_names(client: &Client) -> Result<String, presa::client::ClientError> {
    let tools = client.list_tools().await?;
    Ok(tools
        .iter()
        .map(|t| t.name.as_str())
        .collect::<Vec<_>>()
        .join(", "))
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = Server::builder("plugins", "1.0.0")
        // announce listChanged, and tell listening clients of every change
        .list_changed(true)
        .typed_tool(
            Tool::named("install").description("Install the weather plugin."),
            |(), cx: Context| async move {
                let Some(server) = cx.server() else {
                    return Err(ToolError::new("not serving"));
                };
                server
                    .add_typed_tool("weather", |(), _cx: Context| async { "sunny" })
                    .map_err(|e| ToolError::new(e.to_string()))?;
                Ok("installed")
            },
        )
        .build()?;
    let client = Client::connect(presa::in_process(server), ClientOptions::default()).await?;

    // subscriptions/listen on 2026-07-28; the session's notifications in the initialize era
    let mut changes = client
        .subscribe(SubscriptionOptions::new().tools_list_changed(true))
        .await?;
    println!("tools: {}", tool_names(&client).await?);
    client.call_tool("install", ()).await?;
    if let Some(change) = changes.next().await {
        println!("changed: {change:?}");
    }
    println!("tools: {}", tool_names(&client).await?);
    println!("weather: {}", client.call_tool("weather", ()).await?.text());
    client.close().await;
    Ok(())
}
