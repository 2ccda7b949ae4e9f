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
use std::sync::Arc;

use presa_core::{JsonObject, Tool, WRAPPED_RESULT};
use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::context::Context;
use crate::error::IntoHandlerFailure;
use crate::scopes::Scoped;
use crate::tool::{
    Args, AsyncTool, FromArguments, IntoToolResult, Json, SyncTool, ToolHandler, ToolOutcome,
};

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
    // the definitions of a recursive type stay at the root, where its `$ref`s point; references
    // into the schema itself follow it under `properties/result`
    let mut inner = Value::Object(schema);
    each_schema(&mut inner, &mut rebase_ref);
    let defs = inner
        .as_object_mut()
        .and_then(|inner| inner.remove("$defs"));
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
    each_schema(&mut schema, &mut drop_rust_format);
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

fn drop_rust_format(schema: &mut JsonObject) {
    if schema
        .get("format")
        .and_then(Value::as_str)
        .is_some_and(|format| RUST_FORMATS.contains(&format))
    {
        schema.remove("format");
    }
}

/// A `$ref` into a schema that moved under `properties/result` points there; references to
/// its definitions (which stay at the root) are left as they are.
fn rebase_ref(schema: &mut JsonObject) {
    if let Some(Value::String(reference)) = schema.get_mut("$ref") {
        let pointer = reference.strip_prefix('#');
        let into_definitions = reference.starts_with("#/$defs/") || reference == "#/$defs";
        if let (Some(pointer), false) = (pointer, into_definitions) {
            *reference = format!("#/properties/{WRAPPED_RESULT}{pointer}");
        }
    }
}

/// Calls `visit` on `schema` and on every schema inside it, by schema position: the members of
/// `properties`, `$defs` and the like are schemas whatever their names, while `const`, `enum`,
/// `default` and `examples` hold instances and are not entered.
fn each_schema(schema: &mut Value, visit: &mut impl FnMut(&mut JsonObject)) {
    let Value::Object(object) = schema else {
        return;
    };
    visit(object);
    for (key, value) in object.iter_mut() {
        match key.as_str() {
            "properties" | "patternProperties" | "$defs" | "definitions" | "dependentSchemas" => {
                if let Value::Object(members) = value {
                    members
                        .values_mut()
                        .for_each(|member| each_schema(member, visit));
                }
            }
            "items"
            | "additionalProperties"
            | "not"
            | "if"
            | "then"
            | "else"
            | "contains"
            | "propertyNames"
            | "unevaluatedItems"
            | "unevaluatedProperties" => {
                each_schema(value, visit);
            }
            "prefixItems" | "allOf" | "anyOf" | "oneOf" => {
                if let Value::Array(members) = value {
                    members
                        .iter_mut()
                        .for_each(|member| each_schema(member, visit));
                }
            }
            _ => {}
        }
    }
}

/// The properties of a struct's schema, or why the schema is not a struct's (an enum, a map,
/// a primitive): what typed prompts, templates and forms are made of.
pub(crate) fn struct_properties(schema: &JsonObject) -> Result<&JsonObject, &'static str> {
    let not_a_struct = "is not a struct with named fields";
    let combined = ["oneOf", "anyOf", "allOf", "patternProperties"]
        .iter()
        .any(|key| schema.contains_key(*key));
    let open = schema
        .get("additionalProperties")
        .is_some_and(|additional| additional != &Value::Bool(false));
    if schema.get("type").and_then(Value::as_str) != Some("object") || combined || open {
        return Err(not_a_struct);
    }
    match schema.get("properties") {
        Some(Value::Object(properties)) => Ok(properties),
        _ => Err(not_a_struct),
    }
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
    /// The output schema, or `None`; whether it wraps results follows from it
    /// ([`presa_core::is_wrapped_output_schema`]).
    fn output_schema() -> Option<JsonObject> {
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
    fn output_schema() -> Option<JsonObject> {
        Some(output_schema_for::<T>().0)
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
    fn output_schema() -> Option<JsonObject> {
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
    if definition.output_schema.is_none() {
        definition.output_schema = R::output_schema();
    }
    // results are wrapped when the schema the tool declares is a wrapped result's
    let wrapped = definition
        .output_schema
        .as_ref()
        .is_some_and(presa_core::is_wrapped_output_schema);
    (tool, wrapped)
}

/// A typed handler's result, with whether it is wrapped: what the plain tool handlers
/// ([`AsyncTool`], [`SyncTool`]) run a typed closure into.
struct Typed<R> {
    output: R,
    wrapped: bool,
}

impl<R: ToolOutput> IntoToolResult for Typed<R> {
    fn into_tool_result(self) -> ToolOutcome {
        self.output.into_typed_result(self.wrapped)
    }
}

/// An async typed closure as a tool handler.
pub(crate) fn typed_handler<F, A, Fut, R>(f: F, wrapped: bool) -> Arc<dyn ToolHandler>
where
    F: Fn(A, Context) -> Fut + Send + Sync + 'static,
    A: FromArguments,
    Fut: Future<Output = R> + Send + 'static,
    R: ToolOutput,
{
    Arc::new(AsyncTool::new(move |input: A, cx: Context| {
        let fut = f(input, cx);
        async move {
            Typed {
                output: fut.await,
                wrapped,
            }
        }
    }))
}

/// A plain typed closure as a tool handler.
pub(crate) fn typed_sync_handler<F, A, R>(f: F, wrapped: bool) -> Arc<dyn ToolHandler>
where
    F: Fn(A, Context) -> R + Send + Sync + 'static,
    A: FromArguments,
    R: ToolOutput,
{
    Arc::new(SyncTool::new(move |input: A, cx: Context| Typed {
        output: f(input, cx),
        wrapped,
    }))
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
        assert!(!output_schema_for::<Shape>().1);
        assert!(output_schema_for::<Color>().1);
        assert!(output_schema_for::<Option<Inner>>().1);
        assert!(!output_schema_for::<BTreeMap<String, u8>>().1);
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
