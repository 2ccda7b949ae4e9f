//! Feature `full`: the keywords both backends evaluate, keywords beyond the subset, other
//! drafts, backend choice, and references.

use presa_schema::{FullValidator, SchemaError, Validator, ValidatorOptions};
use serde_json::{Value, json};

const DRAFT7: &str = "http://json-schema.org/draft-07/schema#";
const DRAFT4: &str = "http://json-schema.org/draft-04/schema#";

/// Checks the first error through [`presa_schema::compile`] and the full backend.
fn check(schema: Value, instance: Value, expected: &str) {
    let auto = presa_schema::compile(&schema).unwrap_or_else(|e| panic!("{schema}: {e}"));
    let full = FullValidator::new(&schema).unwrap_or_else(|e| panic!("{schema}: {e}"));
    for (backend, validator) in [
        ("compile", auto),
        ("full", Box::new(full) as Box<dyn Validator>),
    ] {
        let got = validator
            .validate(&instance)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert_eq!(
            got, expected,
            "[{backend}] schema {schema}, instance {instance}"
        );
    }
}

fn schema_error(schema: Value) -> SchemaError {
    let full = FullValidator::new(&schema).expect_err("compiled");
    let auto = presa_schema::compile(&schema).expect_err("compiled");
    assert_eq!(full, auto);
    full
}

#[test]
fn applicators_and_references() {
    check(
        json!({"anyOf": [{"type": "string"}, {"type": "number"}]}),
        json!(null),
        "at /: value matches none of the 2 schemas of anyOf",
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
        json!({"not": {"type": "string"}}),
        json!("x"),
        "at /: value must not match the schema of not",
    );
    check(
        json!({"allOf": [{"type": "string"}, {"minLength": 3}]}),
        json!("ab"),
        "at /: expected at least 3 characters, got 2",
    );
    check(
        json!({"if": {"type": "string"}, "then": {"minLength": 2}}),
        json!("a"),
        "at /: expected at least 2 characters, got 1",
    );
    check(
        json!({"$defs": {"p": {"type": "integer"}}, "items": {"$ref": "#/$defs/p"}}),
        json!([1, "x"]),
        "at /1: expected integer, got string",
    );
    // The bundled meta-schemas resolve offline.
    check(
        json!({"$ref": "https://json-schema.org/draft/2020-12/schema"}),
        json!({"type": 5}),
        "at /type: value matches none of the 2 schemas of anyOf",
    );
}

#[test]
fn object_and_array_keywords() {
    check(
        json!({"patternProperties": {"^x-": false}}),
        json!({"x-a": 1}),
        "at /x-a: value is not allowed",
    );
    check(
        json!({"properties": {"a": true}, "unevaluatedProperties": false}),
        json!({"a": 1, "b": 2}),
        r#"at /: unevaluated property "b" is not allowed"#,
    );
    check(
        json!({"prefixItems": [true], "unevaluatedItems": false}),
        json!([1, 2, 3]),
        "at /: 2 unevaluated items are not allowed",
    );
    check(
        json!({"dependentRequired": {"a": ["b"]}}),
        json!({"a": 1}),
        r#"at /: missing required property "b""#,
    );
    check(
        json!({"propertyNames": {"maxLength": 2}}),
        json!({"abc": 1}),
        r#"at /: property name "abc" is not valid: expected at most 2 characters, got 3"#,
    );
    check(
        json!({"contains": {"type": "string"}}),
        json!([1]),
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
        json!({"prefixItems": [{"type": "string"}]}),
        json!([1]),
        "at /0: expected string, got integer",
    );
}

#[test]
fn other_drafts_follow_schema() {
    check(
        json!({"$schema": DRAFT7, "items": [{"type": "string"}]}),
        json!([1]),
        "at /0: expected string, got integer",
    );
    check(
        json!({"$schema": DRAFT7, "additionalItems": false, "items": [true]}),
        json!([1, 2, 3]),
        "at /: expected at most 1 item, got 3",
    );
    check(
        json!({"$schema": DRAFT7, "dependencies": {"a": ["b"]}}),
        json!({"a": 1}),
        r#"at /: missing required property "b""#,
    );
    check(
        json!({"$schema": DRAFT7, "type": "integer"}),
        json!(1.0),
        "",
    );
    // Draft-07 asserts `format`; 2020-12 only annotates.
    check(
        json!({"$schema": DRAFT7, "format": "email"}),
        json!("nope"),
        r#"at /: value is not a valid "email""#,
    );
    check(json!({"format": "email"}), json!("nope"), "");
    check(
        json!({"$schema": DRAFT4, "maximum": 10, "exclusiveMaximum": true}),
        json!(10),
        "at /: expected less than 10, got 10",
    );
    // Draft-04 does not count 1.0 as an integer.
    check(
        json!({"$schema": DRAFT4, "type": "integer"}),
        json!(1.0),
        "at /: expected integer, got number",
    );
}

#[test]
fn compile_picks_the_subset_when_it_suffices() {
    let pick = |schema: Value| format!("{:?}", presa_schema::compile(&schema).unwrap());
    for schema in [
        json!({"type": "object", "properties": {"a": {"maxLength": 3}}}),
        json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "title": "t"}),
        json!({"properties": {"a": {"anyOf": [true]}}}),
        json!({"$defs": {"a": {"type": "string"}}, "items": {"$ref": "#/$defs/a"}}),
        json!({"x-extension": true, "if": true, "then": {"not": {"contains": false}}}),
        // draft-07 where it means what 2020-12 means
        json!({"$schema": DRAFT7, "type": "string"}),
    ] {
        assert!(
            pick(schema.clone()).starts_with("SubsetValidator"),
            "{schema}"
        );
    }
    for schema in [
        json!({"$schema": DRAFT7, "items": [{"type": "string"}]}),
        json!({"$schema": DRAFT7, "format": "email"}),
        json!({"properties": {"a": {"unevaluatedProperties": false}}}),
        json!({"$dynamicAnchor": "meta", "items": {"$dynamicRef": "#meta"}}),
        json!({"$ref": "https://json-schema.org/draft/2020-12/schema"}),
        json!({"$defs": {"b": {"$id": "b.json"}}}),
        json!({"additionalItems": false}),
    ] {
        assert!(
            pick(schema.clone()).starts_with("FullValidator"),
            "{schema}"
        );
    }
    // Another error from the subset is the answer: full is not tried.
    assert!(matches!(
        presa_schema::compile(&json!({"minLength": -1})),
        Err(SchemaError::InvalidKeyword { .. })
    ));
    // Unless the schema also uses something only full has.
    assert!(matches!(
        presa_schema::compile(&json!({"minLength": -1, "unevaluatedItems": false})),
        Err(SchemaError::Invalid { .. })
    ));
}

#[test]
fn remote_references_are_never_fetched() {
    assert_eq!(
        schema_error(json!({"$ref": "http://localhost:1234/draft2020-12/integer.json"}))
            .to_string(),
        "unresolvable reference: http://localhost:1234/draft2020-12/integer.json is outside the schema, \
         and remote documents are never fetched"
    );
    assert!(matches!(
        schema_error(
            json!({"properties": {"a": {"$ref": "https://169.254.169.254/latest/meta-data"}}})
        ),
        SchemaError::Reference { .. }
    ));
    assert!(matches!(
        schema_error(json!({"$ref": "file:///etc/passwd"})),
        SchemaError::Reference { .. }
    ));
    assert!(matches!(
        schema_error(json!({"$id": "http://example.com/a", "$ref": "b.json"})),
        SchemaError::Reference { .. }
    ));
    assert_eq!(
        schema_error(json!({"$schema": "http://example.com/custom", "type": "string"})).to_string(),
        "unresolvable reference: unknown meta-schema http://example.com/custom, and remote documents are never fetched"
    );
    // Local references still work, including to a relative URI inside the document.
    let local = json!({
        "$id": "http://example.com/root.json",
        "$defs": {"b": {"$id": "b.json", "type": "integer"}},
        "$ref": "b.json",
    });
    assert!(
        presa_schema::compile(&local)
            .unwrap()
            .validate(&json!("x"))
            .is_err()
    );
}

#[test]
fn local_reference_errors() {
    assert_eq!(
        schema_error(json!({"$ref": "#/$defs/missing"})).to_string(),
        r#"unresolvable reference: pointer "/$defs/missing" does not exist"#
    );
    assert_eq!(
        schema_error(json!({"$ref": "#nope"})).to_string(),
        r#"unresolvable reference: anchor "nope" does not exist"#
    );
}

#[test]
fn bad_schemas_fail_against_the_meta_schema() {
    let full = |schema: Value| {
        ValidatorOptions::default()
            .compile_full(&schema)
            .unwrap_err()
    };
    assert_eq!(
        full(json!({"minLength": -1})),
        SchemaError::Invalid {
            pointer: "/minLength".into(),
            message: "expected at least 0, got -1".into()
        }
    );
    assert_eq!(
        full(json!({"pattern": "("})).to_string(),
        r#"invalid schema at /pattern: value is not a valid "regex""#
    );
    assert_eq!(
        full(json!({"properties": {"a": {"items": [1]}}})).to_string(),
        "invalid schema at /properties/a/items: expected boolean or object, got array"
    );
}

#[test]
fn two_resources_with_one_identifier_are_refused() {
    let duplicate = |schema: Value| match schema_error(schema.clone()) {
        SchemaError::DuplicateId { pointer, id, first } => (pointer, id, first),
        other => panic!("{schema}: {other:?}"),
    };
    // siblings, whichever of them holds the anchor the other's reference names
    for (anchor, reference) in [("$anchor", "$ref"), ("$dynamicAnchor", "$dynamicRef")] {
        assert_eq!(
            duplicate(json!({"allOf": [
                {"$id": "http://a/b", anchor: "x"},
                {"$id": "http://a/b", reference: "#x"},
            ]})),
            ("/allOf/1".into(), "http://a/b".into(), "/allOf/0".into())
        );
    }
    // a subschema and the root; relative identifiers, resolved; an empty fragment
    assert_eq!(
        duplicate(json!({"$id": "http://a/b", "items": {"$id": "b#"}})),
        ("/items".into(), "http://a/b".into(), "/".into())
    );
    assert_eq!(
        duplicate(json!({"$id": "http://a/", "$defs": {
            "x": {"$id": "s"},
            "y": {"$id": "./t/../s"},
        }})),
        ("/$defs/y".into(), "http://a/s".into(), "/$defs/x".into())
    );
    // the root without an `$id` has the default one
    assert_eq!(
        duplicate(json!({"items": {"$id": "json-schema:///"}})).2,
        "/"
    );
    assert_eq!(
        SchemaError::DuplicateId {
            pointer: "/allOf/1".into(),
            id: "http://a/b".into(),
            first: "/allOf/0".into()
        }
        .to_string(),
        "the schema resource at /allOf/1 has the identifier http://a/b, which the one at \
         /allOf/0 already has; every $id in a schema must name a different resource"
    );
}

#[test]
fn distinct_resources_may_share_a_relative_identifier() {
    // `s` under two bases is two resources
    let schema = json!({"$defs": {
        "a": {"$id": "http://a/", "$defs": {"s": {"$id": "s", "type": "string"}}},
        "b": {"$id": "http://b/", "$defs": {"s": {"$id": "s", "type": "integer"}}},
    }, "$ref": "http://b/s"});
    check(schema, json!("x"), "at /: expected integer, got string");
    // an identifier in data is no resource; before 2019-09 `$id: "#x"` is an anchor
    check(
        json!({"$id": "http://a/b", "const": {"$id": "http://a/b"}}),
        json!(1),
        "at /: value must be {\"$id\":\"http://a/b\"}",
    );
    check(
        json!({"$schema": DRAFT7, "definitions": {
            "a": {"$id": "#x", "type": "string"},
            "b": {"$id": "#y", "type": "string"},
        }, "allOf": [{"$ref": "#x"}, {"$ref": "#y"}]}),
        json!(1),
        "at /: expected string, got integer",
    );
}

#[test]
fn identifiers_that_name_no_resource_are_not_duplicates() {
    // before 2019-09 an `$id` with a fragment names a location in its resource
    check(
        json!({"$schema": DRAFT7, "$id": "http://a/s", "definitions": {
            "a": {"$id": "http://a/s#foo", "type": "integer"},
            "b": {"$id": "x.json#b"},
            "c": {"$id": "x.json#c"},
        }, "allOf": [{"$ref": "#/definitions/a"}]}),
        json!("x"),
        "at /: expected integer, got string",
    );
    // `#` alone names the resource it is in
    check(
        json!({"$id": "http://a/s", "items": {"$id": "#", "type": "string"}}),
        json!([1]),
        "at /0: expected string, got integer",
    );
    // and 2019-09's `dependencies` holds resources too
    let schema = json!({"$schema": "https://json-schema.org/draft/2019-09/schema",
        "$id": "http://a/s", "dependencies": {"x": {"$id": "http://a/s"}}});
    assert!(matches!(
        FullValidator::new(&schema),
        Err(SchemaError::DuplicateId { .. })
    ));
}
