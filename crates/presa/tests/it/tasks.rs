//! presa's client driving tasks on presa's server, in-process, over stdio (the `tasks` example as
//! a real process) and over Streamable HTTP on 127.0.0.1, under 2026-07-28 (the tasks extension)
//! and 2025-11-25 (experimental tasks).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use presa::client::{Client, ClientError, ClientOptions, ResultText, ToolCall};
use presa::core::{
    ElicitResult, ErrorCode, Implementation, ProtocolVersion, TaskStatus, TaskSupport, Tool,
};
use presa::server::{
    Context, InputError, ProtocolError, Server, TaskLimits, TaskOptions, ToolError,
};
use serde_json::{Value, json};
use tokio::sync::Notify;

const MODERN: ProtocolVersion = ProtocolVersion::V2026_07_28;
const LEGACY: ProtocolVersion = ProtocolVersion::V2025_11_25;

/// Fails a test that hangs; no test comes near it.
const GUARD: Duration = Duration::from_secs(60);

#[derive(Clone, Copy, Debug, PartialEq)]
enum Transport {
    InProcess,
    Http,
}

fn server(limits: TaskLimits, gate: &Arc<Notify>) -> Server {
    let gate = Arc::clone(gate);
    let fast = TaskOptions::default()
        .poll_interval(Duration::from_millis(5))
        .limits(limits);
    Server::builder("tasks-e2e", "1.0.0")
        .tasks(fast)
        .tool(
            Tool::without_params("confirm").task_support(TaskSupport::Optional),
            |_: Value, cx: Context| async move {
                cx.run_as_task().await;
                let form = presa::core::ElicitationSchema::new().property(
                    "ok",
                    presa::core::BooleanSchema::titled("OK?"),
                    true,
                );
                let answer = cx
                    .elicit(presa::core::ElicitRequestFormParams::new("Go?", form).into())
                    .await?;
                let ok = answer.content.and_then(|c| c.get("ok").cloned());
                cx.progress(1.0, Some(1.0), Some("done")).await;
                Ok::<_, InputError>(format!(
                    "ok={} task={}",
                    ok.unwrap_or(Value::Null),
                    cx.task_id().is_some()
                ))
            },
        )
        .tool(
            Tool::without_params("gated").task_support(TaskSupport::Optional),
            move |_: Value, _cx: Context| {
                let gate = Arc::clone(&gate);
                async move {
                    gate.notified().await;
                    "opened"
                }
            },
        )
        .tool(
            Tool::without_params("only_task").task_support(TaskSupport::Required),
            |_: Value, _| async {
                tokio::task::yield_now().await;
                Err::<String, _>(ToolError::new("broke as a tool"))
            },
        )
        .tool(
            Tool::without_params("deep_trouble").task_support(TaskSupport::Optional),
            |_: Value, _| async {
                tokio::task::yield_now().await;
                Err::<String, _>(ProtocolError::new(
                    ErrorCode::INTERNAL_ERROR,
                    "deep trouble",
                ))
            },
        )
        .build()
        .unwrap()
}

fn options(version: ProtocolVersion, tasks: bool) -> ClientOptions {
    ClientOptions::new(Implementation::new("tasks-test", "1.0.0"))
        .protocol_version(Some(version))
        .tasks(tasks)
        .elicitation(|_params, _cx| async move {
            let mut content = serde_json::Map::new();
            content.insert("ok".into(), json!(true));
            Ok(ElicitResult::accept(content))
        })
}

/// A server, and clients connected to it over `transport` (each a connection of its own).
struct Setup {
    transport: Transport,
    server: Server,
    http: Option<presa::http::RunningServer>,
}

impl Setup {
    async fn start(transport: Transport, limits: TaskLimits, gate: &Arc<Notify>) -> Self {
        let server = server(limits, gate);
        let http = match transport {
            Transport::Http => Some(
                presa::http::serve(server.clone(), presa::http::HttpOptions::default())
                    .await
                    .unwrap(),
            ),
            Transport::InProcess => None,
        };
        Self {
            transport,
            server,
            http,
        }
    }

    async fn client(&self, options: ClientOptions) -> Client {
        let channel = match (&self.http, self.transport) {
            (Some(http), _) => {
                presa::http::client(http.url(), presa::http::HttpClientOptions::default()).unwrap()
            }
            (None, _) => presa::in_process(self.server.clone()),
        };
        Client::connect(channel, options).await.unwrap()
    }
}

async fn guarded(test: impl std::future::Future<Output = ()>) {
    tokio::time::timeout(GUARD, test)
        .await
        .expect("the test hung");
}

async fn the_whole_life_of_tasks(transport: Transport, version: ProtocolVersion) {
    let gate = Arc::new(Notify::new());
    let setup = Setup::start(transport, TaskLimits::default(), &gate).await;
    let client = setup.client(options(version, true)).await;

    // call_tool waits for a task's end, answering its question on the way
    let result = client.call_tool("confirm", json!({})).await.unwrap();
    assert_eq!(result.text(), "ok=true task=true", "{version}");

    // start_tool hands the task over
    let ToolCall::Task(task) = client.start_tool("gated", json!({})).await.unwrap() else {
        panic!("a task");
    };
    let state = task.status().await.unwrap();
    assert_eq!(state.status, TaskStatus::Working);
    gate.notify_one();
    assert_eq!(task.wait().await.unwrap().text(), "opened");

    // cancelled
    let ToolCall::Task(task) = client.start_tool("gated", json!({})).await.unwrap() else {
        panic!("a task");
    };
    task.cancel().await.unwrap();
    match task.wait().await {
        Err(ClientError::TaskCancelled { task: id }) => assert_eq!(id, task.id()),
        other => panic!("cancelled, not {other:?}"),
    }

    // a tool error is a result; a protocol error the server's error
    let failed = client.call_tool("only_task", json!({})).await.unwrap();
    assert_eq!(failed.is_error, Some(true));
    assert_eq!(failed.text(), "broke as a tool");
    let error = client
        .call_tool("deep_trouble", json!({}))
        .await
        .unwrap_err();
    assert_eq!(error.code(), Some(ErrorCode::INTERNAL_ERROR), "{error}");

    // a client that does not allow tasks: optional tools run as calls, required ones cannot
    let plain = setup.client(options(version, false)).await;
    gate.notify_one();
    assert_eq!(
        plain.call_tool("gated", json!({})).await.unwrap().text(),
        "opened"
    );
    match plain.call_tool("only_task", json!({})).await {
        Err(ClientError::TaskRequired { tool }) => assert_eq!(tool, "only_task"),
        other => panic!("TaskRequired, not {other:?}"),
    }

    // another connection (a session of its own) does not see the task
    let ToolCall::Task(task) = client.start_tool("gated", json!({})).await.unwrap() else {
        panic!("a task");
    };
    let stranger = setup.client(options(version, true)).await;
    let anonymous = transport == Transport::Http && version == MODERN;
    let theirs = stranger.resume_task(task.id()).status().await;
    if anonymous {
        // stateless HTTP without authentication: the id alone is the handle
        assert_eq!(theirs.unwrap().status, TaskStatus::Working);
    } else {
        assert_eq!(theirs.unwrap_err().code(), Some(ErrorCode::INVALID_PARAMS));
    }
    // the creator takes it up again by its id
    let again = client.resume_task(task.id());
    gate.notify_one();
    assert_eq!(again.wait().await.unwrap().text(), "opened");
    for client in [client, plain, stranger] {
        client.close().await;
    }
    if let Some(http) = setup.http {
        http.stop().await.unwrap();
    }
}

#[tokio::test]
async fn tasks_in_process_2026() {
    guarded(the_whole_life_of_tasks(Transport::InProcess, MODERN)).await;
}

#[tokio::test]
async fn tasks_in_process_2025() {
    guarded(the_whole_life_of_tasks(Transport::InProcess, LEGACY)).await;
}

#[tokio::test]
async fn tasks_over_http_2026() {
    guarded(the_whole_life_of_tasks(Transport::Http, MODERN)).await;
}

#[tokio::test]
async fn tasks_over_http_2025() {
    guarded(the_whole_life_of_tasks(Transport::Http, LEGACY)).await;
}

#[tokio::test]
async fn a_full_store_answers_inline_on_2026_and_refuses_on_2025() {
    guarded(async {
        for transport in [Transport::InProcess, Transport::Http] {
            let gate = Arc::new(Notify::new());
            let limits = TaskLimits {
                per_owner: 1,
                total: 10,
            };
            let setup = Setup::start(transport, limits, &gate).await;
            for version in [MODERN, LEGACY] {
                let client = setup.client(options(version, true)).await;
                let ToolCall::Task(_first) = client.start_tool("gated", json!({})).await.unwrap()
                else {
                    panic!("a task ({transport:?}, {version})");
                };
                let second = client.start_tool("only_task", json!({})).await;
                if version == MODERN {
                    // the client takes either answer: the call goes on inline
                    let Ok(ToolCall::Complete(result)) = second else {
                        panic!("answered inline ({transport:?}): {second:?}");
                    };
                    assert!(result.is_error(), "{result:?}");
                    assert_eq!(result.text(), "broke as a tool");
                } else {
                    // it asked for a task: refused
                    let refused = second.unwrap_err();
                    assert_eq!(
                        refused.code(),
                        Some(ErrorCode::INTERNAL_ERROR),
                        "{transport:?}"
                    );
                    assert!(refused.to_string().contains("too many tasks"), "{refused}");
                }
            }
        }
    })
    .await;
}

/// The path of a built example of this package (cargo builds examples for `cargo test`).
fn example(name: &str) -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let debug = exe.parent().and_then(|deps| deps.parent()).unwrap();
    debug.join("examples").join(name)
}

#[tokio::test]
async fn the_tasks_example_over_stdio_in_both_eras() {
    guarded(async {
        for version in [MODERN, LEGACY] {
            let channel =
                presa::stdio::command([example("tasks")], presa::stdio::CommandOptions::default())
                    .unwrap();
            let client = Client::connect(channel, confirming(version)).await.unwrap();
            let ToolCall::Task(task) = client
                .start_tool("export_report", json!({"year": 2026, "seconds": 1}))
                .await
                .unwrap()
            else {
                panic!("a task ({version})");
            };
            let result = task.wait().await.unwrap();
            assert_eq!(
                result.text(),
                "Report 2026: 6078 rows exported.",
                "{version}"
            );
            // a minute's export, cancelled
            let ToolCall::Task(task) = client
                .start_tool("export_report", json!({"year": 2026}))
                .await
                .unwrap()
            else {
                panic!("a task ({version})");
            };
            task.cancel().await.unwrap();
            match task.wait().await {
                Err(ClientError::TaskCancelled { .. }) => {}
                other => panic!("cancelled ({version}), not {other:?}"),
            }
            client.close().await;
        }
    })
    .await;
}

/// A client allowing tasks that confirms the example's export.
fn confirming(version: ProtocolVersion) -> ClientOptions {
    ClientOptions::new(Implementation::new("tasks-test", "1.0.0"))
        .protocol_version(Some(version))
        .tasks(true)
        .elicitation(|_params, _cx| async move {
            let mut content = serde_json::Map::new();
            content.insert("confirm".into(), json!(true));
            Ok(ElicitResult::accept(content))
        })
}
