//! The restricted JSON Schema of form-mode elicitation (`requestedSchema`): a flat object whose
//! properties are primitive schemas. Since 2025-06-18 (titled and multi-select enums, defaults
//! since 2025-11-25).

use std::collections::BTreeMap;

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use super::serde_util;

literal_tag! {
    /// The literal `"string"` of a schema's `type` member.
    TypeString = "string"
}
literal_tag! {
    /// The literal `"boolean"` of a schema's `type` member.
    TypeBoolean = "boolean"
}
literal_tag! {
    /// The literal `"array"` of a schema's `type` member.
    TypeArray = "array"
}
literal_tag! {
    /// The literal `"object"` of a schema's `type` member.
    TypeObject = "object"
}

/// The `requestedSchema` of a form-mode elicitation: `{"type": "object", "properties": {..},
/// "required": [..]}` with primitive property schemas only (no nesting).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ElicitationSchema {
    /// Optional `$schema` dialect URI.
    #[serde(rename = "$schema", default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
    /// Always `"object"`.
    #[serde(rename = "type")]
    pub kind: TypeObject,
    /// The fields of the form.
    pub properties: BTreeMap<String, PrimitiveSchemaDefinition>,
    /// Names of the fields that must be filled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<Vec<String>>,
}

impl ElicitationSchema {
    /// An empty form.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a field.
    #[must_use]
    pub fn property(
        mut self,
        name: impl Into<String>,
        schema: impl Into<PrimitiveSchemaDefinition>,
        required: bool,
    ) -> Self {
        let name = name.into();
        if required {
            self.required
                .get_or_insert_with(Vec::new)
                .push(name.clone());
        }
        self.properties.insert(name, schema.into());
        self
    }
}

/// A property schema of a form (schema `PrimitiveSchemaDefinition`), told apart by `type` and by
/// the members present.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum PrimitiveSchemaDefinition {
    /// `{"type": "string", ..}` without `enum`/`oneOf`.
    String(StringSchema),
    /// `{"type": "number" | "integer", ..}`.
    Number(NumberSchema),
    /// `{"type": "boolean", ..}`.
    Boolean(BooleanSchema),
    /// `{"type": "string", "enum": [..]}`. Since 2025-11-25.
    UntitledSingleSelect(UntitledSingleSelectEnumSchema),
    /// `{"type": "string", "oneOf": [{"const", "title"}..]}`. Since 2025-11-25.
    TitledSingleSelect(TitledSingleSelectEnumSchema),
    /// `{"type": "array", "items": {"type": "string", "enum": [..]}}`. Since 2025-11-25.
    UntitledMultiSelect(UntitledMultiSelectEnumSchema),
    /// `{"type": "array", "items": {"anyOf": [{"const", "title"}..]}}`. Since 2025-11-25.
    TitledMultiSelect(TitledMultiSelectEnumSchema),
    /// `{"type": "string", "enum": [..], "enumNames": [..]}` (the 2025-06-18 enum; deprecated).
    LegacyTitledEnum(LegacyTitledEnumSchema),
}

impl<'de> Deserialize<'de> for PrimitiveSchemaDefinition {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        let object = value
            .as_object()
            .ok_or_else(|| D::Error::custom("a property schema must be an object"))?;
        let has = |key: &str| object.contains_key(key);
        let parsed = match object.get("type").and_then(Value::as_str) {
            Some("string") if has("oneOf") => {
                serde_json::from_value(value).map(Self::TitledSingleSelect)
            }
            Some("string") if has("enum") && has("enumNames") => {
                serde_json::from_value(value).map(Self::LegacyTitledEnum)
            }
            Some("string") if has("enum") => {
                serde_json::from_value(value).map(Self::UntitledSingleSelect)
            }
            Some("string") => serde_json::from_value(value).map(Self::String),
            Some("number" | "integer") => serde_json::from_value(value).map(Self::Number),
            Some("boolean") => serde_json::from_value(value).map(Self::Boolean),
            Some("array") => {
                let titled = object
                    .get("items")
                    .and_then(|items| items.get("anyOf"))
                    .is_some();
                if titled {
                    serde_json::from_value(value).map(Self::TitledMultiSelect)
                } else {
                    serde_json::from_value(value).map(Self::UntitledMultiSelect)
                }
            }
            Some(other) => {
                return Err(D::Error::custom(format!(
                    "unsupported property schema type `{other}`"
                )));
            }
            None => return Err(D::Error::missing_field("type")),
        };
        parsed.map_err(D::Error::custom)
    }
}

macro_rules! from_schema {
    ($($variant:ident($ty:ty)),*) => {
        $(impl From<$ty> for PrimitiveSchemaDefinition {
            fn from(schema: $ty) -> Self {
                Self::$variant(schema)
            }
        })*
    };
}

from_schema!(
    String(StringSchema),
    Number(NumberSchema),
    Boolean(BooleanSchema),
    UntitledSingleSelect(UntitledSingleSelectEnumSchema),
    TitledSingleSelect(TitledSingleSelectEnumSchema),
    UntitledMultiSelect(UntitledMultiSelectEnumSchema),
    TitledMultiSelect(TitledMultiSelectEnumSchema),
    LegacyTitledEnum(LegacyTitledEnumSchema)
);

/// A string field.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StringSchema {
    /// Always `"string"`.
    #[serde(rename = "type")]
    pub kind: TypeString,
    /// Label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Minimum length.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_length: Option<u64>,
    /// Maximum length.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_length: Option<u64>,
    /// Expected format.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<StringFormat>,
    /// Pre-filled value. Since 2025-11-25.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
}

impl StringSchema {
    /// A string field with a label.
    pub fn titled(title: impl Into<String>) -> Self {
        Self {
            title: Some(title.into()),
            ..Self::default()
        }
    }
}

/// Formats a [`StringSchema`] may require.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StringFormat {
    /// An e-mail address.
    Email,
    /// A URI.
    Uri,
    /// An RFC 3339 full date.
    Date,
    /// An RFC 3339 date-time.
    DateTime,
}

/// The `type` of a [`NumberSchema`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NumberType {
    /// Any number.
    #[default]
    Number,
    /// Integers only.
    Integer,
}

/// A number or integer field.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NumberSchema {
    /// `"number"` or `"integer"`.
    #[serde(rename = "type")]
    pub kind: NumberType,
    /// Label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Inclusive minimum.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "serde_util::opt_f64_compact"
    )]
    pub minimum: Option<f64>,
    /// Inclusive maximum.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "serde_util::opt_f64_compact"
    )]
    pub maximum: Option<f64>,
    /// Pre-filled value. Since 2025-11-25.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "serde_util::opt_f64_compact"
    )]
    pub default: Option<f64>,
}

/// A boolean field.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BooleanSchema {
    /// Always `"boolean"`.
    #[serde(rename = "type")]
    pub kind: TypeBoolean,
    /// Label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Pre-filled value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<bool>,
}

impl BooleanSchema {
    /// A boolean field with a label.
    ///
    /// ```
    /// let field = presa_core::BooleanSchema::titled("Yes, delete it");
    /// assert_eq!(field.title.as_deref(), Some("Yes, delete it"));
    /// ```
    pub fn titled(title: impl Into<String>) -> Self {
        Self {
            title: Some(title.into()),
            ..Self::default()
        }
    }
}

impl NumberSchema {
    /// A number field (`integer` when `integer`) with a label.
    ///
    /// ```
    /// use presa_core::{NumberSchema, NumberType};
    ///
    /// let field = NumberSchema::titled("Copies", true);
    /// assert_eq!(field.kind, NumberType::Integer);
    /// ```
    pub fn titled(title: impl Into<String>, integer: bool) -> Self {
        Self {
            kind: if integer {
                NumberType::Integer
            } else {
                NumberType::Number
            },
            title: Some(title.into()),
            ..Self::default()
        }
    }
}

/// A choice of a titled enum: a value and its label.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EnumOption {
    /// The value sent back.
    #[serde(rename = "const")]
    pub value: String,
    /// The label shown.
    pub title: String,
}

/// Single choice among plain values. Since 2025-11-25.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct UntitledSingleSelectEnumSchema {
    /// Always `"string"`.
    #[serde(rename = "type")]
    pub kind: TypeString,
    /// Label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The allowed values.
    #[serde(rename = "enum")]
    pub values: Vec<String>,
    /// Pre-selected value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
}

/// Single choice among labelled values. Since 2025-11-25.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TitledSingleSelectEnumSchema {
    /// Always `"string"`.
    #[serde(rename = "type")]
    pub kind: TypeString,
    /// Label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The choices.
    pub one_of: Vec<EnumOption>,
    /// Pre-selected value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
}

/// The `items` of an [`UntitledMultiSelectEnumSchema`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct UntitledEnumItems {
    /// Always `"string"`.
    #[serde(rename = "type")]
    pub kind: TypeString,
    /// The allowed values.
    #[serde(rename = "enum")]
    pub values: Vec<String>,
}

/// The `items` of a [`TitledMultiSelectEnumSchema`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TitledEnumItems {
    /// The choices.
    pub any_of: Vec<EnumOption>,
}

/// Several choices among plain values. Since 2025-11-25.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UntitledMultiSelectEnumSchema {
    /// Always `"array"`.
    #[serde(rename = "type")]
    pub kind: TypeArray,
    /// Label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Fewest selections.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_items: Option<u64>,
    /// Most selections.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_items: Option<u64>,
    /// The allowed values.
    pub items: UntitledEnumItems,
    /// Pre-selected values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Vec<String>>,
}

/// Several choices among labelled values. Since 2025-11-25.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TitledMultiSelectEnumSchema {
    /// Always `"array"`.
    #[serde(rename = "type")]
    pub kind: TypeArray,
    /// Label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Fewest selections.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_items: Option<u64>,
    /// Most selections.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_items: Option<u64>,
    /// The choices.
    pub items: TitledEnumItems,
    /// Pre-selected values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Vec<String>>,
}

/// The 2025-06-18 enum: values with parallel display names (deprecated; still accepted).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LegacyTitledEnumSchema {
    /// Always `"string"`.
    #[serde(rename = "type")]
    pub kind: TypeString,
    /// Label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The allowed values.
    #[serde(rename = "enum")]
    pub values: Vec<String>,
    /// Display names, parallel to `values`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enum_names: Option<Vec<String>>,
    /// Pre-selected value. Since 2025-11-25.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use serde_json::json;

    use super::*;

    #[test]
    fn property_schemas_are_told_apart() {
        let cases = [
            (json!({"type": "string", "format": "email"}), "String"),
            (json!({"type": "integer", "minimum": 1}), "Number"),
            (json!({"type": "boolean", "default": true}), "Boolean"),
            (
                json!({"type": "string", "enum": ["a"]}),
                "UntitledSingleSelect",
            ),
            (
                json!({"type": "string", "oneOf": [{"const": "a", "title": "A"}]}),
                "TitledSingleSelect",
            ),
            (
                json!({"type": "array", "items": {"type": "string", "enum": ["a"]}}),
                "UntitledMultiSelect",
            ),
            (
                json!({"type": "array", "items": {"anyOf": [{"const": "a", "title": "A"}]}}),
                "TitledMultiSelect",
            ),
            (
                json!({"type": "string", "enum": ["a"], "enumNames": ["A"]}),
                "LegacyTitledEnum",
            ),
        ];
        for (case, variant) in cases {
            let schema: PrimitiveSchemaDefinition = serde_json::from_value(case.clone()).unwrap();
            assert!(
                format!("{schema:?}").starts_with(variant),
                "{case} -> {schema:?}"
            );
            assert_eq!(serde_json::to_value(&schema).unwrap(), case);
        }
        for bad in [
            json!({"type": "object"}),
            json!({"title": "x"}),
            json!({"type": "boolean", "default": "x"}),
        ] {
            assert!(
                serde_json::from_value::<PrimitiveSchemaDefinition>(bad.clone()).is_err(),
                "{bad}"
            );
        }
    }

    #[test]
    fn form_builder() {
        let form = ElicitationSchema::new()
            .property("name", StringSchema::titled("Name"), true)
            .property(
                "age",
                NumberSchema {
                    kind: NumberType::Integer,
                    ..Default::default()
                },
                false,
            );
        assert_eq!(
            serde_json::to_value(&form).unwrap(),
            json!({
                "type": "object",
                "properties": {"name": {"type": "string", "title": "Name"}, "age": {"type": "integer"}},
                "required": ["name"]
            })
        );
    }
}
