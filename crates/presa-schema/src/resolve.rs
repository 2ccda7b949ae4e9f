//! The subset's view of a schema document before compiling it: which keywords it refuses,
//! where its `$anchor`s are, and which locations its `$ref`s lead to.
//!
//! References resolve only inside the document: to `#`, a JSON pointer fragment (`#/$defs/a`,
//! `~0`/`~1` and percent escapes decoded) or a plain-name fragment (`#name`, from `$anchor`),
//! optionally prefixed by the root `$id`. A pointer must lead to a location the 2020-12
//! applicators or `$defs`/`definitions` make a schema; anything else is refused as
//! [`SchemaError::Unsupported`], as is a reference to another document.

use std::collections::HashMap;

use serde_json::{Map, Value};

use crate::error::SchemaError;
use crate::pointer::{display, join, push_escaped};
use crate::uri::{is_uri_reference, percent_decode};
use crate::vocabulary::{
    DRAFT_2020_12, Draft, LATER_ANNOTATIONS, Slot, UNSUPPORTED, is_known, slot,
};

/// Anchors and the root's identifier: what a `$ref` resolves against.
#[derive(Debug, Default)]
pub(crate) struct Resolver {
    /// The root `$id` without its (empty) fragment.
    root_id: Option<String>,
    /// `$anchor` names and the canonical pointer of the schema that declares each.
    anchors: HashMap<String, String>,
    /// The draft the root's `$schema` names (2020-12 without one): an earlier one is read with
    /// 2020-12 semantics where it means the same, and refused where it differs.
    draft: Draft,
}

/// What [`scan`] found: the resolver, and every distinct `$ref` target in first-seen order.
#[derive(Debug)]
pub(crate) struct Scan {
    pub(crate) resolver: Resolver,
    pub(crate) targets: Vec<String>,
}

/// Walks every schema location of `doc` (including unreferenced `$defs`): refuses keywords the
/// subset does not evaluate, collects anchors, and resolves every `$ref`.
///
/// Only [`SchemaError::Unsupported`] is returned here, so that it wins over any other error
/// (the `full` fallback depends on it); ill-typed keywords and unresolvable references are
/// left for the compiler to report where it meets them. The caller has bounded the depth.
pub(crate) fn scan(doc: &Value) -> Result<Scan, SchemaError> {
    let mut resolver = Resolver {
        root_id: doc
            .get("$id")
            .and_then(Value::as_str)
            .and_then(root_id)
            .map(str::to_owned),
        anchors: HashMap::new(),
        draft: doc
            .get("$schema")
            .and_then(Value::as_str)
            .and_then(Draft::named_by)
            .unwrap_or_default(),
    };
    let mut refs = Vec::new();
    visit(doc, "", true, &mut resolver, &mut refs)?;
    let mut targets = Vec::new();
    let mut seen = HashMap::new();
    for (reference, at) in refs {
        match resolver.resolve(doc, reference, &at) {
            Ok(target) => {
                if !seen.contains_key(&target) {
                    seen.insert(target.clone(), ());
                    targets.push(target);
                }
            }
            Err(error @ SchemaError::Unsupported { .. }) => return Err(error),
            Err(_) => {} // reported by the compiler, at the `$ref`
        }
    }
    Ok(Scan { resolver, targets })
}

/// The root `$id` as a base URI: `Some` unless it is no URI reference or has a non-empty
/// fragment.
pub(crate) fn root_id(id: &str) -> Option<&str> {
    if !is_uri_reference(id) {
        return None;
    }
    match id.split_once('#') {
        None => Some(id),
        Some((base, "")) => Some(base),
        Some(_) => None,
    }
}

/// Whether an anchor name is well-formed (`^[A-Za-z_][-A-Za-z0-9._]*$`).
pub(crate) fn is_anchor_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

fn visit<'d>(
    value: &'d Value,
    at: &str,
    root: bool,
    resolver: &mut Resolver,
    refs: &mut Vec<(&'d str, String)>,
) -> Result<(), SchemaError> {
    let Value::Object(object) = value else {
        return Ok(());
    };
    let earlier_draft = resolver.draft < Draft::Draft2020_12;
    for (keyword, value) in object {
        let unsupported = || SchemaError::Unsupported {
            pointer: display(&join(at, keyword)),
            keyword: keyword.clone(),
        };
        if resolver.ignores(keyword) {
            continue;
        }
        match keyword.as_str() {
            // what the declared draft does not define, it ignores (`prefixItems` in draft-07,
            // `if` in draft-06): refused rather than evaluated
            keyword if !resolver.defines(keyword) => return Err(unsupported()),
            "$id" if !root => return Err(unsupported()),
            "$schema" => {
                let known = |uri: &str| is_2020_12(uri) || (root && Draft::named_by(uri).is_some());
                if value.as_str().is_some_and(|uri| !known(uri)) {
                    return Err(unsupported());
                }
            }
            // the drafts before 2019-09 ignore a `$ref`'s siblings, which 2020-12 applies
            "$ref"
                if resolver.draft < Draft::Draft2019_09
                    && object
                        .keys()
                        .any(|key| !REF_SIBLINGS.contains(&key.as_str())) =>
            {
                return Err(unsupported());
            }
            // an array of `items` is a tuple before 2020-12 (`prefixItems` now); draft-07 and
            // earlier may assert `format` and 2019-09 leaves that to a vocabulary, where
            // 2020-12 only annotates
            "items" if earlier_draft && value.is_array() => return Err(unsupported()),
            "format" if earlier_draft => return Err(unsupported()),
            // before 2019-09, an `$id` with a fragment declares an anchor
            "$id"
                if resolver.draft < Draft::Draft2019_09
                    && value
                        .as_str()
                        .is_some_and(|id| id.contains('#') && !id.ends_with('#')) =>
            {
                return Err(unsupported());
            }
            "$ref" => {
                if let Value::String(reference) = value {
                    refs.push((reference.as_str(), join(at, keyword)));
                }
            }
            "$anchor" => {
                if let Value::String(name) = value {
                    // A duplicate is reported by the compiler, which finds the other pointer.
                    resolver
                        .anchors
                        .entry(name.clone())
                        .or_insert_with(|| at.to_owned());
                }
            }
            keyword if UNSUPPORTED.contains(&keyword) => return Err(unsupported()),
            keyword if !is_known(keyword) => {
                return Err(SchemaError::UnknownKeyword {
                    pointer: display(&join(at, keyword)),
                    keyword: keyword.to_owned(),
                });
            }
            keyword => {
                if let Some(slot) = slot(keyword) {
                    let here = join(at, keyword);
                    for (child, at) in children(slot, value, &here) {
                        visit(child, &at, false, resolver, refs)?;
                    }
                }
            }
        }
    }
    Ok(())
}

/// The subschemas a keyword's value holds, with their pointers; none if it is ill-typed.
fn children<'d>(slot: Slot, value: &'d Value, at: &str) -> Vec<(&'d Value, String)> {
    match (slot, value) {
        (Slot::Single(_), value) => vec![(value, at.to_owned())],
        (Slot::Map(_) | Slot::Container, Value::Object(map)) => map
            .iter()
            .map(|(key, value)| (value, join(at, key)))
            .collect(),
        (Slot::List(_), Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(index, value)| (value, join(at, &index.to_string())))
            .collect(),
        _ => Vec::new(),
    }
}

/// Keywords beside a `$ref` that mean the same under every draft.
const REF_SIBLINGS: &[&str] = &[
    "$ref",
    "$comment",
    "$schema",
    "$id",
    "title",
    "description",
    "definitions",
    "$defs",
    "default",
    "examples",
];

/// Whether `uri` names the 2020-12 meta-schema.
pub(crate) fn is_2020_12(uri: &str) -> bool {
    uri.strip_suffix('#').unwrap_or(uri) == DRAFT_2020_12
}

impl Resolver {
    /// Where `reference` (the value of the `$ref` at `at`) leads: the canonical JSON pointer
    /// (RFC 6901, root `""`) of a schema location in `doc`.
    pub(crate) fn resolve(
        &self,
        doc: &Value,
        reference: &str,
        at: &str,
    ) -> Result<String, SchemaError> {
        let unsupported = || SchemaError::Unsupported {
            pointer: display(at),
            keyword: "$ref".to_owned(),
        };
        if !is_uri_reference(reference) {
            return Err(SchemaError::Reference {
                message: format!("\"{reference}\" is not a valid URI reference"),
            });
        }
        let (uri, fragment) = match reference.split_once('#') {
            Some((uri, fragment)) => (uri, fragment),
            None => (reference, ""),
        };
        if !uri.is_empty() && !self.is_root(uri) {
            return Err(unsupported());
        }
        let fragment = percent_decode(fragment).ok_or_else(|| SchemaError::Reference {
            message: format!("\"{reference}\" is not a valid URI reference"),
        })?;
        if fragment.is_empty() {
            return Ok(String::new());
        }
        if !fragment.starts_with('/') {
            return match self.anchors.get(&fragment) {
                Some(pointer) => Ok(pointer.clone()),
                None => Err(SchemaError::Reference {
                    message: format!("anchor \"{fragment}\" does not exist"),
                }),
            };
        }
        let missing = || SchemaError::Reference {
            message: format!("pointer \"{fragment}\" does not exist"),
        };
        let mut tokens = Vec::new();
        for token in fragment.split('/').skip(1) {
            tokens.push(unescape(token).ok_or_else(missing)?);
        }
        // Follow the tokens through schema locations only.
        let mut canonical = String::new();
        let mut value = doc;
        let mut tokens = tokens.iter();
        while let Some(keyword) = tokens.next() {
            let object = value.as_object().ok_or_else(missing)?;
            let inner = object.get(keyword.as_str()).ok_or_else(missing)?;
            push_token(&mut canonical, keyword);
            // nor may a reference lead into what the declared draft does not define
            if !self.defines(keyword) {
                return Err(unsupported());
            }
            value = match slot(keyword) {
                Some(Slot::Single(_)) => inner,
                Some(Slot::Map(_) | Slot::Container) => {
                    let key = tokens.next().ok_or_else(unsupported)?;
                    push_token(&mut canonical, key);
                    entry(inner.as_object(), key).ok_or_else(missing)?
                }
                Some(Slot::List(_)) => {
                    let index = tokens.next().ok_or_else(unsupported)?;
                    push_token(&mut canonical, index);
                    element(inner, index).ok_or_else(missing)?
                }
                None => return Err(unsupported()),
            };
        }
        Ok(canonical)
    }

    /// Whether a reference's URI part names the root document: its `$id` as written, or a
    /// relative path that resolves to it against itself (`root.json` for `http://x/root.json`).
    fn is_root(&self, uri: &str) -> bool {
        let Some(root) = self.root_id.as_deref() else {
            return false;
        };
        if uri == root {
            return true;
        }
        let relative = !uri.contains(':') && !uri.starts_with('/') && !uri.starts_with("//");
        match root.rfind('/') {
            Some(slash) if relative => root
                .get(..=slash)
                .is_some_and(|dir| root.len() == dir.len() + uri.len() && root.ends_with(uri)),
            _ => false,
        }
    }

    /// Whether the subset skips `keyword`: an annotation that the declared draft, predating
    /// it, ignores (`deprecated` in draft-07).
    pub(crate) fn ignores(&self, keyword: &str) -> bool {
        Draft::introducing(keyword) > self.draft && LATER_ANNOTATIONS.contains(&keyword)
    }

    /// Whether the declared draft defines `keyword` (or it is one whose reading no draft
    /// changes): else that draft ignores it, and the subset refuses it.
    fn defines(&self, keyword: &str) -> bool {
        Draft::introducing(keyword) <= self.draft
    }

    /// The pointer of the schema declaring anchor `name`, if any.
    pub(crate) fn anchor(&self, name: &str) -> Option<&str> {
        self.anchors.get(name).map(String::as_str)
    }
}

fn entry<'d>(map: Option<&'d Map<String, Value>>, key: &str) -> Option<&'d Value> {
    map?.get(key)
}

/// An array element by RFC 6901 index: decimal digits, no leading zero.
fn element<'d>(value: &'d Value, index: &str) -> Option<&'d Value> {
    let well_formed = !index.is_empty()
        && index.bytes().all(|b| b.is_ascii_digit())
        && (index == "0" || !index.starts_with('0'));
    if !well_formed {
        return None;
    }
    value.as_array()?.get(index.parse::<usize>().ok()?)
}

fn push_token(pointer: &mut String, token: &str) {
    pointer.push('/');
    push_escaped(pointer, token);
}

/// Undoes RFC 6901 escaping (`~1` is `/`, `~0` is `~`); `None` for a stray `~`.
fn unescape(token: &str) -> Option<String> {
    let mut out = String::with_capacity(token.len());
    let mut chars = token.chars();
    while let Some(c) = chars.next() {
        if c == '~' {
            match chars.next() {
                Some('0') => out.push('~'),
                Some('1') => out.push('/'),
                _ => return None,
            }
        } else {
            out.push(c);
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use serde_json::json;

    fn resolve(doc: &Value, reference: &str) -> Result<String, SchemaError> {
        scan(doc)?.resolver.resolve(doc, reference, "/$ref")
    }

    /// Found by the schema fuzz target: an `$id` with spaces compiled in the subset, which
    /// `full` refuses as no URI.
    #[test]
    fn ids_and_references_must_be_uri_references() {
        assert!(root_id("https://ex ample.com/s.json").is_none());
        let doc = json!({"$defs": {"a b": true}});
        assert!(matches!(
            resolve(&doc, "#/$defs/a b"),
            Err(SchemaError::Reference { .. })
        ));
        assert_eq!(resolve(&doc, "#/$defs/a%20b").unwrap(), "/$defs/a b");
    }

    #[test]
    fn pointer_fragments_resolve_to_canonical_pointers() {
        let doc = json!({
            "$defs": {"a/b": {"$defs": {"": true}}, "c~d": {}, "e%f": {}, "g\"h": {}},
            "definitions": {"old": {}},
            "properties": {"p": {"items": {"prefixItems": [{}, {"not": {}}]}}},
            "allOf": [{"if": {}, "then": {}, "else": {}}],
        });
        let cases = [
            ("#", ""),
            ("", ""),
            ("#/$defs/a~1b", "/$defs/a~1b"),
            ("#/$defs/a~1b/$defs/", "/$defs/a~1b/$defs/"),
            ("#/$defs/c~0d", "/$defs/c~0d"),
            ("#/$defs/e%25f", "/$defs/e%f"),
            ("#/$defs/g%22h", "/$defs/g\"h"),
            ("#/%24defs/c~0d", "/$defs/c~0d"),
            ("#/definitions/old", "/definitions/old"),
            (
                "#/properties/p/items/prefixItems/1/not",
                "/properties/p/items/prefixItems/1/not",
            ),
            ("#/allOf/0/else", "/allOf/0/else"),
        ];
        for (reference, pointer) in cases {
            assert_eq!(resolve(&doc, reference).unwrap(), pointer, "{reference}");
        }
    }

    #[test]
    fn anchors_and_the_root_id() {
        let doc = json!({
            "$id": "http://example.com/schemas/root.json#",
            "$defs": {"a": {"$anchor": "addressDef"}},
        });
        assert_eq!(resolve(&doc, "#addressDef").unwrap(), "/$defs/a");
        for reference in [
            "http://example.com/schemas/root.json#addressDef",
            "root.json#addressDef",
        ] {
            assert_eq!(resolve(&doc, reference).unwrap(), "/$defs/a", "{reference}");
        }
        assert_eq!(
            resolve(&doc, "http://example.com/schemas/root.json").unwrap(),
            ""
        );
        let urn = json!({"$id": "urn:uuid:deadbeef"});
        assert_eq!(resolve(&urn, "urn:uuid:deadbeef").unwrap(), "");
        assert!(is_anchor_name("a-b.c_1"));
        assert!(!is_anchor_name("1a"));
        assert!(!is_anchor_name(""));
    }

    #[test]
    fn missing_locations_are_reference_errors() {
        let doc = json!({"$defs": {"a": {}}, "prefixItems": [{}]});
        for (reference, message) in [
            (
                "#/$defs/missing",
                r#"pointer "/$defs/missing" does not exist"#,
            ),
            (
                "#/prefixItems/1",
                r#"pointer "/prefixItems/1" does not exist"#,
            ),
            (
                "#/prefixItems/00",
                r#"pointer "/prefixItems/00" does not exist"#,
            ),
            ("#/nothing", r#"pointer "/nothing" does not exist"#),
            ("#/$defs/a~2", r#"pointer "/$defs/a~2" does not exist"#),
            ("#nope", r#"anchor "nope" does not exist"#),
            ("#%zz", r##""#%zz" is not a valid URI reference"##),
        ] {
            assert_eq!(
                resolve(&doc, reference).unwrap_err(),
                SchemaError::Reference {
                    message: message.to_owned()
                },
                "{reference}"
            );
        }
    }

    #[test]
    fn other_documents_and_non_schema_locations_are_unsupported() {
        let doc = json!({
            "$id": "http://example.com/root.json",
            "x-vendor": {"s": {}},
            "enum": [{}],
            "$defs": {"a": {}},
        });
        for reference in [
            "http://example.com/other.json",
            "other.json#/$defs/a",
            "https://json-schema.org/draft/2020-12/schema",
            "../root.json",
            "#/x-vendor/s",
            "#/enum/0",
            "#/$defs",
        ] {
            assert_eq!(
                resolve(&doc, reference).unwrap_err(),
                SchemaError::Unsupported {
                    pointer: "/$ref".into(),
                    keyword: "$ref".into()
                },
                "{reference}"
            );
        }
        // Without a root `$id`, any URI part names another document.
        assert!(matches!(
            resolve(&json!({}), "root.json"),
            Err(SchemaError::Unsupported { .. })
        ));
    }

    /// Each schema's scan is refused as unsupported at the pointer beside it.
    #[track_caller]
    fn assert_unsupported_at<const N: usize>(cases: [(Value, &str); N]) {
        for (schema, pointer) in cases {
            match scan(&schema) {
                Err(SchemaError::Unsupported { pointer: p, .. }) => {
                    assert_eq!(p, pointer, "{schema}")
                }
                other => panic!("{schema}: {other:?}"),
            }
        }
    }

    #[test]
    fn scan_refuses_keywords_with_their_pointer() {
        let cases = [
            (
                json!({"unevaluatedProperties": false}),
                "/unevaluatedProperties",
            ),
            (
                json!({"properties": {"a": {"items": {"unevaluatedItems": false}}}}),
                "/properties/a/items/unevaluatedItems",
            ),
            (
                json!({"$defs": {"x": {"$dynamicRef": "#a"}}}),
                "/$defs/x/$dynamicRef",
            ),
            (
                json!({"allOf": [{"$dynamicAnchor": "a"}]}),
                "/allOf/0/$dynamicAnchor",
            ),
            (json!({"$recursiveRef": "#"}), "/$recursiveRef"),
            (json!({"$recursiveAnchor": true}), "/$recursiveAnchor"),
            (json!({"$vocabulary": {}}), "/$vocabulary"),
            (json!({"additionalItems": false}), "/additionalItems"),
            (json!({"dependencies": {}}), "/dependencies"),
            (json!({"not": {"$id": "inner.json"}}), "/not/$id"),
            (
                json!({"$schema": "http://json-schema.org/draft-04/schema#"}),
                "/$schema",
            ),
            (json!({"$ref": "other.json"}), "/$ref"),
            // draft-07 is read as 2020-12 except where the two differ
            (
                json!({"$schema": "http://json-schema.org/draft-07/schema#", "items": [{}]}),
                "/items",
            ),
            (
                json!({"$schema": "http://json-schema.org/draft-07/schema#",
                       "definitions": {"a": {}},
                       "properties": {"p": {"$ref": "#/definitions/a", "type": "string"}}}),
                "/properties/p/$ref",
            ),
            (
                json!({"not": {"$schema": "http://json-schema.org/draft-07/schema#"}}),
                "/not/$schema",
            ),
        ];
        assert_unsupported_at(cases);
        // Annotations, unknown words and keywords inside non-schemas are not refused.
        for schema in [
            json!({"$schema": "https://json-schema.org/draft/2020-12/schema#", "$id": "x"}),
            // what zod and the TypeScript SDK send
            json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
                   "properties": {"a": {"type": "string"}}, "required": ["a"],
                   "additionalProperties": false}),
            json!({"x-unevaluatedProperties": false, "title": "t", "format": "uri"}),
            json!({"const": {"unevaluatedProperties": false}}),
            json!({"x-vendor": {"$dynamicRef": "#"}}),
            json!({"properties": {"$dynamicRef": {}}}),
        ] {
            assert!(scan(&schema).is_ok(), "{schema}");
        }
    }

    /// The `schema` fuzz target's class: the subset evaluated `prefixItems` in a draft-07
    /// schema, which draft-07 (and `full`) ignores, so the two disagreed on `[1]` against
    /// `{"prefixItems": [false]}`.
    #[test]
    fn keywords_a_declared_draft_lacks_are_refused_or_ignored() {
        const DRAFT_06: &str = "http://json-schema.org/draft-06/schema#";
        const DRAFT_07: &str = "http://json-schema.org/draft-07/schema#";
        const DRAFT_2019: &str = "https://json-schema.org/draft/2019-09/schema";
        let refused = [
            (
                json!({"$schema": DRAFT_07, "prefixItems": [false]}),
                "/prefixItems",
            ),
            (
                json!({"$schema": DRAFT_2019, "prefixItems": [false]}),
                "/prefixItems",
            ),
            (
                json!({"$schema": DRAFT_07, "dependentRequired": {"a": ["b"]}}),
                "/dependentRequired",
            ),
            (
                json!({"$schema": DRAFT_07, "properties": {"a": {"dependentSchemas": {}}}}),
                "/properties/a/dependentSchemas",
            ),
            (
                json!({"$schema": DRAFT_07, "contains": true, "maxContains": 0}),
                "/maxContains",
            ),
            (
                json!({"$schema": DRAFT_07, "$defs": {"x": {"$anchor": "x"}}}),
                "/$defs/x/$anchor",
            ),
            (
                json!({"$schema": DRAFT_06, "if": true, "then": false}),
                "/if",
            ),
            (
                json!({"$schema": DRAFT_07, "definitions": {"a": {"$id": "#a"}}}),
                "/definitions/a/$id",
            ),
            (json!({"$schema": DRAFT_06, "$id": "http://x/y#a"}), "/$id"),
            (json!({"$schema": DRAFT_07, "$id": "#a"}), "/$id"),
            // a reference may not lead into what the draft ignores either
            (
                json!({"$schema": DRAFT_07, "contentSchema": {"prefixItems": [false]},
                       "properties": {"a": {"$ref": "#/contentSchema"}}}),
                "/properties/a/$ref",
            ),
        ];
        assert_unsupported_at(refused);
        // Annotations the draft does not define are skipped, typed or not; `$defs` is a
        // container a pointer may lead into; what the draft defines is read as before.
        use crate::Validator as _;
        let validator = |schema: Value| {
            crate::SubsetValidator::new(&schema).unwrap_or_else(|e| panic!("{schema}: {e}"))
        };
        for schema in [
            json!({"$schema": DRAFT_07, "deprecated": "yes", "contentSchema": {"type": "obje"}}),
            json!({"$schema": DRAFT_06, "$comment": 1, "readOnly": "no", "contentEncoding": 7}),
        ] {
            assert!(validator(schema).is_valid(&json!(1)));
        }
        let draft_07 = validator(json!({
            "$schema": DRAFT_07, "if": {"type": "string"}, "then": {"minLength": 2},
            "properties": {"a": {"$ref": "#/$defs/a"}}, "$defs": {"a": {"type": "integer"}},
        }));
        assert!(!draft_07.is_valid(&json!("x")));
        assert!(!draft_07.is_valid(&json!({"a": "1"})));
        assert!(draft_07.is_valid(&json!({"a": 1})));
        let draft_2019 = validator(json!({
            "$schema": DRAFT_2019, "contains": {"type": "null"}, "maxContains": 1,
            "dependentRequired": {"a": ["b"]},
        }));
        assert!(!draft_2019.is_valid(&json!([null, null])));
        assert!(!draft_2019.is_valid(&json!({"a": 1})));
    }

    #[test]
    fn percent_escapes_are_two_hex_digits() {
        assert_eq!(percent_decode("a%20b").as_deref(), Some("a b"));
        assert_eq!(percent_decode("%+f"), None);
        assert_eq!(percent_decode("%2"), None);
    }

    #[test]
    fn targets_are_collected_once() {
        let doc = json!({
            "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"items": {"$ref": "#"}}},
            "allOf": [{"$ref": "#/$defs/a"}, {"$ref": "#/$defs/a"}, {"$ref": "#/$defs/missing"}],
        });
        assert_eq!(scan(&doc).unwrap().targets, ["/$defs/b", "", "/$defs/a"]);
    }
}
