//! The stdio server over in-memory pipes: framing, bad lines, both eras, and shutdown.

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context as TaskContext, Poll};
use std::time::Duration;

use presa_core::Tool;
use presa_server::{Context, Server};
use presa_stdio::{ServeOptions, StdioError, serve};
use presa_test::message::request_text;
use presa_test::trace;
use serde_json::{Value, json};
use tokio::io::{
    AsyncBufReadExt, AsyncRead, AsyncWriteExt, BufReader, DuplexStream, Lines, ReadBuf, duplex,
};
use tokio::sync::Notify;
use tokio::task::JoinHandle;

/// A hang guard: every wait in these tests ends well within it.
const LIMIT: Duration = Duration::from_secs(20);

fn modern_call(id: u32, tool: &str) -> String {
    request_text(id, "tools/call", json!({"name": tool, "arguments": {}}))
}

fn server() -> Server {
    Server::builder("stdio-test", "1.0.0")
        .tool_sync(Tool::without_params("ping"), |_: Value, _: Context| "pong")
        .build()
        .unwrap()
}

/// A server on a pair of in-memory pipes.
struct Pipes {
    input: Option<DuplexStream>,
    output: Lines<BufReader<DuplexStream>>,
    serving: JoinHandle<Result<(), StdioError>>,
}

impl Pipes {
    fn start(server: Server, options: ServeOptions) -> Self {
        let (input, server_in) = duplex(64 * 1024);
        let (server_out, output) = duplex(64 * 1024);
        let serving = tokio::spawn(serve(server, options.input(server_in).output(server_out)));
        Self {
            input: Some(input),
            output: BufReader::new(output).lines(),
            serving,
        }
    }

    async fn write(&mut self, bytes: &[u8]) {
        self.input
            .as_mut()
            .expect("input open")
            .write_all(bytes)
            .await
            .unwrap();
    }

    async fn send(&mut self, line: &str) {
        self.write(format!("{line}\n").as_bytes()).await;
    }

    async fn recv(&mut self) -> Value {
        let line = tokio::time::timeout(LIMIT, self.output.next_line())
            .await
            .expect("a line in time");
        let line = line.unwrap().expect("a line before the end");
        assert!(!line.contains('\r'));
        serde_json::from_str(&line).unwrap()
    }

    fn close_input(&mut self) {
        self.input = None;
    }

    /// Closes the input; what is left of the output, and what `serve` returned.
    async fn finish(mut self) -> (Vec<Value>, Result<(), StdioError>) {
        self.close_input();
        let mut rest = Vec::new();
        while let Some(line) = tokio::time::timeout(LIMIT, self.output.next_line())
            .await
            .unwrap()
            .unwrap()
        {
            rest.push(serde_json::from_str(&line).unwrap());
        }
        let served = tokio::time::timeout(LIMIT, self.serving)
            .await
            .unwrap()
            .unwrap();
        (rest, served)
    }
}

fn text(response: &Value) -> &str {
    response["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
}

#[tokio::test]
async fn a_2026_request_with_meta_round_trips() {
    let mut pipes = Pipes::start(server(), ServeOptions::default());
    pipes.send(&modern_call(1, "ping")).await;
    let response = pipes.recv().await;
    assert_eq!(response["id"], 1);
    assert_eq!(text(&response), "pong");
    assert_eq!(response["result"]["resultType"], "complete");
    let (rest, served) = pipes.finish().await;
    assert_eq!(rest, Vec::<Value>::new());
    served.unwrap();
}

#[tokio::test]
async fn the_initialize_era_handshake_and_a_call() {
    let mut pipes = Pipes::start(server(), ServeOptions::default());
    pipes
        .send(r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#)
        .await;
    let initialized = pipes.recv().await;
    assert_eq!(initialized["id"], 0);
    assert_eq!(initialized["result"]["protocolVersion"], "2025-11-25");
    assert_eq!(initialized["result"]["serverInfo"]["name"], "stdio-test");
    pipes
        .send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
        .await;
    pipes.send(r#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"ping","arguments":{}}}"#).await;
    let response = pipes.recv().await;
    assert_eq!(response["id"], "a");
    assert_eq!(text(&response), "pong");
    let (rest, served) = pipes.finish().await;
    assert!(rest.is_empty());
    served.unwrap();
}

#[tokio::test]
async fn invalid_json_is_a_parse_error_and_the_session_goes_on() {
    let mut pipes = Pipes::start(server(), ServeOptions::default());
    pipes.send("{not json").await;
    let error = pipes.recv().await;
    assert_eq!(error["error"]["code"], -32700);
    assert_eq!(error.get("id"), None);
    pipes.send(&modern_call(2, "ping")).await;
    assert_eq!(text(&pipes.recv().await), "pong");
    pipes.finish().await.1.unwrap();
}

#[tokio::test]
async fn an_invalid_message_is_an_invalid_request() {
    let mut pipes = Pipes::start(server(), ServeOptions::default());
    pipes
        .send(r#"{"jsonrpc":"1.0","id":"x","method":"ping"}"#)
        .await;
    let error = pipes.recv().await;
    assert_eq!(error["error"]["code"], -32600);
    assert_eq!(error["id"], "x");
    pipes.send("42").await;
    assert_eq!(pipes.recv().await["error"]["code"], -32600);
    pipes.send(&modern_call(3, "ping")).await;
    assert_eq!(text(&pipes.recv().await), "pong");
    pipes.finish().await.1.unwrap();
}

#[tokio::test]
async fn an_over_long_line_is_answered_before_it_ends_and_skipped() {
    // serve runs on a task of the test's current-thread runtime, so this sees its events
    let capture = trace::capture();
    let mut pipes = Pipes::start(server(), ServeOptions::default().max_line_bytes(64));
    // 1 MB in 16 KiB pieces; the answer comes while the line is still being written, so the
    // server cannot be holding it whole
    let piece = vec![b'x'; 16 * 1024];
    for _ in 0..8 {
        pipes.write(&piece).await;
    }
    let error = pipes.recv().await;
    assert_eq!(error["error"]["code"], -32600);
    assert_eq!(error.get("id"), None);
    for _ in 8..64 {
        pipes.write(&piece).await;
    }
    pipes.write(b"\n").await;
    // the session goes on
    pipes
        .send(r#"{"jsonrpc":"2.0","id":4,"method":"ping"}"#)
        .await;
    let pong = pipes.recv().await;
    assert_eq!(pong["id"], 4);
    assert!(pong.get("error").is_none(), "{pong}");
    let (rest, served) = pipes.finish().await;
    assert!(rest.is_empty(), "{rest:?}");
    served.unwrap();
    let logged = capture.events("presa_stdio");
    assert_eq!(logged.len(), 1, "{logged:#?}");
    assert_eq!(logged[0].level, tracing::Level::WARN);
    assert_eq!(
        logged[0].message,
        "skipping an input line longer than the limit"
    );
    assert_eq!(logged[0].field("max"), Some("64"));
}

#[tokio::test]
async fn crlf_and_empty_lines() {
    let mut pipes = Pipes::start(server(), ServeOptions::default());
    pipes.write(b"\n\r\n   \n\t\r\n").await;
    pipes
        .write(format!("{}\r\n", modern_call(5, "ping")).as_bytes())
        .await;
    let response = pipes.recv().await;
    assert_eq!(response["id"], 5);
    assert_eq!(text(&response), "pong");
    let (rest, served) = pipes.finish().await;
    assert!(rest.is_empty(), "empty lines are not answered: {rest:?}");
    served.unwrap();
}

#[tokio::test]
async fn a_last_line_without_a_newline_is_read() {
    let mut pipes = Pipes::start(server(), ServeOptions::default());
    pipes.write(modern_call(6, "ping").as_bytes()).await;
    let (rest, served) = pipes.finish().await;
    assert_eq!(rest.len(), 1);
    assert_eq!(text(&rest[0]), "pong");
    served.unwrap();
}

#[tokio::test]
async fn requests_in_flight_are_answered_after_the_input_closes() {
    let (started, release) = (Arc::new(Notify::new()), Arc::new(Notify::new()));
    let (s, r) = (Arc::clone(&started), Arc::clone(&release));
    let server = Server::builder("slow", "1.0.0")
        .tool(Tool::without_params("slow"), move |_: Value, _: Context| {
            let (started, release) = (Arc::clone(&s), Arc::clone(&r));
            async move {
                started.notify_one();
                release.notified().await;
                "finally"
            }
        })
        .build()
        .unwrap();
    let mut pipes = Pipes::start(server, ServeOptions::default());
    pipes.send(&modern_call(7, "slow")).await;
    tokio::time::timeout(LIMIT, started.notified())
        .await
        .unwrap();
    pipes.close_input();
    tokio::task::yield_now().await;
    assert!(
        !pipes.serving.is_finished(),
        "serve waits for the request in flight"
    );
    release.notify_one();
    let (rest, served) = pipes.finish().await;
    assert_eq!(rest.len(), 1);
    assert_eq!(rest[0]["id"], 7);
    assert_eq!(text(&rest[0]), "finally");
    served.unwrap();
}

#[tokio::test]
async fn a_burst_of_requests_is_answered_in_full() {
    let mut pipes = Pipes::start(server(), ServeOptions::default());
    let burst: String = (0..300)
        .map(|id| format!("{}\n", modern_call(id, "ping")))
        .collect();
    let writing = {
        let mut input = pipes.input.take().unwrap();
        tokio::spawn(async move {
            input.write_all(burst.as_bytes()).await.unwrap();
        })
    };
    let mut ids = Vec::new();
    for _ in 0..300 {
        let response = pipes.recv().await;
        assert_eq!(text(&response), "pong");
        ids.push(response["id"].as_u64().unwrap());
    }
    ids.sort_unstable();
    assert_eq!(ids, (0..300).collect::<Vec<_>>());
    writing.await.unwrap();
    let (rest, served) = pipes.finish().await;
    assert!(rest.is_empty());
    served.unwrap();
}

#[tokio::test]
async fn a_closed_output_is_a_write_error() {
    let (mut input, server_in) = duplex(1024);
    let (server_out, output) = duplex(1024);
    drop(output);
    let serving = tokio::spawn(serve(
        server(),
        ServeOptions::default().input(server_in).output(server_out),
    ));
    input
        .write_all(format!("{}\n", modern_call(8, "ping")).as_bytes())
        .await
        .unwrap();
    drop(input);
    let served = tokio::time::timeout(LIMIT, serving).await.unwrap().unwrap();
    match served {
        Err(StdioError::Write(error)) => assert_eq!(error.kind(), io::ErrorKind::BrokenPipe),
        other => panic!("expected a write error, got {other:?}"),
    }
}

/// Input that yields some bytes, then fails.
struct FailingInput(Vec<u8>);

impl AsyncRead for FailingInput {
    fn poll_read(
        mut self: Pin<&mut Self>,
        _: &mut TaskContext<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        if self.0.is_empty() {
            return Poll::Ready(Err(io::Error::other("disk on fire")));
        }
        let n = self.0.len().min(buf.remaining());
        buf.put_slice(&self.0[..n]);
        self.0.drain(..n);
        Poll::Ready(Ok(()))
    }
}

#[tokio::test]
async fn a_read_error_ends_the_input_after_answering_what_came_before() {
    let (server_out, output) = duplex(64 * 1024);
    let input = FailingInput(format!("{}\n", modern_call(9, "ping")).into_bytes());
    let served = serve(
        server(),
        ServeOptions::default().input(input).output(server_out),
    )
    .await;
    match served {
        Err(StdioError::Read(error)) => assert_eq!(error.to_string(), "disk on fire"),
        other => panic!("expected a read error, got {other:?}"),
    }
    let mut lines = BufReader::new(output).lines();
    let line = lines.next_line().await.unwrap().unwrap();
    let response: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(response["id"], 9);
    assert_eq!(lines.next_line().await.unwrap(), None);
}

#[tokio::test]
async fn the_options_print_without_their_streams() {
    let options = ServeOptions::default().input(tokio::io::empty());
    let printed = format!("{options:?}");
    assert!(printed.contains("max_line_bytes: 2000000"), "{printed}");
    assert!(printed.contains("\"custom\""), "{printed}");
}

#[tokio::test]
async fn dropping_serve_stops_the_server() {
    let (mut input, server_in) = duplex(64 * 1024);
    let (server_out, output) = duplex(64 * 1024);
    let mut output = BufReader::new(output).lines();
    let mut serving = Box::pin(serve(
        server(),
        ServeOptions::default().input(server_in).output(server_out),
    ));
    input
        .write_all(format!("{}\n", modern_call(1, "ping")).as_bytes())
        .await
        .unwrap();
    // serve while waiting for the answer, then drop `serve` with the input still open
    let line = tokio::select! {
        line = output.next_line() => line.unwrap().expect("an answer"),
        _ = &mut serving => panic!("serve ended with its input open"),
    };
    let answer: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(text(&answer), "pong");
    drop(serving);
    // the server's task ended: its end of the output is closed
    let after = tokio::time::timeout(LIMIT, output.next_line())
        .await
        .expect("the output closes in time");
    assert!(matches!(after, Ok(None)), "{after:?}");
}
