//! An MCP server built on the official Rust SDK, rmcp, for presa's peer benchmarks
//! (`cargo xtask bench --peers`). It serves one tool, `add`, with the same reply as the
//! `add` tool of presa's `library` example: `{"sum":6}` as both the text content and the
//! structured content.
//!
//! Over stdio (newline-delimited JSON-RPC on stdin and stdout), the default:
//!
//! ```sh
//! cargo run --release --manifest-path bench/rmcp/Cargo.toml --bin rmcp_server
//! ```
//!
//! Over Streamable HTTP at `/mcp`, stateless (no sessions) with plain JSON replies, or with
//! `--stateful` in rmcp's session mode (`initialize` opens a session; the initialize-era rows),
//! where rmcp 3.11 answers every request as an SSE stream: its JSON replies are for stateless
//! mode only.
//! The first and only line on stdout is `listening http://ADDRESS/mcp`, the bound address:
//!
//! ```sh
//! cargo run --release --manifest-path bench/rmcp/Cargo.toml --bin rmcp_server -- \
//!     --http 127.0.0.1:0 [--stateful]
//! ```

use std::error::Error;
use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;

use axum::serve::ListenerExt;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService, stdio_pipes};
use rmcp::{Json, ServerHandler, ServiceExt, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Number;

/// Add numbers.
#[derive(Deserialize, JsonSchema)]
struct AddRequest {
    /// The numbers to add.
    numbers: Vec<f64>,
}

/// The result of `add`.
#[derive(Serialize, JsonSchema)]
struct Sum {
    /// The sum of the numbers.
    sum: Number,
}

/// The server: its tools.
#[derive(Clone)]
struct Bench {
    /// Built once and shared: stateless HTTP makes a server value for each request.
    tool_router: Arc<ToolRouter<Self>>,
}

#[tool_router]
impl Bench {
    fn new() -> Self {
        Self {
            tool_router: Arc::new(Self::tool_router()),
        }
    }

    /// The sum, written as an integer when it is whole (`{"sum":6}`, not `{"sum":6.0}`).
    #[tool(description = "Add numbers.")]
    fn add(
        &self,
        Parameters(AddRequest { numbers }): Parameters<AddRequest>,
    ) -> Result<Json<Sum>, String> {
        let sum: f64 = numbers.iter().sum();
        let whole = sum.fract() == 0.0 && sum.abs() < 9_007_199_254_740_992.0;
        let sum = if whole {
            Some(Number::from(sum as i64))
        } else {
            Number::from_f64(sum)
        };
        let sum = sum.ok_or_else(|| "the sum is not a finite number".to_owned())?;
        Ok(Json(Sum { sum }))
    }
}

#[tool_handler(router = self.tool_router, name = "rmcp-bench")]
impl ServerHandler for Bench {}

/// Serves one client on stdin and stdout until it closes them.
async fn serve_stdio() -> Result<(), Box<dyn Error>> {
    let running = Bench::new().serve(stdio_pipes()).await?;
    running.waiting().await?;
    Ok(())
}

/// Serves Streamable HTTP at `http://ADDRESS/mcp` until the process is killed: stateless, or
/// with sessions when `stateful`.
async fn serve_http(address: &str, stateful: bool) -> Result<(), Box<dyn Error>> {
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(stateful)
        .with_json_response(true)
        .with_sse_keep_alive(None);
    let bench = Bench::new();
    let factory = move || Ok(bench.clone());
    let router = if stateful {
        let sessions = Arc::new(LocalSessionManager::default());
        let service = StreamableHttpService::new(factory, sessions, config);
        axum::Router::new().nest_service("/mcp", service)
    } else {
        let sessions = Arc::new(NeverSessionManager::default());
        let service = StreamableHttpService::new(factory, sessions, config);
        axum::Router::new().nest_service("/mcp", service)
    };
    let listener = tokio::net::TcpListener::bind(address).await?;
    let bound = listener.local_addr()?;
    let listener = listener.tap_io(|stream| {
        // a refused option only costs latency; the connection is still served
        let _ = stream.set_nodelay(true);
    });
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "listening http://{bound}/mcp")?;
    stdout.flush()?;
    drop(stdout);
    axum::serve(listener, router).await?;
    Ok(())
}

async fn run(args: &[String]) -> Result<(), Box<dyn Error>> {
    match args {
        [] => serve_stdio().await,
        [flag, address] if flag == "--http" => serve_http(address, false).await,
        [flag, address, stateful] if flag == "--http" && stateful == "--stateful" => {
            serve_http(address, true).await
        }
        _ => Err("usage: rmcp_server [--http HOST:PORT [--stateful]]".into()),
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("rmcp_server: {error}");
            ExitCode::FAILURE
        }
    }
}
