//! What a transport gives the client: a pair of channels carrying messages.

use std::fmt;
use std::sync::Arc;

use presa_core::{Message, RequestId, Transmit, decode_message};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc};

/// The client's end of a transport: messages go out on `outgoing`, and everything the transport
/// has to say comes back on `incoming`.
///
/// Each outgoing [`Transmit`] carries, besides its message, what the client's session knows of
/// it: the revision it is sent under (its era: `protocol_version.era()`), and for a 2026-07-28
/// message the HTTP headers mirroring it. A byte-stream transport writes the message and
/// ignores the rest; Streamable HTTP needs no JSON reread to pick its headers.
///
/// A transport (stdio, Streamable HTTP, in-process) spawns whatever tasks it needs and hands the
/// client one of these. Dropping `outgoing` asks the transport to close (stdio: close the
/// server's stdin, wait, then terminate it); the transport then sends
/// [`TransportEvent::Closed`] and drops its sender.
///
/// ```
/// use presa_client::ClientChannel;
/// use tokio::sync::mpsc;
///
/// let (outgoing, _to_server) = mpsc::channel(16);
/// let (_to_client, incoming) = mpsc::channel(16);
/// let channel = ClientChannel::new(outgoing, incoming);
/// assert!(!channel.mirror_headers, "a byte stream needs no headers");
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub struct ClientChannel {
    /// Messages from the client to the server, in order.
    pub outgoing: mpsc::Sender<Transmit>,
    /// What the transport received or noticed.
    pub incoming: Incoming,
    /// Whether the transport sends 2026-07-28 messages with the HTTP headers that mirror them
    /// ([`Transmit::headers`]): the client's session then makes them (Streamable HTTP does;
    /// stdio and in-process need none).
    pub mirror_headers: bool,
    /// What the client's spans say the transport is, as OpenTelemetry's conventions name it:
    /// `network.transport` (`pipe` for stdio, `tcp` for Streamable HTTP) and
    /// `network.protocol.name` (`http`); none for a transport without a network (in-process).
    pub network: Network,
}

/// What a transport received, on its way to the client. Made from a plain
/// `mpsc::Receiver<TransportEvent>` (bounded in count: a transport whose messages are already
/// in memory), with [`Incoming::serialized`] from the messages of a server in the same process,
/// or with [`incoming`], bounded in bytes as well: a transport reading a socket or a pipe then
/// stops reading while the client holds as many bytes of messages as it allows, however slowly
/// the client takes them.
#[derive(Debug)]
pub struct Incoming(Receiver);

#[derive(Debug)]
enum Receiver {
    Counted(mpsc::Receiver<TransportEvent>),
    Budgeted(mpsc::Receiver<Budgeted>),
    Serialized(mpsc::Receiver<Transmit>),
}

/// An event, with the share of the byte budget it holds until the client takes it.
#[derive(Debug)]
struct Budgeted {
    event: TransportEvent,
    _bytes: Option<OwnedSemaphorePermit>,
}

impl Incoming {
    /// The next event, once there is one; `None` when the transport has dropped its sender and
    /// every event was taken. Cancel-safe.
    pub async fn recv(&mut self) -> Option<TransportEvent> {
        match &mut self.0 {
            Receiver::Counted(events) => events.recv().await,
            // the event's bytes return to the budget as it is taken
            Receiver::Budgeted(events) => events.recv().await.map(|budgeted| budgeted.event),
            Receiver::Serialized(messages) => messages.recv().await.map(reparsed),
        }
    }

    /// The messages a server in this process sends, each serialized to JSON and parsed again
    /// as it is taken, exactly as if it had crossed a pipe: no task of the transport's stands
    /// between the two ends. The server's dropping its sender ends the events; a message that
    /// does not survive the trip comes as [`TransportEvent::Closed`] with a protocol error
    /// (where the client stops reading).
    pub fn serialized(messages: mpsc::Receiver<Transmit>) -> Self {
        Self(Receiver::Serialized(messages))
    }
}

/// A message after a trip through its JSON text; one that does not survive it is reported as
/// the transport closing with a protocol error.
fn reparsed(transmit: Transmit) -> TransportEvent {
    match decode_message(transmit.message.to_json().as_bytes()) {
        Ok(message) => TransportEvent::Message(message),
        Err(error) => TransportEvent::Closed(Some(TransportError::new(
            TransportErrorKind::Protocol,
            format!("the server sent an undecodable message: {error}"),
        ))),
    }
}

impl From<mpsc::Receiver<TransportEvent>> for Incoming {
    fn from(events: mpsc::Receiver<TransportEvent>) -> Self {
        Self(Receiver::Counted(events))
    }
}

/// The transport's end of an [`Incoming`] made with [`incoming`].
#[derive(Clone, Debug)]
pub struct IncomingSender {
    events: mpsc::Sender<Budgeted>,
    budget: Arc<Semaphore>,
    /// The whole budget: an event larger than it waits for all of it.
    most: u32,
}

impl IncomingSender {
    /// Sends `event`, which took `bytes` as it arrived, once the client holds few enough bytes
    /// of events to take it (an event larger than the whole budget waits until the client
    /// holds none). Gives the event back when the client is gone.
    pub async fn send(&self, event: TransportEvent, bytes: usize) -> Result<(), TransportEvent> {
        let bytes = u32::try_from(bytes).unwrap_or(u32::MAX).min(self.most);
        let permit = match bytes {
            0 => None,
            // the budget is never closed: acquiring fails only if it were
            bytes => match Arc::clone(&self.budget).acquire_many_owned(bytes).await {
                Ok(permit) => Some(permit),
                Err(_) => return Err(event),
            },
        };
        let budgeted = Budgeted {
            event,
            _bytes: permit,
        };
        self.events
            .send(budgeted)
            .await
            .map_err(|unsent| unsent.0.event)
    }

    /// Whether the client is gone.
    pub fn is_closed(&self) -> bool {
        self.events.is_closed()
    }
}

/// An event channel for a transport that reads a socket or a pipe: at most `count` events and
/// `bytes` bytes of them (as they arrived) wait for the client at once. `bytes` is clamped to
/// at least 1 and at most 4 GiB (less on 32-bit targets: a semaphore's most permits).
///
/// ```
/// use presa_client::{TransportEvent, incoming};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let (sender, mut incoming) = incoming(64, 1 << 20);
/// sender.send(TransportEvent::Closed(None), 0).await.unwrap();
/// assert!(matches!(incoming.recv().await, Some(TransportEvent::Closed(None))));
/// # }
/// ```
pub fn incoming(count: usize, bytes: usize) -> (IncomingSender, Incoming) {
    let most = bytes.clamp(1, Semaphore::MAX_PERMITS);
    let most = u32::try_from(most).unwrap_or(u32::MAX);
    let (events, receiver) = mpsc::channel(count.max(1));
    let sender = IncomingSender {
        events,
        budget: Arc::new(Semaphore::new(most as usize)),
        most,
    };
    (sender, Incoming(Receiver::Budgeted(receiver)))
}

/// A transport's network, in the words of OpenTelemetry's conventions (see
/// [`ClientChannel::with_network`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Network {
    /// `network.transport`: `pipe`, `tcp`, ...
    pub transport: Option<&'static str>,
    /// `network.protocol.name`: `http`, ...
    pub protocol: Option<&'static str>,
}

impl ClientChannel {
    /// A channel pair for a transport that needs no mirror headers. `incoming` is a plain
    /// receiver (bounded in count) or one made with [`incoming`] (bounded in bytes too).
    pub fn new(outgoing: mpsc::Sender<Transmit>, incoming: impl Into<Incoming>) -> Self {
        Self {
            outgoing,
            incoming: incoming.into(),
            mirror_headers: false,
            network: Network::default(),
        }
    }

    /// This channel, with the `network.transport` and `network.protocol.name` the client's
    /// spans record (`("pipe", None)` for stdio, `("tcp", Some("http"))` for Streamable HTTP).
    #[must_use]
    pub fn with_network(mut self, transport: &'static str, protocol: Option<&'static str>) -> Self {
        self.network = Network {
            transport: Some(transport),
            protocol,
        };
        self
    }

    /// This channel, for a transport that sends the mirror headers of 2026-07-28 messages.
    #[must_use]
    pub fn with_mirror_headers(mut self) -> Self {
        self.mirror_headers = true;
        self
    }
}

/// Something a transport reports to the client.
#[derive(Debug)]
#[non_exhaustive]
pub enum TransportEvent {
    /// A message from the server.
    Message(Message),
    /// Delivering one request failed without closing the transport (e.g. an HTTP POST that got
    /// an error status with no JSON-RPC body): that request fails with this error.
    RequestFailed {
        /// The request that failed.
        id: RequestId,
        /// Why.
        error: TransportError,
    },
    /// The transport is gone: every pending request fails, with this error when there is one.
    Closed(Option<TransportError>),
}

/// A failure of the transport itself, as opposed to an error the server answered with.
///
/// Cheap to clone, so that one failure can fail many pending requests. The message words the
/// whole failure, its cause included; [`source`](std::error::Error::source) gives the cause
/// typed when there is one (an `std::io::Error`, a reqwest error, the token provider's error
/// such as presa-oauth's `OAuthError`), for a caller that inspects or downcasts it.
///
/// ```
/// use std::error::Error;
/// use presa_client::{TransportError, TransportErrorKind};
///
/// let cause = std::io::Error::new(std::io::ErrorKind::BrokenPipe, "broken pipe");
/// let error = TransportError::with_source(
///     TransportErrorKind::Io,
///     "writing to the server failed: broken pipe",
///     cause,
/// );
/// let io = error.source().and_then(|e| e.downcast_ref::<std::io::Error>()).unwrap();
/// assert_eq!(io.kind(), std::io::ErrorKind::BrokenPipe);
/// ```
#[derive(Clone, Debug)]
pub struct TransportError {
    kind: TransportErrorKind,
    message: Arc<str>,
    source: Option<Arc<dyn std::error::Error + Send + Sync>>,
}

/// Two transport errors are equal when their kinds and messages are.
impl PartialEq for TransportError {
    fn eq(&self, other: &Self) -> bool {
        self.kind == other.kind && self.message == other.message
    }
}

impl Eq for TransportError {}

/// What kind of transport failure happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TransportErrorKind {
    /// The connection or process ended (e.g. the server process exited).
    Closed,
    /// Reading or writing failed.
    Io,
    /// The peer answered in a way the transport cannot use (e.g. an unexpected HTTP status).
    Protocol,
    /// The transport could not be established (spawn or connect failed).
    Connect,
    /// The server does not know who sent the request (HTTP `401 Unauthorized`: no credential,
    /// or one it does not accept), and the transport had no better credential to send. Any
    /// other request, of any protocol revision, would be turned away the same way; the
    /// server's JSON-RPC error, when it sent one, is the error's `source()`.
    Unauthorized,
}

impl TransportError {
    /// A transport error of `kind` with a message for humans (lowercase, no final period).
    pub fn new(kind: TransportErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: Arc::from(message.into()),
            source: None,
        }
    }

    /// [`new`](Self::new), caused by `source`.
    pub fn with_source(
        kind: TransportErrorKind,
        message: impl Into<String>,
        source: impl Into<Box<dyn std::error::Error + Send + Sync>>,
    ) -> Self {
        Self {
            source: Some(Arc::from(source.into())),
            ..Self::new(kind, message)
        }
    }

    /// What kind of failure this is.
    pub fn kind(&self) -> TransportErrorKind {
        self.kind
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for TransportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for TransportError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_deref()
            .map(|source| source as &(dyn std::error::Error + 'static))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::time::Duration;

    use serde_json::value::RawValue;

    use super::*;

    fn ping(id: i64) -> TransportEvent {
        let ping = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#);
        TransportEvent::Message(presa_core::decode_message(ping.as_bytes()).unwrap())
    }

    fn id_of(event: Option<TransportEvent>) -> Option<RequestId> {
        match event {
            Some(TransportEvent::Message(Message::Request(request))) => Some(request.id),
            _ => None,
        }
    }

    #[tokio::test(start_paused = true)]
    async fn events_wait_while_the_client_holds_its_bytes_and_go_in_order() {
        let (sender, mut incoming) = incoming(64, 100);
        sender.send(ping(1), 60).await.unwrap();
        // 60 + 60 > 100: the second waits until the first is taken
        let second = tokio::spawn({
            let sender = sender.clone();
            async move { sender.send(ping(2), 60).await }
        });
        tokio::time::sleep(Duration::from_secs(1)).await;
        assert!(!second.is_finished(), "sent past the budget");
        assert_eq!(id_of(incoming.recv().await), Some(RequestId::Number(1)));
        second.await.unwrap().unwrap();
        // one larger than the whole budget waits until nothing is held, then goes
        let third = tokio::spawn({
            let sender = sender.clone();
            async move { sender.send(ping(3), 1_000).await }
        });
        tokio::time::sleep(Duration::from_secs(1)).await;
        assert!(!third.is_finished(), "sent while the client held bytes");
        assert_eq!(id_of(incoming.recv().await), Some(RequestId::Number(2)));
        third.await.unwrap().unwrap();
        assert_eq!(id_of(incoming.recv().await), Some(RequestId::Number(3)));
        // the client gone, the event comes back
        drop(incoming);
        assert!(sender.is_closed());
        assert!(sender.send(ping(4), 1).await.is_err());
    }

    fn request(id: i64, params: &str) -> Transmit {
        let params = RawValue::from_string(params.to_owned()).unwrap();
        let request = presa_core::Request {
            id: RequestId::Number(id),
            method: "ping".to_owned(),
            params: Some(params),
        };
        Transmit::new(request, None)
    }

    #[tokio::test]
    async fn a_serialized_peer_s_messages_arrive_parsed_again_and_its_end_closes() {
        let (to_client, messages) = mpsc::channel(4);
        let mut incoming = Incoming::serialized(messages);
        to_client
            .send(request(1, r#"{"a": [1, 2]}"#))
            .await
            .unwrap();
        // params a wire could not carry: the transport closes with a protocol error
        to_client.send(request(2, "3")).await.unwrap();
        drop(to_client);
        match incoming.recv().await {
            Some(TransportEvent::Message(Message::Request(request))) => {
                assert_eq!(request.id, RequestId::Number(1));
                assert_eq!(request.params.unwrap().get(), r#"{"a": [1, 2]}"#);
            }
            other => panic!("expected the request, got {other:?}"),
        }
        match incoming.recv().await {
            Some(TransportEvent::Closed(Some(error))) => {
                assert_eq!(error.kind(), TransportErrorKind::Protocol);
                assert!(error.to_string().contains("undecodable"), "{error}");
            }
            other => panic!("expected a protocol error, got {other:?}"),
        }
        // the server's end dropped: nothing more
        assert!(incoming.recv().await.is_none());
    }
}
