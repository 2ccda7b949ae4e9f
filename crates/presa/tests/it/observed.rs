//! The `observed` example as an operator runs it: on Streamable HTTP with `/metrics` beside
//! `/mcp`, scraped every second by a real Prometheus (Debian's, installed on first use), which
//! then counts the calls a client made, by tool; and on stdio, pushing its spans and metrics
//! over OTLP/HTTP to a collector.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use presa::client::{Client, ClientOptions};
use presa_test::prometheus::Prometheus;
use serde_json::json;

/// The path of a built example of this package (cargo builds examples for `cargo test`).
fn example(name: &str) -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let debug = exe.parent().and_then(|deps| deps.parent()).unwrap();
    debug.join("examples").join(name)
}

/// The example, stopped by its PID when dropped.
struct Observed(Child);

impl Drop for Observed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[tokio::test]
async fn prometheus_counts_the_calls_of_a_client_by_tool() {
    let mut child = Command::new(example("observed"))
        .args(["--http", "127.0.0.1:0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let observed = Observed(child);
    let mut first = String::new();
    BufReader::new(stdout).read_line(&mut first).unwrap();
    let url = first.trim().strip_prefix("listening ").unwrap().to_owned();
    let address = url
        .strip_prefix("http://")
        .and_then(|rest| rest.strip_suffix("/mcp"))
        .unwrap()
        .parse()
        .unwrap();
    let prometheus = Prometheus::scraping(address, "/metrics");

    let channel = presa::http::client(&url, Default::default()).unwrap();
    let client = Client::connect(channel, ClientOptions::default())
        .await
        .unwrap();
    for n in 0..100 {
        let result = client
            .call_tool("add", json!({"numbers": [n, 1]}))
            .await
            .unwrap();
        assert_ne!(result.is_error, Some(true));
    }
    client.close().await;

    // scraped every second: the count reaches 100 within a few scrapes
    let query = r#"sum(mcp_server_operation_duration_seconds_count{gen_ai_tool_name="add"})"#;
    let counted = tokio::time::timeout(Duration::from_secs(60), async {
        loop {
            if prometheus.query(query) == Some(100.0) {
                return;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    })
    .await;
    assert!(
        counted.is_ok(),
        "Prometheus counted {:?} calls of add",
        prometheus.query(query)
    );
    drop(observed);
}

/// What an OTLP/HTTP collector received: each request's path and body.
type Received = Arc<Mutex<Vec<(String, Vec<u8>)>>>;

/// A collector on a free loopback port that keeps every export and accepts it.
async fn collector() -> (String, Received) {
    let received = Received::default();
    let kept = received.clone();
    let app = axum::Router::new().fallback(move |uri: axum::http::Uri, body: axum::body::Bytes| {
        let kept = kept.clone();
        async move {
            kept.lock()
                .unwrap()
                .push((uri.path().to_owned(), body.to_vec()));
            // an empty protobuf message: the export succeeded entirely
            (
                [(axum::http::header::CONTENT_TYPE, "application/x-protobuf")],
                Vec::new(),
            )
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    (format!("http://{address}"), received)
}

/// Whether an export to `path` holds `text` (protobuf writes strings as they are).
fn exported(received: &Received, path: &str, text: &str) -> bool {
    received.lock().unwrap().iter().any(|(at, body)| {
        at == path
            && body
                .windows(text.len())
                .any(|window| window == text.as_bytes())
    })
}

#[tokio::test]
async fn otlp_receives_the_spans_and_metrics_of_a_stdio_session() {
    let (endpoint, received) = collector().await;
    let options = presa::stdio::CommandOptions::default()
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", &endpoint)
        .env("OTEL_SERVICE_NAME", "observed-under-test")
        .stderr(presa::stdio::Stderr::Null)
        // the example pushes what it holds as it stops
        .close_timeout(Duration::from_secs(30));
    let channel = presa::stdio::command([example("observed")], options).unwrap();
    let client = Client::connect(channel, ClientOptions::default())
        .await
        .unwrap();
    for n in 0..3 {
        let result = client
            .call_tool("add", json!({"numbers": [n, 1]}))
            .await
            .unwrap();
        assert_ne!(result.is_error, Some(true));
    }
    // a tool that does not exist: an error span
    assert!(client.call_tool("nope", json!({})).await.is_err());
    client.close().await;

    let traces = "/v1/traces";
    let metrics = "/v1/metrics";
    for (path, text) in [
        (traces, "observed-under-test"),
        (traces, "tools/call add"),
        (traces, "gen_ai.tool.name"),
        (traces, "execute_tool"),
        (traces, "tools/call nope"),
        (traces, "error.type"),
        (metrics, "observed-under-test"),
        (metrics, "mcp.server.operation.duration"),
    ] {
        assert!(
            exported(&received, path, text),
            "no export to {path} holds {text:?}; the collector received {:?}",
            received
                .lock()
                .unwrap()
                .iter()
                .map(|(path, body)| (path.clone(), body.len()))
                .collect::<Vec<_>>()
        );
    }
}
