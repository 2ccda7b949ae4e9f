//! Hostile input: deep nesting and catastrophic patterns must end promptly with an error, never
//! hang or overflow the stack. (No timing assertions: a hang would time the test out.)

use presa_schema::{ErrorKind, SchemaError, Validator, ValidatorOptions};
use serde_json::{Map, Value, json};

/// `levels` arrays nested inside each other, built without recursion.
fn deep_array(levels: usize) -> Value {
    let mut value = json!(1);
    for _ in 0..levels {
        value = Value::Array(vec![value]);
    }
    value
}

/// `{"items": {"items": ...}}`, `levels` deep.
fn deep_items_schema(levels: usize) -> Value {
    let mut value = json!(true);
    for _ in 0..levels {
        let mut map = Map::new();
        map.insert("items".into(), value);
        value = Value::Object(map);
    }
    value
}

/// Drops a value iteratively: serde_json's own drop recurses once per level.
fn dismantle(value: Value) {
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        match value {
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => stack.extend(map.into_iter().map(|(_, v)| v)),
            _ => {}
        }
    }
}

/// A way to compile a schema.
type Compile = fn(&ValidatorOptions, &Value) -> Result<Box<dyn Validator>, SchemaError>;

/// Every way this build can compile a schema.
fn compilers() -> Vec<(&'static str, Compile)> {
    #[cfg_attr(not(feature = "full"), allow(unused_mut))]
    let mut all: Vec<(&'static str, Compile)> = vec![
        ("compile", |o, s| o.compile(s)),
        ("subset", |o, s| Ok(Box::new(o.compile_subset(s)?))),
    ];
    #[cfg(feature = "full")]
    all.push(("full", |o, s| Ok(Box::new(o.compile_full(s)?))));
    all
}

#[test]
fn serde_json_refuses_deep_text() {
    let text = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    assert!(serde_json::from_str::<Value>(&text).is_err());
}

#[test]
fn deep_schemas_fail_to_compile() {
    let schema = deep_items_schema(100_000);
    for (name, compile) in compilers() {
        let error = compile(&ValidatorOptions::default(), &schema).unwrap_err();
        assert_eq!(error, SchemaError::TooDeep { limit: 128 }, "{name}");
        assert_eq!(error.to_string(), "schema nests deeper than 128 levels");
    }
    // A deep `const` counts too.
    let mut with_const = Map::new();
    with_const.insert("const".into(), deep_array(1_000));
    let with_const = Value::Object(with_const);
    for (name, compile) in compilers() {
        assert!(
            matches!(
                compile(&ValidatorOptions::default(), &with_const),
                Err(SchemaError::TooDeep { .. })
            ),
            "{name}"
        );
    }
    dismantle(schema);
    dismantle(with_const);
}

#[test]
fn schemas_at_the_depth_limit_compile() {
    // Each `items` object is one level: 128 is the default limit, 129 is past it.
    let schema = deep_items_schema(128);
    for (name, compile) in compilers() {
        let validator = compile(&ValidatorOptions::default(), &schema)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(validator.is_valid(&deep_array(100)), "{name}");
        assert_eq!(
            compile(&ValidatorOptions::default(), &deep_items_schema(129)).unwrap_err(),
            SchemaError::TooDeep { limit: 128 },
            "{name}"
        );
    }
}

#[test]
fn deep_instances_are_rejected() {
    let instance = deep_array(100_000);
    let pointer = "/0".repeat(128);
    let schemas = [
        json!({"type": "array"}),
        json!({"items": {"items": true}}),
        json!({"uniqueItems": true}),
        json!({"const": [[1]]}),
        json!({"enum": [[[1]], 2]}),
        json!(true),
    ];
    for schema in &schemas {
        for (name, compile) in compilers() {
            let validator = compile(&ValidatorOptions::default(), schema).unwrap();
            let error = validator.validate(&instance).unwrap_err();
            assert_eq!(
                error.kind(),
                &ErrorKind::TooDeep { limit: 128 },
                "{name} {schema}"
            );
            assert_eq!(error.pointer(), pointer, "{name} {schema}");
            assert_eq!(error.message(), "value nests deeper than 128 levels");
            assert_eq!(validator.validate_all(&instance).unwrap_err().len(), 1);
            assert!(!validator.is_valid(&instance));
        }
    }
    dismantle(instance);
}

#[test]
fn deep_objects_are_rejected() {
    let mut instance = json!(null);
    for _ in 0..50_000 {
        let mut map = Map::new();
        map.insert("a/b".into(), instance);
        instance = Value::Object(map);
    }
    let validator = presa_schema::compile(&json!({"type": "object"})).unwrap();
    let error = validator.validate(&instance).unwrap_err();
    assert_eq!(error.pointer(), "/a~1b".repeat(128));
    dismantle(instance);
}

#[test]
fn recursive_schemas_stop_at_the_instance_limit() {
    // `$ref: "#"` recursion follows the instance as deep as it goes.
    let schema = json!({"type": ["array", "integer"], "items": {"$ref": "#"}});
    for (name, compile) in compilers() {
        let validator = compile(&ValidatorOptions::default(), &schema).unwrap();
        assert!(validator.is_valid(&deep_array(127)), "{name}");
        let instance = deep_array(100_000);
        let error = validator.validate(&instance).unwrap_err();
        assert_eq!(error.kind(), &ErrorKind::TooDeep { limit: 128 }, "{name}");
        dismantle(instance);
    }
}

/// `{"allOf": [{"allOf": [... {"items": {"$ref": "#/$defs/a"}}]}]}`, `levels` deep, as `a`.
fn nested_recursion(levels: usize) -> Value {
    let mut value = json!({"type": ["array", "integer"], "items": {"$ref": "#/$defs/a"}});
    for _ in 0..levels {
        value = json!({"allOf": [value]});
    }
    json!({"$defs": {"a": value}, "$ref": "#/$defs/a"})
}

#[test]
fn reference_nesting_is_bounded() {
    // Each level of the value costs 52 schema levels: past the reference depth limit long
    // before the instance limit, the value is rejected (and the stack is safe).
    let validator = presa_schema::compile(&nested_recursion(50)).unwrap();
    assert!(validator.is_valid(&deep_array(3)));
    let error = validator.validate(&deep_array(100)).unwrap_err();
    assert_eq!(error.kind(), &ErrorKind::ReferenceDepth { limit: 512 });
    assert_eq!(
        error.message(),
        "schema references nest deeper than 512 levels"
    );
    assert!(!validator.is_valid(&deep_array(100)));
    assert_eq!(
        validator.validate_all(&deep_array(100)).unwrap_err().len(),
        1
    );
    // The limit is configurable, and a chain that cannot fit fails to compile.
    let mut options = ValidatorOptions::default();
    options.max_reference_depth(40);
    assert_eq!(
        options.compile_subset(&nested_recursion(50)).unwrap_err(),
        SchemaError::ReferenceDepth {
            pointer: "/$defs/a".into(),
            limit: 40
        }
    );
    options.max_reference_depth(100);
    let validator = options.compile_subset(&nested_recursion(30)).unwrap();
    assert!(validator.is_valid(&deep_array(2)));
    assert_eq!(
        validator.validate(&deep_array(5)).unwrap_err().kind(),
        &ErrorKind::ReferenceDepth { limit: 100 }
    );
}

#[test]
fn reference_fan_out_is_bounded() {
    // Both branches recurse, and the first fails only at the bottom: 2^depth steps.
    let schema = json!({
        "anyOf": [
            {"type": "array", "items": {"$ref": "#"}, "contains": {"type": "null"}},
            {"type": "array", "items": {"$ref": "#"}},
            {"type": "string"},
        ],
    });
    let validator = presa_schema::compile(&schema).unwrap();
    assert!(validator.is_valid(&json!([[["s"]]])));
    let instance = deep_array(100);
    let error = validator.validate(&instance).unwrap_err();
    assert_eq!(
        error.kind(),
        &ErrorKind::ReferenceSteps { limit: 1_000_000 }
    );
    assert!(!validator.is_valid(&instance));
    let mut options = ValidatorOptions::default();
    options.max_reference_steps(100);
    let error = options
        .compile_subset(&schema)
        .unwrap()
        .validate(&instance)
        .unwrap_err();
    // Depth first: the 100 steps run out at the bottom of the first path.
    assert_eq!(error.pointer(), "/0".repeat(100));
    assert_eq!(
        error.message(),
        "value needs more than 100 schema reference steps"
    );
}

#[test]
fn many_references_compile_to_one_schema() {
    // 100,000 references to one definition, and a definition referring to itself through
    // 10,000 `allOf` entries: each target compiles once.
    let refs: Vec<Value> = (0..100_000)
        .map(|_| json!({"$ref": "#/$defs/leaf"}))
        .collect();
    let schema = json!({
        "$defs": {
            "leaf": {"type": "integer"},
            "wide": {"items": {"allOf": vec![json!({"$ref": "#/$defs/wide"}); 10_000]}},
        },
        "prefixItems": refs,
        "properties": {"w": {"$ref": "#/$defs/wide"}},
    });
    let validator = presa_schema::compile(&schema).unwrap();
    assert!(validator.is_valid(&json!([1, 2, 3])));
    assert_eq!(
        validator
            .validate(&json!([1, "x"]))
            .unwrap_err()
            .to_string(),
        "at /1: expected integer, got string"
    );
    // Validating fans out 10,000-fold per level of the value: the step limit ends it.
    assert!(validator.is_valid(&json!({"w": [[]]})));
    assert_eq!(
        validator
            .validate(&json!({"w": [[[]]]}))
            .unwrap_err()
            .kind(),
        &ErrorKind::ReferenceSteps { limit: 1_000_000 }
    );
}

#[test]
fn reference_cycles_fail_to_compile() {
    for schema in [
        json!({"$ref": "#"}),
        json!({"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"anyOf": [{"$ref": "#/$defs/a"}]}},
               "items": {"$ref": "#/$defs/a"}}),
        json!({"$defs": {"a": {"$anchor": "a", "not": {"$ref": "#a"}}}, "$ref": "#a"}),
    ] {
        for (name, compile) in compilers().into_iter().take(2) {
            assert!(
                matches!(
                    compile(&ValidatorOptions::default(), &schema),
                    Err(SchemaError::ReferenceCycle { .. })
                ),
                "{name} {schema}"
            );
        }
    }
}

#[test]
fn instance_depth_is_configurable() {
    let mut options = ValidatorOptions::default();
    options.max_instance_depth(3);
    for (name, compile) in compilers() {
        let validator = compile(&options, &json!(true)).unwrap();
        assert!(validator.is_valid(&deep_array(3)), "{name}");
        assert_eq!(
            validator.validate(&deep_array(4)).unwrap_err().pointer(),
            "/0/0/0",
            "{name}"
        );
    }
}

const CATASTROPHIC_INPUT: &str = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!";

#[test]
fn nested_quantifiers_do_not_hang() {
    for (name, compile) in compilers() {
        let validator =
            compile(&ValidatorOptions::default(), &json!({"pattern": "^(a+)+$"})).unwrap();
        let error = validator.validate(&json!(CATASTROPHIC_INPUT)).unwrap_err();
        assert_eq!(
            error.to_string(),
            r#"at /: string does not match pattern "^(a+)+$""#,
            "{name}"
        );
        assert!(validator.is_valid(&json!("aaaa")), "{name}");
    }
}

#[test]
fn backtracking_patterns_hit_the_limit() {
    // The lookahead forces fancy-regex's backtracking engine.
    for pattern in ["^((?=a)a+)+$", "^(?:(a)\\1?)+$", "^((a+)(?!b))+$"] {
        for (name, compile) in compilers() {
            let schema = json!({"properties": {"s": {"pattern": pattern}}});
            let validator = compile(&ValidatorOptions::default(), &schema).unwrap();
            let error = validator
                .validate(&json!({"s": CATASTROPHIC_INPUT}))
                .unwrap_err();
            assert_eq!(error.pointer(), "/s", "{name} {pattern}");
            assert_eq!(
                error.kind(),
                &ErrorKind::PatternLimit {
                    pattern: pattern.to_owned()
                },
                "{name} {pattern}"
            );
            assert!(!validator.is_valid(&json!({"s": CATASTROPHIC_INPUT})));
            assert!(validator.is_valid(&json!({"s": "aaa"})), "{name} {pattern}");
        }
    }
}

#[test]
fn deeply_nested_patterns_fail_to_compile() {
    let pattern = format!("{}a{}", "(".repeat(10_000), ")".repeat(10_000));
    let schema = json!({"pattern": pattern});
    for (name, compile) in compilers() {
        let error = compile(&ValidatorOptions::default(), &schema).unwrap_err();
        assert!(
            matches!(
                error,
                SchemaError::InvalidPattern { .. } | SchemaError::Invalid { .. }
            ),
            "{name}: {error:?}"
        );
    }
}

#[test]
fn long_unique_arrays_stay_fast() {
    let items: Vec<Value> = (0..50_000)
        .map(|i| json!({"id": i, "tags": ["x", i % 7]}))
        .collect();
    let mut instance = Value::Array(items);
    for (name, compile) in compilers() {
        let validator =
            compile(&ValidatorOptions::default(), &json!({"uniqueItems": true})).unwrap();
        assert!(validator.is_valid(&instance), "{name}");
    }
    instance
        .as_array_mut()
        .unwrap()
        .push(json!({"tags": ["x", 5.0], "id": 49_999}));
    let validator = presa_schema::compile(&json!({"uniqueItems": true})).unwrap();
    assert_eq!(
        validator.validate(&instance).unwrap_err().message(),
        "expected unique items, items 49999 and 50000 are equal"
    );
}

#[test]
fn extreme_numbers() {
    for (name, compile) in compilers() {
        let validator =
            compile(&ValidatorOptions::default(), &json!({"multipleOf": 1e-300})).unwrap();
        assert!(validator.is_valid(&json!(1e300)), "{name}");
        let validator =
            compile(&ValidatorOptions::default(), &json!({"multipleOf": 1e300})).unwrap();
        assert!(!validator.is_valid(&json!(1e-300)), "{name}");
        let validator =
            compile(&ValidatorOptions::default(), &json!({"maxLength": 1e300})).unwrap();
        assert!(validator.is_valid(&json!("short")), "{name}");
    }
}
