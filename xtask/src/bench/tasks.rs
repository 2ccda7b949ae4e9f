//! The `tasks` row: short tasks over Streamable HTTP 2026-07-28, each created (`tools/call`
//! declaring the tasks extension), polled with `tasks/get` until it completed, and its result
//! read from the last poll; then the memory once every task expired.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use serde_json::Value;
use tokio::net::TcpStream;

use super::http::{exchange_body, post};

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}"#;

fn create(address: &str, path: &str) -> Vec<u8> {
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"work",{META}}}}}"#
    );
    let headers =
        "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: work\r\n";
    post(address, path, headers, &body)
}

fn get(address: &str, path: &str, task: &str) -> Vec<u8> {
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{{"taskId":"{task}",{META}}}}}"#
    );
    let headers = format!(
        "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tasks/get\r\nMcp-Name: {task}\r\n"
    );
    post(address, path, &headers, &body)
}

/// One connection's share: takes tasks off `left` until none is left; returns the latencies
/// (µs) from creation to the completed result, and how many requests it sent.
pub(super) async fn connection(
    address: String,
    path: String,
    left: Arc<AtomicUsize>,
) -> Result<(Vec<u32>, usize), String> {
    let mut stream = TcpStream::connect(&address)
        .await
        .map_err(|e| format!("connect {address}: {e}"))?;
    stream.set_nodelay(true).map_err(|e| e.to_string())?;
    let mut buf = Vec::with_capacity(8192);
    let create = create(&address, &path);
    let (mut latencies, mut requests) = (Vec::new(), 0);
    while left
        .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| n.checked_sub(1))
        .is_ok()
    {
        let start = Instant::now();
        let created = reply(&mut stream, &mut buf, &create).await?;
        requests += 1;
        let result = &created["result"];
        let task = match result["resultType"].as_str() {
            Some("task") => result["taskId"].as_str().unwrap_or_default().to_owned(),
            _ => return Err(format!("no task was created: {created}")),
        };
        let get = get(&address, &path, &task);
        loop {
            let got = reply(&mut stream, &mut buf, &get).await?;
            requests += 1;
            match got["result"]["status"].as_str() {
                Some("completed") if got["result"]["result"]["content"].is_array() => break,
                Some("working" | "input_required") => {}
                _ => return Err(format!("the task did not complete: {got}")),
            }
        }
        latencies.push(super::http::micros(start.elapsed()));
    }
    Ok((latencies, requests))
}

async fn reply(stream: &mut TcpStream, buf: &mut Vec<u8>, request: &[u8]) -> Result<Value, String> {
    let (status, body) = exchange_body(stream, buf, request).await?;
    if status != 200 {
        return Err(format!("answered {status}: {body}"));
    }
    serde_json::from_str(&body).map_err(|e| format!("not JSON ({e}): {body}"))
}
