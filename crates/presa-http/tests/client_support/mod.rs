//! A scriptable MCP endpoint on 127.0.0.1 for the client transport's tests: every HTTP request
//! is handed to the test, which answers it as the scenario needs.

#![allow(dead_code, unreachable_pub, clippy::unwrap_used, clippy::expect_used)]

use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::Response;
use presa_client::{ClientChannel, TransportEvent};
use presa_core::{
    Message, ParamHeaders, ProtocolVersion, ResponsePayload, Transmit, decode_message,
    request_headers,
};
use presa_http::HttpClientOptions;
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};

/// How long a test waits for anything before failing.
pub const PATIENCE: Duration = Duration::from_secs(10);

/// One HTTP request the client made, waiting for the test's answer.
#[derive(Debug)]
pub struct Exchange {
    pub method: Method,
    pub uri: Uri,
    pub headers: HeaderMap,
    pub body: Bytes,
    reply: oneshot::Sender<Response>,
}

impl Exchange {
    /// A header's value, as text.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).map(|v| v.to_str().unwrap())
    }

    /// The body as JSON.
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap()
    }

    /// The JSON-RPC method of the body; empty for a body without one (GET, DELETE).
    pub fn rpc_method(&self) -> String {
        let body: Value = serde_json::from_slice(&self.body).unwrap_or_default();
        body["method"].as_str().unwrap_or_default().to_owned()
    }

    /// The JSON-RPC id of the body.
    pub fn rpc_id(&self) -> Value {
        self.json()["id"].clone()
    }

    pub fn respond(self, status: u16, headers: &[(&str, &str)], body: impl Into<Body>) {
        let mut response = Response::new(body.into());
        *response.status_mut() = StatusCode::from_u16(status).unwrap();
        for (name, value) in headers {
            response.headers_mut().insert(
                axum::http::HeaderName::from_bytes(name.as_bytes()).unwrap(),
                value.parse().unwrap(),
            );
        }
        let _ = self.reply.send(response);
    }

    pub fn respond_json(self, status: u16, body: &Value) {
        self.respond_json_with(status, &[], body);
    }

    pub fn respond_json_with(self, status: u16, headers: &[(&str, &str)], body: &Value) {
        let mut all = vec![("content-type", "application/json")];
        all.extend_from_slice(headers);
        self.respond(status, &all, body.to_string());
    }

    /// Answers with the JSON-RPC result `result` for this request's id.
    pub fn respond_result(self, result: Value) {
        let id = self.rpc_id();
        self.respond_json(
            200,
            &serde_json::json!({"jsonrpc": "2.0", "id": id, "result": result}),
        );
    }

    /// Answers `202 Accepted` with no body.
    pub fn accept(self) {
        self.respond(202, &[], Body::empty());
    }

    /// Starts an event stream; what is sent on the returned stream reaches the client, and
    /// dropping it ends the response.
    pub fn respond_sse(self, headers: &[(&str, &str)]) -> SseStream {
        let (tx, rx) = mpsc::channel::<Bytes>(16);
        let stream = futures_util::stream::unfold(rx, |mut rx| async move {
            rx.recv()
                .await
                .map(|chunk| (Ok::<_, Infallible>(chunk), rx))
        });
        let mut all = vec![("content-type", "text/event-stream")];
        all.extend_from_slice(headers);
        self.respond(200, &all, Body::from_stream(stream));
        SseStream(tx)
    }
}

/// The server's end of an event stream.
#[derive(Debug)]
pub struct SseStream(mpsc::Sender<Bytes>);

impl SseStream {
    /// Sends raw SSE text.
    pub async fn raw(&self, text: &str) {
        self.0
            .send(Bytes::from(text.to_owned()))
            .await
            .expect("the client still reads the stream");
    }

    /// Sends one `data:` event holding `message`.
    pub async fn message(&self, message: &Value) {
        self.raw(&format!("data: {message}\n\n")).await;
    }

    /// Resolves once the client has stopped reading (the connection is gone).
    pub async fn closed(&self) {
        tokio::time::timeout(PATIENCE, self.0.closed())
            .await
            .expect("the client closes the stream");
    }
}

/// The endpoint: `url` goes to the client, `next` hands over what it sends.
pub struct Mock {
    pub url: String,
    requests: mpsc::Receiver<Exchange>,
}

impl Mock {
    pub async fn start() -> Self {
        let (tx, requests) = mpsc::channel(64);
        let app = Router::new().route(
            "/mcp",
            axum::routing::any(
                move |method: Method, uri: Uri, headers: HeaderMap, body: Bytes| {
                    let tx = tx.clone();
                    async move {
                        let (reply, response) = oneshot::channel();
                        let exchange = Exchange {
                            method,
                            uri,
                            headers,
                            body,
                            reply,
                        };
                        if tx.send(exchange).await.is_err() {
                            return Response::new(Body::empty());
                        }
                        response
                            .await
                            .unwrap_or_else(|_| Response::new(Body::empty()))
                    }
                },
            ),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/mcp", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await });
        Self { url, requests }
    }

    /// The next request the client makes.
    pub async fn next(&mut self) -> Exchange {
        tokio::time::timeout(PATIENCE, self.requests.recv())
            .await
            .expect("the client makes another request")
            .expect("the server is running")
    }

    /// Whether a request is waiting right now.
    pub fn try_next(&mut self) -> Option<Exchange> {
        self.requests.try_recv().ok()
    }
}

/// A transport and the log lines it wrote. It hands the transport what a client session would:
/// each message with the revision of the session's mode (the last 2026-07-28 request's, or the
/// initialize-era session's once an `initialize` result came back) and, for 2026-07-28
/// messages, the mirror headers presa-core makes for them.
pub struct Transport {
    pub channel: ClientChannel,
    pub log: Arc<Mutex<Vec<String>>>,
    mode: Mode,
}

#[derive(Clone, Copy, Debug)]
enum Mode {
    None,
    Stateless(ProtocolVersion),
    Initializing,
    Initialized(ProtocolVersion),
}

/// A message for [`Transport::send`]: a 2026-07-28 request (optionally with the called tool's
/// annotations), or any message sent in the session's current mode.
pub enum Outgoing {
    Stateless {
        message: Value,
        tool: Option<ParamHeaders>,
    },
    InMode(Value),
}

impl From<Value> for Outgoing {
    fn from(message: Value) -> Self {
        Self::InMode(message)
    }
}

impl Transport {
    pub fn connect(url: &str) -> Self {
        Self::with(url, HttpClientOptions::default())
    }

    pub fn with(url: &str, options: HttpClientOptions) -> Self {
        let log = Arc::new(Mutex::new(Vec::new()));
        let lines = log.clone();
        let options = options.log(move |line| lines.lock().unwrap().push(line.to_owned()));
        let channel = presa_http::client(url, options).unwrap();
        Self {
            channel,
            log,
            mode: Mode::None,
        }
    }

    /// Sends a message given as JSON.
    pub async fn send(&mut self, outgoing: impl Into<Outgoing>) {
        let transmit = match outgoing.into() {
            Outgoing::Stateless { message, tool } => {
                let version = ProtocolVersion::V2026_07_28;
                self.mode = Mode::Stateless(version);
                let headers = request_headers(
                    version.as_str(),
                    message["method"].as_str().unwrap(),
                    message.get("params"),
                    tool.as_ref(),
                )
                .unwrap();
                Transmit::new(decode(&message), None)
                    .with_protocol_version(version)
                    .with_headers(headers)
            }
            Outgoing::InMode(message) => {
                if message["method"] == "initialize" {
                    self.mode = Mode::Initializing;
                }
                let message = decode(&message);
                match self.mode {
                    Mode::Stateless(version) => {
                        let method = message.method().unwrap_or_default();
                        let headers =
                            request_headers(version.as_str(), method, None, None).unwrap();
                        Transmit::new(message, None)
                            .with_protocol_version(version)
                            .with_headers(headers)
                    }
                    Mode::Initialized(version) => {
                        Transmit::new(message, None).with_protocol_version(version)
                    }
                    Mode::None | Mode::Initializing => Transmit::new(message, None),
                }
            }
        };
        self.channel.outgoing.send(transmit).await.unwrap();
    }

    /// The next event from the transport.
    pub async fn event(&mut self) -> TransportEvent {
        let event = tokio::time::timeout(PATIENCE, self.channel.incoming.recv())
            .await
            .expect("the transport reports something")
            .expect("the transport is open");
        if let (Mode::Initializing, TransportEvent::Message(Message::Response(response))) =
            (self.mode, &event)
            && let ResponsePayload::Result(result) = &response.payload
            && let Ok(result) = serde_json::from_str::<Value>(result.get())
            && let Some(version) = result["protocolVersion"].as_str()
        {
            self.mode = Mode::Initialized(version.parse().unwrap());
        }
        event
    }

    /// The next event, which must be a message; as JSON.
    pub async fn message(&mut self) -> Value {
        match self.event().await {
            TransportEvent::Message(message) => to_json(&message),
            other => panic!("expected a message, got {other:?}"),
        }
    }

    pub fn logged(&self) -> Vec<String> {
        self.log.lock().unwrap().clone()
    }

    /// Closes the client side; the transport then ends with `Closed`.
    pub fn close(self) -> mpsc::Receiver<TransportEvent> {
        let ClientChannel { outgoing, incoming } = self.channel;
        drop(outgoing);
        incoming
    }
}

pub fn to_json(message: &Message) -> Value {
    serde_json::from_str(&message.to_json()).unwrap()
}

fn decode(message: &Value) -> Message {
    decode_message(message.to_string().as_bytes()).unwrap()
}

/// A 2026-07-28 request.
pub fn modern(id: i64, method: &str, mut params: Value) -> Outgoing {
    params["_meta"] = serde_json::json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}
    });
    let message =
        serde_json::json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    Outgoing::Stateless {
        message,
        tool: None,
    }
}

/// A 2026-07-28 `tools/call` of a tool with `x-mcp-header` annotations.
pub fn modern_call(id: i64, params: Value, tool: ParamHeaders) -> Outgoing {
    match modern(id, "tools/call", params) {
        Outgoing::Stateless { message, .. } => Outgoing::Stateless {
            message,
            tool: Some(tool),
        },
        other => other,
    }
}

/// An initialize-era request.
pub fn legacy(id: i64, method: &str, params: Value) -> Value {
    serde_json::json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// A notification.
pub fn notification(method: &str, params: Value) -> Value {
    serde_json::json!({"jsonrpc": "2.0", "method": method, "params": params})
}
