//! A scripted MCP endpoint on 127.0.0.1 for tests of HTTP clients: every HTTP request to
//! `/mcp` is handed to the test as an [`Exchange`], which the test answers as its scenario
//! needs: JSON, `202 Accepted`, any status and headers, or an event stream ([`SseStream`]) it
//! writes to as it goes.
//!
//! ```no_run
//! # async fn run() {
//! let mut mock = presa_test::http::Mock::start().await;
//! // point the client at mock.url, then:
//! let post = mock.next().await;
//! assert_eq!(post.rpc_method(), "server/discover");
//! post.respond_result(serde_json::json!({"resultType": "complete"}));
//! # }
//! ```

use std::convert::Infallible;
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::Response;
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};

/// How long a test waits for anything before failing.
pub const PATIENCE: Duration = Duration::from_secs(10);

/// One HTTP request the client made, waiting for the test's answer.
#[derive(Debug)]
pub struct Exchange {
    /// The HTTP method.
    pub method: Method,
    /// The request target.
    pub uri: Uri,
    /// The request's headers.
    pub headers: HeaderMap,
    /// The request's body.
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

    /// Answers with `status`, `headers` and `body`.
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

    /// Answers with `status` and `body` as `application/json`.
    pub fn respond_json(self, status: u16, body: &Value) {
        self.respond_json_with(status, &[], body);
    }

    /// Answers with `status`, `headers` and `body` as `application/json`.
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
#[derive(Debug)]
pub struct Mock {
    /// The endpoint's URL, `http://127.0.0.1:<port>/mcp`.
    pub url: String,
    requests: mpsc::Receiver<Exchange>,
}

impl Mock {
    /// Starts the endpoint on a free port of 127.0.0.1; it serves until the runtime ends.
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
