//! Tool handlers: closures or structs, and what they may return.

use std::fmt;
use std::future::Future;
use std::marker::PhantomData;

use presa_core::{CallToolResult, ContentBlock, ErrorObject, JsonObject, WRAPPED_RESULT};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::BoxFuture;
use crate::context::Context;
use crate::error::{HandlerFailure, IntoHandlerFailure, ToolError};

/// What a tool call produced: a result (possibly a tool error), or a JSON-RPC error.
pub type ToolOutcome = Result<CallToolResult, ErrorObject>;

/// A tool's behaviour, object-safe so that a tool can be a struct held as `Arc<dyn ToolHandler>`.
///
/// Closures get this through [`ServerBuilder::tool`](crate::ServerBuilder::tool) and
/// [`ServerBuilder::tool_sync`](crate::ServerBuilder::tool_sync); implement it yourself for a
/// tool with state of its own.
///
/// ```
/// use presa_server::{BoxFuture, Context, ToolHandler, ToolOutcome, IntoToolResult};
/// use presa_core::JsonObject;
///
/// #[derive(Debug)]
/// struct Counter(std::sync::atomic::AtomicU64);
///
/// impl ToolHandler for Counter {
///     fn call(&self, _arguments: JsonObject, _cx: Context) -> BoxFuture<'static, ToolOutcome> {
///         let n = self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
///         Box::pin(async move { n.to_string().into_tool_result() })
///     }
/// }
/// ```
pub trait ToolHandler: Send + Sync + 'static {
    /// Runs the tool with arguments that already passed the input schema.
    fn call(&self, arguments: JsonObject, cx: Context) -> BoxFuture<'static, ToolOutcome>;
}

/// Turns what a tool handler returns into a `tools/call` result.
///
/// | handler returns | result |
/// |---|---|
/// | `String`, `&str` | one text block |
/// | a JSON object (`Value`, [`Json`]) | `structuredContent`, plus a text block holding its JSON |
/// | [`Json`] of another value | `structuredContent` `{"result": <value>}`, plus a text block holding the value's JSON |
/// | another JSON `Value` | a text block holding its JSON |
/// | [`Content`], `Vec<ContentBlock>`, `ContentBlock` | those blocks |
/// | `CallToolResult` | that result, as is |
/// | [`ToolError`] | `isError: true` with its message |
/// | `()`, `None` | an empty result |
/// | `Err(e)` | `isError: true` with `e`'s message, or a JSON-RPC error for a [`ProtocolError`](crate::ProtocolError) |
pub trait IntoToolResult {
    /// The result, or the JSON-RPC error to answer with.
    fn into_tool_result(self) -> ToolOutcome;
}

impl IntoToolResult for CallToolResult {
    fn into_tool_result(self) -> ToolOutcome {
        Ok(self)
    }
}

impl IntoToolResult for String {
    fn into_tool_result(self) -> ToolOutcome {
        Ok(CallToolResult::text(self))
    }
}

impl IntoToolResult for &str {
    fn into_tool_result(self) -> ToolOutcome {
        Ok(CallToolResult::text(self))
    }
}

impl IntoToolResult for () {
    fn into_tool_result(self) -> ToolOutcome {
        Ok(CallToolResult::new(Vec::new()))
    }
}

impl IntoToolResult for Value {
    fn into_tool_result(self) -> ToolOutcome {
        Ok(match self {
            Value::Null => CallToolResult::new(Vec::new()),
            Value::String(text) => CallToolResult::text(text),
            Value::Object(_) => structured(self),
            other => CallToolResult::text(other.to_string()),
        })
    }
}

fn structured(value: Value) -> CallToolResult {
    let mut result = CallToolResult::text(value.to_string());
    result.structured_content = Some(value);
    result
}

impl IntoToolResult for ContentBlock {
    fn into_tool_result(self) -> ToolOutcome {
        Ok(CallToolResult::new(vec![self]))
    }
}

impl IntoToolResult for Vec<ContentBlock> {
    fn into_tool_result(self) -> ToolOutcome {
        Ok(CallToolResult::new(self))
    }
}

impl<T: IntoToolResult> IntoToolResult for Option<T> {
    fn into_tool_result(self) -> ToolOutcome {
        match self {
            Some(value) => value.into_tool_result(),
            None => Ok(CallToolResult::new(Vec::new())),
        }
    }
}

impl<T: IntoToolResult, E: IntoHandlerFailure> IntoToolResult for Result<T, E> {
    fn into_tool_result(self) -> ToolOutcome {
        match self {
            Ok(value) => value.into_tool_result(),
            Err(error) => match error.into_handler_failure() {
                HandlerFailure::Message(message) => Ok(CallToolResult::error(message)),
                HandlerFailure::Protocol(error) => Err(error),
            },
        }
    }
}

/// A serializable value returned as structured content (plus a text block holding its JSON).
///
/// Structured content is a JSON object; a value that serializes to anything else (a list, a
/// number, a string) goes out wrapped as `{"result": <value>}`. A typed tool
/// ([`ServerBuilder::typed_tool`](crate::ServerBuilder::typed_tool)) declares the output schema
/// to match.
///
/// ```
/// use presa_server::{IntoToolResult, Json};
///
/// #[derive(serde::Serialize)]
/// struct Sum { sum: f64 }
///
/// let result = Json(Sum { sum: 6.0 }).into_tool_result().unwrap();
/// assert_eq!(result.structured_content, Some(serde_json::json!({"sum": 6.0})));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Json<T>(pub T);

impl<T: Serialize> IntoToolResult for Json<T> {
    fn into_tool_result(self) -> ToolOutcome {
        match serde_json::to_value(self.0) {
            Ok(value @ Value::Object(_)) => Ok(structured(value)),
            Ok(value) => Ok(wrapped(value)),
            Err(e) => Ok(unserializable(&e)),
        }
    }
}

#[cfg(feature = "schemars")]
impl<T: Serialize> Json<T> {
    /// The result with the value wrapped as `{"result": …}`, whatever it serializes to (what a
    /// typed tool whose output type is not always an object returns).
    pub(crate) fn into_wrapped_result(self) -> ToolOutcome {
        match serde_json::to_value(self.0) {
            Ok(value) => Ok(wrapped(value)),
            Err(e) => Ok(unserializable(&e)),
        }
    }
}

/// Structured content must be an object: another value goes out as `{"result": <value>}`, with
/// a text block holding the value's JSON.
fn wrapped(value: Value) -> CallToolResult {
    let mut result = CallToolResult::text(value.to_string());
    let mut object = JsonObject::new();
    object.insert(WRAPPED_RESULT.to_owned(), value);
    result.structured_content = Some(Value::Object(object));
    result
}

fn unserializable(error: &serde_json::Error) -> CallToolResult {
    CallToolResult::error(format!("result could not be serialized: {error}"))
}

/// Explicit content blocks as a tool's result (see [`content`](crate::content) for helpers).
#[derive(Clone, Debug, PartialEq)]
pub struct Content(pub Vec<ContentBlock>);

impl IntoToolResult for Content {
    fn into_tool_result(self) -> ToolOutcome {
        Ok(CallToolResult::new(self.0))
    }
}

impl IntoToolResult for ToolError {
    fn into_tool_result(self) -> ToolOutcome {
        match self.into_failure() {
            HandlerFailure::Message(message) => Ok(CallToolResult::error(message)),
            HandlerFailure::Protocol(error) => Err(error),
        }
    }
}

/// A tool handler's input, made from the (already validated) arguments.
///
/// Implemented for `Value` (the arguments object), `JsonObject` and [`Args<T>`].
pub trait FromArguments: Sized + Send + 'static {
    /// Reads the arguments; an error becomes a tool error naming the problem.
    fn from_arguments(arguments: JsonObject) -> Result<Self, ArgumentsError>;
}

/// Why a tool's arguments could not be read as its handler's input type.
#[derive(Debug)]
pub struct ArgumentsError(serde_json::Error);

impl ArgumentsError {
    /// The error of reading the arguments with serde.
    pub fn new(error: serde_json::Error) -> Self {
        Self(error)
    }

    /// The tool error the model gets: `Invalid arguments: ` and what serde found.
    fn tool_result(&self) -> CallToolResult {
        CallToolResult::error(format!("Invalid arguments: {}", self.0))
    }
}

impl fmt::Display for ArgumentsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("invalid arguments")
    }
}

impl std::error::Error for ArgumentsError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.0)
    }
}

impl FromArguments for Value {
    fn from_arguments(arguments: JsonObject) -> Result<Self, ArgumentsError> {
        Ok(Value::Object(arguments))
    }
}

/// A tool without parameters: its arguments (if any) are not read.
impl FromArguments for () {
    fn from_arguments(_arguments: JsonObject) -> Result<Self, ArgumentsError> {
        Ok(())
    }
}

impl FromArguments for JsonObject {
    fn from_arguments(arguments: JsonObject) -> Result<Self, ArgumentsError> {
        Ok(arguments)
    }
}

/// Arguments deserialized into `T`.
///
/// ```
/// use presa_server::{Args, FromArguments};
///
/// #[derive(serde::Deserialize)]
/// struct Forecast { city: String }
///
/// let args = serde_json::json!({"city": "Oslo"}).as_object().unwrap().clone();
/// let Args(forecast) = Args::<Forecast>::from_arguments(args).unwrap();
/// assert_eq!(forecast.city, "Oslo");
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Args<T>(pub T);

impl<T: DeserializeOwned + Send + 'static> FromArguments for Args<T> {
    fn from_arguments(arguments: JsonObject) -> Result<Self, ArgumentsError> {
        T::deserialize(Value::Object(arguments))
            .map(Args)
            .map_err(ArgumentsError)
    }
}

/// An async closure as a [`ToolHandler`].
pub(crate) struct AsyncTool<F, A> {
    f: F,
    _input: PhantomData<fn(A)>,
}

impl<F, A> AsyncTool<F, A> {
    pub(crate) fn new(f: F) -> Self {
        Self {
            f,
            _input: PhantomData,
        }
    }
}

impl<F, A, Fut, R> ToolHandler for AsyncTool<F, A>
where
    F: Fn(A, Context) -> Fut + Send + Sync + 'static,
    A: FromArguments,
    Fut: Future<Output = R> + Send + 'static,
    R: IntoToolResult,
{
    fn call(&self, arguments: JsonObject, cx: Context) -> BoxFuture<'static, ToolOutcome> {
        match A::from_arguments(arguments) {
            Ok(input) => {
                let fut = (self.f)(input, cx);
                Box::pin(async move { fut.await.into_tool_result() })
            }
            Err(error) => {
                let result = error.tool_result();
                Box::pin(async move { Ok(result) })
            }
        }
    }
}

/// A plain closure as a [`ToolHandler`].
pub(crate) struct SyncTool<F, A> {
    f: F,
    _input: PhantomData<fn(A)>,
}

impl<F, A> SyncTool<F, A> {
    pub(crate) fn new(f: F) -> Self {
        Self {
            f,
            _input: PhantomData,
        }
    }
}

impl<F, A, R> ToolHandler for SyncTool<F, A>
where
    F: Fn(A, Context) -> R + Send + Sync + 'static,
    A: FromArguments,
    R: IntoToolResult,
{
    fn call(&self, arguments: JsonObject, cx: Context) -> BoxFuture<'static, ToolOutcome> {
        let outcome = match A::from_arguments(arguments) {
            Ok(input) => (self.f)(input, cx).into_tool_result(),
            Err(error) => Ok(error.tool_result()),
        };
        Box::pin(async move { outcome })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::ProtocolError;
    use presa_core::ErrorCode;
    use serde_json::json;

    fn result(r: impl IntoToolResult) -> Value {
        serde_json::to_value(r.into_tool_result().unwrap()).unwrap()
    }

    #[test]
    fn each_return_kind_becomes_its_result() {
        assert_eq!(
            result("hi"),
            json!({"content": [{"type": "text", "text": "hi"}]})
        );
        assert_eq!(
            result(String::from("hi")),
            json!({"content": [{"type": "text", "text": "hi"}]})
        );
        assert_eq!(
            result(json!({"sum": 6})),
            json!({"content": [{"type": "text", "text": "{\"sum\":6}"}], "structuredContent": {"sum": 6}})
        );
        assert_eq!(
            result(json!([1, 2])),
            json!({"content": [{"type": "text", "text": "[1,2]"}]})
        );
        assert_eq!(result(()), json!({"content": []}));
        assert_eq!(result(None::<String>), json!({"content": []}));
        assert_eq!(result(Value::Null), json!({"content": []}));
        assert_eq!(
            result(ToolError::new("no")),
            json!({"content": [{"type": "text", "text": "no"}], "isError": true})
        );
        assert_eq!(
            result(Content(vec![
                ContentBlock::text("a"),
                ContentBlock::text("b")
            ])),
            json!({"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]})
        );
        let full = CallToolResult::text("as is");
        assert_eq!(full.clone().into_tool_result().unwrap(), full);
    }

    #[test]
    fn errors_become_tool_errors_unless_they_are_protocol_errors() {
        let r: Result<String, std::io::Error> = Err(std::io::Error::other("disk full"));
        assert_eq!(
            result(r),
            json!({"content": [{"type": "text", "text": "disk full"}], "isError": true})
        );
        let r: Result<String, String> = Err("plain".into());
        assert!(r.into_tool_result().unwrap().is_error());
        let r: Result<String, ProtocolError> =
            Err(ProtocolError::new(ErrorCode::INVALID_PARAMS, "bad"));
        assert_eq!(
            r.into_tool_result().unwrap_err().code,
            ErrorCode::INVALID_PARAMS
        );
    }

    #[test]
    fn typed_arguments_report_what_does_not_fit() {
        #[derive(serde::Deserialize, Debug)]
        #[allow(dead_code)]
        struct In {
            n: u8,
        }
        let bad = json!({"n": 300}).as_object().unwrap().clone();
        let error = Args::<In>::from_arguments(bad).unwrap_err();
        assert_eq!(error.to_string(), "invalid arguments");
        let source = std::error::Error::source(&error).unwrap().to_string();
        let result = error.tool_result();
        assert!(result.is_error());
        assert_eq!(
            serde_json::to_value(&result.content).unwrap()[0]["text"],
            format!("Invalid arguments: {source}")
        );
    }
}
