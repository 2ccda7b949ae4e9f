//! Schemas derived from representative Rust types: the built-in subset compiles every one of
//! them (nothing of what schemars emits is ignored or refused), and with `full-schema` the subset
//! and the full validator judge the same arguments alike.

use std::collections::BTreeMap;

use presa_schema::{Validator, ValidatorOptions};
use presa_server::{input_schema_for, output_schema_for};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

#[derive(Deserialize, Serialize, JsonSchema)]
struct Inner {
    #[schemars(range(min = 1, max = 10))]
    count: u32,
    label: Option<String>,
}

#[derive(Deserialize, Serialize, JsonSchema)]
enum Color {
    Red,
    Green,
}

#[derive(Deserialize, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Shape {
    Circle { radius: f64 },
    Square { side: f64 },
}

#[derive(Deserialize, Serialize, JsonSchema)]
enum Either {
    Number(i64),
    Text(String),
}

#[derive(Deserialize, Serialize, JsonSchema)]
struct Everything {
    inner: Inner,
    maybe: Option<Inner>,
    list: Vec<u8>,
    map: BTreeMap<String, bool>,
    color: Color,
    shape: Shape,
    either: Either,
    pair: (String, i32),
    #[serde(default)]
    defaulted: i16,
}

#[derive(Deserialize, Serialize, JsonSchema)]
struct Tree {
    name: String,
    children: Vec<Tree>,
}

#[derive(Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Strict {
    only: String,
}

fn valid_everything() -> Value {
    json!({
        "inner": {"count": 3},
        "maybe": null,
        "list": [1, 2, 255],
        "map": {"a": true},
        "color": "Red",
        "shape": {"kind": "circle", "radius": 1.5},
        "either": {"Text": "x"},
        "pair": ["a", -1]
    })
}

/// `base` with `pointer` set to `value`.
fn with(base: &Value, pointer: &str, value: Value) -> Value {
    let mut changed = base.clone();
    *changed.pointer_mut(pointer).expect("the pointer exists") = value;
    changed
}

/// Each type's schema and instances to judge: valid ones, then invalid ones.
fn cases() -> Vec<(&'static str, Value, Vec<Value>, Vec<Value>)> {
    let all = valid_everything();
    vec![
        (
            "Everything",
            Value::Object(input_schema_for::<Everything>()),
            vec![
                all.clone(),
                with(&all, "/maybe", json!({"count": 10, "label": "ten"})),
                with(&all, "/either", json!({"Number": 7})),
                with(&all, "/shape", json!({"kind": "square", "side": 2})),
            ],
            vec![
                with(&all, "/inner/count", json!(0)),
                with(&all, "/inner/count", json!(11)),
                with(&all, "/list/0", json!(256)),
                with(&all, "/color", json!("Blue")),
                with(&all, "/shape", json!({"kind": "circle"})),
                with(&all, "/shape", json!({"kind": "hexagon", "side": 1})),
                with(&all, "/either", json!({"Number": "7"})),
                with(&all, "/either", json!({"Number": 1, "Text": "x"})),
                with(&all, "/pair", json!(["a"])),
                with(&all, "/pair", json!([1, 1])),
                with(&all, "/map", json!({"a": 1})),
                with(&all, "/maybe", json!({"count": "3"})),
                json!({}),
            ],
        ),
        (
            "Tree",
            Value::Object(input_schema_for::<Tree>()),
            vec![json!({"name": "a", "children": [{"name": "b", "children": []}]})],
            vec![
                json!({"name": "a", "children": [{"name": 1, "children": []}]}),
                json!({"name": "a", "children": [{"name": "b"}]}),
            ],
        ),
        (
            "Vec<Tree> (wrapped output)",
            Value::Object(output_schema_for::<Vec<Tree>>().0),
            vec![json!({"result": [{"name": "a", "children": []}]})],
            vec![
                json!({"result": [{"name": "a"}]}),
                json!({"result": {"name": "a", "children": []}}),
            ],
        ),
        (
            "Strict",
            Value::Object(input_schema_for::<Strict>()),
            vec![json!({"only": "x"})],
            vec![json!({"only": "x", "more": 1}), json!({})],
        ),
    ]
}

#[test]
fn the_subset_compiles_and_judges_every_derived_schema() {
    let options = ValidatorOptions::default();
    for (name, schema, valid, invalid) in cases() {
        let subset = options
            .compile_subset(&schema)
            .unwrap_or_else(|e| panic!("{name}: the subset refused {schema}: {e}"));
        for instance in &valid {
            assert!(
                subset.validate(instance).is_ok(),
                "{name}: {instance} should be valid: {:?}",
                subset.validate(instance)
            );
        }
        for instance in &invalid {
            assert!(
                !subset.is_valid(instance),
                "{name}: {instance} should be invalid"
            );
        }
    }
}

#[cfg(feature = "full-schema")]
#[test]
fn the_subset_and_the_full_validator_agree_on_derived_schemas() {
    let options = ValidatorOptions::default();
    for (name, schema, valid, invalid) in cases() {
        let subset = options.compile_subset(&schema).unwrap();
        let full = options.compile_full(&schema).unwrap();
        for instance in valid.iter().chain(&invalid) {
            assert_eq!(
                subset.is_valid(instance),
                full.is_valid(instance),
                "{name}: the backends disagree on {instance}"
            );
            assert_eq!(
                subset.validate_all(instance).is_ok(),
                full.validate_all(instance).is_ok(),
                "{name}: {instance}"
            );
        }
    }
}

#[test]
fn a_tool_schema_the_subset_cannot_evaluate_is_refused_at_build_naming_the_keyword() {
    let schema = json!({
        "type": "object",
        "properties": {"a": {"type": "string"}},
        "unevaluatedProperties": false
    });
    let error = presa_server::Server::builder("strict", "1.0.0")
        .schema_compiler(|schema| {
            let subset = ValidatorOptions::default().compile_subset(schema)?;
            Ok(Box::new(subset) as Box<dyn Validator>)
        })
        .tool(
            presa_server::Tool::new("t", schema.as_object().cloned().unwrap()),
            |_: Value, _cx: presa_server::Context| async { "" },
        )
        .build()
        .unwrap_err();
    let message = presa_core::ErrorReport(&error).to_string();
    assert!(message.contains("unevaluatedProperties"), "{message}");
    assert!(message.contains("full-schema"), "{message}");
}
