//! The HTTP load: a hand-rolled keep-alive HTTP/1.1 client on raw TCP (TCP_NODELAY), one
//! request at a time per connection, N connections at once.

use std::ops::Range;
use std::time::Instant;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Which protocol era the load speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Era {
    /// 2026-07-28: stateless, every `tools/call` carries its version and capabilities.
    Stateless,
    /// 2025-11-25: `initialize` and `notifications/initialized` first, then calls in a session.
    Session,
}

pub(super) const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

/// A POST of `body` to `path` with `headers` (each ending in CRLF).
pub(super) fn post(address: &str, path: &str, headers: &str, body: &str) -> Vec<u8> {
    format!(
        "POST {path} HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\n{headers}Content-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// The stateless 2026-07-28 `tools/call add` request.
pub(super) fn stateless_call(address: &str, path: &str) -> Vec<u8> {
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"add","arguments":{{"numbers":[1,2,3]}},{META}}}}}"#
    );
    let headers = "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: add\r\n";
    post(address, path, headers, &body)
}

/// Headers of a request in session `session` (if the server gave one).
fn session_headers(session: Option<&str>) -> String {
    let mut headers = "MCP-Protocol-Version: 2025-11-25\r\n".to_owned();
    if let Some(session) = session {
        headers.push_str(&format!("Mcp-Session-Id: {session}\r\n"));
    }
    headers
}

/// Opens an initialize-era session on `stream`: `initialize`, then `notifications/initialized`.
/// Returns the session id, if the server assigned one (the baseline does not).
pub(super) async fn open_session(
    stream: &mut TcpStream,
    buf: &mut Vec<u8>,
    address: &str,
    path: &str,
) -> Result<Option<String>, String> {
    let initialize = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"0"}}}"#;
    let reply = exchange(stream, buf, &post(address, path, "", initialize)).await?;
    if reply.status != 200 {
        return Err(format!("initialize answered {}", reply.status));
    }
    let session = reply.session;
    let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    let headers = session_headers(session.as_deref());
    let reply = exchange(stream, buf, &post(address, path, &headers, initialized)).await?;
    if !matches!(reply.status, 200 | 202) {
        return Err(format!(
            "notifications/initialized answered {}",
            reply.status
        ));
    }
    Ok(session)
}

/// The `tools/call add` request inside session `session`.
pub(super) fn session_call(address: &str, path: &str, session: Option<&str>) -> Vec<u8> {
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"numbers":[1,2,3]}}}"#;
    post(address, path, &session_headers(session), body)
}

/// One connection's load: calls until `stop`; returns the latencies (µs) of the calls that
/// started at or after `warm` and ended by `stop`.
pub(super) async fn connection(
    address: String,
    path: String,
    era: Era,
    warm: Instant,
    stop: Instant,
) -> Result<Vec<u32>, String> {
    let mut stream = TcpStream::connect(&address)
        .await
        .map_err(|e| format!("connect {address}: {e}"))?;
    stream.set_nodelay(true).map_err(|e| e.to_string())?;
    let mut buf = Vec::with_capacity(8192);
    let request = match era {
        Era::Stateless => stateless_call(&address, &path),
        Era::Session => {
            let session = open_session(&mut stream, &mut buf, &address, &path).await?;
            session_call(&address, &path, session.as_deref())
        }
    };
    let mut latencies = Vec::with_capacity(1 << 16);
    let mut first = true;
    loop {
        let start = Instant::now();
        if start >= stop {
            return Ok(latencies);
        }
        let reply = exchange(&mut stream, &mut buf, &request).await?;
        let end = Instant::now();
        if reply.status != 200 || (first && !reply.has_result) {
            return Err(format!(
                "tools/call answered {}: {}",
                reply.status, reply.text
            ));
        }
        first = false;
        if start >= warm && end <= stop {
            latencies.push(micros(end.duration_since(start)));
        }
    }
}

/// Whole microseconds, saturating.
pub(super) fn micros(duration: std::time::Duration) -> u32 {
    u32::try_from(duration.as_micros()).unwrap_or(u32::MAX)
}

/// What the load needs of a reply.
#[derive(Debug)]
pub(super) struct Reply {
    pub(super) status: u16,
    pub(super) session: Option<String>,
    /// Whether the body holds a JSON-RPC `"result"`.
    pub(super) has_result: bool,
    /// The body when it has no result (for the error message), else empty.
    pub(super) text: String,
}

/// Writes `request`, reads its reply.
pub(super) async fn exchange(
    stream: &mut TcpStream,
    buf: &mut Vec<u8>,
    request: &[u8],
) -> Result<Reply, String> {
    stream
        .write_all(request)
        .await
        .map_err(|e| format!("write: {e}"))?;
    let (status, session, body, consumed) = read_reply(stream, buf).await?;
    let has_result = find(&buf[body.clone()], b"\"result\"").is_some();
    let text = if has_result {
        String::new()
    } else {
        String::from_utf8_lossy(&buf[body]).into_owned()
    };
    buf.drain(..consumed);
    Ok(Reply {
        status,
        session,
        has_result,
        text,
    })
}

/// Writes `request`, reads its reply: the status and the whole body as text.
pub(super) async fn exchange_body(
    stream: &mut TcpStream,
    buf: &mut Vec<u8>,
    request: &[u8],
) -> Result<(u16, String), String> {
    stream
        .write_all(request)
        .await
        .map_err(|e| format!("write: {e}"))?;
    let (status, _, body, consumed) = read_reply(stream, buf).await?;
    let text = String::from_utf8_lossy(&buf[body]).into_owned();
    buf.drain(..consumed);
    Ok((status, text))
}

/// Reads more of the stream into `buf`; a closed stream is an error.
async fn fill(stream: &mut TcpStream, buf: &mut Vec<u8>) -> Result<(), String> {
    buf.reserve(4096);
    match stream.read_buf(buf).await {
        Ok(0) => Err("the server closed the connection".to_owned()),
        Ok(_) => Ok(()),
        Err(e) => Err(format!("read: {e}")),
    }
}

/// Reads one response into `buf`: status, `Mcp-Session-Id`, the body's range and how many bytes
/// of `buf` the response took. Bodies are delimited by `Content-Length` or chunked encoding.
async fn read_reply(
    stream: &mut TcpStream,
    buf: &mut Vec<u8>,
) -> Result<(u16, Option<String>, Range<usize>, usize), String> {
    let head_end = loop {
        if let Some(end) = find(buf, b"\r\n\r\n") {
            break end;
        }
        fill(stream, buf).await?;
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|line| line.split(' ').nth(1))
        .and_then(|code| code.parse().ok())
        .ok_or_else(|| format!("bad status line in {head:?}"))?;
    let (mut length, mut chunked, mut session) = (None, false, None);
    for line in lines {
        let Some((name, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.trim();
        if name.eq_ignore_ascii_case("content-length") {
            length = value.parse::<usize>().ok();
        } else if name.eq_ignore_ascii_case("transfer-encoding") {
            chunked = value.eq_ignore_ascii_case("chunked");
        } else if name.eq_ignore_ascii_case("mcp-session-id") {
            session = Some(value.to_owned());
        }
    }
    let start = head_end + 4;
    if let Some(length) = length {
        while buf.len() < start + length {
            fill(stream, buf).await?;
        }
        return Ok((status, session, start..start + length, start + length));
    }
    if !chunked {
        return Ok((status, session, start..start, start));
    }
    // chunked: size line, data, CRLF; a zero size ends it (no trailers expected)
    let mut at = start;
    loop {
        let line_end = loop {
            if let Some(end) = find(&buf[at..], b"\r\n") {
                break at + end;
            }
            fill(stream, buf).await?;
        };
        let size_text = String::from_utf8_lossy(&buf[at..line_end]);
        let size_text = size_text.split(';').next().unwrap_or("").trim();
        let size = usize::from_str_radix(size_text, 16)
            .map_err(|_| format!("bad chunk size {size_text:?}"))?;
        let end = line_end + 2 + size + 2;
        while buf.len() < end {
            fill(stream, buf).await?;
        }
        at = end;
        if size == 0 {
            return Ok((status, session, start..at, at));
        }
    }
}

/// The first position of `needle` in `haystack`.
pub(super) fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}
