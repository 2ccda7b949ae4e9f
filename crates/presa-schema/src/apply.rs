//! Applicators: keywords that check subschemas against the instance (`$ref`, `allOf`, `anyOf`,
//! `oneOf`, `not`, `if`) or against parts of it (`contains`, `patternProperties`,
//! `additionalProperties`, `propertyNames`).
//!
//! Combinators probe their branches (see [`Walk::probe`]), which records nothing, and report
//! one error of their own; `allOf`, `$ref` and the branch `if` picks report the branch's errors.

use std::ops::ControlFlow;
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::error::ErrorKind;
use crate::node::{Inst, Keyword, Mode, Schema, Walk};
use crate::pointer::Path;
use crate::regex::Pattern;

/// Any applicator: those that apply subschemas to parts of the instance do nothing on a
/// property name or a value of another type.
pub(crate) fn apply(
    keyword: &Keyword,
    inst: Inst<'_>,
    path: Path<'_>,
    walk: &mut Walk<'_>,
) -> ControlFlow<()> {
    let Inst::Value(value) = inst else {
        return in_place(keyword, inst, path, walk);
    };
    match (keyword, value) {
        (Keyword::PrefixItems(schemas), Value::Array(items)) => {
            for (index, (schema, item)) in schemas.iter().zip(items).enumerate() {
                schema.check(Inst::Value(item), path.index(index), walk)?;
            }
            ControlFlow::Continue(())
        }
        (Keyword::Items { skip, schema }, Value::Array(items)) => {
            for (index, item) in items.iter().enumerate().skip(*skip) {
                schema.check(Inst::Value(item), path.index(index), walk)?;
            }
            ControlFlow::Continue(())
        }
        (Keyword::Contains { schema, min, max }, Value::Array(items)) => {
            contains(schema, *min, *max, items, path, walk)
        }
        (Keyword::Properties(properties), Value::Object(map)) => {
            for (name, schema) in properties {
                if let Some(item) = map.get(name) {
                    schema.check(Inst::Value(item), path.key(name), walk)?;
                }
            }
            ControlFlow::Continue(())
        }
        (Keyword::PatternProperties(patterns), Value::Object(map)) => {
            pattern_properties(patterns, map, path, walk)
        }
        (
            Keyword::AdditionalProperties {
                known,
                patterns,
                schema,
            },
            Value::Object(map),
        ) => additional_properties(known, patterns, schema, map, path, walk),
        (Keyword::PropertyNames(schema), Value::Object(map)) => {
            property_names(schema, map, path, walk)
        }
        (Keyword::DependentSchemas(schemas), Value::Object(map)) => {
            for (name, schema) in schemas {
                if map.contains_key(name) {
                    schema.check(inst, path, walk)?;
                }
            }
            ControlFlow::Continue(())
        }
        _ => in_place(keyword, inst, path, walk),
    }
}

/// The keywords that apply subschemas to the instance itself.
fn in_place(
    keyword: &Keyword,
    inst: Inst<'_>,
    path: Path<'_>,
    walk: &mut Walk<'_>,
) -> ControlFlow<()> {
    match keyword {
        Keyword::Ref { index, level } => reference(*index, *level, inst, path, walk),
        Keyword::AllOf(schemas) => {
            for schema in schemas {
                schema.check(inst, path, walk)?;
            }
            ControlFlow::Continue(())
        }
        Keyword::AnyOf(schemas) => {
            for schema in schemas {
                if walk.probe(|walk| schema.check(inst, path, walk))? {
                    return ControlFlow::Continue(());
                }
            }
            walk.report(path, || ErrorKind::AnyOf {
                schemas: schemas.len(),
            })
        }
        Keyword::OneOf(schemas) => {
            let mut matched = 0;
            for schema in schemas {
                if walk.probe(|walk| schema.check(inst, path, walk))? {
                    matched += 1;
                    // The message counts every match; a plain check needs only the second.
                    if matched > 1 && walk.mode == Mode::Check {
                        break;
                    }
                }
            }
            if matched == 1 {
                return ControlFlow::Continue(());
            }
            walk.report(path, || ErrorKind::OneOf {
                matched,
                schemas: schemas.len(),
            })
        }
        Keyword::Not(schema) => {
            if walk.probe(|walk| schema.check(inst, path, walk))? {
                walk.report(path, || ErrorKind::Not)
            } else {
                ControlFlow::Continue(())
            }
        }
        Keyword::If(conditional) => {
            let branch = if walk.probe(|walk| conditional.condition.check(inst, path, walk))? {
                &conditional.then
            } else {
                &conditional.otherwise
            };
            branch.check(inst, path, walk)
        }
        _ => ControlFlow::Continue(()),
    }
}

/// Follows a `$ref` (held at `level` of its tree) to its shared schema, within the walk's
/// reference limits. The levels of the references being followed add up to how deep the walk
/// nests, give or take the height of the schema it is in (which the schema depth bounds).
fn reference(
    index: usize,
    level: usize,
    inst: Inst<'_>,
    path: Path<'_>,
    walk: &mut Walk<'_>,
) -> ControlFlow<()> {
    let shared = walk.shared;
    let Some(target) = shared.get(index) else {
        return ControlFlow::Continue(()); // the compiler only emits indices it allocated
    };
    let limits = walk.limits;
    if walk.steps >= limits.steps {
        return walk.fault(path, || ErrorKind::ReferenceSteps {
            limit: limits.steps,
        });
    }
    let depth = walk.depth.saturating_add(level);
    if depth > limits.depth {
        return walk.fault(path, || ErrorKind::ReferenceDepth {
            limit: limits.depth,
        });
    }
    walk.steps += 1;
    let outer = std::mem::replace(&mut walk.depth, depth);
    let flow = target.check(inst, path, walk);
    walk.depth = outer;
    flow
}

fn contains(
    schema: &Schema,
    min: u64,
    max: Option<u64>,
    items: &[Value],
    path: Path<'_>,
    walk: &mut Walk<'_>,
) -> ControlFlow<()> {
    let mut matched = 0u64;
    for (index, item) in items.iter().enumerate() {
        let here = path.index(index);
        if walk.probe(|walk| schema.check(Inst::Value(item), here, walk))? {
            matched += 1;
            // Messages give the count; a plain check stops once the answer is known.
            if walk.mode == Mode::Check {
                match max {
                    None if matched >= min => return ControlFlow::Continue(()),
                    Some(max) if matched > max => break,
                    _ => {}
                }
            }
        }
    }
    if matched < min {
        return walk.report(path, || ErrorKind::MinContains {
            limit: min,
            actual: matched,
        });
    }
    match max {
        Some(max) if matched > max => walk.report(path, || ErrorKind::MaxContains {
            limit: max,
            actual: matched,
        }),
        _ => ControlFlow::Continue(()),
    }
}

fn pattern_properties(
    patterns: &[(Arc<Pattern>, Schema)],
    map: &Map<String, Value>,
    path: Path<'_>,
    walk: &mut Walk<'_>,
) -> ControlFlow<()> {
    for (key, item) in map {
        for (pattern, schema) in patterns {
            match pattern.is_match(key) {
                Some(true) => schema.check(Inst::Value(item), path.key(key), walk)?,
                Some(false) => {}
                None => walk.limit(path.key(key), || ErrorKind::PatternLimit {
                    pattern: pattern.source().to_owned(),
                })?,
            }
        }
    }
    ControlFlow::Continue(())
}

fn additional_properties(
    known: &[String],
    patterns: &[Arc<Pattern>],
    schema: &Schema,
    map: &Map<String, Value>,
    path: Path<'_>,
    walk: &mut Walk<'_>,
) -> ControlFlow<()> {
    'keys: for (key, item) in map {
        if known
            .binary_search_by(|name| name.as_str().cmp(key))
            .is_ok()
        {
            continue;
        }
        for pattern in patterns {
            match pattern.is_match(key) {
                Some(true) => continue 'keys,
                Some(false) => {}
                None => {
                    walk.limit(path.key(key), || ErrorKind::PatternLimit {
                        pattern: pattern.source().to_owned(),
                    })?;
                    continue 'keys;
                }
            }
        }
        match schema {
            Schema::Never => walk.report(path, || ErrorKind::AdditionalProperty {
                property: key.clone(),
            })?,
            schema => schema.check(Inst::Value(item), path.key(key), walk)?,
        }
    }
    ControlFlow::Continue(())
}

/// Each name is checked as a string; a failing one is reported at the object, with the name
/// and its first error.
fn property_names(
    schema: &Schema,
    map: &Map<String, Value>,
    path: Path<'_>,
    walk: &mut Walk<'_>,
) -> ControlFlow<()> {
    for key in map.keys() {
        if walk.mode == Mode::Check {
            schema.check(Inst::Name(key), path, walk)?;
            continue;
        }
        if let Some(error) = walk.capture(|walk| schema.check(Inst::Name(key), path, walk))? {
            walk.report(path, || ErrorKind::PropertyName {
                name: key.clone(),
                error: Box::new(error),
            })?;
        }
    }
    ControlFlow::Continue(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use crate::{SubsetValidator, Validator, ValidatorOptions};
    use serde_json::{Value, json};

    fn subset(schema: Value) -> SubsetValidator {
        SubsetValidator::new(&schema).unwrap_or_else(|e| panic!("{schema}: {e}"))
    }

    /// The first error (`""` if valid), checking that `is_valid` and `validate_all` agree.
    fn first(schema: Value, instance: Value) -> String {
        let validator = subset(schema);
        let first = validator.validate(&instance);
        assert_eq!(validator.is_valid(&instance), first.is_ok());
        match (first, validator.validate_all(&instance)) {
            (Ok(()), Ok(())) => String::new(),
            (Err(first), Err(all)) => {
                assert_eq!(&first, all.first());
                first.to_string()
            }
            (first, all) => panic!("validate {first:?} but validate_all {all:?}"),
        }
    }

    fn all(schema: Value, instance: Value) -> Vec<String> {
        match subset(schema).validate_all(&instance) {
            Ok(()) => Vec::new(),
            Err(errors) => errors.iter().map(ToString::to_string).collect(),
        }
    }

    #[test]
    fn any_of() {
        let schema = json!({"anyOf": [{"type": "string"}, {"minimum": 2}]});
        assert_eq!(first(schema.clone(), json!("a")), "");
        assert_eq!(first(schema.clone(), json!(3)), "");
        assert_eq!(
            first(schema.clone(), json!(1)),
            "at /: value matches none of the 2 schemas of anyOf"
        );
        // Branch errors stay out of the report, even when collecting all.
        assert_eq!(
            all(schema, json!(1)),
            ["at /: value matches none of the 2 schemas of anyOf"]
        );
        assert_eq!(
            first(json!({"anyOf": [{"type": "null"}]}), json!(1)),
            "at /: value does not match the only schema of anyOf"
        );
        assert_eq!(first(json!({"anyOf": [false, {}]}), json!(1)), "");
    }

    #[test]
    fn one_of() {
        let schema = json!({"oneOf": [{"type": "integer"}, {"minimum": 2}, {"multipleOf": 3}]});
        assert_eq!(first(schema.clone(), json!(1)), "");
        assert_eq!(first(schema.clone(), json!(2.5)), "");
        assert_eq!(
            first(schema.clone(), json!(0.5)),
            "at /: value matches none of the 3 schemas of oneOf"
        );
        assert_eq!(
            first(schema.clone(), json!(2)),
            "at /: value matches 2 of the schemas of oneOf, expected exactly one"
        );
        assert_eq!(
            first(schema, json!(3)),
            "at /: value matches 3 of the schemas of oneOf, expected exactly one"
        );
        assert_eq!(
            first(json!({"oneOf": [false]}), json!(1)),
            "at /: value does not match the only schema of oneOf"
        );
    }

    #[test]
    fn all_of_reports_the_branch_errors() {
        let schema = json!({"allOf": [{"type": "string"}, {"minLength": 3}, {"maxLength": 1}]});
        assert_eq!(
            first(schema.clone(), json!("ab")),
            "at /: expected at least 3 characters, got 2"
        );
        assert_eq!(
            all(schema, json!("ab")),
            [
                "at /: expected at least 3 characters, got 2",
                "at /: expected at most 1 character, got 2"
            ]
        );
    }

    #[test]
    fn not() {
        assert_eq!(
            first(json!({"not": {"type": "string"}}), json!("x")),
            "at /: value must not match the schema of not"
        );
        assert_eq!(first(json!({"not": {"type": "string"}}), json!(1)), "");
        assert_eq!(
            first(json!({"not": {}}), json!(null)),
            "at /: value must not match the schema of not"
        );
        assert_eq!(first(json!({"not": false}), json!(null)), "");
        assert_eq!(first(json!({"not": {"not": {"const": 1}}}), json!(1)), "");
    }

    #[test]
    fn if_then_else_report_the_branch_errors() {
        let schema = json!({
            "if": {"type": "string"},
            "then": {"minLength": 2},
            "else": {"type": "integer", "minimum": 0},
        });
        assert_eq!(
            first(schema.clone(), json!("a")),
            "at /: expected at least 2 characters, got 1"
        );
        assert_eq!(first(schema.clone(), json!("ab")), "");
        assert_eq!(first(schema.clone(), json!(3)), "");
        assert_eq!(
            all(schema, json!(-1.5)),
            [
                "at /: expected integer, got number",
                "at /: expected at least 0, got -1.5"
            ]
        );
        // `if` alone, `then` or `else` alone: no effect.
        assert_eq!(first(json!({"if": false}), json!(1)), "");
        assert_eq!(first(json!({"then": false, "else": false}), json!(1)), "");
        assert_eq!(first(json!({"if": true, "else": false}), json!(1)), "");
        assert_eq!(
            first(json!({"if": false, "else": false}), json!(1)),
            "at /: value is not allowed"
        );
    }

    #[test]
    fn prefix_items_then_items() {
        let schema = json!({
            "prefixItems": [{"type": "string"}, {"type": "integer"}],
            "items": false,
        });
        assert_eq!(first(schema.clone(), json!(["a", 1])), "");
        assert_eq!(first(schema.clone(), json!(["a"])), "");
        assert_eq!(
            first(schema.clone(), json!([1])),
            "at /0: expected string, got integer"
        );
        assert_eq!(
            first(schema, json!(["a", 1, null])),
            "at /2: value is not allowed"
        );
        assert_eq!(
            first(
                json!({"prefixItems": [true], "items": {"type": "null"}}),
                json!([1, null, 2])
            ),
            "at /2: expected null, got integer"
        );
    }

    #[test]
    fn contains_counts_matches() {
        let schema = json!({"contains": {"type": "string"}});
        assert_eq!(first(schema.clone(), json!([1, "a"])), "");
        assert_eq!(
            first(schema.clone(), json!([1, 2])),
            "at /: expected at least 1 item matching contains, got 0"
        );
        assert_eq!(
            first(schema, json!([])),
            "at /: expected at least 1 item matching contains, got 0"
        );
        let bounded = json!({"contains": {"type": "string"}, "minContains": 2, "maxContains": 3});
        assert_eq!(
            first(bounded.clone(), json!(["a", 1])),
            "at /: expected at least 2 items matching contains, got 1"
        );
        assert_eq!(first(bounded.clone(), json!(["a", 1, "b", "c"])), "");
        assert_eq!(
            first(bounded, json!(["a", "b", "c", "d", 1])),
            "at /: expected at most 3 items matching contains, got 4"
        );
        assert_eq!(
            first(json!({"contains": false, "minContains": 0}), json!([1])),
            ""
        );
        assert_eq!(
            first(json!({"contains": true, "maxContains": 1}), json!([1, 2])),
            "at /: expected at most 1 item matching contains, got 2"
        );
        // `minContains`/`maxContains` without `contains` have no effect.
        assert_eq!(first(json!({"minContains": 3}), json!([])), "");
        assert_eq!(first(json!({"contains": true}), json!("not an array")), "");
    }

    #[test]
    fn object_applicators() {
        let schema = json!({
            "properties": {"id": {"type": "integer"}},
            "patternProperties": {"^x-": {"type": "string"}, "^x-n": {"maxLength": 2}},
            "additionalProperties": false,
        });
        assert_eq!(first(schema.clone(), json!({"id": 1, "x-a": "s"})), "");
        assert_eq!(
            first(schema.clone(), json!({"x-a": 1})),
            "at /x-a: expected string, got integer"
        );
        assert_eq!(
            all(schema.clone(), json!({"x-nn": "abc", "y": 1})),
            [
                "at /x-nn: expected at most 2 characters, got 3",
                r#"at /: additional property "y" is not allowed"#
            ]
        );
        assert_eq!(
            first(
                json!({"patternProperties": {"a": false}}),
                json!({"bab": 1, "c": 2})
            ),
            "at /bab: value is not allowed"
        );
        assert_eq!(
            first(
                json!({"dependentRequired": {"card": ["billing", "zip"]}}),
                json!({"card": 1, "zip": 2})
            ),
            r#"at /: missing required property "billing""#
        );
        assert_eq!(
            first(
                json!({"dependentRequired": {"card": ["billing"]}}),
                json!({"billing": 1})
            ),
            ""
        );
        let dependent = json!({"dependentSchemas": {"card": {"required": ["billing"]}}});
        assert_eq!(
            first(dependent.clone(), json!({"card": 1})),
            r#"at /: missing required property "billing""#
        );
        assert_eq!(first(dependent, json!({"other": 1})), "");
    }

    #[test]
    fn property_names() {
        let schema = json!({"propertyNames": {"maxLength": 2, "pattern": "^[a-z]+$"}});
        assert_eq!(first(schema.clone(), json!({"ab": 1})), "");
        assert_eq!(
            first(schema.clone(), json!({"abc": 1})),
            r#"at /: property name "abc" is not valid: expected at most 2 characters, got 3"#
        );
        assert_eq!(
            all(schema, json!({"abc": 1, "a\"": 2, "ok": 3})),
            [
                r#"at /: property name "a\"" is not valid: string does not match pattern "^[a-z]+$""#,
                r#"at /: property name "abc" is not valid: expected at most 2 characters, got 3"#,
            ]
        );
        assert_eq!(
            first(json!({"propertyNames": false}), json!({"a": 1})),
            r#"at /: property name "a" is not valid: value is not allowed"#
        );
        assert_eq!(first(json!({"propertyNames": false}), json!({})), "");
    }

    #[test]
    fn pattern_limits_are_never_turned_into_acceptance() {
        // A pattern that gives up rejects the value, even under `not` or `anyOf`.
        let catastrophic = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!";
        let pattern = "^((?=a)a+)+$";
        let limit = format!(
            "at /: string could not be checked against pattern \"{pattern}\" within the \
             backtracking limit"
        );
        for schema in [
            json!({"not": {"pattern": pattern}}),
            json!({"anyOf": [{"pattern": pattern}, {"type": "number"}]}),
            json!({"oneOf": [{"pattern": pattern}, {"maxLength": 0}]}),
            json!({"if": {"pattern": pattern}, "then": false, "else": true}),
            json!({"not": {"not": {"pattern": pattern}}}),
        ] {
            let validator = ValidatorOptions::default().compile_subset(&schema).unwrap();
            assert!(!validator.is_valid(&json!(catastrophic)), "{schema}");
            assert_eq!(
                validator
                    .validate(&json!(catastrophic))
                    .unwrap_err()
                    .to_string(),
                limit,
                "{schema}"
            );
            assert_eq!(
                validator
                    .validate_all(&json!(catastrophic))
                    .unwrap_err()
                    .len(),
                1
            );
        }
        let under_contains = json!({"contains": {"not": {"pattern": pattern}}});
        let validator = ValidatorOptions::default()
            .compile_subset(&under_contains)
            .unwrap();
        assert!(!validator.is_valid(&json!([catastrophic])));
        assert_eq!(
            validator
                .validate(&json!([catastrophic]))
                .unwrap_err()
                .pointer(),
            "/0"
        );
    }
}
