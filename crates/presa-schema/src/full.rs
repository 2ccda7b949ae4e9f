//! Feature `full`: every keyword of JSON Schema 2020-12 (and the drafts `$schema` can name)
//! through the `jsonschema` crate, behind the same [`Validator`] trait and error types.
//!
//! References are resolved only inside the schema (and against the bundled meta-schemas):
//! remote documents are never fetched, so a `$ref` to `http://...` fails to compile.

use std::collections::HashMap;

use serde_json::{Number, Value};

use crate::error::{ErrorKind, JsonType, SchemaError, ValidationError, ValidationErrors};
use crate::number::Num;
use crate::pointer::{display, join};
use crate::value::{find_duplicate, too_deep};
use crate::{Validator, ValidatorOptions};

use jsonschema::error::{TypeKind, ValidationErrorKind as Kind};

/// A validator for full JSON Schema, built by [`ValidatorOptions::compile_full`].
///
/// The draft follows `$schema` (2020-12, 2019-09, draft-07, draft-06, draft-04), defaulting to
/// 2020-12. `format` asserts only where the draft does (draft-07 and earlier). `multipleOf` is
/// decided by exact arithmetic on the numbers' decimal forms (an integer's digits, a float's
/// shortest decimal), as the built-in subset decides it.
///
/// ```
/// use presa_schema::{FullValidator, Validator};
/// use serde_json::json;
///
/// let validator = FullValidator::new(&json!({
///     "$defs": {"positive": {"type": "integer", "exclusiveMinimum": 0}},
///     "type": "array",
///     "items": {"$ref": "#/$defs/positive"},
/// }))?;
/// let error = validator.validate(&json!([1, 0])).unwrap_err();
/// assert_eq!(error.to_string(), "at /1: expected more than 0, got 0");
///
/// // Remote references are never fetched.
/// assert!(FullValidator::new(&json!({"$ref": "http://example.com/schema.json"})).is_err());
/// # Ok::<(), presa_schema::SchemaError>(())
/// ```
#[derive(Debug)]
pub struct FullValidator {
    inner: jsonschema::Validator,
    /// The schema as given, to recover keyword values for messages.
    schema: Value,
    max_instance_depth: usize,
}

impl FullValidator {
    /// Compiles `schema` with the default [`ValidatorOptions`].
    pub fn new(schema: &Value) -> Result<Self, SchemaError> {
        ValidatorOptions::default().compile_full(schema)
    }

    fn too_deep(&self, instance: &Value) -> Option<ValidationError> {
        too_deep(instance, self.max_instance_depth).map(|pointer| {
            ValidationError::new(
                pointer,
                ErrorKind::TooDeep {
                    limit: self.max_instance_depth,
                },
            )
        })
    }
}

impl ValidatorOptions {
    /// Compiles `schema` for full JSON Schema (feature `full`), whatever keywords it uses.
    pub fn compile_full(&self, schema: &Value) -> Result<FullValidator, SchemaError> {
        self.check_schema_depth(schema)?;
        check_distinct_ids(schema)?;
        let inner = self.build_backend(schema)?;
        Ok(FullValidator {
            inner,
            schema: schema.clone(),
            max_instance_depth: self.max_instance_depth,
        })
    }
}

impl ValidatorOptions {
    /// jsonschema's validator for `schema`. A schema can come from a peer (a tool's
    /// `outputSchema`): a defect of the backend that panics on some schema must not end the
    /// process, so a panic is caught and nothing built survives it.
    fn build_backend(&self, schema: &Value) -> Result<jsonschema::Validator, SchemaError> {
        let patterns =
            jsonschema::PatternOptions::fancy_regex().backtrack_limit(self.backtrack_limit);
        let build = || {
            jsonschema::options()
                .offline()
                .with_pattern_options(patterns)
                .with_keyword("multipleOf", exact_multiple_of)
                .build(schema)
        };
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(build))
            .map_err(|panic| SchemaError::BackendFailure {
                message: panic_message(panic.as_ref()),
            })?
            .map_err(|error| schema_error(schema, &error))
    }
}

/// What a caught panic said, if it said it with a string.
fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    match (panic.downcast_ref::<&str>(), panic.downcast_ref::<String>()) {
        (Some(message), _) => (*message).to_owned(),
        (_, Some(message)) => message.clone(),
        _ => "no message".to_owned(),
    }
}

/// Refuses a schema in which two resources have the same identifier, as JSON Schema does: the
/// backend keeps one resource per identifier and would resolve a reference inside the other
/// against the wrong one.
///
/// Resources and identifiers are found as the backend finds them (draft by draft, `$schema`
/// switching drafts); an identifier that does not resolve is left for the backend to report.
fn check_distinct_ids(schema: &Value) -> Result<(), SchemaError> {
    let Ok(base) = jsonschema::uri::from_str(DEFAULT_BASE_URI) else {
        return Ok(());
    };
    let draft = jsonschema::Draft::default();
    distinct_ids_from(schema, schema, draft, &base, &mut HashMap::new())
}

/// The base URI the backend gives a schema without a root `$id`.
const DEFAULT_BASE_URI: &str = "json-schema:///";

/// Checks `resource` (a schema inside `root`, under `base` in `draft`) and its subresources
/// against the identifiers `seen` so far.
fn distinct_ids_from<'s>(
    root: &'s Value,
    resource: &'s Value,
    draft: jsonschema::Draft,
    base: &jsonschema::Uri<String>,
    seen: &mut HashMap<String, &'s Value>,
) -> Result<(), SchemaError> {
    let draft = draft.detect(resource);
    // an `$id` with a fragment names a location (drafts 4 to 7) or breaks the meta-schema
    // (2019-09 on): no resource either way; an empty one (`#`) names its parent's
    let id = draft
        .create_resource_ref(resource)
        .id()
        .filter(|id| !id.is_empty() && !id.contains('#'))
        .and_then(|id| jsonschema::uri::resolve_against(&base.borrow(), id).ok());
    // the root is a resource under the default base URI even without an `$id`
    let id = match id {
        None if std::ptr::eq(root, resource) => Some(base.clone()),
        id => id,
    };
    if let Some(id) = &id
        && let Some(first) = seen.insert(id.as_str().to_owned(), resource)
    {
        return Err(SchemaError::DuplicateId {
            pointer: pointer_to(root, resource),
            id: id.as_str().to_owned(),
            first: pointer_to(root, first),
        });
    }
    let base = id.as_ref().unwrap_or(base);
    for child in draft.subresources_of(resource) {
        distinct_ids_from(root, child, draft, base, seen)?;
    }
    // 2019-09's `dependencies`, which the backend walks for resources and the draft's list of
    // subschemas leaves out
    if draft == jsonschema::Draft::Draft201909
        && let Some(dependencies) = resource.get("dependencies").and_then(Value::as_object)
    {
        for child in dependencies.values().filter(|child| child.is_object()) {
            distinct_ids_from(root, child, draft, base, seen)?;
        }
    }
    Ok(())
}

/// The JSON pointer (`/` for the root) of `target`, a value inside `root`, found by identity.
fn pointer_to(root: &Value, target: &Value) -> String {
    fn find(value: &Value, target: &Value, at: &str) -> Option<String> {
        if std::ptr::eq(value, target) {
            return Some(at.to_owned());
        }
        match value {
            Value::Object(members) => members
                .iter()
                .find_map(|(key, child)| find(child, target, &join(at, key))),
            Value::Array(items) => items
                .iter()
                .enumerate()
                .find_map(|(index, child)| find(child, target, &join(at, &index.to_string()))),
            _ => None,
        }
    }
    display(&find(root, target, "").unwrap_or_default())
}

/// `multipleOf` as the subset reads it ([`Num::is_multiple_of`]: exact arithmetic on the
/// numbers' decimal forms): jsonschema's own reading is floating point, under which a divisor
/// below `f64::EPSILON` divides every number (`1e308` a multiple of `1.4e-19`).
fn exact_multiple_of<'a>(
    _schema: &'a serde_json::Map<String, Value>,
    value: &'a Value,
    _at: jsonschema::paths::Location,
) -> Result<Box<dyn for<'i> jsonschema::Keyword<'i>>, jsonschema::ValidationError<'a>> {
    // the meta-schema has checked that it is a number above 0
    match value {
        Value::Number(divisor) => Ok(Box::new(MultipleOf(Num::of(divisor)))),
        _ => Err(jsonschema::ValidationError::custom(
            "multipleOf must be a number",
        )),
    }
}

/// The `multipleOf` keyword of [`exact_multiple_of`].
struct MultipleOf(Num);

impl<'i> jsonschema::Keyword<'i> for MultipleOf {
    fn validate(&self, instance: &'i Value) -> Result<(), jsonschema::ValidationError<'i>> {
        if self.is_valid(instance) {
            Ok(())
        } else {
            // the message is made from the schema and the instance by `convert`
            Err(jsonschema::ValidationError::custom("not a multiple"))
        }
    }

    fn is_valid(&self, instance: &'i Value) -> bool {
        match instance {
            Value::Number(n) => Num::of(n).is_multiple_of(self.0),
            _ => true,
        }
    }
}

impl Validator for FullValidator {
    fn validate(&self, instance: &Value) -> Result<(), ValidationError> {
        if let Some(error) = self.too_deep(instance) {
            return Err(error);
        }
        match self.inner.validate(instance) {
            Ok(()) => Ok(()),
            Err(error) => Err(convert(&self.schema, instance, &error)
                .into_iter()
                .next()
                .unwrap_or_else(|| fallback(&error))),
        }
    }

    fn validate_all(&self, instance: &Value) -> Result<(), ValidationErrors> {
        if let Some(error) = self.too_deep(instance) {
            return Err(error.into());
        }
        let errors: Vec<ValidationError> = self
            .inner
            .iter_errors(instance)
            .flat_map(|error| convert(&self.schema, instance, &error))
            .collect();
        match ValidationErrors::from_vec(errors) {
            Some(errors) => Err(errors),
            None => Ok(()),
        }
    }

    fn is_valid(&self, instance: &Value) -> bool {
        too_deep(instance, self.max_instance_depth).is_none() && self.inner.is_valid(instance)
    }
}

fn schema_error(schema: &Value, error: &jsonschema::ValidationError<'_>) -> SchemaError {
    if let Kind::Referencing(reference) = error.kind() {
        return SchemaError::Reference {
            message: reference_message(reference),
        };
    }
    // Anything else is the schema failing its meta-schema: the "instance" is the schema, and
    // schema locations point into the meta-schema, which we do not hold (hence `Null`).
    let pointer = pointer_of(error);
    let message = match convert(&Value::Null, schema, error).into_iter().next() {
        Some(converted) => converted.message(),
        None => fallback(error).message(),
    };
    SchemaError::Invalid { pointer, message }
}

/// An error in jsonschema's own words, for kinds we have no mapping for.
fn fallback(error: &jsonschema::ValidationError<'_>) -> ValidationError {
    ValidationError::new(
        pointer_of(error),
        ErrorKind::Other {
            keyword: error.kind().keyword().to_owned(),
            message: lowercase_first(&error.to_string()),
        },
    )
}

fn pointer_of(error: &jsonschema::ValidationError<'_>) -> String {
    match error.instance_path().as_str() {
        "" => "/".to_owned(),
        pointer => pointer.to_owned(),
    }
}

/// Maps one jsonschema error, raised validating `root` against `schema`, to ours (never none);
/// a few kinds name several properties and become several.
fn convert(
    schema: &Value,
    root: &Value,
    error: &jsonschema::ValidationError<'_>,
) -> Vec<ValidationError> {
    let mut converted = convert_kind(schema, root, error);
    if converted.is_empty() {
        converted.push(fallback(error));
    }
    converted
}

fn convert_kind(
    schema: &Value,
    root: &Value,
    error: &jsonschema::ValidationError<'_>,
) -> Vec<ValidationError> {
    let pointer = pointer_of(error);
    let instance: &Value = error.instance();
    let one = |kind| vec![ValidationError::new(pointer.clone(), kind)];
    let other = |keyword: &str, message: String| {
        one(ErrorKind::Other {
            keyword: keyword.to_owned(),
            message,
        })
    };
    let keyword_value = || keyword_value(schema, error);
    match error.kind() {
        Kind::Type { kind } => {
            let mut expected: Vec<JsonType> = match kind {
                TypeKind::Single(ty) => vec![json_type(*ty)],
                TypeKind::Multiple(set) => set.iter().map(json_type).collect(),
            };
            // Prefer the order the schema lists the types in.
            if let Some(listed) = keyword_value().and_then(listed_types)
                && listed.len() == expected.len()
                && listed.iter().all(|ty| expected.contains(ty))
            {
                expected = listed;
            }
            // Draft-04 does not count `1.0` as an integer; say "number" rather than contradict.
            let got = match JsonType::of(instance) {
                JsonType::Integer if expected.contains(&JsonType::Integer) => JsonType::Number,
                got => got,
            };
            one(ErrorKind::Type { expected, got })
        }
        Kind::FalseSchema => match closed_object_keys(schema, root, error) {
            Some(keys) => keys
                .map(|property| {
                    ValidationError::new(
                        pointer.clone(),
                        ErrorKind::AdditionalProperty {
                            property: property.clone(),
                        },
                    )
                })
                .collect(),
            None => one(ErrorKind::NotAllowed),
        },
        Kind::Constant { expected_value } => one(ErrorKind::Const {
            expected: (**expected_value).clone(),
        }),
        Kind::Enum { options } => one(ErrorKind::Enum {
            options: match &**options {
                Value::Array(options) => options.clone(),
                option => vec![option.clone()],
            },
        }),
        Kind::MinLength { limit } => one(ErrorKind::MinLength {
            limit: *limit,
            actual: chars(instance),
        }),
        Kind::MaxLength { limit } => one(ErrorKind::MaxLength {
            limit: *limit,
            actual: chars(instance),
        }),
        Kind::Pattern { pattern } => one(ErrorKind::Pattern {
            pattern: pattern.clone(),
        }),
        Kind::BacktrackLimitExceeded { .. } | Kind::RegexEngineFailure { .. } => {
            match keyword_value().and_then(Value::as_str) {
                Some(pattern) => one(ErrorKind::PatternLimit {
                    pattern: pattern.to_owned(),
                }),
                None => other(
                    "pattern",
                    "string could not be checked against a pattern within the backtracking limit"
                        .to_owned(),
                ),
            }
        }
        Kind::Minimum { limit } => bound(limit, instance, error, |limit, actual| {
            ErrorKind::Minimum { limit, actual }
        }),
        Kind::ExclusiveMinimum { limit } => bound(limit, instance, error, |limit, actual| {
            ErrorKind::ExclusiveMinimum { limit, actual }
        }),
        Kind::Maximum { limit } => bound(limit, instance, error, |limit, actual| {
            ErrorKind::Maximum { limit, actual }
        }),
        Kind::ExclusiveMaximum { limit } => bound(limit, instance, error, |limit, actual| {
            ErrorKind::ExclusiveMaximum { limit, actual }
        }),
        Kind::Custom { keyword, .. } if keyword == "multipleOf" => {
            match (keyword_value(), instance) {
                (Some(Value::Number(divisor)), Value::Number(actual)) => {
                    one(ErrorKind::MultipleOf {
                        divisor: divisor.clone(),
                        actual: actual.clone(),
                    })
                }
                _ => other("multipleOf", lowercase_first(&error.to_string())),
            }
        }
        // not raised: `exact_multiple_of` replaces jsonschema's own keyword
        Kind::MultipleOf { .. } => other("multipleOf", lowercase_first(&error.to_string())),
        Kind::MinItems { limit } => one(ErrorKind::MinItems {
            limit: *limit,
            actual: items(instance),
        }),
        Kind::MaxItems { limit } => one(ErrorKind::MaxItems {
            limit: *limit,
            actual: items(instance),
        }),
        Kind::UniqueItems => match instance.as_array().and_then(|a| find_duplicate(a)) {
            Some((first, second)) => one(ErrorKind::UniqueItems { first, second }),
            None => other("uniqueItems", "expected unique items".to_owned()),
        },
        Kind::MinProperties { limit } => one(ErrorKind::MinProperties {
            limit: *limit,
            actual: properties(instance),
        }),
        Kind::MaxProperties { limit } => one(ErrorKind::MaxProperties {
            limit: *limit,
            actual: properties(instance),
        }),
        Kind::Required { property } => one(ErrorKind::Required {
            property: match property {
                Value::String(name) => name.clone(),
                other => other.to_string(),
            },
        }),
        Kind::AdditionalProperties { unexpected } => unexpected
            .iter()
            .map(|property| {
                ValidationError::new(
                    pointer.clone(),
                    ErrorKind::AdditionalProperty {
                        property: property.clone(),
                    },
                )
            })
            .collect(),
        Kind::UnevaluatedProperties { unexpected } => unexpected
            .iter()
            .map(|property| {
                ValidationError::new(
                    pointer.clone(),
                    ErrorKind::Other {
                        keyword: "unevaluatedProperties".to_owned(),
                        message: format!("unevaluated property \"{property}\" is not allowed"),
                    },
                )
            })
            .collect(),
        Kind::UnevaluatedItems { unexpected } => other(
            "unevaluatedItems",
            format!(
                "{} unevaluated item{} not allowed",
                unexpected.len(),
                if unexpected.len() == 1 {
                    " is"
                } else {
                    "s are"
                }
            ),
        ),
        Kind::AdditionalItems { limit } => other(
            "additionalItems",
            format!(
                "expected at most {limit} {}, got {}",
                plural(u64::try_from(*limit).unwrap_or(u64::MAX), "item", "items"),
                items(instance)
            ),
        ),
        Kind::AnyOf { context } => one(ErrorKind::AnyOf {
            schemas: context.len(),
        }),
        Kind::OneOfNotValid { context } => one(ErrorKind::OneOf {
            matched: 0,
            schemas: context.len(),
        }),
        Kind::OneOfMultipleValid { context } => one(ErrorKind::OneOf {
            // A branch that matches has no errors.
            matched: context.iter().filter(|branch| branch.is_empty()).count(),
            schemas: context.len(),
        }),
        Kind::Not { .. } => one(ErrorKind::Not),
        Kind::Contains => {
            let path = error.schema_path().as_str();
            let limit = keyword_value().and_then(Value::as_u64);
            let parent = path
                .rsplit_once('/')
                .map_or("", |(parent, _)| parent)
                .to_owned();
            let actual = count_contains(schema, &parent, instance);
            match (limit, actual) {
                (Some(limit), Some(actual)) if path.ends_with("/maxContains") => {
                    one(ErrorKind::MaxContains { limit, actual })
                }
                (Some(limit), Some(actual)) if path.ends_with("/minContains") => {
                    one(ErrorKind::MinContains { limit, actual })
                }
                (Some(n), None) if path.ends_with("/minContains") => other(
                    "minContains",
                    format!(
                        "expected at least {n} {} matching contains",
                        plural(n, "item", "items")
                    ),
                ),
                (Some(n), None) if path.ends_with("/maxContains") => other(
                    "maxContains",
                    format!(
                        "expected at most {n} {} matching contains",
                        plural(n, "item", "items")
                    ),
                ),
                // Plain `contains` fails only when no item matches.
                _ => one(ErrorKind::MinContains {
                    limit: 1,
                    actual: 0,
                }),
            }
        }
        Kind::PropertyNames { error: inner } => {
            let kind = match convert(schema, root, inner).into_iter().next() {
                Some(inner) => inner.into_kind(),
                None => ErrorKind::Other {
                    keyword: inner.kind().keyword().to_owned(),
                    message: lowercase_first(&inner.to_string()),
                },
            };
            let inner_instance: &Value = inner.instance();
            match inner_instance {
                Value::String(name) => one(ErrorKind::PropertyName {
                    name: name.clone(),
                    error: Box::new(kind),
                }),
                name => other(
                    "propertyNames",
                    format!("property name {name} is not valid: {kind}"),
                ),
            }
        }
        Kind::Format { format } => other("format", format!("value is not a valid \"{format}\"")),
        Kind::ContentEncoding { content_encoding } => other(
            "contentEncoding",
            format!("string is not valid \"{content_encoding}\""),
        ),
        Kind::ContentMediaType { content_media_type } => other(
            "contentMediaType",
            format!("string is not valid \"{content_media_type}\""),
        ),
        Kind::FromUtf8 { .. } => other(
            "contentEncoding",
            "decoded content is not valid UTF-8".to_owned(),
        ),
        Kind::Referencing(reference) => other(
            "$ref",
            format!("unresolvable reference: {}", reference_message(reference)),
        ),
        Kind::Custom { keyword, message } => other(keyword, message.clone()),
    }
}

/// How many items of `instance` match the `contains` schema of the schema at `parent`, for
/// messages; `None` when that schema uses references (it cannot be checked on its own).
fn count_contains(schema: &Value, parent: &str, instance: &Value) -> Option<u64> {
    let contains = schema.pointer(parent)?.get("contains")?;
    if uses_references(contains) {
        return None;
    }
    let mut standalone = contains.clone();
    if let (Value::Object(object), Some(draft)) = (&mut standalone, schema.get("$schema")) {
        object.insert("$schema".to_owned(), draft.clone());
    }
    let validator = jsonschema::options().offline().build(&standalone).ok()?;
    let items = instance.as_array()?;
    Some(items.iter().filter(|item| validator.is_valid(item)).count() as u64)
}

/// Whether `value` holds a reference keyword anywhere (its depth was bounded at compile time).
fn uses_references(value: &Value) -> bool {
    match value {
        Value::Object(object) => object.iter().any(|(key, value)| {
            matches!(key.as_str(), "$ref" | "$dynamicRef" | "$recursiveRef")
                || uses_references(value)
        }),
        Value::Array(items) => items.iter().any(uses_references),
        _ => false,
    }
}

fn reference_message(error: &jsonschema::ReferencingError) -> String {
    use jsonschema::ReferencingError as E;
    match error {
        E::Unretrievable { uri, .. } => {
            format!("{uri} is outside the schema, and remote documents are never fetched")
        }
        E::UnknownSpecification { specification } => {
            format!("unknown meta-schema {specification}, and remote documents are never fetched")
        }
        E::PointerToNowhere { pointer } => format!("pointer \"{pointer}\" does not exist"),
        E::NoSuchAnchor { anchor } => format!("anchor \"{anchor}\" does not exist"),
        E::InvalidAnchor { anchor } => format!("anchor \"{anchor}\" is invalid"),
        E::CircularMetaschema { uri } => format!("meta-schema {uri} refers to itself"),
        other => lowercase_first(&other.to_string()),
    }
}

fn lowercase_first(message: &str) -> String {
    let mut chars = message.chars();
    match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// The keyword's value in the schema as given, when the error's schema location leads there.
fn keyword_value<'s>(
    schema: &'s Value,
    error: &jsonschema::ValidationError<'_>,
) -> Option<&'s Value> {
    schema.pointer(error.schema_path().as_str())
}

/// jsonschema reports `"additionalProperties": false` beside no `properties` or
/// `patternProperties` as a false schema; then every key of the object is an additional one.
fn closed_object_keys<'r>(
    schema: &Value,
    root: &'r Value,
    error: &jsonschema::ValidationError<'_>,
) -> Option<impl Iterator<Item = &'r String>> {
    let parent = error
        .schema_path()
        .as_str()
        .strip_suffix("/additionalProperties")?;
    let parent = schema.pointer(parent)?.as_object()?;
    let closed = parent.get("additionalProperties") == Some(&Value::Bool(false))
        && !parent.contains_key("properties")
        && !parent.contains_key("patternProperties");
    let object = root.pointer(error.instance_path().as_str())?.as_object()?;
    closed.then(|| object.keys())
}

fn listed_types(value: &Value) -> Option<Vec<JsonType>> {
    match value {
        Value::String(name) => Some(vec![JsonType::from_name(name)?]),
        Value::Array(names) => names
            .iter()
            .map(|name| name.as_str().and_then(JsonType::from_name))
            .collect(),
        _ => None,
    }
}

fn bound(
    limit: &Value,
    instance: &Value,
    error: &jsonschema::ValidationError<'_>,
    kind: impl FnOnce(Number, Number) -> ErrorKind,
) -> Vec<ValidationError> {
    let kind = match (limit, instance) {
        (Value::Number(limit), Value::Number(actual)) => kind(limit.clone(), actual.clone()),
        _ => ErrorKind::Other {
            keyword: error.kind().keyword().to_owned(),
            message: lowercase_first(&error.to_string()),
        },
    };
    vec![ValidationError::new(pointer_of(error), kind)]
}

fn json_type(ty: jsonschema::JsonType) -> JsonType {
    match ty {
        jsonschema::JsonType::Null => JsonType::Null,
        jsonschema::JsonType::Boolean => JsonType::Boolean,
        jsonschema::JsonType::Integer => JsonType::Integer,
        jsonschema::JsonType::Number => JsonType::Number,
        jsonschema::JsonType::String => JsonType::String,
        jsonschema::JsonType::Array => JsonType::Array,
        jsonschema::JsonType::Object => JsonType::Object,
    }
}

fn plural<'a>(n: u64, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 { one } else { many }
}

fn chars(value: &Value) -> u64 {
    value.as_str().map_or(0, |s| s.chars().count() as u64)
}

fn items(value: &Value) -> u64 {
    value.as_array().map_or(0, |a| a.len() as u64)
}

fn properties(value: &Value) -> u64 {
    value.as_object().map_or(0, |o| o.len() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_backend_panic_is_a_schema_error() {
        // jsonschema 0.61 panics on two resources with one identifier when a reference in one
        // names an anchor in the other; `compile_full` refuses such schemas before building,
        // and the backend's own panic, had it been reached, is caught
        let schema = json!({"allOf": [
            {"$id": "http://a/b", "$anchor": "x"},
            {"$id": "http://a/b", "$ref": "#x"},
        ]});
        match ValidatorOptions::default().build_backend(&schema) {
            Err(SchemaError::BackendFailure { message }) => assert!(!message.is_empty()),
            Err(other) => panic!("the backend reported {other}; the case no longer panics"),
            Ok(_) => panic!("the backend compiled it; the case no longer panics"),
        }
    }
}
