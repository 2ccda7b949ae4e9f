//! The connection layer over channels: one peer's session, each request on its own task.

use std::sync::Arc;

use presa_core::{LoggingLevel, META_LOG_LEVEL, Tool, Transmit};
use presa_server::*;
use presa_test::message::request;
use serde_json::{Value, json};
use tokio::sync::{Notify, mpsc};
use tokio::task::JoinHandle;

struct Peer {
    to_server: Option<mpsc::Sender<Incoming>>,
    from_server: mpsc::Receiver<Transmit>,
    task: JoinHandle<()>,
}

impl Peer {
    fn start(server: Server, options: ConnectionOptions) -> Self {
        let (to_server, incoming) = mpsc::channel(16);
        let (outgoing, from_server) = mpsc::channel(16);
        let task = tokio::spawn(serve_connection(
            server,
            ServerChannel {
                incoming: incoming.into(),
                outgoing,
            },
            options,
        ));
        Self {
            to_server: Some(to_server),
            from_server,
            task,
        }
    }

    async fn send(&self, message: Value) {
        let frame = Incoming::Frame(message.to_string().into_bytes());
        self.to_server.as_ref().unwrap().send(frame).await.unwrap();
    }

    async fn send_raw(&self, bytes: &[u8]) {
        self.to_server
            .as_ref()
            .unwrap()
            .send(Incoming::Frame(bytes.to_vec()))
            .await
            .unwrap();
    }

    async fn next(&mut self) -> Value {
        let transmit = self.from_server.recv().await.expect("a message");
        serde_json::from_str(&transmit.message.to_json()).unwrap()
    }

    fn close_input(&mut self) {
        self.to_server = None;
    }
}

fn call(id: i64, tool: &str, extra_meta: Value) -> Value {
    request(id, "tools/call", json!({"name": tool, "_meta": extra_meta}))
}

#[derive(Default)]
struct Gate(Notify);

/// Signals when the `forever` tool starts and when its future is dropped.
#[derive(Default)]
struct Forever {
    started: Notify,
    dropped: Notify,
}

fn server(gate: Arc<Gate>, forever: Arc<Forever>) -> Server {
    server_with_limits(gate, forever, presa_core::SessionLimits::default())
}

fn server_with_limits(
    gate: Arc<Gate>,
    forever: Arc<Forever>,
    limits: presa_core::SessionLimits,
) -> Server {
    struct SetOnDrop(Arc<Forever>);
    impl Drop for SetOnDrop {
        fn drop(&mut self) {
            self.0.dropped.notify_one();
        }
    }
    Server::builder("conn", "1")
        .limits(limits)
        .logging(true)
        .list_changed(true)
        .tool_sync(Tool::without_params("quick"), |_: Value, _| "quick")
        .tool(Tool::without_params("yields"), |_: Value, _| async {
            tokio::task::yield_now().await;
            "yielded"
        })
        .tool(Tool::without_params("gated"), move |_: Value, _| {
            let gate = Arc::clone(&gate);
            async move {
                gate.0.notified().await;
                "opened"
            }
        })
        .tool(
            Tool::without_params("forever"),
            move |_: Value, _cx: Context| {
                let guard = SetOnDrop(Arc::clone(&forever));
                async move {
                    let _guard = guard;
                    _guard.0.started.notify_one();
                    std::future::pending::<()>().await;
                    "never"
                }
            },
        )
        .tool(
            Tool::without_params("chatty"),
            |_: Value, cx: Context| async move {
                cx.progress(1.0, Some(2.0), Some("half")).await;
                cx.log(LoggingLevel::Debug, "too quiet").await;
                cx.log(LoggingLevel::Warning, "loud enough").await;
                cx.progress(2.0, Some(2.0), None).await;
                "done"
            },
        )
        .build()
        .unwrap()
}

fn fixture() -> (Server, Arc<Gate>, Arc<Forever>) {
    let gate = Arc::new(Gate(Notify::new()));
    let forever = Arc::new(Forever::default());
    (
        server(Arc::clone(&gate), Arc::clone(&forever)),
        gate,
        forever,
    )
}

#[tokio::test]
async fn requests_are_answered_in_any_order() {
    let (server, gate, _) = fixture();
    let mut peer = Peer::start(server, ConnectionOptions::default());
    peer.send(call(1, "gated", json!({}))).await;
    peer.send(call(2, "quick", json!({}))).await;
    assert_eq!(
        peer.next().await["id"],
        2,
        "the quick call overtakes the gated one"
    );
    gate.0.notify_one();
    let answer = peer.next().await;
    assert_eq!(
        (
            answer["id"].clone(),
            answer["result"]["content"][0]["text"].clone()
        ),
        (json!(1), json!("opened"))
    );
}

#[tokio::test]
async fn a_full_connection_stops_reading_until_a_request_finishes() {
    let (server, gate, _) = fixture();
    let mut peer = Peer::start(server, ConnectionOptions::default().max_in_flight(1));
    peer.send(call(1, "gated", json!({}))).await;
    peer.send(call(2, "quick", json!({}))).await;
    gate.0.notify_one();
    assert_eq!(
        peer.next().await["id"],
        1,
        "the second request was not read while the first ran"
    );
    assert_eq!(peer.next().await["id"], 2);
}

/// Where the connection would read on, the session refuses a request past its limit and serves
/// the ones it holds.
#[tokio::test]
async fn a_session_refuses_requests_past_its_in_flight_limit() {
    let gate = Arc::new(Gate(Notify::new()));
    let limits = presa_core::SessionLimits::default().max_in_flight_requests(2);
    let server = server_with_limits(Arc::clone(&gate), Arc::default(), limits);
    let mut peer = Peer::start(server, ConnectionOptions::default().max_in_flight(8));
    peer.send(call(1, "gated", json!({}))).await;
    peer.send(call(2, "gated", json!({}))).await;
    peer.send(call(3, "quick", json!({}))).await;
    let refused = peer.next().await;
    assert_eq!(refused["id"], 3, "{refused}");
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(message.contains("at most 2"), "{message}");
    // one at a time: a permit given before a handler waits is kept for it
    gate.0.notify_one();
    let first = peer.next().await["id"].clone();
    gate.0.notify_one();
    let mut ids = vec![first, peer.next().await["id"].clone()];
    ids.sort_by_key(|id| id.as_i64());
    assert_eq!(ids, [json!(1), json!(2)]);
    // room again
    peer.send(call(4, "quick", json!({}))).await;
    assert_eq!(peer.next().await["result"]["content"][0]["text"], "quick");
}

#[tokio::test]
async fn cancellation_stops_the_handler_and_no_response_is_sent() {
    let (server, _, forever) = fixture();
    let mut peer = Peer::start(server, ConnectionOptions::default());
    peer.send(call(7, "forever", json!({}))).await;
    forever.started.notified().await;
    peer.send(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7, "reason": "bored"}})).await;
    peer.send(call(8, "quick", json!({}))).await;
    assert_eq!(
        peer.next().await["id"],
        8,
        "nothing for the cancelled request"
    );
    peer.close_input();
    assert!(peer.from_server.recv().await.is_none(), "no late response");
    peer.task.await.unwrap();
    // the handler's future is dropped (a hang here fails the test by its guard)
    tokio::time::timeout(
        std::time::Duration::from_secs(30),
        forever.dropped.notified(),
    )
    .await
    .expect("handler dropped");
}

#[tokio::test]
async fn progress_and_logs_reach_the_peer_only_when_asked_for() {
    let (server, _, _) = fixture();
    let mut peer = Peer::start(server.clone(), ConnectionOptions::default());
    peer.send(call(
        1,
        "chatty",
        json!({"progressToken": "p", META_LOG_LEVEL: "info"}),
    ))
    .await;
    let mut seen = Vec::new();
    loop {
        let m = peer.next().await;
        if m.get("id").is_some() {
            break;
        }
        seen.push(m);
    }
    assert_eq!(seen.len(), 3, "{seen:?}");
    assert_eq!(
        seen[0]["params"],
        json!({"progressToken": "p", "progress": 1, "total": 2, "message": "half"})
    );
    assert_eq!(
        seen[1]["params"],
        json!({"level": "warning", "data": "loud enough"})
    );
    assert_eq!(seen[2]["params"]["progress"], 2);

    peer.send(call(2, "chatty", json!({}))).await;
    let m = peer.next().await;
    assert_eq!(
        m["id"], 2,
        "no progress token, no log level: only the result"
    );
}

#[tokio::test]
async fn when_input_ends_requests_in_flight_still_finish() {
    let (server, gate, _) = fixture();
    let mut peer = Peer::start(server, ConnectionOptions::default());
    peer.send(call(1, "gated", json!({}))).await;
    peer.close_input();
    gate.0.notify_one();
    assert_eq!(peer.next().await["id"], 1);
    peer.task.await.unwrap();
}

/// A request that finishes while the input ends is still answered: the connection counts what
/// is in flight before it drains its queue (a regression guard for a race that lost it).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_finishing_as_the_input_ends_is_answered() {
    for round in 0..200 {
        let (server, _, _) = fixture();
        let mut peer = Peer::start(server, ConnectionOptions::default());
        peer.send(call(round, "yields", json!({}))).await;
        peer.close_input();
        assert_eq!(peer.next().await["id"], round, "round {round}");
        peer.task.await.unwrap();
    }
}

#[tokio::test]
async fn bad_frames_are_answered_and_the_session_goes_on() {
    let (server, _, _) = fixture();
    let mut peer = Peer::start(server, ConnectionOptions::default());
    peer.send_raw(b"{not json").await;
    assert_eq!(peer.next().await["error"]["code"], -32700);
    peer.send_raw(br#"{"jsonrpc":"2.0","id":"x","method":7}"#)
        .await;
    let m = peer.next().await;
    assert_eq!(
        (m["error"]["code"].clone(), m["id"].clone()),
        (json!(-32600), json!("x"))
    );
    peer.send_raw(br#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#)
        .await;
    assert_eq!(
        peer.next().await["error"]["code"],
        -32600,
        "no batches outside 2025-03-26"
    );
    peer.send(call(3, "quick", json!({}))).await;
    assert_eq!(peer.next().await["id"], 3);
}

#[tokio::test]
async fn an_initialize_era_peer_hears_of_list_changes() {
    let (server, _, _) = fixture();
    let mut peer = Peer::start(server.clone(), ConnectionOptions::default());
    peer.send(json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-03-26", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}})).await;
    let init = peer.next().await;
    assert_eq!(init["result"]["protocolVersion"], "2025-03-26");
    assert_eq!(
        init["result"]["capabilities"]["tools"],
        json!({"listChanged": true})
    );
    peer.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;
    // 2025-03-26 allows batches
    peer.send_raw(
        br#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]"#,
    )
    .await;
    assert_eq!(peer.next().await["id"], 1);
    assert_eq!(peer.next().await["id"], 2);
    server
        .add_tool(Tool::without_params("late"), |_: Value, _| async { "late" })
        .unwrap();
    assert_eq!(
        peer.next().await["method"],
        "notifications/tools/list_changed"
    );
}

/// A peer whose input never pauses still hears of list changes promptly, not once its input
/// runs dry.
#[tokio::test]
async fn list_changes_are_not_held_back_by_input_that_never_pauses() {
    let (server, _, _) = fixture();
    let (to_server, incoming) = mpsc::channel(8_192);
    let (outgoing, mut from_server) = mpsc::channel(16);
    let frame = |message: Value| Incoming::Frame(message.to_string().into_bytes());
    to_server.send(frame(json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}})))
        .await
        .unwrap();
    to_server
        .send(frame(
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        ))
        .await
        .unwrap();
    for id in 1..=5_000 {
        let ping = json!({"jsonrpc": "2.0", "id": id, "method": "ping"});
        to_server.send(frame(ping)).await.unwrap();
    }
    let task = tokio::spawn(serve_connection(
        server.clone(),
        ServerChannel {
            incoming: incoming.into(),
            outgoing,
        },
        ConnectionOptions::default(),
    ));
    // the first answers: the connection is running, with thousands of inputs waiting
    let first = from_server.recv().await.unwrap();
    assert_eq!(
        serde_json::from_str::<Value>(&first.message.to_json()).unwrap()["id"],
        0
    );
    server
        .add_tool(Tool::without_params("late"), |_: Value, _| async { "late" })
        .unwrap();
    let mut before = 0;
    loop {
        let transmit = from_server.recv().await.expect("a message");
        let message: Value = serde_json::from_str(&transmit.message.to_json()).unwrap();
        if message["method"] == "notifications/tools/list_changed" {
            break;
        }
        before += 1;
    }
    assert!(before < 200, "{before} answers went before the list change");
    drop(to_server);
    task.abort();
}

fn listen(id: Value, filter: Value) -> Value {
    request(id, "subscriptions/listen", json!({"notifications": filter}))
}

#[tokio::test]
async fn a_connection_holds_at_most_its_listens() {
    let limits = presa_core::SessionLimits::default().max_listens(2);
    let server = server_with_limits(Arc::default(), Arc::default(), limits);
    let mut peer = Peer::start(server, ConnectionOptions::default());
    for id in ["a", "b"] {
        peer.send(listen(json!(id), json!({"toolsListChanged": true})))
            .await;
        let ack = peer.next().await;
        assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    }
    peer.send(listen(json!("c"), json!({"toolsListChanged": true})))
        .await;
    let refused = peer.next().await;
    assert_eq!(refused["id"], "c", "{refused}");
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    // ending one makes room
    peer.send(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "a"}}))
        .await;
    peer.send(listen(json!("d"), json!({"toolsListChanged": true})))
        .await;
    let ack = peer.next().await;
    assert_eq!(
        ack["method"], "notifications/subscriptions/acknowledged",
        "{ack}"
    );
}

#[tokio::test]
async fn a_listen_stream_is_acknowledged_then_gets_only_what_it_asked_for() {
    let (server, _, _) = fixture();
    let mut peer = Peer::start(server.clone(), ConnectionOptions::default());
    peer.send(listen(
        json!("sub-a"),
        json!({"toolsListChanged": true, "resourceSubscriptions": ["mem://watched"]}),
    ))
    .await;
    let ack = peer.next().await;
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(
        ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        "sub-a"
    );
    assert_eq!(
        ack["params"]["notifications"],
        json!({"toolsListChanged": true}),
        "subscriptions are off on this server"
    );
    server
        .add_prompt(
            presa_core::Prompt::new("p"),
            |_: PromptArgs, _: Context| async { "p" },
        )
        .unwrap();
    server
        .add_tool(Tool::without_params("late"), |_: Value, _: Context| async {
            "late"
        })
        .unwrap();
    let note = peer.next().await;
    assert_eq!(
        note["method"], "notifications/tools/list_changed",
        "the prompt change was not asked for"
    );
    assert_eq!(
        note["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        "sub-a"
    );
    // the client ends it with a cancel: no result follows
    peer.send(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "sub-a"}})).await;
    peer.send(call(9, "quick", json!({}))).await;
    assert_eq!(peer.next().await["id"], 9);
}

#[tokio::test]
async fn resource_updates_reach_listeners_and_initialize_era_subscribers() {
    let server = Server::builder("subs", "1")
        .subscribe(true)
        .resource(
            presa_core::Resource::new("mem://watched", "watched"),
            |_: Context| async { "v1" },
        )
        .build()
        .unwrap();
    let mut modern = Peer::start(server.clone(), ConnectionOptions::default());
    modern
        .send(listen(
            json!(7),
            json!({"resourceSubscriptions": ["mem://watched"]}),
        ))
        .await;
    assert_eq!(
        modern.next().await["params"]["notifications"],
        json!({"resourceSubscriptions": ["mem://watched"]})
    );

    let mut legacy = Peer::start(server.clone(), ConnectionOptions::default());
    legacy.send(json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}})).await;
    assert_eq!(
        legacy.next().await["result"]["capabilities"]["resources"]["subscribe"],
        true
    );
    legacy
        .send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;
    legacy.send(json!({"jsonrpc": "2.0", "id": 1, "method": "resources/subscribe", "params": {"uri": "mem://watched"}})).await;
    assert_eq!(legacy.next().await["result"], json!({}));

    server.resource_updated("mem://other");
    server.resource_updated("mem://watched");
    let update = modern.next().await;
    assert_eq!(
        (update["method"].clone(), update["params"]["uri"].clone()),
        (
            json!("notifications/resources/updated"),
            json!("mem://watched")
        )
    );
    assert_eq!(
        update["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        7
    );
    let update = legacy.next().await;
    assert_eq!(update["params"], json!({"uri": "mem://watched"}));

    legacy.send(json!({"jsonrpc": "2.0", "id": 2, "method": "resources/unsubscribe", "params": {"uri": "mem://watched"}})).await;
    assert_eq!(legacy.next().await["result"], json!({}));
    server.resource_updated("mem://watched");
    legacy
        .send(json!({"jsonrpc": "2.0", "id": 3, "method": "ping"}))
        .await;
    assert_eq!(
        legacy.next().await["id"],
        3,
        "no update after unsubscribing"
    );
}

/// An initialize-era session's subscriptions follow the listen's rule: the empty URI watches
/// nothing and is refused, and a session watches at most 1,000 resources (one more is refused
/// until it unsubscribes from one; subscribing again to a watched one is fine).
#[tokio::test]
async fn an_initialize_era_session_subscribes_to_at_most_its_limit() {
    let server = Server::builder("subs", "1")
        .subscribe(true)
        .build()
        .unwrap();
    let mut legacy = Peer::start(server, ConnectionOptions::default());
    legacy.send(json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}})).await;
    legacy.next().await;
    legacy
        .send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;
    let subscribe = |id: usize, uri: &str| json!({"jsonrpc": "2.0", "id": id, "method": "resources/subscribe", "params": {"uri": uri}});
    legacy.send(subscribe(1, "")).await;
    let empty = legacy.next().await;
    assert_eq!(empty["error"]["code"], -32602, "{empty}");
    for i in 0..presa_core::MAX_WATCHED_RESOURCES {
        legacy
            .send(subscribe(10 + i, &format!("mem://r/{i}")))
            .await;
        let answer = legacy.next().await;
        assert_eq!(answer["result"], json!({}), "{i}: {answer}");
    }
    legacy.send(subscribe(2, "mem://one-more")).await;
    let refused = legacy.next().await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("at most 1000"),
        "{refused}"
    );
    legacy.send(subscribe(3, "mem://r/0")).await;
    assert_eq!(legacy.next().await["result"], json!({}), "already watched");
    legacy.send(json!({"jsonrpc": "2.0", "id": 4, "method": "resources/unsubscribe", "params": {"uri": "mem://r/0"}})).await;
    assert_eq!(legacy.next().await["result"], json!({}));
    legacy.send(subscribe(5, "mem://one-more")).await;
    assert_eq!(legacy.next().await["result"], json!({}), "room again");
}

/// A tool whose handler panics before it even returns its future (outside the panic guard
/// around handler futures).
struct PanicsOnCall;

impl ToolHandler for PanicsOnCall {
    fn call(&self, _: presa_core::JsonObject, _: Context) -> BoxFuture<'static, ToolOutcome> {
        panic!("no future for you")
    }
}

#[tokio::test]
async fn a_panic_while_starting_a_request_is_an_internal_error_and_the_connection_lives_on() {
    let server = Server::builder("panics", "1")
        .tool_handler(Tool::without_params("broken"), Arc::new(PanicsOnCall))
        .tool_sync(Tool::without_params("quick"), |_: Value, _| "quick")
        .build()
        .unwrap();
    let mut peer = Peer::start(server, ConnectionOptions::default());
    peer.send(call(1, "broken", json!({}))).await;
    let answer = peer.next().await;
    assert_eq!(
        (&answer["id"], &answer["error"]["code"]),
        (&json!(1), &json!(-32603)),
        "{answer}"
    );
    peer.send(call(2, "quick", json!({}))).await;
    assert_eq!(peer.next().await["id"], 2);
}
