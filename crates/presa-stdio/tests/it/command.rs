//! The stdio client against real processes (`sh`, `cat`, `sleep`): plumbing, crashes, bad
//! output, and every step of closing.

use std::time::Duration;

use presa_client::{ClientChannel, TransportError, TransportErrorKind, TransportEvent};
use presa_core::{Message, Notification, Request, Transmit};
use presa_stdio::{CommandOptions, Stderr, StdioError, command};
use presa_test::trace::{self, Capture, Captured};
use serde_json::{Value, json};
use tokio::sync::mpsc;

/// A hang guard: every wait in these tests ends well within it.
const LIMIT: Duration = Duration::from_secs(20);
/// Short enough to keep the closing tests fast.
const CLOSE: Duration = Duration::from_millis(200);

fn sh(script: &str, options: CommandOptions) -> ClientChannel {
    command(["sh", "-c", script], options).unwrap()
}

async fn next(channel: &mut ClientChannel) -> Option<TransportEvent> {
    tokio::time::timeout(LIMIT, channel.incoming.recv())
        .await
        .expect("an event in time")
}

async fn message(channel: &mut ClientChannel) -> Message {
    match next(channel).await {
        Some(TransportEvent::Message(message)) => message,
        other => panic!("expected a message, got {other:?}"),
    }
}

/// Waits for the end: the error of `Closed`, and no event after it.
async fn closed(channel: &mut ClientChannel) -> Option<TransportError> {
    let error = match next(channel).await {
        Some(TransportEvent::Closed(error)) => error,
        other => panic!("expected the end, got {other:?}"),
    };
    assert!(next(channel).await.is_none(), "nothing after Closed");
    error
}

fn request(id: i64) -> Message {
    Request::new(id, "tools/list", &json!({})).unwrap().into()
}

/// Stderr lines, as the callback sees them.
fn stderr_lines() -> (Stderr, mpsc::UnboundedReceiver<String>) {
    let (tx, rx) = mpsc::unbounded_channel();
    (
        Stderr::lines(move |line| drop(tx.send(line.to_owned()))),
        rx,
    )
}

/// The transport's diagnostics so far: its `tracing` events. The pipes are served by tasks on
/// the test's current-thread runtime, so `capture` sees them.
fn diagnostics(capture: &Capture) -> Vec<Captured> {
    capture.events("presa_stdio")
}

async fn pid(lines: &mut mpsc::UnboundedReceiver<String>) -> Vec<u32> {
    let line = tokio::time::timeout(LIMIT, lines.recv())
        .await
        .unwrap()
        .unwrap();
    line.split_whitespace()
        .map(|pid| pid.parse().unwrap())
        .collect()
}

/// Whether a process exists at all (a zombie counts).
fn exists(pid: u32) -> bool {
    std::path::Path::new(&format!("/proc/{pid}")).exists()
}

/// Whether a process is running (exists and is not a zombie waiting for its parent).
fn running(pid: u32) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    let state = stat
        .rsplit(')')
        .next()
        .unwrap_or_default()
        .split_whitespace()
        .next();
    state != Some("Z")
}

#[tokio::test]
async fn a_crashing_server_fails_with_its_status_and_last_stderr() {
    let (stderr, mut lines) = stderr_lines();
    let mut channel = sh(
        "read line; echo oops >&2; exit 3",
        CommandOptions::default().stderr(stderr),
    );
    channel
        .outgoing
        .send(Transmit::new(request(1), None))
        .await
        .unwrap();
    let error = closed(&mut channel).await.expect("an error");
    assert_eq!(error.kind(), TransportErrorKind::Closed);
    assert_eq!(
        error.message(),
        "server exited with status 3; last stderr: oops"
    );
    assert_eq!(lines.recv().await.as_deref(), Some("oops"));
    // the transport is gone in both directions
    tokio::time::timeout(LIMIT, channel.outgoing.closed())
        .await
        .unwrap();
}

#[tokio::test]
async fn cat_echoes_and_closing_is_clean() {
    let mut channel = sh("cat", CommandOptions::default());
    let sent = [
        request(1),
        Notification::without_params("notifications/initialized").into(),
        request(2),
    ];
    for message in &sent {
        channel
            .outgoing
            .send(Transmit::new(message.clone(), None))
            .await
            .unwrap();
    }
    for expected in sent {
        assert_eq!(message(&mut channel).await, expected);
    }
    let ClientChannel {
        outgoing,
        mut incoming,
        ..
    } = channel;
    drop(outgoing);
    let end = tokio::time::timeout(LIMIT, incoming.recv()).await.unwrap();
    assert!(matches!(end, Some(TransportEvent::Closed(None))), "{end:?}");
}

#[tokio::test]
async fn a_burst_goes_through_in_order() {
    let mut channel = sh("cat", CommandOptions::default());
    let outgoing = channel.outgoing.clone();
    let sending = tokio::spawn(async move {
        for id in 0..500 {
            outgoing
                .send(Transmit::new(request(id), None))
                .await
                .unwrap();
        }
    });
    for id in 0..500 {
        assert_eq!(message(&mut channel).await, request(id));
    }
    sending.await.unwrap();
}

#[tokio::test]
async fn what_the_server_wrote_before_exiting_arrives_before_the_end() {
    let mut channel = sh(
        r#"read line; echo '{"jsonrpc":"2.0","id":1,"result":{}}'; exit 2"#,
        CommandOptions::default(),
    );
    channel
        .outgoing
        .send(Transmit::new(request(1), None))
        .await
        .unwrap();
    let response = message(&mut channel).await;
    assert_eq!(response.id().map(ToString::to_string).as_deref(), Some("1"));
    let error = closed(&mut channel).await.expect("an error");
    assert_eq!(error.message(), "server exited with status 2");
}

#[tokio::test]
async fn lines_that_are_not_messages_are_skipped() {
    let script = r#"
        echo 'starting up...'
        echo
        head -c 5000 /dev/zero | tr '\0' a; echo
        printf '%s\r\n' '{"jsonrpc":"2.0","method":"crlf"}'
        echo '[{"jsonrpc":"2.0","method":"b1"},{"jsonrpc":"2.0","method":"b2"},7]'
        exec cat"#;
    let capture = trace::capture();
    let mut channel = sh(script, CommandOptions::default().max_line_bytes(1000));
    for method in ["crlf", "b1", "b2"] {
        assert_eq!(message(&mut channel).await.method(), Some(method));
    }
    channel
        .outgoing
        .send(Transmit::new(request(1), None))
        .await
        .unwrap();
    assert_eq!(message(&mut channel).await, request(1));
    let logged = diagnostics(&capture);
    assert_eq!(logged.len(), 3, "{logged:#?}");
    assert!(
        logged.iter().all(|e| e.level == tracing::Level::WARN),
        "{logged:#?}"
    );
    assert_eq!(
        logged[0].message,
        "skipping a line from the server that is not a message"
    );
    assert_eq!(
        logged[0].field("line"),
        Some("starting up..."),
        "{logged:#?}"
    );
    assert!(logged[0].field("error").is_some(), "{logged:#?}");
    assert_eq!(
        logged[1].message,
        "skipping a line from the server longer than the limit"
    );
    assert_eq!(logged[1].field("max"), Some("1000"));
    assert_eq!(logged[2].message, "skipping a batch member from the server");
    assert!(logged[2].field("error").is_some(), "{logged:#?}");
}

#[tokio::test]
async fn env_and_dir_reach_the_server() {
    let dir = std::env::temp_dir().canonicalize().unwrap();
    let options = CommandOptions::default()
        .env("PRESA_STDIO_TEST", "hello")
        .dir(&dir);
    let script = r#"printf '{"jsonrpc":"2.0","method":"%s","params":{"dir":"%s"}}\n' "$PRESA_STDIO_TEST" "$(pwd -P)""#;
    let mut channel = sh(script, options);
    let Message::Notification(notification) = message(&mut channel).await else {
        panic!("a notification")
    };
    assert_eq!(notification.method, "hello");
    let params: Value = serde_json::from_str(notification.params.unwrap().get()).unwrap();
    assert_eq!(params["dir"], dir.to_str().unwrap());
    // it exited on its own: that is an error for the client
    assert_eq!(
        closed(&mut channel).await.unwrap().message(),
        "server exited with status 0"
    );
}

#[tokio::test]
async fn a_server_that_ignores_eof_gets_sigterm() {
    let (stderr, mut lines) = stderr_lines();
    let capture = trace::capture();
    let channel = sh(
        "echo $$ >&2; exec sleep 30",
        CommandOptions::default()
            .stderr(stderr)
            .close_timeout(CLOSE),
    );
    let server = pid(&mut lines).await[0];
    let ClientChannel {
        outgoing,
        mut incoming,
        ..
    } = channel;
    drop(outgoing);
    let end = tokio::time::timeout(LIMIT, incoming.recv()).await.unwrap();
    assert!(matches!(end, Some(TransportEvent::Closed(None))), "{end:?}");
    assert!(!exists(server), "the server was reaped");
    let logged = diagnostics(&capture);
    assert_eq!(logged.len(), 1, "{logged:#?}");
    // the spec's next step after closing stdin: routine, so not a warning
    assert_eq!(logged[0].level, tracing::Level::INFO);
    assert_eq!(
        logged[0].message,
        "the server did not exit in time after its stdin was closed; sending SIGTERM"
    );
    assert_eq!(logged[0].field("timeout"), Some("200ms"));
    assert!(incoming.recv().await.is_none());
}

#[tokio::test]
async fn a_server_that_ignores_sigterm_is_killed_with_its_children() {
    let (stderr, mut lines) = stderr_lines();
    let capture = trace::capture();
    let script = r#"trap '' TERM; sleep 30 & echo $$ $! >&2; wait"#;
    let channel = sh(
        script,
        CommandOptions::default()
            .stderr(stderr)
            .close_timeout(CLOSE),
    );
    let pids = pid(&mut lines).await;
    let (server, grandchild) = (pids[0], pids[1]);
    let ClientChannel {
        outgoing,
        mut incoming,
        ..
    } = channel;
    drop(outgoing);
    let end = tokio::time::timeout(LIMIT, incoming.recv()).await.unwrap();
    assert!(matches!(end, Some(TransportEvent::Closed(None))), "{end:?}");
    assert!(!exists(server), "the server was killed and reaped");
    // the grandchild got SIGKILL with the group; its new parent may not have reaped it yet
    let killed = tokio::time::timeout(LIMIT, async {
        while running(grandchild) {
            tokio::task::yield_now().await;
        }
    });
    killed.await.expect("the grandchild is gone");
    let logged = diagnostics(&capture);
    assert_eq!(logged.len(), 2, "{logged:#?}");
    assert_eq!(logged[1].level, tracing::Level::WARN);
    assert_eq!(
        logged[1].message,
        "the server did not exit in time after SIGTERM; sending SIGKILL"
    );
}

#[tokio::test]
async fn a_closing_client_is_not_held_up_by_a_server_that_does_not_read() {
    let (stderr, mut lines) = stderr_lines();
    let channel = sh(
        "echo $$ >&2; exec sleep 30",
        CommandOptions::default()
            .stderr(stderr)
            .close_timeout(CLOSE),
    );
    let server = pid(&mut lines).await[0];
    // far more than a pipe holds: the writer gets stuck
    let big = Request::new(1, "tools/call", &json!({"name": "x".repeat(4096)})).unwrap();
    let mut queued = 0;
    while channel
        .outgoing
        .try_send(Transmit::new(big.clone(), None))
        .is_ok()
    {
        queued += 1;
    }
    assert!(queued >= 32, "{queued}");
    let ClientChannel {
        outgoing,
        mut incoming,
        ..
    } = channel;
    drop(outgoing);
    let end = tokio::time::timeout(LIMIT, incoming.recv()).await.unwrap();
    assert!(matches!(end, Some(TransportEvent::Closed(None))), "{end:?}");
    assert!(!exists(server));
}

#[tokio::test]
async fn a_server_that_closes_its_stdout_is_stopped() {
    let (stderr, mut lines) = stderr_lines();
    let mut channel = sh(
        "exec >&-; echo $$ >&2; sleep 30",
        CommandOptions::default()
            .stderr(stderr)
            .close_timeout(CLOSE),
    );
    let server = pid(&mut lines).await[0];
    let error = closed(&mut channel).await.expect("an error");
    assert_eq!(error.kind(), TransportErrorKind::Closed);
    assert_eq!(
        error.message(),
        format!("server closed its stdout; it was terminated; last stderr: {server}")
    );
    assert!(!exists(server));
}

#[tokio::test]
async fn a_child_holding_stdout_does_not_keep_the_end_waiting() {
    let (stderr, mut lines) = stderr_lines();
    let mut channel = sh(
        "sleep 30 & echo $! >&2; exit 1",
        CommandOptions::default().stderr(stderr),
    );
    let sleeper = pid(&mut lines).await[0];
    let error = closed(&mut channel).await.expect("an error");
    assert_eq!(
        error.message(),
        format!("server exited with status 1; last stderr: {sleeper}")
    );
    std::process::Command::new("kill")
        .arg(sleeper.to_string())
        .status()
        .unwrap();
}

#[tokio::test]
async fn a_missing_program_fails_to_start() {
    let error = command(["/nonexistent/presa-stdio-test"], CommandOptions::default()).unwrap_err();
    let StdioError::Spawn { program, source } = &error else {
        panic!("{error:?}")
    };
    assert_eq!(program, "/nonexistent/presa-stdio-test");
    assert_eq!(source.kind(), std::io::ErrorKind::NotFound);
    assert_eq!(
        error.to_string(),
        "failed to start `/nonexistent/presa-stdio-test`"
    );
}

#[tokio::test]
async fn an_empty_command_is_refused() {
    let error = command(Vec::<String>::new(), CommandOptions::default()).unwrap_err();
    assert!(matches!(error, StdioError::EmptyCommand), "{error:?}");
}

#[test]
fn a_command_needs_a_runtime() {
    let error = command(["cat"], CommandOptions::default()).unwrap_err();
    assert!(matches!(error, StdioError::NoRuntime), "{error:?}");
}

#[tokio::test]
async fn the_channel_names_its_network_for_the_client_spans() {
    let channel = sh("cat", CommandOptions::default().close_timeout(CLOSE));
    assert_eq!(channel.network.transport, Some("pipe"));
    assert_eq!(channel.network.protocol, None);
}
