//! Draining the endpoint mounted in an app of our own, over real HTTP on 127.0.0.1: new work
//! refused, listens and GET streams ended with their signals, requests in flight given until the
//! deadline, then stopped.

use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use presa_core::Tool;
use presa_http::{Drain, HttpOptions, InMemorySessionStore, SessionStorage, router_with_drain};
use presa_server::Server;
use presa_test::message::{initialize_with, legacy_request, request};
use serde_json::{Value, json};
use tokio::sync::Notify;

/// Longer than anything here should take by far.
const PATIENCE: Duration = Duration::from_secs(20);

struct Fixture {
    url: String,
    http: reqwest::Client,
    drain: Drain,
    /// Opens the `gated` tool.
    gate: Arc<Notify>,
    /// A permit for each `gated` or `forever` call started.
    started: Arc<tokio::sync::Semaphore>,
    /// A permit for each `forever` call whose future was dropped.
    stopped: Arc<tokio::sync::Semaphore>,
}

async fn fixture() -> Fixture {
    fixture_with(HttpOptions::default()).await
}

async fn fixture_with(options: HttpOptions) -> Fixture {
    let gate = Arc::new(Notify::new());
    let started = Arc::new(tokio::sync::Semaphore::new(0));
    let stopped = Arc::new(tokio::sync::Semaphore::new(0));
    let (opens, starts, told) = (
        Arc::clone(&gate),
        Arc::clone(&started),
        Arc::clone(&stopped),
    );
    let gated_starts = Arc::clone(&started);
    let server = Server::builder("drain", "1")
        .list_changed(true)
        .tool(Tool::without_params("gated"), move |_: Value, _| {
            let gate = Arc::clone(&opens);
            let starts = Arc::clone(&gated_starts);
            async move {
                starts.add_permits(1);
                gate.notified().await;
                "opened"
            }
        })
        .tool(Tool::without_params("forever"), move |_: Value, _| {
            struct Told(Arc<tokio::sync::Semaphore>);
            impl Drop for Told {
                fn drop(&mut self) {
                    self.0.add_permits(1);
                }
            }
            let told = Told(Arc::clone(&told));
            let starts = Arc::clone(&starts);
            async move {
                let _told = told;
                starts.add_permits(1);
                std::future::pending::<()>().await;
                "never"
            }
        })
        .build()
        .unwrap();
    let store = Arc::new(InMemorySessionStore::default());
    let (mcp, drain) = router_with_drain(server, options, SessionStorage::local(store));
    let app: axum::Router = axum::Router::new().merge(mcp);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    Fixture {
        url,
        http: reqwest::Client::new(),
        drain,
        gate,
        started,
        stopped,
    }
}

impl Fixture {
    fn post(&self) -> reqwest::RequestBuilder {
        self.http
            .post(&self.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
    }

    fn modern(&self, body: &Value) -> reqwest::RequestBuilder {
        let mut post = self
            .post()
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", body["method"].as_str().unwrap());
        if let Some(name) = body["params"]["name"].as_str() {
            post = post.header("mcp-name", name);
        }
        post.body(body.to_string())
    }

    async fn initialize(&self) -> String {
        let init = initialize_with(0, "2025-06-18", json!({})).to_string();
        let response = self.post().body(init).send().await.unwrap();
        assert_eq!(response.status(), 200);
        let session = response.headers()["mcp-session-id"]
            .to_str()
            .unwrap()
            .to_owned();
        let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let response = self
            .post()
            .header("mcp-session-id", &session)
            .body(note.to_string())
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 202);
        session
    }
}

/// The JSON messages of an SSE text.
fn messages(text: &str) -> Vec<Value> {
    text.lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .filter(|d| !d.is_empty())
        .map(|d| serde_json::from_str(d).unwrap())
        .collect()
}

#[tokio::test]
async fn a_drain_ends_streams_refuses_new_work_and_lets_requests_finish() {
    let f = fixture().await;
    let session = f.initialize().await;
    let get = f
        .http
        .get(&f.url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &session)
        .send()
        .await
        .unwrap();
    assert_eq!(get.status(), 200);
    let listen = request(
        "listen-1",
        "subscriptions/listen",
        json!({"notifications": {"toolsListChanged": true}}),
    );
    let listen = f.modern(&listen).send().await.unwrap();
    assert_eq!(listen.status(), 200);
    let mut listen = listen.bytes_stream();
    let ack = String::from_utf8(listen.next().await.unwrap().unwrap().to_vec()).unwrap();
    assert!(
        ack.contains("notifications/subscriptions/acknowledged"),
        "{ack}"
    );
    let call = f.modern(&request(
        7,
        "tools/call",
        json!({"name": "gated", "arguments": {}}),
    ));
    let call = tokio::spawn(call.send());
    let running = tokio::time::timeout(PATIENCE, f.started.acquire()).await;
    running.expect("the call started").unwrap().forget();

    let drain = f.drain.clone();
    let draining = tokio::spawn(async move { drain.drain(PATIENCE).await });
    // the listen ends with its result, the GET stream ends
    let mut rest = String::new();
    while let Some(chunk) = tokio::time::timeout(PATIENCE, listen.next()).await.unwrap() {
        rest.push_str(&String::from_utf8_lossy(&chunk.unwrap()));
    }
    let last = messages(&rest).pop().expect("the listen's result");
    assert_eq!(last["id"], "listen-1", "{rest}");
    assert!(last["result"].is_object(), "{rest}");
    tokio::time::timeout(PATIENCE, get.text())
        .await
        .expect("the GET stream ended")
        .unwrap();
    assert!(f.drain.is_draining());

    // no new work
    let list = request(8, "tools/list", json!({}));
    let refused = f.modern(&list).send().await.unwrap();
    assert_eq!(refused.status(), 503);
    assert_eq!(refused.headers()["retry-after"], "1");
    let init = initialize_with(0, "2025-06-18", json!({})).to_string();
    let refused = f.post().body(init).send().await.unwrap();
    assert_eq!(refused.status(), 503);
    let in_session = legacy_request(9, "tools/list", json!({})).to_string();
    let refused = f
        .post()
        .header("mcp-session-id", &session)
        .header("mcp-protocol-version", "2025-06-18")
        .body(in_session)
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 503);
    assert!(!draining.is_finished(), "the call in flight is waited for");

    // the request in flight is answered, and then the drain is done
    f.gate.notify_one();
    let answered = call.await.unwrap().unwrap();
    assert_eq!(answered.status(), 200);
    let body: Value = serde_json::from_str(&answered.text().await.unwrap()).unwrap();
    assert_eq!(body["result"]["content"][0]["text"], "opened", "{body}");
    let report = draining.await.unwrap();
    assert!(report.finished);
    assert_eq!(report.stopped, 0);
}

#[tokio::test]
async fn past_its_deadline_a_drain_stops_what_still_runs() {
    let f = fixture().await;
    let session = f.initialize().await;
    let modern = f.modern(&request(
        1,
        "tools/call",
        json!({"name": "forever", "arguments": {}}),
    ));
    let modern = tokio::spawn(modern.send());
    let legacy = legacy_request(2, "tools/call", json!({"name": "forever", "arguments": {}}));
    let legacy = f
        .post()
        .header("mcp-session-id", &session)
        .header("mcp-protocol-version", "2025-06-18")
        .body(legacy.to_string());
    let legacy = tokio::spawn(legacy.send());
    // both handlers run before the drain starts
    let both = tokio::time::timeout(PATIENCE, f.started.acquire_many(2)).await;
    both.expect("both calls started").unwrap().forget();
    let report = f.drain.drain(Duration::from_millis(300)).await;
    assert!(!report.finished);
    assert_eq!(report.stopped, 2, "{report:?}");
    let both = tokio::time::timeout(PATIENCE, f.stopped.acquire_many(2)).await;
    both.expect("each handler was stopped").unwrap().forget();
    let modern = modern.await.unwrap().unwrap();
    let text = tokio::time::timeout(PATIENCE, modern.text())
        .await
        .unwrap()
        .unwrap();
    assert!(text.contains("cancelled"), "{text}");
    let legacy = legacy.await.unwrap().unwrap();
    tokio::time::timeout(PATIENCE, legacy.text())
        .await
        .expect("the session's POST ended")
        .unwrap();
}

/// A listen whose client closed its stream leaves nothing behind: once the streams are gone a
/// drain finds nothing to wait for or to stop.
#[tokio::test]
async fn closed_listens_leave_nothing_behind() {
    let f = fixture_with(HttpOptions::default().keepalive(Duration::from_millis(50))).await;
    for id in 0..20 {
        let listen = request(
            id,
            "subscriptions/listen",
            json!({"notifications": {"toolsListChanged": true}}),
        );
        let response = f.modern(&listen).send().await.unwrap();
        assert_eq!(response.status(), 200);
        let mut stream = response.bytes_stream();
        let ack = stream.next().await.unwrap().unwrap();
        assert!(String::from_utf8_lossy(&ack).contains("acknowledged"));
        drop(stream);
    }
    let report = f.drain.drain(PATIENCE).await;
    assert!(report.finished, "the closed streams were let go");
    assert_eq!(report.stopped, 0, "no listen was left to stop");
}
