//! presa mounted inside an existing axum app: the app keeps its own routes and middleware, and
//! serves MCP at `/mcp`.
//!
//! ```sh
//! cargo run -p presa --example axum_app
//! ```

use axum::Router;
use axum::routing::get;
use axum::serve::ListenerExt;
use presa::core::Tool;
use presa::http::{HttpOptions, router};
use presa::server::{Context, Server};
use serde_json::Value;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = Server::builder("app", "1.0.0")
        .tool_sync(
            Tool::without_params("version").description("The app's version."),
            |_: Value, _: Context| env!("CARGO_PKG_VERSION"),
        )
        .build()?;

    let app: Router = Router::new()
        .route("/health", get(|| async { "ok" }))
        .merge(router(server, HttpOptions::default()));

    // TCP_NODELAY on every connection: without it, a streamed (SSE) reply can stall for tens of
    // milliseconds per request against delayed ACKs.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:8080")
        .await?
        .tap_io(|tcp| {
            let _ = tcp.set_nodelay(true);
        });
    println!("listening http://127.0.0.1:8080 (MCP at /mcp)");
    axum::serve(listener, app).await?;
    Ok(())
}
