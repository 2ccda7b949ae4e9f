//! A fake MCP server on presa-core's `ServerSession`, driven on a tokio task at the other end
//! of a presa-client `ClientChannel`. Every message goes through its JSON encoding both ways.
//!
//! [`spawn`] starts it and returns the channel to connect a `Client` on, and the test's
//! [`Fake`], which sees what the client sent and makes the server notify, fail or close. The
//! server serves a fixed catalogue: three pages of tools (`alpha`, `beta`, `gamma`), one prompt,
//! one resource and one template, completions, and tools that echo, add, fail, wait, report
//! progress, log, and ask the client for input (`ask`, `sample`, `roots`) the way each era does.
//! [`FakeConfig`] sets the revisions it speaks and how it answers `server/discover`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use presa_client::{ClientChannel, TransportError, TransportErrorKind, TransportEvent};
use presa_core::*;
use serde_json::{Value, json};
use tokio::sync::mpsc;

/// How the fake answers `server/discover`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Discover {
    /// As the session does: a result, or `-32022` when it speaks no 2026 revision.
    Session,
    /// `-32601`, like a legacy server.
    MethodNotFound,
    /// Never, like some legacy servers.
    Silent,
    /// `-32022` listing `2026-07-28` once (like the conformance runner), then as the session.
    UnsupportedOnce,
    /// The transport fails the request, like an HTTP 404 without a JSON-RPC body.
    HttpError,
}

#[derive(Clone, Debug)]
/// What the fake server speaks and how it answers.
pub struct FakeConfig {
    /// The revisions its session supports (default: all).
    pub versions: SupportedVersions,
    /// How it answers `server/discover`.
    pub discover: Discover,
    /// `ttlMs` of list and read results (2026-07-28 only).
    pub ttl_ms: u64,
    /// `ttlMs` of the `server/discover` result.
    pub discover_ttl_ms: u64,
    /// The last `tools/list` page also lists `routed` (valid `x-mcp-header` annotations) and
    /// `broken` (an invalid one).
    pub annotated_tools: bool,
}

impl Default for FakeConfig {
    fn default() -> Self {
        Self {
            versions: SupportedVersions::all(),
            discover: Discover::Session,
            ttl_ms: 0,
            discover_ttl_ms: 0,
            annotated_tools: false,
        }
    }
}

impl FakeConfig {
    /// A server of the initialize era only (2025-11-25 and 2025-06-18).
    pub fn legacy() -> Self {
        Self {
            versions: SupportedVersions::new([
                ProtocolVersion::V2025_11_25,
                ProtocolVersion::V2025_06_18,
            ])
            .unwrap(),
            ..Self::default()
        }
    }
}

#[derive(Debug)]
enum Control {
    Notify(Notification),
    Raw(Message),
    Close(Option<TransportError>),
    Fail(RequestId, TransportError),
    Release,
    CancelAsked,
}

/// What the client's session handed the transport with one message, besides the message.
#[derive(Clone, Debug)]
pub struct Sent {
    /// The message's method (`None` for a response).
    pub method: Option<String>,
    /// The revision the client's session named for the message.
    pub protocol_version: Option<ProtocolVersion>,
    /// The HTTP headers the client's session made for the message.
    pub headers: Vec<(String, String)>,
}

impl Sent {
    /// The value of the header `name` (any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// The test's side of the fake.
#[derive(Debug)]
pub struct Fake {
    seen: mpsc::UnboundedReceiver<Value>,
    control: mpsc::UnboundedSender<Control>,
    sent: Arc<Mutex<Vec<Sent>>>,
}

impl Fake {
    /// What came with the client's last message of `method`.
    pub fn last_sent(&self, method: &str) -> Option<Sent> {
        let sent = self.sent.lock().unwrap();
        sent.iter()
            .rev()
            .find(|s| s.method.as_deref() == Some(method))
            .cloned()
    }

    /// Every message the client sent that the fake has taken in so far.
    pub fn drain(&mut self) -> Vec<Value> {
        let mut all = Vec::new();
        while let Ok(m) = self.seen.try_recv() {
            all.push(m);
        }
        all
    }

    /// Waits for the next client message matching `pred`, skipping others.
    pub async fn next(&mut self, pred: impl Fn(&Value) -> bool) -> Value {
        let wait = async {
            loop {
                let m = self.seen.recv().await.expect("the fake ended");
                if pred(&m) {
                    return m;
                }
            }
        };
        // a guard against hanging, not a timing assumption (time is paused in these tests)
        tokio::time::timeout(Duration::from_secs(3600), wait)
            .await
            .expect("the awaited message never came")
    }

    /// Waits until the client closed its side (the fake then ends).
    pub async fn ended(&mut self) {
        let wait = async { while self.seen.recv().await.is_some() {} };
        tokio::time::timeout(Duration::from_secs(3600), wait)
            .await
            .expect("the client never closed");
    }

    /// Waits for the client's request of `method`.
    pub async fn request(&mut self, method: &str) -> Value {
        let method = method.to_owned();
        self.next(move |m| m["method"] == method.as_str() && m.get("id").is_some())
            .await
    }

    /// Makes the server's session send the notification `method` with `params`.
    pub fn notify(&self, method: &str, params: Value) {
        let n = Notification::new(method, &params).unwrap();
        self.control.send(Control::Notify(n)).unwrap();
    }

    /// Sends `message` to the client as is, bypassing the session.
    pub fn raw(&self, message: Value) {
        let message = decode_message(message.to_string().as_bytes()).unwrap();
        self.control.send(Control::Raw(message)).unwrap();
    }

    /// Closes the transport, reporting `error` to the client (`None`: a clean close).
    pub fn close(&self, error: Option<TransportError>) {
        self.control.send(Control::Close(error)).unwrap();
    }

    /// Makes the transport fail the client's request `id` with `error`.
    pub fn fail(&self, id: RequestId, error: TransportError) {
        self.control.send(Control::Fail(id, error)).unwrap();
    }

    /// Cancels every request the fake sent the client, answering the calls they served.
    pub fn cancel_asked(&self) {
        self.control.send(Control::CancelAsked).unwrap();
    }

    /// Answers every parked (`slow`) call with "released".
    pub fn release(&self) {
        self.control.send(Control::Release).unwrap();
    }
}

/// The JSON-RPC id of `message`.
pub fn id_of(message: &Value) -> RequestId {
    serde_json::from_value(message["id"].clone()).unwrap()
}

/// Starts a fake server; returns the client's channel and the test's handle.
pub fn spawn(config: FakeConfig) -> (ClientChannel, Fake) {
    let (to_server, from_client) = mpsc::channel(8);
    let (to_client, incoming) = mpsc::channel(8);
    let (seen_tx, seen) = mpsc::unbounded_channel();
    let (control, control_rx) = mpsc::unbounded_channel();
    let capabilities: ServerCapabilities = serde_json::from_value(json!({
        "tools": {"listChanged": true},
        "resources": {"listChanged": true, "subscribe": true},
        "prompts": {},
        "completions": {},
        "logging": {}
    }))
    .unwrap();
    let session = ServerSession::new(
        ServerSessionConfig::new(Implementation::new("fake", "1.2.3"))
            .versions(config.versions.clone())
            .capabilities(capabilities)
            .instructions(Some("Be nice.".into()))
            .discover_cache(config.discover_ttl_ms, CacheScope::Public),
    );
    let sent = Arc::new(Mutex::new(Vec::new()));
    let server = Server {
        config,
        session,
        to_client,
        seen: seen_tx,
        sent: Arc::clone(&sent),
        parked: Vec::new(),
        asked: HashMap::new(),
        refused_discover: false,
    };
    tokio::spawn(server.run(from_client, control_rx));
    (
        // mirror headers on, as over Streamable HTTP: the tests see what the session makes
        ClientChannel::new(to_server, incoming).with_mirror_headers(),
        Fake {
            seen,
            control,
            sent,
        },
    )
}

fn now() -> std::time::Instant {
    tokio::time::Instant::now().into_std()
}

fn wire(message: &Message) -> Message {
    decode_message(message.to_json().as_bytes()).unwrap()
}

struct Server {
    config: FakeConfig,
    session: ServerSession,
    to_client: mpsc::Sender<TransportEvent>,
    seen: mpsc::UnboundedSender<Value>,
    sent: Arc<Mutex<Vec<Sent>>>,
    parked: Vec<RequestId>,
    /// Requests this server sent to the client → the client call they serve.
    asked: HashMap<RequestId, RequestId>,
    refused_discover: bool,
}

impl Server {
    async fn run(
        mut self,
        mut from_client: mpsc::Receiver<Transmit>,
        mut control: mpsc::UnboundedReceiver<Control>,
    ) {
        loop {
            tokio::select! {
                transmit = from_client.recv() => match transmit {
                    Some(transmit) => {
                        self.sent.lock().unwrap().push(Sent {
                            method: transmit.message.method().map(str::to_owned),
                            protocol_version: transmit.protocol_version,
                            headers: transmit.headers,
                        });
                        let message = transmit.message;
                        let _ = self.seen.send(serde_json::from_str(&message.to_json()).unwrap());
                        self.take(wire(&message)).await;
                    }
                    None => {
                        // the client dropped its sender: the transport closes
                        let _ = self.to_client.send(TransportEvent::Closed(None)).await;
                        return;
                    }
                },
                Some(c) = control.recv() => match c {
                    Control::Notify(n) => self.session.notify(n, None),
                    Control::Raw(message) => self.send(message).await,
                    Control::Close(error) => {
                        let _ = self.to_client.send(TransportEvent::Closed(error)).await;
                        return;
                    }
                    Control::Fail(id, error) => {
                        let _ = self.to_client.send(TransportEvent::RequestFailed { id, error }).await;
                    }
                    Control::CancelAsked => {
                        for (asked, call) in std::mem::take(&mut self.asked) {
                            self.session.cancel(&asked, Some("changed my mind"));
                            self.answer(&call, tool_text("cancelled"));
                        }
                    }
                    Control::Release => {
                        for id in std::mem::take(&mut self.parked) {
                            self.answer(&id, json!({"content": [{"type": "text", "text": "released"}]}));
                        }
                    }
                },
            }
            self.pump().await;
        }
    }

    async fn take(&mut self, message: Message) {
        if let Message::Request(r) = &message
            && r.method == "server/discover"
        {
            match self.config.discover {
                Discover::Silent => return,
                Discover::MethodNotFound => {
                    let e = ErrorObject::method_not_found(&r.method);
                    return self
                        .send(Response::error(Some(r.id.clone()), e).into())
                        .await;
                }
                Discover::HttpError => {
                    let error = TransportError::new(TransportErrorKind::Protocol, "HTTP 404");
                    let failed = TransportEvent::RequestFailed {
                        id: r.id.clone(),
                        error,
                    };
                    let _ = self.to_client.send(failed).await;
                    return;
                }
                Discover::UnsupportedOnce if !self.refused_discover => {
                    self.refused_discover = true;
                    let e =
                        ErrorObject::new(ErrorCode::UNSUPPORTED_PROTOCOL_VERSION, "Unsupported")
                            .with_data(
                                json!({"supported": ["2026-07-28"], "requested": "2026-07-28"}),
                            );
                    return self
                        .send(Response::error(Some(r.id.clone()), e).into())
                        .await;
                }
                _ => {}
            }
        }
        self.session.handle_message(now(), message);
    }

    async fn send(&mut self, message: Message) {
        let _ = self
            .to_client
            .send(TransportEvent::Message(wire(&message)))
            .await;
    }

    async fn pump(&mut self) {
        loop {
            let mut moved = false;
            while let Some(t) = self.session.poll_transmit() {
                moved = true;
                self.send(t.message).await;
            }
            while let Some(event) = self.session.poll_event() {
                moved = true;
                self.event(event);
            }
            if !moved {
                return;
            }
        }
    }

    fn answer(&mut self, id: &RequestId, result: Value) {
        self.session.respond(id, Ok(to_raw(&result).unwrap()));
    }

    fn fail(&mut self, id: &RequestId, error: ErrorObject) {
        self.session.respond(id, Err(error));
    }

    fn event(&mut self, event: ServerEvent) {
        match event {
            ServerEvent::Request(request) => self.serve(request),
            ServerEvent::Cancelled { id, .. } => self.parked.retain(|p| *p != id),
            ServerEvent::Response { id, outcome, .. } => {
                let Some(call) = self.asked.remove(&id) else {
                    return;
                };
                let text = match outcome {
                    Ok(raw) => {
                        let v: Value = serde_json::from_str(raw.get()).unwrap();
                        match v["roots"].as_array() {
                            Some(roots) => format!("{} roots", roots.len()),
                            None => v["content"]["text"]
                                .as_str()
                                .or(v["content"]["name"].as_str())
                                .unwrap_or("?")
                                .to_owned(),
                        }
                    }
                    Err(RequestError::Peer(e)) => format!("client error {}", e.code),
                    Err(e) => format!("{e}"),
                };
                self.answer(&call, tool_text(&text));
            }
            _ => {}
        }
    }

    fn serve(&mut self, request: IncomingRequest) {
        let params: Value = request
            .params
            .as_ref()
            .map(|p| serde_json::from_str(p.get()).unwrap())
            .unwrap_or(json!({}));
        let modern = request.client.protocol_version.era() == Era::Stateless;
        let id = request.id.clone();
        let cache = |mut v: Value, ttl: u64| {
            if modern {
                v["resultType"] = json!("complete");
                v["ttlMs"] = json!(ttl);
                v["cacheScope"] = json!("public");
            }
            v
        };
        let ttl = self.config.ttl_ms;
        match request.method.as_str() {
            "tools/list" => {
                let page = match params.get("cursor").and_then(Value::as_str) {
                    None => json!({"tools": [tool("alpha")], "nextCursor": ""}),
                    Some("") => json!({"tools": [tool("beta")], "nextCursor": "p2"}),
                    Some("p2") if self.config.annotated_tools => json!({"tools": [
                        tool("gamma"),
                        {"name": "routed", "inputSchema": {"type": "object", "properties": {
                            "region": {"type": "string", "x-mcp-header": "Region"},
                            "tenant": {"type": "string", "x-mcp-header": "Tenant"}}}},
                        {"name": "broken", "inputSchema": {"type": "object", "properties": {
                            "ratio": {"type": "number", "x-mcp-header": "Ratio"}}}}
                    ]}),
                    Some("p2") => json!({"tools": [tool("gamma")]}),
                    Some(_) => {
                        return self.fail(&id, ErrorObject::invalid_params("Invalid cursor"));
                    }
                };
                self.answer(&id, cache(page, ttl));
            }
            "prompts/list" => {
                let page = json!({"prompts": [{"name": "introduce", "arguments": [{"name": "id", "required": true}]}]});
                self.answer(&id, cache(page, ttl));
            }
            "resources/list" => {
                let page = json!({"resources": [{"uri": "file:///readme.txt", "name": "readme"}]});
                self.answer(&id, cache(page, ttl));
            }
            "resources/templates/list" => {
                let page = json!({"resourceTemplates": [{"uriTemplate": "people://{id}", "name": "person"}]});
                self.answer(&id, cache(page, ttl));
            }
            "resources/read" => {
                let uri = params["uri"].as_str().unwrap_or_default().to_owned();
                if uri == "file:///readme.txt" {
                    let read = json!({"contents": [{"uri": uri, "mimeType": "text/plain", "text": "Read me first."}]});
                    self.answer(&id, cache(read, ttl));
                } else {
                    let code = request.client.protocol_version.resource_not_found_code();
                    self.fail(
                        &id,
                        ErrorObject::new(code, "Resource not found").with_data(json!({"uri": uri})),
                    );
                }
            }
            "prompts/get" => match params["arguments"]["id"].as_str() {
                Some(who) => {
                    let text = format!("Introduce {who} in one sentence.");
                    self.answer(&id, json!({"messages": [{"role": "user", "content": {"type": "text", "text": text}}]}));
                }
                None => self.fail(
                    &id,
                    ErrorObject::invalid_params("Missing required argument: id"),
                ),
            },
            "completion/complete" => {
                let prefix = params["argument"]["value"].as_str().unwrap_or_default();
                let values: Vec<&str> = ["ada", "alan", "grace"]
                    .into_iter()
                    .filter(|v| v.starts_with(prefix))
                    .collect();
                let mut result = json!({"completion": {"values": values, "total": values.len(), "hasMore": false}});
                if let Some(schema) = params["context"]["arguments"]["schema"].as_str() {
                    result["completion"]["values"] = json!([schema]);
                }
                self.answer(&id, result);
            }
            "tools/call" => self.call(request, params),
            // acknowledges with what was asked, except prompts; the stream stays open
            "subscriptions/listen" => {
                let mut honoured = params["notifications"].clone();
                if let Some(filter) = honoured.as_object_mut() {
                    filter.remove("promptsListChanged");
                }
                let ack = SubscriptionsAcknowledgedNotificationParams::new(
                    &id,
                    serde_json::from_value(honoured).unwrap(),
                );
                let ack = Notification::new("notifications/subscriptions/acknowledged", &ack);
                self.session.notify(ack.unwrap(), Some(id));
            }
            "resources/subscribe" | "resources/unsubscribe" => {
                if params["uri"] == "file:///refused" {
                    return self.fail(&id, ErrorObject::invalid_params("Resource not found"));
                }
                self.answer(&id, json!({}));
            }
            other => {
                let e = ErrorObject::method_not_found(other);
                self.fail(&id, e);
            }
        }
    }

    fn call(&mut self, request: IncomingRequest, params: Value) {
        let id = request.id.clone();
        let modern = request.client.protocol_version.era() == Era::Stateless;
        let args = &params["arguments"];
        match params["name"].as_str().unwrap_or_default() {
            "echo" => self.answer(&id, tool_text(args["text"].as_str().unwrap_or_default())),
            "routed" => self.answer(&id, tool_text("routed")),
            "add" => {
                let sum: f64 = args["numbers"]
                    .as_array()
                    .map_or(0.0, |a| a.iter().filter_map(Value::as_f64).sum());
                self.answer(&id, json!({"content": [{"type": "text", "text": format!("{{\"sum\":{sum}}}")}], "structuredContent": {"sum": sum}}));
            }
            "boom" => self.answer(
                &id,
                json!({"content": [{"type": "text", "text": "it broke"}], "isError": true}),
            ),
            "slow" => self.parked.push(id),
            "progress" => {
                for step in [1.0, 2.0] {
                    let _ =
                        self.session
                            .progress(&id, step, Some(2.0), Some(format!("step {step}")));
                }
                self.answer(&id, tool_text("done"));
            }
            "log" => {
                self.session.log(
                    Some(&id),
                    LoggingLevel::Warning,
                    Some("fake"),
                    json!("careful"),
                );
                self.answer(&id, tool_text("logged"));
            }
            "ask" | "sample" | "roots" if modern => self.ask_modern(&id, &params),
            "sample_then_cancel" => {
                let Value::Object(p) = json!({"messages": [], "maxTokens": 5}) else {
                    unreachable!()
                };
                let asked = self
                    .session
                    .send_request(
                        now(),
                        "sampling/createMessage",
                        Some(p),
                        &RequestOptions::default(),
                        Some(id.clone()),
                    )
                    .unwrap();
                self.asked.insert(asked, id);
            }
            "ask" | "sample" | "roots" => {
                let (method, p) = match params["name"].as_str() {
                    Some("ask") => (
                        "elicitation/create",
                        json!({"message": "Your name?", "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}}),
                    ),
                    Some("sample") => (
                        "sampling/createMessage",
                        json!({"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": 5}),
                    ),
                    _ => ("roots/list", json!({})),
                };
                let Value::Object(p) = p else { unreachable!() };
                let asked = self
                    .session
                    .send_request(
                        now(),
                        method,
                        Some(p),
                        &RequestOptions::default(),
                        Some(id.clone()),
                    )
                    .unwrap();
                self.asked.insert(asked, id);
            }
            other => self.fail(
                &id,
                ErrorObject::invalid_params(format!("Unknown tool: {other}")),
            ),
        }
    }

    /// The 2026-07-28 way: ask in an `input_required` result, answer the retry.
    fn ask_modern(&mut self, id: &RequestId, params: &Value) {
        let responses = &params["inputResponses"];
        if let Some(state) = params.get("requestState") {
            assert_eq!(state, "s1", "requestState is echoed as is");
            let text = responses["q"]["content"]["name"]
                .as_str()
                .or(responses["q"]["content"]["text"].as_str())
                .map(str::to_owned)
                .or_else(|| {
                    responses["q"]["roots"]
                        .as_array()
                        .map(|r| format!("{} roots", r.len()))
                })
                .unwrap_or_else(|| "?".to_owned());
            return self.answer(id, tool_text(&text));
        }
        let request = match params["name"].as_str() {
            Some("ask") => {
                json!({"method": "elicitation/create", "params": {"message": "Your name?", "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}}})
            }
            Some("sample") => {
                json!({"method": "sampling/createMessage", "params": {"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": 5}})
            }
            _ => json!({"method": "roots/list"}),
        };
        self.answer(
            id,
            json!({"resultType": "input_required", "inputRequests": {"q": request}, "requestState": "s1"}),
        );
    }
}

fn tool(name: &str) -> Value {
    json!({"name": name, "inputSchema": {"type": "object"}})
}

/// A tool result holding one text block.
pub fn tool_text(text: &str) -> Value {
    json!({"content": [{"type": "text", "text": text}]})
}
