//! The [`Validator`] trait, compile options, and the built-in subset validator.

use std::ops::ControlFlow;

use serde_json::Value;

use crate::compile::Compiled;
use crate::error::{ErrorKind, SchemaError, ValidationError, ValidationErrors};
use crate::node::{Inst, Mode, RefLimits, Walk};
use crate::pointer::Path;
use crate::value::too_deep;

/// A compiled schema: validate many instances against it.
///
/// Implementations are cheap to share (`Send + Sync`); compile once per schema with
/// [`compile`] or [`ValidatorOptions`], keep the validator (for example in an `Arc`), and call
/// it per instance.
///
/// ```
/// use presa_schema::Validator;
/// use serde_json::json;
///
/// let schema = json!({"type": "object", "required": ["numbers"]});
/// let validator = presa_schema::compile(&schema)?;
///
/// assert!(validator.is_valid(&json!({"numbers": [1, 2]})));
/// let error = validator.validate(&json!({})).unwrap_err();
/// assert_eq!(error.to_string(), r#"at /: missing required property "numbers""#);
/// # Ok::<(), presa_schema::SchemaError>(())
/// ```
pub trait Validator: Send + Sync + std::fmt::Debug {
    /// Checks `instance`, stopping at the first error.
    fn validate(&self, instance: &Value) -> Result<(), ValidationError>;

    /// Checks `instance` and reports every error.
    fn validate_all(&self, instance: &Value) -> Result<(), ValidationErrors>;

    /// Whether `instance` is valid; may skip building error messages.
    fn is_valid(&self, instance: &Value) -> bool {
        self.validate(instance).is_ok()
    }
}

impl<V: Validator + ?Sized> Validator for Box<V> {
    fn validate(&self, instance: &Value) -> Result<(), ValidationError> {
        (**self).validate(instance)
    }

    fn validate_all(&self, instance: &Value) -> Result<(), ValidationErrors> {
        (**self).validate_all(instance)
    }

    fn is_valid(&self, instance: &Value) -> bool {
        (**self).is_valid(instance)
    }
}

impl<V: Validator + ?Sized> Validator for std::sync::Arc<V> {
    fn validate(&self, instance: &Value) -> Result<(), ValidationError> {
        (**self).validate(instance)
    }

    fn validate_all(&self, instance: &Value) -> Result<(), ValidationErrors> {
        (**self).validate_all(instance)
    }

    fn is_valid(&self, instance: &Value) -> bool {
        (**self).is_valid(instance)
    }
}

/// Compiles `schema` with the default [`ValidatorOptions`]; see [`ValidatorOptions::compile`].
///
/// ```
/// use presa_schema::Validator;
/// use serde_json::json;
///
/// let validator = presa_schema::compile(&json!({
///     "type": "object",
///     "properties": {"numbers": {"type": "array", "items": {"type": "number"}}},
/// }))?;
/// let error = validator.validate(&json!({"numbers": ["one"]})).unwrap_err();
/// assert_eq!(error.pointer(), "/numbers/0");
/// assert_eq!(error.message(), "expected number, got string");
/// assert_eq!(
///     format!("Invalid arguments {error}"),
///     "Invalid arguments at /numbers/0: expected number, got string",
/// );
/// # Ok::<(), presa_schema::SchemaError>(())
/// ```
pub fn compile(schema: &Value) -> Result<Box<dyn Validator>, SchemaError> {
    ValidatorOptions::default().compile(schema)
}

/// Limits and settings for compiling schemas.
///
/// ```
/// use presa_schema::ValidatorOptions;
/// use serde_json::json;
///
/// let mut options = ValidatorOptions::default();
/// options
///     .max_schema_depth(32)
///     .max_instance_depth(32)
///     .backtrack_limit(10_000)
///     .max_reference_depth(256)
///     .max_reference_steps(10_000);
/// let validator = options.compile(&json!({"type": "string", "pattern": "^a"}))?;
/// assert!(!validator.is_valid(&json!("b")));
/// # Ok::<(), presa_schema::SchemaError>(())
/// ```
#[derive(Debug, Clone)]
pub struct ValidatorOptions {
    pub(crate) max_schema_depth: usize,
    pub(crate) max_instance_depth: usize,
    pub(crate) backtrack_limit: usize,
    pub(crate) max_reference_depth: usize,
    pub(crate) max_reference_steps: usize,
}

impl Default for ValidatorOptions {
    fn default() -> Self {
        Self {
            max_schema_depth: 128,
            max_instance_depth: 128,
            backtrack_limit: 100_000,
            max_reference_depth: 512,
            max_reference_steps: 1_000_000,
        }
    }
}

impl ValidatorOptions {
    /// How deeply a schema's arrays and objects may nest (default 128); deeper schemas fail to
    /// compile with [`SchemaError::TooDeep`]. Compiling recurses once per level, so keep this
    /// modest.
    pub fn max_schema_depth(&mut self, value: usize) -> &mut Self {
        self.max_schema_depth = value;
        self
    }

    /// How deeply an instance's arrays and objects may nest (default 128, serde_json's parse
    /// limit); deeper instances fail with [`ErrorKind::TooDeep`]. Validation recurses once per
    /// level, so keep this modest.
    pub fn max_instance_depth(&mut self, value: usize) -> &mut Self {
        self.max_instance_depth = value;
        self
    }

    /// How many backtracking steps a `pattern` may take per string (default 100,000); a string
    /// that needs more is rejected with [`ErrorKind::PatternLimit`].
    pub fn backtrack_limit(&mut self, value: usize) -> &mut Self {
        self.backtrack_limit = value;
        self
    }

    /// How deeply the built-in subset may nest schemas while validating through `$ref`s
    /// (default 512), counted in schema levels: each `$ref` followed adds how deep it sits in
    /// its schema. A value that needs more is rejected with [`ErrorKind::ReferenceDepth`]; a
    /// schema whose `$ref`s nest deeper without descending into the value fails to compile
    /// with [`SchemaError::ReferenceDepth`]. Validation recurses once per level, so keep this
    /// modest; recursive types need a few levels per level of the value.
    pub fn max_reference_depth(&mut self, value: usize) -> &mut Self {
        self.max_reference_depth = value;
        self
    }

    /// How many `$ref`s the built-in subset may follow to check one value (default
    /// 1,000,000); a value that needs more is rejected with [`ErrorKind::ReferenceSteps`].
    /// This bounds the time schemas whose references fan out (`anyOf` of several `$ref`s to
    /// schemas that do the same, ...) can take.
    pub fn max_reference_steps(&mut self, value: usize) -> &mut Self {
        self.max_reference_steps = value;
        self
    }

    /// Compiles `schema` with the best backend this build has.
    ///
    /// Without the `full` feature this is [`compile_subset`](Self::compile_subset): a schema
    /// using a keyword the subset does not evaluate fails with [`SchemaError::Unsupported`].
    /// With `full`, schemas the subset compiles get the subset validator, which is faster and
    /// reports the same results; the schemas it refuses as unsupported go to the full
    /// validator.
    pub fn compile(&self, schema: &Value) -> Result<Box<dyn Validator>, SchemaError> {
        match self.compile_subset(schema) {
            Ok(validator) => Ok(Box::new(validator)),
            #[cfg(feature = "full")]
            Err(SchemaError::Unsupported { .. }) => Ok(Box::new(self.compile_full(schema)?)),
            Err(error) => Err(error),
        }
    }

    /// Compiles `schema` for the built-in subset (see the crate docs for what it evaluates).
    ///
    /// A keyword of JSON Schema 2020-12 that the subset does not evaluate, a `$ref` it cannot
    /// resolve locally, an `$id` below the root or a `$schema` naming another draft fails with
    /// [`SchemaError::Unsupported`], whatever else is wrong with the schema; the subset never
    /// ignores what the schema asks for.
    pub fn compile_subset(&self, schema: &Value) -> Result<SubsetValidator, SchemaError> {
        self.check_schema_depth(schema)?;
        Ok(SubsetValidator {
            compiled: crate::compile::compile(
                schema,
                self.backtrack_limit,
                self.max_reference_depth,
            )?,
            max_instance_depth: self.max_instance_depth,
            limits: RefLimits {
                depth: self.max_reference_depth,
                steps: self.max_reference_steps,
            },
        })
    }

    pub(crate) fn check_schema_depth(&self, schema: &Value) -> Result<(), SchemaError> {
        match too_deep(schema, self.max_schema_depth) {
            Some(_) => Err(SchemaError::TooDeep {
                limit: self.max_schema_depth,
            }),
            None => Ok(()),
        }
    }
}

/// The built-in validator for the keyword subset (see the crate docs for the list).
///
/// ```
/// use presa_schema::{SubsetValidator, Validator};
/// use serde_json::json;
///
/// let validator = SubsetValidator::new(&json!({"type": "integer", "minimum": 1}))?;
/// assert!(validator.is_valid(&json!(3)));
/// assert!(validator.is_valid(&json!(3.0)));
/// assert_eq!(
///     validator.validate(&json!(0)).unwrap_err().to_string(),
///     "at /: expected at least 1, got 0",
/// );
/// # Ok::<(), presa_schema::SchemaError>(())
/// ```
#[derive(Debug)]
pub struct SubsetValidator {
    compiled: Compiled,
    max_instance_depth: usize,
    limits: RefLimits,
}

impl SubsetValidator {
    /// Compiles `schema` with the default [`ValidatorOptions`].
    pub fn new(schema: &Value) -> Result<Self, SchemaError> {
        ValidatorOptions::default().compile_subset(schema)
    }

    fn walk(&self, instance: &Value, mode: Mode) -> Vec<ValidationError> {
        if let Some(pointer) = too_deep(instance, self.max_instance_depth) {
            return vec![ValidationError::new(
                pointer,
                ErrorKind::TooDeep {
                    limit: self.max_instance_depth,
                },
            )];
        }
        let mut walk = Walk::new(mode, &self.compiled.shared, self.limits);
        let _: ControlFlow<()> =
            self.compiled
                .root
                .check(Inst::Value(instance), Path::Root, &mut walk);
        walk.finish()
    }
}

impl Validator for SubsetValidator {
    fn validate(&self, instance: &Value) -> Result<(), ValidationError> {
        match self.walk(instance, Mode::First).into_iter().next() {
            Some(error) => Err(error),
            None => Ok(()),
        }
    }

    fn validate_all(&self, instance: &Value) -> Result<(), ValidationErrors> {
        match ValidationErrors::from_vec(self.walk(instance, Mode::All)) {
            Some(errors) => Err(errors),
            None => Ok(()),
        }
    }

    fn is_valid(&self, instance: &Value) -> bool {
        if too_deep(instance, self.max_instance_depth).is_some() {
            return false;
        }
        let mut walk = Walk::new(Mode::Check, &self.compiled.shared, self.limits);
        self.compiled
            .root
            .check(Inst::Value(instance), Path::Root, &mut walk)
            .is_continue()
    }
}
