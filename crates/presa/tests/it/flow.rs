//! Many calls at once on one connection: every one comes back, however far they outnumber the
//! queues between client and server (in-process, and stdio with a real process).

use presa::client::{Client, ClientOptions};
use presa::core::{Implementation, ProtocolVersion, Tool};
use presa::server::{Context, Server};
use presa::stdio::{CommandOptions, command};
use serde_json::{Value, json};

use crate::harness::{example, guarded};

/// Far more calls than the queues on the way hold (64 messages each).
const CALLS: usize = 2_000;

fn options(version: ProtocolVersion) -> ClientOptions {
    ClientOptions::new(Implementation::new("flow-test", "1.0.0")).protocol_version(Some(version))
}

fn echo() -> Server {
    Server::builder("echo", "1.0.0")
        .tool_sync(Tool::without_params("echo"), |_: Value, _: Context| "back")
        .build()
        .unwrap()
}

/// Starts `CALLS` calls at once and checks that each is answered.
async fn all_at_once(client: &Client, tool: &str, arguments: Value) {
    let calls: Vec<_> = (0..CALLS)
        .map(|_| {
            let client = client.clone();
            let (tool, arguments) = (tool.to_owned(), arguments.clone());
            tokio::spawn(async move { client.call_tool(&tool, arguments).await })
        })
        .collect();
    for call in calls {
        let result = call.await.unwrap().unwrap();
        assert!(!result.is_error(), "{result:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_process_calls_far_past_the_queues_all_come_back_in_both_eras() {
    guarded(async {
        for version in [ProtocolVersion::V2026_07_28, ProtocolVersion::V2025_11_25] {
            let client = Client::connect(presa::in_process(echo()), options(version))
                .await
                .unwrap();
            all_at_once(&client, "echo", json!({})).await;
            client.close().await;
        }
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stdio_calls_far_past_the_pipes_all_come_back() {
    guarded(async {
        let channel = command([example("library")], CommandOptions::default()).unwrap();
        let client = Client::connect(channel, options(ProtocolVersion::V2026_07_28))
            .await
            .unwrap();
        all_at_once(&client, "add", json!({"numbers": [1, 2, 3]})).await;
        client.close().await;
    })
    .await;
}
