//! The client transport driven the way a client session drives it: [`Transport`] hands it
//! presa-core `Transmit`s built from JSON messages. The endpoint it talks to is presa-test's
//! scripted `http::Mock`.

use presa_client::{ClientChannel, TransportEvent};
use presa_core::{
    Message, ParamHeaders, ProtocolVersion, ResponsePayload, Transmit, request_headers,
};
use presa_http::HttpClientOptions;
use presa_test::http::PATIENCE;
use presa_test::message::{decode, request, to_json};
use presa_test::trace::{self, Capture, Captured};
use serde_json::Value;

/// A transport and the `tracing` events it emitted (recorded on the test's thread, where a
/// `#[tokio::test]` runs the transport's tasks). It hands the transport what a client session
/// would: each message with the revision of the session's mode (the last 2026-07-28 request's,
/// or the initialize-era session's once an `initialize` result came back) and, for 2026-07-28
/// messages, the mirror headers presa-core makes for them.
pub(crate) struct Transport {
    pub(crate) channel: ClientChannel,
    capture: Capture,
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
pub(crate) enum Outgoing {
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
    pub(crate) fn connect(url: &str) -> Self {
        Self::with(url, HttpClientOptions::default())
    }

    pub(crate) fn with(url: &str, options: HttpClientOptions) -> Self {
        // before the client exists, so nothing it emits is missed
        let capture = trace::capture();
        let channel = presa_http::client(url, options).unwrap();
        Self {
            channel,
            capture,
            mode: Mode::None,
        }
    }

    /// Sends a message given as JSON.
    pub(crate) async fn send(&mut self, outgoing: impl Into<Outgoing>) {
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
    pub(crate) async fn event(&mut self) -> TransportEvent {
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
    pub(crate) async fn message(&mut self) -> Value {
        match self.event().await {
            TransportEvent::Message(message) => to_json(&message),
            other => panic!("expected a message, got {other:?}"),
        }
    }

    /// The transport's diagnostics so far: its events at every level.
    pub(crate) fn events(&self) -> Vec<Captured> {
        self.capture.events("presa_http")
    }

    /// The problems the transport reported so far: its events at `warn` and above.
    pub(crate) fn warnings(&self) -> Vec<Captured> {
        let mut events = self.events();
        events.retain(|e| e.level <= tracing::Level::WARN);
        events
    }

    /// Closes the client side; the transport then ends with `Closed`.
    pub(crate) fn close(self) -> presa_client::Incoming {
        let ClientChannel {
            outgoing, incoming, ..
        } = self.channel;
        drop(outgoing);
        incoming
    }
}

/// A 2026-07-28 request (presa-test's `message::request`), sent as a 2026-07-28 `Transmit`.
pub(crate) fn modern(id: i64, method: &str, params: Value) -> Outgoing {
    Outgoing::Stateless {
        message: request(id, method, params),
        tool: None,
    }
}

/// A 2026-07-28 `tools/call` of a tool with `x-mcp-header` annotations.
pub(crate) fn modern_call(id: i64, params: Value, tool: ParamHeaders) -> Outgoing {
    match modern(id, "tools/call", params) {
        Outgoing::Stateless { message, .. } => Outgoing::Stateless {
            message,
            tool: Some(tool),
        },
        other => other,
    }
}
