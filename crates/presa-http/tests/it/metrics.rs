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

#[tokio::test]
async fn what_the_session_answers_itself_and_notifications_are_counted_too() {
    let metrics = PrometheusMetrics::new().unwrap();
    let server = Server::builder("observed", "1.0.0")
        .meter(metrics.meter())
        .build()
        .unwrap();
    let running = serve(server, HttpOptions::default().metrics(metrics))
        .await
        .unwrap();
    let post = |method: &str, body: Value| {
        reqwest::Client::new()
            .post(running.url())
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", method)
            .body(body.to_string())
            .send()
    };
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    // answered by the session: discovery; refused by it: a header that disagrees with the body
    let discover = json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover",
        "params": {"_meta": meta}});
    assert_eq!(
        post("server/discover", discover).await.unwrap().status(),
        200
    );
    let mismatched = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list",
        "params": {"_meta": meta}});
    let refused = post("prompts/list", mismatched).await.unwrap();
    assert_eq!(refused.status(), 400);
    // a notification, taken in without a session
    let cancelled = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 9, "_meta": meta}});
    let accepted = post("notifications/cancelled", cancelled).await.unwrap();
    assert_eq!(accepted.status(), 202);

    let scrape = format!("http://{}/metrics", running.local_addr());
    let text = reqwest::get(&scrape).await.unwrap().text().await.unwrap();
    let count = "mcp_server_operation_duration_seconds_count";
    let counted = |labels: &[&str]| sample(&text, count, labels);
    assert_eq!(
        counted(&[
            "mcp_method_name=\"server/discover\"",
            "mcp_protocol_version=\"2026-07-28\""
        ]),
        Some(1.0),
        "{text}"
    );
    assert_eq!(
        counted(&["mcp_method_name=\"tools/list\"", "error_type=\"-32020\""]),
        Some(1.0),
        "{text}"
    );
    assert_eq!(
        counted(&[
            "mcp_method_name=\"notifications/cancelled\"",
            "mcp_protocol_version=\"2026-07-28\""
        ]),
        Some(1.0),
        "{text}"
    );
    running.stop().await.unwrap();
}
