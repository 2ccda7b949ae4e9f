//! A presa `Client` over the HTTP client transport against presa's own HTTP server, in both
//! eras: headers the server checks, progress on event streams, cancellation, sessions.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use presa_client::{Client, ClientError, ClientOptions, ResultText};
use presa_core::{ProtocolVersion, Tool};
use presa_http::{HttpClientOptions, HttpOptions, RunningServer, serve};
use presa_server::{Context, Server};
use serde_json::{Value, json};
use tokio::sync::Notify;

fn object(value: Value) -> serde_json::Map<String, Value> {
    value.as_object().unwrap().clone()
}

async fn server(cancelled: Arc<Notify>) -> RunningServer {
    let server =
        Server::builder("e2e", "1.0.0")
            .tool(
                Tool::new(
                    "echo_region",
                    object(json!({
                        "type": "object",
                        "properties": {"region": {"type": "string", "x-mcp-header": "Region"}},
                        "required": ["region"]
                    })),
                ),
                |args: Value, _| async move {
                    format!("region {}", args["region"].as_str().unwrap_or("?"))
                },
            )
            .tool(
                Tool::without_params("chatty"),
                |_: Value, cx: Context| async move {
                    cx.progress(1.0, Some(2.0), Some("half")).await;
                    "done"
                },
            )
            .tool(
                Tool::without_params("slow"),
                move |_: Value, _cx: Context| {
                    let cancelled = Arc::clone(&cancelled);
                    async move {
                        struct Signal(Arc<Notify>);
                        impl Drop for Signal {
                            fn drop(&mut self) {
                                self.0.notify_one();
                            }
                        }
                        let _signal = Signal(cancelled);
                        std::future::pending::<()>().await;
                        "never"
                    }
                },
            )
            .build()
            .unwrap();
    serve(server, HttpOptions::default()).await.unwrap()
}

async fn exercise(client: &Client, cancelled: &Notify) {
    let tools = client.list_tools().await.unwrap();
    assert_eq!(tools.len(), 3);

    // On 2026-07-28 the server rejects a call without the right Mcp-Param-Region.
    let result = client
        .call_tool("echo_region", json!({"region": "Zürich"}))
        .await
        .unwrap();
    assert_eq!(result.text(), "region Zürich");

    let progress = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&progress);
    let result = client
        .call_tool("chatty", json!({}))
        .on_progress(move |p| seen.lock().unwrap().push(p.progress))
        .await
        .unwrap();
    assert_eq!(result.text(), "done");
    assert_eq!(*progress.lock().unwrap(), [1.0]);

    // A timed-out call is cancelled: the handler is dropped on the server.
    let error = client
        .call_tool("slow", json!({}))
        .timeout(Duration::from_millis(200))
        .await
        .unwrap_err();
    assert!(matches!(error, ClientError::TimedOut), "{error:?}");
    tokio::time::timeout(Duration::from_secs(10), cancelled.notified())
        .await
        .expect("the server saw the cancellation");
}

#[tokio::test]
async fn a_2026_client_and_server_over_http() {
    let cancelled = Arc::new(Notify::new());
    let running = server(Arc::clone(&cancelled)).await;
    let channel = presa_http::client(running.url(), HttpClientOptions::default()).unwrap();
    let client = Client::connect(channel, ClientOptions::default())
        .await
        .unwrap();
    assert_eq!(client.protocol_version(), ProtocolVersion::V2026_07_28);
    exercise(&client, &cancelled).await;
    client.close().await;
    running.stop().await.unwrap();
}

#[tokio::test]
async fn an_initialize_era_client_and_server_over_http() {
    let cancelled = Arc::new(Notify::new());
    let running = server(Arc::clone(&cancelled)).await;
    let channel = presa_http::client(running.url(), HttpClientOptions::default()).unwrap();
    let options = ClientOptions::default().protocol_version(Some(ProtocolVersion::V2025_11_25));
    let client = Client::connect(channel, options).await.unwrap();
    assert_eq!(client.protocol_version(), ProtocolVersion::V2025_11_25);
    exercise(&client, &cancelled).await;
    client.close().await;
    running.stop().await.unwrap();
}

/// A listen's resource filter covers a URI and what lies under it, never everything: an empty
/// URI is not honoured, and a URI that merely starts with the filter's text is not under it.
#[tokio::test]
async fn a_listen_gets_updates_only_for_the_resources_it_watches() {
    let server = Server::builder("watch", "1.0.0")
        .subscribe(true)
        .resource(
            presa_core::Resource::new("mem://docs", "docs"),
            |_: Context| async { "docs" },
        )
        .build()
        .unwrap();
    let running = serve(server.clone(), HttpOptions::default()).await.unwrap();
    let channel = presa_http::client(running.url(), HttpClientOptions::default()).unwrap();
    let client = Client::connect(channel, ClientOptions::default())
        .await
        .unwrap();
    let mut changes = client
        .subscribe(
            presa_client::SubscriptionOptions::new()
                .resource("")
                .resource("mem://docs"),
        )
        .await
        .unwrap();
    assert_eq!(
        changes.honoured().resource_subscriptions,
        Some(vec!["mem://docs".to_owned()]),
        "an empty URI watches nothing, so it is not honoured"
    );
    for uri in ["mem://other", "mem://docs-old/a.md", "mem://docs/a.md"] {
        server.resource_updated(uri);
    }
    assert_eq!(
        changes.next().await,
        Some(presa_client::ChangeEvent::ResourceUpdated {
            uri: "mem://docs/a.md".to_owned()
        })
    );
    changes.close().await;
    client.close().await;
    running.stop().await.unwrap();
}
