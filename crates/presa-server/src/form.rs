//! Elicitation forms derived from Rust types: the restricted schema of form-mode elicitation (a
//! flat object of strings, numbers, booleans and enums) made from a type, checked when the server
//! is built.

use std::any::TypeId;
use std::collections::HashMap;
use std::fmt;

use presa_core::{ElicitationSchema, PrimitiveSchemaDefinition};
use schemars::JsonSchema;
use serde_json::Value;

use crate::error::BuildError;
use crate::json_schema::{input_schema_for, struct_properties};

/// The forms registered with [`ServerBuilder::elicitation_form`], by type.
///
/// [`ServerBuilder::elicitation_form`]: crate::ServerBuilder::elicitation_form
#[derive(Default)]
pub(crate) struct Forms {
    schemas: HashMap<TypeId, ElicitationSchema>,
}

impl fmt::Debug for Forms {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Forms")
            .field("schemas", &self.schemas.len())
            .finish()
    }
}

impl Forms {
    pub(crate) fn insert<T: JsonSchema + 'static>(&mut self) -> Result<(), BuildError> {
        let schema = form_schema::<T>()?;
        self.schemas.insert(TypeId::of::<T>(), schema);
        Ok(())
    }

    pub(crate) fn get<T: 'static>(&self) -> Option<&ElicitationSchema> {
        self.schemas.get(&TypeId::of::<T>())
    }
}

fn refused<T>(field: Option<&str>, reason: impl Into<String>) -> BuildError {
    BuildError::ElicitationForm {
        type_name: std::any::type_name::<T>(),
        field: field.map(str::to_owned),
        reason: reason.into(),
    }
}

/// `T`'s derived schema as a form, or why it is not one.
pub(crate) fn form_schema<T: JsonSchema>() -> Result<ElicitationSchema, BuildError> {
    let schema = input_schema_for::<T>();
    let properties = struct_properties(&schema)
        .map_err(|reason| refused::<T>(None, reason))?
        .clone();
    let mut form = ElicitationSchema::new();
    form.required = match schema.get("required") {
        Some(Value::Array(names)) if !names.is_empty() => Some(
            names
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect(),
        ),
        _ => None,
    };
    for (name, property) in properties {
        let property = primitive(property).map_err(|reason| refused::<T>(Some(&name), reason))?;
        form.properties.insert(name, property);
    }
    Ok(form)
}

/// A property's derived schema as a form field: a nullable type is the type (an `Option` field is
/// simply not required), an enum with a description per value is its list of values. Anything
/// that would not reach the client whole (a nested object, a `pattern`) is refused.
fn primitive(property: Value) -> Result<PrimitiveSchemaDefinition, String> {
    let Value::Object(mut property) = property else {
        return Err("admits any value; form fields are strings, numbers, booleans or enums".into());
    };
    if let Some(Value::Array(types)) = property.get("type") {
        let types: Vec<&Value> = types.iter().filter(|ty| *ty != "null").collect();
        if let [only] = types.as_slice() {
            let only = (*only).clone();
            property.insert("type".into(), only);
        }
    }
    if let Some(Value::Array(options)) = property.get("enum") {
        let options: Vec<Value> = options.iter().filter(|v| !v.is_null()).cloned().collect();
        property.insert("enum".into(), Value::Array(options));
    }
    for choice in ["oneOf", "anyOf"] {
        let Some(Value::Array(options)) = property.get(choice) else {
            continue;
        };
        let values: Option<Vec<Value>> = options
            .iter()
            .filter(|option| option.get("type") != Some(&Value::from("null")))
            .map(|option| option.get("const").filter(|v| v.is_string()).cloned())
            .collect();
        let Some(values) = values else {
            return Err(format!(
                "is a choice of values that are not strings ({choice}); form fields are strings, numbers, booleans or enums of strings"
            ));
        };
        property.remove(choice);
        property.insert("type".into(), "string".into());
        property.insert("enum".into(), Value::Array(values));
    }
    match property.get("type").and_then(Value::as_str) {
        Some("object") => return Err("is an object; elicitation forms are flat".into()),
        Some("array")
            if property
                .get("items")
                .and_then(|items| items.get("enum"))
                .is_none() =>
        {
            return Err("is a list of something other than enum values".into());
        }
        Some(_) => {}
        None => {
            return Err(
                "admits any value; form fields are strings, numbers, booleans or enums".into(),
            );
        }
    }
    let written = Value::Object(property.clone());
    let field: PrimitiveSchemaDefinition =
        serde_json::from_value(written).map_err(|error| format!("is not a form field: {error}"))?;
    // what the field type carries must be all the derived schema says
    let carried = serde_json::to_value(&field).unwrap_or(Value::Null);
    if let Some(lost) = property
        .keys()
        .find(|key| carried.get(key.as_str()).is_none() && key.as_str() != "uniqueItems")
    {
        return Err(format!(
            "uses `{lost}`, which an elicitation form cannot carry"
        ));
    }
    Ok(field)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use serde_json::json;

    #[derive(serde::Deserialize, JsonSchema)]
    #[serde(rename_all = "lowercase")]
    #[allow(dead_code)]
    enum Size {
        Small,
        Large,
    }

    #[derive(serde::Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Order {
        /// Your name.
        name: String,
        #[schemars(range(min = 1, max = 9))]
        count: u8,
        gift: Option<bool>,
        size: Size,
        extras: Vec<Size>,
    }

    #[derive(serde::Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Nested {
        name: String,
        address: Address,
    }

    #[derive(serde::Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Address {
        city: String,
    }

    #[test]
    fn flat_types_become_forms() {
        let form = form_schema::<Order>().unwrap();
        assert_eq!(
            serde_json::to_value(&form).unwrap(),
            json!({
                "type": "object",
                "properties": {
                    "name": {"type": "string", "description": "Your name."},
                    "count": {"type": "integer", "minimum": 1, "maximum": 9},
                    "gift": {"type": "boolean"},
                    "size": {"type": "string", "enum": ["small", "large"]},
                    "extras": {"type": "array", "items": {"type": "string", "enum": ["small", "large"]}}
                },
                "required": ["name", "count", "size", "extras"]
            })
        );
    }

    #[test]
    fn nested_types_are_refused_naming_the_field() {
        let error = form_schema::<Nested>().unwrap_err();
        assert_eq!(
            error.to_string(),
            format!(
                "elicitation form {}: field \"address\" is an object; elicitation forms are flat",
                std::any::type_name::<Nested>()
            )
        );
        assert!(form_schema::<Vec<String>>().is_err());
    }
}
