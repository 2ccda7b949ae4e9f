//! A load client built on the official Rust MCP SDK, rmcp, for presa's peer benchmarks
//! (`cargo xtask bench --peers`). It connects to a Streamable HTTP server with rmcp's
//! reqwest-based client, does rmcp's `initialize` handshake once, then runs N concurrent
//! callers of `tools/call add` with `{"numbers":[1,2,3]}`, all sharing the one client.
//! A call counts when it started after the warm-up and ended before the stop. Prints one
//! JSON line: `{"calls":N,"seconds":S,"p50_us":X,"p99_us":Y}`; on an error, a line on
//! stderr and exit code 1.
//!
//! ```sh
//! cargo run --release --manifest-path bench/rmcp/Cargo.toml --bin rmcp_client -- \
//!     --url http://127.0.0.1:PORT/mcp --callers 64 --warmup 2 --duration 5
//! ```

use std::process::ExitCode;
use std::time::{Duration, Instant};

use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientConfig, Implementation, ProtocolVersion,
};
use rmcp::service::{Peer, RoleClient};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ServiceExt, model::JsonObject};
use serde_json::json;

/// What one caller saw in the measured window: its latencies in microseconds.
async fn caller(
    peer: Peer<RoleClient>,
    arguments: JsonObject,
    warm: Instant,
    stop: Instant,
) -> Result<Vec<u32>, String> {
    let mut latencies = Vec::new();
    loop {
        let start = Instant::now();
        if start >= stop {
            return Ok(latencies);
        }
        let params = CallToolRequestParams::new("add").with_arguments(arguments.clone());
        let result = peer
            .call_tool(params)
            .await
            .map_err(|e| format!("tools/call add: {e}"))?;
        if result.is_error == Some(true) {
            return Err(format!("add failed: {:?}", result.content));
        }
        let end = Instant::now();
        if start >= warm && end <= stop {
            latencies
                .push(u32::try_from(end.duration_since(start).as_micros()).unwrap_or(u32::MAX));
        }
    }
}

/// The value after `name`, if given.
fn flag<'a>(args: &'a [String], name: &str) -> Option<&'a str> {
    let i = args.iter().position(|a| a == name)?;
    Some(args.get(i + 1).map_or("", String::as_str))
}

fn number(args: &[String], name: &str, default: f64) -> Result<f64, String> {
    match flag(args, name) {
        None => Ok(default),
        Some(value) => value
            .parse()
            .ok()
            .filter(|n: &f64| n.is_finite() && *n >= 0.0)
            .ok_or_else(|| format!("{name} takes a non-negative number")),
    }
}

async fn run(args: &[String]) -> Result<(), String> {
    let url = flag(args, "--url")
        .filter(|url| !url.is_empty())
        .ok_or("usage: rmcp_client --url URL [--callers 64] [--warmup 2] [--duration 5]")?;
    let callers = (number(args, "--callers", 64.0)? as usize).max(1);
    let warmup = Duration::from_secs_f64(number(args, "--warmup", 2.0)?);
    let duration = Duration::from_secs_f64(number(args, "--duration", 5.0)?);

    // rmcp lets 16 POSTs be in flight by default; each caller gets its own here.
    let transport = StreamableHttpClientTransport::from_config(
        StreamableHttpClientTransportConfig::with_uri(url).max_concurrent_requests(callers),
    );
    let config = ClientConfig::new(
        ClientCapabilities::default(),
        Implementation::new("rmcp-bench-client", env!("CARGO_PKG_VERSION")),
    )
    .with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE);
    let client = config
        .serve(transport)
        .await
        .map_err(|e| format!("initialize: {e}"))?;

    let mut arguments = JsonObject::new();
    arguments.insert("numbers".to_owned(), json!([1, 2, 3]));
    let warm = Instant::now() + warmup;
    let stop = warm + duration;
    let tasks: Vec<_> = (0..callers)
        .map(|_| tokio::spawn(caller(client.peer().clone(), arguments.clone(), warm, stop)))
        .collect();
    let mut latencies = Vec::new();
    for task in tasks {
        latencies.extend(task.await.map_err(|e| e.to_string())??);
    }
    // closing tells nothing to a stateless server; its outcome does not change the result
    let _ = client.cancel().await;

    latencies.sort_unstable();
    let at = |q: f64| {
        latencies
            .get(((latencies.len() as f64 - 1.0) * q) as usize)
            .copied()
    };
    let report = json!({
        "calls": latencies.len(),
        "seconds": duration.as_secs_f64(),
        "p50_us": at(0.50),
        "p99_us": at(0.99),
    });
    println!("{report}");
    Ok(())
}

#[tokio::main]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("rmcp_client: {error}");
            ExitCode::FAILURE
        }
    }
}
