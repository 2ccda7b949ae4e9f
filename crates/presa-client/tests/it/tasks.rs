//! Tool calls run as tasks, against a scripted server: presa-core's `ServerSession` does the
//! handshake of either era, a script answers every request after it.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use presa_client::{
    Client, ClientChannel, ClientError, ClientOptions, ResultText, TaskHandle, ToolCall,
    TransportEvent,
};
use presa_core::{
    ClientCapabilities, ElicitResult, ErrorCode, ErrorObject, Implementation, Message,
    Notification, ProtocolVersion, RootsCapability, ServerCapabilities, ServerEvent, ServerSession,
    ServerSessionConfig, SupportedVersions, TASKS_EXTENSION, TaskStatus, decode_message, to_raw,
};
use presa_test::fake::{self, FakeConfig};
use serde_json::{Value, json};
use tokio::sync::{Notify, mpsc};
use tokio::time::Instant;

const MODERN: ProtocolVersion = ProtocolVersion::V2026_07_28;
const LEGACY: ProtocolVersion = ProtocolVersion::V2025_11_25;

/// A request the scripted server received.
#[derive(Clone, Debug)]
struct Seen {
    /// When, on the (paused) test clock.
    at: Instant,
    method: String,
    params: Value,
}

/// How the script answers one request.
enum Reply {
    Result(Value),
    Error(ErrorObject),
    /// Sends `notifications/tools/list_changed`, then the result.
    ToolsChangedThen(Value),
    /// Never answers.
    Silent,
}

type Script = Box<dyn FnMut(&str, &Value) -> Reply + Send>;

/// What the scripted server received so far.
#[derive(Clone, Default)]
struct Log(Arc<Mutex<Vec<Seen>>>);

impl Log {
    fn of(&self, method: &str) -> Vec<Seen> {
        let seen = self.0.lock().unwrap();
        seen.iter()
            .filter(|s| s.method == method)
            .cloned()
            .collect()
    }

    fn count(&self, method: &str) -> usize {
        self.of(method).len()
    }
}

/// Connects a client speaking `version` to a server answering with `script`.
async fn scripted(
    version: ProtocolVersion,
    options: ClientOptions,
    script: impl FnMut(&str, &Value) -> Reply + Send + 'static,
) -> (Client, Log) {
    let capabilities: ServerCapabilities = serde_json::from_value(json!({
        "tools": {"listChanged": true},
        "tasks": {"cancel": {}, "requests": {"tools": {"call": {}}}},
        "extensions": {TASKS_EXTENSION: {}}
    }))
    .unwrap();
    let session = ServerSession::new(
        ServerSessionConfig::new(Implementation::new("scripted", "1.0.0"))
            .versions(SupportedVersions::new([version]).unwrap())
            .capabilities(capabilities.for_version(version)),
    );
    let (to_server, from_client) = mpsc::channel(8);
    let (to_client, incoming) = mpsc::channel(8);
    let log = Log::default();
    tokio::spawn(serve(
        session,
        from_client,
        to_client,
        Box::new(script),
        log.clone(),
    ));
    let options = options.protocol_version(Some(version));
    let client = Client::connect(ClientChannel::new(to_server, incoming), options)
        .await
        .unwrap();
    (client, log)
}

async fn serve(
    mut session: ServerSession,
    mut from_client: mpsc::Receiver<presa_core::Transmit>,
    to_client: mpsc::Sender<TransportEvent>,
    mut script: Script,
    log: Log,
) {
    let wire = |message: &Message| decode_message(message.to_json().as_bytes()).unwrap();
    while let Some(transmit) = from_client.recv().await {
        session.handle_message(Instant::now().into_std(), wire(&transmit.message));
        loop {
            let mut moved = false;
            while let Some(t) = session.poll_transmit() {
                moved = true;
                let _ = to_client
                    .send(TransportEvent::Message(wire(&t.message)))
                    .await;
            }
            while let Some(event) = session.poll_event() {
                moved = true;
                let ServerEvent::Request(request) = event else {
                    continue;
                };
                let params: Value = request
                    .params
                    .as_ref()
                    .map_or(json!({}), |p| serde_json::from_str(p.get()).unwrap());
                log.0.lock().unwrap().push(Seen {
                    at: Instant::now(),
                    method: request.method.clone(),
                    params: params.clone(),
                });
                let outcome = match script(&request.method, &params) {
                    Reply::Silent => continue,
                    Reply::Result(result) => Ok(result),
                    Reply::Error(error) => Err(error),
                    Reply::ToolsChangedThen(result) => {
                        let changed =
                            Notification::new("notifications/tools/list_changed", &json!({}));
                        session.notify(changed.unwrap(), None);
                        Ok(result)
                    }
                };
                session.respond(&request.id, outcome.map(|r| to_raw(&r).unwrap()));
            }
            if !moved {
                break;
            }
        }
    }
}

fn text(text: &str) -> Value {
    json!({"resultType": "complete", "content": [{"type": "text", "text": text}]})
}

/// A 2026-07-28 task in `status`, with what `extra` adds (`pollIntervalMs`, `inputRequests`,
/// `result`).
fn task(status: &str, extra: Value) -> Value {
    let mut task = json!({
        "taskId": "t-1", "status": status, "ttlMs": null,
        "createdAt": "2026-08-01T09:00:00Z", "lastUpdatedAt": "2026-08-01T09:00:00Z"
    });
    task.as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    task
}

fn created() -> Value {
    let mut created = task("working", json!({}));
    created["resultType"] = json!("task");
    created
}

fn polled(status: &str, extra: Value) -> Value {
    let mut polled = task(status, extra);
    polled["resultType"] = json!("complete");
    polled
}

async fn started(client: &Client) -> TaskHandle {
    match client.start_tool("export", json!({})).await.unwrap() {
        ToolCall::Task(task) => task,
        ToolCall::Complete(result) => panic!("a task, not {result:?}"),
    }
}

fn elicitation() -> Value {
    json!({"q": {"method": "elicitation/create", "params": {
        "message": "Go?",
        "requestedSchema": {"type": "object", "properties": {"ok": {"type": "boolean"}}}
    }}})
}

/// Finding 1: a result that is neither complete nor a task names its `resultType`.
#[tokio::test(start_paused = true)]
async fn another_result_type_is_refused_by_name() {
    let (client, _log) = scripted(MODERN, ClientOptions::default().tasks(true), |method, _| {
        assert_eq!(method, "tools/call");
        Reply::Result(json!({"resultType": "deferred", "content": []}))
    })
    .await;
    for error in [
        client.start_tool("export", json!({})).await.unwrap_err(),
        client.call_tool("export", json!({})).await.unwrap_err(),
    ] {
        let ClientError::InvalidResult(message) = &error else {
            panic!("InvalidResult, not {error:?}")
        };
        assert_eq!(message, "unexpected resultType \"deferred\"");
    }
}

/// Finding 1: a task the client never allowed is refused, naming the task, and never polled.
#[tokio::test(start_paused = true)]
async fn a_task_the_client_did_not_allow_is_refused() {
    let (client, log) = scripted(MODERN, ClientOptions::default(), |method, _| {
        assert_eq!(method, "tools/call");
        Reply::Result(created())
    })
    .await;
    let error = client.start_tool("export", json!({})).await.unwrap_err();
    let ClientError::InvalidResult(message) = &error else {
        panic!("InvalidResult, not {error:?}")
    };
    assert!(message.contains("task \"t-1\""), "{message}");
    assert!(message.contains("ClientOptions::tasks"), "{message}");
    let error = client.call_tool("export", json!({})).await.unwrap_err();
    assert!(matches!(error, ClientError::InvalidResult(_)), "{error:?}");
    assert_eq!(log.count("tasks/get"), 0);
}

/// Finding 2: `pollIntervalMs` of 0 does not make a busy loop, a huge one does not stop the
/// polling; `status` reports the interval as it is used.
#[tokio::test(start_paused = true)]
async fn the_suggested_poll_interval_is_held_to_bounds() {
    let mut polls = 0;
    let (client, log) = scripted(
        MODERN,
        ClientOptions::default().tasks(true),
        move |method, _| match method {
            "tools/call" => Reply::Result(created()),
            "tasks/get" => {
                polls += 1;
                Reply::Result(match polls {
                    1 | 2 => polled("working", json!({"pollIntervalMs": 0})),
                    3 => polled("working", json!({"pollIntervalMs": u64::MAX})),
                    _ => polled("completed", json!({"result": text("exported")})),
                })
            }
            other => panic!("unexpected {other}"),
        },
    )
    .await;
    let task = started(&client).await;
    let state = task.status().await.unwrap();
    assert_eq!(state.status, TaskStatus::Working);
    assert_eq!(state.poll_interval, Some(Duration::from_millis(10)));

    assert_eq!(task.wait().await.unwrap().text(), "exported");
    let at: Vec<Instant> = log.of("tasks/get").iter().map(|s| s.at).collect();
    assert_eq!(at.len(), 4);
    let after_zero = at[2] - at[1];
    let after_huge = at[3] - at[2];
    assert!(after_zero >= Duration::from_millis(10), "{after_zero:?}");
    assert!(after_zero < Duration::from_millis(20), "{after_zero:?}");
    assert!(after_huge >= Duration::from_secs(60), "{after_huge:?}");
    assert!(after_huge < Duration::from_secs(61), "{after_huge:?}");
}

/// Finding 3: two clones polling at once ask the user once, and send one `tasks/update`.
#[tokio::test(start_paused = true)]
async fn concurrent_polls_ask_each_question_once() {
    let asked = Arc::new(AtomicUsize::new(0));
    let entered = Arc::new(Notify::new());
    let gate = Arc::new(Notify::new());
    let options = {
        let (asked, entered, gate) = (asked.clone(), entered.clone(), gate.clone());
        ClientOptions::default()
            .tasks(true)
            .elicitation(move |_params, _cx| {
                let (asked, entered, gate) = (asked.clone(), entered.clone(), gate.clone());
                async move {
                    // the first question waits until the test lets it go; any other answers
                    if asked.fetch_add(1, Ordering::SeqCst) == 0 {
                        entered.notify_one();
                        gate.notified().await;
                    }
                    Ok(ElicitResult::accept(
                        json!({"ok": true}).as_object().unwrap().clone(),
                    ))
                }
            })
    };
    let (client, log) = scripted(MODERN, options, |method, _| match method {
        "tools/call" => Reply::Result(created()),
        "tasks/get" => Reply::Result(polled(
            "input_required",
            json!({"inputRequests": elicitation()}),
        )),
        "tasks/update" => Reply::Result(json!({"resultType": "complete"})),
        other => panic!("unexpected {other}"),
    })
    .await;
    let task = started(&client).await;
    let (done, mut outcomes) = mpsc::unbounded_channel();
    for handle in [task.clone(), task.clone()] {
        let done = done.clone();
        tokio::spawn(async move { done.send(handle.status().await).unwrap() });
    }
    // one poll is asking the user; the other one ends meanwhile
    entered.notified().await;
    let first = outcomes.recv().await.unwrap().unwrap();
    assert_eq!(first.status, TaskStatus::InputRequired);
    gate.notify_one();
    let second = outcomes.recv().await.unwrap().unwrap();
    assert_eq!(second.status, TaskStatus::InputRequired);
    assert_eq!(asked.load(Ordering::SeqCst), 1, "the user is asked once");
    let updates = log.of("tasks/update");
    assert_eq!(updates.len(), 1);
    assert_eq!(
        updates[0].params["inputResponses"]["q"]["content"],
        json!({"ok": true})
    );
    // answered: a later poll does not ask again
    task.status().await.unwrap();
    assert_eq!(asked.load(Ordering::SeqCst), 1);
}

/// Finding 3: a question whose answer failed, or was abandoned, is asked again by the next poll.
#[tokio::test(start_paused = true)]
async fn a_question_not_answered_is_asked_again() {
    let asked = Arc::new(AtomicUsize::new(0));
    let entered = Arc::new(Notify::new());
    let options = {
        let (asked, entered) = (asked.clone(), entered.clone());
        ClientOptions::default()
            .tasks(true)
            .elicitation(move |_params, _cx| {
                let (asked, entered) = (asked.clone(), entered.clone());
                async move {
                    match asked.fetch_add(1, Ordering::SeqCst) {
                        // the first answer is refused
                        0 => Err(ErrorObject::new(ErrorCode::USER_REJECTED, "not now")),
                        // the second never comes: its poll is abandoned
                        1 => {
                            entered.notify_one();
                            std::future::pending().await
                        }
                        _ => Ok(ElicitResult::accept(
                            json!({"ok": true}).as_object().unwrap().clone(),
                        )),
                    }
                }
            })
    };
    let mut updates = 0;
    let (client, log) = scripted(MODERN, options, move |method, _| match method {
        "tools/call" => Reply::Result(created()),
        "tasks/get" => Reply::Result(polled(
            "input_required",
            json!({"inputRequests": elicitation()}),
        )),
        "tasks/update" => {
            updates += 1;
            // the first update fails on the server
            if updates == 1 {
                Reply::Error(ErrorObject::internal_error("store unavailable"))
            } else {
                Reply::Result(json!({"resultType": "complete"}))
            }
        }
        other => panic!("unexpected {other}"),
    })
    .await;
    let task = started(&client).await;

    let refused = task.status().await.unwrap_err();
    assert!(
        matches!(refused, ClientError::InputRefused { .. }),
        "{refused:?}"
    );

    let abandoned = tokio::spawn({
        let task = task.clone();
        async move { task.status().await }
    });
    entered.notified().await;
    abandoned.abort();
    assert!(abandoned.await.unwrap_err().is_cancelled());

    let failed = task.status().await.unwrap_err();
    assert_eq!(failed.code(), Some(ErrorCode::INTERNAL_ERROR), "{failed:?}");

    task.status().await.unwrap();
    assert_eq!(
        asked.load(Ordering::SeqCst),
        4,
        "asked again after each failure"
    );
    assert_eq!(log.count("tasks/update"), 2);
    task.status().await.unwrap();
    assert_eq!(asked.load(Ordering::SeqCst), 4, "answered: not asked again");
}

/// The tool list of the 2025-11-25 server: `only_task` runs only as a task, `maybe` may.
fn legacy_tools(fresh: bool) -> Value {
    let mut tools = vec![
        json!({"name": "plain", "inputSchema": {"type": "object"}}),
        json!({"name": "bump", "inputSchema": {"type": "object"}}),
        json!({"name": "only_task", "inputSchema": {"type": "object"},
               "execution": {"taskSupport": "required"}}),
        json!({"name": "maybe", "inputSchema": {"type": "object"},
               "execution": {"taskSupport": "optional"}}),
    ];
    if fresh {
        tools.push(json!({"name": "fresh", "inputSchema": {"type": "object"}}));
    }
    json!({ "tools": tools })
}

/// A 2025-11-25 server: `bump` announces a tools list change (adding `fresh`), `maybe` as a
/// task answers with one.
fn legacy_script() -> impl FnMut(&str, &Value) -> Reply + Send + 'static {
    let mut changed = false;
    move |method, params| match (method, params["name"].as_str()) {
        ("tools/list", _) => Reply::Result(legacy_tools(changed)),
        ("tools/call", Some("bump")) => {
            changed = true;
            Reply::ToolsChangedThen(json!({"content": []}))
        }
        ("tools/call", Some("maybe")) if params.get("task").is_some() => {
            Reply::Result(json!({"task": {
                "taskId": "t-2", "status": "working", "ttl": null,
                "createdAt": "2025-12-01T09:00:00Z", "lastUpdatedAt": "2025-12-01T09:00:00Z"
            }}))
        }
        ("tools/call", Some(_)) => Reply::Result(json!({"content": []})),
        (other, _) => panic!("unexpected {other}"),
    }
}

/// Finding 4: the task support of tools comes from the last listing, not a `tools/list` per
/// call; the list is read again after it changed, and a tool a full listing lacks is not
/// listed again.
#[tokio::test(start_paused = true)]
async fn task_support_is_listed_once_until_the_list_changes() {
    let (client, log) = scripted(LEGACY, ClientOptions::default(), legacy_script()).await;
    for _ in 0..3 {
        client.call_tool("plain", json!({})).await.unwrap();
    }
    assert_eq!(log.count("tools/list"), 1);
    let refused = client.start_tool("only_task", json!({})).await.unwrap_err();
    assert_eq!(
        refused,
        ClientError::TaskRequired {
            tool: "only_task".into()
        }
    );
    assert_eq!(log.count("tools/list"), 1, "still the first listing");
    assert_eq!(log.count("tools/call"), 3, "a task-only tool is not called");

    // the server says its tools changed: listed again, once
    client.call_tool("bump", json!({})).await.unwrap();
    client.call_tool("plain", json!({})).await.unwrap();
    client.call_tool("fresh", json!({})).await.unwrap();
    assert_eq!(log.count("tools/list"), 2);

    // a tool the full listing does not hold does not exist: not listed again
    client.call_tool("unlisted", json!({})).await.unwrap();
    assert_eq!(log.count("tools/list"), 2);
}

/// Finding 4, with tasks allowed: a task-capable tool is called as a task, others are not, with
/// one listing.
#[tokio::test(start_paused = true)]
async fn allowed_tasks_follow_the_listing() {
    let (client, log) = scripted(
        LEGACY,
        ClientOptions::default().tasks(true),
        legacy_script(),
    )
    .await;
    let ToolCall::Task(task) = client.start_tool("maybe", json!({})).await.unwrap() else {
        panic!("a task")
    };
    assert_eq!(task.id(), "t-2");
    let ToolCall::Complete(_) = client.start_tool("plain", json!({})).await.unwrap() else {
        panic!("a result")
    };
    let calls = log.of("tools/call");
    assert!(calls[0].params.get("task").is_some(), "{:?}", calls[0]);
    assert!(calls[1].params.get("task").is_none(), "{:?}", calls[1]);
    assert_eq!(log.count("tools/list"), 1);
}

/// Capabilities set with `ClientOptions::capabilities`, with a root declared.
fn custom() -> ClientCapabilities {
    ClientCapabilities {
        roots: Some(RootsCapability::default()),
        ..ClientCapabilities::default()
    }
}

/// Finding 5: the opt-in declares the extension on 2026-07-28 whatever the order of the
/// setters, beside the capabilities set.
#[tokio::test(start_paused = true)]
async fn the_opt_in_survives_set_capabilities_2026() {
    let orders = [
        ClientOptions::default().tasks(true).capabilities(custom()),
        ClientOptions::default().capabilities(custom()).tasks(true),
    ];
    for options in orders {
        let (channel, mut fake) = fake::spawn(FakeConfig::default());
        let client = Client::connect(channel, options).await.unwrap();
        assert_eq!(client.protocol_version(), MODERN);
        client
            .call_tool("echo", json!({"text": "hi"}))
            .await
            .unwrap();
        let call = fake.request("tools/call").await;
        let declared = &call["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"];
        assert!(
            declared["extensions"][TASKS_EXTENSION].is_object(),
            "{declared}"
        );
        assert!(declared["roots"].is_object(), "{declared}");
    }
}

/// The extension is 2026-07-28's: an initialize-era client declares none at `initialize`
/// (it opts in with the `task` param of a call), whatever the capabilities set.
#[tokio::test(start_paused = true)]
async fn a_2025_initialize_declares_no_tasks_extension() {
    let orders = [
        ClientOptions::default().tasks(true).capabilities(custom()),
        ClientOptions::default().capabilities(custom()).tasks(true),
    ];
    for options in orders {
        let (channel, mut fake) = fake::spawn(FakeConfig::legacy());
        let _client = Client::connect(channel, options).await.unwrap();
        let initialize = fake.request("initialize").await;
        let declared = &initialize["params"]["capabilities"];
        assert!(declared.get("extensions").is_none(), "{declared}");
        assert!(declared["roots"].is_object(), "{declared}");
    }

    let mut naming = custom();
    naming.extensions = Some(
        json!({TASKS_EXTENSION: {}, "x-other": {}})
            .as_object()
            .unwrap()
            .clone(),
    );
    let options = ClientOptions::default().tasks(true).capabilities(naming);
    let (channel, mut fake) = fake::spawn(FakeConfig::legacy());
    let _client = Client::connect(channel, options).await.unwrap();
    let initialize = fake.request("initialize").await;
    let declared = &initialize["params"]["capabilities"];
    assert!(
        declared["extensions"].get(TASKS_EXTENSION).is_none(),
        "{declared}"
    );
    assert!(declared["extensions"]["x-other"].is_object(), "{declared}");
}

/// Without the opt-in, capabilities set naming the extension do not declare it (2026-07-28).
#[tokio::test(start_paused = true)]
async fn without_the_opt_in_set_capabilities_do_not_declare_tasks() {
    let mut naming = custom();
    naming.extensions = Some(
        json!({TASKS_EXTENSION: {}, "x-other": {}})
            .as_object()
            .unwrap()
            .clone(),
    );
    let options = ClientOptions::default().tasks(true).capabilities(naming);
    let (channel, mut fake) = fake::spawn(FakeConfig::default());
    let client = Client::connect(channel, options.tasks(false))
        .await
        .unwrap();
    assert_eq!(client.protocol_version(), MODERN);
    client
        .call_tool("echo", json!({"text": "hi"}))
        .await
        .unwrap();
    let call = fake.request("tools/call").await;
    let declared = &call["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"];
    assert!(
        declared["extensions"].get(TASKS_EXTENSION).is_none(),
        "{declared}"
    );
    assert!(declared["extensions"]["x-other"].is_object(), "{declared}");
}

/// Review finding 1: a `notifications/tools/list_changed` sent while answering `tools/list`
/// discards the listing, but not the task support the call read from it: a task-only tool is
/// still called as a task.
#[tokio::test(start_paused = true)]
async fn a_list_change_while_listing_keeps_the_task_support() {
    let (client, log) = scripted(
        LEGACY,
        ClientOptions::default().tasks(true),
        |method, params| match (method, params["name"].as_str()) {
            ("tools/list", _) => Reply::ToolsChangedThen(legacy_tools(false)),
            ("tools/call", Some("only_task")) if params.get("task").is_some() => {
                Reply::Result(json!({"task": {
                    "taskId": "t-3", "status": "working", "ttl": null,
                    "createdAt": "2025-12-01T09:00:00Z", "lastUpdatedAt": "2025-12-01T09:00:00Z"
                }}))
            }
            ("tools/call", Some("only_task")) => Reply::Error(ErrorObject::new(
                ErrorCode::METHOD_NOT_FOUND,
                "only_task runs only as a task",
            )),
            (other, _) => panic!("unexpected {other}"),
        },
    )
    .await;
    let ToolCall::Task(task) = client.start_tool("only_task", json!({})).await.unwrap() else {
        panic!("a task")
    };
    assert_eq!(task.id(), "t-3");
    assert_eq!(log.count("tools/list"), 1);
    let calls = log.of("tools/call");
    assert!(calls[0].params.get("task").is_some(), "{:?}", calls[0]);
}

/// Review finding 2: a tool missing from a full listing is not a reason to list again, until
/// the list changes.
#[tokio::test(start_paused = true)]
async fn a_tool_missing_from_a_full_listing_is_not_listed_again() {
    let (client, log) = scripted(LEGACY, ClientOptions::default(), legacy_script()).await;
    for _ in 0..3 {
        client.call_tool("unlisted", json!({})).await.unwrap();
    }
    assert_eq!(log.count("tools/list"), 1);
    client.call_tool("bump", json!({})).await.unwrap();
    client.call_tool("unlisted", json!({})).await.unwrap();
    assert_eq!(log.count("tools/list"), 2, "listed again after the change");
}

/// Review finding 2: the task support of every listed tool is kept, past the tools whose output
/// schemas are kept (10,000).
#[tokio::test(start_paused = true)]
async fn task_support_is_kept_for_every_listed_tool() {
    let mut tools: Vec<Value> = (0..10_000)
        .map(|i| json!({"name": format!("t{i}"), "inputSchema": {"type": "object"}}))
        .collect();
    tools.push(json!({"name": "last", "inputSchema": {"type": "object"},
                      "execution": {"taskSupport": "required"}}));
    let listing = json!({ "tools": tools });
    let (client, log) = scripted(
        LEGACY,
        ClientOptions::default(),
        move |method, _| match method {
            "tools/list" => Reply::Result(listing.clone()),
            other => panic!("unexpected {other}"),
        },
    )
    .await;
    for _ in 0..2 {
        let refused = client.start_tool("last", json!({})).await.unwrap_err();
        assert_eq!(
            refused,
            ClientError::TaskRequired {
                tool: "last".into()
            }
        );
    }
    assert_eq!(log.count("tools/list"), 1);
}

/// Review finding 2: clones calling at once before the tools are listed list them once.
#[tokio::test(start_paused = true)]
async fn callers_at_once_list_once() {
    let (client, log) = scripted(LEGACY, ClientOptions::default(), legacy_script()).await;
    let (a, b, c) = tokio::join!(
        client.call_tool("plain", json!({})),
        client.call_tool("maybe", json!({})),
        client.call_tool("unlisted", json!({})),
    );
    a.unwrap();
    b.unwrap();
    c.unwrap();
    assert_eq!(log.count("tools/list"), 1);
    assert_eq!(log.count("tools/call"), 3);
}

/// Review finding 2: the listing a call needs is made with the call's options (here its
/// timeout), not the defaults.
#[tokio::test(start_paused = true)]
async fn the_listing_follows_the_call_options() {
    let (client, log) = scripted(LEGACY, ClientOptions::default(), |method, _| match method {
        "tools/list" => Reply::Silent,
        other => panic!("unexpected {other}"),
    })
    .await;
    let started = Instant::now();
    let error = client
        .call_tool("plain", json!({}))
        .timeout(Duration::from_secs(2))
        .await
        .unwrap_err();
    assert_eq!(error, ClientError::TimedOut);
    let waited = started.elapsed();
    assert!(waited >= Duration::from_secs(2), "{waited:?}");
    assert!(waited < Duration::from_secs(3), "{waited:?}");
    assert_eq!(log.count("tools/list"), 1);
    assert_eq!(log.count("tools/call"), 0);
}

/// A call waiting for another caller's listing waits no longer than its own timeout.
#[tokio::test(start_paused = true)]
async fn waiting_for_another_callers_listing_counts_against_the_timeout() {
    let (client, log) = scripted(LEGACY, ClientOptions::default(), |method, _| match method {
        "tools/list" => Reply::Silent,
        other => panic!("unexpected {other}"),
    })
    .await;
    let slow = client.clone();
    let first = tokio::spawn(async move {
        slow.call_tool("plain", json!({}))
            .timeout(Duration::from_secs(30))
            .await
    });
    // the first call is listing now
    while log.count("tools/list") == 0 {
        tokio::task::yield_now().await;
    }
    let started = Instant::now();
    let error = client
        .call_tool("plain", json!({}))
        .timeout(Duration::from_secs(2))
        .await
        .unwrap_err();
    assert_eq!(error, ClientError::TimedOut);
    let waited = started.elapsed();
    assert!(waited < Duration::from_secs(3), "{waited:?}");
    assert_eq!(log.count("tools/list"), 1, "one listing at a time");
    first.abort();
}

/// Review finding 3: the client follows presa-core's rule for tasks (`RequestTasks`): a task
/// from a revision without the tasks extension is refused however the client is set.
#[tokio::test(start_paused = true)]
async fn a_task_from_a_revision_without_the_extension_is_refused() {
    let (client, _log) = scripted(
        ProtocolVersion::V2025_06_18,
        ClientOptions::default().tasks(true),
        |method, _| {
            assert_eq!(method, "tools/call");
            Reply::Result(created())
        },
    )
    .await;
    let error = client.start_tool("export", json!({})).await.unwrap_err();
    let ClientError::InvalidResult(message) = &error else {
        panic!("InvalidResult, not {error:?}")
    };
    assert!(
        message.contains("2025-06-18 has no tasks extension"),
        "{message}"
    );
}
