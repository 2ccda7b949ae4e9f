//! The compiled subset: a tree of keyword nodes, and the walk that checks an instance against it.
//!
//! The walk allocates nothing unless it reports an error: locations are a chain of borrowed
//! [`Path`] segments on the stack, turned into a pointer string only when an error is recorded.
//! Applicators (`anyOf`, `$ref`, `contains`, ...) are in [`crate::apply`].

use std::cmp::Ordering;
use std::ops::ControlFlow;
use std::sync::Arc;

use serde_json::{Number, Value};

use crate::error::{ErrorKind, JsonType, ValidationError};
use crate::number::Num;
use crate::pointer::Path;
use crate::regex::Pattern;
use crate::value::{find_duplicate, json_eq};

/// A compiled (sub)schema.
#[derive(Debug)]
pub(crate) enum Schema {
    /// `true`, `{}`, or only keywords that can never fail.
    Any,
    /// `false`.
    Never,
    /// Keywords in evaluation order.
    Node(Box<[Keyword]>),
}

/// A numeric bound: the number as written (for messages) and its exact value.
#[derive(Debug)]
pub(crate) struct Bound {
    pub(crate) number: Number,
    pub(crate) num: Num,
}

impl Bound {
    pub(crate) fn new(number: &Number) -> Self {
        Self {
            number: number.clone(),
            num: Num::of(number),
        }
    }

    /// Whether `value` compared with the bound gives an ordering `bad` rejects.
    fn violated_by(&self, value: &Number, bad: fn(Ordering) -> bool) -> bool {
        Num::of(value).compare(self.num).is_none_or(bad)
    }
}

/// Type bits; an integral number carries both `INTEGER` and `NUMBER`.
pub(crate) mod types {
    pub(crate) const NULL: u8 = 1;
    pub(crate) const BOOLEAN: u8 = 1 << 1;
    pub(crate) const INTEGER: u8 = 1 << 2;
    pub(crate) const NUMBER: u8 = 1 << 3;
    pub(crate) const STRING: u8 = 1 << 4;
    pub(crate) const ARRAY: u8 = 1 << 5;
    pub(crate) const OBJECT: u8 = 1 << 6;
}

/// One compiled keyword.
#[derive(Debug)]
pub(crate) enum Keyword {
    Type {
        mask: u8,
        listed: Box<[JsonType]>,
    },
    Const(Value),
    Enum(Box<[Value]>),
    MinLength(u64),
    MaxLength(u64),
    Pattern(Pattern),
    Minimum(Bound),
    ExclusiveMinimum(Bound),
    Maximum(Bound),
    ExclusiveMaximum(Bound),
    MultipleOf(Bound),
    MinItems(u64),
    MaxItems(u64),
    UniqueItems,
    PrefixItems(Box<[Schema]>),
    /// `items`, applying to the items after the first `skip` (those `prefixItems` covers).
    Items {
        skip: usize,
        schema: Schema,
    },
    /// `contains` with `minContains` (1 by default) and `maxContains`.
    Contains {
        schema: Schema,
        min: u64,
        max: Option<u64>,
    },
    Required(Box<[String]>),
    DependentRequired(Box<[(String, Box<[String]>)]>),
    MinProperties(u64),
    MaxProperties(u64),
    Properties(Box<[(String, Schema)]>),
    PatternProperties(Box<[(Arc<Pattern>, Schema)]>),
    /// `known` holds the `properties` names, sorted, and `patterns` the `patternProperties`
    /// patterns: `additionalProperties` skips the names either covers.
    AdditionalProperties {
        known: Box<[String]>,
        patterns: Box<[Arc<Pattern>]>,
        schema: Schema,
    },
    PropertyNames(Schema),
    DependentSchemas(Box<[(String, Schema)]>),
    /// `$ref`: an index into the validator's shared schemas, and the nesting level of the
    /// schema holding the `$ref` within its own tree (the root of a tree is level 1).
    Ref {
        index: usize,
        level: usize,
    },
    AllOf(Box<[Schema]>),
    AnyOf(Box<[Schema]>),
    OneOf(Box<[Schema]>),
    Not(Schema),
    If(Box<Conditional>),
}

/// `if` with its `then` and `else` (`Any` when absent).
#[derive(Debug)]
pub(crate) struct Conditional {
    pub(crate) condition: Schema,
    pub(crate) then: Schema,
    pub(crate) otherwise: Schema,
}

impl Keyword {
    /// Calls `f` with every subschema the keyword holds, and whether it applies to a part of
    /// the instance (an item, a property value or name) rather than the instance itself.
    pub(crate) fn for_each_child(&self, f: &mut dyn FnMut(&Schema, bool)) {
        match self {
            Self::PrefixItems(schemas) => schemas.iter().for_each(|s| f(s, true)),
            Self::Items { schema, .. }
            | Self::Contains { schema, .. }
            | Self::AdditionalProperties { schema, .. }
            | Self::PropertyNames(schema) => f(schema, true),
            Self::Properties(properties) => properties.iter().for_each(|(_, s)| f(s, true)),
            Self::PatternProperties(patterns) => patterns.iter().for_each(|(_, s)| f(s, true)),
            Self::DependentSchemas(schemas) => schemas.iter().for_each(|(_, s)| f(s, false)),
            Self::AllOf(schemas) | Self::AnyOf(schemas) | Self::OneOf(schemas) => {
                schemas.iter().for_each(|s| f(s, false));
            }
            Self::Not(schema) => f(schema, false),
            Self::If(conditional) => {
                f(&conditional.condition, false);
                f(&conditional.then, false);
                f(&conditional.otherwise, false);
            }
            _ => {}
        }
    }
}

/// What the walk looks at: a JSON value, or a property name (for `propertyNames`), which is
/// a string without being a [`Value`].
#[derive(Debug, Clone, Copy)]
pub(crate) enum Inst<'v> {
    Value(&'v Value),
    Name(&'v str),
}

/// What the walk records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Stop at the first error without recording it.
    Check,
    /// Record the first error, then stop.
    First,
    /// Record every error.
    All,
}

/// Bounds on following `$ref`s while validating.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RefLimits {
    /// The most schema levels the walk may nest through the references it follows.
    pub(crate) depth: usize,
    /// The most references one validation may follow.
    pub(crate) steps: usize,
}

/// The walk's state: its mode, the errors recorded so far, and the reference bookkeeping.
///
/// Inside `anyOf`, `oneOf`, `not`, `if` and `contains` the walk *probes* subschemas (checks
/// without recording). A limit hit while probing (a pattern's backtracking budget, the
/// reference limits) is a *fault*: it must not count as "this branch does not match", which
/// `not` would turn into acceptance, so it ends the whole walk with its error.
#[derive(Debug)]
pub(crate) struct Walk<'s> {
    pub(crate) mode: Mode,
    /// The mode the walk was started in.
    outer: Mode,
    errors: Vec<ValidationError>,
    pub(crate) shared: &'s [Schema],
    pub(crate) limits: RefLimits,
    /// Schema levels nested by the references being followed: the sum of their levels.
    pub(crate) depth: usize,
    /// References followed so far.
    pub(crate) steps: usize,
    probing: u32,
    faulted: bool,
    fault: Option<ValidationError>,
}

impl<'s> Walk<'s> {
    pub(crate) fn new(mode: Mode, shared: &'s [Schema], limits: RefLimits) -> Self {
        Self {
            mode,
            outer: mode,
            errors: Vec::new(),
            shared,
            limits,
            depth: 0,
            steps: 0,
            probing: 0,
            faulted: false,
            fault: None,
        }
    }

    /// The errors recorded, the fault (if any) last.
    pub(crate) fn finish(mut self) -> Vec<ValidationError> {
        if let Some(fault) = self.fault.take() {
            self.errors.push(fault);
        }
        self.errors
    }

    pub(crate) fn report(
        &mut self,
        path: Path<'_>,
        kind: impl FnOnce() -> ErrorKind,
    ) -> ControlFlow<()> {
        match self.mode {
            Mode::Check => ControlFlow::Break(()),
            Mode::First => {
                self.errors
                    .push(ValidationError::new(path.to_pointer(), kind()));
                ControlFlow::Break(())
            }
            Mode::All => {
                self.errors
                    .push(ValidationError::new(path.to_pointer(), kind()));
                ControlFlow::Continue(())
            }
        }
    }

    /// Reports a limit that rejects the value: an ordinary error, or a fault while probing.
    pub(crate) fn limit(
        &mut self,
        path: Path<'_>,
        kind: impl FnOnce() -> ErrorKind,
    ) -> ControlFlow<()> {
        if self.probing == 0 {
            self.report(path, kind)
        } else {
            self.fault(path, kind)
        }
    }

    /// Ends the walk: the value is rejected with this error, whatever encloses it.
    pub(crate) fn fault(
        &mut self,
        path: Path<'_>,
        kind: impl FnOnce() -> ErrorKind,
    ) -> ControlFlow<()> {
        self.faulted = true;
        if self.fault.is_none() && self.outer != Mode::Check {
            self.fault = Some(ValidationError::new(path.to_pointer(), kind()));
        }
        ControlFlow::Break(())
    }

    /// Whether `f` passes, checked without recording; `Break` if it faulted.
    pub(crate) fn probe(
        &mut self,
        f: impl FnOnce(&mut Self) -> ControlFlow<()>,
    ) -> ControlFlow<(), bool> {
        let mode = std::mem::replace(&mut self.mode, Mode::Check);
        self.probing += 1;
        let valid = f(self).is_continue();
        self.probing -= 1;
        self.mode = mode;
        if self.faulted {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(valid)
        }
    }

    /// The first error `f` reports, recorded apart from the walk's own; `Break` if it faulted.
    /// Allocates only if there is an error; use [`probe`](Self::probe) in [`Mode::Check`].
    pub(crate) fn capture(
        &mut self,
        f: impl FnOnce(&mut Self) -> ControlFlow<()>,
    ) -> ControlFlow<(), Option<ErrorKind>> {
        let mode = std::mem::replace(&mut self.mode, Mode::First);
        let outer = std::mem::take(&mut self.errors);
        let _: ControlFlow<()> = f(self);
        let inner = std::mem::replace(&mut self.errors, outer);
        self.mode = mode;
        if self.faulted {
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(inner.into_iter().next().map(ValidationError::into_kind))
    }
}

fn type_bits(value: &Value) -> u8 {
    match value {
        Value::Null => types::NULL,
        Value::Bool(_) => types::BOOLEAN,
        Value::Number(n) if Num::of(n).is_integer() => types::INTEGER | types::NUMBER,
        Value::Number(_) => types::NUMBER,
        Value::String(_) => types::STRING,
        Value::Array(_) => types::ARRAY,
        Value::Object(_) => types::OBJECT,
    }
}

impl Schema {
    /// Checks `inst` (found at `path`); `Break` means stop walking.
    pub(crate) fn check(
        &self,
        inst: Inst<'_>,
        path: Path<'_>,
        walk: &mut Walk<'_>,
    ) -> ControlFlow<()> {
        match self {
            Self::Any => ControlFlow::Continue(()),
            Self::Never => walk.report(path, || ErrorKind::NotAllowed),
            Self::Node(keywords) => {
                for keyword in keywords {
                    keyword.check(inst, path, walk)?;
                }
                ControlFlow::Continue(())
            }
        }
    }
}

impl Keyword {
    fn check(&self, inst: Inst<'_>, path: Path<'_>, walk: &mut Walk<'_>) -> ControlFlow<()> {
        // Applicators first, apart from the assertions: the walk recurses through them only,
        // so the assertions' larger stack frame is never part of the recursion.
        if self.is_applicator() {
            return crate::apply::apply(self, inst, path, walk);
        }
        match inst {
            Inst::Value(value) => self.check_value(value, path, walk),
            Inst::Name(name) => self.check_name(name, path, walk),
        }
    }

    fn is_applicator(&self) -> bool {
        matches!(
            self,
            Self::PrefixItems(_)
                | Self::Items { .. }
                | Self::Contains { .. }
                | Self::Properties(_)
                | Self::PatternProperties(_)
                | Self::AdditionalProperties { .. }
                | Self::PropertyNames(_)
                | Self::DependentSchemas(_)
                | Self::Ref { .. }
                | Self::AllOf(_)
                | Self::AnyOf(_)
                | Self::OneOf(_)
                | Self::Not(_)
                | Self::If(_)
        )
    }

    fn check_value(&self, value: &Value, path: Path<'_>, walk: &mut Walk<'_>) -> ControlFlow<()> {
        match (self, value) {
            (Self::Type { mask, listed }, _) if mask & type_bits(value) == 0 => {
                walk.report(path, || ErrorKind::Type {
                    expected: listed.to_vec(),
                    got: JsonType::of(value),
                })
            }
            (Self::Const(expected), _) if !json_eq(expected, value) => {
                walk.report(path, || ErrorKind::Const {
                    expected: expected.clone(),
                })
            }
            (Self::Enum(options), _) if !options.iter().any(|option| json_eq(option, value)) => {
                walk.report(path, || ErrorKind::Enum {
                    options: options.to_vec(),
                })
            }
            (Self::MinLength(_) | Self::MaxLength(_) | Self::Pattern(_), Value::String(s)) => {
                self.check_string(s, path, walk)
            }
            (Self::Minimum(bound), Value::Number(n)) if bound.violated_by(n, Ordering::is_lt) => {
                walk.report(path, || ErrorKind::Minimum {
                    limit: bound.number.clone(),
                    actual: n.clone(),
                })
            }
            (Self::ExclusiveMinimum(bound), Value::Number(n))
                if bound.violated_by(n, Ordering::is_le) =>
            {
                walk.report(path, || ErrorKind::ExclusiveMinimum {
                    limit: bound.number.clone(),
                    actual: n.clone(),
                })
            }
            (Self::Maximum(bound), Value::Number(n)) if bound.violated_by(n, Ordering::is_gt) => {
                walk.report(path, || ErrorKind::Maximum {
                    limit: bound.number.clone(),
                    actual: n.clone(),
                })
            }
            (Self::ExclusiveMaximum(bound), Value::Number(n))
                if bound.violated_by(n, Ordering::is_ge) =>
            {
                walk.report(path, || ErrorKind::ExclusiveMaximum {
                    limit: bound.number.clone(),
                    actual: n.clone(),
                })
            }
            (Self::MultipleOf(bound), Value::Number(n))
                if !Num::of(n).is_multiple_of(bound.num) =>
            {
                walk.report(path, || ErrorKind::MultipleOf {
                    divisor: bound.number.clone(),
                    actual: n.clone(),
                })
            }
            (Self::MinItems(limit), Value::Array(items)) if (items.len() as u64) < *limit => walk
                .report(path, || ErrorKind::MinItems {
                    limit: *limit,
                    actual: items.len() as u64,
                }),
            (Self::MaxItems(limit), Value::Array(items)) if items.len() as u64 > *limit => walk
                .report(path, || ErrorKind::MaxItems {
                    limit: *limit,
                    actual: items.len() as u64,
                }),
            (Self::UniqueItems, Value::Array(items)) => match find_duplicate(items) {
                Some((first, second)) => {
                    walk.report(path, || ErrorKind::UniqueItems { first, second })
                }
                None => ControlFlow::Continue(()),
            },
            (Self::Required(names), Value::Object(map)) => {
                for name in names {
                    if !map.contains_key(name) {
                        walk.report(path, || ErrorKind::Required {
                            property: name.clone(),
                        })?;
                    }
                }
                ControlFlow::Continue(())
            }
            (Self::DependentRequired(dependencies), Value::Object(map)) => {
                for (name, required) in dependencies {
                    if !map.contains_key(name) {
                        continue;
                    }
                    for property in required {
                        if !map.contains_key(property) {
                            walk.report(path, || ErrorKind::Required {
                                property: property.clone(),
                            })?;
                        }
                    }
                }
                ControlFlow::Continue(())
            }
            (Self::MinProperties(limit), Value::Object(map)) if (map.len() as u64) < *limit => walk
                .report(path, || ErrorKind::MinProperties {
                    limit: *limit,
                    actual: map.len() as u64,
                }),
            (Self::MaxProperties(limit), Value::Object(map)) if map.len() as u64 > *limit => walk
                .report(path, || ErrorKind::MaxProperties {
                    limit: *limit,
                    actual: map.len() as u64,
                }),
            _ => ControlFlow::Continue(()),
        }
    }

    /// A property name: only the assertions that apply to strings.
    fn check_name(&self, name: &str, path: Path<'_>, walk: &mut Walk<'_>) -> ControlFlow<()> {
        match self {
            Self::Type { mask, listed } if mask & types::STRING == 0 => {
                walk.report(path, || ErrorKind::Type {
                    expected: listed.to_vec(),
                    got: JsonType::String,
                })
            }
            Self::Const(expected) if expected.as_str() != Some(name) => {
                walk.report(path, || ErrorKind::Const {
                    expected: expected.clone(),
                })
            }
            Self::Enum(options) if !options.iter().any(|option| option.as_str() == Some(name)) => {
                walk.report(path, || ErrorKind::Enum {
                    options: options.to_vec(),
                })
            }
            Self::MinLength(_) | Self::MaxLength(_) | Self::Pattern(_) => {
                self.check_string(name, path, walk)
            }
            _ => ControlFlow::Continue(()),
        }
    }

    fn check_string(&self, s: &str, path: Path<'_>, walk: &mut Walk<'_>) -> ControlFlow<()> {
        match self {
            // Code points never outnumber bytes, so the byte length often settles it.
            Self::MinLength(limit)
                if (s.len() as u64) < *limit || (s.chars().count() as u64) < *limit =>
            {
                walk.report(path, || ErrorKind::MinLength {
                    limit: *limit,
                    actual: s.chars().count() as u64,
                })
            }
            Self::MaxLength(limit)
                if s.len() as u64 > *limit && s.chars().count() as u64 > *limit =>
            {
                walk.report(path, || ErrorKind::MaxLength {
                    limit: *limit,
                    actual: s.chars().count() as u64,
                })
            }
            Self::Pattern(pattern) => match pattern.is_match(s) {
                Some(true) => ControlFlow::Continue(()),
                Some(false) => walk.report(path, || ErrorKind::Pattern {
                    pattern: pattern.source().to_owned(),
                }),
                None => walk.limit(path, || ErrorKind::PatternLimit {
                    pattern: pattern.source().to_owned(),
                }),
            },
            _ => ControlFlow::Continue(()),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use crate::compile::compile;
    use serde_json::json;

    const LIMITS: RefLimits = RefLimits {
        depth: 1024,
        steps: 1_000_000,
    };

    fn first_error(schema: Value, instance: Value) -> Option<ErrorKind> {
        let compiled = compile(&schema, 1000, LIMITS.depth).unwrap();
        let mut walk = Walk::new(Mode::First, &compiled.shared, LIMITS);
        let _ = compiled
            .root
            .check(Inst::Value(&instance), Path::Root, &mut walk);
        walk.finish().pop().map(|e| e.kind().clone())
    }

    #[test]
    fn lengths_count_code_points_not_bytes() {
        // 6 bytes, 2 code points: the byte shortcut must not reject it.
        assert_eq!(first_error(json!({"maxLength": 2}), json!("日本")), None);
        assert_eq!(
            first_error(json!({"maxLength": 2}), json!("ñññ")),
            Some(ErrorKind::MaxLength {
                limit: 2,
                actual: 3
            })
        );
        // 4 bytes, 1 code point.
        assert_eq!(
            first_error(json!({"minLength": 2}), json!("😀")),
            Some(ErrorKind::MinLength {
                limit: 2,
                actual: 1
            })
        );
        assert_eq!(first_error(json!({"minLength": 2}), json!("é😀")), None);
        // A combining sequence is two code points.
        assert!(first_error(json!({"maxLength": 1}), json!("e\u{301}")).is_some());
    }

    #[test]
    fn integers_are_numbers_but_not_vice_versa() {
        assert_eq!(type_bits(&json!(3)), types::INTEGER | types::NUMBER);
        assert_eq!(type_bits(&json!(3.0)), types::INTEGER | types::NUMBER);
        assert_eq!(type_bits(&json!(3.5)), types::NUMBER);
        assert_eq!(first_error(json!({"type": "number"}), json!(3)), None);
        assert_eq!(first_error(json!({"type": "integer"}), json!(-3.0)), None);
        assert_eq!(
            first_error(json!({"type": "integer"}), json!(3.5)),
            Some(ErrorKind::Type {
                expected: vec![JsonType::Integer],
                got: JsonType::Number
            })
        );
    }

    #[test]
    fn check_mode_records_nothing() {
        let compiled = compile(&json!({"items": {"type": "string"}}), 1000, 1024).unwrap();
        let mut walk = Walk::new(Mode::Check, &compiled.shared, LIMITS);
        assert!(
            compiled
                .root
                .check(Inst::Value(&json!([1, 2])), Path::Root, &mut walk)
                .is_break()
        );
        assert!(walk.finish().is_empty());
        let mut walk = Walk::new(Mode::All, &compiled.shared, LIMITS);
        assert!(
            compiled
                .root
                .check(Inst::Value(&json!([1, 2])), Path::Root, &mut walk)
                .is_continue()
        );
        assert_eq!(walk.finish().len(), 2);
    }

    #[test]
    fn names_see_only_string_keywords() {
        let name = |schema: Value, name: &str| {
            let compiled = compile(&schema, 1000, 1024).unwrap();
            let mut walk = Walk::new(Mode::First, &compiled.shared, LIMITS);
            let _ = compiled.root.check(Inst::Name(name), Path::Root, &mut walk);
            walk.finish().pop().map(|e| e.to_string())
        };
        assert_eq!(name(json!({"type": "string", "maxLength": 3}), "abc"), None);
        assert_eq!(
            name(json!({"type": ["integer", "null"]}), "a").as_deref(),
            Some("at /: expected integer or null, got string")
        );
        assert_eq!(
            name(json!({"enum": ["a", 1]}), "b").as_deref(),
            Some(r#"at /: value must be one of ["a",1]"#)
        );
        assert_eq!(name(json!({"const": "b"}), "b"), None);
        assert_eq!(
            name(json!({"const": "b"}), "c").as_deref(),
            Some(r#"at /: value must be "b""#)
        );
        assert_eq!(
            name(json!({"not": {"pattern": "^x"}}), "xy").as_deref(),
            Some("at /: value must not match the schema of not")
        );
        // Keywords for other types do not apply to names.
        assert_eq!(
            name(
                json!({"minimum": 5, "minItems": 2, "required": ["a"], "properties": {"a": false}}),
                "a"
            ),
            None
        );
    }
}
