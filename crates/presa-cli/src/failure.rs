//! Why a run failed, and the exit code that says so.

use std::fmt;
use std::process::ExitCode;

use presa::client::{ClientError, TransportErrorKind};

/// Why a run failed.
#[derive(Debug)]
pub(crate) enum Failure {
    /// The tool answered with an error result (`isError`): exit 1.
    ToolError,
    /// The server answered with an error, or with something that is not MCP: exit 2.
    Protocol(String),
    /// The server could not be reached, or went away: exit 3.
    Transport(String),
    /// What was asked cannot be done as asked (bad arguments, a file that cannot be written):
    /// exit 2, as for a usage error.
    Usage(String),
    /// Interrupted (Ctrl-C): exit 130, as a shell reports it.
    Interrupted,
}

impl Failure {
    /// The exit code: 0 success, 1 a tool's error result, 2 a protocol or usage error, 3 a
    /// transport error.
    pub(crate) fn exit_code(&self) -> ExitCode {
        ExitCode::from(match self {
            Self::ToolError => 1,
            Self::Protocol(_) | Self::Usage(_) => 2,
            Self::Transport(_) => 3,
            Self::Interrupted => 130,
        })
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::ToolError => f.write_str("the tool answered with an error"),
            Self::Protocol(why) | Self::Transport(why) | Self::Usage(why) => f.write_str(why),
            Self::Interrupted => f.write_str("interrupted"),
        }
    }
}

impl From<ClientError> for Failure {
    fn from(error: ClientError) -> Self {
        use presa::core::HandshakeError;
        let text = chain(&error);
        match error {
            // a 401: the server answered, and wants a credential it accepts
            ClientError::Transport(failed) if failed.kind() == TransportErrorKind::Unauthorized => {
                Self::Protocol(text)
            }
            ClientError::Transport(_)
            | ClientError::TimedOut
            | ClientError::Closed
            | ClientError::Handshake(HandshakeError::TimedOut | HandshakeError::Closed) => {
                Self::Transport(text)
            }
            _ => Self::Protocol(text),
        }
    }
}

/// `error` and its causes, as one line.
pub(crate) fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(next) = cause {
        let part = next.to_string();
        if !text.contains(&part) {
            text.push_str(": ");
            text.push_str(&part);
        }
        cause = next.source();
    }
    text
}
