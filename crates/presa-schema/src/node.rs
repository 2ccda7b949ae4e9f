//! The compiled subset: a tree of keyword nodes, and the walk that checks an instance against it.
//!
//! The walk allocates nothing unless it reports an error: locations are a chain of borrowed
//! [`Path`] segments on the stack, turned into a pointer string only when an error is recorded.

use std::cmp::Ordering;
use std::ops::ControlFlow;

use serde_json::{Map, Number, Value};

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
    Items(Schema),
    Required(Box<[String]>),
    MinProperties(u64),
    MaxProperties(u64),
    Properties(Box<[(String, Schema)]>),
    /// `known` holds the `properties` names, sorted, which `additionalProperties` skips.
    AdditionalProperties {
        known: Box<[String]>,
        schema: Schema,
    },
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

/// The walk's state: its mode and the errors recorded so far.
#[derive(Debug)]
pub(crate) struct Walk {
    mode: Mode,
    pub(crate) errors: Vec<ValidationError>,
}

impl Walk {
    pub(crate) fn new(mode: Mode) -> Self {
        Self {
            mode,
            errors: Vec::new(),
        }
    }

    fn report(&mut self, path: Path<'_>, kind: impl FnOnce() -> ErrorKind) -> ControlFlow<()> {
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
    /// Checks `value` (found at `path`); `Break` means stop walking.
    pub(crate) fn check(&self, value: &Value, path: Path<'_>, walk: &mut Walk) -> ControlFlow<()> {
        match self {
            Self::Any => ControlFlow::Continue(()),
            Self::Never => walk.report(path, || ErrorKind::NotAllowed),
            Self::Node(keywords) => {
                for keyword in keywords {
                    keyword.check(value, path, walk)?;
                }
                ControlFlow::Continue(())
            }
        }
    }
}

impl Keyword {
    fn check(&self, value: &Value, path: Path<'_>, walk: &mut Walk) -> ControlFlow<()> {
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
            // Code points never outnumber bytes, so the byte length often settles it.
            (Self::MinLength(limit), Value::String(s))
                if (s.len() as u64) < *limit || (s.chars().count() as u64) < *limit =>
            {
                walk.report(path, || ErrorKind::MinLength {
                    limit: *limit,
                    actual: s.chars().count() as u64,
                })
            }
            (Self::MaxLength(limit), Value::String(s))
                if s.len() as u64 > *limit && s.chars().count() as u64 > *limit =>
            {
                walk.report(path, || ErrorKind::MaxLength {
                    limit: *limit,
                    actual: s.chars().count() as u64,
                })
            }
            (Self::Pattern(pattern), Value::String(s)) => match pattern.is_match(s) {
                Some(true) => ControlFlow::Continue(()),
                Some(false) => walk.report(path, || ErrorKind::Pattern {
                    pattern: pattern.source().to_owned(),
                }),
                None => walk.report(path, || ErrorKind::PatternLimit {
                    pattern: pattern.source().to_owned(),
                }),
            },
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
            (Self::Items(schema), Value::Array(items)) => {
                for (index, item) in items.iter().enumerate() {
                    schema.check(item, path.index(index), walk)?;
                }
                ControlFlow::Continue(())
            }
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
            (Self::Properties(properties), Value::Object(map)) => {
                for (name, schema) in properties {
                    if let Some(item) = map.get(name) {
                        schema.check(item, path.key(name), walk)?;
                    }
                }
                ControlFlow::Continue(())
            }
            (Self::AdditionalProperties { known, schema }, Value::Object(map)) => {
                check_additional(known, schema, map, path, walk)
            }
            _ => ControlFlow::Continue(()),
        }
    }
}

fn check_additional(
    known: &[String],
    schema: &Schema,
    map: &Map<String, Value>,
    path: Path<'_>,
    walk: &mut Walk,
) -> ControlFlow<()> {
    for (key, item) in map {
        if known
            .binary_search_by(|name| name.as_str().cmp(key))
            .is_ok()
        {
            continue;
        }
        match schema {
            Schema::Never => walk.report(path, || ErrorKind::AdditionalProperty {
                property: key.clone(),
            })?,
            schema => schema.check(item, path.key(key), walk)?,
        }
    }
    ControlFlow::Continue(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use crate::compile::Compiler;
    use serde_json::json;

    fn first_error(schema: Value, instance: Value) -> Option<ErrorKind> {
        let schema = Compiler {
            backtrack_limit: 1000,
        }
        .schema(&schema, "/")
        .unwrap();
        let mut walk = Walk::new(Mode::First);
        let _ = schema.check(&instance, Path::Root, &mut walk);
        walk.errors.pop().map(|e| e.kind().clone())
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
        let schema = Compiler {
            backtrack_limit: 1000,
        }
        .schema(&json!({"items": {"type": "string"}}), "/")
        .unwrap();
        let mut walk = Walk::new(Mode::Check);
        assert!(
            schema
                .check(&json!([1, 2]), Path::Root, &mut walk)
                .is_break()
        );
        assert!(walk.errors.is_empty());
        let mut walk = Walk::new(Mode::All);
        assert!(
            schema
                .check(&json!([1, 2]), Path::Root, &mut walk)
                .is_continue()
        );
        assert_eq!(walk.errors.len(), 2);
    }
}
