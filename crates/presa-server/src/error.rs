//! What can go wrong building a server, and how a handler signals a failure.

use std::fmt;

use presa_core::{ErrorCode, ErrorObject};
use presa_schema::SchemaError;

use crate::auth::InsufficientScope;

/// A definition was refused when the server was built or changed.
///
/// Definitions are checked once, up front: a bad tool name, schema or URI template fails here,
/// never at call time.
#[derive(Debug)]
#[non_exhaustive]
pub enum BuildError {
    /// A tool name breaks the naming rules (1–128 characters of `A-Z a-z 0-9 _ - .`).
    InvalidToolName {
        /// The name.
        name: String,
    },
    /// Two definitions of one kind share a name or URI.
    Duplicate {
        /// What kind of definition.
        kind: DefinitionKind,
        /// The name or URI.
        name: String,
    },
    /// A tool's input schema is not an object schema (`"type": "object"` at the root).
    InputSchemaNotObject {
        /// The tool.
        tool: String,
    },
    /// A schema does not compile.
    Schema {
        /// The tool whose schema it is.
        tool: String,
        /// Which schema.
        which: SchemaRole,
        /// Why.
        error: SchemaError,
    },
    /// A tool's `x-mcp-header` annotations are invalid.
    HeaderAnnotation {
        /// The tool.
        tool: String,
        /// Why.
        error: presa_core::XMcpHeaderError,
    },
    /// A resource template is not a valid RFC 6570 template (of the supported subset).
    UriTemplate {
        /// The template.
        template: String,
        /// Why.
        error: presa_core::UriTemplateError,
    },
    /// The `requestState` key is unusable (too short).
    RequestStateKey(presa_core::RequestStateKeyError),
    /// The operating system gave no randomness for a `requestState` key.
    Randomness(getrandom::Error),
    /// A typed definition's Rust type has a field the definition cannot carry: prompt arguments
    /// and template variables are strings (read as numbers, booleans or enum values where the
    /// field says so), and a template must have a variable for every required field.
    Field {
        /// What kind of definition.
        kind: DefinitionKind,
        /// Its name or URI template.
        name: String,
        /// The field, or `None` when the type as a whole does not fit (it is not a struct).
        field: Option<String>,
        /// Why it cannot be carried.
        reason: String,
    },
    /// A type registered as an elicitation form ([`ServerBuilder::elicitation_form`]) is not
    /// one: forms are flat objects of strings, numbers, booleans and enums.
    ///
    /// [`ServerBuilder::elicitation_form`]: crate::ServerBuilder::elicitation_form
    ElicitationForm {
        /// The Rust type.
        type_name: &'static str,
        /// The field that does not fit, or `None` when the type is not an object at all.
        field: Option<String>,
        /// Why.
        reason: String,
    },
    /// An extension cannot be declared as given (see [`ServerBuilder::extension`]).
    ///
    /// [`ServerBuilder::extension`]: crate::ServerBuilder::extension
    Extension {
        /// The extension's id.
        id: String,
        /// Why.
        reason: String,
    },
    /// A custom method cannot be served under that name (see [`ServerBuilder::method`]): MCP
    /// defines it, or it is registered twice.
    ///
    /// [`ServerBuilder::method`]: crate::ServerBuilder::method
    Method {
        /// The method.
        method: String,
        /// Why.
        reason: String,
    },
    /// A completion was registered for something that does not exist.
    UnknownCompletionTarget {
        /// The prompt name or template URI.
        target: String,
        /// The argument or variable.
        argument: String,
    },
}

/// The kinds of definition a server holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DefinitionKind {
    /// A tool.
    Tool,
    /// A resource.
    Resource,
    /// A resource template.
    ResourceTemplate,
    /// A prompt.
    Prompt,
}

impl fmt::Display for DefinitionKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Tool => "tool",
            Self::Resource => "resource",
            Self::ResourceTemplate => "resource template",
            Self::Prompt => "prompt",
        })
    }
}

/// The two schemas of a tool.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SchemaRole {
    /// The input schema, for the arguments.
    Input,
    /// The output schema, for the structured result.
    Output,
}

impl fmt::Display for SchemaRole {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Input => "input",
            Self::Output => "output",
        })
    }
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::InvalidToolName { name } => write!(
                f,
                "invalid tool name {name:?}: use 1 to 128 characters of A-Z, a-z, 0-9, '_', '-' and '.'"
            ),
            Self::Duplicate { kind, name } => write!(f, "duplicate {kind} {name:?}"),
            Self::InputSchemaNotObject { tool } => {
                write!(
                    f,
                    "tool {tool:?}: the input schema must have \"type\": \"object\" at its root"
                )
            }
            Self::Schema { tool, which, .. } => write!(f, "tool {tool:?}: invalid {which} schema"),
            Self::HeaderAnnotation { tool, .. } => {
                write!(f, "tool {tool:?}: invalid x-mcp-header annotation")
            }
            Self::UriTemplate { template, .. } => {
                write!(f, "resource template {template:?}: invalid URI template")
            }
            Self::Field {
                kind,
                name,
                field: Some(field),
                reason,
            } => write!(f, "{kind} {name:?}: field {field:?} {reason}"),
            Self::Field {
                kind,
                name,
                field: None,
                reason,
            } => write!(f, "{kind} {name:?} {reason}"),
            Self::ElicitationForm {
                type_name,
                field: Some(field),
                reason,
            } => write!(f, "elicitation form {type_name}: field {field:?} {reason}"),
            Self::ElicitationForm {
                type_name,
                field: None,
                reason,
            } => write!(f, "elicitation form {type_name}: {reason}"),
            Self::RequestStateKey(_) => f.write_str("invalid request state key"),
            Self::Randomness(_) => f.write_str("no randomness for a request state key"),
            Self::Extension { id, reason } => write!(f, "extension {id:?}: {reason}"),
            Self::Method { method, reason } => write!(f, "method {method:?}: {reason}"),
            Self::UnknownCompletionTarget { target, argument } => {
                write!(
                    f,
                    "completion for {target:?} argument {argument:?}: no such definition or argument"
                )
            }
        }
    }
}

impl std::error::Error for BuildError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Schema { error, .. } => Some(error),
            Self::HeaderAnnotation { error, .. } => Some(error),
            Self::UriTemplate { error, .. } => Some(error),
            Self::RequestStateKey(error) => Some(error),
            Self::Randomness(error) => Some(error),
            _ => None,
        }
    }
}

/// A JSON-RPC error a handler answers with instead of a result.
///
/// Return it as the error of a handler's `Result` to send the client a JSON-RPC error with this
/// code, message and data, rather than a tool error (`isError: true`), which is what every other
/// error type becomes. It is an ordinary error type otherwise (`Display`, `std::error::Error`);
/// a handler's error is told apart by its type: a `ProtocolError` itself, or a
/// `Box<dyn Error + Send + Sync>` (what `?` makes of any error) with one anywhere in its chain
/// of sources. Returned as another error type (anyhow's, or an enum of your own) it is that
/// type's message, a tool error; box it to keep it a protocol error.
///
/// ```
/// use presa_core::ErrorCode;
/// use presa_server::ProtocolError;
///
/// let error = ProtocolError::new(ErrorCode::INVALID_PARAMS, "Unknown region: mars");
/// assert_eq!(error.to_string(), "Unknown region: mars (JSON-RPC error -32602)");
/// assert_eq!(error.into_error_object().code, ErrorCode::INVALID_PARAMS);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct ProtocolError(ErrorObject);

impl ProtocolError {
    /// A protocol error with a code and message.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self(ErrorObject::new(code, message))
    }

    /// This error with `data` attached.
    #[must_use]
    pub fn with_data(self, data: serde_json::Value) -> Self {
        Self(self.0.with_data(data))
    }

    /// The error object sent to the client.
    pub fn into_error_object(self) -> ErrorObject {
        self.0
    }
}

impl From<ErrorObject> for ProtocolError {
    fn from(error: ErrorObject) -> Self {
        Self(error)
    }
}

impl fmt::Display for ProtocolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (JSON-RPC error {})", self.0.message, self.0.code)
    }
}

impl std::error::Error for ProtocolError {}

/// How a handler failed: a message for the model (a tool error, or an internal error for
/// resources and prompts), or a JSON-RPC error.
#[derive(Clone, Debug, PartialEq)]
pub enum HandlerFailure {
    /// An ordinary error: its message.
    Message(String),
    /// A [`ProtocolError`].
    Protocol(ErrorObject),
}

/// Turns a handler's error into a [`HandlerFailure`]: a [`ProtocolError`] (or an
/// [`InsufficientScope`](crate::InsufficientScope), or a [`ToolError`](crate::ToolError) made
/// from one) becomes its JSON-RPC error; every other
/// `Display` type becomes a message.
pub trait IntoHandlerFailure {
    /// The failure.
    fn into_handler_failure(self) -> HandlerFailure;
}

impl<E: fmt::Display + 'static> IntoHandlerFailure for E {
    fn into_handler_failure(self) -> HandlerFailure {
        // the error's own type says whether it is a protocol error (no specialization in
        // stable Rust: the one blanket impl asks at run time)
        let any: &dyn std::any::Any = &self;
        let protocol = match any.downcast_ref::<BoxedError>() {
            Some(boxed) => protocol_in_chain(boxed.as_ref()),
            None => protocol_of(any),
        };
        match protocol {
            Some(error) => HandlerFailure::Protocol(error),
            None => HandlerFailure::Message(self.to_string()),
        }
    }
}

type BoxedError = Box<dyn std::error::Error + Send + Sync>;

/// The JSON-RPC error of a [`ProtocolError`] or [`InsufficientScope`](crate::InsufficientScope).
fn protocol_of(error: &dyn std::any::Any) -> Option<ErrorObject> {
    if let Some(protocol) = error.downcast_ref::<ProtocolError>() {
        return Some(protocol.0.clone());
    }
    if let Some(tool) = error.downcast_ref::<crate::ToolError>() {
        return tool.protocol_error().cloned();
    }
    let scope = error.downcast_ref::<InsufficientScope>()?;
    Some(scope.clone().into_error())
}

/// The first protocol error in `error`'s chain of sources, `error` included.
fn protocol_in_chain(error: &(dyn std::error::Error + 'static)) -> Option<ErrorObject> {
    let mut next = Some(error);
    while let Some(error) = next {
        if let Some(protocol) = error.downcast_ref::<ProtocolError>() {
            return Some(protocol.0.clone());
        }
        if let Some(scope) = error.downcast_ref::<InsufficientScope>() {
            return Some(scope.clone().into_error());
        }
        if let Some(error) = error
            .downcast_ref::<crate::ToolError>()
            .and_then(crate::ToolError::protocol_error)
        {
            return Some(error.clone());
        }
        next = error.source();
    }
    None
}

impl HandlerFailure {
    /// As a JSON-RPC error: a message becomes `-32603` (internal error).
    pub(crate) fn into_error_object(self) -> ErrorObject {
        match self {
            Self::Message(message) => ErrorObject::internal_error(message),
            Self::Protocol(error) => error,
        }
    }
}

impl From<InsufficientScope> for ProtocolError {
    fn from(error: InsufficientScope) -> Self {
        ProtocolError::from(error.into_error())
    }
}

/// A tool error: the call failed in a way the model can act on (`isError: true`), or, made from
/// a [`ProtocolError`](crate::ProtocolError) or an [`InsufficientScope`](crate::InsufficientScope),
/// a JSON-RPC error.
///
/// Every error a handler meets from presa converts into it, so `?` works in a handler that
/// returns `Result<_, ToolError>`: [`InputError`](crate::InputError) (the client refused, went
/// away, or answered with something unusable) and [`MissingState`](crate::MissingState) become
/// a tool error with their message; [`InsufficientScope`](crate::InsufficientScope),
/// [`ProtocolError`](crate::ProtocolError) and [`ErrorObject`] stay the JSON-RPC errors they are
/// (on Streamable HTTP a missing scope is still `403` with the scope to ask for).
///
/// ```
/// use presa_server::{IntoToolResult, ToolError};
///
/// let result = ToolError::new("city not found: Atlantis").into_tool_result().unwrap();
/// assert!(result.is_error());
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct ToolError(HandlerFailure);

impl ToolError {
    /// A tool error with a message for the model.
    pub fn new(message: impl Into<String>) -> Self {
        Self(HandlerFailure::Message(message.into()))
    }

    /// The failure it carries.
    pub(crate) fn into_failure(self) -> HandlerFailure {
        self.0
    }

    /// The JSON-RPC error this is, if it is one rather than a message for the model.
    pub fn protocol_error(&self) -> Option<&ErrorObject> {
        match &self.0 {
            HandlerFailure::Protocol(error) => Some(error),
            HandlerFailure::Message(_) => None,
        }
    }
}

impl std::fmt::Display for ToolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            HandlerFailure::Message(message) => f.write_str(message),
            HandlerFailure::Protocol(error) => {
                write!(f, "{} (JSON-RPC error {})", error.message, error.code)
            }
        }
    }
}

impl std::error::Error for ToolError {}

/// The client could not give the input asked for: a tool error with the reason, for the model
/// to act on (try without it, tell the user).
impl From<crate::InputError> for ToolError {
    fn from(error: crate::InputError) -> Self {
        Self::new(error.to_string())
    }
}

/// That JSON-RPC error.
impl From<ErrorObject> for ToolError {
    fn from(error: ErrorObject) -> Self {
        Self(HandlerFailure::Protocol(error))
    }
}

/// The JSON-RPC error it carries.
impl From<crate::ProtocolError> for ToolError {
    fn from(error: crate::ProtocolError) -> Self {
        Self(HandlerFailure::Protocol(error.into_error_object()))
    }
}

/// The caller lacks a scope: the JSON-RPC error that says which (`403` on Streamable HTTP).
impl From<InsufficientScope> for ToolError {
    fn from(error: InsufficientScope) -> Self {
        Self(HandlerFailure::Protocol(error.into_error()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinary_errors_are_messages_and_protocol_errors_stay_protocol_errors() {
        let io = std::io::Error::other("disk full");
        assert_eq!(
            io.into_handler_failure(),
            HandlerFailure::Message("disk full".into())
        );
        assert_eq!(
            "plain".into_handler_failure(),
            HandlerFailure::Message("plain".into())
        );
        let p = ProtocolError::new(ErrorCode::INVALID_PARAMS, "bad");
        assert_eq!(p.to_string(), "bad (JSON-RPC error -32602)");
        assert_eq!(
            p.into_handler_failure(),
            HandlerFailure::Protocol(ErrorObject::invalid_params("bad"))
        );
        let boxed: Box<dyn std::error::Error + Send + Sync> =
            ProtocolError::new(ErrorCode::INVALID_PARAMS, "boxed").into();
        assert_eq!(
            boxed.into_handler_failure(),
            HandlerFailure::Protocol(ErrorObject::invalid_params("boxed")),
            "a boxed protocol error stays one"
        );
        let scope = crate::InsufficientScope::new(["files:write"]);
        let expected = scope.clone().into_error();
        assert!(scope.to_string().contains("files:write"), "{scope}");
        assert_eq!(
            scope.into_handler_failure(),
            HandlerFailure::Protocol(expected)
        );
    }
}
