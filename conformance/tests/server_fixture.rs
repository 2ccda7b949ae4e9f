//! The server fixture's contract with `cargo xtask conformance`: it prints its URL as the first
//! line on stdout, serves there, and stops when its stdin closes (with `--exit-on-stdin-eof`).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use presa_test::message::request_text;
use serde_json::{Value, json};

/// POSTs a 2026-07-28 request without params to `url` and returns the JSON-RPC result.
fn post(url: &str, method: &str) -> Value {
    let authority = url
        .strip_prefix("http://")
        .and_then(|rest| rest.strip_suffix("/mcp"))
        .expect("an http URL ending in /mcp");
    let body = request_text(1, method, json!({}));
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {authority}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: {method}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let mut stream = TcpStream::connect(authority).unwrap();
    stream.write_all(request.as_bytes()).unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    assert!(response.starts_with("HTTP/1.1 200"), "{response}");
    let (_, body) = response.split_once("\r\n\r\n").expect(&response);
    let message: Value = serde_json::from_str(body).expect(body);
    message["result"].clone()
}

/// The names (or URIs) of a list result's items, in order.
fn names(result: &Value, list: &str, key: &str) -> Vec<String> {
    let items = result[list].as_array().expect(list);
    items
        .iter()
        .map(|item| item[key].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn prints_its_url_serves_there_and_stops_when_stdin_closes() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_presa-conformance-server"))
        .args(["--port", "0", "--exit-on-stdin-eof"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let url = line
        .trim()
        .strip_prefix("listening ")
        .expect(&line)
        .to_owned();
    assert!(url.starts_with("http://127.0.0.1:"), "{url}");

    // the runner calls the first tool with `{}` and reads the first resource
    let tools = names(&post(&url, "tools/list"), "tools", "name");
    assert_eq!(tools[0], "test_simple_text");
    let resources = names(&post(&url, "resources/list"), "resources", "uri");
    assert_eq!(resources[0], "test://static-text");

    drop(child.stdin.take());
    let deadline = Instant::now() + Duration::from_secs(10);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(
            Instant::now() < deadline,
            "still running after stdin closed"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success(), "{status}");
}
