//! Tasks on the wire, over the connection layer (stdio and in-process use it): the 2026-07-28
//! tasks extension and the tasks of 2025-11-25, served by the same handlers.

use std::sync::Arc;

use presa_core::{
    ElicitRequestFormParams, ElicitationSchema, ErrorCode, META_CLIENT_CAPABILITIES,
    META_PROTOCOL_VERSION, StringSchema, TASKS_EXTENSION, TaskStatus, TaskSupport, Tool, Transmit,
};
use presa_server::*;
use presa_test::message::{initialize_with, legacy_notification, legacy_request, request};
use serde_json::{Value, json};
use tokio::sync::{Notify, broadcast, mpsc};

/// One client connection: what it sends and what it gets.
struct Wire {
    to_server: mpsc::Sender<Incoming>,
    from_server: mpsc::Receiver<Transmit>,
    /// Told whenever a task changes: what waiting for a status listens to.
    changes: BusReceiver<Change>,
}

impl Wire {
    fn open(server: &Server) -> Self {
        let (to_server, incoming) = mpsc::channel(16);
        let (outgoing, from_server) = mpsc::channel(64);
        let changes = server.changes();
        tokio::spawn(serve_connection(
            server.clone(),
            ServerChannel {
                incoming: incoming.into(),
                outgoing,
            },
            ConnectionOptions::default(),
        ));
        Self {
            to_server,
            from_server,
            changes,
        }
    }

    async fn send(&self, message: Value) {
        let frame = Incoming::Frame(message.to_string().into_bytes());
        self.to_server.send(frame).await.unwrap();
    }

    /// The next message from the server.
    async fn next(&mut self) -> Value {
        let transmit = self.from_server.recv().await.expect("a message");
        serde_json::from_str(&transmit.message.to_json()).unwrap()
    }

    /// The response to request `id`, skipping the notifications before it.
    async fn response(&mut self, id: i64) -> Value {
        loop {
            let message = self.next().await;
            if message["id"] == id && message.get("method").is_none() {
                return message;
            }
        }
    }

    async fn call(&mut self, id: i64, method: &str, params: Value) -> Value {
        self.send(request(id, method, params)).await;
        self.response(id).await
    }

    /// Calls `tool` (2026-07-28, declaring the extension) and returns the id of the task it
    /// became.
    async fn create_task(&mut self, id: i64, tool: &str) -> String {
        let created = self
            .call(id, "tools/call", call_params(tool, json!({})))
            .await;
        created["result"]["taskId"].as_str().unwrap().to_owned()
    }

    async fn call_legacy(&mut self, id: i64, method: &str, params: Value) -> Value {
        self.send(legacy_request(id, method, params)).await;
        self.response(id).await
    }

    /// tasks/get (2026-07-28, declaring the extension) until the task's status is `status`,
    /// waking on each change of a task.
    async fn until(&mut self, id: &str, status: &str) -> Value {
        for n in 1000.. {
            let got = self
                .call(n, "tasks/get", json!({"taskId": id, "_meta": with_tasks()}))
                .await;
            if got["result"]["status"] == status {
                return got["result"].clone();
            }
            assert!(got.get("error").is_none(), "no such task: {got}");
            assert_ne!(
                got["result"]["status"], "completed",
                "ended otherwise: {got}"
            );
            // lagging behind is fine: the next tasks/get shows the state now
            let _ = self.changes.recv().await;
        }
        unreachable!()
    }

    /// The same for a 2025-11-25 session.
    async fn until_legacy(&mut self, id: &str, status: &str) -> Value {
        for n in 1000.. {
            let got = self
                .call_legacy(n, "tasks/get", json!({"taskId": id}))
                .await;
            if got["result"]["status"] == status {
                return got["result"].clone();
            }
            // lagging behind is fine: the next tasks/get shows the state now
            let _ = self.changes.recv().await;
        }
        unreachable!()
    }

    async fn initialize(&mut self, version: &str, capabilities: Value) -> Value {
        self.send(initialize_with(0, version, capabilities)).await;
        let answer = self.response(0).await;
        self.send(legacy_notification("notifications/initialized", json!({})))
            .await;
        answer
    }
}

/// The `_meta` of a 2026-07-28 request that declares the tasks extension.
fn with_tasks() -> Value {
    json!({
        META_PROTOCOL_VERSION: "2026-07-28",
        META_CLIENT_CAPABILITIES: {"elicitation": {}, "extensions": {TASKS_EXTENSION: {}}},
    })
}

fn call_params(tool: &str, arguments: Value) -> Value {
    json!({"name": tool, "arguments": arguments, "_meta": with_tasks()})
}

/// Opens when the test says so; counts the handlers it let through.
#[derive(Default)]
struct Gate {
    open: Notify,
    dropped: Notify,
}

/// Tells the gate when the handler holding it is dropped (cancelled).
struct Dropped(Arc<Gate>);

impl Drop for Dropped {
    fn drop(&mut self) {
        self.0.dropped.notify_one();
    }
}

fn form(message: &str) -> ElicitRequestParams {
    let schema = ElicitationSchema::new().property("name", StringSchema::titled("Name"), true);
    ElicitRequestFormParams::new(message, schema).into()
}

fn server_with(gate: &Arc<Gate>, options: TaskOptions) -> Server {
    let (waits, cancellable) = (Arc::clone(gate), Arc::clone(gate));
    Server::builder("tasks", "1")
        .tasks(options)
        .tool_sync(Tool::without_params("plain"), |_: Value, _| "plain")
        .tool(
            Tool::without_params("gated").task_support(TaskSupport::Optional),
            move |_: Value, cx: Context| {
                let gate = Arc::clone(&waits);
                async move {
                    gate.open.notified().await;
                    format!("opened as task {}", cx.task_id().unwrap_or("none"))
                }
            },
        )
        .tool(
            Tool::without_params("forever").task_support(TaskSupport::Optional),
            move |_: Value, _cx: Context| {
                let guard = Dropped(Arc::clone(&cancellable));
                async move {
                    let _guard = guard;
                    std::future::pending::<()>().await;
                    "never"
                }
            },
        )
        .tool(
            Tool::without_params("quick").task_support(TaskSupport::Optional),
            |_: Value, _| async { "at once" },
        )
        .tool(
            Tool::without_params("yields").task_support(TaskSupport::Optional),
            |_: Value, _| async {
                tokio::task::yield_now().await;
                "yielded"
            },
        )
        .tool(
            Tool::without_params("tool_error").task_support(TaskSupport::Required),
            |_: Value, _| async {
                tokio::task::yield_now().await;
                Err::<String, _>(ToolError::new("it broke"))
            },
        )
        .tool(
            Tool::without_params("protocol_error").task_support(TaskSupport::Required),
            |_: Value, _| async {
                tokio::task::yield_now().await;
                Err::<String, _>(ProtocolError::new(
                    ErrorCode::INTERNAL_ERROR,
                    "deep trouble",
                ))
            },
        )
        .tool(
            Tool::without_params("asks").task_support(TaskSupport::Optional),
            |_: Value, cx: Context| async move {
                cx.run_as_task().await;
                cx.progress(1.0, Some(2.0), Some("asking")).await;
                let answer = cx.elicit(form("Who are you?")).await?;
                let name = answer.content.and_then(|c| c.get("name").cloned());
                Ok::<_, InputError>(format!("hello {}", name.unwrap_or(Value::Null)))
            },
        )
        .build()
        .unwrap()
}

fn server(gate: &Arc<Gate>) -> Server {
    server_with(gate, TaskOptions::default())
}

// ----- 2026-07-28 -----

#[tokio::test]
async fn a_call_that_goes_on_becomes_a_task_that_shows_its_result() {
    let gate = Arc::new(Gate::default());
    let server = server(&gate);
    let mut wire = Wire::open(&server);
    let created = wire
        .call(1, "tools/call", call_params("gated", json!({})))
        .await;
    let task = &created["result"];
    assert_eq!(task["resultType"], "task", "{created}");
    assert_eq!(task["status"], "working");
    assert_eq!(task["ttlMs"], 3_600_000);
    assert_eq!(task["pollIntervalMs"], 1000);
    assert!(task["createdAt"].as_str().unwrap().ends_with('Z'));
    assert!(task.get("task").is_none() && task.get("ttl").is_none());
    let id = task["taskId"].as_str().unwrap().to_owned();
    assert!(id.len() >= 22, "an unguessable id: {id}");

    // stored before the answer: found at once
    let working = wire
        .call(2, "tasks/get", json!({"taskId": id, "_meta": with_tasks()}))
        .await;
    assert_eq!(working["result"]["status"], "working");
    assert_eq!(working["result"]["resultType"], "complete");
    assert!(working["result"].get("result").is_none());

    gate.open.notify_one();
    let done = wire.until(&id, "completed").await;
    assert_eq!(
        done["result"]["content"][0]["text"],
        format!("opened as task {id}")
    );
    assert!(
        done["result"]["_meta"]
            .get("io.modelcontextprotocol/related-task")
            .is_none()
    );
}

#[tokio::test]
async fn a_call_that_finishes_at_once_is_answered_inline() {
    let server = server(&Arc::default());
    let mut wire = Wire::open(&server);
    let answer = wire
        .call(1, "tools/call", call_params("quick", json!({})))
        .await;
    assert_eq!(answer["result"]["resultType"], "complete");
    assert_eq!(answer["result"]["content"][0]["text"], "at once");
}

#[tokio::test]
async fn tool_errors_complete_and_protocol_errors_fail() {
    let server = server(&Arc::default());
    let mut wire = Wire::open(&server);
    let created = wire
        .call(1, "tools/call", call_params("tool_error", json!({})))
        .await;
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    let ended = wire.until(&id, "completed").await;
    assert_eq!(ended["result"]["isError"], true);
    assert_eq!(ended["result"]["content"][0]["text"], "it broke");

    let id = wire.create_task(2, "protocol_error").await;
    let ended = wire.until(&id, "failed").await;
    assert_eq!(ended["error"]["code"], -32603);
    assert_eq!(ended["error"]["message"], "deep trouble");
    assert!(ended.get("result").is_none());
}

#[tokio::test]
async fn input_asked_in_a_task_waits_for_tasks_update() {
    let server = server(&Arc::default());
    let mut wire = Wire::open(&server);
    let id = wire.create_task(1, "asks").await;
    let waiting = wire.until(&id, "input_required").await;
    assert_eq!(waiting["statusMessage"], "asking");
    let keys: Vec<&String> = waiting["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(keys.len(), 1);
    let key = keys[0].clone();
    assert_eq!(
        waiting["inputRequests"][&key]["method"],
        "elicitation/create"
    );

    // an answer that does not fit the form is refused, and the task still waits
    let update = |n: i64, responses: Value| {
        request(
            n,
            "tasks/update",
            json!({"taskId": id, "inputResponses": responses, "_meta": with_tasks()}),
        )
    };
    wire.send(update(
        2,
        json!({key.clone(): {"action": "accept", "content": {"name": 7}}}),
    ))
    .await;
    let refused = wire.response(2).await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    // unknown keys are ignored
    wire.send(update(3, json!({"no-such-key": {"action": "accept"}})))
        .await;
    let ack = wire.response(3).await;
    assert_eq!(ack["result"]["resultType"], "complete");
    assert!(ack["result"].get("status").is_none());
    let still = wire.until(&id, "input_required").await;
    assert_eq!(still["inputRequests"].as_object().unwrap().len(), 1);

    wire.send(update(
        4,
        json!({key.clone(): {"action": "accept", "content": {"name": "Ada"}}}),
    ))
    .await;
    assert_eq!(wire.response(4).await["result"]["resultType"], "complete");
    let done = wire.until(&id, "completed").await;
    assert_eq!(done["result"]["content"][0]["text"], "hello \"Ada\"");
    assert!(done.get("inputRequests").is_none());
    // answering again is ignored: the key was answered
    wire.send(update(
        5,
        json!({key: {"action": "accept", "content": {"name": "Bob"}}}),
    ))
    .await;
    assert_eq!(wire.response(5).await["result"]["resultType"], "complete");
}

#[tokio::test]
async fn cancel_stops_the_handler_and_repeats_harmlessly() {
    let gate = Arc::new(Gate::default());
    let server = server(&gate);
    let mut wire = Wire::open(&server);
    let id = wire.create_task(1, "forever").await;
    let dropped = gate.dropped.notified();
    let cancel = json!({"taskId": id, "_meta": with_tasks()});
    let ack = wire.call(2, "tasks/cancel", cancel.clone()).await;
    assert_eq!(ack["result"]["resultType"], "complete");
    assert!(ack["result"].get("taskId").is_none());
    dropped.await;
    wire.until(&id, "cancelled").await;
    let again = wire.call(3, "tasks/cancel", cancel).await;
    assert_eq!(again["result"]["resultType"], "complete");
}

#[tokio::test]
async fn without_the_extension_calls_run_inline_and_tasks_are_refused() {
    let gate = Arc::new(Gate::default());
    let server = server(&gate);
    let mut wire = Wire::open(&server);
    gate.open.notify_one();
    // a task-capable tool is served as an ordinary call
    let inline = wire.call(1, "tools/call", json!({"name": "gated"})).await;
    assert_eq!(inline["result"]["resultType"], "complete", "{inline}");
    // a task-only tool cannot be
    let refused = wire
        .call(2, "tools/call", json!({"name": "tool_error"}))
        .await;
    assert_eq!(refused["error"]["code"], -32021);
    assert!(
        refused["error"]["data"]["requiredCapabilities"]["extensions"][TASKS_EXTENSION].is_object()
    );
    // the task methods check the extension before the task
    for (n, method) in [(3, "tasks/get"), (4, "tasks/update"), (5, "tasks/cancel")] {
        let params = json!({"taskId": "gate-test", "inputResponses": {}});
        assert_eq!(wire.call(n, method, params).await["error"]["code"], -32021);
    }
    // the removed methods are gone whatever the client declares
    for (n, method) in [(6, "tasks/result"), (7, "tasks/list")] {
        let params = json!({"taskId": "x", "_meta": with_tasks()});
        assert_eq!(wire.call(n, method, params).await["error"]["code"], -32601);
    }
    // a legacy `task` param promotes nothing
    let legacy = wire
        .call(
            8,
            "tools/call",
            json!({"name": "plain", "task": {"ttl": 100}, "_meta": with_tasks()}),
        )
        .await;
    assert_eq!(legacy["result"]["content"][0]["text"], "plain");
}

#[tokio::test]
async fn discover_lists_the_extension_and_lists_show_no_task_support() {
    let server = server(&Arc::default());
    let mut wire = Wire::open(&server);
    let discovered = wire.call(1, "server/discover", json!({})).await;
    let capabilities = &discovered["result"]["capabilities"];
    assert!(
        capabilities["extensions"][TASKS_EXTENSION].is_object(),
        "{capabilities}"
    );
    assert!(capabilities.get("tasks").is_none());
    let tools = wire.call(2, "tools/list", json!({})).await;
    let tools = tools["result"]["tools"].as_array().unwrap();
    assert!(tools.iter().all(|t| t.get("execution").is_none()));
}

#[tokio::test]
async fn another_connection_sees_no_such_task() {
    let gate = Arc::new(Gate::default());
    let server = server(&gate);
    let mut owner = Wire::open(&server);
    let mut other = Wire::open(&server);
    let created = owner
        .call(1, "tools/call", call_params("gated", json!({})))
        .await;
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    for (n, method) in [(1, "tasks/get"), (2, "tasks/cancel"), (3, "tasks/update")] {
        let params = json!({"taskId": id, "inputResponses": {}, "_meta": with_tasks()});
        let refused = other.call(n, method, params).await;
        assert_eq!(refused["error"]["code"], -32602, "{method}: {refused}");
        assert!(
            refused["error"]["message"]
                .as_str()
                .unwrap()
                .contains("not found")
        );
    }
    // and the task was not cancelled by them
    gate.open.notify_one();
    owner.until(&id, "completed").await;
}

#[tokio::test]
async fn a_full_store_answers_inline_and_a_finished_task_expires_after_its_retention() {
    let gate = Arc::new(Gate::default());
    let limits = TaskLimits {
        per_owner: 1,
        total: 10,
    };
    let options = TaskOptions::default()
        .limits(limits)
        .retention(Some(std::time::Duration::ZERO));
    let server = server_with(&gate, options);
    let mut wire = Wire::open(&server);
    let first = wire
        .call(1, "tools/call", call_params("gated", json!({})))
        .await;
    let id = first["result"]["taskId"].as_str().unwrap().to_owned();
    // the store is full: a call that goes on is answered when it ends, not refused
    let inline = wire
        .call(2, "tools/call", call_params("yields", json!({})))
        .await;
    assert_eq!(
        inline["result"]["content"][0]["text"], "yielded",
        "{inline}"
    );
    assert!(inline["result"].get("taskId").is_none(), "{inline}");
    // ended with no retention: gone, and its room is free again
    let mut changes = server.changes();
    gate.open.notify_one();
    loop {
        if let Some(Ok(Change::TaskChanged(changed))) = changes.recv().await
            && changed == id
        {
            let got = wire
                .call(3, "tasks/get", json!({"taskId": id, "_meta": with_tasks()}))
                .await;
            if got.get("error").is_some() {
                assert_eq!(got["error"]["code"], -32602);
                break;
            }
        }
    }
    let next = wire
        .call(5, "tools/call", call_params("yields", json!({})))
        .await;
    assert_eq!(next["result"]["resultType"], "task", "{next}");
}

#[tokio::test]
async fn a_task_left_waiting_for_input_fails_once_the_input_timeout_passed() {
    let options = TaskOptions::default()
        .input_timeout(Some(std::time::Duration::from_millis(50)))
        .retention(Some(std::time::Duration::from_secs(60)));
    let server = server_with(&Arc::default(), options);
    let mut wire = Wire::open(&server);
    let id = wire.create_task(1, "asks").await;
    wire.until(&id, "input_required").await;
    // nobody answers: the sweeper gives the task up, and it fails saying why
    let failed = wire.until(&id, "failed").await;
    assert!(
        failed["error"]["message"]
            .as_str()
            .unwrap()
            .contains("expired waiting for input"),
        "{failed}"
    );
    assert!(failed.get("inputRequests").is_none(), "{failed}");
}

#[tokio::test]
async fn the_same_question_asked_twice_at_once_gets_the_one_answer() {
    let server = Server::builder("tasks", "1")
        .tasks(TaskOptions::default())
        .tool(
            Tool::without_params("twice").task_support(TaskSupport::Optional),
            |_: Value, cx: Context| async move {
                cx.run_as_task().await;
                let (a, b) = tokio::join!(
                    cx.elicit_keyed("who", form("Who?")),
                    cx.elicit_keyed("who", form("Who else?"))
                );
                let same = a?.content == b?.content;
                Ok::<_, InputError>(format!("same answer: {same}"))
            },
        )
        .build()
        .unwrap();
    let mut wire = Wire::open(&server);
    let id = wire.create_task(1, "twice").await;
    let waiting = wire.until(&id, "input_required").await;
    // one key, one request: the first one asked, which the answer is checked against
    assert_eq!(waiting["inputRequests"].as_object().unwrap().len(), 1);
    assert_eq!(
        waiting["inputRequests"]["who"]["params"]["message"], "Who?",
        "{waiting}"
    );
    let answer = json!({"action": "accept", "content": {"name": "Ada"}});
    let update = json!({"taskId": id, "inputResponses": {"who": answer}, "_meta": with_tasks()});
    let acked = wire.call(2, "tasks/update", update).await;
    assert!(acked.get("result").is_some(), "{acked}");
    let done = wire.until(&id, "completed").await;
    assert_eq!(done["result"]["content"][0]["text"], "same answer: true");
}

#[tokio::test]
async fn errors_show_at_most_a_bounded_part_of_a_bogus_task_id() {
    let server = server(&Arc::default());
    let mut wire = Wire::open(&server);
    for long in ["x".repeat(100_000), "é".repeat(100)] {
        let refused = wire
            .call(
                1,
                "tasks/get",
                json!({"taskId": long, "_meta": with_tasks()}),
            )
            .await;
        assert_eq!(refused["error"]["code"], -32602);
        let message = refused["error"]["message"].as_str().unwrap();
        assert!(
            message.contains("not found") && message.len() < 200,
            "{message}"
        );
    }
}

#[tokio::test]
async fn a_listen_naming_a_task_hears_of_its_changes() {
    let gate = Arc::new(Gate::default());
    let server = server(&gate);
    let mut wire = Wire::open(&server);
    let id = wire.create_task(1, "gated").await;
    // without the extension: refused
    let refused = wire
        .call(
            2,
            "subscriptions/listen",
            json!({"notifications": {"taskIds": [id]}}),
        )
        .await;
    assert_eq!(refused["error"]["code"], -32021);
    wire.send(request(
        3,
        "subscriptions/listen",
        json!({"notifications": {"taskIds": [id, "not-mine"]}, "_meta": with_tasks()}),
    ))
    .await;
    let ack = wire.next().await;
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(ack["params"]["notifications"]["taskIds"], json!([id]));
    gate.open.notify_one();
    loop {
        let message = wire.next().await;
        if message["method"] == "notifications/tasks" && message["params"]["status"] == "completed"
        {
            assert_eq!(message["params"]["taskId"], id.as_str());
            assert!(message["params"]["result"]["content"].is_array());
            assert_eq!(
                message["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
                3
            );
            break;
        }
    }
}

/// A bus whose every new listener has already missed changes (as a slow one does).
#[derive(Debug)]
struct LaggingBus(broadcast::Sender<Change>);

impl EventBus for LaggingBus {
    fn publish(&self, change: Change) {
        let _ = self.0.send(change);
    }

    fn subscribe(&self) -> BusReceiver<Change> {
        let receiver = self.0.subscribe();
        for _ in 0..3 {
            let _ = self.0.send(Change::ListChanged(ListKind::Prompts));
        }
        receiver.into()
    }
}

#[tokio::test]
async fn a_listen_that_missed_changes_is_told_the_state_of_its_tasks() {
    let gate = Arc::new(Gate::default());
    let server = Server::builder("tasks", "1")
        .event_bus(Arc::new(LaggingBus(broadcast::channel(1).0)))
        .tasks(TaskOptions::default())
        .tool(
            Tool::without_params("gated").task_support(TaskSupport::Optional),
            {
                let gate = Arc::clone(&gate);
                move |_: Value, _cx: Context| {
                    let gate = Arc::clone(&gate);
                    async move {
                        gate.open.notified().await;
                        "opened"
                    }
                }
            },
        )
        .build()
        .unwrap();
    let mut wire = Wire::open(&server);
    let id = wire.create_task(1, "gated").await;
    wire.send(request(
        2,
        "subscriptions/listen",
        json!({"notifications": {"taskIds": [id, id]}, "_meta": with_tasks()}),
    ))
    .await;
    let ack = wire.next().await;
    assert_eq!(
        ack["params"]["notifications"]["taskIds"],
        json!([id]),
        "each id once"
    );
    // nothing happened to the task, but what the listen missed might have: it is told anew
    let told = wire.next().await;
    assert_eq!(told["method"], "notifications/tasks", "{told}");
    assert_eq!(told["params"]["taskId"], id.as_str());
    assert_eq!(told["params"]["status"], "working");
    gate.open.notify_one();
}

#[tokio::test]
async fn a_listen_looks_up_no_more_task_ids_than_a_caller_may_have_tasks() {
    let options = TaskOptions::default().limits(TaskLimits {
        per_owner: 2,
        total: 10,
    });
    let gate = Arc::new(Gate::default());
    let server = server_with(&gate, options);
    let mut wire = Wire::open(&server);
    let id = wire.create_task(1, "gated").await;
    let mut asked: Vec<String> = (0..10_000).map(|n| format!("bogus-{n}")).collect();
    asked.push(id.clone());
    wire.send(request(
        2,
        "subscriptions/listen",
        json!({"notifications": {"taskIds": asked}, "_meta": with_tasks()}),
    ))
    .await;
    let ack = wire.next().await;
    assert_eq!(
        ack["params"]["notifications"]["taskIds"],
        json!([]),
        "{ack}"
    );
    // named among the first ones, it is honoured
    wire.send(request(
        3,
        "subscriptions/listen",
        json!({"notifications": {"taskIds": ["bogus", id]}, "_meta": with_tasks()}),
    ))
    .await;
    let ack = wire.next().await;
    assert_eq!(
        ack["params"]["notifications"]["taskIds"],
        json!([id]),
        "{ack}"
    );
    gate.open.notify_one();
}

// ----- 2025-11-25 -----

#[tokio::test]
async fn initialize_announces_the_legacy_capability_and_lists_task_support() {
    let server = server(&Arc::default());
    let mut wire = Wire::open(&server);
    let init = wire.initialize("2025-11-25", json!({})).await;
    let capabilities = &init["result"]["capabilities"];
    assert_eq!(
        capabilities["tasks"],
        json!({"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}})
    );
    assert!(capabilities.get("extensions").is_none(), "{capabilities}");
    let tools = wire.call_legacy(1, "tools/list", json!({})).await;
    let tools = tools["result"]["tools"].as_array().unwrap();
    let support = |name: &str| {
        tools.iter().find(|t| t["name"] == name).unwrap()["execution"]["taskSupport"].clone()
    };
    assert_eq!(support("gated"), "optional");
    assert_eq!(support("tool_error"), "required");
    assert_eq!(support("plain"), Value::Null);

    // an older revision sees no tasks at all
    let mut older = Wire::open(&server);
    let init = older.initialize("2025-06-18", json!({})).await;
    assert!(init["result"]["capabilities"].get("tasks").is_none());
    let tools = older.call_legacy(1, "tools/list", json!({})).await;
    let tools = tools["result"]["tools"].as_array().unwrap();
    assert!(
        tools.iter().all(|t| t.get("execution").is_none()),
        "{tools:?}"
    );
}

#[tokio::test]
async fn a_legacy_task_the_full_store_cannot_keep_is_refused() {
    let options = TaskOptions::default().limits(TaskLimits {
        per_owner: 1,
        total: 10,
    });
    let gate = Arc::new(Gate::default());
    let server = server_with(&gate, options);
    let mut wire = Wire::open(&server);
    wire.initialize("2025-11-25", json!({})).await;
    let first = wire
        .call_legacy(1, "tools/call", json!({"name": "gated", "task": {}}))
        .await;
    assert_eq!(first["result"]["task"]["status"], "working", "{first}");
    // the client asked for a task: there is no inline answer to fall back on
    let refused = wire
        .call_legacy(2, "tools/call", json!({"name": "gated", "task": {}}))
        .await;
    assert_eq!(refused["error"]["code"], -32603, "{refused}");
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("too many tasks") && message.contains("per owner"),
        "{message}"
    );
}

#[tokio::test]
async fn a_task_augmented_call_and_tasks_result_blocking_until_the_end() {
    let gate = Arc::new(Gate::default());
    let server = server(&gate);
    let mut wire = Wire::open(&server);
    wire.initialize("2025-11-25", json!({})).await;
    let created = wire
        .call_legacy(
            1,
            "tools/call",
            json!({"name": "gated", "task": {"ttl": 60_000}}),
        )
        .await;
    let task = &created["result"]["task"];
    assert_eq!(task["status"], "working", "{created}");
    assert_eq!(task["ttl"], 60_000);
    assert_eq!(task["pollInterval"], 1000);
    let id = task["taskId"].as_str().unwrap().to_owned();

    // tasks/result waits for the end
    wire.send(legacy_request(2, "tasks/result", json!({"taskId": id})))
        .await;
    let listed = wire.call_legacy(3, "tasks/list", json!({})).await;
    assert_eq!(listed["result"]["tasks"][0]["taskId"], id.as_str());
    gate.open.notify_one();
    let mut statuses = Vec::new();
    let result = loop {
        let message = wire.next().await;
        if message["method"] == "notifications/tasks/status" {
            statuses.push(message["params"]["status"].clone());
        } else if message["id"] == 2 {
            break message;
        }
    };
    assert_eq!(
        result["result"]["content"][0]["text"],
        format!("opened as task {id}")
    );
    assert_eq!(
        result["result"]["_meta"]["io.modelcontextprotocol/related-task"]["taskId"],
        id.as_str()
    );
    assert_eq!(statuses, [json!("completed")]);
    // a task that ended cannot be cancelled
    let refused = wire
        .call_legacy(4, "tasks/cancel", json!({"taskId": id}))
        .await;
    assert_eq!(refused["error"]["code"], -32602);
}

#[tokio::test]
async fn legacy_task_rules_cancel_and_tool_errors() {
    let gate = Arc::new(Gate::default());
    let server = server(&gate);
    let mut wire = Wire::open(&server);
    wire.initialize("2025-11-25", json!({})).await;
    // a tool that needs a task, called without; one that forbids it, called with
    let refused = wire
        .call_legacy(1, "tools/call", json!({"name": "tool_error"}))
        .await;
    assert_eq!(refused["error"]["code"], -32601);
    let refused = wire
        .call_legacy(2, "tools/call", json!({"name": "plain", "task": {}}))
        .await;
    assert_eq!(refused["error"]["code"], -32601);

    // cancelled before the answer, which is the cancelled task
    let created = wire
        .call_legacy(3, "tools/call", json!({"name": "forever", "task": {}}))
        .await;
    let id = created["result"]["task"]["taskId"]
        .as_str()
        .unwrap()
        .to_owned();
    let dropped = gate.dropped.notified();
    let cancelled = wire
        .call_legacy(4, "tasks/cancel", json!({"taskId": id}))
        .await;
    assert_eq!(cancelled["result"]["status"], "cancelled", "{cancelled}");
    dropped.await;
    let result = wire
        .call_legacy(5, "tasks/result", json!({"taskId": id}))
        .await;
    assert_eq!(result["error"]["code"], -32603);

    // 2025-11-25 calls a tool error a failed task; tasks/result is still the tool's result
    let created = wire
        .call_legacy(6, "tools/call", json!({"name": "tool_error", "task": {}}))
        .await;
    let id = created["result"]["task"]["taskId"]
        .as_str()
        .unwrap()
        .to_owned();
    let result = wire
        .call_legacy(7, "tasks/result", json!({"taskId": id}))
        .await;
    assert_eq!(result["result"]["isError"], true);
    assert_eq!(
        wire.until_legacy(&id, "failed").await["taskId"],
        id.as_str()
    );
    // unknown ids and bad cursors
    let unknown = wire
        .call_legacy(8, "tasks/get", json!({"taskId": "nope"}))
        .await;
    assert_eq!(unknown["error"]["code"], -32602);
    let bad = wire
        .call_legacy(9, "tasks/list", json!({"cursor": "nope"}))
        .await;
    assert_eq!(bad["error"]["code"], -32602);
}

#[tokio::test]
async fn a_legacy_task_asks_the_client_with_a_request_tied_to_it() {
    let server = server(&Arc::default());
    let mut wire = Wire::open(&server);
    wire.initialize("2025-11-25", json!({"elicitation": {}}))
        .await;
    let created = wire
        .call_legacy(1, "tools/call", json!({"name": "asks", "task": {}}))
        .await;
    let id = created["result"]["task"]["taskId"]
        .as_str()
        .unwrap()
        .to_owned();
    let ask = loop {
        let message = wire.next().await;
        if message["method"] == "elicitation/create" {
            break message;
        }
    };
    assert_eq!(
        ask["params"]["_meta"]["io.modelcontextprotocol/related-task"]["taskId"],
        id.as_str()
    );
    let waiting = wire.until_legacy(&id, "input_required").await;
    assert_eq!(waiting["statusMessage"], "asking");
    wire.send(json!({"jsonrpc": "2.0", "id": ask["id"], "result": {"action": "accept", "content": {"name": "Lin"}}}))
        .await;
    let result = wire
        .call_legacy(2, "tasks/result", json!({"taskId": id}))
        .await;
    assert_eq!(result["result"]["content"][0]["text"], "hello \"Lin\"");
    assert_eq!(
        wire.until_legacy(&id, "completed").await["status"],
        "completed"
    );
}

#[tokio::test]
async fn ended_tasks_leave_the_store_once_they_expire() {
    let store = Arc::new(InMemoryTaskStore::new());
    let options = TaskOptions::default()
        .shared_store(Arc::clone(&store) as Arc<dyn TaskStore>)
        .retention(Some(std::time::Duration::ZERO));
    let server = Server::builder("tasks", "1")
        .tasks(options)
        .tool(
            Tool::without_params("yields").task_support(TaskSupport::Optional),
            |_: Value, _| async {
                tokio::task::yield_now().await;
                "done"
            },
        )
        .build()
        .unwrap();
    let mut wire = Wire::open(&server);
    let mut ids = Vec::new();
    for n in 0..50 {
        let created = wire
            .call(n, "tools/call", call_params("yields", json!({})))
            .await;
        ids.push(created["result"]["taskId"].as_str().unwrap().to_owned());
    }
    for id in &ids {
        // ended and expired at once: the last state seen is the end, then it is gone
        let mut changes = server.changes();
        loop {
            let got = wire
                .call(
                    9000,
                    "tasks/get",
                    json!({"taskId": id, "_meta": with_tasks()}),
                )
                .await;
            if got.get("error").is_some() {
                break;
            }
            let _ = changes.recv().await;
        }
    }
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    assert_eq!(store.evict_expired(now).await.unwrap(), 0);
}

/// A store whose engine fails the first `failures` writes of a task's end, that can be
/// written to from "another instance", and that tells of every write it was given.
#[derive(Debug, Default)]
struct FlakyStore {
    inner: InMemoryTaskStore,
    failures: std::sync::atomic::AtomicUsize,
    written: Notify,
}

impl TaskStore for FlakyStore {
    fn create(
        &self,
        task: TaskRecord,
        limits: TaskLimits,
        now_ms: u64,
    ) -> BoxFuture<'_, Result<(), TaskStoreError>> {
        self.inner.create(task, limits, now_ms)
    }

    fn get(
        &self,
        id: &str,
        now_ms: u64,
    ) -> BoxFuture<'_, Result<Option<TaskRecord>, TaskStoreError>> {
        self.inner.get(id, now_ms)
    }

    fn update(&self, task: TaskRecord) -> BoxFuture<'_, Result<bool, TaskStoreError>> {
        use std::sync::atomic::Ordering;
        self.written.notify_one();
        let fail = task.status.is_terminal()
            && self
                .failures
                .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| n.checked_sub(1))
                .is_ok();
        if fail {
            let error = std::io::Error::other("the engine is down");
            return Box::pin(async move { Err(TaskStoreError::Backend(Box::new(error))) });
        }
        self.inner.update(task)
    }

    fn list(
        &self,
        owner: &str,
        after: Option<&str>,
        limit: usize,
        now_ms: u64,
    ) -> BoxFuture<'_, Result<Vec<TaskRecord>, TaskStoreError>> {
        self.inner.list(owner, after, limit, now_ms)
    }

    fn evict_expired(&self, now_ms: u64) -> BoxFuture<'_, Result<usize, TaskStoreError>> {
        self.inner.evict_expired(now_ms)
    }
}

#[tokio::test]
async fn a_tasks_end_is_saved_once_the_store_takes_it_again() {
    let store = Arc::new(FlakyStore {
        failures: 2.into(),
        ..Default::default()
    });
    let gate = Arc::new(Gate::default());
    let options = TaskOptions::default().shared_store(Arc::clone(&store) as Arc<dyn TaskStore>);
    let server = server_with(&gate, options);
    let mut wire = Wire::open(&server);
    let id = wire.create_task(1, "gated").await;
    let mut changes = server.changes();
    gate.open.notify_one();
    // the end is told once it is saved, after two failed tries
    loop {
        if let Some(Ok(Change::TaskChanged(changed))) = changes.recv().await
            && changed == id
            && store.inner.get(&id, 0).await.unwrap().unwrap().status == TaskStatus::Completed
        {
            break;
        }
    }
    assert_eq!(store.failures.load(std::sync::atomic::Ordering::Acquire), 0);
    let done = wire.until(&id, "completed").await;
    assert!(
        done["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("opened")
    );
}

#[tokio::test]
async fn a_cancel_made_elsewhere_stops_the_handler_at_its_next_change() {
    let store = Arc::new(FlakyStore::default());
    let gate = Arc::new(Gate::default());
    let (opens, drops) = (Arc::clone(&gate), Arc::clone(&gate));
    let server = Server::builder("tasks", "1")
        .tasks(TaskOptions::default().shared_store(Arc::clone(&store) as Arc<dyn TaskStore>))
        .tool(
            Tool::without_params("steps").task_support(TaskSupport::Optional),
            move |_: Value, cx: Context| {
                let (opens, guard) = (Arc::clone(&opens), Dropped(Arc::clone(&drops)));
                async move {
                    let _guard = guard;
                    cx.run_as_task().await;
                    for _ in 0..u32::MAX {
                        opens.open.notified().await;
                        cx.progress(1.0, None, Some("a step")).await;
                    }
                    "all steps"
                }
            },
        )
        .build()
        .unwrap();
    let mut wire = Wire::open(&server);
    let id = wire.create_task(1, "steps").await;
    // another instance cancels it in the shared store
    let mut cancelled = store.inner.get(&id, 0).await.unwrap().unwrap();
    cancelled.status = TaskStatus::Cancelled;
    assert!(store.inner.update(cancelled).await.unwrap());
    let dropped = gate.dropped.notified();
    gate.open.notify_one();
    dropped.await;
    let got = wire.until(&id, "cancelled").await;
    assert_eq!(got["status"], "cancelled");
    assert_eq!(
        store.inner.get(&id, 0).await.unwrap().unwrap().status,
        TaskStatus::Cancelled
    );
}

#[tokio::test]
async fn answers_for_a_task_running_on_another_instance_are_refused_so_they_are_sent_again() {
    let store = Arc::new(FlakyStore::default());
    let gate = Arc::new(Gate::default());
    let options = TaskOptions::default().shared_store(Arc::clone(&store) as Arc<dyn TaskStore>);
    let server = server_with(&gate, options);
    let mut wire = Wire::open(&server);
    let id = wire.create_task(1, "gated").await;
    // another instance runs a task of the same caller, waiting for input
    let mut elsewhere = store.inner.get(&id, 0).await.unwrap().unwrap();
    elsewhere.id = "runs-elsewhere".into();
    elsewhere.status = TaskStatus::InputRequired;
    let limits = TaskLimits::default();
    store.inner.create(elsewhere, limits, 0).await.unwrap();
    let answer = json!({"action": "accept", "content": {"name": "Ada"}});
    let update = json!({
        "taskId": "runs-elsewhere",
        "inputResponses": {"who": answer},
        "_meta": with_tasks(),
    });
    let refused = wire.call(2, "tasks/update", update).await;
    assert_eq!(refused["error"]["code"], -32603, "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("another server instance"),
        "{refused}"
    );
    gate.open.notify_one();
    wire.until(&id, "completed").await;
}

#[tokio::test]
async fn a_running_task_renews_its_lease_without_changing_what_callers_see() {
    let store = Arc::new(FlakyStore::default());
    let options = TaskOptions::default()
        .shared_store(Arc::clone(&store) as Arc<dyn TaskStore>)
        .lease(std::time::Duration::from_secs(3));
    let server = server_with(&Arc::default(), options);
    let mut wire = Wire::open(&server);
    let id = wire.create_task(1, "forever").await;
    let created = store.inner.get(&id, 0).await.unwrap().unwrap();
    let first = created.lease_until_ms.expect("a running task has a lease");
    assert!(first >= created.created_at_ms + 3_000, "{created:?}");
    // once a third of the lease passed, the sweeper (every second) renews it
    let renewed = async {
        loop {
            store.written.notified().await;
            let now = store.inner.get(&id, 0).await.unwrap().unwrap();
            if now.lease_until_ms > Some(first) {
                return now;
            }
        }
    };
    let renewed = tokio::time::timeout(std::time::Duration::from_secs(10), renewed)
        .await
        .expect("the lease is renewed");
    assert_eq!(renewed.status, TaskStatus::Working);
    assert_eq!(
        renewed.updated_at_ms, created.updated_at_ms,
        "no change a caller sees"
    );
    wire.send(request(2, "tasks/cancel", json!({"taskId": id})))
        .await;
}

#[tokio::test]
async fn a_finished_task_drops_the_progress_message_of_its_work() {
    let server = Server::builder("tasks", "1")
        .tool(
            Tool::without_params("save").task_support(TaskSupport::Optional),
            |_: Value, cx: Context| async move {
                cx.run_as_task().await;
                cx.progress(1.0, Some(2.0), Some("saving")).await;
                "saved"
            },
        )
        .build()
        .unwrap();
    let mut wire = Wire::open(&server);
    let id = wire.create_task(1, "save").await;
    let done = wire.until(&id, "completed").await;
    assert_eq!(done.get("statusMessage"), None, "{done}");
}
