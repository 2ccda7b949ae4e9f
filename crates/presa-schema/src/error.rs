//! Validation errors (an instance broke the schema) and schema errors (the schema is unusable).

use std::fmt;

use serde_json::{Number, Value};

/// The JSON Schema type of a value, as named in `type` and in error messages.
///
/// A number with no fractional part (`5`, `1.0`, `1e3`) is an [`Integer`](Self::Integer); any
/// other number is a [`Number`](Self::Number). Both satisfy `"type": "number"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum JsonType {
    /// `null`.
    Null,
    /// `true` or `false`.
    Boolean,
    /// A number with no fractional part.
    Integer,
    /// Any number; as the type of a value, one with a fractional part.
    Number,
    /// A string.
    String,
    /// An array.
    Array,
    /// An object.
    Object,
}

impl JsonType {
    /// The type of `value`; integral numbers (including `1.0`) are [`JsonType::Integer`].
    ///
    /// ```
    /// use presa_schema::JsonType;
    /// use serde_json::json;
    ///
    /// assert_eq!(JsonType::of(&json!(1.0)), JsonType::Integer);
    /// assert_eq!(JsonType::of(&json!(1.5)), JsonType::Number);
    /// ```
    pub fn of(value: &Value) -> Self {
        match value {
            Value::Null => Self::Null,
            Value::Bool(_) => Self::Boolean,
            Value::Number(n) if crate::number::Num::of(n).is_integer() => Self::Integer,
            Value::Number(_) => Self::Number,
            Value::String(_) => Self::String,
            Value::Array(_) => Self::Array,
            Value::Object(_) => Self::Object,
        }
    }

    /// The name JSON Schema uses: `null`, `boolean`, `integer`, `number`, `string`, `array`,
    /// `object`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Null => "null",
            Self::Boolean => "boolean",
            Self::Integer => "integer",
            Self::Number => "number",
            Self::String => "string",
            Self::Array => "array",
            Self::Object => "object",
        }
    }

    /// Parses a JSON Schema type name.
    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "null" => Self::Null,
            "boolean" => Self::Boolean,
            "integer" => Self::Integer,
            "number" => Self::Number,
            "string" => Self::String,
            "array" => Self::Array,
            "object" => Self::Object,
            _ => return None,
        })
    }
}

impl fmt::Display for JsonType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What an instance got wrong; its [`Display`](fmt::Display) is the user-facing message.
///
/// Counts and limits are reported as numbers of items, properties or characters (Unicode code
/// points). Values and limits are shown as compact JSON.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// `type`: `expected number, got string`; several types read `expected string or null`.
    Type {
        /// The allowed types, in the order the schema lists them.
        expected: Vec<JsonType>,
        /// The type of the value.
        got: JsonType,
    },
    /// The schema is `false` (for example `"properties": {"x": false}`): `value is not allowed`.
    NotAllowed,
    /// `const`: `value must be "a"`.
    Const {
        /// The only allowed value.
        expected: Value,
    },
    /// `enum`: `value must be one of ["a","b"]`.
    Enum {
        /// The allowed values.
        options: Vec<Value>,
    },
    /// `minLength`: `expected at least 2 characters, got 1`.
    MinLength {
        /// The minimum number of code points.
        limit: u64,
        /// The string's number of code points.
        actual: u64,
    },
    /// `maxLength`: `expected at most 2 characters, got 3`.
    MaxLength {
        /// The maximum number of code points.
        limit: u64,
        /// The string's number of code points.
        actual: u64,
    },
    /// `pattern`: `string does not match pattern "^a"`.
    Pattern {
        /// The pattern as written in the schema.
        pattern: String,
    },
    /// `pattern` could not be evaluated within the backtracking limit; the value is rejected.
    PatternLimit {
        /// The pattern as written in the schema.
        pattern: String,
    },
    /// `minimum`: `expected at least 1, got 0`.
    Minimum {
        /// The inclusive lower bound.
        limit: Number,
        /// The value.
        actual: Number,
    },
    /// `exclusiveMinimum`: `expected more than 1, got 1`.
    ExclusiveMinimum {
        /// The exclusive lower bound.
        limit: Number,
        /// The value.
        actual: Number,
    },
    /// `maximum`: `expected at most 10, got 11`.
    Maximum {
        /// The inclusive upper bound.
        limit: Number,
        /// The value.
        actual: Number,
    },
    /// `exclusiveMaximum`: `expected less than 10, got 10`.
    ExclusiveMaximum {
        /// The exclusive upper bound.
        limit: Number,
        /// The value.
        actual: Number,
    },
    /// `multipleOf`: `expected a multiple of 2, got 3`.
    MultipleOf {
        /// The divisor.
        divisor: Number,
        /// The value.
        actual: Number,
    },
    /// `minItems`: `expected at least 1 item, got 0`.
    MinItems {
        /// The minimum number of items.
        limit: u64,
        /// The array's length.
        actual: u64,
    },
    /// `maxItems`: `expected at most 3 items, got 5`.
    MaxItems {
        /// The maximum number of items.
        limit: u64,
        /// The array's length.
        actual: u64,
    },
    /// `uniqueItems`: `items 0 and 2 are equal`.
    UniqueItems {
        /// Index of the first of two equal items.
        first: usize,
        /// Index of the second.
        second: usize,
    },
    /// `minProperties`: `expected at least 1 property, got 0`.
    MinProperties {
        /// The minimum number of properties.
        limit: u64,
        /// The object's number of properties.
        actual: u64,
    },
    /// `maxProperties`: `expected at most 1 property, got 2`.
    MaxProperties {
        /// The maximum number of properties.
        limit: u64,
        /// The object's number of properties.
        actual: u64,
    },
    /// `required`: `missing required property "numbers"`; the pointer is the object's.
    Required {
        /// The missing property.
        property: String,
    },
    /// `additionalProperties: false`: `additional property "foo" is not allowed`; the pointer is
    /// the object's.
    AdditionalProperty {
        /// The property no schema allows.
        property: String,
    },
    /// The instance nests deeper than the validator's limit:
    /// `value nests deeper than 128 levels`.
    TooDeep {
        /// The maximum nesting depth.
        limit: usize,
    },
    /// `anyOf`: `value matches none of the 2 schemas of anyOf`.
    AnyOf {
        /// How many schemas `anyOf` lists.
        schemas: usize,
    },
    /// `oneOf`: `value matches none of the 3 schemas of oneOf` when none matches, `value
    /// matches 2 of the schemas of oneOf, expected exactly one` when several do.
    OneOf {
        /// How many of the schemas the value matches (0, or 2 and more).
        matched: usize,
        /// How many schemas `oneOf` lists.
        schemas: usize,
    },
    /// `not`: `value must not match the schema of not`.
    Not,
    /// `contains` (and `minContains`): `expected at least 1 item matching contains, got 0`.
    MinContains {
        /// The minimum number of matching items (`minContains`, 1 by default).
        limit: u64,
        /// How many items match.
        actual: u64,
    },
    /// `maxContains`: `expected at most 2 items matching contains, got 3`.
    MaxContains {
        /// The maximum number of matching items.
        limit: u64,
        /// How many items match.
        actual: u64,
    },
    /// `propertyNames`: `property name "abc" is not valid: expected at most 2 characters, got
    /// 3`; the pointer is the object's.
    PropertyName {
        /// The property name.
        name: String,
        /// What the name got wrong (the first error).
        error: Box<ErrorKind>,
    },
    /// Checking the value follows `$ref`s nested deeper than the validator's limit (see
    /// [`ValidatorOptions::max_reference_depth`](crate::ValidatorOptions::max_reference_depth)):
    /// `schema references nest deeper than 512 levels`. The value is rejected.
    ReferenceDepth {
        /// The limit, in schema levels.
        limit: usize,
    },
    /// Checking the value needs more `$ref` steps than the validator allows (see
    /// [`ValidatorOptions::max_reference_steps`](crate::ValidatorOptions::max_reference_steps)):
    /// `value needs more than 1000000 schema reference steps`. The value is rejected.
    ReferenceSteps {
        /// The limit.
        limit: usize,
    },
    /// A keyword only the `full` backend knows (`unevaluatedProperties`, `format` in
    /// draft-07, ...), or a message it has no typed kind for.
    Other {
        /// The keyword that failed.
        keyword: String,
        /// The message.
        message: String,
    },
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Type { expected, got } => {
                f.write_str("expected ")?;
                for (i, ty) in expected.iter().enumerate() {
                    if i > 0 {
                        f.write_str(if i + 1 == expected.len() {
                            " or "
                        } else {
                            ", "
                        })?;
                    }
                    f.write_str(ty.as_str())?;
                }
                write!(f, ", got {got}")
            }
            Self::NotAllowed => f.write_str("value is not allowed"),
            Self::Const { expected } => write!(f, "value must be {expected}"),
            Self::Enum { options } => {
                f.write_str("value must be one of [")?;
                for (i, option) in options.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{option}")?;
                }
                f.write_str("]")
            }
            Self::MinLength { limit, actual } => {
                at_least(f, *limit, *actual, "character", "characters")
            }
            Self::MaxLength { limit, actual } => {
                at_most(f, *limit, *actual, "character", "characters")
            }
            Self::Pattern { pattern } => write!(f, "string does not match pattern \"{pattern}\""),
            Self::PatternLimit { pattern } => write!(
                f,
                "string could not be checked against pattern \"{pattern}\" within the backtracking limit"
            ),
            Self::Minimum { limit, actual } => write!(f, "expected at least {limit}, got {actual}"),
            Self::ExclusiveMinimum { limit, actual } => {
                write!(f, "expected more than {limit}, got {actual}")
            }
            Self::Maximum { limit, actual } => write!(f, "expected at most {limit}, got {actual}"),
            Self::ExclusiveMaximum { limit, actual } => {
                write!(f, "expected less than {limit}, got {actual}")
            }
            Self::MultipleOf { divisor, actual } => {
                write!(f, "expected a multiple of {divisor}, got {actual}")
            }
            Self::MinItems { limit, actual } => at_least(f, *limit, *actual, "item", "items"),
            Self::MaxItems { limit, actual } => at_most(f, *limit, *actual, "item", "items"),
            Self::UniqueItems { first, second } => {
                write!(
                    f,
                    "expected unique items, items {first} and {second} are equal"
                )
            }
            Self::MinProperties { limit, actual } => {
                at_least(f, *limit, *actual, "property", "properties")
            }
            Self::MaxProperties { limit, actual } => {
                at_most(f, *limit, *actual, "property", "properties")
            }
            Self::Required { property } => write!(f, "missing required property \"{property}\""),
            Self::AdditionalProperty { property } => {
                write!(f, "additional property \"{property}\" is not allowed")
            }
            Self::TooDeep { limit } => write!(f, "value nests deeper than {limit} levels"),
            Self::AnyOf { schemas: 1 } => {
                f.write_str("value does not match the only schema of anyOf")
            }
            Self::AnyOf { schemas } => {
                write!(f, "value matches none of the {schemas} schemas of anyOf")
            }
            Self::OneOf {
                matched: 0,
                schemas: 1,
            } => f.write_str("value does not match the only schema of oneOf"),
            Self::OneOf {
                matched: 0,
                schemas,
            } => write!(f, "value matches none of the {schemas} schemas of oneOf"),
            Self::OneOf { matched, .. } => write!(
                f,
                "value matches {matched} of the schemas of oneOf, expected exactly one"
            ),
            Self::Not => f.write_str("value must not match the schema of not"),
            Self::MinContains { limit, actual } => at_least(
                f,
                *limit,
                *actual,
                "item matching contains",
                "items matching contains",
            ),
            Self::MaxContains { limit, actual } => at_most(
                f,
                *limit,
                *actual,
                "item matching contains",
                "items matching contains",
            ),
            Self::PropertyName { name, error } => {
                f.write_str("property name ")?;
                write!(f, "{}", Value::String(name.clone()))?;
                write!(f, " is not valid: {error}")
            }
            Self::ReferenceDepth { limit } => {
                write!(f, "schema references nest deeper than {limit} levels")
            }
            Self::ReferenceSteps { limit } => {
                write!(f, "value needs more than {limit} schema reference steps")
            }
            Self::Other { message, .. } => f.write_str(message),
        }
    }
}

fn at_least(
    f: &mut fmt::Formatter<'_>,
    limit: u64,
    actual: u64,
    one: &str,
    many: &str,
) -> fmt::Result {
    let unit = if limit == 1 { one } else { many };
    write!(f, "expected at least {limit} {unit}, got {actual}")
}

fn at_most(
    f: &mut fmt::Formatter<'_>,
    limit: u64,
    actual: u64,
    one: &str,
    many: &str,
) -> fmt::Result {
    let unit = if limit == 1 { one } else { many };
    write!(f, "expected at most {limit} {unit}, got {actual}")
}

/// One way an instance fails its schema: where (a JSON pointer into the instance) and what.
///
/// [`Display`](fmt::Display) renders `at {pointer}: {message}`, so a tool layer can print
/// `Invalid arguments {error}`, e.g. `Invalid arguments at /numbers/0: expected number, got
/// string`. The pointer follows RFC 6901 (`~` as `~0`, `/` as `~1`) except that the root is
/// written `/` rather than the empty string.
///
/// ```
/// use presa_schema::{ErrorKind, JsonType, ValidationError};
///
/// let error = ValidationError::new(
///     "/numbers/0",
///     ErrorKind::Type { expected: vec![JsonType::Number], got: JsonType::String },
/// );
/// assert_eq!(error.pointer(), "/numbers/0");
/// assert_eq!(error.message(), "expected number, got string");
/// assert_eq!(error.to_string(), "at /numbers/0: expected number, got string");
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct ValidationError {
    pointer: String,
    kind: ErrorKind,
}

impl ValidationError {
    /// An error at `pointer` (`/` for the root).
    pub fn new(pointer: impl Into<String>, kind: ErrorKind) -> Self {
        Self {
            pointer: pointer.into(),
            kind,
        }
    }

    /// The JSON pointer of the failing value in the instance; `/` for the root.
    pub fn pointer(&self) -> &str {
        &self.pointer
    }

    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.kind
    }

    /// What went wrong, by value.
    pub(crate) fn into_kind(self) -> ErrorKind {
        self.kind
    }

    /// The message alone, without the location: `expected number, got string`.
    pub fn message(&self) -> String {
        self.kind.to_string()
    }
}

impl fmt::Display for ValidationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at {}: {}", self.pointer, self.kind)
    }
}

impl std::error::Error for ValidationError {}

/// Every error an instance produced, in schema order; never empty.
///
/// Display shows the first error, then `(and N more)` when there are others.
#[derive(Debug, Clone, PartialEq)]
pub struct ValidationErrors {
    first: ValidationError,
    rest: Vec<ValidationError>,
}

impl ValidationErrors {
    /// A collection holding `first`, then `rest`.
    pub fn new(first: ValidationError, rest: Vec<ValidationError>) -> Self {
        Self { first, rest }
    }

    /// Builds the collection from a list; `None` when the list is empty.
    pub fn from_vec(mut errors: Vec<ValidationError>) -> Option<Self> {
        if errors.is_empty() {
            return None;
        }
        let first = errors.remove(0);
        Some(Self::new(first, errors))
    }

    /// The first error.
    pub fn first(&self) -> &ValidationError {
        &self.first
    }

    /// The number of errors (at least one).
    #[allow(clippy::len_without_is_empty)] // never empty
    pub fn len(&self) -> usize {
        1 + self.rest.len()
    }

    /// The errors in order.
    pub fn iter(&self) -> impl Iterator<Item = &ValidationError> {
        std::iter::once(&self.first).chain(&self.rest)
    }

    /// The errors as a list.
    pub fn into_vec(self) -> Vec<ValidationError> {
        let mut all = Vec::with_capacity(self.len());
        all.push(self.first);
        all.extend(self.rest);
        all
    }
}

impl IntoIterator for ValidationErrors {
    type Item = ValidationError;
    type IntoIter = std::vec::IntoIter<ValidationError>;

    fn into_iter(self) -> Self::IntoIter {
        self.into_vec().into_iter()
    }
}

impl From<ValidationError> for ValidationErrors {
    fn from(error: ValidationError) -> Self {
        Self::new(error, Vec::new())
    }
}

impl fmt::Display for ValidationErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.first)?;
        if !self.rest.is_empty() {
            write!(f, " (and {} more)", self.rest.len())?;
        }
        Ok(())
    }
}

impl std::error::Error for ValidationErrors {}

/// Why a schema could not be compiled.
///
/// Pointers here are JSON pointers into the schema (`/` for its root).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SchemaError {
    /// A value in a schema position is neither an object nor a boolean.
    NotASchema {
        /// Where, in the schema.
        pointer: String,
    },
    /// A keyword's value has the wrong type or is out of range (`"minLength": -1`).
    InvalidKeyword {
        /// Where the keyword's value is, in the schema.
        pointer: String,
        /// What the keyword accepts, e.g. `a non-negative integer`.
        expected: &'static str,
    },
    /// A `pattern` is not a regular expression the engine accepts.
    InvalidPattern {
        /// Where the pattern is, in the schema.
        pointer: String,
        /// The pattern.
        pattern: String,
        /// The engine's complaint.
        reason: String,
    },
    /// The schema nests deeper than the compiler's limit.
    TooDeep {
        /// The maximum nesting depth.
        limit: usize,
    },
    /// The schema breaks its meta-schema (reported by the `full` backend).
    Invalid {
        /// Where, in the schema.
        pointer: String,
        /// The meta-schema's complaint.
        message: String,
    },
    /// A `$ref` or `$schema` could not be resolved: a pointer or anchor the schema does not
    /// have, or (from the `full` backend) a document outside the schema. Remote documents are
    /// never fetched, so with `full` every reference outside the schema ends here.
    Reference {
        /// The resolver's complaint.
        message: String,
    },
    /// The built-in subset does not evaluate this keyword, and would validate more loosely
    /// than the schema says if it ignored it: `unevaluatedProperties`, `$dynamicRef`, a `$ref`
    /// to another document, `$id` below the root, a `$schema` other than 2020-12, ... (the
    /// crate docs list them). The `full` feature evaluates them; with it,
    /// [`ValidatorOptions::compile`](crate::ValidatorOptions::compile) picks the full
    /// validator for such schemas instead of returning this.
    Unsupported {
        /// Where the keyword is, in the schema.
        pointer: String,
        /// The keyword.
        keyword: String,
    },
    /// A keyword no draft of JSON Schema defines and that is not an extension (`x-…`): most
    /// likely a typo (`requried`), which would otherwise constrain nothing. Refused by the
    /// subset and by [`ValidatorOptions::compile`](crate::ValidatorOptions::compile) with
    /// `full` alike; name extension keywords `x-…`.
    UnknownKeyword {
        /// Where the keyword is, in the schema.
        pointer: String,
        /// The keyword.
        keyword: String,
    },
    /// `$ref`s lead from a schema back to itself without descending into the instance (as in
    /// `{"$ref": "#"}`), so validating would never end.
    ReferenceCycle {
        /// A schema on the cycle.
        pointer: String,
    },
    /// `$ref`s lead from a schema through more schema levels than
    /// [`ValidatorOptions::max_reference_depth`](crate::ValidatorOptions::max_reference_depth)
    /// allows without descending into the instance, so every value would be rejected.
    ReferenceDepth {
        /// The schema the chain of references starts from.
        pointer: String,
        /// The limit, in schema levels.
        limit: usize,
    },
    /// Two schema resources in the schema have the same identifier (an `$id` resolved against
    /// its parent's, or the root's default): JSON Schema forbids it, since a reference to that
    /// identifier could mean either (reported by the `full` backend, as the subset allows `$id`
    /// only at the root).
    DuplicateId {
        /// Where the second resource is, in the schema.
        pointer: String,
        /// The identifier both resolve to.
        id: String,
        /// Where the first resource is, in the schema.
        first: String,
    },
    /// The `full` backend (the `jsonschema` crate) failed on this schema instead of compiling
    /// it or reporting what is wrong with it: a defect of that crate, caught so that a schema
    /// from a peer cannot end the process (unless it is built with `panic = "abort"`). The
    /// panic hook still runs first (by default it prints the panic on stderr).
    BackendFailure {
        /// What the backend said as it failed.
        message: String,
    },
}

/// How to get what the subset lacks, for [`SchemaError::Unsupported`].
const ENABLE_FULL: &str =
    "enable presa-schema's `full` feature (`full-schema` in presa-server and the `presa` facade)";

impl fmt::Display for SchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotASchema { pointer } => {
                write!(f, "schema at {pointer} is neither an object nor a boolean")
            }
            Self::InvalidKeyword { pointer, expected } => {
                write!(f, "invalid schema at {pointer}: expected {expected}")
            }
            Self::InvalidPattern {
                pointer,
                pattern,
                reason,
            } => write!(f, "invalid pattern \"{pattern}\" at {pointer}: {reason}"),
            Self::TooDeep { limit } => write!(f, "schema nests deeper than {limit} levels"),
            Self::Invalid { pointer, message } => {
                write!(f, "invalid schema at {pointer}: {message}")
            }
            Self::Reference { message } => write!(f, "unresolvable reference: {message}"),
            Self::Unsupported { pointer, keyword } => match keyword.as_str() {
                "$ref" => write!(
                    f,
                    "\"$ref\" at {pointer} leads to another document or to a location that is \
                     not a schema, which the built-in subset does not resolve; {ENABLE_FULL}"
                ),
                "$id" => write!(
                    f,
                    "\"$id\" at {pointer} starts a new schema resource, which the built-in subset \
                     does not support (only the root may have an $id); {ENABLE_FULL}"
                ),
                "$schema" => write!(
                    f,
                    "\"$schema\" at {pointer} names a draft the built-in subset does not \
                     implement (it implements 2020-12); {ENABLE_FULL}"
                ),
                keyword => write!(
                    f,
                    "keyword \"{keyword}\" at {pointer} is not supported by the built-in \
                     subset; {ENABLE_FULL}"
                ),
            },
            Self::UnknownKeyword { pointer, keyword } => write!(
                f,
                "unknown keyword \"{keyword}\" at {pointer}: no JSON Schema draft defines it \
                 (a typo?); extension keywords start with \"x-\""
            ),
            Self::ReferenceCycle { pointer } => write!(
                f,
                "reference cycle at {pointer}: its $ref chain leads back to it without \
                 descending into the value"
            ),
            Self::ReferenceDepth { pointer, limit } => write!(
                f,
                "references from {pointer} nest deeper than {limit} levels without descending \
                 into the value"
            ),
            Self::DuplicateId { pointer, id, first } => write!(
                f,
                "the schema resource at {pointer} has the identifier {id}, which the one at \
                 {first} already has; every $id in a schema must name a different resource"
            ),
            Self::BackendFailure { message } => write!(
                f,
                "the full JSON Schema backend failed on this schema: {message}"
            ),
        }
    }
}

impl std::error::Error for SchemaError {}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_error<T: std::error::Error + Send + Sync + 'static>() {}

    #[test]
    fn errors_are_error_send_sync_static() {
        assert_error::<ValidationError>();
        assert_error::<ValidationErrors>();
        assert_error::<SchemaError>();
    }

    #[test]
    fn type_lists_read_naturally() {
        let kind = |expected: Vec<JsonType>| ErrorKind::Type {
            expected,
            got: JsonType::Boolean,
        };
        assert_eq!(
            kind(vec![JsonType::String]).to_string(),
            "expected string, got boolean"
        );
        assert_eq!(
            kind(vec![JsonType::String, JsonType::Null]).to_string(),
            "expected string or null, got boolean"
        );
        assert_eq!(
            kind(vec![JsonType::String, JsonType::Number, JsonType::Null]).to_string(),
            "expected string, number or null, got boolean"
        );
    }

    #[test]
    fn errors_collection_displays_count() {
        let one = ValidationError::new("/", ErrorKind::NotAllowed);
        let all = ValidationErrors::new(one.clone(), vec![one.clone(), one.clone()]);
        assert_eq!(all.len(), 3);
        assert_eq!(all.to_string(), "at /: value is not allowed (and 2 more)");
        assert_eq!(
            ValidationErrors::from(one).to_string(),
            "at /: value is not allowed"
        );
        assert!(ValidationErrors::from_vec(Vec::new()).is_none());
    }
}
