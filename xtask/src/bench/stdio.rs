//! The stdio load: newline-delimited `tools/call add` requests on the server's stdin, up to a
//! window of them in flight, replies matched by id.

use std::collections::HashMap;
use std::time::Instant;

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, BufWriter};
use tokio::process::{ChildStdin, ChildStdout};

use super::http::{find, micros};

/// One request line with `id`.
fn line(id: u64, out: &mut Vec<u8>) {
    out.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
    out.extend_from_slice(id.to_string().as_bytes());
    out.extend_from_slice(
        br#","method":"tools/call","params":{"name":"add","arguments":{"numbers":[1,2,3]},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
    );
    out.push(b'\n');
}

/// The numeric id of a reply line.
fn reply_id(reply: &[u8]) -> Option<u64> {
    let at = find(reply, b"\"id\":")? + 5;
    let digits = reply[at..]
        .iter()
        .skip_while(|b| b.is_ascii_whitespace())
        .take_while(|b| b.is_ascii_digit());
    let mut id: u64 = 0;
    let mut any = false;
    for digit in digits {
        id = id.checked_mul(10)?.checked_add(u64::from(digit - b'0'))?;
        any = true;
    }
    any.then_some(id)
}

/// Calls until `stop` with up to `window` requests in flight (1: sequential round trips);
/// returns the latencies (µs) of the calls that started at or after `warm` and ended by `stop`.
pub(super) async fn load(
    stdin: &mut ChildStdin,
    stdout: &mut ChildStdout,
    window: usize,
    warm: Instant,
    stop: Instant,
) -> Result<Vec<u32>, String> {
    let mut writer = BufWriter::with_capacity(64 * 1024, stdin);
    let mut reader = BufReader::with_capacity(64 * 1024, stdout);
    let mut sent: HashMap<u64, Instant> = HashMap::with_capacity(window * 2);
    let mut latencies = Vec::with_capacity(1 << 20);
    let (mut next_id, mut bytes, mut reply) = (0u64, Vec::new(), Vec::new());
    loop {
        // fill the window, in one write
        let now = Instant::now();
        bytes.clear();
        while sent.len() < window && now < stop {
            line(next_id, &mut bytes);
            sent.insert(next_id, now);
            next_id += 1;
        }
        if !bytes.is_empty() {
            writer
                .write_all(&bytes)
                .await
                .map_err(|e| format!("write: {e}"))?;
            writer.flush().await.map_err(|e| format!("flush: {e}"))?;
        }
        if sent.is_empty() {
            return Ok(latencies);
        }
        // read one reply, then every complete one already buffered
        loop {
            reply.clear();
            let read = reader
                .read_until(b'\n', &mut reply)
                .await
                .map_err(|e| format!("read: {e}"))?;
            if read == 0 {
                return Err("the server closed its stdout".to_owned());
            }
            let end = Instant::now();
            let id = reply_id(&reply);
            let started = id.and_then(|id| sent.remove(&id));
            let Some(start) = started else {
                let text = String::from_utf8_lossy(&reply);
                return Err(format!("unexpected reply: {}", text.trim()));
            };
            if next_id <= window as u64 && find(&reply, b"\"result\"").is_none() {
                let text = String::from_utf8_lossy(&reply);
                return Err(format!("tools/call failed: {}", text.trim()));
            }
            if start >= warm && end <= stop {
                latencies.push(micros(end.duration_since(start)));
            }
            if !reader.buffer().contains(&b'\n') {
                break;
            }
        }
    }
}
