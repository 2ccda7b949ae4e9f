//! presa mounted inside an existing axum app: the app keeps its own routes and serves MCP at
//! `/mcp` beside them. The example serves on a free port of 127.0.0.1 and calls both routes;
//! with `--serve ADDR` it keeps serving on ADDR instead, for a client of your own.
//!
//! ```sh
//! cargo run -p presa --example axum_app
//! cargo run -p presa --example axum_app -- --serve 127.0.0.1:8080
//! ```
//!
//! Prints:
//!
//! ```text
//! GET /health: ok
//! MCP at /mcp: app 1.0.0 over 2026-07-28
//! version: 1.0.0
//! ```

use axum::Router;
use axum::routing::get;
use axum::serve::{Listener, ListenerExt};
use presa::client::{Client, ClientOptions, ResultText};
use presa::http::{HttpClientOptions, HttpOptions, router};
use presa::prelude::*;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = Server::builder("app", "1.0.0")
        .typed_tool(
            Tool::named("version").description("The app's version."),
            |(), _cx: Context| async { "1.0.0" },
        )
        .build()?;
    let app: Router = Router::new()
        .route("/health", get(|| async { "ok" }))
        .merge(router(server, HttpOptions::default()));

    let serve_on = std::env::args().skip_while(|arg| arg != "--serve").nth(1);
    // TCP_NODELAY: without it, a streamed (SSE) reply can stall on delayed ACKs
    let listener = tokio::net::TcpListener::bind(serve_on.as_deref().unwrap_or("127.0.0.1:0"))
        .await?
        .tap_io(|tcp| {
            let _ = tcp.set_nodelay(true);
        });
    let address = listener.local_addr()?;
    if serve_on.is_some() {
        println!("listening http://{address} (MCP at /mcp)");
        axum::serve(listener, app).await?;
        return Ok(());
    }
    tokio::spawn(async move { axum::serve(listener, app).await });

    let health = reqwest::get(format!("http://{address}/health"))
        .await?
        .text()
        .await?;
    println!("GET /health: {health}");
    let channel = presa::http::client(
        format!("http://{address}/mcp"),
        HttpClientOptions::default(),
    )?;
    let client = Client::connect(channel, ClientOptions::default()).await?;
    let info = client.info();
    let name = info.name().unwrap_or("?");
    println!(
        "MCP at /mcp: {name} {} over {}",
        info.version().unwrap_or("?"),
        client.protocol_version()
    );
    println!("version: {}", client.call_tool("version", ()).await?.text());
    client.close().await;
    Ok(())
}
