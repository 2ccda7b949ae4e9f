//! Schema JSON to compiled [`Schema`]s: checks every keyword's value, compiles patterns once,
//! orders keywords for evaluation, and compiles each `$ref` target once, shared by index.
//!
//! A document compiles in three steps: [`scan`] refuses what the subset does not evaluate and
//! finds every `$ref` target; the root and then each target are compiled, every location
//! exactly once (a target met inside another schema becomes a reference to its shared copy);
//! [`crate::graph`] checks how the references connect. Unknown keywords are skipped; the
//! keywords compiled are the table in [`crate::keywords`].

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::error::SchemaError;
use crate::keywords::{KEYWORDS, Site, count, invalid};
use crate::node::{Keyword, Schema};
use crate::pointer::{display, join};
use crate::regex::Pattern;
use crate::resolve::{Resolver, Scan, is_anchor_name, root_id, scan};

/// A compiled document: the root, and the schemas its `$ref`s lead to.
#[derive(Debug)]
pub(crate) struct Compiled {
    pub(crate) root: Schema,
    pub(crate) shared: Box<[Schema]>,
}

/// Compiles `doc`, whose depth the caller has bounded. `max_reference_depth` bounds the schema
/// levels a chain of in-place references may add up to.
pub(crate) fn compile(
    doc: &Value,
    backtrack_limit: usize,
    max_reference_depth: usize,
) -> Result<Compiled, SchemaError> {
    let Scan {
        resolver,
        targets: pointers,
    } = scan(doc)?;
    let compiler = Compiler {
        backtrack_limit,
        doc,
        targets: pointers
            .iter()
            .enumerate()
            .map(|(index, pointer)| (pointer.clone(), index))
            .collect(),
        resolver,
    };
    let root = compiler.schema(doc, "", None, 1)?;
    let mut shared = Vec::with_capacity(pointers.len());
    for (index, pointer) in pointers.iter().enumerate() {
        // The scan resolved the pointer, so it exists.
        let value = doc.pointer(pointer).ok_or_else(|| SchemaError::Reference {
            message: format!("pointer \"{pointer}\" does not exist"),
        })?;
        shared.push(compiler.schema(value, pointer, Some(index), 1)?);
    }
    crate::graph::link(root, shared, &pointers, max_reference_depth)
}

/// Compiles the locations of one document.
#[derive(Debug)]
pub(crate) struct Compiler<'d> {
    backtrack_limit: usize,
    pub(crate) doc: &'d Value,
    pub(crate) resolver: Resolver,
    /// The pointer of every `$ref` target, and its index among the shared schemas.
    pub(crate) targets: HashMap<String, usize>,
}

/// What one schema's keywords need from their siblings.
#[derive(Debug, Default)]
pub(crate) struct Siblings {
    /// The `patternProperties` patterns, for `additionalProperties`.
    pub(crate) patterns: Vec<Arc<Pattern>>,
}

impl Compiler<'_> {
    /// Compiles `value`, found at schema location `at` (an RFC 6901 pointer, the root `""`)
    /// and nesting `level` of the tree being compiled (its root is 1); `shared` is set when
    /// compiling the shared copy of a `$ref` target.
    pub(crate) fn schema(
        &self,
        value: &Value,
        at: &str,
        shared: Option<usize>,
        level: usize,
    ) -> Result<Schema, SchemaError> {
        if !self.targets.is_empty()
            && let Some(&index) = self.targets.get(at)
            && shared != Some(index)
        {
            return Ok(Schema::Node(Box::new([Keyword::Ref { index, level }])));
        }
        let object = match value {
            Value::Bool(true) => return Ok(Schema::Any),
            Value::Bool(false) => return Ok(Schema::Never),
            Value::Object(object) => object,
            _ => {
                return Err(SchemaError::NotASchema {
                    pointer: display(at),
                });
            }
        };
        self.check_others(object, at, level)?;
        let mut keywords = Vec::new();
        let mut siblings = Siblings::default();
        for &(name, compile) in KEYWORDS {
            if let Some(value) = object.get(name) {
                let here = join(at, name);
                let site = Site {
                    value,
                    object,
                    parent: at,
                    at: &here,
                    level,
                };
                if let Some(keyword) = compile(self, site, &mut siblings)? {
                    keywords.push(keyword);
                }
            }
        }
        Ok(if keywords.is_empty() {
            Schema::Any
        } else {
            Schema::Node(keywords.into_boxed_slice())
        })
    }

    /// Checks the keywords that compile to nothing here: containers, identifiers,
    /// annotations, and `then`/`else`/`minContains`/`maxContains` without the keyword they
    /// modify.
    fn check_others(
        &self,
        object: &Map<String, Value>,
        at: &str,
        level: usize,
    ) -> Result<(), SchemaError> {
        for (name, value) in object {
            let here = || join(at, name);
            match name.as_str() {
                name if self.resolver.ignores(name) => {}
                "$defs" | "definitions" => {
                    let Value::Object(definitions) = value else {
                        return Err(invalid(&here(), "an object of schemas"));
                    };
                    let here = here();
                    for (key, schema) in definitions {
                        // Applied only where referenced: compiled to check it, then dropped.
                        self.schema(schema, &join(&here, key), None, level + 1)?;
                    }
                }
                "then" | "else" if !object.contains_key("if") => {
                    self.schema(value, &here(), None, level + 1)?;
                }
                "minContains" | "maxContains" if !object.contains_key("contains") => {
                    count(value, &here())?;
                }
                "$anchor" => {
                    const EXPECTED: &str = "an anchor name (a letter or _, then letters, digits, \
                                            -, _ or .)";
                    let name = value
                        .as_str()
                        .filter(|name| is_anchor_name(name))
                        .ok_or_else(|| invalid(&here(), EXPECTED))?;
                    if self.resolver.anchor(name) != Some(at) {
                        return Err(invalid(
                            &here(),
                            "an anchor name no other schema of the document declares",
                        ));
                    }
                }
                // Below the root, the scan has refused `$id`.
                "$id" if value.as_str().and_then(root_id).is_none() => {
                    return Err(invalid(&here(), "a URI reference without a fragment"));
                }
                "$schema" if !value.is_string() => return Err(invalid(&here(), "a URI")),
                // Annotations: nothing to evaluate, but typed as the meta-schema types them.
                "contentSchema" => {
                    self.schema(value, &here(), None, level + 1)?;
                }
                "title" | "description" | "$comment" | "format" | "contentEncoding"
                | "contentMediaType"
                    if !value.is_string() =>
                {
                    return Err(invalid(&here(), "a string"));
                }
                "deprecated" | "readOnly" | "writeOnly" if !value.is_boolean() => {
                    return Err(invalid(&here(), "a boolean"));
                }
                "examples" if !value.is_array() => return Err(invalid(&here(), "an array")),
                _ => {}
            }
        }
        Ok(())
    }

    /// A list of schemas (`allOf`, `prefixItems`, ...), each compiled at `level`.
    pub(crate) fn list(
        &self,
        value: &Value,
        at: &str,
        level: usize,
    ) -> Result<Vec<Schema>, SchemaError> {
        match value {
            Value::Array(schemas) if !schemas.is_empty() => schemas
                .iter()
                .enumerate()
                .map(|(index, schema)| {
                    self.schema(schema, &join(at, &index.to_string()), None, level)
                })
                .collect(),
            _ => Err(invalid(at, "a non-empty array of schemas")),
        }
    }

    /// An object of schemas (`properties`, `dependentSchemas`), each compiled at `level`;
    /// `Any` ones are left out.
    pub(crate) fn map(
        &self,
        value: &Value,
        at: &str,
        level: usize,
    ) -> Result<Vec<(String, Schema)>, SchemaError> {
        let Value::Object(map) = value else {
            return Err(invalid(at, "an object of schemas"));
        };
        let mut compiled = Vec::with_capacity(map.len());
        for (key, schema) in map {
            match self.schema(schema, &join(at, key), None, level)? {
                Schema::Any => {}
                schema => compiled.push((key.clone(), schema)),
            }
        }
        Ok(compiled)
    }

    pub(crate) fn pattern(&self, source: &str, at: &str) -> Result<Pattern, SchemaError> {
        Pattern::new(source, self.backtrack_limit).map_err(|reason| SchemaError::InvalidPattern {
            pointer: display(at),
            pattern: source.to_owned(),
            reason,
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use crate::{SubsetValidator, Validator, ValidatorOptions};
    use serde_json::json;

    fn root(schema: Value) -> Result<Schema, SchemaError> {
        compile(&schema, 1000, 1024).map(|compiled| compiled.root)
    }

    /// Each schema fails to compile with an invalid keyword at the pointer beside it.
    #[track_caller]
    fn assert_invalid_at<const N: usize>(cases: [(Value, &str); N]) {
        for (schema, pointer) in cases {
            match root(schema.clone()) {
                Err(SchemaError::InvalidKeyword { pointer: p, .. }) => {
                    assert_eq!(p, pointer, "{schema}")
                }
                other => panic!("{schema}: {other:?}"),
            }
        }
    }

    fn subset(schema: Value) -> SubsetValidator {
        SubsetValidator::new(&schema).unwrap_or_else(|e| panic!("{schema}: {e}"))
    }

    fn first(validator: &SubsetValidator, instance: Value) -> String {
        validator
            .validate(&instance)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default()
    }

    #[test]
    fn bad_keyword_values_fail() {
        let bad = [
            (json!({"minLength": -1}), "/minLength"),
            (json!({"maxItems": 1.5}), "/maxItems"),
            (json!({"type": "float"}), "/type"),
            (json!({"type": []}), "/type"),
            (json!({"type": ["string", "string"]}), "/type"),
            (json!({"required": ["a", "a"]}), "/required"),
            (json!({"required": "a"}), "/required"),
            (json!({"multipleOf": 0}), "/multipleOf"),
            (json!({"multipleOf": -2}), "/multipleOf"),
            (json!({"minimum": "1"}), "/minimum"),
            (json!({"enum": 1}), "/enum"),
            (json!({"uniqueItems": 1}), "/uniqueItems"),
            (
                json!({"properties": {"a": {"maxLength": "x"}}}),
                "/properties/a/maxLength",
            ),
            (json!({"allOf": []}), "/allOf"),
            (json!({"anyOf": {}}), "/anyOf"),
            (json!({"prefixItems": []}), "/prefixItems"),
            (json!({"contains": {}, "minContains": -1}), "/minContains"),
            (json!({"maxContains": "1"}), "/maxContains"),
            (
                json!({"dependentRequired": {"a": "b"}}),
                "/dependentRequired/a",
            ),
            (json!({"dependentSchemas": []}), "/dependentSchemas"),
            (json!({"$defs": [true]}), "/$defs"),
            (
                json!({"$defs": {"a": {"minimum": "0"}}}),
                "/$defs/a/minimum",
            ),
            (
                json!({"definitions": {"a": {"maxItems": -1}}}),
                "/definitions/a/maxItems",
            ),
            (json!({"then": {"type": 1}}), "/then/type"),
            (json!({"$ref": 5}), "/$ref"),
            (json!({"$anchor": "1x"}), "/$anchor"),
            (json!({"$id": 5}), "/$id"),
            (json!({"$id": "http://x/y#frag"}), "/$id"),
            (json!({"$schema": 2020}), "/$schema"),
            (
                json!({"$defs": {"a": {"$anchor": "x"}, "b": {"$anchor": "x"}}}),
                "/$defs/b/$anchor",
            ),
        ];
        assert_invalid_at(bad);
    }

    /// Found by the `schema` fuzz target: the subset compiled `"contentSchema": {"type":
    /// "obje"}`, which `full` (the meta-schema) refuses; so were `"title": 5` and the like.
    #[test]
    fn annotations_are_typed_as_the_meta_schema_types_them() {
        let bad = [
            (json!({"title": 5}), "/title"),
            (json!({"description": []}), "/description"),
            (json!({"$comment": null}), "/$comment"),
            (json!({"format": 1}), "/format"),
            (json!({"contentEncoding": true}), "/contentEncoding"),
            (json!({"contentMediaType": {}}), "/contentMediaType"),
            (json!({"deprecated": "yes"}), "/deprecated"),
            (json!({"readOnly": 1}), "/readOnly"),
            (json!({"writeOnly": "no"}), "/writeOnly"),
            (json!({"examples": 1}), "/examples"),
            (
                json!({"contentSchema": {"type": "obje"}}),
                "/contentSchema/type",
            ),
            (
                json!({"properties": {"a": {"contentSchema": {"minLength": -1}}}}),
                "/properties/a/contentSchema/minLength",
            ),
        ];
        assert_invalid_at(bad);
        assert_eq!(
            root(json!({"contentSchema": 1})).unwrap_err(),
            SchemaError::NotASchema {
                pointer: "/contentSchema".into()
            }
        );
        assert_eq!(
            root(json!({"contentSchema": {"$ref": "#/$defs/none"}})).unwrap_err(),
            SchemaError::Reference {
                message: r#"pointer "/$defs/none" does not exist"#.into()
            }
        );
        // Never evaluated, but a schema: it may hold anchors and be a `$ref` target.
        let validator = subset(json!({
            "contentMediaType": "application/json",
            "contentSchema": {"$anchor": "doc", "type": "object", "required": ["a"]},
            "properties": {"inner": {"$ref": "#doc"}, "again": {"$ref": "#/contentSchema"}},
        }));
        assert_eq!(first(&validator, json!("{}")), "");
        assert_eq!(
            first(&validator, json!({"inner": {}})),
            r#"at /inner: missing required property "a""#
        );
        assert_eq!(
            first(&validator, json!({"again": {"a": 1}, "inner": []})),
            "at /inner: expected object, got array"
        );
    }

    #[test]
    fn non_schemas_and_bad_patterns_fail() {
        assert_eq!(
            root(json!({"items": [true]})).unwrap_err(),
            SchemaError::NotASchema {
                pointer: "/items".into()
            }
        );
        assert_eq!(
            root(json!({"$defs": {"a": 1}})).unwrap_err(),
            SchemaError::NotASchema {
                pointer: "/$defs/a".into()
            }
        );
        assert_eq!(
            root(json!(1)).unwrap_err(),
            SchemaError::NotASchema {
                pointer: "/".into()
            }
        );
        assert!(matches!(
            root(json!({"properties": {"a/b": {"pattern": "("}}})),
            Err(SchemaError::InvalidPattern { pointer, .. }) if pointer == "/properties/a~1b/pattern"
        ));
        assert!(matches!(
            root(json!({"patternProperties": {"(": true}})),
            Err(SchemaError::InvalidPattern { pointer, .. }) if pointer == "/patternProperties/("
        ));
    }

    #[test]
    fn trivial_schemas_compile_to_any() {
        assert!(matches!(root(json!({})).unwrap(), Schema::Any));
        assert!(matches!(
            root(json!({
                "title": "x", "items": true, "uniqueItems": false, "x-extra": 1,
                "allOf": [true, {}], "anyOf": [{"type": "null"}, true], "not": false,
                "if": {"type": "null"}, "properties": {"a": {}}, "$defs": {"d": false},
                "contains": false, "minContains": 0, "propertyNames": true,
            }))
            .unwrap(),
            Schema::Any
        ));
        assert!(matches!(root(json!(false)).unwrap(), Schema::Never));
        assert!(matches!(
            root(json!({"maxLength": 2.0})).unwrap(),
            Schema::Node(_)
        ));
        assert!(matches!(root(json!({"not": {}})).unwrap(), Schema::Node(_)));
        assert!(matches!(
            root(json!({"oneOf": [true]})).unwrap(),
            Schema::Node(_)
        ));
    }

    #[test]
    fn unsupported_wins_over_other_errors() {
        let schema = json!({"minLength": -1, "properties": {"a": {"unevaluatedItems": false}}});
        assert_eq!(
            root(schema).unwrap_err(),
            SchemaError::Unsupported {
                pointer: "/properties/a/unevaluatedItems".into(),
                keyword: "unevaluatedItems".into(),
            }
        );
        let error = root(json!({"$dynamicRef": "#x"})).unwrap_err();
        assert_eq!(
            error.to_string(),
            "keyword \"$dynamicRef\" at /$dynamicRef is not supported by the built-in subset; \
             enable presa-schema's `full` feature (`full-schema` in presa-server and the \
             `presa` facade)"
        );
        for (schema, start) in [
            (
                json!({"$ref": "http://example.com/a.json"}),
                "\"$ref\" at /$ref leads to",
            ),
            (
                json!({"not": {"$id": "b.json"}}),
                "\"$id\" at /not/$id starts",
            ),
            (
                json!({"$schema": "http://json-schema.org/draft-04/schema#"}),
                "\"$schema\" at /$schema names",
            ),
        ] {
            let message = root(schema.clone()).unwrap_err().to_string();
            assert!(message.starts_with(start), "{schema}: {message}");
            assert!(message.ends_with("`presa` facade)"), "{message}");
        }
    }

    #[test]
    fn references_resolve_and_compile_once() {
        let schema = json!({
            "$id": "https://example.com/root.json",
            "$defs": {
                "positive": {"type": "integer", "exclusiveMinimum": 0},
                "named": {"$anchor": "name", "type": "string", "minLength": 1},
                "unused": {"type": "null"},
            },
            "properties": {
                "count": {"$ref": "#/$defs/positive"},
                "counts": {"items": {"$ref": "https://example.com/root.json#/$defs/positive"}},
                "name": {"$ref": "#name", "maxLength": 3},
                "alias": {"$ref": "root.json#/properties/name"},
            },
        });
        let compiled = compile(&schema, 1000, 1024).unwrap();
        // `positive`, `named` and `properties/name` once each, however often referenced;
        // `unused` was only checked.
        assert_eq!(compiled.shared.len(), 3);
        let validator = subset(schema);
        assert_eq!(first(&validator, json!({"count": 1, "counts": [2, 3]})), "");
        assert_eq!(
            first(&validator, json!({"counts": [2, 0]})),
            "at /counts/1: expected more than 0, got 0"
        );
        assert_eq!(
            first(&validator, json!({"name": ""})),
            "at /name: expected at least 1 character, got 0"
        );
        assert_eq!(
            first(&validator, json!({"name": "abcd"})),
            "at /name: expected at most 3 characters, got 4"
        );
        assert_eq!(
            first(&validator, json!({"alias": "abcd"})),
            "at /alias: expected at most 3 characters, got 4"
        );
    }

    #[test]
    fn recursive_types_work() {
        // What schemars derives for `struct Node { value: i32, children: Vec<Node>, next:
        // Option<Box<Node>> }`.
        let schema = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": "Node",
            "$ref": "#/$defs/Node",
            "$defs": {
                "Node": {
                    "type": "object",
                    "properties": {
                        "value": {"type": "integer", "format": "int32"},
                        "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
                        "next": {"anyOf": [{"$ref": "#/$defs/Node"}, {"type": "null"}]},
                    },
                    "required": ["value", "children"],
                    "additionalProperties": false,
                },
            },
        });
        let validator = subset(schema);
        let leaf = json!({"value": 1, "children": []});
        assert_eq!(
            first(
                &validator,
                json!({"value": 0, "children": [leaf, {"value": 2, "children": [], "next": leaf}]})
            ),
            ""
        );
        assert_eq!(
            first(
                &validator,
                json!({"value": 0, "children": [{"value": 1, "children": [{"value": "x", "children": []}]}]})
            ),
            "at /children/0/children/0/value: expected integer, got string"
        );
        assert_eq!(
            first(
                &validator,
                json!({"value": 0, "children": [], "next": {"value": 1}})
            ),
            "at /next: value matches none of the 2 schemas of anyOf"
        );
        // The root `$ref: "#"` form.
        let tree = subset(json!({"type": ["array", "integer"], "items": {"$ref": "#"}}));
        assert_eq!(first(&tree, json!([1, [2, [3, []]]])), "");
        assert_eq!(
            first(&tree, json!([1, [2, ["x"]]])),
            "at /1/1/0: expected array or integer, got string"
        );
    }

    #[test]
    fn in_place_cycles_are_refused() {
        let cycles = [
            (json!({"$ref": "#"}), "/"),
            (json!({"allOf": [{"$ref": "#"}]}), "/"),
            (
                json!({
                    "$defs": {
                        "a": {"anyOf": [{"$ref": "#/$defs/b"}, {"type": "null"}]},
                        "b": {"not": {"if": {"$ref": "#/$defs/a"}, "then": false}},
                    },
                    "properties": {"x": {"$ref": "#/$defs/a"}},
                }),
                "/$defs/b",
            ),
            (
                json!({"$defs": {"a": {"dependentSchemas": {"k": {"$ref": "#/$defs/a"}}}},
                       "$ref": "#/$defs/a"}),
                "/$defs/a",
            ),
            (
                json!({"$defs": {"a": {"$anchor": "self", "oneOf": [{"$ref": "#self"}]}},
                       "items": {"$ref": "#self"}}),
                "/$defs/a",
            ),
        ];
        for (schema, pointer) in cycles {
            assert_eq!(
                root(schema.clone()).unwrap_err(),
                SchemaError::ReferenceCycle {
                    pointer: pointer.into()
                },
                "{schema}"
            );
        }
        assert_eq!(
            root(json!({"$ref": "#"})).unwrap_err().to_string(),
            "reference cycle at /: its $ref chain leads back to it without descending into \
             the value"
        );
        // Through instance-descending keywords, recursion is fine; so is a cycle nothing uses.
        for schema in [
            json!({"properties": {"a": {"$ref": "#"}}}),
            json!({"additionalProperties": {"$ref": "#"}}),
            json!({"patternProperties": {"x": {"$ref": "#"}}}),
            json!({"prefixItems": [{"$ref": "#"}]}),
            json!({"contains": {"$ref": "#"}}),
            json!({"propertyNames": {"$ref": "#"}}),
            json!({"$defs": {"loop": {"$ref": "#/$defs/loop"}}}),
        ] {
            assert!(root(schema.clone()).is_ok(), "{schema}");
        }
        let names = subset(json!({"propertyNames": {"$ref": "#"}, "maxLength": 2}));
        assert_eq!(
            first(&names, json!({"abc": 1})),
            r#"at /: property name "abc" is not valid: expected at most 2 characters, got 3"#
        );
    }

    #[test]
    fn fan_out_compiles_each_target_once() {
        // 40 levels, each referring to the next 8 times: 8^40 paths, 40 compiled schemas.
        let mut defs = Map::new();
        for level in 0..40 {
            let next = json!({"$ref": format!("#/$defs/d{}", level + 1)});
            defs.insert(format!("d{level}"), json!({"allOf": vec![next; 8]}));
        }
        defs.insert("d40".into(), json!({"type": "integer"}));
        let schema = json!({"$defs": defs, "$ref": "#/$defs/d0"});
        let mut options = ValidatorOptions::default();
        options.max_reference_steps(10_000);
        let compiled = compile(&schema, 1000, 1024).unwrap();
        assert_eq!(compiled.shared.len(), 41);
        // Validating it would take 8^40 steps: the step limit rejects the value instead.
        let validator = options.compile_subset(&schema).unwrap();
        let error = validator.validate(&json!(1)).unwrap_err();
        assert_eq!(
            error.to_string(),
            "at /: value needs more than 10000 schema reference steps"
        );
        assert!(!validator.is_valid(&json!(1)));
        // A failing leaf ends each branch early.
        assert_eq!(
            first(&validator, json!("x")),
            "at /: expected integer, got string"
        );
        // Under `not` the limit still rejects: it must not read as "does not match".
        let negated = json!({"$defs": schema["$defs"].clone(), "not": {"$ref": "#/$defs/d0"}});
        let validator = options.compile_subset(&negated).unwrap();
        assert!(!validator.is_valid(&json!(1)));
        assert!(validator.is_valid(&json!("x")));
        assert_eq!(
            validator
                .validate_all(&json!(1))
                .unwrap_err()
                .first()
                .kind(),
            &crate::ErrorKind::ReferenceSteps { limit: 10_000 }
        );
    }

    #[test]
    fn long_in_place_chains_are_refused() {
        let mut defs = Map::new();
        for level in 0..2000 {
            defs.insert(
                format!("d{level}"),
                json!({"$ref": format!("#/$defs/d{}", level + 1)}),
            );
        }
        defs.insert("d2000".into(), json!({"type": "integer"}));
        let schema = json!({"$defs": defs, "$ref": "#/$defs/d0"});
        // Reported where the chain first gets too deep, counting from its end.
        assert_eq!(
            root(schema).unwrap_err(),
            SchemaError::ReferenceDepth {
                pointer: "/$defs/d976".into(),
                limit: 1024,
            }
        );
    }
}
