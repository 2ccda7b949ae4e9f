//! presa's client against presa's server, pattern by pattern — elicitation, sampling, roots,
//! several input rounds, subscriptions, progress and logs — over each transport (in-process,
//! stdio with the `patterns` example as a real process, Streamable HTTP on 127.0.0.1) under
//! 2026-07-28 and under 2025-11-25.

#[path = "../../examples/patterns/definitions.rs"]
#[allow(dead_code)]
mod definitions;

use std::future::Future;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use presa::client::{
    ChangeEvent, Client, ClientError, ClientOptions, InputContext, ResultText, SubscriptionOptions,
};
use presa::core::{
    CreateMessageResult, ElicitResult, ErrorCode, Implementation, ListRootsResult, LoggingLevel,
    ProtocolVersion, Root,
};
use presa_test::message::request;
use serde_json::{Value, json};

use definitions::STATUS;

const MODERN: ProtocolVersion = ProtocolVersion::V2026_07_28;
const LEGACY: ProtocolVersion = ProtocolVersion::V2025_11_25;

/// Fails a test that hangs; no test comes near it.
const GUARD: Duration = Duration::from_secs(120);

#[derive(Clone, Copy, Debug)]
enum Transport {
    InProcess,
    Stdio,
    Http,
}

/// The path of a built example of this package (cargo builds examples for `cargo test`).
fn example(name: &str) -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let debug = exe.parent().and_then(|deps| deps.parent()).unwrap();
    debug.join("examples").join(name)
}

/// A client speaking `version` with no input handlers.
fn bare(version: ProtocolVersion) -> ClientOptions {
    ClientOptions::new(Implementation::new("patterns-test", "1.0.0"))
        .protocol_version(Some(version))
}

/// A client answering every kind of input, saying which era asked.
fn answering(version: ProtocolVersion) -> ClientOptions {
    bare(version)
        .elicitation(|params, _cx| async move {
            let message = params.message().to_owned();
            let mut content = serde_json::Map::new();
            if message == "What is your name?" {
                content.insert("name".into(), json!("Ada"));
            } else if message.contains("important") {
                return Ok(ElicitResult::decline());
            } else {
                content.insert("sure".into(), json!(true));
            }
            Ok(ElicitResult::accept(content))
        })
        .sampling(|params, cx: InputContext| async move {
            let asked: String = params.messages[0]
                .content
                .as_slice()
                .iter()
                .filter_map(|c| c.as_text())
                .collect();
            let text = format!("{asked} ({})", cx.protocol_version());
            Ok(CreateMessageResult::text("test-model", text))
        })
        .roots(|_params, _cx| async move {
            Ok(ListRootsResult::new(vec![
                Root::new("file:///home/ada/project", "project"),
                Root::new("file:///home/ada/docs", "docs"),
            ]))
        })
}

/// Connects over `transport` to a fresh patterns server, runs `pattern`, and closes — the
/// client, the process, the HTTP server — checking that each ends by itself.
async fn run<F, Fut>(transport: Transport, options: ClientOptions, pattern: F)
where
    F: FnOnce(Client) -> Fut,
    Fut: Future<Output = ()>,
{
    let work = async {
        let mut running = None;
        let channel = match transport {
            Transport::InProcess => presa::in_process(definitions::patterns().unwrap()),
            Transport::Stdio => {
                // a server that does not exit by itself once its stdin closes hangs the test
                let options = presa::stdio::CommandOptions::default()
                    .close_timeout(Duration::from_secs(3600));
                presa::stdio::command([example("patterns")], options).unwrap()
            }
            Transport::Http => {
                let server = definitions::patterns().unwrap();
                let http = presa::http::serve(server, presa::http::HttpOptions::default())
                    .await
                    .unwrap();
                let channel =
                    presa::http::client(http.url(), presa::http::HttpClientOptions::default())
                        .unwrap();
                running = Some(http);
                channel
            }
        };
        let version = options.get_protocol_version();
        let client = Client::connect(channel, options).await.unwrap();
        assert_eq!(Some(client.protocol_version()), version);
        pattern(client.clone()).await;
        client.close().await;
        if let Some(running) = running {
            running.stop().await.unwrap();
        }
    };
    tokio::time::timeout(GUARD, work)
        .await
        .expect("the test hung");
}

// ----- the patterns -----

async fn elicitation(client: Client) {
    let deleted = client
        .call_tool("confirm_delete", json!({"path": "/tmp/old"}))
        .await
        .unwrap();
    assert_eq!(deleted.text(), "deleted /tmp/old");
    let kept = client
        .call_tool("confirm_delete", json!({"path": "/important"}))
        .await
        .unwrap();
    assert_eq!(kept.text(), "kept /important", "declined");
}

async fn sampling(client: Client) {
    let version = client.protocol_version();
    let result = client
        .call_tool("summarize", json!({"text": "a long story"}))
        .await
        .unwrap();
    assert_eq!(
        result.text(),
        format!("test-model says: Summarize: a long story ({version})")
    );
}

async fn roots(client: Client) {
    let result = client.call_tool("workspace", json!({})).await.unwrap();
    assert_eq!(result.text(), "project, docs");
}

async fn several_rounds(client: Client) {
    let version = client.protocol_version();
    let result = client.call_tool("onboard", json!({})).await.unwrap();
    let runs = if version == MODERN { 4 } else { 1 };
    assert_eq!(
        result.structured_content,
        Some(
            json!({"name": "Ada", "welcome": format!("Welcome Ada ({version})"), "roots": 2,
            "runs": runs})
        )
    );
}

async fn subscriptions(client: Client) {
    let mut changes = client
        .subscribe(
            SubscriptionOptions::new()
                .tools_list_changed(true)
                .resource(STATUS),
        )
        .await
        .unwrap();
    assert_eq!(changes.honoured().tools_list_changed, Some(true));
    assert_eq!(
        changes.honoured().resource_subscriptions,
        Some(vec![STATUS.to_owned()])
    );
    assert_eq!(changes.id().is_some(), client.protocol_version() == MODERN);

    let added = client
        .call_tool("add_tool", json!({"name": "late"}))
        .await
        .unwrap();
    assert_eq!(added.text(), "added late");
    assert_eq!(changes.next().await, Some(ChangeEvent::ToolsListChanged));
    let tools: Vec<String> = client
        .list_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name)
        .collect();
    assert!(tools.contains(&"late".to_owned()), "{tools:?}");

    client
        .call_tool("set_status", json!({"text": "busy"}))
        .await
        .unwrap();
    assert_eq!(
        changes.next().await,
        Some(ChangeEvent::ResourceUpdated {
            uri: STATUS.to_owned()
        })
    );
    assert_eq!(client.read_resource(STATUS).await.unwrap().text(), "busy");
    changes.close().await;

    // a second subscription after the first ended still works, and one left open ends with
    // the client
    let mut open = client
        .subscribe(SubscriptionOptions::new().resource(STATUS))
        .await
        .unwrap();
    client
        .call_tool("set_status", json!({"text": "done"}))
        .await
        .unwrap();
    assert_eq!(
        open.next().await,
        Some(ChangeEvent::ResourceUpdated {
            uri: STATUS.to_owned()
        })
    );
}

async fn progress_and_logs(client: Client) {
    let mut notifications = client.notifications();
    let steps = Arc::new(Mutex::new(Vec::new()));
    let seen = steps.clone();
    let result = client
        .call_tool("count", json!({"to": 3}))
        .log_level(LoggingLevel::Info)
        .on_progress(move |p| {
            seen.lock().unwrap().push((p.progress, p.total, p.message));
        })
        .await
        .unwrap();
    assert_eq!(result.text(), "counted to 3");
    let steps = steps.lock().unwrap().clone();
    assert_eq!(
        steps,
        [1.0, 2.0, 3.0].map(|n| (n, Some(3.0), Some(format!("step {n}"))))
    );
    // the log messages came before the result, so they are all here now
    let mut logged = Vec::new();
    while logged.len() < 3 {
        let n = notifications.recv().await.unwrap();
        if n.method == "notifications/message" {
            let params: Value = serde_json::from_str(n.params.unwrap().get()).unwrap();
            assert_eq!(params["level"], "info");
            logged.push(params["data"]["step"].clone());
        }
    }
    assert_eq!(logged, [json!(1), json!(2), json!(3)]);
}

/// One test per pattern, transport and era.
macro_rules! matrix {
    ($($pattern:ident),* $(,)?) => {$(
        mod $pattern {
            use super::*;

            #[tokio::test]
            async fn in_process_2026_07_28() {
                run(Transport::InProcess, answering(MODERN), super::$pattern).await;
            }

            #[tokio::test]
            async fn in_process_2025_11_25() {
                run(Transport::InProcess, answering(LEGACY), super::$pattern).await;
            }

            #[tokio::test]
            async fn stdio_2026_07_28() {
                run(Transport::Stdio, answering(MODERN), super::$pattern).await;
            }

            #[tokio::test]
            async fn stdio_2025_11_25() {
                run(Transport::Stdio, answering(LEGACY), super::$pattern).await;
            }

            #[tokio::test]
            async fn http_2026_07_28() {
                run(Transport::Http, answering(MODERN), super::$pattern).await;
            }

            #[tokio::test]
            async fn http_2025_11_25() {
                run(Transport::Http, answering(LEGACY), super::$pattern).await;
            }
        }
    )*};
}

matrix!(
    elicitation,
    sampling,
    roots,
    several_rounds,
    subscriptions,
    progress_and_logs,
);

// ----- limits and failures -----

/// Without a handler the client declares no capability, and the server refuses a tool that needs
/// it: `-32021` on 2026-07-28, `-32602` in the initialize era.
async fn undeclared(transport: Transport, version: ProtocolVersion) {
    run(transport, bare(version), |client| async move {
        let asked = client
            .call_tool("confirm_delete", json!({"path": "/tmp/old"}))
            .await;
        let error = asked.unwrap_err();
        let expected = if version == MODERN {
            ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY
        } else {
            ErrorCode::INVALID_PARAMS
        };
        assert_eq!(error.code(), Some(expected), "{error:?}");
        assert!(
            error
                .server_message()
                .unwrap()
                .contains("needs a client capability"),
            "{error:?}"
        );
    })
    .await;
}

#[tokio::test]
async fn an_undeclared_capability_is_refused_2026_07_28() {
    undeclared(Transport::InProcess, MODERN).await;
    undeclared(Transport::Stdio, MODERN).await;
    undeclared(Transport::Http, MODERN).await;
}

#[tokio::test]
async fn an_undeclared_capability_is_refused_2025_11_25() {
    undeclared(Transport::InProcess, LEGACY).await;
    undeclared(Transport::Stdio, LEGACY).await;
    undeclared(Transport::Http, LEGACY).await;
}

/// `max_input_rounds` bounds the retries of one 2026-07-28 call; initialize-era input is asked
/// by requests, not rounds, so the limit does not apply there.
async fn bounded(version: ProtocolVersion) {
    let options = answering(version).max_input_rounds(2);
    run(Transport::InProcess, options, |client| async move {
        let result = client.call_tool("onboard", json!({})).await;
        if version == MODERN {
            let Err(ClientError::InputRequired(asked)) = result else {
                panic!("{result:?}")
            };
            let requests = asked.input_requests.unwrap();
            assert_eq!(
                requests.keys().collect::<Vec<_>>(),
                ["roots"],
                "the third question"
            );
            assert!(asked.request_state.is_some());
        } else {
            assert_eq!(result.unwrap().structured_content.unwrap()["runs"], 1);
        }
    })
    .await;
}

#[tokio::test]
async fn input_rounds_are_bounded_2026_07_28() {
    bounded(MODERN).await;
}

#[tokio::test]
async fn input_rounds_are_bounded_2025_11_25() {
    bounded(LEGACY).await;
}

#[tokio::test]
async fn stopping_an_http_server_ends_its_subscriptions_gracefully() {
    let work = async {
        let server = definitions::patterns().unwrap();
        let running = presa::http::serve(server, presa::http::HttpOptions::default())
            .await
            .unwrap();
        let channel =
            presa::http::client(running.url(), presa::http::HttpClientOptions::default()).unwrap();
        let client = Client::connect(channel, answering(MODERN)).await.unwrap();
        let mut changes = client
            .subscribe(SubscriptionOptions::new().tools_list_changed(true))
            .await
            .unwrap();
        let stopping = tokio::spawn(running.stop());
        assert_eq!(changes.next().await, None);
        assert_eq!(changes.error(), None, "the listen result ended it");
        client.close().await;
        stopping.await.unwrap().unwrap();
    };
    tokio::time::timeout(GUARD, work)
        .await
        .expect("the test hung");
}

/// A subscription still open when the client closes ends, and so does the server's side of it
/// (the stdio server exits by itself: it is told to stop listening).
async fn closing_with_an_open_subscription(transport: Transport, version: ProtocolVersion) {
    let mut kept = None;
    run(transport, answering(version), |client| {
        let kept = &mut kept;
        async move {
            let open = client
                .subscribe(SubscriptionOptions::new().tools_list_changed(true))
                .await
                .unwrap();
            *kept = Some(open);
        }
    })
    .await;
    let mut open = kept.unwrap();
    assert_eq!(open.next().await, None);
    assert_eq!(open.error(), Some(&ClientError::Closed));
}

#[tokio::test]
async fn closing_the_client_ends_open_subscriptions_2026_07_28() {
    for transport in [Transport::InProcess, Transport::Stdio, Transport::Http] {
        closing_with_an_open_subscription(transport, MODERN).await;
    }
}

#[tokio::test]
async fn closing_the_client_ends_open_subscriptions_2025_11_25() {
    for transport in [Transport::InProcess, Transport::Stdio, Transport::Http] {
        closing_with_an_open_subscription(transport, LEGACY).await;
    }
}

/// A client that just closes the server's stdin with a listen open: the server ends the listen
/// gracefully (its result) and exits by itself.
#[tokio::test]
async fn a_stdio_server_ends_open_listens_when_its_input_ends() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

    let work = async {
        let mut child = tokio::process::Command::new(example("patterns"))
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let listen = request(
            "sub-a",
            "subscriptions/listen",
            json!({"notifications": {"toolsListChanged": true}}),
        );
        stdin
            .write_all(format!("{listen}\n").as_bytes())
            .await
            .unwrap();
        let ack: Value = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
        assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
        drop(stdin);
        let result: Value =
            serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
        assert_eq!(result["id"], "sub-a");
        assert_eq!(
            result["result"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
            "sub-a"
        );
        assert!(child.wait().await.unwrap().success());
    };
    tokio::time::timeout(GUARD, work)
        .await
        .expect("the test hung");
}
