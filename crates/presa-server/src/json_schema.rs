//! JSON Schemas derived from Rust types with schemars, in the form MCP wants: a tool's input
//! and output schemas, and the properties of a struct (an elicitation form, a prompt's
//! arguments, a template's variables).

use presa_core::{JsonObject, WRAPPED_RESULT};
use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::{Value, json};

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
