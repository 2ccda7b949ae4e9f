//! A connection driven by its transport's calls (what an initialize-era HTTP session is): the
//! same behaviour as a connection with a task, with nothing running between requests.

use std::sync::Arc;
use std::time::Duration;

use presa_core::{LoggingLevel, Resource, Tool, decode_message};
use presa_server::*;
use presa_test::message::request;
use serde_json::{Value, json};
use tokio::sync::{Notify, mpsc};

struct Client {
    connection: DrivenConnection,
    sent: mpsc::UnboundedReceiver<Value>,
}

impl Client {
    fn start(server: Server) -> Self {
        let (tx, sent) = mpsc::unbounded_channel();
        let connection = DrivenConnection::new(server, move |transmit: presa_core::Transmit| {
            let _ = tx.send(serde_json::from_str(&transmit.message.to_json()).unwrap());
        });
        Self { connection, sent }
    }

    fn send(&self, message: Value) -> bool {
        let message = decode_message(message.to_string().as_bytes()).unwrap();
        self.connection.handle(message, &Arrival::default())
    }

    async fn next(&mut self) -> Value {
        self.sent.recv().await.expect("a message")
    }

    /// `initialize` at 2025-11-25 with `capabilities`, and `notifications/initialized`.
    async fn initialize(&mut self, capabilities: Value) {
        self.send(
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": capabilities,
            "clientInfo": {"name": "c", "version": "1"}}}),
        );
        let answer = self.next().await;
        assert_eq!(answer["result"]["protocolVersion"], "2025-11-25");
        self.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    }
}

fn call(id: i64, tool: &str, meta: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": tool, "arguments": {}, "_meta": meta}})
}

#[derive(Default)]
struct Signals {
    gate: Notify,
    started: Notify,
    dropped: Notify,
    /// `stuck`: told when its handler is blocked in a poll; it returns when `unstick` is told.
    stuck: std::sync::Mutex<Option<std::sync::mpsc::Sender<()>>>,
    unstick: std::sync::Mutex<Option<std::sync::mpsc::Receiver<()>>>,
}

fn server(signals: Arc<Signals>) -> Server {
    struct OnDrop(Arc<Signals>);
    impl Drop for OnDrop {
        fn drop(&mut self) {
            self.0.dropped.notify_one();
        }
    }
    let gated = Arc::clone(&signals);
    Server::builder("driven", "1")
        .logging(true)
        .list_changed(true)
        .subscribe(true)
        .resource(Resource::new("memo://a", "a"), |_| async { "a" })
        .tool_sync(Tool::without_params("quick"), |_: Value, _| "quick")
        .tool(Tool::without_params("gated"), move |_: Value, _| {
            let signals = Arc::clone(&gated);
            async move {
                signals.gate.notified().await;
                "opened"
            }
        })
        .tool(Tool::without_params("stuck"), {
            let signals = Arc::clone(&signals);
            move |_: Value, _| {
                let signals = Arc::clone(&signals);
                async move {
                    // pending once, so it runs on a task; then a poll that blocks its thread,
                    // which no abort can interrupt
                    tokio::task::yield_now().await;
                    let stuck = signals.stuck.lock().unwrap().take();
                    let unstick = signals.unstick.lock().unwrap().take();
                    if let (Some(stuck), Some(unstick)) = (stuck, unstick) {
                        let _ = stuck.send(());
                        let _ = unstick.recv();
                    }
                    "old"
                }
            }
        })
        .tool(Tool::without_params("forever"), move |_: Value, _| {
            let guard = OnDrop(Arc::clone(&signals));
            async move {
                let guard = guard;
                guard.0.started.notify_one();
                std::future::pending::<()>().await;
                "never"
            }
        })
        .tool(
            Tool::without_params("chatty"),
            |_: Value, cx: Context| async move {
                cx.progress(1.0, Some(2.0), Some("half")).await;
                cx.log(LoggingLevel::Debug, "too quiet").await;
                cx.log(LoggingLevel::Warning, "loud enough").await;
                "done"
            },
        )
        .tool(
            Tool::without_params("roots"),
            |_: Value, cx: Context| async move {
                match cx.roots().await {
                    Ok(roots) => Ok(format!("{} roots", roots.roots.len())),
                    Err(e) => Err(e.to_string()),
                }
            },
        )
        .build()
        .unwrap()
}

fn fixture() -> (Client, Arc<Signals>) {
    let signals = Arc::new(Signals::default());
    (Client::start(server(Arc::clone(&signals))), signals)
}

fn text(answer: &Value) -> &Value {
    &answer["result"]["content"][0]["text"]
}

#[tokio::test]
async fn requests_are_answered_in_any_order() {
    let (mut client, signals) = fixture();
    client.initialize(json!({})).await;
    client.send(call(1, "gated", json!({})));
    client.send(call(2, "quick", json!({})));
    assert_eq!(client.next().await["id"], 2, "the quick call overtakes");
    signals.gate.notify_one();
    let answer = client.next().await;
    assert_eq!(
        (&answer["id"], text(&answer)),
        (&json!(1), &json!("opened"))
    );
    assert_eq!(client.connection.in_flight(), 0);
}

#[tokio::test]
async fn cancellation_stops_the_handler_and_no_response_is_sent() {
    let (mut client, signals) = fixture();
    client.initialize(json!({})).await;
    client.send(call(7, "forever", json!({})));
    signals.started.notified().await;
    client.send(
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 7, "reason": "bored"}}),
    );
    signals.dropped.notified().await;
    client.send(call(8, "quick", json!({})));
    assert_eq!(
        client.next().await["id"],
        8,
        "nothing for the cancelled one"
    );
    assert_eq!(client.connection.in_flight(), 0);
}

/// A request cancelled while its handler is in the middle of a poll finishes that poll; if the
/// client reused its id meanwhile, the old result must not answer the new request (a
/// regression guard for a race the runner had).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reused_id_is_never_answered_with_the_older_requests_result() {
    let (mut client, signals) = fixture();
    client.initialize(json!({})).await;
    let (stuck_tx, stuck) = std::sync::mpsc::channel();
    let (unstick, unstick_rx) = std::sync::mpsc::channel();
    *signals.stuck.lock().unwrap() = Some(stuck_tx);
    *signals.unstick.lock().unwrap() = Some(unstick_rx);

    client.send(call(7, "stuck", json!({})));
    tokio::task::spawn_blocking(move || stuck.recv())
        .await
        .unwrap()
        .unwrap();
    client.send(
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 7, "reason": "changed my mind"}}),
    );
    client.send(call(7, "gated", json!({})));
    // the old handler's poll now returns its result: it must go nowhere
    unstick.send(()).unwrap();
    signals.gate.notify_one();
    let answer = client.next().await;
    assert_eq!(
        (&answer["id"], text(&answer)),
        (&json!(7), &json!("opened")),
        "the new request's own result"
    );
    client.send(call(8, "quick", json!({})));
    assert_eq!(client.next().await["id"], 8, "and nothing else for id 7");
    assert_eq!(client.connection.in_flight(), 0);
}

#[tokio::test]
async fn progress_and_logs_go_out_only_when_asked_for() {
    let (mut client, _) = fixture();
    client.initialize(json!({})).await;
    // every level until one is set; progress only with a token
    client.send(call(1, "chatty", json!({})));
    let levels = [client.next().await, client.next().await];
    assert_eq!(
        levels.map(|m| m["params"]["level"].clone()),
        [json!("debug"), json!("warning")]
    );
    assert_eq!(client.next().await["id"], 1);

    client.send(
        json!({"jsonrpc": "2.0", "id": 2, "method": "logging/setLevel",
        "params": {"level": "info"}}),
    );
    assert_eq!(client.next().await["id"], 2);
    client.send(call(3, "chatty", json!({"progressToken": "p"})));
    let progress = client.next().await;
    assert_eq!(
        progress["params"],
        json!({"progressToken": "p", "progress": 1, "total": 2, "message": "half"})
    );
    let log = client.next().await;
    assert_eq!(
        log["params"],
        json!({"level": "warning", "data": "loud enough"})
    );
    assert_eq!(client.next().await["id"], 3);
}

#[tokio::test]
async fn a_handler_asks_the_client_and_gets_its_answer() {
    let (mut client, _) = fixture();
    client.initialize(json!({"roots": {}})).await;
    client.send(call(1, "roots", json!({})));
    let request = client.next().await;
    assert_eq!(request["method"], "roots/list");
    client.send(json!({"jsonrpc": "2.0", "id": request["id"],
        "result": {"roots": [{"uri": "file:///a"}, {"uri": "file:///b"}]}}));
    let answer = client.next().await;
    assert_eq!(
        (&answer["id"], text(&answer)),
        (&json!(1), &json!("2 roots"))
    );
}

#[tokio::test(start_paused = true)]
async fn a_request_the_client_never_answers_times_out() {
    let (mut client, _) = fixture();
    client.initialize(json!({"roots": {}})).await;
    client.send(call(1, "roots", json!({})));
    let request = client.next().await;
    assert_eq!(request["method"], "roots/list");
    // the session's own deadline (60 s) passes on the paused clock
    let cancelled = client.next().await;
    assert_eq!(
        (&cancelled["method"], &cancelled["params"]["requestId"]),
        (&json!("notifications/cancelled"), &request["id"])
    );
    let answer = client.next().await;
    assert_eq!(answer["id"], 1);
    assert_eq!(answer["result"]["isError"], true, "{answer}");
}

#[tokio::test]
async fn a_closed_connection_takes_nothing_but_finishes_what_runs() {
    let (mut client, signals) = fixture();
    client.initialize(json!({"roots": {}})).await;
    client.send(call(1, "gated", json!({})));
    client.send(call(2, "roots", json!({})));
    assert_eq!(client.next().await["method"], "roots/list");
    client.connection.close();
    assert!(
        !client.send(call(3, "quick", json!({}))),
        "refused after close"
    );
    let failed = client.next().await;
    assert_eq!(
        (&failed["id"], &failed["result"]["isError"]),
        (&json!(2), &json!(true)),
        "the waiting request to the client failed: {failed}"
    );
    signals.gate.notify_one();
    let answer = client.next().await;
    assert_eq!(
        (&answer["id"], text(&answer)),
        (&json!(1), &json!("opened"))
    );
    assert!(
        client.sent.try_recv().is_err(),
        "nothing for the refused call"
    );
}

#[tokio::test]
async fn changes_are_announced_to_an_initialized_client_that_listens() {
    let (mut client, _) = fixture();
    client
        .connection
        .announce(Change::ResourceUpdated("memo://a".into()));
    client.initialize(json!({})).await;
    client.send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "resources/subscribe",
        "params": {"uri": "memo://a"}}),
    );
    assert_eq!(client.next().await["id"], 1);
    client
        .connection
        .announce(Change::ResourceUpdated("memo://b".into()));
    client
        .connection
        .announce(Change::ResourceUpdated("memo://a".into()));
    let updated = client.next().await;
    assert_eq!(
        (&updated["method"], &updated["params"]["uri"]),
        (
            &json!("notifications/resources/updated"),
            &json!("memo://a")
        ),
        "only the subscribed URI, and nothing from before initialize"
    );
    client
        .connection
        .announce(Change::ListChanged(ListKind::Tools));
    assert_eq!(
        client.next().await["method"],
        "notifications/tools/list_changed"
    );
}

/// A tool whose handler panics before it returns its future (outside the handlers' own guard).
struct PanicsOnCall;

impl ToolHandler for PanicsOnCall {
    fn call(&self, _: presa_core::JsonObject, _: Context) -> BoxFuture<'static, ToolOutcome> {
        panic!("no future for you")
    }
}

#[tokio::test]
async fn a_panic_while_starting_a_request_is_an_internal_error() {
    let server = Server::builder("panics", "1")
        .tool_handler(Tool::without_params("broken"), Arc::new(PanicsOnCall))
        .build()
        .unwrap();
    let mut client = Client::start(server);
    client.initialize(json!({})).await;
    client.send(call(1, "broken", json!({})));
    let answer = client.next().await;
    assert_eq!(
        (&answer["id"], &answer["error"]["code"]),
        (&json!(1), &json!(-32603)),
        "{answer}"
    );
    assert_eq!(client.connection.in_flight(), 0, "nothing left hanging");
}

#[tokio::test]
async fn closing_ends_a_listen_with_its_result() {
    let (mut client, _) = fixture();
    client.send(request(
        "sub",
        "subscriptions/listen",
        json!({"notifications": {"toolsListChanged": true}}),
    ));
    assert_eq!(
        client.next().await["method"],
        "notifications/subscriptions/acknowledged"
    );
    client.connection.close();
    let ended = client.next().await;
    assert_eq!(ended["id"], "sub", "{ended}");
    assert!(ended.get("result").is_some(), "{ended}");
    assert_eq!(client.connection.in_flight(), 0);
}

/// A listen the transport stops (its client went away from it) no longer counts against the
/// connection's listens: another takes its place.
#[tokio::test]
async fn a_listen_the_transport_cancels_frees_its_place() {
    let server = Server::builder("driven", "1")
        .list_changed(true)
        .limits(presa_core::SessionLimits::default().max_listens(1))
        .build()
        .unwrap();
    let mut client = Client::start(server);
    let listen = |id: &str| {
        request(
            id,
            "subscriptions/listen",
            json!({"notifications": {"toolsListChanged": true}}),
        )
    };
    client.send(listen("first"));
    assert_eq!(
        client.next().await["method"],
        "notifications/subscriptions/acknowledged"
    );
    client.send(listen("refused"));
    let refused = client.next().await;
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    assert!(
        client
            .connection
            .cancel(&presa_core::RequestId::from("first"))
    );
    client.send(listen("second"));
    let acknowledged = client.next().await;
    assert_eq!(
        acknowledged["method"], "notifications/subscriptions/acknowledged",
        "{acknowledged}"
    );
}

#[tokio::test(start_paused = true)]
async fn a_request_to_the_client_expires_even_after_its_handler_is_gone() {
    let (mut client, _) = fixture();
    client.initialize(json!({"roots": {}})).await;
    client.send(call(1, "roots", json!({})));
    let request = client.next().await;
    assert_eq!(request["method"], "roots/list");
    // the client cancels the tool call: its handler, the one waiting for the answer, is gone
    client.send(
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 1}}),
    );
    tokio::time::advance(Duration::from_secs(61)).await;
    // the next message the session takes in lets the deadline pass: the client is told
    client.send(json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}));
    let cancelled = client.next().await;
    assert_eq!(
        (&cancelled["method"], &cancelled["params"]["requestId"]),
        (&json!("notifications/cancelled"), &request["id"]),
        "{cancelled}"
    );
    assert_eq!(client.next().await["id"], 2);
}

/// A server whose `notifications/test/wait` handler tells `events` when it waits, when its
/// context is cancelled, and when it is dropped.
fn waiting_server(events: mpsc::UnboundedSender<&'static str>) -> Server {
    struct Dropped(mpsc::UnboundedSender<&'static str>);
    impl Drop for Dropped {
        fn drop(&mut self) {
            let _ = self.0.send("dropped");
        }
    }
    enum Wait {}
    impl presa_core::NotificationMethod for Wait {
        const METHOD: &'static str = "notifications/test/wait";
        type Params = Value;
    }
    Server::builder("driven", "1")
        .notification::<Wait>(move |_: Value, cx: Context| {
            let events = events.clone();
            async move {
                let _dropped = Dropped(events.clone());
                let _ = events.send("waiting");
                cx.cancelled().await;
                let _ = events.send("cancelled");
                std::future::pending::<()>().await;
            }
        })
        .build()
        .unwrap()
}

#[tokio::test]
async fn a_dropped_connection_ends_its_notification_handlers_but_a_sessionless_one_does_not() {
    let wait = || json!({"jsonrpc": "2.0", "method": "notifications/test/wait", "params": {}});
    let (events, mut heard) = mpsc::unbounded_channel();
    let server = waiting_server(events);
    let mut client = Client::start(server.clone());
    client.initialize(json!({})).await;
    assert!(client.send(wait()));
    assert_eq!(heard.recv().await, Some("waiting"));
    // dropped without being closed: the session is gone, and its handler with it
    drop(client);
    assert_eq!(heard.recv().await, Some("cancelled"));
    assert_eq!(heard.recv().await, Some("dropped"));

    // a notification posted on its own outlives the connection that took it
    let connection = DrivenConnection::new(server, |_: presa_core::Transmit| {});
    let Ok(presa_core::Message::Notification(notification)) =
        decode_message(wait().to_string().as_bytes())
    else {
        panic!("not a notification");
    };
    assert!(connection.handle_stateless_notification(notification, &Arrival::default()));
    assert_eq!(heard.recv().await, Some("waiting"));
    drop(connection);
    // one thread: a handler woken by its cancellation would run while this test yields
    for _ in 0..8 {
        tokio::task::yield_now().await;
    }
    assert!(
        heard.try_recv().is_err(),
        "the sessionless handler was ended"
    );
}
