//! What a transport gives the client: a pair of channels carrying messages.

use std::fmt;
use std::sync::Arc;

use presa_core::{Message, RequestId, Transmit};
use tokio::sync::mpsc;

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
    pub incoming: mpsc::Receiver<TransportEvent>,
    /// Whether the transport sends 2026-07-28 messages with the HTTP headers that mirror them
    /// ([`Transmit::headers`]): the client's session then makes them (Streamable HTTP does;
    /// stdio and in-process need none).
    pub mirror_headers: bool,
    /// What the client's spans say the transport is, as OpenTelemetry's conventions name it:
    /// `network.transport` (`pipe` for stdio, `tcp` for Streamable HTTP) and
    /// `network.protocol.name` (`http`); none for a transport without a network (in-process).
    pub network: Network,
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
    /// A channel pair for a transport that needs no mirror headers.
    pub fn new(outgoing: mpsc::Sender<Transmit>, incoming: mpsc::Receiver<TransportEvent>) -> Self {
        Self {
            outgoing,
            incoming,
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
