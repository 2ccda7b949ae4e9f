//! Exact messages and pointers, as presa users see them (`Invalid arguments {error}`).
//!
//! Every case runs through [`presa_schema::compile`]; with `full`, also through
//! [`ValidatorOptions::compile_full`], so both backends speak the same words.

use presa_schema::{Validator, ValidatorOptions};
use serde_json::{Value, json};

/// Validators to run a case through: the default pick, and the full backend when built.
fn validators(schema: &Value) -> Vec<(&'static str, Box<dyn Validator>)> {
    #[cfg_attr(not(feature = "full"), allow(unused_mut))]
    let mut all: Vec<(&'static str, Box<dyn Validator>)> = vec![(
        "compile",
        presa_schema::compile(schema).unwrap_or_else(|e| panic!("{schema}: {e}")),
    )];
    #[cfg(feature = "full")]
    all.push((
        "full",
        Box::new(
            ValidatorOptions::default()
                .compile_full(schema)
                .unwrap_or_else(|e| panic!("{schema}: {e}")),
        ),
    ));
    all
}

/// `expected` is `""` for a valid instance, else the first error as `at {pointer}: {message}`.
fn check(schema: Value, instance: Value, expected: &str) {
    for (backend, validator) in validators(&schema) {
        let got = match validator.validate(&instance) {
            Ok(()) => String::new(),
            Err(error) => {
                assert_eq!(
                    error.to_string(),
                    format!("at {}: {}", error.pointer(), error.message())
                );
                error.to_string()
            }
        };
        assert_eq!(
            got, expected,
            "[{backend}] schema {schema}, instance {instance}"
        );
        assert_eq!(
            validator.is_valid(&instance),
            expected.is_empty(),
            "[{backend}] is_valid"
        );
    }
}

/// Every error, in order.
fn check_all(schema: Value, instance: Value, expected: &[&str]) {
    for (backend, validator) in validators(&schema) {
        let got: Vec<String> = match validator.validate_all(&instance) {
            Ok(()) => Vec::new(),
            Err(errors) => errors.iter().map(ToString::to_string).collect(),
        };
        assert_eq!(
            got, expected,
            "[{backend}] schema {schema}, instance {instance}"
        );
    }
}

#[test]
fn type_names() {
    check(
        json!({"type": "number"}),
        json!("x"),
        "at /: expected number, got string",
    );
    check(
        json!({"type": "integer"}),
        json!(1.5),
        "at /: expected integer, got number",
    );
    check(json!({"type": "integer"}), json!(1.0), "");
    check(json!({"type": "integer"}), json!(1e3), "");
    check(json!({"type": "integer"}), json!(-7), "");
    check(json!({"type": "number"}), json!(1), "");
    check(json!({"type": "number"}), json!(0.1), "");
    check(
        json!({"type": "string"}),
        json!(5),
        "at /: expected string, got integer",
    );
    check(
        json!({"type": "string"}),
        json!(5.0),
        "at /: expected string, got integer",
    );
    check(
        json!({"type": "string"}),
        json!(5.5),
        "at /: expected string, got number",
    );
    check(
        json!({"type": "string"}),
        json!(null),
        "at /: expected string, got null",
    );
    check(
        json!({"type": "string"}),
        json!(true),
        "at /: expected string, got boolean",
    );
    check(
        json!({"type": "string"}),
        json!([]),
        "at /: expected string, got array",
    );
    check(
        json!({"type": "string"}),
        json!({}),
        "at /: expected string, got object",
    );
    check(
        json!({"type": "object"}),
        json!([1]),
        "at /: expected object, got array",
    );
    check(
        json!({"type": "array"}),
        json!({"a": 1}),
        "at /: expected array, got object",
    );
    check(
        json!({"type": "boolean"}),
        json!(0),
        "at /: expected boolean, got integer",
    );
    check(
        json!({"type": "null"}),
        json!(false),
        "at /: expected null, got boolean",
    );
    check(json!({"type": "null"}), json!(null), "");
}

#[test]
fn type_lists() {
    let schema = json!({"type": ["string", "null"]});
    check(
        schema.clone(),
        json!(1),
        "at /: expected string or null, got integer",
    );
    check(schema.clone(), json!(null), "");
    check(schema, json!("s"), "");
    check(
        json!({"type": ["string", "number", "null"]}),
        json!({}),
        "at /: expected string, number or null, got object",
    );
    check(
        json!({"type": ["integer", "boolean"]}),
        json!(2.5),
        "at /: expected integer or boolean, got number",
    );
    check(json!({"type": ["array"]}), json!([]), "");
}

#[test]
fn pointers() {
    let numbers = json!({
        "type": "object",
        "properties": {"numbers": {"type": "array", "items": {"type": "number"}}},
    });
    check(
        numbers.clone(),
        json!({"numbers": ["a"]}),
        "at /numbers/0: expected number, got string",
    );
    check(
        numbers.clone(),
        json!({"numbers": [1, 2, "x"]}),
        "at /numbers/2: expected number, got string",
    );
    check(numbers.clone(), json!({"numbers": [1, 2.5]}), "");
    check(
        numbers,
        json!({"numbers": "1"}),
        "at /numbers: expected array, got string",
    );
    let escaped = json!({"properties": {"a/b": {"type": "string"}, "m~n": {"type": "string"}}});
    check(
        escaped.clone(),
        json!({"a/b": 1}),
        "at /a~1b: expected string, got integer",
    );
    check(
        escaped,
        json!({"m~n": 1}),
        "at /m~0n: expected string, got integer",
    );
    check(
        json!({"properties": {"é 1": {"type": "string"}}}),
        json!({"é 1": 1}),
        "at /é 1: expected string, got integer",
    );
    // The root renders as `/`, so an empty key at the root looks the same.
    check(
        json!({"properties": {"": {"type": "string"}}}),
        json!({"": 1}),
        "at /: expected string, got integer",
    );
    check(
        json!({"properties": {"a": {"properties": {"b": {"items": {"properties": {"c": {"type": "string"}}}}}}}}),
        json!({"a": {"b": [{"c": "ok"}, {"c": 1}]}}),
        "at /a/b/1/c: expected string, got integer",
    );
    check(
        json!({"items": {"items": {"type": "null"}}}),
        json!([[null], [null, 0]]),
        "at /1/1: expected null, got integer",
    );
}

#[test]
fn required() {
    check(
        json!({"required": ["numbers"]}),
        json!({}),
        r#"at /: missing required property "numbers""#,
    );
    check(json!({"required": ["numbers"]}), json!({"numbers": []}), "");
    check(
        json!({"required": ["a", "b"]}),
        json!({"b": 1}),
        r#"at /: missing required property "a""#,
    );
    check(
        json!({"required": ["a", "b"]}),
        json!({"a": 1}),
        r#"at /: missing required property "b""#,
    );
    check(
        json!({"properties": {"a": {"required": ["b"]}}}),
        json!({"a": {}}),
        r#"at /a: missing required property "b""#,
    );
    check(
        json!({"items": {"required": ["id"]}}),
        json!([{"id": 1}, {"name": "x"}]),
        r#"at /1: missing required property "id""#,
    );
    check(json!({"required": ["a"]}), json!([]), "");
    check(json!({"required": ["a"]}), json!("a"), "");
    check(json!({"required": []}), json!({}), "");
    check(
        json!({"required": ["a\"b"]}),
        json!({}),
        r#"at /: missing required property "a"b""#,
    );
}

#[test]
fn additional_properties() {
    let closed = json!({"properties": {"a": {}}, "additionalProperties": false});
    check(closed.clone(), json!({"a": 1}), "");
    check(
        closed.clone(),
        json!({"a": 1, "foo": 2}),
        r#"at /: additional property "foo" is not allowed"#,
    );
    check(
        closed,
        json!({"foo": 2}),
        r#"at /: additional property "foo" is not allowed"#,
    );
    check(json!({"additionalProperties": false}), json!({}), "");
    check(
        json!({"additionalProperties": false}),
        json!({"x": 1}),
        r#"at /: additional property "x" is not allowed"#,
    );
    check(json!({"additionalProperties": false}), json!([1]), "");
    check(
        json!({"properties": {"in": {"additionalProperties": false}}}),
        json!({"in": {"z": true}}),
        r#"at /in: additional property "z" is not allowed"#,
    );
    check(
        json!({"additionalProperties": {"type": "string"}}),
        json!({"x": 1}),
        "at /x: expected string, got integer",
    );
    check(
        json!({"additionalProperties": {"type": "string"}}),
        json!({"x": "1"}),
        "",
    );
    check(
        json!({"properties": {"a": {"type": "integer"}}, "additionalProperties": {"type": "string"}}),
        json!({"a": 1, "b": 2}),
        "at /b: expected string, got integer",
    );
    check(json!({"additionalProperties": true}), json!({"x": 1}), "");
}

#[test]
fn boolean_schemas() {
    check(json!(false), json!(1), "at /: value is not allowed");
    check(json!(false), json!(null), "at /: value is not allowed");
    check(json!(true), json!({"anything": [1]}), "");
    check(json!({}), json!("anything"), "");
    check(
        json!({"properties": {"a": false}}),
        json!({"a": 1}),
        "at /a: value is not allowed",
    );
    check(json!({"properties": {"a": false}}), json!({"b": 1}), "");
    check(json!({"items": false}), json!([]), "");
    check(
        json!({"items": false}),
        json!([1]),
        "at /0: value is not allowed",
    );
}

#[test]
fn enum_and_const() {
    check(
        json!({"enum": ["a", "b"]}),
        json!("c"),
        r#"at /: value must be one of ["a","b"]"#,
    );
    check(json!({"enum": ["a", "b"]}), json!("b"), "");
    check(json!({"enum": [1, 2]}), json!(1.0), "");
    check(
        json!({"enum": [null, {"a": 1}]}),
        json!({"a": 2}),
        r#"at /: value must be one of [null,{"a":1}]"#,
    );
    check(json!({"enum": [null, {"a": 1}]}), json!({"a": 1.0}), "");
    check(
        json!({"enum": [false]}),
        json!(0),
        "at /: value must be one of [false]",
    );
    check(
        json!({"enum": []}),
        json!(1),
        "at /: value must be one of []",
    );
    check(
        json!({"const": "a"}),
        json!("b"),
        r#"at /: value must be "a""#,
    );
    check(json!({"const": 5}), json!(5.0), "");
    check(json!({"const": 5}), json!(6), "at /: value must be 5");
    check(json!({"const": {"a": [1, 2]}}), json!({"a": [1, 2]}), "");
    check(
        json!({"const": {"a": [1, 2]}}),
        json!({"a": [2, 1]}),
        r#"at /: value must be {"a":[1,2]}"#,
    );
    check(
        json!({"const": {"a": 1, "b": 2}}),
        json!({"b": 2, "a": 1}),
        "",
    );
    check(json!({"const": null}), json!(0), "at /: value must be null");
    check(
        json!({"const": false}),
        json!(0),
        "at /: value must be false",
    );
    check(
        json!({"const": [1]}),
        json!([true]),
        "at /: value must be [1]",
    );
}

#[test]
fn string_lengths() {
    check(
        json!({"minLength": 1}),
        json!(""),
        "at /: expected at least 1 character, got 0",
    );
    check(
        json!({"minLength": 2}),
        json!("a"),
        "at /: expected at least 2 characters, got 1",
    );
    check(
        json!({"maxLength": 3}),
        json!("abcd"),
        "at /: expected at most 3 characters, got 4",
    );
    check(
        json!({"maxLength": 1}),
        json!("ab"),
        "at /: expected at most 1 character, got 2",
    );
    check(json!({"maxLength": 2}), json!("日本"), "");
    check(json!({"maxLength": 1}), json!("😀"), "");
    check(
        json!({"minLength": 2}),
        json!("😀"),
        "at /: expected at least 2 characters, got 1",
    );
    check(
        json!({"maxLength": 2}),
        json!("ñññ"),
        "at /: expected at most 2 characters, got 3",
    );
    check(json!({"minLength": 1}), json!(5), "");
    check(
        json!({"maxLength": 2.0}),
        json!("abc"),
        "at /: expected at most 2 characters, got 3",
    );
    check(json!({"minLength": 0}), json!(""), "");
}

#[test]
fn patterns() {
    check(
        json!({"pattern": "^a"}),
        json!("ba"),
        r#"at /: string does not match pattern "^a""#,
    );
    check(json!({"pattern": "^a"}), json!("ab"), "");
    check(json!({"pattern": "b"}), json!("abc"), "");
    check(
        json!({"pattern": "^\\d+$"}),
        json!("12a"),
        r#"at /: string does not match pattern "^\d+$""#,
    );
    check(json!({"pattern": "^\\d+$"}), json!("123"), "");
    check(json!({"pattern": "^[a-z]+$"}), json!(5), "");
    check(json!({"pattern": "^\\p{Lu}"}), json!("Élan"), "");
    check(
        json!({"properties": {"code": {"pattern": "^[A-Z]{3}$"}}}),
        json!({"code": "ABCD"}),
        r#"at /code: string does not match pattern "^[A-Z]{3}$""#,
    );
    check(
        json!({"pattern": "^((?=a)a+)+$"}),
        json!("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!"),
        r#"at /: string could not be checked against pattern "^((?=a)a+)+$" within the backtracking limit"#,
    );
    // found by the schema fuzz target: a class's `-` between two characters is a range, also
    // next to another `-` (`%--`, `/-j`), where the subset's engine read `--` as a difference
    check(
        json!({"patternProperties": {"[:/-j]{1,}": {"const": "boolean"}}}),
        json!({"enuma_X_1": 3}),
        r#"at /enuma_X_1: value must be "boolean""#,
    );
    check(json!({"pattern": "^[%----<]+$"}), json!("%,-0<"), "");
    check(
        json!({"pattern": "^[%----<]+$"}),
        json!("="),
        r#"at /: string does not match pattern "^[%----<]+$""#,
    );
}

#[test]
fn numeric_bounds() {
    check(
        json!({"minimum": 1}),
        json!(0),
        "at /: expected at least 1, got 0",
    );
    check(json!({"minimum": 1}), json!(1), "");
    check(
        json!({"minimum": 1.5}),
        json!(1),
        "at /: expected at least 1.5, got 1",
    );
    check(
        json!({"minimum": 0}),
        json!(-0.5),
        "at /: expected at least 0, got -0.5",
    );
    check(
        json!({"exclusiveMinimum": 1}),
        json!(1),
        "at /: expected more than 1, got 1",
    );
    check(
        json!({"exclusiveMinimum": 1}),
        json!(1.0),
        "at /: expected more than 1, got 1.0",
    );
    check(json!({"exclusiveMinimum": 1}), json!(1.01), "");
    check(
        json!({"maximum": 10}),
        json!(11),
        "at /: expected at most 10, got 11",
    );
    check(json!({"maximum": 10}), json!(10.0), "");
    check(
        json!({"maximum": -1}),
        json!(0),
        "at /: expected at most -1, got 0",
    );
    check(
        json!({"exclusiveMaximum": 10}),
        json!(10),
        "at /: expected less than 10, got 10",
    );
    check(json!({"exclusiveMaximum": 10}), json!(9.99), "");
    check(json!({"maximum": u64::MAX}), json!(u64::MAX), "");
    check(json!({"minimum": i64::MIN}), json!(i64::MIN), "");
    check(json!({"minimum": 0}), json!("-1"), "");
    check(
        json!({"type": "integer", "minimum": 1}),
        json!(0.5),
        "at /: expected integer, got number",
    );
}

#[test]
fn multiple_of() {
    check(
        json!({"multipleOf": 2}),
        json!(3),
        "at /: expected a multiple of 2, got 3",
    );
    check(json!({"multipleOf": 2}), json!(4), "");
    check(json!({"multipleOf": 2}), json!(4.0), "");
    check(json!({"multipleOf": 0.0001}), json!(0.0075), "");
    check(json!({"multipleOf": 0.01}), json!(19.99), "");
    check(
        json!({"multipleOf": 0.01}),
        json!(19.991),
        "at /: expected a multiple of 0.01, got 19.991",
    );
    check(json!({"multipleOf": 1.5}), json!(4.5), "");
    check(
        json!({"multipleOf": 1.5}),
        json!(35),
        "at /: expected a multiple of 1.5, got 35",
    );
    check(json!({"multipleOf": 2}), json!("x"), "");
    check(json!({"multipleOf": 3}), json!(u64::MAX), "");
    // found by the schema fuzz target: `full` (jsonschema's floating point) took every number
    // for a multiple of a divisor below f64::EPSILON; both read the decimals exactly now
    check(
        json!({"multipleOf": 1.41642934e-19, "type": "integer"}),
        json!(1e308),
        "at /: expected a multiple of 1.41642934e-19, got 1e+308",
    );
}

#[test]
fn array_sizes_and_uniqueness() {
    check(
        json!({"maxItems": 3}),
        json!([1, 2, 3, 4, 5]),
        "at /: expected at most 3 items, got 5",
    );
    check(json!({"maxItems": 3}), json!([1, 2, 3]), "");
    check(
        json!({"maxItems": 1}),
        json!([1, 2]),
        "at /: expected at most 1 item, got 2",
    );
    check(
        json!({"minItems": 1}),
        json!([]),
        "at /: expected at least 1 item, got 0",
    );
    check(
        json!({"minItems": 2}),
        json!([1]),
        "at /: expected at least 2 items, got 1",
    );
    check(json!({"minItems": 2}), json!("ab"), "");
    check(
        json!({"uniqueItems": true}),
        json!([1, 2, 1]),
        "at /: expected unique items, items 0 and 2 are equal",
    );
    check(
        json!({"uniqueItems": true}),
        json!([1, 1.0]),
        "at /: expected unique items, items 0 and 1 are equal",
    );
    check(
        json!({"uniqueItems": true}),
        json!([{"a": 1, "b": 2}, {"b": 2, "a": 1}]),
        "at /: expected unique items, items 0 and 1 are equal",
    );
    check(
        json!({"uniqueItems": true}),
        json!([[1], [true], 1, "1", null, false, 0]),
        "",
    );
    check(json!({"uniqueItems": false}), json!([1, 1]), "");
    check(
        json!({"items": {"type": "string"}}),
        json!(["a", 1]),
        "at /1: expected string, got integer",
    );
}

#[test]
fn object_sizes() {
    check(
        json!({"minProperties": 1}),
        json!({}),
        "at /: expected at least 1 property, got 0",
    );
    check(
        json!({"minProperties": 2}),
        json!({"a": 1}),
        "at /: expected at least 2 properties, got 1",
    );
    check(
        json!({"maxProperties": 1}),
        json!({"a": 1, "b": 2}),
        "at /: expected at most 1 property, got 2",
    );
    check(
        json!({"maxProperties": 2}),
        json!({"a": 1, "b": 2, "c": 3}),
        "at /: expected at most 2 properties, got 3",
    );
    check(json!({"maxProperties": 0}), json!({}), "");
    check(json!({"maxProperties": 0}), json!([1]), "");
}

#[test]
fn annotations_are_ignored() {
    check(
        json!({"title": "t", "description": "d", "default": 1, "examples": [1], "$comment": "c", "type": "string"}),
        json!(1),
        "at /: expected string, got integer",
    );
    check(json!({"format": "email"}), json!("not an email"), "");
    check(
        json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "string"}),
        json!(1),
        "at /: expected string, got integer",
    );
    check(
        json!({"x-vendor": {"type": "string"}, "type": "integer"}),
        json!(1),
        "",
    );
}

#[test]
fn first_error_follows_keyword_order() {
    check(
        json!({"type": "object", "required": ["a"]}),
        json!("x"),
        "at /: expected object, got string",
    );
    check(
        json!({"enum": ["a"], "type": "string"}),
        json!(1),
        "at /: expected string, got integer",
    );
    check(
        json!({"required": ["a"], "properties": {"b": {"type": "string"}}}),
        json!({"b": 1}),
        r#"at /: missing required property "a""#,
    );
    check(
        json!({"minimum": 5, "multipleOf": 2}),
        json!(3),
        "at /: expected at least 5, got 3",
    );
}

#[test]
fn all_errors() {
    let schema = json!({
        "type": "object",
        "properties": {"a": {"type": "string"}, "b": {"type": "integer", "minimum": 0}},
        "required": ["c"],
    });
    check_all(schema.clone(), json!({"a": "x", "b": 1, "c": null}), &[]);
    check_all(
        schema,
        json!({"a": 1, "b": -1.5}),
        &[
            r#"at /: missing required property "c""#,
            "at /a: expected string, got integer",
            "at /b: expected integer, got number",
            "at /b: expected at least 0, got -1.5",
        ],
    );
    check_all(
        json!({"additionalProperties": false, "minProperties": 3}),
        json!({"x": 1, "y": 2}),
        &[
            "at /: expected at least 3 properties, got 2",
            r#"at /: additional property "x" is not allowed"#,
            r#"at /: additional property "y" is not allowed"#,
        ],
    );
    check_all(
        json!({"items": {"type": "string"}}),
        json!(["a", 1, "b", null]),
        &[
            "at /1: expected string, got integer",
            "at /3: expected string, got null",
        ],
    );
}

#[test]
fn errors_collection() {
    let validator = presa_schema::compile(&json!({"items": {"type": "string"}})).unwrap();
    let errors = validator.validate_all(&json!([1, 2, 3])).unwrap_err();
    assert_eq!(errors.len(), 3);
    assert_eq!(errors.first().pointer(), "/0");
    assert_eq!(
        errors.to_string(),
        "at /0: expected string, got integer (and 2 more)"
    );
    let pointers: Vec<String> = errors.into_iter().map(|e| e.pointer().to_owned()).collect();
    assert_eq!(pointers, ["/0", "/1", "/2"]);
}

#[test]
fn combinators() {
    let any = json!({"anyOf": [{"type": "string"}, {"type": "number"}]});
    check(
        any.clone(),
        json!(null),
        "at /: value matches none of the 2 schemas of anyOf",
    );
    check(any, json!(1.5), "");
    check(
        json!({"properties": {"a": {"anyOf": [{"type": "null"}, {"minimum": 2}, {"const": "x"}]}}}),
        json!({"a": 1}),
        "at /a: value matches none of the 3 schemas of anyOf",
    );
    check(
        json!({"oneOf": [{"minimum": 0}, {"maximum": 10}]}),
        json!(5),
        "at /: value matches 2 of the schemas of oneOf, expected exactly one",
    );
    check(
        json!({"oneOf": [{"minimum": 10}, {"maximum": 0}]}),
        json!(5),
        "at /: value matches none of the 2 schemas of oneOf",
    );
    check(
        json!({"oneOf": [{"minimum": 10}, {"maximum": 0}]}),
        json!(11),
        "",
    );
    check(
        json!({"not": {"type": "string"}}),
        json!("x"),
        "at /: value must not match the schema of not",
    );
    check(json!({"not": {"type": "string"}}), json!(1), "");
    check(
        json!({"allOf": [{"type": "string"}, {"minLength": 3}]}),
        json!("ab"),
        "at /: expected at least 3 characters, got 2",
    );
    let conditional = json!({
        "if": {"properties": {"kind": {"const": "card"}}},
        "then": {"required": ["number"]},
        "else": {"required": ["iban"]},
    });
    check(
        conditional.clone(),
        json!({"kind": "card"}),
        r#"at /: missing required property "number""#,
    );
    check(
        conditional.clone(),
        json!({"kind": "bank"}),
        r#"at /: missing required property "iban""#,
    );
    check(conditional, json!({"kind": "card", "number": 1}), "");
}

#[test]
fn references() {
    let schema = json!({
        "$defs": {"positive": {"type": "integer", "exclusiveMinimum": 0}},
        "type": "array",
        "items": {"$ref": "#/$defs/positive"},
    });
    check(
        schema.clone(),
        json!([1, 0]),
        "at /1: expected more than 0, got 0",
    );
    check(schema, json!([1, 2]), "");
    check(
        json!({"$defs": {"n": {"$anchor": "name", "maxLength": 2}}, "properties": {"a": {"$ref": "#name"}}}),
        json!({"a": "abc"}),
        "at /a: expected at most 2 characters, got 3",
    );
    let tree = json!({"type": ["array", "integer"], "items": {"$ref": "#"}});
    check(tree.clone(), json!([1, [2, [3]]]), "");
    check(
        tree,
        json!([1, [2, ["x"]]]),
        "at /1/1/0: expected array or integer, got string",
    );
}

#[test]
fn array_applicators() {
    let tuple = json!({"prefixItems": [{"type": "string"}, {"type": "integer"}], "items": false});
    check(tuple.clone(), json!(["a", 1]), "");
    check(
        tuple.clone(),
        json!([1, 1]),
        "at /0: expected string, got integer",
    );
    check(tuple, json!(["a", 1, 2]), "at /2: value is not allowed");
    check(
        json!({"contains": {"type": "string"}}),
        json!([1, 2]),
        "at /: expected at least 1 item matching contains, got 0",
    );
    check(
        json!({"contains": {"type": "string"}, "minContains": 2}),
        json!(["a", 1]),
        "at /: expected at least 2 items matching contains, got 1",
    );
    check(
        json!({"contains": {"type": "string"}, "maxContains": 1}),
        json!(["a", "b"]),
        "at /: expected at most 1 item matching contains, got 2",
    );
    check(
        json!({"contains": {"type": "string"}, "minContains": 1, "maxContains": 2}),
        json!(["a", "b", "c", 1]),
        "at /: expected at most 2 items matching contains, got 3",
    );
}

#[test]
fn object_applicators() {
    check(
        json!({"patternProperties": {"^x-": false}}),
        json!({"x-a": 1}),
        "at /x-a: value is not allowed",
    );
    let mixed = json!({
        "properties": {"id": true},
        "patternProperties": {"^x-": {"type": "string"}},
        "additionalProperties": false,
    });
    check(mixed.clone(), json!({"id": 1, "x-a": "b"}), "");
    check(
        mixed,
        json!({"id": 1, "y": 2}),
        r#"at /: additional property "y" is not allowed"#,
    );
    check(
        json!({"dependentRequired": {"a": ["b"]}}),
        json!({"a": 1}),
        r#"at /: missing required property "b""#,
    );
    check(
        json!({"dependentSchemas": {"a": {"properties": {"b": {"type": "string"}}}}}),
        json!({"a": 1, "b": 2}),
        "at /b: expected string, got integer",
    );
    check(
        json!({"propertyNames": {"maxLength": 2}}),
        json!({"abc": 1}),
        r#"at /: property name "abc" is not valid: expected at most 2 characters, got 3"#,
    );
    check(
        json!({"propertyNames": {"pattern": "^[a-z]+$"}}),
        json!({"a\"b": 1}),
        r#"at /: property name "a\"b" is not valid: string does not match pattern "^[a-z]+$""#,
    );
}

#[test]
fn extension_keywords_are_annotations_and_unknown_ones_are_refused() {
    // `x-…`: ignored by both backends, and the subset compiles
    let schema = json!({"x-mcp-header": {"type": "string"}, "type": "integer"});
    check(schema.clone(), json!(1), "");
    assert!(ValidatorOptions::default().compile_subset(&schema).is_ok());
    // anything else no draft defines is most likely a typo: refused, naming it, by `compile`
    // (with or without `full`) and by the subset
    let typo =
        json!({"type": "object", "properties": {"a": {"type": "string"}}, "requried": ["a"]});
    let error = presa_schema::compile(&typo).unwrap_err();
    assert_eq!(
        error,
        presa_schema::SchemaError::UnknownKeyword {
            pointer: "/requried".into(),
            keyword: "requried".into()
        }
    );
    assert_eq!(
        error.to_string(),
        "unknown keyword \"requried\" at /requried: no JSON Schema draft defines it (a typo?); \
         extension keywords start with \"x-\""
    );
    assert!(ValidatorOptions::default().compile_subset(&typo).is_err());
}
