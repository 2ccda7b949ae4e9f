//! Schema JSON to the [`Schema`] tree: checks every subset keyword's value, compiles patterns
//! once, and orders keywords for evaluation. Unknown keywords are skipped.

use serde_json::{Map, Value};

use crate::error::{JsonType, SchemaError};
use crate::node::{Bound, Keyword, Schema, types};
use crate::pointer::join;
use crate::regex::Pattern;

/// Keywords the subset evaluates.
pub(crate) const SUBSET_KEYWORDS: &[&str] = &[
    "type",
    "const",
    "enum",
    "minLength",
    "maxLength",
    "pattern",
    "minimum",
    "exclusiveMinimum",
    "maximum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
    "uniqueItems",
    "items",
    "required",
    "minProperties",
    "maxProperties",
    "properties",
    "additionalProperties",
];

/// Keywords with no effect on validation in 2020-12 (annotations), ignored by both backends.
#[cfg_attr(not(feature = "full"), allow(dead_code))]
pub(crate) const ANNOTATION_KEYWORDS: &[&str] = &[
    "$schema",
    "$comment",
    "title",
    "description",
    "default",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
    "format",
    "contentEncoding",
    "contentMediaType",
    "contentSchema",
];

/// Compiles schemas into the subset's tree.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Compiler {
    pub(crate) backtrack_limit: usize,
}

impl Compiler {
    /// Compiles `value`, found at schema location `at`. The caller has bounded its depth.
    pub(crate) fn schema(&self, value: &Value, at: &str) -> Result<Schema, SchemaError> {
        let object = match value {
            Value::Bool(true) => return Ok(Schema::Any),
            Value::Bool(false) => return Ok(Schema::Never),
            Value::Object(object) => object,
            _ => {
                return Err(SchemaError::NotASchema {
                    pointer: at.to_owned(),
                });
            }
        };
        let mut keywords = Vec::new();
        // Evaluation order, whatever the order in the document: type first, then value checks,
        // then the per-type keywords.
        for &name in SUBSET_KEYWORDS {
            if let Some(value) = object.get(name) {
                let here = join(at, name);
                if let Some(keyword) = self.keyword(name, value, object, &here)? {
                    keywords.push(keyword);
                }
            }
        }
        Ok(if keywords.is_empty() {
            Schema::Any
        } else {
            Schema::Node(keywords.into_boxed_slice())
        })
    }

    fn keyword(
        &self,
        name: &str,
        value: &Value,
        object: &Map<String, Value>,
        at: &str,
    ) -> Result<Option<Keyword>, SchemaError> {
        Ok(Some(match name {
            "type" => type_keyword(value, at)?,
            "const" => Keyword::Const(value.clone()),
            "enum" => match value {
                Value::Array(options) => Keyword::Enum(options.clone().into_boxed_slice()),
                _ => return Err(invalid(at, "an array")),
            },
            "minLength" => Keyword::MinLength(count(value, at)?),
            "maxLength" => Keyword::MaxLength(count(value, at)?),
            "pattern" => {
                let Value::String(source) = value else {
                    return Err(invalid(at, "a string"));
                };
                let pattern = Pattern::new(source, self.backtrack_limit).map_err(|reason| {
                    SchemaError::InvalidPattern {
                        pointer: at.to_owned(),
                        pattern: source.clone(),
                        reason,
                    }
                })?;
                Keyword::Pattern(pattern)
            }
            "minimum" => Keyword::Minimum(bound(value, at)?),
            "exclusiveMinimum" => Keyword::ExclusiveMinimum(bound(value, at)?),
            "maximum" => Keyword::Maximum(bound(value, at)?),
            "exclusiveMaximum" => Keyword::ExclusiveMaximum(bound(value, at)?),
            "multipleOf" => {
                let bound = bound(value, at).map_err(|_| invalid(at, "a number above 0"))?;
                if !bound
                    .num
                    .compare(crate::number::Num::Int(0))
                    .is_some_and(|o| o.is_gt())
                {
                    return Err(invalid(at, "a number above 0"));
                }
                Keyword::MultipleOf(bound)
            }
            "minItems" => Keyword::MinItems(count(value, at)?),
            "maxItems" => Keyword::MaxItems(count(value, at)?),
            "uniqueItems" => match value {
                Value::Bool(true) => Keyword::UniqueItems,
                Value::Bool(false) => return Ok(None),
                _ => return Err(invalid(at, "a boolean")),
            },
            "items" => match self.schema(value, at)? {
                Schema::Any => return Ok(None),
                schema => Keyword::Items(schema),
            },
            "required" => Keyword::Required(names(value, at)?),
            "minProperties" => Keyword::MinProperties(count(value, at)?),
            "maxProperties" => Keyword::MaxProperties(count(value, at)?),
            "properties" => {
                let Value::Object(properties) = value else {
                    return Err(invalid(at, "an object"));
                };
                let mut compiled = Vec::with_capacity(properties.len());
                for (property, schema) in properties {
                    match self.schema(schema, &join(at, property))? {
                        Schema::Any => {}
                        schema => compiled.push((property.clone(), schema)),
                    }
                }
                if compiled.is_empty() {
                    return Ok(None);
                }
                Keyword::Properties(compiled.into_boxed_slice())
            }
            "additionalProperties" => {
                let schema = match self.schema(value, at)? {
                    Schema::Any => return Ok(None),
                    schema => schema,
                };
                let mut known: Vec<String> = match object.get("properties") {
                    Some(Value::Object(properties)) => properties.keys().cloned().collect(),
                    _ => Vec::new(),
                };
                known.sort_unstable();
                Keyword::AdditionalProperties {
                    known: known.into_boxed_slice(),
                    schema,
                }
            }
            _ => return Ok(None),
        }))
    }
}

fn invalid(at: &str, expected: &'static str) -> SchemaError {
    SchemaError::InvalidKeyword {
        pointer: at.to_owned(),
        expected,
    }
}

fn type_keyword(value: &Value, at: &str) -> Result<Keyword, SchemaError> {
    const EXPECTED: &str = "a type name or a non-empty array of distinct type names";
    let names: Vec<&str> = match value {
        Value::String(name) => vec![name.as_str()],
        Value::Array(names) if !names.is_empty() => names
            .iter()
            .map(|name| name.as_str().ok_or_else(|| invalid(at, EXPECTED)))
            .collect::<Result<_, _>>()?,
        _ => return Err(invalid(at, EXPECTED)),
    };
    let mut mask = 0u8;
    let mut listed = Vec::with_capacity(names.len());
    for name in names {
        let ty = JsonType::from_name(name).ok_or_else(|| invalid(at, EXPECTED))?;
        let bit = match ty {
            JsonType::Null => types::NULL,
            JsonType::Boolean => types::BOOLEAN,
            JsonType::Integer => types::INTEGER,
            JsonType::Number => types::NUMBER,
            JsonType::String => types::STRING,
            JsonType::Array => types::ARRAY,
            JsonType::Object => types::OBJECT,
        };
        if mask & bit != 0 {
            return Err(invalid(at, EXPECTED));
        }
        mask |= bit;
        listed.push(ty);
    }
    Ok(Keyword::Type {
        mask,
        listed: listed.into_boxed_slice(),
    })
}

/// A non-negative integer (`2.0` counts); values past `u64::MAX` saturate.
fn count(value: &Value, at: &str) -> Result<u64, SchemaError> {
    const EXPECTED: &str = "a non-negative integer";
    let Value::Number(n) = value else {
        return Err(invalid(at, EXPECTED));
    };
    if let Some(u) = n.as_u64() {
        return Ok(u);
    }
    match n.as_f64() {
        // `as` saturates, which is what a limit past u64::MAX means anyway.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        Some(f) if f >= 0.0 && f.fract() == 0.0 => Ok(f as u64),
        _ => Err(invalid(at, EXPECTED)),
    }
}

fn bound(value: &Value, at: &str) -> Result<Bound, SchemaError> {
    match value {
        Value::Number(n) => Ok(Bound::new(n)),
        _ => Err(invalid(at, "a number")),
    }
}

fn names(value: &Value, at: &str) -> Result<Box<[String]>, SchemaError> {
    const EXPECTED: &str = "an array of distinct strings";
    let Value::Array(items) = value else {
        return Err(invalid(at, EXPECTED));
    };
    let mut names: Vec<String> = Vec::with_capacity(items.len());
    for item in items {
        let name = item.as_str().ok_or_else(|| invalid(at, EXPECTED))?;
        if names.iter().any(|seen| seen == name) {
            return Err(invalid(at, EXPECTED));
        }
        names.push(name.to_owned());
    }
    Ok(names.into_boxed_slice())
}

/// Whether every keyword anywhere in `schema` is a subset or annotation keyword, and `$schema`
/// (if any) names 2020-12. The caller has bounded the schema's depth.
#[cfg_attr(not(feature = "full"), allow(dead_code))]
pub(crate) fn uses_only_subset(schema: &Value, root: bool) -> bool {
    let object = match schema {
        Value::Bool(_) => return true,
        Value::Object(object) => object,
        _ => return true, // not a schema: let the subset compiler report it
    };
    object.iter().all(|(key, value)| match key.as_str() {
        "$schema" => {
            root && value.as_str().is_some_and(|uri| {
                uri.trim_end_matches('#') == "https://json-schema.org/draft/2020-12/schema"
            })
        }
        "properties" => match value {
            Value::Object(properties) => properties.values().all(|s| uses_only_subset(s, false)),
            _ => true,
        },
        "items" | "additionalProperties" => uses_only_subset(value, false),
        key => SUBSET_KEYWORDS.contains(&key) || ANNOTATION_KEYWORDS.contains(&key),
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use serde_json::json;

    fn compile(schema: Value) -> Result<Schema, SchemaError> {
        Compiler {
            backtrack_limit: 1000,
        }
        .schema(&schema, "/")
    }

    #[test]
    fn bad_keyword_values_fail() {
        let bad = [
            (json!({"minLength": -1}), "/minLength"),
            (json!({"maxItems": 1.5}), "/maxItems"),
            (json!({"type": "float"}), "/type"),
            (json!({"type": []}), "/type"),
            (json!({"type": ["string", "string"]}), "/type"),
            (json!({"required": ["a", "a"]}), "/required"),
            (json!({"required": "a"}), "/required"),
            (json!({"multipleOf": 0}), "/multipleOf"),
            (json!({"multipleOf": -2}), "/multipleOf"),
            (json!({"minimum": "1"}), "/minimum"),
            (json!({"enum": 1}), "/enum"),
            (json!({"uniqueItems": 1}), "/uniqueItems"),
            (
                json!({"properties": {"a": {"maxLength": "x"}}}),
                "/properties/a/maxLength",
            ),
        ];
        for (schema, pointer) in bad {
            match compile(schema.clone()) {
                Err(SchemaError::InvalidKeyword { pointer: p, .. }) => {
                    assert_eq!(p, pointer, "{schema}")
                }
                other => panic!("{schema}: {other:?}"),
            }
        }
    }

    #[test]
    fn non_schemas_and_bad_patterns_fail() {
        assert_eq!(
            compile(json!({"items": [true]})).unwrap_err(),
            SchemaError::NotASchema {
                pointer: "/items".into()
            }
        );
        assert!(matches!(
            compile(json!({"properties": {"a/b": {"pattern": "("}}})),
            Err(SchemaError::InvalidPattern { pointer, .. }) if pointer == "/properties/a~1b/pattern"
        ));
    }

    #[test]
    fn trivial_schemas_compile_to_any() {
        assert!(matches!(compile(json!({})).unwrap(), Schema::Any));
        assert!(matches!(
            compile(json!({"title": "x", "items": true, "uniqueItems": false, "x-extra": 1}))
                .unwrap(),
            Schema::Any
        ));
        assert!(matches!(compile(json!(false)).unwrap(), Schema::Never));
        assert!(matches!(
            compile(json!({"maxLength": 2.0})).unwrap(),
            Schema::Node(_)
        ));
    }

    #[test]
    fn subset_detection() {
        assert!(uses_only_subset(
            &json!({"type": "object", "properties": {"anyOf": {"title": "x"}}}),
            true
        ));
        assert!(uses_only_subset(
            &json!({"$schema": "https://json-schema.org/draft/2020-12/schema"}),
            true
        ));
        assert!(!uses_only_subset(
            &json!({"$schema": "http://json-schema.org/draft-07/schema#"}),
            true
        ));
        assert!(!uses_only_subset(&json!({"items": {"anyOf": []}}), true));
        assert!(!uses_only_subset(&json!({"x-unknown": 1}), true));
        assert!(!uses_only_subset(
            &json!({"properties": {"a": {"$ref": "#"}}}),
            true
        ));
    }
}
