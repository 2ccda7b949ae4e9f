//! A client of a stdio server: start the server as a subprocess and talk to it over its stdin
//! and stdout. The server here is this same program run with `--serve`; any MCP server command
//! works the same (`["npx", "-y", "@modelcontextprotocol/server-everything"]`, say).
//!
//! ```sh
//! cargo run -p presa --example stdio_client
//! ```
//!
//! Prints:
//!
//! ```text
//! connected to notes-server 1.0.0 (2026-07-28)
//! tools: remember
//! remember: noted "buy milk"
//! ```

use presa::client::{Client, ClientOptions, ResultText};
use presa::prelude::*;
use presa::stdio::CommandOptions;
use serde::Deserialize;

/// Remember a note.
#[derive(Deserialize, JsonSchema)]
struct Remember {
    note: String,
}

/// The server side, served on this process's stdin and stdout.
async fn serve() -> Result<(), Box<dyn std::error::Error>> {
    let server = Server::builder("notes-server", "1.0.0")
        .typed_tool(
            "remember",
            |Args(r): Args<Remember>, _cx: Context| async move { format!("noted {:?}", r.note) },
        )
        .build()?;
    presa::stdio::serve(server, Default::default()).await?;
    Ok(())
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    if std::env::args().any(|arg| arg == "--serve") {
        return serve().await;
    }
    let program = std::env::current_exe()?;
    let channel = presa::stdio::command(
        [program.as_os_str(), "--serve".as_ref()],
        CommandOptions::default(),
    )?;
    let client = Client::connect(channel, ClientOptions::default()).await?;
    let info = client.info();
    let (name, version) = (info.name().unwrap_or("?"), info.version().unwrap_or("?"));
    println!(
        "connected to {name} {version} ({})",
        client.protocol_version()
    );
    let tools: Vec<_> = client
        .list_tools()
        .await?
        .into_iter()
        .map(|t| t.name)
        .collect();
    println!("tools: {}", tools.join(", "));
    let result = client
        .call_tool("remember", serde_json::json!({"note": "buy milk"}))
        .await?;
    println!("remember: {}", result.text());
    // closes the server's stdin, then waits for it to exit
    client.close().await;
    Ok(())
}
