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

use std::future::Future;
use std::sync::Arc;

use presa_core::{JsonObject, Tool};
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::context::Context;
use crate::error::IntoHandlerFailure;
use crate::json_schema::{input_schema_for, output_schema_for};
use crate::scopes::Scoped;
use crate::tool::{
    Args, AsyncTool, FromArguments, IntoToolResult, Json, SyncTool, ToolHandler, ToolOutcome,
};

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
impl ToolOutput for crate::error::ToolError {}
impl<T: IntoToolResult> ToolOutput for Option<T> {}

pub(crate) use fields::{typed_prompt, typed_template};

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

    use std::collections::BTreeMap;

    use serde_json::json;

    use super::*;

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
