//! The `tasks` row: short tasks over Streamable HTTP 2026-07-28, each created (`tools/call`
//! declaring the tasks extension), polled with `tasks/get` until it completed, and its result
//! read from the last poll; then the memory once every task expired.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::net::TcpStream;

use super::http::{exchange_body, post};
use super::measure::{Run, summarize};
use super::{Bench, process};

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

impl Bench {
    /// Runs `--tasks` short tasks over 64 connections against a fresh `bench_tasks` server
    /// (tasks kept 1 s after they end); returns the run (tasks per second, creation-to-result
    /// latency, peak RSS) and the RSS once the first burst's tasks expired and once the
    /// second's did, in MiB (the RSS before the first task is printed beside them).
    pub(super) async fn tasks(&self) -> Result<(Run, f64, f64), String> {
        const RETENTION_MS: u64 = 1000;
        let program = self.examples.join("bench_tasks");
        let retention = RETENTION_MS.to_string();
        let mut server = process::start_http(
            &program,
            &["127.0.0.1:0", &retention],
            self.server_cpus.as_deref(),
        )
        .await?;
        tokio::time::sleep(Duration::from_millis(200)).await;
        let start_kib = process::status_kib(server.pid, "VmRSS")?;
        // the anonymous part (the heap) beside the whole: code pages first run in a burst count
        // in the RSS too
        let start_anon_kib = process::status_kib(server.pid, "RssAnon")?;
        let mut expired_anon_kib = Vec::new();
        // two bursts: the first is the one measured; the memory after the second's expiry
        // tells whether the first left anything behind (a leak grows it again) or the
        // allocator merely keeps what it got back for reuse
        let mut measured = None;
        let mut expired_kib = Vec::new();
        for _burst in 0..2 {
            let left = Arc::new(AtomicUsize::new(self.options.tasks));
            let begun = Instant::now();
            let connections: Vec<_> = (0..64)
                .map(|_| {
                    tokio::spawn(connection(
                        server.address.clone(),
                        server.path.clone(),
                        Arc::clone(&left),
                    ))
                })
                .collect();
            let (mut latencies, mut requests) = (Vec::new(), 0);
            for connection in connections {
                let (more, sent) = connection.await.map_err(|e| e.to_string())??;
                latencies.extend(more);
                requests += sent;
            }
            let seconds = begun.elapsed().as_secs_f64();
            let peak = process::status_kib(server.pid, "VmHWM")?;
            // retention, then the sweeper's next pass (once a second), with room to spare
            tokio::time::sleep(Duration::from_millis(RETENTION_MS + 2500)).await;
            expired_kib.push(process::status_kib(server.pid, "VmRSS")?);
            expired_anon_kib.push(process::status_kib(server.pid, "RssAnon")?);
            measured.get_or_insert((latencies, requests, seconds, peak));
        }
        let (latencies, requests, seconds, peak) = measured.ok_or("no burst ran")?;
        let after: Vec<String> = expired_kib
            .iter()
            .zip(&expired_anon_kib)
            .map(|(kib, anon)| {
                let mib = |kib: &u64| *kib as f64 / 1024.0;
                format!("{:.1} MiB ({:.1} anonymous)", mib(kib), mib(anon))
            })
            .collect();
        eprintln!(
            "tasks: RSS at the start {:.1} MiB ({:.1} anonymous); after each burst expired: {}",
            start_kib as f64 / 1024.0,
            start_anon_kib as f64 / 1024.0,
            after.join(", ")
        );
        let (first, second) = match expired_kib[..] {
            [first, second] => (first, second),
            _ => return Err("the bursts did not both run".to_owned()),
        };
        server.stop().await;
        eprintln!(
            "tasks: {} requests ({:.1} per task)",
            requests,
            requests as f64 / latencies.len().max(1) as f64
        );
        let mut run = summarize(latencies, seconds, None);
        run.peak_rss_kib = Some(peak);
        let mib = |kib: u64| kib as f64 / 1024.0;
        Ok((run, mib(first), mib(second)))
    }
}
