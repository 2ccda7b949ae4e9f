//! Why a [`ClientSession`] could not connect or send.

#[cfg(doc)]
use super::ClientSession;
use crate::{ErrorObject, ParamValueError};

/// Why the initialize handshake failed.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum HandshakeError {
    /// The server answered `initialize` with an error.
    Rejected(ErrorObject),
    /// The server chose a revision this client does not speak.
    UnsupportedVersion(String),
    /// The server's answer was not an `InitializeResult`.
    MalformedResult(String),
    /// No answer before the timeout.
    TimedOut,
    /// The session closed first.
    Closed,
}

impl std::fmt::Display for HandshakeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Rejected(e) => {
                write!(f, "server rejected initialize: {} ({})", e.message, e.code)
            }
            Self::UnsupportedVersion(v) => {
                write!(f, "server chose unsupported protocol version {v:?}")
            }
            Self::MalformedResult(e) => write!(f, "malformed initialize result: {e}"),
            Self::TimedOut => f.write_str("initialize timed out"),
            Self::Closed => f.write_str("session closed during initialize"),
        }
    }
}

impl std::error::Error for HandshakeError {}

/// Why a request could not be sent.
#[derive(Debug)]
#[non_exhaustive]
pub enum ClientSendError {
    /// Neither [`ClientSession::initialize`] nor [`ClientSession::use_stateless`] was called, or
    /// the handshake failed.
    NotConnected,
    /// `initialize` cannot be cancelled.
    CannotCancelInitialize,
    /// The params could not be serialized.
    Serialize(serde_json::Error),
    /// A `tools/call` argument the tool mirrors into an `Mcp-Param-*` header holds a value no
    /// header can carry (an object, an array, a fraction, an integer beyond ±(2^53 − 1)).
    Header(ParamValueError),
}

impl std::fmt::Display for ClientSendError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::NotConnected => f.write_str(
                "session not connected: initialize or choose a stateless revision first",
            ),
            Self::CannotCancelInitialize => f.write_str("initialize cannot be cancelled"),
            // the cause is the source: an error report shows it once
            Self::Serialize(_) => f.write_str("params could not be serialized"),
            Self::Header(_) => f.write_str("cannot mirror the request into headers"),
        }
    }
}

impl std::error::Error for ClientSendError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Serialize(e) => Some(e),
            Self::Header(e) => Some(e),
            Self::NotConnected | Self::CannotCancelInitialize => None,
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::error::Error as _;

    use super::*;

    #[test]
    fn a_send_error_names_its_cause_as_its_source_not_in_its_text() {
        let cause = serde_json::from_str::<u8>("x").unwrap_err();
        let error = ClientSendError::Serialize(cause);
        assert_eq!(error.to_string(), "params could not be serialized");
        let source = error.source().unwrap().to_string();
        assert!(source.contains("expected value"), "{source}");
    }
}
