//! The Streamable HTTP server over real HTTP on 127.0.0.1: every rule, both eras.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use presa_core::{LoggingLevel, META_PROTOCOL_VERSION, Tool};
use presa_http::{Allow, CancellationPolicy, HttpOptions, RunningServer, serve};
use presa_server::{Context, Server};
use presa_test::message::{initialize_with, legacy_request, notification, request};
use reqwest::header::HeaderMap;
use serde_json::{Value, json};
use tokio::sync::Notify;

fn object(value: Value) -> serde_json::Map<String, Value> {
    value.as_object().unwrap().clone()
}

struct Fixture {
    running: RunningServer,
    http: reqwest::Client,
    server: Server,
    cancelled: Arc<Notify>,
}

/// A tool whose handler panics before it returns its future (outside the handlers' own guard).
struct PanicsOnCall;

impl presa_server::ToolHandler for PanicsOnCall {
    fn call(
        &self,
        _: serde_json::Map<String, Value>,
        _: Context,
    ) -> presa_server::BoxFuture<'static, presa_server::ToolOutcome> {
        panic!("no future for you")
    }
}

fn test_server(cancelled: Arc<Notify>) -> Server {
    Server::builder("http-test", "1.0.0")
        .logging(true)
        .list_changed(true)
        .tool_sync(Tool::without_params("quick"), |_: Value, _| "quick")
        .tool(
            Tool::new(
                "echo_region",
                object(json!({
                    "type": "object",
                    "properties": {"region": {"type": "string", "x-mcp-header": "Region"}},
                    "required": ["region"]
                })),
            ),
            |args: Value, _| async move { args["region"].as_str().unwrap_or_default().to_owned() },
        )
        .tool(
            Tool::without_params("polling"),
            |_: Value, cx: Context| async move {
                let closed = cx.close_stream();
                cx.progress(1.0, None, Some("after the close")).await;
                format!("closed: {closed}")
            },
        )
        .tool(
            Tool::without_params("chatty"),
            |_: Value, cx: Context| async move {
                cx.progress(1.0, Some(2.0), Some("half")).await;
                cx.log(LoggingLevel::Warning, "careful").await;
                "done"
            },
        )
        .tool(
            Tool::without_params("slow"),
            move |_: Value, cx: Context| {
                let cancelled = Arc::clone(&cancelled);
                async move {
                    cx.progress(1.0, None, None).await;
                    struct Signal(Arc<Notify>);
                    impl Drop for Signal {
                        fn drop(&mut self) {
                            self.0.notify_one();
                        }
                    }
                    let _signal = Signal(cancelled);
                    std::future::pending::<()>().await;
                    "never"
                }
            },
        )
        .tool_handler(Tool::without_params("broken"), Arc::new(PanicsOnCall))
        .build()
        .unwrap()
}

async fn fixture_with(options: HttpOptions) -> Fixture {
    let cancelled = Arc::new(Notify::new());
    let server = test_server(Arc::clone(&cancelled));
    let running = serve(server.clone(), options).await.unwrap();
    Fixture {
        running,
        http: reqwest::Client::new(),
        server,
        cancelled,
    }
}

async fn fixture() -> Fixture {
    fixture_with(HttpOptions::default()).await
}

impl Fixture {
    fn post(&self) -> reqwest::RequestBuilder {
        self.http
            .post(self.running.url())
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
    }

    /// A correct 2026-07-28 POST for `body`.
    fn modern_post(&self, body: &Value) -> reqwest::RequestBuilder {
        let mut request = self
            .post()
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", body["method"].as_str().unwrap());
        let name = body["params"]
            .get("name")
            .or_else(|| body["params"].get("uri"));
        if let Some(name) = name.and_then(Value::as_str) {
            request = request.header("mcp-name", name);
        }
        request.body(body.to_string())
    }

    async fn send(&self, request: reqwest::RequestBuilder) -> (u16, HeaderMap, Value) {
        let response = request.send().await.unwrap();
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let text = response.text().await.unwrap();
        let body = if text.is_empty() {
            Value::Null
        } else {
            serde_json::from_str(&text).unwrap_or(Value::String(text))
        };
        (status, headers, body)
    }
}

/// The JSON messages of an SSE body.
fn sse_messages(text: &str) -> Vec<Value> {
    text.lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .filter(|d| !d.is_empty())
        .map(|d| serde_json::from_str(d).unwrap())
        .collect()
}

// ----- transport rules -----

#[tokio::test]
async fn only_post_get_and_delete_and_405_names_them() {
    let f = fixture().await;
    let response = f.http.put(f.running.url()).send().await.unwrap();
    assert_eq!(response.status(), 405);
    assert_eq!(response.headers()["allow"], "GET, POST, DELETE");
    let modern_only = Server::builder("m", "1")
        .only_version(presa_core::ProtocolVersion::V2026_07_28)
        .build()
        .unwrap();
    let running = serve(modern_only, HttpOptions::default()).await.unwrap();
    let response = f
        .http
        .get(running.url())
        .header("accept", "text/event-stream")
        .send()
        .await
        .unwrap();
    assert_eq!(
        (
            response.status().as_u16(),
            response.headers()["allow"].to_str().unwrap()
        ),
        (405, "POST")
    );
    let response = f.http.delete(running.url()).send().await.unwrap();
    assert_eq!(response.status(), 405);
}

#[tokio::test]
async fn content_type_accept_and_body_size() {
    let f = fixture_with(HttpOptions::default().max_body_bytes(1000)).await;
    let body = request(1, "tools/list", json!({}));
    let bare = || {
        f.http
            .post(f.running.url())
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", "tools/list")
            .body(body.to_string())
    };
    let (status, ..) = f
        .send(
            bare()
                .header("content-type", "text/plain")
                .header("accept", "application/json, text/event-stream"),
        )
        .await;
    assert_eq!(status, 415);
    let (status, ..) = f
        .send(
            bare()
                .header("content-type", "application/json")
                .header("accept", "application/json"),
        )
        .await;
    assert_eq!(status, 406);
    let (status, ..) = f
        .send(
            bare()
                .header("content-type", "application/json")
                .header("accept", "*/*"),
        )
        .await;
    assert_eq!(status, 200, "*/* admits both");
    let big = request(
        1,
        "tools/call",
        json!({"name": "quick", "arguments": {"pad": "x".repeat(2000)}}),
    );
    let (status, _, error) = f.send(f.modern_post(&big)).await;
    assert_eq!(status, 413);
    assert!(error["error"]["message"].as_str().unwrap().contains("1000"));
    let (status, ..) = f.send(f.modern_post(&body)).await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn origin_and_host_allow_lists() {
    let f = fixture().await;
    let body = request(1, "tools/list", json!({}));
    let (status, ..) = f
        .send(
            f.modern_post(&body)
                .header("origin", "http://evil.example.com"),
        )
        .await;
    assert_eq!(status, 403);
    let (status, ..) = f
        .send(
            f.modern_post(&body)
                .header("origin", "http://localhost:3000"),
        )
        .await;
    assert_eq!(status, 200);
    let strict = fixture_with(
        HttpOptions::default()
            .allowed_hosts(Allow::Only(HashSet::from(["mcp.internal".to_owned()])))
            .allowed_origins(Allow::LoopbackAnd(HashSet::from([
                "https://app.example.com".to_owned(),
            ]))),
    )
    .await;
    let (status, ..) = strict.send(strict.modern_post(&body)).await;
    assert_eq!(status, 403, "Host 127.0.0.1:port is not in the list");
    let (status, ..) = strict
        .send(
            strict
                .modern_post(&body)
                .header("host", "mcp.internal")
                .header("origin", "https://app.example.com"),
        )
        .await;
    assert_eq!(status, 200);
}

/// A server on a loopback address accepts only loopback names in `Host` unless told otherwise
/// (a DNS-rebinding page sends no `Origin` when it is same-origin to the attacker's name).
#[tokio::test]
async fn on_loopback_only_loopback_hosts_are_accepted_by_default() {
    let f = fixture().await;
    let port = f.running.local_addr().port();
    let body = request(1, "tools/list", json!({}));
    for host in ["evil.example.com", "evil.example.com:80", "10.0.0.1"] {
        let (status, ..) = f.send(f.modern_post(&body).header("host", host)).await;
        assert_eq!(status, 403, "{host}");
    }
    for host in [
        format!("localhost:{port}"),
        format!("127.0.0.1:{port}"),
        "[::1]".to_owned(),
    ] {
        let (status, ..) = f.send(f.modern_post(&body).header("host", &host)).await;
        assert_eq!(status, 200, "{host}");
    }
    // a router for an app bound elsewhere: the address it is told of decides
    let server = Server::builder("mounted", "1").build().unwrap();
    for (bound, expected) in [("127.0.0.1", 403), ("0.0.0.0", 200)] {
        let app: axum::Router =
            presa_http::router(server.clone(), HttpOptions::default().host(bound));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/mcp", listener.local_addr().unwrap());
        let task = tokio::spawn(async move { axum::serve(listener, app).await });
        let discover = request(1, "server/discover", json!({}));
        let status = f
            .http
            .post(&url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", "server/discover")
            .header("host", "evil.example.com")
            .body(discover.to_string())
            .send()
            .await
            .unwrap()
            .status()
            .as_u16();
        assert_eq!(status, expected, "router told it serves on {bound}");
        task.abort();
    }
}

// ----- 2026-07-28 -----

#[tokio::test]
async fn stateless_checks_in_the_runner_order() {
    let f = fixture().await;
    let body = request(101, "server/discover", json!({}));
    let (status, _, e) = f
        .send(
            f.post()
                .header("mcp-method", "server/discover")
                .body(body.to_string()),
        )
        .await;
    assert_eq!(
        (status, e["error"]["code"].clone(), e["id"].clone()),
        (400, json!(-32020), json!(101)),
        "missing version header"
    );

    let no_meta = json!({"jsonrpc": "2.0", "id": 102, "method": "server/discover", "params": {}});
    let (status, _, e) = f.send(f.modern_post(&no_meta)).await;
    assert_eq!((status, e["error"]["code"].clone()), (400, json!(-32602)));

    let mut wrong = request(302, "server/discover", json!({}));
    wrong["params"]["_meta"][META_PROTOCOL_VERSION] = json!("v999.0.0");
    let (status, _, e) = f.send(f.modern_post(&wrong)).await;
    assert_eq!(
        (status, e["error"]["code"].clone()),
        (400, json!(-32020)),
        "header and body disagree"
    );

    let (status, _, e) = f
        .send(
            f.post()
                .header("mcp-protocol-version", "v999.0.0")
                .header("mcp-method", "server/discover")
                .body(wrong.to_string()),
        )
        .await;
    assert_eq!((status, e["error"]["code"].clone()), (400, json!(-32022)));
    assert_eq!(e["error"]["data"]["requested"], "v999.0.0");

    let (status, _, e) = f
        .send(f.modern_post(&body).header("mcp-method", "prompts/list"))
        .await;
    assert_eq!(
        (status, e["error"]["code"].clone()),
        (400, json!(-32020)),
        "Mcp-Method mismatch"
    );

    for method in [
        "initialize",
        "ping",
        "logging/setLevel",
        "resources/subscribe",
        "unknown/method",
    ] {
        let (status, _, e) = f
            .send(f.modern_post(&request(500, method, json!({}))))
            .await;
        assert_eq!(
            (status, e["error"]["code"].clone(), e["id"].clone()),
            (404, json!(-32601), json!(500)),
            "{method}"
        );
    }
    let (status, _, d) = f.send(f.modern_post(&body)).await;
    assert_eq!(status, 200);
    assert_eq!(d["result"]["supportedVersions"][0], "2026-07-28");
}

#[tokio::test]
async fn routing_headers_must_match_the_body() {
    let f = fixture().await;
    let call = request(
        1,
        "tools/call",
        json!({"name": "echo_region", "arguments": {"region": "Zürich"}}),
    );
    let (status, _, e) = f.send(f.modern_post(&call)).await;
    assert_eq!(
        (status, e["error"]["code"].clone()),
        (400, json!(-32020)),
        "Mcp-Param-Region missing"
    );
    let (status, _, r) = f
        .send(
            f.modern_post(&call)
                .header("mcp-param-region", "=?base64?WsO8cmljaA==?="),
        )
        .await;
    assert_eq!(
        (status, r["result"]["content"][0]["text"].clone()),
        (200, json!("Zürich"))
    );
    let (status, _, e) = f
        .send(
            f.modern_post(&call)
                .header("mcp-param-region", "=?base64?WsO8cmljaA?="),
        )
        .await;
    assert_eq!(
        (status, e["error"]["code"].clone()),
        (400, json!(-32020)),
        "bad padding"
    );
    let (status, ..) = f
        .send(f.modern_post(&call).header("mcp-param-region", "Bern"))
        .await;
    assert_eq!(status, 400);
    let quick = request(2, "tools/call", json!({"name": "quick"}));
    let (status, _, e) = f
        .send(
            f.post()
                .header("mcp-protocol-version", "2026-07-28")
                .header("mcp-method", "tools/call")
                .body(quick.to_string()),
        )
        .await;
    assert_eq!(
        (status, e["error"]["code"].clone()),
        (400, json!(-32020)),
        "Mcp-Name missing"
    );
    let spaced = f
        .post()
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", "  quick  ");
    let (status, ..) = f.send(spaced.body(quick.to_string())).await;
    assert_eq!(status, 200, "whitespace around a header value is tolerated");
    let (status, _, e) = f
        .send(f.modern_post(&request(3, "tools/call", json!({"name": "nope"}))))
        .await;
    assert_eq!(
        (status, e["error"]["code"].clone()),
        (400, json!(-32602)),
        "unknown tool"
    );
}

#[tokio::test]
async fn a_result_is_json_until_the_handler_streams() {
    let f = fixture().await;
    let (status, headers, r) = f
        .send(f.modern_post(&request(1, "tools/call", json!({"name": "quick"}))))
        .await;
    assert_eq!(
        (status, headers["content-type"].to_str().unwrap()),
        (200, "application/json")
    );
    assert_eq!(r["result"]["resultType"], "complete");

    let mut body = request(2, "tools/call", json!({"name": "chatty"}));
    body["params"]["_meta"]["progressToken"] = json!("p");
    body["params"]["_meta"]["io.modelcontextprotocol/logLevel"] = json!("info");
    let response = f.modern_post(&body).send().await.unwrap();
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    let messages = sse_messages(&response.text().await.unwrap());
    let methods: Vec<_> = messages
        .iter()
        .map(|m| m.get("method").cloned().unwrap_or(Value::Null))
        .collect();
    assert_eq!(
        methods,
        [
            json!("notifications/progress"),
            json!("notifications/message"),
            Value::Null
        ]
    );
    assert_eq!(messages[2]["id"], 2);

    // without a token or a level the same tool answers in JSON
    let (_, headers, _) = f
        .send(f.modern_post(&request(3, "tools/call", json!({"name": "chatty"}))))
        .await;
    assert_eq!(headers["content-type"], "application/json");
}

#[tokio::test]
async fn a_panic_while_starting_a_request_is_a_500_and_the_server_lives_on() {
    let f = fixture().await;
    let broken = request(1, "tools/call", json!({"name": "broken", "arguments": {}}));
    let (status, _, body) = f.send(f.modern_post(&broken)).await;
    assert_eq!(
        (status, &body["error"]["code"]),
        (500, &json!(-32603)),
        "{body}"
    );
    let quick = request(2, "tools/call", json!({"name": "quick", "arguments": {}}));
    let (status, _, body) = f.send(f.modern_post(&quick)).await;
    assert_eq!(
        (status, &body["result"]["content"][0]["text"]),
        (200, &json!("quick"))
    );
}

#[tokio::test]
async fn a_posted_cancel_ends_a_post_still_waiting_for_its_json_answer() {
    let subject: presa_http::SubjectFn = Arc::new(|headers: &axum::http::HeaderMap| {
        let user = headers.get("x-user")?.to_str().ok()?;
        Some(user.to_owned())
    });
    let f = fixture_with(HttpOptions::default().cancellation(CancellationPolicy::Subject(subject)))
        .await;
    // no progress token: the handler says nothing, so the POST waits for a JSON body
    let body = request(1, "tools/call", json!({"name": "slow"}));
    let waiting = tokio::spawn({
        let request = f.modern_post(&body).header("x-user", "ann");
        async move {
            let response = request.send().await.unwrap();
            let status = response.status().as_u16();
            (
                status,
                serde_json::from_str::<Value>(&response.text().await.unwrap()).unwrap(),
            )
        }
    });
    let cancel = notification("notifications/cancelled", json!({"requestId": 1}));
    // the cancel may arrive before the call is remembered: send it until the handler stops
    let stopped = async {
        loop {
            let request = f
                .post()
                .header("x-user", "ann")
                .header("mcp-protocol-version", "2026-07-28")
                .header("mcp-method", "notifications/cancelled")
                .body(cancel.to_string());
            let (status, ..) = f.send(request).await;
            assert_eq!(status, 202);
            let dropped =
                tokio::time::timeout(Duration::from_millis(50), f.cancelled.notified()).await;
            if dropped.is_ok() {
                return;
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(30), stopped)
        .await
        .expect("the posted cancel stopped the handler");
    let (status, answer) = tokio::time::timeout(Duration::from_secs(30), waiting)
        .await
        .expect("the waiting POST ends")
        .unwrap();
    assert_eq!(status, 500);
    assert_eq!(answer["error"]["code"], -32603);
    assert_eq!(answer["error"]["message"], "the request was cancelled");
}

#[tokio::test]
async fn closing_the_stream_cancels_the_request() {
    let f = fixture().await;
    let mut body = request(1, "tools/call", json!({"name": "slow"}));
    body["params"]["_meta"]["progressToken"] = json!(1);
    let response = f.modern_post(&body).send().await.unwrap();
    let mut stream = response.bytes_stream();
    let first = stream.next().await.unwrap().unwrap();
    assert!(String::from_utf8_lossy(&first).contains("notifications/progress"));
    drop(stream);
    tokio::time::timeout(Duration::from_secs(30), f.cancelled.notified())
        .await
        .expect("the handler was dropped");
}

#[tokio::test]
async fn posted_notifications_are_accepted() {
    let f = fixture().await;
    let note = notification("notifications/cancelled", json!({"requestId": 9}));
    let (status, _, body) = f
        .send(
            f.post()
                .header("mcp-protocol-version", "2026-07-28")
                .body(note.to_string()),
        )
        .await;
    assert_eq!((status, body), (202, Value::Null));
}

#[tokio::test]
async fn malformed_bodies() {
    let f = fixture().await;
    let (status, _, e) = f
        .send(
            f.post()
                .header("mcp-protocol-version", "2026-07-28")
                .body("{nope"),
        )
        .await;
    assert_eq!((status, e["error"]["code"].clone()), (400, json!(-32700)));
}

// ----- initialize era -----

async fn initialize(f: &Fixture, version: &str) -> String {
    let init = initialize_with(0, version, json!({}));
    let (status, headers, r) = f.send(f.post().body(init.to_string())).await;
    assert_eq!(status, 200);
    assert_eq!(r["result"]["protocolVersion"], version);
    let session = headers["mcp-session-id"].to_str().unwrap().to_owned();
    assert!(session.bytes().all(|b| (0x21..=0x7e).contains(&b)));
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let (status, ..) = f
        .send(
            f.post()
                .header("mcp-session-id", &session)
                .body(note.to_string()),
        )
        .await;
    assert_eq!(status, 202);
    session
}

/// A session whose GET stream the client opened and dropped falls idle and is evicted like any
/// other: the stream's end is noticed when the client leaves, not at the next message.
#[tokio::test]
async fn an_abandoned_get_stream_does_not_keep_its_session_alive() {
    let f = fixture_with(
        HttpOptions::default()
            .session_idle_timeout(Some(Duration::from_millis(300)))
            .keepalive(Duration::from_millis(50)),
    )
    .await;
    let session = initialize(&f, "2025-06-18").await;
    let stream = f
        .http
        .get(f.running.url())
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &session)
        .send()
        .await
        .unwrap();
    assert_eq!(stream.status(), 200);
    let mut body = stream.bytes_stream();
    // the stream is open: a keepalive comes through
    assert!(body.next().await.unwrap().is_ok());
    drop(body);
    let list = legacy_request(1, "tools/list", json!({})).to_string();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    loop {
        // a request is activity: let twice the idle timeout pass without one, then ask
        tokio::time::sleep(Duration::from_millis(600)).await;
        let (status, ..) = f
            .send(
                f.post()
                    .header("mcp-session-id", &session)
                    .header("mcp-protocol-version", "2025-06-18")
                    .body(list.clone()),
            )
            .await;
        if status == 404 {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the session outlived its abandoned stream"
        );
    }
}

impl Fixture {
    /// A `tools/list` in initialize-era `session`: its status.
    async fn list_in(&self, session: &str) -> u16 {
        let list = legacy_request(1, "tools/list", json!({}));
        let request = self
            .post()
            .header("mcp-session-id", session)
            .header("mcp-protocol-version", "2025-06-18")
            .body(list.to_string());
        self.send(request).await.0
    }

    /// Opens `session`'s GET stream and waits for its first event (it is open on the server).
    async fn open_stream(
        &self,
        session: &str,
    ) -> futures_util::stream::BoxStream<'static, reqwest::Result<Vec<u8>>> {
        let response = self
            .http
            .get(self.running.url())
            .header("accept", "text/event-stream")
            .header("mcp-session-id", session)
            .header("mcp-protocol-version", "2025-06-18")
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        let mut stream = response
            .bytes_stream()
            .map(|chunk| chunk.map(|bytes| bytes.to_vec()))
            .boxed();
        assert!(stream.next().await.unwrap().is_ok());
        stream
    }
}

/// At the session limit, an `initialize` ends the least recently used session with nothing
/// under way to make room: that session's client gets 404, the others are not disturbed.
#[tokio::test]
async fn a_full_endpoint_ends_its_least_recently_used_quiet_session() {
    let f = fixture_with(HttpOptions::default().max_sessions(2)).await;
    let first = initialize(&f, "2025-06-18").await;
    let second = initialize(&f, "2025-06-18").await;
    // the first is used after the second: the second is the least recently used
    assert_eq!(f.list_in(&first).await, 200);
    let third = initialize(&f, "2025-06-18").await;
    assert_eq!(f.list_in(&second).await, 404);
    assert_eq!(f.list_in(&first).await, 200);
    assert_eq!(f.list_in(&third).await, 200);
}

/// Past the session limit with every session busy (a stream open), an `initialize` gets 503
/// with `Retry-After`; the sessions held go on being served, and ending one makes room.
#[tokio::test]
async fn sessions_past_the_limit_are_refused_only_when_none_is_quiet() {
    let keepalive = Duration::from_millis(50);
    let f = fixture_with(HttpOptions::default().max_sessions(2).keepalive(keepalive)).await;
    let first = initialize(&f, "2025-06-18").await;
    let second = initialize(&f, "2025-06-18").await;
    let _streams = (f.open_stream(&first).await, f.open_stream(&second).await);
    let init = initialize_with(0, "2025-06-18", json!({})).to_string();
    let (status, headers, body) = f.send(f.post().body(init.clone())).await;
    assert_eq!(status, 503, "{body}");
    assert_eq!(headers["retry-after"], "1");
    assert!(headers.get("mcp-session-id").is_none());
    assert!(
        body["error"]["message"].as_str().unwrap().contains("(2)"),
        "{body}"
    );
    for session in [&first, &second] {
        assert_eq!(f.list_in(session).await, 200);
    }
    let deleted = f
        .http
        .delete(f.running.url())
        .header("mcp-session-id", &first)
        .send()
        .await
        .unwrap();
    assert_eq!(deleted.status(), 200);
    initialize(&f, "2025-06-18").await;
}

/// One client opening session after session fills the table with its own sessions and then
/// pushes them out; a client that keeps a stream open, and one that calls regularly, keep
/// working throughout, and no `initialize` of the flood is refused.
#[tokio::test]
async fn a_flood_of_sessions_pushes_out_its_own_and_no_one_elses() {
    let keepalive = Duration::from_millis(50);
    let f = fixture_with(HttpOptions::default().max_sessions(10).keepalive(keepalive)).await;
    let streaming = initialize(&f, "2025-06-18").await;
    let mut stream = f.open_stream(&streaming).await;
    let regular = initialize(&f, "2025-06-18").await;
    let mut flood = Vec::new();
    for _ in 0..100 {
        // `initialize` asserts a 200: the flood is never refused
        flood.push(initialize(&f, "2025-06-18").await);
        assert_eq!(f.list_in(&regular).await, 200);
    }
    assert_eq!(f.list_in(&streaming).await, 200);
    // the stream is still open: its keepalives go on
    assert!(stream.next().await.unwrap().is_ok());
    // the table holds the two clients and the newest of the flood; the oldest were pushed out
    let mut kept = 0;
    for session in &flood {
        if f.list_in(session).await == 200 {
            kept += 1;
        }
    }
    assert_eq!(kept, 8);
    assert_eq!(f.list_in(&flood[0]).await, 404);
    assert_eq!(f.list_in(&flood[99]).await, 200);
}

/// What `initialize` asks a session to keep for its life is bounded: a client describing itself
/// in megabytes is refused, and no session is left behind.
#[tokio::test]
async fn an_initialize_that_describes_too_much_is_refused() {
    let f = fixture().await;
    let huge = json!({"padding": "x".repeat(1_900_000)});
    let (status, headers, body) = f
        .send(
            f.post()
                .body(initialize_with(0, "2025-06-18", huge).to_string()),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["error"]["code"], -32602, "{body}");
    let message = body["error"]["message"].as_str().unwrap();
    assert!(message.contains("at most 65536"), "{message}");
    assert!(headers.get("mcp-session-id").is_none());
    // a description of ordinary size starts a session
    let modest = json!({"experimental": {"notes": "y".repeat(8_000)}});
    let (status, headers, body) = f
        .send(
            f.post()
                .body(initialize_with(0, "2025-06-18", modest).to_string()),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert!(body["result"]["protocolVersion"].is_string(), "{body}");
    assert!(headers.get("mcp-session-id").is_some());
}

/// A 2026-07-28 body is checked against its headers even when the POST carries a session id:
/// a session anyone can make must not be a way past a gateway that routes on `Mcp-Method`.
#[tokio::test]
async fn a_session_id_does_not_skip_the_header_checks_of_a_2026_body() {
    let f = fixture().await;
    let session = initialize(&f, "2025-06-18").await;
    let call = request(5, "tools/call", json!({"name": "chatty", "arguments": {}}));
    for version in [Some("2025-06-18"), None] {
        let mut post = f
            .post()
            .header("mcp-session-id", &session)
            .header("mcp-method", "tools/list")
            .body(call.to_string());
        if let Some(version) = version {
            post = post.header("mcp-protocol-version", version);
        }
        let (status, _, body) = f.send(post).await;
        assert_eq!(status, 400, "{version:?}: {body}");
        assert_eq!(body["error"]["code"], -32020, "{version:?}: {body}");
    }
    // the same body with headers that match it is served
    let (status, _, body) = f
        .send(f.modern_post(&call).header("mcp-session-id", &session))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["result"]["content"][0]["text"], "done");
}

/// A batch (2025-03-26) is no way past the header checks either: routing headers must hold
/// for every member, and a 2026-07-28 request inside a batch (where its own checks could not be
/// made) is refused while the other members are answered.
#[tokio::test]
async fn a_batch_does_not_skip_the_header_checks() {
    let f = fixture().await;
    let session = initialize(&f, "2025-03-26").await;
    let in_session = |body: Value| {
        f.post()
            .header("mcp-session-id", &session)
            .header("mcp-protocol-version", "2025-03-26")
            .body(body.to_string())
    };
    let list = legacy_request(1, "tools/list", json!({}));
    let ping = legacy_request(2, "ping", json!({}));
    let (status, _, body) = f
        .send(in_session(json!([list, ping])).header("mcp-method", "tools/list"))
        .await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["error"]["code"], -32020, "{body}");

    let call = request(3, "tools/call", json!({"name": "chatty", "arguments": {}}));
    // with headers naming the other member, or none at all: the tools/call is not served
    for ping_header in [true, false] {
        let mut post = in_session(json!([call, ping]));
        if ping_header {
            post = post.header("mcp-method", "ping");
        }
        let (status, _, body) = f.send(post).await;
        assert_eq!(status, 200, "{body}");
        let answers = body
            .as_array()
            .unwrap_or_else(|| panic!("a batch answer: {body}"));
        let answer = |id: u64| {
            answers
                .iter()
                .find(|a| a["id"] == id)
                .unwrap_or_else(|| panic!("no answer {id} in {body}"))
        };
        assert_eq!(answer(3)["error"]["code"], -32600, "{body}");
        assert_eq!(answer(2)["result"], json!({}), "{body}");
    }
}

/// Routing headers sent with an initialize-era message must tell the truth about it too; a
/// 2025-11-25 message naming its task in `_meta` stays in its session.
#[tokio::test]
async fn initialize_era_messages_keep_their_session_and_their_headers_honest() {
    let f = fixture().await;
    let session = initialize(&f, "2025-11-25").await;
    let in_session = |body: &Value| {
        f.post()
            .header("mcp-session-id", &session)
            .header("mcp-protocol-version", "2025-11-25")
            .body(body.to_string())
    };
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {
        "_meta": {"io.modelcontextprotocol/related-task": {"taskId": "t-1"}}}});
    let (status, _, body) = f.send(in_session(&list)).await;
    assert_eq!(status, 200, "{body}");
    assert!(body["result"]["tools"].is_array(), "{body}");

    let (status, _, body) = f
        .send(in_session(&list).header("mcp-method", "tools/call"))
        .await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["error"]["code"], -32020, "{body}");

    let call = legacy_request(2, "tools/call", json!({"name": "chatty", "arguments": {}}));
    let (status, _, body) = f.send(in_session(&call).header("mcp-name", "other")).await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["error"]["code"], -32020, "{body}");
    // headers that agree are no obstacle
    let (status, _, body) = f
        .send(
            in_session(&call)
                .header("mcp-method", "tools/call")
                .header("mcp-name", "chatty"),
        )
        .await;
    assert_eq!(status, 200, "{body}");
}

#[tokio::test]
async fn sessions_start_serve_and_end() {
    let f = fixture().await;
    let session = initialize(&f, "2025-11-25").await;
    let (status, _, r) = f
        .send(
            f.post()
                .header("mcp-session-id", &session)
                .header("mcp-protocol-version", "2025-11-25")
                .body(legacy_request(1, "tools/list", json!({})).to_string()),
        )
        .await;
    assert_eq!(status, 200);
    assert!(
        r["result"].get("resultType").is_none(),
        "no 2026 fields in the initialize era"
    );
    let (status, ..) = f
        .send(
            f.post()
                .body(legacy_request(2, "tools/list", json!({})).to_string()),
        )
        .await;
    assert_eq!(status, 400, "no session id");
    let (status, ..) = f
        .send(
            f.post()
                .header("mcp-session-id", "nope")
                .body(legacy_request(3, "tools/list", json!({})).to_string()),
        )
        .await;
    assert_eq!(status, 404, "unknown session");
    let (status, _, e) = f
        .send(
            f.post()
                .header("mcp-session-id", &session)
                .body(legacy_request(4, "nope/nope", json!({})).to_string()),
        )
        .await;
    assert_eq!(
        (status, e["error"]["code"].clone()),
        (200, json!(-32601)),
        "initialize-era errors ride on 200"
    );
    let deleted = f
        .http
        .delete(f.running.url())
        .header("mcp-session-id", &session)
        .send()
        .await
        .unwrap();
    assert_eq!(deleted.status(), 200);
    let (status, ..) = f
        .send(
            f.post()
                .header("mcp-session-id", &session)
                .body(legacy_request(5, "tools/list", json!({})).to_string()),
        )
        .await;
    assert_eq!(status, 404, "ended session");
}

#[tokio::test]
async fn the_get_stream_carries_list_changes_and_keepalives() {
    let f = fixture_with(HttpOptions::default().keepalive(Duration::from_millis(50))).await;
    let session = initialize(&f, "2025-06-18").await;
    let response = f
        .http
        .get(f.running.url())
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &session)
        .send()
        .await
        .unwrap();
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    let mut stream = response.bytes_stream();
    let mut text = String::new();
    while !text.contains(": keepalive") {
        text.push_str(&String::from_utf8_lossy(
            &stream.next().await.unwrap().unwrap(),
        ));
    }
    f.server
        .add_tool(Tool::without_params("late"), |_: Value, _| async { "late" })
        .unwrap();
    while !text.contains("list_changed") {
        text.push_str(&String::from_utf8_lossy(
            &stream.next().await.unwrap().unwrap(),
        ));
    }
    assert!(text.contains("notifications/tools/list_changed"));
}

#[tokio::test]
async fn a_2025_11_25_stream_is_primed_and_resumable() {
    let f = fixture().await;
    let session = initialize(&f, "2025-11-25").await;
    let mut call = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "chatty", "_meta": {"progressToken": 1}}});
    call["params"]["arguments"] = json!({});
    let response = f
        .post()
        .header("mcp-session-id", &session)
        .body(call.to_string())
        .send()
        .await
        .unwrap();
    let text = response.text().await.unwrap();
    let first_event = text.split("\n\n").next().unwrap();
    assert!(
        first_event.contains("retry: ") && first_event.contains("id: "),
        "priming event: {first_event:?}"
    );
    let ids: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("id: "))
        .collect();
    assert!(ids.len() >= 3, "{text}");
    // resume after the priming event: the rest of the stream is replayed, ending with the result
    let resumed = f
        .http
        .get(f.running.url())
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &session)
        .header("last-event-id", ids[0])
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let messages = sse_messages(&resumed);
    assert_eq!(messages.last().unwrap()["id"], 7, "{resumed}");
    assert_eq!(messages[0]["method"], "notifications/progress");
}

/// The resumption buffer is bounded in bytes too: the oldest events go first, the newest (the
/// result) stays.
#[tokio::test]
async fn the_resumption_buffer_keeps_at_most_its_bytes() {
    let f = fixture_with(HttpOptions::default().event_buffer_bytes(200)).await;
    let session = initialize(&f, "2025-11-25").await;
    let call = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": "chatty", "arguments": {}, "_meta": {"progressToken": 1}}});
    let text = f
        .post()
        .header("mcp-session-id", &session)
        .body(call.to_string())
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let ids: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("id: "))
        .collect();
    assert!(ids.len() >= 3, "{text}");
    let resumed = f
        .http
        .get(f.running.url())
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &session)
        .header("last-event-id", ids[0])
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let messages = sse_messages(&resumed);
    assert_eq!(messages.last().unwrap()["id"], 7, "{resumed}");
    let kept: usize = messages.iter().map(|m| m.to_string().len()).sum();
    assert!(
        kept <= 200 || messages.len() == 1,
        "{kept} bytes kept: {resumed}"
    );
    assert!(
        messages.len() < ids.len() - 1,
        "older events were let go: {resumed}"
    );
}

#[tokio::test]
async fn a_handler_closes_its_stream_and_the_client_resumes_for_the_rest() {
    let f = fixture().await;
    let session = initialize(&f, "2025-11-25").await;
    let call = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call",
        "params": {"name": "polling", "arguments": {}, "_meta": {"progressToken": "p"}}});
    let response = f
        .post()
        .header("mcp-session-id", &session)
        .body(call.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    let text = response.text().await.unwrap();
    let ids: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("id: "))
        .collect();
    assert_eq!(ids.len(), 1, "only the priming event: {text:?}");
    assert!(text.contains("retry: "), "{text:?}");
    assert!(
        sse_messages(&text).is_empty(),
        "nothing but the priming event: {text:?}"
    );
    let resumed = f
        .http
        .get(f.running.url())
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &session)
        .header("last-event-id", ids[0])
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let messages = sse_messages(&resumed);
    assert_eq!(messages.len(), 2, "{resumed}");
    assert_eq!(messages[0]["params"]["message"], "after the close");
    assert_eq!(messages[1]["id"], 9);
    assert_eq!(messages[1]["result"]["content"][0]["text"], "closed: true");
}

#[tokio::test]
async fn a_stream_without_a_priming_event_is_not_closed() {
    let f = fixture().await;
    let session = initialize(&f, "2025-06-18").await;
    let call = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "polling", "arguments": {}}});
    let (status, _, answer) = f
        .send(
            f.post()
                .header("mcp-session-id", &session)
                .header("mcp-protocol-version", "2025-06-18")
                .body(call.to_string()),
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(
        answer["result"]["content"][0]["text"], "closed: false",
        "{answer}"
    );
}

/// A batch costs at most one answer per member and at most `MAX_BATCH_MEMBERS` members: a
/// body of junk members is refused whole, and without a session before it is split apart.
#[tokio::test]
async fn a_batch_of_junk_is_refused_whole() {
    let f = fixture().await;
    let junk = format!("[{}1]", "1,".repeat(900_000));
    let (status, _, r) = f.send(f.post().body(junk.clone())).await;
    assert_eq!(status, 400);
    assert_eq!(r["error"]["code"], -32600, "{r}");
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("batches are not allowed"),
        "{r}"
    );
    let session = initialize(&f, "2025-03-26").await;
    let (status, _, r) = f
        .send(f.post().header("mcp-session-id", &session).body(junk))
        .await;
    assert_eq!(status, 200);
    assert!(r.is_object(), "one answer, not one per member");
    assert_eq!(r["error"]["code"], -32600, "{r}");
    assert!(
        r["error"]["message"].as_str().unwrap().contains(&format!(
            "more than {} members",
            presa_core::MAX_BATCH_MEMBERS
        )),
        "{r}"
    );
    // a batch within the limit is still answered member by member
    let (_, _, r) = f
        .send(f.post().header("mcp-session-id", &session).body("[1,2,3]"))
        .await;
    assert_eq!(r.as_array().map(Vec::len), Some(3), "{r}");
}

#[tokio::test]
async fn the_batch_limit_is_an_option() {
    let f = fixture_with(HttpOptions::default().max_batch_members(2)).await;
    let session = initialize(&f, "2025-03-26").await;
    let in_session = |body: &str| {
        f.post()
            .header("mcp-session-id", &session)
            .body(body.to_owned())
    };
    let (_, _, r) = f.send(in_session("[1,2,3]")).await;
    assert_eq!(r["error"]["code"], -32600, "{r}");
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("more than 2 members"),
        "{r}"
    );
    let (_, _, r) = f.send(in_session("[1,2]")).await;
    assert_eq!(r.as_array().map(Vec::len), Some(2), "{r}");
}

#[tokio::test]
async fn batches_only_in_2025_03_26_sessions() {
    let f = fixture().await;
    let session = initialize(&f, "2025-03-26").await;
    let batch = format!(
        "[{},{}]",
        legacy_request(1, "tools/list", json!({})),
        legacy_request(2, "ping", json!({}))
    );
    let (status, _, r) = f
        .send(
            f.post()
                .header("mcp-session-id", &session)
                .body(batch.clone()),
        )
        .await;
    assert_eq!(status, 200);
    let ids: HashSet<i64> = r
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_i64().unwrap())
        .collect();
    assert_eq!(ids, HashSet::from([1, 2]));
    let newer = initialize(&f, "2025-06-18").await;
    let (status, ..) = f
        .send(f.post().header("mcp-session-id", &newer).body(batch))
        .await;
    assert_eq!(status, 400);
}

#[tokio::test]
async fn the_router_mounts_in_another_app() {
    use axum::Router;
    use axum::routing::get;
    let server = test_server(Arc::new(Notify::new()));
    let app: Router = Router::new()
        .route("/health", get(|| async { "ok" }))
        .merge(presa_http::router(
            server,
            HttpOptions::default().path("/api/mcp"),
        ))
        .layer(axum::middleware::from_fn(
            |request: axum::extract::Request, next: axum::middleware::Next| async move {
                let mut response = next.run(request).await;
                response
                    .headers_mut()
                    .insert("x-app", axum::http::HeaderValue::from_static("yes"));
                response
            },
        ));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    let http = reqwest::Client::new();
    assert_eq!(
        http.get(format!("http://{addr}/health"))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap(),
        "ok"
    );
    let body = request(1, "tools/list", json!({}));
    let response = http
        .post(format!("http://{addr}/api/mcp"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/list")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(response.headers()["x-app"], "yes");
    let r: Value = serde_json::from_str(&response.text().await.unwrap()).unwrap();
    assert_eq!(r["result"]["tools"][0]["name"], "quick");
}

#[tokio::test]
async fn stop_is_graceful() {
    let f = fixture().await;
    let session = initialize(&f, "2025-11-25").await;
    let response = f
        .http
        .get(f.running.url())
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &session)
        .send()
        .await
        .unwrap();
    let reading = tokio::spawn(async move { response.text().await });
    f.running.stop().await.unwrap();
    assert!(
        reading.await.unwrap().is_ok(),
        "the event stream ended cleanly"
    );
}

#[tokio::test]
async fn a_large_batch_is_answered_in_full() {
    let f = fixture().await;
    let session = initialize(&f, "2025-03-26").await;
    let pings: Vec<String> = (1..=600)
        .map(|id| legacy_request(id, "ping", json!({})).to_string())
        .collect();
    let (status, _, r) = f
        .send(
            f.post()
                .header("mcp-session-id", &session)
                .body(format!("[{}]", pings.join(","))),
        )
        .await;
    assert_eq!(status, 200, "{r}");
    let ids: HashSet<i64> = r
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_i64().unwrap())
        .collect();
    assert_eq!(ids, (1..=600).collect::<HashSet<i64>>());
}
