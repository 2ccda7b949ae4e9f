//! Compiling the keywords the subset evaluates, one small function each, in evaluation order.

use std::sync::Arc;

use serde_json::{Map, Value};

use crate::compile::{Compiler, Siblings};
use crate::error::{JsonType, SchemaError};
use crate::node::{Bound, Conditional, Keyword, Schema, types};
use crate::pointer::{display, join};

/// Where a keyword is: its value, the schema object holding it, the schema's pointer and the
/// value's, and the schema's nesting level.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Site<'a> {
    pub(crate) value: &'a Value,
    pub(crate) object: &'a Map<String, Value>,
    pub(crate) parent: &'a str,
    pub(crate) at: &'a str,
    pub(crate) level: usize,
}

impl Site<'_> {
    /// The level of the keyword's subschemas.
    fn child(&self) -> usize {
        self.level + 1
    }
}

/// Compiles one keyword; `None` when it can never fail. One small function per keyword keeps
/// the compiler's recursion (schema, keyword, schema, ...) cheap on the stack.
pub(crate) type CompileKeyword =
    fn(&Compiler<'_>, Site<'_>, &mut Siblings) -> Result<Option<Keyword>, SchemaError>;

/// The keywords the subset evaluates, in evaluation order (whatever the order in the
/// document): `type` first, then value checks, then the per-type keywords, then the in-place
/// applicators. `minContains`/`maxContains` go with `contains`, `then`/`else` with `if`.
pub(crate) const KEYWORDS: &[(&str, CompileKeyword)] = &[
    ("type", |_, s, _| type_keyword(s.value, s.at).map(Some)),
    ("const", |_, s, _| Ok(Some(Keyword::Const(s.value.clone())))),
    ("enum", |_, s, _| match s.value {
        Value::Array(options) => Ok(Some(Keyword::Enum(options.clone().into_boxed_slice()))),
        _ => Err(invalid(s.at, "an array")),
    }),
    ("minLength", |_, s, _| {
        Ok(Some(Keyword::MinLength(count(s.value, s.at)?)))
    }),
    ("maxLength", |_, s, _| {
        Ok(Some(Keyword::MaxLength(count(s.value, s.at)?)))
    }),
    ("pattern", |c, s, _| {
        let Value::String(source) = s.value else {
            return Err(invalid(s.at, "a string"));
        };
        Ok(Some(Keyword::Pattern(c.pattern(source, s.at)?)))
    }),
    ("minimum", |_, s, _| {
        Ok(Some(Keyword::Minimum(bound(s.value, s.at)?)))
    }),
    ("exclusiveMinimum", |_, s, _| {
        Ok(Some(Keyword::ExclusiveMinimum(bound(s.value, s.at)?)))
    }),
    ("maximum", |_, s, _| {
        Ok(Some(Keyword::Maximum(bound(s.value, s.at)?)))
    }),
    ("exclusiveMaximum", |_, s, _| {
        Ok(Some(Keyword::ExclusiveMaximum(bound(s.value, s.at)?)))
    }),
    ("multipleOf", |_, s, _| {
        let bound = bound(s.value, s.at).map_err(|_| invalid(s.at, "a number above 0"))?;
        if !bound
            .num
            .compare(crate::number::Num::Int(0))
            .is_some_and(|o| o.is_gt())
        {
            return Err(invalid(s.at, "a number above 0"));
        }
        Ok(Some(Keyword::MultipleOf(bound)))
    }),
    ("minItems", |_, s, _| {
        Ok(Some(Keyword::MinItems(count(s.value, s.at)?)))
    }),
    ("maxItems", |_, s, _| {
        Ok(Some(Keyword::MaxItems(count(s.value, s.at)?)))
    }),
    ("uniqueItems", |_, s, _| match s.value {
        Value::Bool(true) => Ok(Some(Keyword::UniqueItems)),
        Value::Bool(false) => Ok(None),
        _ => Err(invalid(s.at, "a boolean")),
    }),
    ("prefixItems", |c, s, _| {
        let schemas = c.list(s.value, s.at, s.child())?;
        if schemas.iter().all(|schema| matches!(schema, Schema::Any)) {
            return Ok(None);
        }
        Ok(Some(Keyword::PrefixItems(schemas.into_boxed_slice())))
    }),
    ("items", |c, s, _| {
        Ok(match c.schema(s.value, s.at, None, s.child())? {
            Schema::Any => None,
            schema => Some(Keyword::Items {
                skip: s
                    .object
                    .get("prefixItems")
                    .and_then(Value::as_array)
                    .map_or(0, Vec::len),
                schema,
            }),
        })
    }),
    ("contains", |c, s, _| {
        let schema = c.schema(s.value, s.at, None, s.child())?;
        let modifier = |name: &str| {
            s.object
                .get(name)
                .map(|value| count(value, &join(s.parent, name)))
                .transpose()
        };
        let min = modifier("minContains")?.unwrap_or(1);
        let max = modifier("maxContains")?;
        if min == 0 && max.is_none() {
            return Ok(None);
        }
        Ok(Some(Keyword::Contains { schema, min, max }))
    }),
    ("required", |_, s, _| {
        Ok(Some(Keyword::Required(names(s.value, s.at)?)))
    }),
    ("dependentRequired", |_, s, _| {
        let Value::Object(dependencies) = s.value else {
            return Err(invalid(s.at, "an object of arrays of distinct strings"));
        };
        let mut compiled = Vec::with_capacity(dependencies.len());
        for (property, required) in dependencies {
            let required = names(required, &join(s.at, property))?;
            if !required.is_empty() {
                compiled.push((property.clone(), required));
            }
        }
        if compiled.is_empty() {
            return Ok(None);
        }
        Ok(Some(Keyword::DependentRequired(
            compiled.into_boxed_slice(),
        )))
    }),
    ("minProperties", |_, s, _| {
        Ok(Some(Keyword::MinProperties(count(s.value, s.at)?)))
    }),
    ("maxProperties", |_, s, _| {
        Ok(Some(Keyword::MaxProperties(count(s.value, s.at)?)))
    }),
    ("properties", |c, s, _| {
        let compiled = c.map(s.value, s.at, s.child())?;
        if compiled.is_empty() {
            return Ok(None);
        }
        Ok(Some(Keyword::Properties(compiled.into_boxed_slice())))
    }),
    ("patternProperties", |c, s, siblings| {
        let Value::Object(patterns) = s.value else {
            return Err(invalid(s.at, "an object of schemas"));
        };
        let mut compiled = Vec::with_capacity(patterns.len());
        for (source, schema) in patterns {
            let here = join(s.at, source);
            let pattern = Arc::new(c.pattern(source, &here)?);
            siblings.patterns.push(Arc::clone(&pattern));
            match c.schema(schema, &here, None, s.child())? {
                Schema::Any => {}
                schema => compiled.push((pattern, schema)),
            }
        }
        if compiled.is_empty() {
            return Ok(None);
        }
        Ok(Some(Keyword::PatternProperties(
            compiled.into_boxed_slice(),
        )))
    }),
    ("additionalProperties", |c, s, siblings| {
        let schema = match c.schema(s.value, s.at, None, s.child())? {
            Schema::Any => return Ok(None),
            schema => schema,
        };
        let mut known: Vec<String> = match s.object.get("properties") {
            Some(Value::Object(properties)) => properties.keys().cloned().collect(),
            _ => Vec::new(),
        };
        known.sort_unstable();
        Ok(Some(Keyword::AdditionalProperties {
            known: known.into_boxed_slice(),
            patterns: std::mem::take(&mut siblings.patterns).into_boxed_slice(),
            schema,
        }))
    }),
    ("propertyNames", |c, s, _| {
        Ok(match c.schema(s.value, s.at, None, s.child())? {
            Schema::Any => None,
            schema => Some(Keyword::PropertyNames(schema)),
        })
    }),
    ("dependentSchemas", |c, s, _| {
        let compiled = c.map(s.value, s.at, s.child())?;
        if compiled.is_empty() {
            return Ok(None);
        }
        Ok(Some(Keyword::DependentSchemas(compiled.into_boxed_slice())))
    }),
    ("$ref", |c, s, _| {
        let Value::String(reference) = s.value else {
            return Err(invalid(s.at, "a URI reference"));
        };
        let target = c.resolver.resolve(c.doc, reference, s.at)?;
        match c.targets.get(&target) {
            Some(&index) => Ok(Some(Keyword::Ref {
                index,
                level: s.level,
            })),
            // The scan collected every reference that resolves.
            None => Err(SchemaError::Reference {
                message: format!("\"{reference}\" could not be resolved"),
            }),
        }
    }),
    ("allOf", |c, s, _| {
        let schemas: Vec<Schema> = c
            .list(s.value, s.at, s.child())?
            .into_iter()
            .filter(|schema| !matches!(schema, Schema::Any))
            .collect();
        if schemas.is_empty() {
            return Ok(None);
        }
        Ok(Some(Keyword::AllOf(schemas.into_boxed_slice())))
    }),
    ("anyOf", |c, s, _| {
        let schemas = c.list(s.value, s.at, s.child())?;
        if schemas.iter().any(|schema| matches!(schema, Schema::Any)) {
            return Ok(None);
        }
        Ok(Some(Keyword::AnyOf(schemas.into_boxed_slice())))
    }),
    ("oneOf", |c, s, _| {
        Ok(Some(Keyword::OneOf(
            c.list(s.value, s.at, s.child())?.into_boxed_slice(),
        )))
    }),
    ("not", |c, s, _| {
        Ok(match c.schema(s.value, s.at, None, s.child())? {
            Schema::Never => None,
            schema => Some(Keyword::Not(schema)),
        })
    }),
    ("if", |c, s, _| {
        let condition = c.schema(s.value, s.at, None, s.child())?;
        let branch = |name: &str| match s.object.get(name) {
            Some(value) => c.schema(value, &join(s.parent, name), None, s.child()),
            None => Ok(Schema::Any),
        };
        let then = branch("then")?;
        let otherwise = branch("else")?;
        if matches!((&then, &otherwise), (Schema::Any, Schema::Any)) {
            return Ok(None);
        }
        Ok(Some(Keyword::If(Box::new(Conditional {
            condition,
            then,
            otherwise,
        }))))
    }),
];

pub(crate) fn invalid(at: &str, expected: &'static str) -> SchemaError {
    SchemaError::InvalidKeyword {
        pointer: display(at),
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
pub(crate) fn count(value: &Value, at: &str) -> Result<u64, SchemaError> {
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
