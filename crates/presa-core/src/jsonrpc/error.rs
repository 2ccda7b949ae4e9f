//! Error objects and error codes.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A JSON-RPC error code.
///
/// The named constants cover JSON-RPC's standard codes and every code MCP defines.
///
/// ```
/// use presa_core::ErrorCode;
///
/// assert_eq!(ErrorCode::METHOD_NOT_FOUND.code(), -32601);
/// assert_eq!(ErrorCode::from(-32020), ErrorCode::HEADER_MISMATCH);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ErrorCode(pub i32);

impl ErrorCode {
    /// `-32700`: the message is not valid JSON.
    pub const PARSE_ERROR: Self = Self(-32700);
    /// `-32600`: the message is JSON but not a valid JSON-RPC message.
    pub const INVALID_REQUEST: Self = Self(-32600);
    /// `-32601`: the method is unknown, or belongs to a capability the server does not offer.
    pub const METHOD_NOT_FOUND: Self = Self(-32601);
    /// `-32602`: the params are invalid (and, on 2026-07-28, a resource was not found).
    pub const INVALID_PARAMS: Self = Self(-32602);
    /// `-32603`: an unexpected failure inside the receiver.
    pub const INTERNAL_ERROR: Self = Self(-32603);
    /// `-32002`: resource not found, on revisions before 2026-07-28.
    pub const RESOURCE_NOT_FOUND: Self = Self(-32002);
    /// `-32042`: URL elicitation required (2025-11-25 only).
    pub const URL_ELICITATION_REQUIRED: Self = Self(-32042);
    /// `-32020`: HTTP mirror headers missing, malformed or disagreeing with the body (2026-07-28).
    pub const HEADER_MISMATCH: Self = Self(-32020);
    /// `-32021`: serving the request needs a client capability it did not declare (2026-07-28);
    /// `data.requiredCapabilities` names it.
    pub const MISSING_REQUIRED_CLIENT_CAPABILITY: Self = Self(-32021);
    /// `-32022`: the requested protocol version is not supported (2026-07-28); `data.supported`
    /// and `data.requested` say which are and which was asked for.
    pub const UNSUPPORTED_PROTOCOL_VERSION: Self = Self(-32022);
    /// `-1`: the user rejected a sampling request (client-sent, initialize era).
    pub const USER_REJECTED: Self = Self(-1);

    /// The numeric code.
    pub const fn code(self) -> i32 {
        self.0
    }
}

impl From<i32> for ErrorCode {
    fn from(code: i32) -> Self {
        Self(code)
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// A JSON-RPC error object: a code, a short message, and optional data.
///
/// ```
/// use presa_core::{ErrorCode, ErrorObject};
///
/// let error = ErrorObject::new(ErrorCode::INVALID_PARAMS, "Unknown tool: nope");
/// assert_eq!(
///     serde_json::to_string(&error).unwrap(),
///     r#"{"code":-32602,"message":"Unknown tool: nope"}"#
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ErrorObject {
    /// The error code.
    pub code: ErrorCode,
    /// A short description, one sentence.
    pub message: String,
    /// Additional information about the error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl ErrorObject {
    /// An error without data.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            data: None,
        }
    }

    /// This error with `data` attached.
    #[must_use]
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    /// `-32700` with the given message.
    pub fn parse_error(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::PARSE_ERROR, message)
    }

    /// `-32600` with the given message.
    pub fn invalid_request(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::INVALID_REQUEST, message)
    }

    /// `-32601` naming the method.
    pub fn method_not_found(method: &str) -> Self {
        Self::new(
            ErrorCode::METHOD_NOT_FOUND,
            format!("Method not found: {}", clipped(method)),
        )
    }

    /// `-32602` with the given message.
    pub fn invalid_params(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::INVALID_PARAMS, message)
    }

    /// `-32603` with the given message.
    pub fn internal_error(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::INTERNAL_ERROR, message)
    }
}

impl fmt::Display for ErrorObject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message, self.code)
    }
}

impl std::error::Error for ErrorObject {}

/// A peer's text (a name, an id, a cursor) as an error message quotes it: whole up to 64 bytes,
/// else its first 64 bytes (cut at a character boundary) and `…`, so that an error never echoes
/// an unbounded string back.
///
/// ```
/// use presa_core::clipped;
///
/// assert_eq!(clipped("add"), "add");
/// assert_eq!(clipped(&"x".repeat(1000)).len(), 64 + '…'.len_utf8());
/// assert!(clipped(&"é".repeat(100)).ends_with("é…"));
/// ```
pub fn clipped(text: &str) -> std::borrow::Cow<'_, str> {
    const MOST: usize = 64;
    if text.len() <= MOST {
        return std::borrow::Cow::Borrowed(text);
    }
    let end = (0..=MOST)
        .rev()
        .find(|at| text.is_char_boundary(*at))
        .unwrap_or(0);
    std::borrow::Cow::Owned(format!("{}…", &text[..end]))
}
