//! The `observed` example as an operator runs it: on Streamable HTTP with `/metrics` beside
//! `/mcp`, scraped every second by a real Prometheus (Debian's, installed on first use), which
//! then counts the calls a client made, by tool.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
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
