//! The plain axum baseline of `cargo xtask bench`: POST `/mcp` parses the JSON-RPC body with
//! serde_json and answers a fixed `tools/call` result with the same id. No MCP, no sessions, no
//! checks: the floor an MCP server over axum is measured against.
//!
//! ```sh
//! cargo run --release -p presa --example bench_axum_baseline -- 127.0.0.1:0
//! ```

use axum::Router;
use axum::body::Bytes;
use axum::http::header::CONTENT_TYPE;
use axum::response::IntoResponse;
use axum::routing::post;
use axum::serve::ListenerExt;
use serde_json::{Value, json};

/// Parses the request, answers the fixed result of `add` with the request's id.
async fn mcp(body: Bytes) -> impl IntoResponse {
    let id = match serde_json::from_slice::<Value>(&body) {
        Ok(mut request) => request["id"].take(),
        Err(_) => Value::Null,
    };
    let reply = json!({
        "jsonrpc": "2.0",
        "id": id,
        "result": {
            "content": [{"type": "text", "text": "{\"sum\":6}"}],
            "structuredContent": {"sum": 6}
        }
    });
    ([(CONTENT_TYPE, "application/json")], reply.to_string())
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let address = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:0".to_owned());
    let listener = tokio::net::TcpListener::bind(&address).await?;
    println!("listening http://{}/mcp", listener.local_addr()?);
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    axum::serve(listener, Router::new().route("/mcp", post(mcp))).await?;
    Ok(())
}
