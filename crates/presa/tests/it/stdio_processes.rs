//! stdio with real processes: progress and log messages, cancellation, bad input, and a server
//! that dies mid-call.

use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use presa::client::{Client, ClientError, ClientOptions};
use presa::core::{Implementation, LoggingLevel, ProtocolVersion};
use presa::stdio::{CommandOptions, Stderr, command};
use presa_test::message::request_text;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

use crate::harness::{example, guarded};

fn options(version: ProtocolVersion) -> ClientOptions {
    ClientOptions::new(Implementation::new("stdio-test", "1.0.0")).protocol_version(Some(version))
}

/// The countdown server, with its stderr lines sent to the returned channel.
async fn countdown(version: ProtocolVersion) -> (Client, mpsc::UnboundedReceiver<String>) {
    let (lines_tx, lines) = mpsc::unbounded_channel();
    let stderr = Stderr::lines(move |line| {
        let _ = lines_tx.send(line.to_owned());
    });
    let channel = command(
        [example("countdown")],
        CommandOptions::default().stderr(stderr),
    )
    .unwrap();
    (
        Client::connect(channel, options(version)).await.unwrap(),
        lines,
    )
}

async fn progress_and_logs(version: ProtocolVersion) {
    let (client, _) = countdown(version).await;
    let mut notifications = client.notifications();
    if version.era() == presa::core::Era::Initialize {
        client
            .request_raw("logging/setLevel", json!({"level": "info"}))
            .await
            .unwrap();
    }
    let seen = Arc::new(Mutex::new(Vec::new()));
    let progress = Arc::clone(&seen);
    let result = client
        .call_tool("countdown", json!({"seconds": 3}))
        .log_level(LoggingLevel::Info)
        .on_progress(move |p| {
            progress
                .lock()
                .unwrap()
                .push((p.progress, p.total, p.message))
        })
        .await
        .unwrap();
    assert_eq!(result.content[0].as_text(), Some("liftoff"));
    let seen = seen.lock().unwrap().clone();
    assert_eq!(
        seen,
        [
            (0.0, Some(3.0), Some("3 to go".to_owned())),
            (1.0, Some(3.0), Some("2 to go".to_owned())),
            (2.0, Some(3.0), Some("1 to go".to_owned()))
        ]
    );
    let mut logs = Vec::new();
    while logs.len() < 3 {
        let n = notifications.recv().await.unwrap();
        if n.method == "notifications/message" {
            let params: Value = serde_json::from_str(n.params.unwrap().get()).unwrap();
            logs.push(params["data"]["left"].as_u64().unwrap());
        }
    }
    assert_eq!(logs, [3, 2, 1]);
    client.close().await;
}

#[tokio::test]
async fn progress_and_logs_arrive_2026_07_28() {
    guarded(progress_and_logs(ProtocolVersion::V2026_07_28)).await;
}

#[tokio::test]
async fn progress_and_logs_arrive_2025_11_25() {
    guarded(progress_and_logs(ProtocolVersion::V2025_11_25)).await;
}

async fn cancellation(version: ProtocolVersion) {
    let (client, mut stderr) = countdown(version).await;
    let (started_tx, mut started) = mpsc::unbounded_channel();
    let call = client
        .call_tool("countdown", json!({"seconds": 600}))
        .on_progress(move |_| {
            let _ = started_tx.send(());
        })
        .into_future();
    let call = tokio::spawn(call);
    started.recv().await.unwrap();
    call.abort(); // dropping the call cancels the request
    loop {
        let line = stderr
            .recv()
            .await
            .expect("the server says the countdown stopped");
        if line == "countdown stopped before liftoff" {
            break;
        }
    }
    // the server goes on serving
    let quick = client
        .call_tool("countdown", json!({"seconds": 0}))
        .await
        .unwrap();
    assert_eq!(quick.content[0].as_text(), Some("liftoff"));
    client.close().await;
}

#[tokio::test]
async fn cancellation_stops_a_slow_tool_2026_07_28() {
    guarded(cancellation(ProtocolVersion::V2026_07_28)).await;
}

#[tokio::test]
async fn cancellation_stops_a_slow_tool_2025_11_25() {
    guarded(cancellation(ProtocolVersion::V2025_11_25)).await;
}

#[tokio::test]
async fn a_server_killed_mid_call_fails_the_call_promptly() {
    let (lines_tx, mut lines) = mpsc::unbounded_channel();
    let stderr = Stderr::lines(move |line| {
        let _ = lines_tx.send(line.to_owned());
    });
    let script = format!("echo pid $$ >&2; exec {}", example("countdown").display());
    let channel = command(
        ["sh", "-c", &script],
        CommandOptions::default().stderr(stderr),
    )
    .unwrap();
    let client = Client::connect(channel, options(ProtocolVersion::V2026_07_28))
        .await
        .unwrap();
    let pid = loop {
        let line = lines.recv().await.unwrap();
        if let Some(pid) = line.strip_prefix("pid ") {
            break pid.to_owned();
        }
    };
    let (started_tx, mut started) = mpsc::unbounded_channel();
    let call = tokio::spawn(
        client
            .call_tool("countdown", json!({"seconds": 600}))
            .on_progress(move |_| {
                let _ = started_tx.send(());
            })
            .into_future(),
    );
    started.recv().await.unwrap();
    let killed = std::process::Command::new("kill")
        .args(["-9", &pid])
        .status()
        .unwrap();
    assert!(killed.success());
    let error = tokio::time::timeout(Duration::from_secs(30), call)
        .await
        .expect("the call fails, not hangs")
        .unwrap()
        .unwrap_err();
    let ClientError::Transport(error) = error else {
        panic!("{error:?}")
    };
    assert!(error.message().contains("signal 9"), "{error}");
}

/// The library example driven by hand over its pipes.
struct Raw {
    child: tokio::process::Child,
    stdin: tokio::process::ChildStdin,
    stdout: tokio::io::Lines<BufReader<tokio::process::ChildStdout>>,
}

impl Raw {
    fn start() -> Self {
        let mut child = tokio::process::Command::new(example("library"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap()).lines();
        Self {
            child,
            stdin,
            stdout,
        }
    }

    async fn send(&mut self, bytes: &[u8]) {
        self.stdin.write_all(bytes).await.unwrap();
        self.stdin.flush().await.unwrap();
    }

    async fn answer(&mut self) -> Value {
        serde_json::from_str(&self.stdout.next_line().await.unwrap().unwrap()).unwrap()
    }
}

#[tokio::test]
async fn bad_input_is_answered_and_the_session_goes_on() {
    let mut raw = Raw::start();
    // an over-long line (the default limit is 2,000,000 bytes)
    let mut long = br#"{"jsonrpc":"2.0","id":1,"method":"x","params":{"pad":""#.to_vec();
    long.extend(std::iter::repeat_n(b'a', 2_100_000));
    long.extend(b"\"}}\n");
    raw.send(&long).await;
    let answer = raw.answer().await;
    assert_eq!(answer["error"]["code"], -32600, "{answer}");
    // invalid JSON
    raw.send(b"{this is not json\n").await;
    assert_eq!(raw.answer().await["error"]["code"], -32700);
    // not a message
    raw.send(b"[1,2]\n").await;
    assert_eq!(raw.answer().await["error"]["code"], -32600);
    // the session goes on
    let list = request_text(7, "tools/list", json!({}));
    raw.send(format!("{list}\n").as_bytes()).await;
    let answer = raw.answer().await;
    assert_eq!(
        (
            answer["id"].clone(),
            answer["result"]["tools"][0]["name"].clone()
        ),
        (json!(7), json!("add"))
    );
    // a truncated stream: half a message, then end of input
    raw.send(&list.as_bytes()[..40]).await;
    drop(raw.stdin);
    assert_eq!(
        serde_json::from_str::<Value>(&raw.stdout.next_line().await.unwrap().unwrap()).unwrap()["error"]
            ["code"],
        -32700
    );
    assert!(
        raw.stdout.next_line().await.unwrap().is_none(),
        "stdout ends"
    );
    assert!(
        raw.child.wait().await.unwrap().success(),
        "the server exits cleanly when input ends"
    );
}
