//! Unit tests of `annotations`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::json;

use super::*;

fn schema_with(property: Value) -> Value {
    json!({"type": "object", "properties": {"p": property}})
}

#[track_caller]
fn check_err(schema: Value, expect: &str) {
    let err = ParamHeaders::from_input_schema(&schema).unwrap_err();
    assert_eq!(err.to_string(), expect);
}

#[test]
fn compiles_nested_and_in_order() {
    let schema = json!({
        "type": "object",
        "properties": {
            "b": {"type": "boolean", "x-mcp-header": "Debug"},
            "a": {"type": ["null", "integer"], "x-mcp-header": "Priority"},
            "o": {"type": "object", "properties": {
                "deep": {"type": "object", "properties": {
                    "s": {"type": "string", "x-mcp-header": "Deep"}
                }}
            }},
            "plain": {"type": "string"}
        }
    });
    let params = ParamHeaders::from_input_schema(&schema).unwrap();
    let mut got: Vec<_> = params
        .iter()
        .map(|p| (p.header_name(), p.path().join("."), p.kind()))
        .collect();
    // Map order depends on serde_json's preserve_order feature.
    got.sort_by_key(|(_, path, _)| path.clone());
    assert_eq!(
        got,
        [
            ("Mcp-Param-Priority", "a".to_owned(), ParamKind::Integer),
            ("Mcp-Param-Debug", "b".to_owned(), ParamKind::Boolean),
            ("Mcp-Param-Deep", "o.deep.s".to_owned(), ParamKind::String),
        ]
    );
    assert_eq!(params.get("deep").unwrap().name(), "Deep");
    assert!(params.get("Nope").is_none());
}

#[test]
fn schemas_without_annotations() {
    for schema in [
        json!({"type": "object"}),
        json!({"type": "object", "additionalProperties": false}),
        json!(true),
        json!({"type": "object", "properties": {"x": true, "y": {"type": "array", "items": {"type": "string"}}}}),
        // A property *named* x-mcp-header is not an annotation.
        json!({"type": "object", "properties": {"x-mcp-header": {"type": "object"}}}),
        // Data keywords are not searched.
        json!({"type": "object", "default": {"x-mcp-header": "X"}, "examples": [{"x-mcp-header": "Y"}]}),
    ] {
        assert!(
            ParamHeaders::from_input_schema(&schema).unwrap().is_empty(),
            "{schema}"
        );
    }
}

// The eleven invalid tools of the http-invalid-tool-headers conformance scenario.
#[test]
fn runner_invalid_tools() {
    check_err(
        schema_with(json!({"type": "string", "x-mcp-header": ""})),
        "x-mcp-header at /properties/p is empty",
    );
    check_err(
        schema_with(json!({"type": "object", "x-mcp-header": "Obj"})),
        "x-mcp-header \"Obj\" at /properties/p is on a property whose type is not string, integer or boolean",
    );
    for t in ["array", "null", "number", "object"] {
        let err =
            ParamHeaders::from_input_schema(&schema_with(json!({"type": t, "x-mcp-header": "X"})))
                .unwrap_err();
        assert!(
            matches!(err, XMcpHeaderError::UnsupportedType { .. }),
            "{t}"
        );
    }
    let dup = |a: &str, b: &str| {
        json!({"type": "object", "properties": {
            "a": {"type": "string", "x-mcp-header": a},
            "b": {"type": "string", "x-mcp-header": b}
        }})
    };
    check_err(
        dup("Region", "Region"),
        "x-mcp-header \"Region\" at /properties/b repeats the header of arguments.a",
    );
    check_err(
        dup("MyField", "myfield"),
        "x-mcp-header \"myfield\" at /properties/b repeats the header of arguments.a",
    );
    for name in [
        "My Region",
        "Region:Primary",
        "Région",
        "Region\t1",
        "Region\r\n",
        "(x)",
    ] {
        let err = ParamHeaders::from_input_schema(&schema_with(
            json!({"type": "string", "x-mcp-header": name}),
        ))
        .unwrap_err();
        assert!(
            matches!(err, XMcpHeaderError::InvalidName { .. }),
            "{name:?}"
        );
    }
    check_err(
        schema_with(json!({"type": "string", "x-mcp-header": 7})),
        "x-mcp-header at /properties/p is not a string",
    );
}

#[test]
fn valid_names_are_tokens() {
    for name in ["Region", "Window-Days", "a.b_c~d!#$%&'*+^`|", "0"] {
        let params = ParamHeaders::from_input_schema(&schema_with(
            json!({"type": "string", "x-mcp-header": name}),
        ))
        .unwrap();
        assert_eq!(
            params.iter().next().unwrap().header_name(),
            format!("Mcp-Param-{name}")
        );
    }
}

#[test]
fn type_forms() {
    let kind = |t: Value| {
        ParamHeaders::from_input_schema(&schema_with(json!({"type": t, "x-mcp-header": "X"})))
            .map(|p| p.iter().next().unwrap().kind())
    };
    assert_eq!(kind(json!("string")), Ok(ParamKind::String));
    assert_eq!(kind(json!(["boolean", "null"])), Ok(ParamKind::Boolean));
    assert!(kind(json!(["string", "integer"])).is_err());
    assert!(kind(json!(["null"])).is_err());
    assert!(kind(json!(["null", "null", "string"])).is_err());
    assert!(kind(json!([])).is_err());
    // No type at all (a bare $ref, an enum): not allowed.
    let err = ParamHeaders::from_input_schema(&schema_with(
        json!({"$ref": "#/$defs/R", "x-mcp-header": "X"}),
    ));
    assert!(matches!(err, Err(XMcpHeaderError::UnsupportedType { .. })));
}

#[test]
fn annotations_outside_the_properties_chain() {
    let cases = [
        (
            json!({"type": "object", "x-mcp-header": "Root"}),
            "the schema root",
        ),
        (
            json!({"type": "object", "properties": {"list": {"type": "array", "items": {"type": "string", "x-mcp-header": "Item"}}}}),
            "/properties/list/items",
        ),
        (
            json!({"type": "object", "properties": {"list": {"type": "array", "prefixItems": [{"type": "string", "x-mcp-header": "Item"}]}}}),
            "/properties/list/prefixItems/0",
        ),
        (
            json!({"type": "object", "anyOf": [{"properties": {"r": {"type": "string", "x-mcp-header": "R"}}}]}),
            "/anyOf/0/properties/r",
        ),
        (
            json!({"type": "object", "if": {"properties": {"r": {"type": "string", "x-mcp-header": "R"}}}}),
            "/if/properties/r",
        ),
        (
            json!({"type": "object", "$defs": {"R": {"type": "string", "x-mcp-header": "R"}}, "properties": {"r": {"$ref": "#/$defs/R"}}}),
            "/$defs/R",
        ),
        (
            json!({"type": "object", "additionalProperties": {"type": "string", "x-mcp-header": "R"}}),
            "/additionalProperties",
        ),
        (
            json!({"type": "object", "patternProperties": {"^a/b": {"type": "string", "x-mcp-header": "R"}}}),
            "/patternProperties/^a~1b",
        ),
        (
            json!({"type": "object", "properties": {"o": {"type": "object", "not": {"type": "string", "x-mcp-header": "R"}}}}),
            "/properties/o/not",
        ),
    ];
    for (schema, location) in cases {
        let err = ParamHeaders::from_input_schema(&schema).unwrap_err();
        assert!(
            matches!(err, XMcpHeaderError::NotOnProperty { .. }),
            "{schema}"
        );
        assert!(err.to_string().contains(location), "{err} / {location}");
    }
}

#[test]
fn headers_from_arguments() {
    let schema = json!({"type": "object", "properties": {
        "region": {"type": "string", "x-mcp-header": "Region"},
        "priority": {"type": "integer", "x-mcp-header": "Priority"},
        "verbose": {"type": "boolean", "x-mcp-header": "Verbose"},
        "w": {"type": "object", "properties": {"days": {"type": "integer", "x-mcp-header": "Days"}}}
    }});
    let params = ParamHeaders::from_input_schema(&schema).unwrap();
    let mut headers = params
        .headers(Some(
            &json!({"region": "us-east1", "priority": 1, "verbose": null, "w": {"days": 7.0}}),
        ))
        .unwrap();
    headers.sort();
    assert_eq!(
        headers,
        [
            ("Mcp-Param-Days".to_owned(), "7".to_owned()),
            ("Mcp-Param-Priority".to_owned(), "1".to_owned()),
            ("Mcp-Param-Region".to_owned(), "us-east1".to_owned()),
        ]
    );
    assert!(params.headers(None).unwrap().is_empty());
    assert!(params.headers(Some(&json!({}))).unwrap().is_empty());
    // A non-object on the way is "absent".
    assert!(params.headers(Some(&json!({"w": 3}))).unwrap().is_empty());

    let err = params.headers(Some(&json!({"region": ["a"]}))).unwrap_err();
    assert_eq!(
        err.to_string(),
        "arguments.region cannot be sent in header Mcp-Param-Region: not a string, integer or boolean"
    );
    assert!(matches!(
        params.headers(Some(&json!({"priority": 1.5}))),
        Err(ParamValueError::Unsupported { .. })
    ));
    assert!(matches!(
        params.headers(Some(&json!({"priority": 9_007_199_254_740_992_i64}))),
        Err(ParamValueError::IntegerOutOfRange { .. })
    ));
    assert!(matches!(
        params.headers(Some(&json!({"priority": u64::MAX}))),
        Err(ParamValueError::IntegerOutOfRange { .. })
    ));
    assert!(matches!(
        params.headers(Some(&json!({"priority": 1e300}))),
        Err(ParamValueError::IntegerOutOfRange { .. })
    ));
    let edge = params
        .headers(Some(&json!({"priority": -9_007_199_254_740_991_i64})))
        .unwrap();
    assert_eq!(edge[0].1, "-9007199254740991");
}
