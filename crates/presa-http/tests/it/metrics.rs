//! The Prometheus scrape endpoint: what a server records, served at `/metrics` next to `/mcp`
//! behind the same guards.

use presa_client::{Client, ClientOptions};
use presa_core::{ProtocolVersion, Tool};
use presa_http::{HttpClientOptions, HttpOptions, PrometheusMetrics, serve};
use presa_server::{Context, Server};
use serde_json::{Value, json};

/// The value of the sample `name{..labels..}` whose labels include every one of `labels`.
fn sample(text: &str, name: &str, labels: &[&str]) -> Option<f64> {
    text.lines()
        .filter(|line| line.starts_with(&format!("{name}{{")))
        .find(|line| labels.iter().all(|label| line.contains(label)))
        .and_then(|line| line.rsplit(' ').next()?.parse().ok())
}

#[tokio::test]
async fn a_scrape_counts_the_calls_by_tool_in_both_eras() {
    let metrics = PrometheusMetrics::new().unwrap();
    let server = Server::builder("observed", "1.0.0")
        .meter(metrics.meter())
        .tool_sync(Tool::without_params("echo"), |_: Value, _: Context| "echo")
        .build()
        .unwrap();
    let running = serve(server, HttpOptions::default().metrics(metrics))
        .await
        .unwrap();
    for (version, calls) in [
        (ProtocolVersion::V2026_07_28, 3),
        (ProtocolVersion::V2025_11_25, 2),
    ] {
        let channel = presa_http::client(running.url(), HttpClientOptions::default()).unwrap();
        let options = ClientOptions::default().protocol_version(Some(version));
        let client = Client::connect(channel, options).await.unwrap();
        for _ in 0..calls {
            client.call_tool("echo", json!({})).await.unwrap();
        }
        client.close().await;
    }

    let scrape = format!("http://{}/metrics", running.local_addr());
    let answer = reqwest::get(&scrape).await.unwrap();
    assert_eq!(answer.status(), 200);
    let text = answer.text().await.unwrap();
    let count = "mcp_server_operation_duration_seconds_count";
    let echo = "gen_ai_tool_name=\"echo\"";
    let modern = sample(&text, count, &[echo, "mcp_protocol_version=\"2026-07-28\""]);
    let legacy = sample(&text, count, &[echo, "mcp_protocol_version=\"2025-11-25\""]);
    assert_eq!((modern, legacy), (Some(3.0), Some(2.0)), "{text}");
    // the conventions' buckets
    assert!(text.contains("le=\"300\""), "{text}");

    // behind the guards of the MCP endpoint: a page elsewhere may not read it
    let refused = reqwest::Client::new()
        .get(&scrape)
        .header("origin", "https://evil.example")
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 403);
    running.stop().await.unwrap();
}
