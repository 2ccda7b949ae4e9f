//! Initialize-era session state as data: two endpoints ("instances") sharing one store that
//! keeps the state only as JSON text serve one session between them, and a failing store is an
//! HTTP 503 with `Retry-After`.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use presa_core::{LoggingLevel, Resource, Tool};
use presa_http::{
    EventLog, HttpOptions, LoggedEvent, Relay, Relayed, SessionState, SessionStorage, SessionStore,
    SessionStoreError, StoreFuture, router_with_store,
};
use presa_server::{BusReceiver, Context, Server};
use serde_json::{Value, json};

/// A store that keeps each state as JSON text, as one outside the process would, and counts
/// its calls. With `failing` set, every call fails.
#[derive(Debug, Default)]
struct JsonStore {
    texts: Mutex<HashMap<String, String>>,
    loads: AtomicUsize,
    saves: AtomicUsize,
    failing: AtomicBool,
    /// Every save fails (loads work).
    failing_saves: AtomicBool,
    /// The next load reads the state, then waits for this before it answers.
    held: Mutex<Option<tokio::sync::oneshot::Receiver<()>>>,
    /// Told when a held load has read the state.
    holding: tokio::sync::Notify,
    /// Set for a store the instances share as they would Redis: what one relays reaches
    /// every instance (the sender too, which finds nothing in it for itself).
    relay: Option<tokio::sync::broadcast::Sender<Relayed>>,
}

impl JsonStore {
    /// A store shared the way presa-redis's is (no event log: no test here resumes).
    fn shared() -> Self {
        Self {
            relay: Some(tokio::sync::broadcast::channel(16).0),
            ..Self::default()
        }
    }

    /// Holds the next load after it read the state; the sender lets it answer.
    fn hold_next_load(&self) -> tokio::sync::oneshot::Sender<()> {
        let (release, held) = tokio::sync::oneshot::channel();
        *self.held.lock().unwrap() = Some(held);
        release
    }

    fn state(&self, id: &str) -> Option<Value> {
        let texts = self.texts.lock().unwrap();
        texts
            .get(id)
            .map(|text| serde_json::from_str(text).unwrap())
    }

    fn unavailable(&self) -> Result<(), SessionStoreError> {
        if self.failing.load(Ordering::SeqCst) {
            let cause = std::io::Error::other("connection refused");
            return Err(SessionStoreError::with_source("store down", cause));
        }
        Ok(())
    }
}

impl SessionStore for JsonStore {
    fn load<'a>(
        &'a self,
        id: &'a str,
        _ttl: Option<Duration>,
    ) -> StoreFuture<'a, Option<Arc<SessionState>>> {
        Box::pin(async move {
            self.unavailable()?;
            self.loads.fetch_add(1, Ordering::SeqCst);
            let text = self.texts.lock().unwrap().get(id).cloned();
            let held = self.held.lock().unwrap().take();
            if let Some(held) = held {
                self.holding.notify_one();
                let _ = held.await;
            }
            let Some(text) = text else { return Ok(None) };
            let state = serde_json::from_str(&text)
                .map_err(|e| SessionStoreError::with_source("unreadable state", e))?;
            Ok(Some(Arc::new(state)))
        })
    }

    fn save(
        &self,
        state: Arc<SessionState>,
        replaces: Option<u64>,
        _ttl: Option<Duration>,
    ) -> StoreFuture<'_, bool> {
        Box::pin(async move {
            self.unavailable()?;
            if self.failing_saves.load(Ordering::SeqCst) {
                return Err(SessionStoreError::new("read-only replica"));
            }
            self.saves.fetch_add(1, Ordering::SeqCst);
            let text = serde_json::to_string(&*state)
                .map_err(|e| SessionStoreError::with_source("unwritable state", e))?;
            let mut texts = self.texts.lock().unwrap();
            let stored = texts.get(&*state.id).map(|text| {
                let stored: SessionState = serde_json::from_str(text).unwrap();
                stored.revision
            });
            if stored != replaces {
                return Ok(false);
            }
            texts.insert(state.id.to_string(), text);
            Ok(true)
        })
    }

    fn remove<'a>(&'a self, id: &'a str) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            self.unavailable()?;
            self.texts.lock().unwrap().remove(id);
            Ok(())
        })
    }
}

/// No log: a stream resumes only on the instance that holds it.
impl EventLog for JsonStore {
    fn log_events(&self, _: Vec<LoggedEvent>, _: Option<Duration>) -> StoreFuture<'_, ()> {
        Box::pin(std::future::ready(Ok(())))
    }

    fn events_after<'a>(
        &'a self,
        _: &'a str,
        _: u64,
        _: u64,
    ) -> StoreFuture<'a, Option<Vec<LoggedEvent>>> {
        Box::pin(std::future::ready(Ok(None)))
    }
}

impl Relay for JsonStore {
    fn relay(&self, message: Relayed) {
        if let Some(relay) = &self.relay {
            let _ = relay.send(message);
        }
    }

    fn relayed(&self) -> BusReceiver<Relayed> {
        match &self.relay {
            Some(relay) => relay.subscribe().into(),
            // a store made for one instance: nothing is ever relayed
            None => tokio::sync::broadcast::channel(1).1.into(),
        }
    }
}

/// A tool's gate: `started` is told when it runs, and it returns once `open` is told.
#[derive(Debug, Default)]
struct Gate {
    started: tokio::sync::Notify,
    open: tokio::sync::Notify,
    /// Told when the `hangs` tool's handler is stopped.
    stopped: tokio::sync::Notify,
}

/// Tells its gate, when dropped, that the handler holding it was stopped.
struct Stopped(Arc<Gate>);

impl Drop for Stopped {
    fn drop(&mut self) {
        self.0.stopped.notify_one();
    }
}

fn server(gate: Arc<Gate>) -> Server {
    Server::builder("store-test", "1.0.0")
        .logging(true)
        .subscribe(true)
        .tool(
            Tool::without_params("chatty"),
            |_: Value, cx: Context| async move {
                cx.log(LoggingLevel::Warning, "careful").await;
                "done"
            },
        )
        .resource(Resource::new("file:///notes", "notes"), |_cx| async {
            "notes"
        })
        .tool(Tool::without_params("hangs"), {
            let gate = Arc::clone(&gate);
            move |_: Value, _| {
                let gate = Arc::clone(&gate);
                async move {
                    gate.started.notify_one();
                    let _stopped = Stopped(gate);
                    std::future::pending::<()>().await;
                    "never"
                }
            }
        })
        .tool(Tool::without_params("gated"), move |_: Value, _| {
            let gate = Arc::clone(&gate);
            async move {
                gate.started.notify_one();
                gate.open.notified().await;
                "opened"
            }
        })
        .build()
        .unwrap()
}

/// An endpoint serving `server` with `store` on a free loopback port; its URL.
async fn instance(store: Arc<JsonStore>) -> String {
    gated_instance(store, Arc::default()).await
}

async fn gated_instance(store: Arc<JsonStore>, gate: Arc<Gate>) -> String {
    instance_with(store, gate, HttpOptions::default()).await
}

async fn instance_with(store: Arc<JsonStore>, gate: Arc<Gate>, options: HttpOptions) -> String {
    // the store made to be shared (it relays) is given as shared storage
    let storage = if store.relay.is_some() {
        SessionStorage::shared(store)
    } else {
        SessionStorage::local(store)
    };
    let app: axum::Router = router_with_store(server(gate), options, storage);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    url
}

struct Reply {
    status: u16,
    headers: reqwest::header::HeaderMap,
    /// The JSON messages: the body, or each SSE event's data.
    messages: Vec<Value>,
    /// The SSE event ids.
    event_ids: Vec<String>,
}

async fn post(url: &str, session: Option<&str>, body: Value) -> Reply {
    let mut request = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(body.to_string());
    if let Some(session) = session {
        request = request.header("mcp-session-id", session);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let text = response.text().await.unwrap();
    let mut messages = Vec::new();
    let mut event_ids = Vec::new();
    let sse = headers
        .get("content-type")
        .is_some_and(|t| t.as_bytes().starts_with(b"text/event-stream"));
    if sse {
        for line in text.lines() {
            if let Some(data) = line.strip_prefix("data: ").filter(|d| !d.is_empty()) {
                messages.push(serde_json::from_str(data).unwrap());
            } else if let Some(id) = line.strip_prefix("id: ") {
                event_ids.push(id.to_owned());
            }
        }
    } else if !text.is_empty() {
        messages.push(serde_json::from_str(&text).unwrap());
    }
    Reply {
        status,
        headers,
        messages,
        event_ids,
    }
}

fn request(id: i64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

async fn initialize(url: &str) -> String {
    initialize_at(url, "2025-06-18").await
}

async fn initialize_at(url: &str, version: &str) -> String {
    let init = request(
        0,
        "initialize",
        json!({"protocolVersion": version, "capabilities": {},
               "clientInfo": {"name": "t", "version": "1"}}),
    );
    let reply = post(url, None, init).await;
    assert_eq!(reply.status, 200);
    let session = reply.headers["mcp-session-id"].to_str().unwrap().to_owned();
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(post(url, Some(&session), note).await.status, 202);
    session
}

/// Whether a `tools/call chatty` on `url` carried its warning log.
async fn chatty_logs(url: &str, session: &str, id: i64) -> (bool, Vec<String>) {
    let reply = post(
        url,
        Some(session),
        request(id, "tools/call", json!({"name": "chatty"})),
    )
    .await;
    assert_eq!(reply.status, 200);
    let last = reply.messages.last().unwrap();
    assert_eq!(last["result"]["content"][0]["text"], "done");
    let logged = reply
        .messages
        .iter()
        .any(|m| m["method"] == "notifications/message");
    (logged, reply.event_ids)
}

#[tokio::test]
async fn a_session_continues_on_another_instance_from_its_state_alone() {
    let store = Arc::new(JsonStore::default());
    let a = instance(Arc::clone(&store)).await;
    let b = instance(Arc::clone(&store)).await;
    let session = initialize(&a).await;

    let saved = store.state(&session).unwrap();
    assert_eq!(
        saved["connection"]["session"]["client"]["protocolVersion"],
        "2025-06-18"
    );
    assert_eq!(saved["connection"]["session"]["initialized"], true);

    // B never saw the session: it serves it from the stored state
    let listed = post(&b, Some(&session), request(1, "tools/list", json!({}))).await;
    assert_eq!(listed.status, 200);
    assert_eq!(listed.messages[0]["result"]["tools"][0]["name"], "chatty");

    // a level set on A holds on B, and one set on B holds on A
    let set = request(2, "logging/setLevel", json!({"level": "error"}));
    assert_eq!(post(&a, Some(&session), set).await.status, 200);
    assert!(
        !chatty_logs(&b, &session, 3).await.0,
        "B filters by A's level"
    );
    let set = request(4, "logging/setLevel", json!({"level": "debug"}));
    assert_eq!(post(&b, Some(&session), set).await.status, 200);
    let (logged, a_ids) = chatty_logs(&a, &session, 5).await;
    assert!(logged, "A takes B's level over its own");
    let (_, b_ids) = chatty_logs(&b, &session, 6).await;
    let stream = |id: &String| id.split_once('-').unwrap().0.to_owned();
    assert_ne!(
        stream(&a_ids[0]),
        stream(&b_ids[0]),
        "the instances number their streams apart"
    );

    // a subscription is state too
    let subscribe = request(7, "resources/subscribe", json!({"uri": "file:///notes"}));
    assert_eq!(post(&a, Some(&session), subscribe).await.status, 200);
    let saved = store.state(&session).unwrap();
    assert_eq!(
        saved["connection"]["subscriptions"],
        json!(["file:///notes"])
    );
    assert_eq!(saved["connection"]["session"]["logLevel"], "debug");

    // ended on B, it is gone on A too
    let deleted = reqwest::Client::new()
        .delete(&b)
        .header("mcp-session-id", &session)
        .send()
        .await
        .unwrap();
    assert_eq!(deleted.status(), 200);
    let after = post(&a, Some(&session), request(8, "tools/list", json!({}))).await;
    assert_eq!(after.status, 404);
}

/// Sessions another instance created count among this one's when it serves them: past its
/// `max_sessions`, a restore makes room by ending the live parts of a quiet session here (the
/// shared store keeps its state), and is refused with 503 only when none is quiet.
#[tokio::test]
async fn restored_sessions_count_against_the_session_limit() {
    let store = Arc::new(JsonStore::shared());
    let a = instance(Arc::clone(&store)).await;
    let b = instance_with(
        Arc::clone(&store),
        Arc::default(),
        HttpOptions::default().max_sessions(1),
    )
    .await;
    let first = initialize(&a).await;
    let second = initialize(&a).await;
    let list = || request(1, "tools/list", json!({}));
    assert_eq!(post(&b, Some(&first), list()).await.status, 200);
    // the first is quiet on B: the second takes its place there, and the first goes on
    assert_eq!(post(&b, Some(&second), list()).await.status, 200);
    assert_eq!(post(&a, Some(&first), list()).await.status, 200);
    // a GET stream keeps the second busy on B: the first finds no place there now
    let stream = reqwest::Client::new()
        .get(&b)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &second)
        .header("mcp-protocol-version", "2025-06-18")
        .send()
        .await
        .unwrap();
    assert_eq!(stream.status(), 200);
    let refused = post(&b, Some(&first), list()).await;
    assert_eq!(refused.status, 503, "{:?}", refused.messages);
    assert_eq!(refused.headers["retry-after"], "1");
    assert!(
        refused.messages[0]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("most sessions"),
        "{:?}",
        refused.messages
    );
    // the one B holds goes on being served there, and the first where it lives
    assert_eq!(post(&b, Some(&second), list()).await.status, 200);
    assert_eq!(post(&a, Some(&first), list()).await.status, 200);
    drop(stream);
}

#[tokio::test]
async fn a_plain_request_reads_the_store_once_and_writes_nothing() {
    let store = Arc::new(JsonStore::default());
    let url = instance(Arc::clone(&store)).await;
    let session = initialize(&url).await;
    // the first request reserves a block of stream numbers: one write
    post(&url, Some(&session), request(1, "tools/list", json!({}))).await;
    let (loads, saves) = (
        store.loads.load(Ordering::SeqCst),
        store.saves.load(Ordering::SeqCst),
    );
    for id in 2..12 {
        let reply = post(&url, Some(&session), request(id, "tools/list", json!({}))).await;
        assert_eq!(reply.status, 200);
    }
    assert_eq!(store.loads.load(Ordering::SeqCst) - loads, 10);
    assert_eq!(store.saves.load(Ordering::SeqCst), saves);
}

#[tokio::test]
async fn a_failing_store_answers_503_with_retry_after_and_loses_nothing() {
    let store = Arc::new(JsonStore::default());
    let url = instance(Arc::clone(&store)).await;
    let session = initialize(&url).await;

    store.failing.store(true, Ordering::SeqCst);
    let reply = post(&url, Some(&session), request(1, "tools/list", json!({}))).await;
    assert_eq!(reply.status, 503);
    assert_eq!(reply.headers["retry-after"], "1");
    assert_eq!(reply.messages[0]["error"]["code"], -32603);
    let init = request(
        2,
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {},
               "clientInfo": {"name": "t", "version": "1"}}),
    );
    let reply = post(&url, None, init).await;
    assert_eq!(
        reply.status, 503,
        "no session is created that could not be kept"
    );
    assert!(reply.headers.get("mcp-session-id").is_none());

    // back up: the session is where it was
    store.failing.store(false, Ordering::SeqCst);
    let reply = post(&url, Some(&session), request(3, "tools/list", json!({}))).await;
    assert_eq!(reply.status, 200);
    assert_eq!(reply.messages[0]["result"]["tools"][0]["name"], "chatty");
}

/// A subscribe on `subscriber` that reads the session's state, then waits while a
/// `logging/setLevel` on `setter` changes it; both answered, the state saved must hold both.
async fn subscribe_racing_a_level_change(
    store: &JsonStore,
    subscriber: &str,
    setter: &str,
    session: &str,
) {
    let release = store.hold_next_load();
    let subscribe = request(20, "resources/subscribe", json!({"uri": "file:///notes"}));
    let held = tokio::spawn({
        let (url, session) = (subscriber.to_owned(), session.to_owned());
        async move { post(&url, Some(&session), subscribe).await.status }
    });
    store.holding.notified().await;
    let set = request(21, "logging/setLevel", json!({"level": "error"}));
    assert_eq!(post(setter, Some(session), set).await.status, 200);
    release.send(()).unwrap();
    assert_eq!(held.await.unwrap(), 200);

    let saved = store.state(session).unwrap();
    let kept = &saved["connection"];
    assert_eq!(kept["session"]["logLevel"], "error", "{saved}");
    assert_eq!(kept["subscriptions"], json!(["file:///notes"]), "{saved}");
}

/// Two instances change one session at once: the save that loses the race merges its change
/// onto the winner's, and neither is lost.
#[tokio::test]
async fn concurrent_changes_on_two_instances_are_both_kept() {
    let store = Arc::new(JsonStore::default());
    let a = instance(Arc::clone(&store)).await;
    let b = instance(Arc::clone(&store)).await;
    let session = initialize(&a).await;
    // B holds the session's live parts too
    let ping = post(&b, Some(&session), request(1, "ping", json!({}))).await;
    assert_eq!(ping.status, 200);
    subscribe_racing_a_level_change(&store, &b, &a, &session).await;
    assert!(!chatty_logs(&b, &session, 4).await.0, "B has A's level");
}

/// One instance, two requests at once: a request that read an older state than the one its
/// session saved meanwhile does not take the older one over.
#[tokio::test]
async fn a_request_that_read_an_older_state_keeps_the_newer_one() {
    let store = Arc::new(JsonStore::default());
    let url = instance(Arc::clone(&store)).await;
    let session = initialize(&url).await;
    subscribe_racing_a_level_change(&store, &url, &url, &session).await;
}

/// A session deleted (on another instance) while one of its POSTs is in flight stays deleted:
/// that POST's save does not bring it back.
#[tokio::test]
async fn a_post_in_flight_does_not_bring_back_a_deleted_session() {
    let store = Arc::new(JsonStore::default());
    let gate = Arc::new(Gate::default());
    let a = gated_instance(Arc::clone(&store), Arc::clone(&gate)).await;
    let b = instance(Arc::clone(&store)).await;
    // 2025-03-26 takes batches: a subscription (a change) and a call that waits, in one POST
    let session = initialize_at(&a, "2025-03-26").await;
    let batch = json!([
        request(1, "resources/subscribe", json!({"uri": "file:///notes"})),
        request(2, "tools/call", json!({"name": "gated"})),
    ]);
    let in_flight = tokio::spawn({
        let (a, session) = (a.clone(), session.clone());
        async move { post(&a, Some(&session), batch).await.status }
    });
    // the subscription is answered at once; the call is what the POST waits for
    gate.started.notified().await;
    let deleted = reqwest::Client::new()
        .delete(&b)
        .header("mcp-session-id", &session)
        .send()
        .await
        .unwrap();
    assert_eq!(deleted.status(), 200);
    gate.open.notify_one();
    assert_eq!(in_flight.await.unwrap(), 200);
    assert!(store.state(&session).is_none(), "not saved back");
    let after = post(&a, Some(&session), request(3, "tools/list", json!({}))).await;
    assert_eq!(after.status, 404);
}

/// A save that fails after the request was served does not take its answer away: the change is
/// saved with the session's next request.
#[tokio::test]
async fn a_failed_save_keeps_the_answer_and_saves_with_the_next_request() {
    let store = Arc::new(JsonStore::default());
    let url = instance(Arc::clone(&store)).await;
    let session = initialize(&url).await;
    store.failing_saves.store(true, Ordering::SeqCst);
    let set = request(1, "logging/setLevel", json!({"level": "error"}));
    let reply = post(&url, Some(&session), set).await;
    assert_eq!(reply.status, 200);
    assert_eq!(reply.messages[0]["result"], json!({}));
    let saved = store.state(&session).unwrap();
    assert!(saved["connection"]["session"].get("logLevel").is_none());

    store.failing_saves.store(false, Ordering::SeqCst);
    let reply = post(&url, Some(&session), request(2, "tools/list", json!({}))).await;
    assert_eq!(reply.status, 200);
    let saved = store.state(&session).unwrap();
    assert_eq!(saved["connection"]["session"]["logLevel"], "error");
}

/// Stream numbers are reserved in the store before they are used: two instances serving one
/// session never give two streams the same number, even when both need a new block.
#[tokio::test]
async fn two_instances_never_number_two_streams_alike() {
    let store = Arc::new(JsonStore::default());
    let a = instance(Arc::clone(&store)).await;
    let b = instance(Arc::clone(&store)).await;
    let session = initialize(&a).await;
    let set = request(1, "logging/setLevel", json!({"level": "debug"}));
    assert_eq!(post(&a, Some(&session), set).await.status, 200);
    let stream = |ids: &[String]| -> u64 { ids[0].split_once('-').unwrap().0.parse().unwrap() };
    let mut seen = std::collections::HashSet::new();
    // B's first stream takes a block of its own; A then uses up the one initialize reserved
    // (1,024 numbers) and needs another, past B's
    let (_, on_b) = chatty_logs(&b, &session, 2).await;
    assert!(seen.insert(stream(&on_b)));
    for id in 3..1040 {
        let (_, on_a) = chatty_logs(&a, &session, id).await;
        assert!(seen.insert(stream(&on_a)), "stream {} twice", stream(&on_a));
    }
    for id in 1040..1050 {
        let (_, on_b) = chatty_logs(&b, &session, id).await;
        assert!(seen.insert(stream(&on_b)), "stream {} twice", stream(&on_b));
    }
    // round-robin, each keeping the block it saved while taking the other's newer state over
    for id in 1050..1210 {
        let instance = if id % 2 == 0 { &a } else { &b };
        let (_, on) = chatty_logs(instance, &session, id).await;
        assert!(seen.insert(stream(&on)), "stream {} twice", stream(&on));
    }
}

/// An `initialize` that could not be answered (a notification, or a batch member) starts no
/// session: nothing is kept or saved for it.
#[tokio::test]
async fn an_initialize_without_an_id_or_in_a_batch_starts_no_session() {
    let store = Arc::new(JsonStore::default());
    let url = instance(Arc::clone(&store)).await;
    let params = json!({"protocolVersion": "2025-03-26", "capabilities": {},
                        "clientInfo": {"name": "t", "version": "1"}});
    let notification = json!({"jsonrpc": "2.0", "method": "initialize", "params": params});
    let batch = json!([request(0, "initialize", params)]);
    for (body, why) in [
        (notification, "initialize must be a request"),
        (batch, "batches are not allowed"),
    ] {
        let reply = post(&url, None, body.clone()).await;
        assert_eq!(reply.status, 400, "{body}");
        assert!(reply.headers.get("mcp-session-id").is_none(), "{body}");
        let message = reply.messages[0]["error"]["message"].as_str().unwrap();
        assert!(message.contains(why), "{body}: {message}");
    }
    assert_eq!(store.saves.load(Ordering::SeqCst), 0);
    assert!(store.texts.lock().unwrap().is_empty());
    // an initialize request still starts one
    initialize(&url).await;
    assert_eq!(store.texts.lock().unwrap().len(), 1);
}

#[tokio::test]
async fn a_cancellation_posted_to_another_instance_stops_the_handler_there() {
    let store = Arc::new(JsonStore::shared());
    let gate = Arc::new(Gate::default());
    let a = gated_instance(Arc::clone(&store), Arc::clone(&gate)).await;
    let b = instance(Arc::clone(&store)).await;
    let session = initialize(&a).await;
    let call = {
        let (a, session) = (a.clone(), session.clone());
        tokio::spawn(async move {
            post(
                &a,
                Some(&session),
                request(5, "tools/call", json!({"name": "hangs"})),
            )
            .await
        })
    };
    gate.started.notified().await;
    // the client's cancellation lands on B, which serves no request 5: A hears of it
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                        "params": {"requestId": 5, "reason": "changed my mind"}});
    assert_eq!(post(&b, Some(&session), cancel).await.status, 202);
    tokio::time::timeout(Duration::from_secs(10), gate.stopped.notified())
        .await
        .expect("the handler on A was stopped");
    call.abort();
}

/// A GET stream opened while another is open replaces it: the earlier one ends, and the new
/// one is numbered apart from it.
#[tokio::test]
async fn a_new_get_stream_ends_the_one_it_replaces() {
    let url = instance(Arc::new(JsonStore::default())).await;
    let session = initialize_at(&url, "2025-11-25").await;
    let get = || {
        reqwest::Client::new()
            .get(&url)
            .header("accept", "text/event-stream")
            .header("mcp-session-id", &session)
            .header("mcp-protocol-version", "2025-11-25")
            .send()
    };
    let mut first = get().await.unwrap();
    let primed = String::from_utf8(first.chunk().await.unwrap().unwrap().to_vec()).unwrap();
    let second = get().await.unwrap();
    assert_eq!(second.status(), 200);
    let ended = tokio::time::timeout(Duration::from_secs(10), async {
        while first.chunk().await.unwrap().is_some() {}
    })
    .await;
    assert!(ended.is_ok(), "the replaced stream ended");
    let mut second = second;
    let again = String::from_utf8(second.chunk().await.unwrap().unwrap().to_vec()).unwrap();
    let stream = |text: &str| {
        text.lines()
            .find_map(|line| line.strip_prefix("id: "))
            .and_then(|id| id.split_once('-'))
            .map(|(stream, _)| stream.to_owned())
            .unwrap()
    };
    assert_ne!(stream(&primed), stream(&again), "{primed} / {again}");
}
