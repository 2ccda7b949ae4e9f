//! presa's side of the newer rows of `cargo xtask bench`, on Streamable HTTP at `/mcp`:
//!
//! - `list-1000`: 1,000 tools (`tool-0000` … `tool-0999`), each described, with a small schema;
//! - `read-1mib`: `bench://blob`, 1 MiB of bytes (base64 on the wire), and `bench://text`,
//!   1 MiB of text;
//! - `args-100k`: `args`, whose arguments (about 100 KB of items) are validated against a schema
//!   the built-in subset evaluates, and `args_full`, the same schema with
//!   `unevaluatedProperties`, which only the full validator (feature `full-schema`) evaluates;
//! - `progress-sse`: `progress`, which sends 1,000 progress notifications, then answers.
//!
//! ```sh
//! cargo run --release -p presa-bench --bin workloads -- --http 127.0.0.1:0
//! ```
//!
//! The first line on stdout is `listening http://HOST:PORT/mcp`.

use std::process::ExitCode;
use std::sync::LazyLock;

use presa::core::ErrorReport;
use presa::http::{HttpOptions, serve};
use presa::prelude::*;
use serde_json::{Map, Value, json};

/// Tools of the list-1000 row.
const TOOLS: usize = 1_000;

/// The size of each resource of the read-1mib row.
const MIB: usize = 1 << 20;

/// Progress notifications of the progress-sse row.
const PROGRESS_STEPS: u32 = 1_000;

/// 1 MiB of bytes that do not compress to nothing.
static BLOB: LazyLock<Vec<u8>> = LazyLock::new(|| {
    let mut state: u32 = 0x9e37_79b9;
    (0..MIB)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            state.to_le_bytes()[0]
        })
        .collect()
});

/// 1 MiB of text: numbered lines of prose.
static TEXT: LazyLock<String> = LazyLock::new(|| {
    let mut text = String::with_capacity(MIB);
    let mut line = 0;
    while text.len() < MIB {
        text.push_str(&format!(
            "{line:06} the quick brown fox jumps over the lazy dog\n"
        ));
        line += 1;
    }
    text.truncate(MIB);
    text
});

fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

/// The schema of `args`: a list of items, each an object of known members.
fn args_schema(full: bool) -> Map<String, Value> {
    let mut schema = json!({
        "type": "object",
        "properties": {
            "items": {
                "type": "array",
                "maxItems": 10_000,
                "items": {
                    "type": "object",
                    "properties": {
                        "id": {"type": "integer", "minimum": 0},
                        "name": {"type": "string", "maxLength": 64},
                        "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 8},
                        "score": {"type": "number"}
                    },
                    "required": ["id", "name"],
                    "additionalProperties": false
                }
            }
        },
        "required": ["items"]
    });
    if full {
        schema["unevaluatedProperties"] = json!(false);
    }
    object(schema)
}

/// How many items `args` got.
fn count(arguments: Value, _cx: Context) -> CallToolResult {
    let items = arguments["items"].as_array().map_or(0, Vec::len);
    CallToolResult::structured(json!({"count": items}))
}

fn server() -> Result<Server, BuildError> {
    let mut builder = Server::builder("workloads", "0.1.0");
    for i in 0..TOOLS {
        let schema = json!({
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "What to look for."},
                "limit": {"type": "integer", "minimum": 1, "maximum": 100}
            },
            "required": ["query"]
        });
        let tool = Tool::new(format!("tool-{i:04}"), object(schema)).description(format!(
            "Tool number {i}: looks things up and reports them."
        ));
        builder = builder.tool_sync(tool, |_: Value, _cx: Context| "ok");
    }
    builder
        .tool_sync(Tool::new("args", args_schema(false)), count)
        .tool_sync(Tool::new("args_full", args_schema(true)), count)
        .tool(
            Tool::without_params("progress"),
            |_: Value, cx: Context| async move {
                for step in 1..=PROGRESS_STEPS {
                    cx.progress(f64::from(step), Some(f64::from(PROGRESS_STEPS)), None)
                        .await;
                }
                "done"
            },
        )
        .resource(
            Resource::new("bench://blob", "blob").mime_type("application/octet-stream"),
            |_cx: Context| async { BLOB.as_slice() },
        )
        .resource(
            Resource::new("bench://text", "text").mime_type("text/plain"),
            |_cx: Context| async { TEXT.as_str() },
        )
        .build()
}

async fn run(address: &str) -> Result<(), String> {
    let server = server().map_err(|e| ErrorReport(&e).to_string())?;
    let (host, port) = address.rsplit_once(':').ok_or("--http takes HOST:PORT")?;
    let port: u16 = port.parse().map_err(|_| format!("not a port: {port}"))?;
    let running = serve(server, HttpOptions::default().host(host).port(port))
        .await
        .map_err(|e| ErrorReport(&e).to_string())?;
    println!("listening {}", running.url());
    let _ = tokio::signal::ctrl_c().await;
    running
        .stop()
        .await
        .map_err(|e| ErrorReport(&e).to_string())
}

#[tokio::main]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let address = match args.as_slice() {
        [flag, address] if flag == "--http" => address.clone(),
        _ => {
            eprintln!("usage: workloads --http HOST:PORT");
            return ExitCode::FAILURE;
        }
    };
    match run(&address).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("workloads: {error}");
            ExitCode::FAILURE
        }
    }
}
