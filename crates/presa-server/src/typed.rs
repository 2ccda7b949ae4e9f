//! Definitions derived from Rust types (feature `schemars`): a tool's input schema from its
//! handler's argument type, its output schema from its result type, with schemars.
//!
//! The schemas are JSON Schema 2020-12 (the dialect of 2025-11-25 and later), made so that
//! clients of every revision read them alike: subschemas are inlined (only a recursive type keeps
//! `$defs` and `$ref`), there is no `$schema` member and no root `title` (the Rust type's name),
//! and schemars' number formats (`"format": "double"`, `"uint32"`, ...), which name Rust types
//! rather than JSON Schema formats, are left out; the ranges of integer types stay as `minimum`
//! and `maximum`.

mod fields;
mod form;

use std::future::Future;
use std::marker::PhantomData;

use presa_core::{CallToolResult, JsonObject, Tool, WRAPPED_RESULT};
use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::BoxFuture;
use crate::context::Context;
use crate::error::IntoHandlerFailure;
use crate::scopes::Scoped;
use crate::tool::{Args, FromArguments, IntoToolResult, Json, ToolHandler, ToolOutcome};

/// The input schema derived from `T`: what deserializes into `T`, as the JSON Schema of a
/// tool's arguments, with the type's doc comment as its `description`.
///
/// ```
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// /// Two numbers to add.
/// struct Add {
///     /// The first number.
///     a: f64,
///     b: f64,
/// }
///
/// let schema = presa_server::input_schema_for::<Add>();
/// assert_eq!(serde_json::Value::Object(schema), serde_json::json!({
///     "type": "object",
///     "description": "Two numbers to add.",
///     "properties": {
///         "a": {"type": "number", "description": "The first number."},
///         "b": {"type": "number"},
///     },
///     "required": ["a", "b"],
/// }));
/// ```
pub fn input_schema_for<T: JsonSchema + ?Sized>() -> JsonObject {
    derive::<T>(SchemaSettings::draft2020_12().for_deserialize())
}

/// The schema derived from `T` for what serializes from it: a tool's structured output, when
/// `T` always serializes to a JSON object (see [`output_schema_for`] for the rest).
pub fn serialized_schema_for<T: JsonSchema + ?Sized>() -> JsonObject {
    derive::<T>(SchemaSettings::draft2020_12().for_serialize())
}

/// The output schema of a tool whose structured result is a `T`, and whether the result is
/// wrapped: structured content is a JSON object, so a `T` that does not always serialize to one
/// (a number, a list, an enum of strings, an `Option`) is sent as `{"result": <T>}`, and the
/// schema says so.
///
/// ```
/// let (schema, wrapped) = presa_server::output_schema_for::<Vec<String>>();
/// assert!(wrapped);
/// assert_eq!(serde_json::Value::Object(schema), serde_json::json!({
///     "type": "object",
///     "properties": {"result": {"type": "array", "items": {"type": "string"}}},
///     "required": ["result"],
/// }));
/// ```
pub fn output_schema_for<T: JsonSchema + ?Sized>() -> (JsonObject, bool) {
    let schema = serialized_schema_for::<T>();
    if is_object_schema(&schema) {
        return (schema, false);
    }
    let mut wrapped = JsonObject::new();
    wrapped.insert("type".into(), "object".into());
    if let Some(description) = schema.get("description") {
        wrapped.insert("description".into(), description.clone());
    }
    // the definitions of a recursive type stay at the root, where its `$ref`s point
    let mut inner = schema;
    let defs = inner.remove("$defs");
    let inner = rebase_refs(Value::Object(inner));
    let mut properties = JsonObject::new();
    properties.insert(WRAPPED_RESULT.into(), inner);
    wrapped.insert("properties".into(), Value::Object(properties));
    wrapped.insert("required".into(), json!([WRAPPED_RESULT]));
    if let Some(defs) = defs {
        wrapped.insert("$defs".into(), defs);
    }
    (wrapped, true)
}

/// Whether a schema only admits objects: `"type": "object"` at its root, or a choice
/// (`oneOf`/`anyOf`) of object schemas, as schemars makes for tagged enums.
fn is_object_schema(schema: &JsonObject) -> bool {
    if let Some(ty) = schema.get("type") {
        return ty == "object";
    }
    ["oneOf", "anyOf"].iter().any(|choice| {
        schema
            .get(*choice)
            .and_then(Value::as_array)
            .is_some_and(|options| {
                !options.is_empty()
                    && options
                        .iter()
                        .all(|option| option.as_object().is_some_and(is_object_schema))
            })
    })
}

fn derive<T: JsonSchema + ?Sized>(settings: SchemaSettings) -> JsonObject {
    let settings = settings.with(|settings| {
        settings.inline_subschemas = true;
        settings.meta_schema = None;
    });
    let mut schema = match settings
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value()
    {
        Value::Object(schema) => schema,
        // `true`: anything; `false` cannot come from a type
        _ => JsonObject::new(),
    };
    schema.remove("title");
    if !schema.contains_key("type") && is_object_schema(&schema) {
        schema.insert("type".into(), "object".into());
    }
    let mut schema = Value::Object(schema);
    drop_rust_formats(&mut schema);
    match schema {
        Value::Object(schema) => schema,
        _ => JsonObject::new(),
    }
}

/// schemars' `format`s that name Rust number types, not JSON Schema formats.
const RUST_FORMATS: &[&str] = &[
    "int", "int8", "int16", "int32", "int64", "int128", "uint", "uint8", "uint16", "uint32",
    "uint64", "uint128", "float", "double",
];

fn drop_rust_formats(schema: &mut Value) {
    match schema {
        Value::Object(object) => {
            if object
                .get("format")
                .and_then(Value::as_str)
                .is_some_and(|format| RUST_FORMATS.contains(&format))
            {
                object.remove("format");
            }
            // schema positions only: `properties`, `$defs` and the like hold schemas by name,
            // `const`, `enum`, `default` and `examples` hold instances, which stay as they are
            for (key, value) in object.iter_mut() {
                if !matches!(key.as_str(), "const" | "enum" | "default" | "examples") {
                    drop_rust_formats(value);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(drop_rust_formats),
        _ => {}
    }
}

/// A `$ref` to the root (`#`) of a schema that moved under `properties/result` points there.
fn rebase_refs(mut schema: Value) -> Value {
    fn walk(value: &mut Value) {
        match value {
            Value::Object(object) => {
                if let Some(Value::String(reference)) = object.get_mut("$ref")
                    && reference == "#"
                {
                    *reference = format!("#/properties/{WRAPPED_RESULT}");
                }
                for (key, value) in object.iter_mut() {
                    if !matches!(key.as_str(), "const" | "enum" | "default" | "examples") {
                        walk(value);
                    }
                }
            }
            Value::Array(items) => items.iter_mut().for_each(walk),
            _ => {}
        }
    }
    walk(&mut schema);
    schema
}

/// A typed tool's input: the handler's first argument, whose type gives the tool its input
/// schema. [`Args<T>`] derives it from `T`; `()` is a tool without parameters.
pub trait ToolInput: FromArguments {
    /// The input schema (its root `type` is `object`).
    fn input_schema() -> JsonObject;
}

impl<T: JsonSchema + DeserializeOwned + Send + 'static> ToolInput for Args<T> {
    fn input_schema() -> JsonObject {
        input_schema_for::<T>()
    }
}

impl ToolInput for () {
    fn input_schema() -> JsonObject {
        let mut schema = JsonObject::new();
        schema.insert("type".into(), "object".into());
        schema.insert("additionalProperties".into(), false.into());
        schema
    }
}

/// A typed tool's result: what its handler returns, whose type says whether the tool has an
/// output schema. [`Json<T>`] derives one from `T` (wrapped as `{"result": …}` when `T` is not
/// always an object, see [`output_schema_for`]); `Result<R, E>` takes `R`'s; every other result
/// ([`String`], [`Content`](crate::Content), ...) has none.
pub trait ToolOutput: IntoToolResult {
    /// The output schema and whether structured results are wrapped, or `None`.
    fn output_schema() -> Option<(JsonObject, bool)> {
        None
    }

    /// The result, its structured content wrapped as `{"result": …}` when `wrapped`.
    fn into_typed_result(self, wrapped: bool) -> ToolOutcome
    where
        Self: Sized,
    {
        let _ = wrapped;
        self.into_tool_result()
    }
}

impl<T: Serialize + JsonSchema> ToolOutput for Json<T> {
    fn output_schema() -> Option<(JsonObject, bool)> {
        Some(output_schema_for::<T>())
    }

    fn into_typed_result(self, wrapped: bool) -> ToolOutcome {
        if wrapped {
            self.into_wrapped_result()
        } else {
            self.into_tool_result()
        }
    }
}

impl<T: ToolOutput, E: IntoHandlerFailure> ToolOutput for Result<T, E> {
    fn output_schema() -> Option<(JsonObject, bool)> {
        T::output_schema()
    }

    fn into_typed_result(self, wrapped: bool) -> ToolOutcome {
        match self {
            Ok(value) => value.into_typed_result(wrapped),
            Err(error) => Err::<T, E>(error).into_tool_result(),
        }
    }
}

impl ToolOutput for String {}
impl ToolOutput for &str {}
impl ToolOutput for () {}
impl ToolOutput for Value {}
impl ToolOutput for presa_core::ContentBlock {}
impl ToolOutput for Vec<presa_core::ContentBlock> {}
impl ToolOutput for presa_core::CallToolResult {}
impl ToolOutput for crate::tool::Content {}
impl ToolOutput for crate::tool::ToolError {}
impl<T: IntoToolResult> ToolOutput for Option<T> {}

pub(crate) use fields::{typed_prompt, typed_template};
pub(crate) use form::Forms;

/// What the user did with a form asked for with [`Context::elicit_as`](crate::Context::elicit_as).
#[derive(Clone, Debug, PartialEq)]
pub enum Elicitation<T> {
    /// The user submitted the form; its values read as a `T`.
    Accepted(T),
    /// The user declined to answer.
    Declined,
    /// The user dismissed the form without choosing.
    Cancelled,
}

/// A typed tool's definition: `tool` with the input schema of `A`, the output schema of `R`
/// (unless `tool` has one), and the input type's doc comment as its description (unless it has
/// one). Also returns whether structured results are wrapped.
pub(crate) fn typed_definition<A: ToolInput, R: ToolOutput>(
    tool: Scoped<Tool>,
) -> (Scoped<Tool>, bool) {
    let mut tool = tool;
    let definition = &mut tool.definition;
    definition.input_schema = A::input_schema();
    if definition.description.is_none() {
        definition.description = definition
            .input_schema
            .get("description")
            .and_then(Value::as_str)
            .map(str::to_owned);
    }
    let mut wrapped = false;
    if let Some((schema, wraps)) = R::output_schema() {
        wrapped = wraps;
        if definition.output_schema.is_none() {
            definition.output_schema = Some(schema);
        }
    }
    (tool, wrapped)
}

/// A typed async closure as a [`ToolHandler`]: [`AsyncTool`](crate::tool) with its results made
/// by [`ToolOutput::into_typed_result`].
pub(crate) struct TypedTool<F, A> {
    f: F,
    wrapped: bool,
    _input: PhantomData<fn(A)>,
}

impl<F, A> TypedTool<F, A> {
    pub(crate) fn new(f: F, wrapped: bool) -> Self {
        Self {
            f,
            wrapped,
            _input: PhantomData,
        }
    }
}

impl<F, A, Fut, R> ToolHandler for TypedTool<F, A>
where
    F: Fn(A, Context) -> Fut + Send + Sync + 'static,
    A: FromArguments,
    Fut: Future<Output = R> + Send + 'static,
    R: ToolOutput,
{
    fn call(&self, arguments: JsonObject, cx: Context) -> BoxFuture<'static, ToolOutcome> {
        match A::from_arguments(arguments) {
            Ok(input) => {
                let fut = (self.f)(input, cx);
                let wrapped = self.wrapped;
                Box::pin(async move { fut.await.into_typed_result(wrapped) })
            }
            Err(error) => {
                let message = error.to_string();
                Box::pin(async move { Ok(CallToolResult::error(message)) })
            }
        }
    }
}

/// A typed plain closure as a [`ToolHandler`] (see [`TypedTool`]).
pub(crate) struct TypedSyncTool<F, A> {
    f: F,
    wrapped: bool,
    _input: PhantomData<fn(A)>,
}

impl<F, A> TypedSyncTool<F, A> {
    pub(crate) fn new(f: F, wrapped: bool) -> Self {
        Self {
            f,
            wrapped,
            _input: PhantomData,
        }
    }
}

impl<F, A, R> ToolHandler for TypedSyncTool<F, A>
where
    F: Fn(A, Context) -> R + Send + Sync + 'static,
    A: FromArguments,
    R: ToolOutput,
{
    fn call(&self, arguments: JsonObject, cx: Context) -> BoxFuture<'static, ToolOutcome> {
        let outcome = match A::from_arguments(arguments) {
            Ok(input) => (self.f)(input, cx).into_typed_result(self.wrapped),
            Err(error) => Ok(CallToolResult::error(error.to_string())),
        };
        Box::pin(async move { outcome })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use std::collections::BTreeMap;

    #[derive(serde::Deserialize, serde::Serialize, JsonSchema)]
    #[allow(dead_code)]
    struct Inner {
        /// How many.
        #[schemars(range(min = 1, max = 10))]
        count: u32,
    }

    #[derive(serde::Deserialize, serde::Serialize, JsonSchema)]
    #[allow(dead_code)]
    enum Color {
        Red,
        Green,
    }

    #[derive(serde::Deserialize, serde::Serialize, JsonSchema)]
    #[serde(tag = "kind", rename_all = "snake_case")]
    #[allow(dead_code)]
    enum Shape {
        Circle { radius: f64 },
        Square { side: f64 },
    }

    #[derive(serde::Deserialize, serde::Serialize, JsonSchema)]
    #[allow(dead_code)]
    enum Value2 {
        Number(i64),
        Text(String),
    }

    /// Everything at once.
    #[derive(serde::Deserialize, serde::Serialize, JsonSchema)]
    #[allow(dead_code)]
    struct Everything {
        inner: Inner,
        maybe: Option<Inner>,
        maybe_text: Option<String>,
        list: Vec<u8>,
        map: BTreeMap<String, bool>,
        color: Color,
        shape: Shape,
        value: Value2,
        #[serde(default)]
        defaulted: i32,
    }

    #[derive(serde::Deserialize, serde::Serialize, JsonSchema)]
    #[allow(dead_code)]
    struct Tree {
        name: String,
        children: Vec<Tree>,
    }

    fn value(schema: JsonObject) -> Value {
        Value::Object(schema)
    }

    #[test]
    fn representative_types_derive_the_expected_schemas() {
        assert_eq!(
            value(input_schema_for::<Everything>()),
            json!({
                "type": "object",
                "description": "Everything at once.",
                "properties": {
                    "inner": {
                        "type": "object",
                        "properties": {"count": {
                            "type": "integer", "description": "How many.",
                            "minimum": 1, "maximum": 10
                        }},
                        "required": ["count"]
                    },
                    "maybe": {
                        "type": ["object", "null"],
                        "properties": {"count": {
                            "type": "integer", "description": "How many.",
                            "minimum": 1, "maximum": 10
                        }},
                        "required": ["count"]
                    },
                    "maybe_text": {"type": ["string", "null"]},
                    "list": {"type": "array", "items": {"type": "integer", "minimum": 0, "maximum": 255}},
                    "map": {"type": "object", "additionalProperties": {"type": "boolean"}},
                    "color": {"type": "string", "enum": ["Red", "Green"]},
                    "shape": {"oneOf": [
                        {
                            "type": "object",
                            "properties": {"kind": {"type": "string", "const": "circle"}, "radius": {"type": "number"}},
                            "required": ["kind", "radius"]
                        },
                        {
                            "type": "object",
                            "properties": {"kind": {"type": "string", "const": "square"}, "side": {"type": "number"}},
                            "required": ["kind", "side"]
                        }
                    ]},
                    "value": {"oneOf": [
                        {
                            "type": "object",
                            "properties": {"Number": {"type": "integer"}},
                            "additionalProperties": false,
                            "required": ["Number"]
                        },
                        {
                            "type": "object",
                            "properties": {"Text": {"type": "string"}},
                            "additionalProperties": false,
                            "required": ["Text"]
                        }
                    ]},
                    "defaulted": {"type": "integer", "default": 0}
                },
                "required": ["inner", "list", "map", "color", "shape", "value"]
            })
        );
    }

    #[test]
    fn recursive_types_keep_their_references() {
        assert_eq!(
            value(input_schema_for::<Tree>()),
            json!({
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "children": {"type": "array", "items": {"$ref": "#"}}
                },
                "required": ["name", "children"]
            })
        );
        let (schema, wrapped) = output_schema_for::<Vec<Tree>>();
        assert!(wrapped);
        let schema = value(schema);
        let tree = &schema["properties"]["result"]["items"];
        assert_eq!(
            tree["properties"]["children"]["items"]["$ref"], "#/$defs/Tree",
            "{schema}"
        );
        assert_eq!(schema["$defs"]["Tree"]["type"], "object", "{schema}");
    }

    #[test]
    fn tagged_enums_are_object_inputs() {
        let schema = input_schema_for::<Shape>();
        assert_eq!(schema.get("type"), Some(&json!("object")));
        assert_eq!(output_schema_for::<Shape>().1, false);
        assert_eq!(output_schema_for::<Color>().1, true);
        assert_eq!(output_schema_for::<Option<Inner>>().1, true);
        assert_eq!(output_schema_for::<BTreeMap<String, u8>>().1, false);
    }

    #[test]
    fn wrapped_results_match_their_schema() {
        let outcome = Json(vec![1, 2]).into_typed_result(true).unwrap();
        assert_eq!(outcome.structured_content, Some(json!({"result": [1, 2]})));
        let outcome = Json(Some(Inner { count: 2 }))
            .into_typed_result(true)
            .unwrap();
        assert_eq!(
            outcome.structured_content,
            Some(json!({"result": {"count": 2}}))
        );
        let outcome = Json(Inner { count: 2 }).into_typed_result(false).unwrap();
        assert_eq!(outcome.structured_content, Some(json!({"count": 2})));
    }
}
