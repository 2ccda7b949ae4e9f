//! The HTTP load: a hand-rolled keep-alive HTTP/1.1 client on raw TCP (TCP_NODELAY), one
//! request at a time per connection, N connections at once.

use std::ops::Range;
use std::sync::Arc;
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

/// A request the load sends again and again, in whichever era the row speaks.
#[derive(Clone, Debug)]
pub(super) struct Call {
    /// The JSON-RPC method.
    pub(super) method: &'static str,
    /// The tool's name or the resource's URI, for 2026-07-28's `Mcp-Name` header.
    pub(super) name: Option<&'static str>,
    /// The members of `params` but `_meta`, as JSON text (`"name":"add",…`).
    pub(super) params: String,
    /// Members of `_meta` beside 2026-07-28's own (`"progressToken":"p"`), as JSON text.
    pub(super) meta: &'static str,
}

impl Call {
    /// `tools/call add` with `{"numbers": [1, 2, 3]}`.
    pub(super) fn add() -> Call {
        Call::tool("add", r#"{"numbers":[1,2,3]}"#.to_owned())
    }

    /// `tools/call` of `name` with `arguments` (JSON text).
    pub(super) fn tool(name: &'static str, arguments: String) -> Call {
        Call {
            method: "tools/call",
            name: Some(name),
            params: format!(r#""name":"{name}","arguments":{arguments}"#),
            meta: "",
        }
    }

    /// The HTTP request of this call in `era`, inside `session` if the server gave one.
    pub(super) fn request(
        &self,
        era: Era,
        address: &str,
        path: &str,
        session: Option<&str>,
    ) -> Vec<u8> {
        let (params, method) = (&self.params, self.method);
        let comma = if params.is_empty() { "" } else { "," };
        let extra = if self.meta.is_empty() {
            String::new()
        } else {
            format!(r#","_meta":{{{}}}"#, self.meta)
        };
        match era {
            Era::Stateless => {
                let meta = if self.meta.is_empty() {
                    META.to_owned()
                } else {
                    // the call's own members join 2026-07-28's in the one `_meta`
                    let open = META.strip_suffix('}').unwrap_or(META);
                    format!("{open},{}}}", self.meta)
                };
                let body = format!(
                    r#"{{"jsonrpc":"2.0","id":1,"method":"{method}","params":{{{params}{comma}{meta}}}}}"#
                );
                let mut headers =
                    format!("MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: {method}\r\n");
                if let Some(name) = self.name {
                    headers.push_str(&format!("Mcp-Name: {name}\r\n"));
                }
                post(address, path, &headers, &body)
            }
            Era::Session => {
                let extra = if params.is_empty() {
                    extra.trim_start_matches(',')
                } else {
                    &extra
                };
                let body = format!(
                    r#"{{"jsonrpc":"2.0","id":1,"method":"{method}","params":{{{params}{extra}}}}}"#
                );
                post(address, path, &session_headers(session), &body)
            }
        }
    }
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
    let reply = exchange(stream, buf, &post(address, path, "", initialize), false).await?;
    if reply.status != 200 {
        return Err(format!("initialize answered {}", reply.status));
    }
    let session = reply.session;
    let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    let headers = session_headers(session.as_deref());
    let request = post(address, path, &headers, initialized);
    let reply = exchange(stream, buf, &request, false).await?;
    if !matches!(reply.status, 200 | 202) {
        return Err(format!(
            "notifications/initialized answered {}",
            reply.status
        ));
    }
    Ok(session)
}

/// One connection's load: calls until `stop`; returns the latencies (µs) of the calls that
/// started at or after `warm` and ended by `stop`.
pub(super) async fn connection(
    address: String,
    path: String,
    era: Era,
    call: Arc<Call>,
    warm: Instant,
    stop: Instant,
) -> Result<Vec<u32>, String> {
    let mut stream = TcpStream::connect(&address)
        .await
        .map_err(|e| format!("connect {address}: {e}"))?;
    stream.set_nodelay(true).map_err(|e| e.to_string())?;
    let mut buf = Vec::with_capacity(8192);
    let session = match era {
        Era::Session => open_session(&mut stream, &mut buf, &address, &path).await?,
        Era::Stateless => None,
    };
    let request = call.request(era, &address, &path, session.as_deref());
    let mut latencies = Vec::with_capacity(1 << 16);
    let mut first = true;
    loop {
        let start = Instant::now();
        if start >= stop {
            return Ok(latencies);
        }
        // only the first reply is searched for its result: the search costs the driver time
        // in proportion to the body, which would cap fast servers of large replies
        let reply = exchange(&mut stream, &mut buf, &request, first).await?;
        let end = Instant::now();
        if reply.status != 200 || (first && !reply.has_result) {
            return Err(format!(
                "{} answered {}: {}",
                call.method, reply.status, reply.text
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
    /// Whether the body holds a JSON-RPC `"result"` (searched only when asked).
    pub(super) has_result: bool,
    /// The body of a reply that is not a success or has no result (for the error message),
    /// else empty.
    pub(super) text: String,
}

/// Writes `request`, reads its reply; searches its body for a result when `check_result`.
pub(super) async fn exchange(
    stream: &mut TcpStream,
    buf: &mut Vec<u8>,
    request: &[u8],
    check_result: bool,
) -> Result<Reply, String> {
    stream
        .write_all(request)
        .await
        .map_err(|e| format!("write: {e}"))?;
    let (status, session, body, consumed) = read_reply(stream, buf).await?;
    let has_result = check_result && find(&buf[body.clone()], b"\"result\"").is_some();
    let success = matches!(status, 200 | 202) && (has_result || !check_result);
    let text = if success {
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
/// of `buf` the response took. Bodies are delimited by `Content-Length` or chunked encoding (a
/// chunked body is joined in `buf`, its framing gone).
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
    // chunked: size line, data, CRLF; a zero size ends it (no trailers expected). The data
    // is moved together at `start` as it is read, so the body is one range.
    let (mut at, mut body_end) = (start, start);
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
        buf.copy_within(line_end + 2..line_end + 2 + size, body_end);
        body_end += size;
        at = end;
        if size == 0 {
            return Ok((status, session, start..body_end, at));
        }
    }
}

/// The first position of `needle` in `haystack`.
pub(super) fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    /// The body of a request, parsed.
    fn body(request: &[u8]) -> serde_json::Value {
        let text = String::from_utf8(request.to_vec()).unwrap();
        let (_, body) = text.split_once("\r\n\r\n").unwrap();
        serde_json::from_str(body).unwrap()
    }

    #[test]
    fn a_call_s_own_meta_joins_2026_07_28_s() {
        let call = Call {
            meta: r#""progressToken":"p""#,
            ..Call::tool("progress", "{}".to_owned())
        };
        let stateless = body(&call.request(Era::Stateless, "a:1", "/mcp", None));
        let meta = &stateless["params"]["_meta"];
        assert_eq!(meta["progressToken"], "p");
        assert_eq!(
            meta["io.modelcontextprotocol/protocolVersion"],
            "2026-07-28"
        );
        let session = body(&call.request(Era::Session, "a:1", "/mcp", Some("s")));
        assert_eq!(
            session["params"]["_meta"],
            serde_json::json!({"progressToken": "p"})
        );
        assert_eq!(session["params"]["name"], "progress");
        let list = Call {
            method: "tools/list",
            name: None,
            params: String::new(),
            meta: "",
        };
        let session = body(&list.request(Era::Session, "a:1", "/mcp", None));
        assert_eq!(session["params"], serde_json::json!({}));
    }

    #[test]
    fn a_chunked_body_is_read_whole_without_its_framing() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let address = listener.local_addr().unwrap();
            let server = tokio::spawn(async move {
                let (mut socket, _) = listener.accept().await.unwrap();
                let response = "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n\
                                5\r\ndata:\r\n3\r\n {}\r\n0\r\n\r\n\
                                HTTP/1.1 202 Accepted\r\ncontent-length: 0\r\n\r\n";
                socket.write_all(response.as_bytes()).await.unwrap();
            });
            let mut stream = TcpStream::connect(address).await.unwrap();
            let mut buf = Vec::new();
            let (status, body) = exchange_body(&mut stream, &mut buf, b"").await.unwrap();
            assert_eq!((status, body.as_str()), (200, "data: {}"));
            let (status, body) = exchange_body(&mut stream, &mut buf, b"").await.unwrap();
            assert_eq!((status, body.as_str()), (202, ""));
            server.await.unwrap();
        });
    }
}
