//! Why a client call failed.

use std::fmt;

use presa_core::{ErrorCode, ErrorObject, HandshakeError, InputRequiredResult};
use serde_json::Value;

use crate::TransportError;

/// Why a [`Client`](crate::Client) call (or [`Client::connect`](crate::Client::connect)) failed.
///
/// Errors the server answered with ([`Server`](Self::Server)) are kept apart from failures of
/// the transport ([`Transport`](Self::Transport)) and from what the client itself decided
/// ([`TimedOut`](Self::TimedOut), [`Closed`](Self::Closed)), so that a caller can tell "the
/// server said no" from "the server is gone".
///
/// ```
/// use presa_client::ClientError;
/// use presa_core::{ErrorCode, ErrorObject};
///
/// let error = ClientError::Server(
///     ErrorObject::invalid_params("Resource not found")
///         .with_data(serde_json::json!({"uri": "file:///nope"})),
/// );
/// assert_eq!(error.code(), Some(ErrorCode::INVALID_PARAMS));
/// assert!(error.is_resource_not_found());
/// assert_eq!(error.to_string(), "server error -32602: Resource not found");
/// ```
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum ClientError {
    /// The server answered with a JSON-RPC error: its code, message and data.
    Server(ErrorObject),
    /// The transport failed (the process exited, the connection broke, an HTTP request failed).
    Transport(TransportError),
    /// No response arrived before the call's timeout; the server was told to cancel.
    TimedOut,
    /// The client was closed (by [`Client::close`](crate::Client::close), or because the
    /// transport ended without saying why).
    Closed,
    /// Connecting failed: `server/discover` or the `initialize` handshake did not succeed.
    Handshake(HandshakeError),
    /// The server's result does not read as the method's result type.
    InvalidResult(String),
    /// The params could not be sent: they do not serialize, or are not a JSON object.
    InvalidParams(String),
    /// The server (2026-07-28) needs input the client could not give: no handler is
    /// registered for one of its input requests, or the round limit was reached. The result
    /// holds what the server asked for.
    InputRequired(Box<InputRequiredResult>),
    /// A handler registered for an input request (sampling, elicitation, roots) refused it, so
    /// the request was not retried.
    InputRefused {
        /// The input request's method, e.g. `sampling/createMessage`.
        method: String,
        /// The handler's error.
        error: ErrorObject,
    },
    /// The server ended the request with `notifications/cancelled` (2026-07-28: how a server
    /// may end a subscription).
    CancelledByServer {
        /// Why, if the server said.
        reason: Option<String>,
    },
    /// The request was not sent: the server did not declare the capability it needs (e.g.
    /// `prompts/list` to a server without `prompts`).
    NotOffered {
        /// The request's method.
        method: String,
        /// The capability the server lacks, e.g. `prompts` or `resources.subscribe`.
        capability: &'static str,
    },
    /// A typed tool call ([`Client::call_tool_as`](crate::Client::call_tool_as)): the tool
    /// answered with an error result (`isError: true`); its text.
    ToolFailed(String),
    /// A typed tool call: the tool's structured result is missing, breaks the tool's
    /// `outputSchema`, or does not read as the type asked for.
    OutputMismatch {
        /// The tool.
        tool: String,
        /// What does not match.
        reason: String,
    },
    /// The tool runs only as a task and this client does not allow tasks: opt in with
    /// [`ClientOptions::tasks`](crate::ClientOptions::tasks).
    TaskRequired {
        /// The tool.
        tool: String,
    },
    /// The task was cancelled before it produced a result.
    TaskCancelled {
        /// The task id.
        task: String,
    },
}

impl ClientError {
    /// The server's error, when the server answered with one.
    pub fn as_server_error(&self) -> Option<&ErrorObject> {
        match self {
            Self::Server(error) | Self::Handshake(HandshakeError::Rejected(error)) => Some(error),
            _ => None,
        }
    }

    /// The JSON-RPC error code, when the server answered with an error.
    pub fn code(&self) -> Option<ErrorCode> {
        self.as_server_error().map(|e| e.code)
    }

    /// The server's error message, when the server answered with an error.
    pub fn server_message(&self) -> Option<&str> {
        self.as_server_error().map(|e| e.message.as_str())
    }

    /// The `data` of the server's error, if any.
    pub fn data(&self) -> Option<&Value> {
        self.as_server_error().and_then(|e| e.data.as_ref())
    }

    /// Whether this is the server saying a resource does not exist: `-32602` with `data.uri`
    /// (2026-07-28), or `-32002` (earlier revisions).
    pub fn is_resource_not_found(&self) -> bool {
        match self.code() {
            Some(ErrorCode::RESOURCE_NOT_FOUND) => true,
            Some(ErrorCode::INVALID_PARAMS) => self.data().and_then(|d| d.get("uri")).is_some(),
            _ => false,
        }
    }
}

impl fmt::Display for ClientError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Server(e) => write!(f, "server error {}: {}", e.code, e.message),
            Self::TaskRequired { tool } => write!(
                f,
                "tool {tool} runs only as a task: allow tasks with ClientOptions::tasks(true)"
            ),
            Self::TaskCancelled { task } => {
                write!(f, "task {task} was cancelled before it produced a result")
            }
            Self::Transport(_) => f.write_str("transport failed"),
            Self::TimedOut => f.write_str("request timed out"),
            Self::Closed => f.write_str("client closed"),
            Self::Handshake(_) => f.write_str("connecting failed"),
            Self::InvalidResult(e) => write!(f, "invalid result: {e}"),
            Self::InvalidParams(e) => write!(f, "invalid params: {e}"),
            Self::InputRequired(r) => {
                let keys: Vec<&str> = r
                    .input_requests
                    .iter()
                    .flat_map(|m| m.values().map(|r| r.method()))
                    .collect();
                if keys.is_empty() {
                    f.write_str("server requires input the client could not give")
                } else {
                    write!(
                        f,
                        "server requires input the client could not give: {}",
                        keys.join(", ")
                    )
                }
            }
            Self::InputRefused { method, error } => {
                write!(f, "input handler for {method} refused: {}", error.message)
            }
            Self::CancelledByServer { reason: None } => f.write_str("server cancelled the request"),
            Self::CancelledByServer {
                reason: Some(reason),
            } => write!(f, "server cancelled the request: {reason}"),
            Self::NotOffered { method, capability } => write!(
                f,
                "{method} not sent: the server did not declare the {capability} capability"
            ),
            Self::ToolFailed(message) => write!(f, "the tool failed: {message}"),
            Self::OutputMismatch { tool, reason } => {
                write!(f, "tool {tool:?} answered an unexpected result: {reason}")
            }
        }
    }
}

/// The transport's error, or the handshake's: [`Display`](fmt::Display) names only this
/// error's own part, so that a report that walks the chain says each thing once.
impl std::error::Error for ClientError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Transport(error) => Some(error),
            Self::Handshake(error) => Some(error),
            _ => None,
        }
    }
}

impl From<TransportError> for ClientError {
    fn from(error: TransportError) -> Self {
        Self::Transport(error)
    }
}

impl From<HandshakeError> for ClientError {
    fn from(error: HandshakeError) -> Self {
        Self::Handshake(error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::TransportErrorKind;

    fn assert_error<E: std::error::Error + Send + Sync + 'static>() {}

    #[test]
    fn errors_are_thread_safe_and_lowercase() {
        assert_error::<ClientError>();
        let cases = [
            ClientError::TimedOut,
            ClientError::Closed,
            ClientError::Transport(TransportError::new(
                TransportErrorKind::Closed,
                "server exited with status 1",
            )),
            ClientError::Handshake(HandshakeError::TimedOut),
            ClientError::InvalidResult("missing field `tools`".into()),
            ClientError::InputRequired(Box::default()),
            ClientError::CancelledByServer {
                reason: Some("shutting down".into()),
            },
        ];
        for case in cases {
            let text = case.to_string();
            assert!(text.starts_with(|c: char| c.is_lowercase()), "{text}");
            assert!(!text.ends_with('.'), "{text}");
        }
    }

    #[test]
    fn server_errors_expose_code_message_and_data() {
        let legacy = ClientError::Server(ErrorObject::new(
            ErrorCode::RESOURCE_NOT_FOUND,
            "Resource not found",
        ));
        assert!(legacy.is_resource_not_found());
        assert_eq!(legacy.server_message(), Some("Resource not found"));
        let unknown_tool = ClientError::Server(ErrorObject::invalid_params("Unknown tool: x"));
        assert!(!unknown_tool.is_resource_not_found());
        assert_eq!(unknown_tool.data(), None);
        assert_eq!(ClientError::TimedOut.code(), None);
        let rejected = ClientError::Handshake(HandshakeError::Rejected(ErrorObject::new(
            ErrorCode::METHOD_NOT_FOUND,
            "nope",
        )));
        assert_eq!(rejected.code(), Some(ErrorCode::METHOD_NOT_FOUND));
    }
}
