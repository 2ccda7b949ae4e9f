//! JSON Schema validation for presa: compile a schema once, validate many values against it.
//!
//! Depend on it directly to validate JSON values against the schemas MCP tools declare, outside a
//! server; presa's servers and clients already use it (as `presa::schema`).
//!
//! presa validates tool arguments (and, on the client, structured tool output) against the
//! schemas tools declare. This crate does that job and nothing else: no I/O, no async, no
//! tokio. Schemas are compiled once into a tree of keyword nodes; validating walks the value
//! without allocating unless it finds an error.
//!
//! It is **not** a general JSON Schema toolkit: it does not fetch remote schemas, produce
//! annotations or output formats, or generate schemas from types. For those, use the
//! [`jsonschema`](https://docs.rs/jsonschema) crate directly.
//!
//! ```
//! use presa_schema::Validator;
//! use serde_json::json;
//!
//! let validator = presa_schema::compile(&json!({
//!     "type": "object",
//!     "properties": {"numbers": {"type": "array", "items": {"type": "number"}, "maxItems": 3}},
//!     "required": ["numbers"],
//!     "additionalProperties": false,
//! }))?;
//!
//! assert!(validator.validate(&json!({"numbers": [1, 2.5]})).is_ok());
//!
//! let error = validator.validate(&json!({"numbers": [1, "2"]})).unwrap_err();
//! assert_eq!(
//!     format!("Invalid arguments {error}"),
//!     "Invalid arguments at /numbers/1: expected number, got string",
//! );
//!
//! let all = validator.validate_all(&json!({"numbers": [1, 2, 3, 4], "foo": 1})).unwrap_err();
//! let messages: Vec<String> = all.iter().map(|e| e.to_string()).collect();
//! assert_eq!(messages, [
//!     "at /numbers: expected at most 3 items, got 4",
//!     r#"at /: additional property "foo" is not allowed"#,
//! ]);
//! # Ok::<(), presa_schema::SchemaError>(())
//! ```
//!
//! # The built-in subset
//!
//! Without features the crate depends only on `serde_json` and `fancy-regex`, and evaluates
//! these keywords with JSON Schema 2020-12 semantics:
//!
//! - `type` (a name or an array of names; `1.0` is an integer), `enum`, `const` (JSON equality,
//!   where `1 == 1.0` and key order does not matter);
//! - strings: `minLength`, `maxLength` (counted in Unicode code points), `pattern` (ECMA-262
//!   as far as fancy-regex allows, searched unanchored, with a bounded backtracking budget);
//! - numbers: `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum` (numeric, as in
//!   2020-12), `multipleOf` (exact on the decimal value: `0.0075` is a multiple of `0.0001`);
//! - arrays: `prefixItems`, `items` (a single schema, for the items after `prefixItems`),
//!   `contains` with `minContains`/`maxContains`, `minItems`, `maxItems`, `uniqueItems`;
//! - objects: `properties`, `patternProperties`, `additionalProperties` (for the names neither
//!   covers), `propertyNames`, `required`, `dependentRequired`, `dependentSchemas`,
//!   `minProperties`, `maxProperties`;
//! - combinators: `allOf`, `anyOf`, `oneOf`, `not`, `if`/`then`/`else`;
//! - references inside the document: `$ref` to `#`, to a JSON pointer (`#/$defs/a`,
//!   `#/properties/b/items`, with `~0`/`~1` and percent escapes) or to an `$anchor`
//!   (`#address`), optionally prefixed by the root `$id` (`https://example.com/s.json#/$defs/a`).
//!   `$defs` (and `definitions`) hold schemas applied only where referenced, but checked
//!   anyway. Each referenced schema is compiled once and shared, so recursive types work and
//!   references fanning out cost nothing to compile;
//! - the boolean schemas `true` and `false`.
//!
//! **The subset never ignores a keyword that constrains values.** A schema using one it does
//! not evaluate fails to compile with [`SchemaError::Unsupported`], naming the keyword and
//! where it is: `unevaluatedProperties`, `unevaluatedItems`, `$dynamicRef`, `$dynamicAnchor`,
//! `$vocabulary`; the keywords of earlier drafts that 2020-12 dropped (`additionalItems`,
//! `dependencies`, `$recursiveRef`, `$recursiveAnchor`); an `$id` below the root (a new base
//! URI); a `$schema` naming a draft other than 2020-12, 2019-09, draft-07 and draft-06 (which
//! it reads as 2020-12 where they mean the same, as most tool schemas of those drafts do: zod
//! emits draft-07), and in those three drafts the keywords whose meaning differs (`items` as an
//! array, `format`, which they may assert, and before 2019-09 a `$ref` beside other
//! constraints and an `$id` with a fragment) or that the draft does not define and so ignores
//! (`prefixItems`, and before 2019-09 `dependentRequired`, `dependentSchemas`, `minContains`,
//! `maxContains`, `$anchor`, and before draft-07 `if`, `then`, `else`; `$defs` is read as a
//! container in every draft, the annotations a draft does not define are skipped as it skips
//! them, and a `$ref` into either is refused); a `$ref` to
//! another document, or to a location that is not a schema (inside `enum`, ...). The
//! annotations of the 2020-12 vocabularies (`title`, `description`, `default`, `examples`,
//! `deprecated`, `readOnly`, `writeOnly`, `format`, `contentEncoding`, `contentMediaType`,
//! `contentSchema`, `$comment`) and extension keywords (`x-mcp-header`, any `x-…`) are
//! ignored by validation, but typed as the meta-schema types them (`"title": 5` is refused,
//! `contentSchema` must be a schema). A keyword no draft defines (`requried`) is most
//! likely a typo and is refused with [`SchemaError::UnknownKeyword`], by the subset and by
//! [`compile`] with `full` alike, although 2020-12 would ignore it. Keywords are only looked
//! for where the applicators put schemas: `{"const": {"$dynamicRef": ".."}}` is fine. Known keywords
//! with ill-typed values (`"minLength": -1`, `"items": [..]`, a bad `pattern`, a `$ref` to a
//! pointer that does not exist) fail to compile with another [`SchemaError`], but only if no
//! keyword is unsupported.
//!
//! A `$ref` cycle that never descends into the value (`{"$ref": "#"}`, `a` → `anyOf` → `b` →
//! `a`) would never end and fails to compile with [`SchemaError::ReferenceCycle`]; recursion
//! through `items`, `properties` and the other keywords that descend is bounded by the value.
//!
//! Messages for the applicators: `value matches none of the 2 schemas of anyOf`, `value
//! matches 2 of the schemas of oneOf, expected exactly one`, `value must not match the schema
//! of not`, `expected at least 1 item matching contains, got 0`, `property name "abc" is not
//! valid: expected at most 2 characters, got 3`; `allOf`, `$ref`, the branch `if` picks and
//! the item and property applicators report the errors of the schema they apply.
//!
//! How the subset fares on the official JSON Schema Test Suite (draft 2020-12, outside
//! `optional/`): per file, the groups it compiles and passes (with their tests) and the groups
//! it refuses as unsupported, for the keyword named. It agrees with every test of every group
//! it compiles, and refuses the rest; the tests check this and the table.
//!
//! | File | Groups passed (tests) | Groups refused | Refused for |
//! |---|---|---|---|
//! | `additionalProperties` | 9 (21) | 0 |  |
//! | `allOf` | 12 (30) | 0 |  |
//! | `anchor` | 1 (2) | 3 | `$id` (3) |
//! | `anyOf` | 8 (18) | 0 |  |
//! | `boolean_schema` | 2 (18) | 0 |  |
//! | `const` | 17 (54) | 0 |  |
//! | `contains` | 7 (21) | 0 |  |
//! | `content` | 4 (18) | 0 |  |
//! | `default` | 3 (7) | 0 |  |
//! | `defs` | 0 (0) | 1 | `$ref` (1) |
//! | `dependentRequired` | 4 (20) | 0 |  |
//! | `dependentSchemas` | 4 (20) | 0 |  |
//! | `dynamicRef` | 0 (0) | 21 | `$dynamicAnchor` (14), `$dynamicRef` (3), `$id` (3), `$ref` (1) |
//! | `enum` | 15 (51) | 0 |  |
//! | `exclusiveMaximum` | 1 (4) | 0 |  |
//! | `exclusiveMinimum` | 1 (4) | 0 |  |
//! | `format` | 19 (133) | 0 |  |
//! | `if-then-else` | 12 (30) | 0 |  |
//! | `infinite-loop-detection` | 1 (2) | 0 |  |
//! | `items` | 10 (29) | 0 |  |
//! | `maxContains` | 5 (14) | 0 |  |
//! | `maxItems` | 2 (6) | 0 |  |
//! | `maxLength` | 2 (7) | 0 |  |
//! | `maxProperties` | 3 (10) | 0 |  |
//! | `maximum` | 2 (8) | 0 |  |
//! | `minContains` | 8 (28) | 0 |  |
//! | `minItems` | 2 (6) | 0 |  |
//! | `minLength` | 2 (7) | 0 |  |
//! | `minProperties` | 2 (10) | 0 |  |
//! | `minimum` | 2 (11) | 0 |  |
//! | `multipleOf` | 5 (11) | 0 |  |
//! | `not` | 8 (38) | 1 | `unevaluatedProperties` (1) |
//! | `oneOf` | 11 (27) | 0 |  |
//! | `pattern` | 3 (12) | 0 |  |
//! | `patternProperties` | 6 (25) | 0 |  |
//! | `prefixItems` | 4 (11) | 0 |  |
//! | `properties` | 6 (28) | 0 |  |
//! | `propertyNames` | 6 (22) | 0 |  |
//! | `ref` | 22 (50) | 14 | `$id` (12), `$ref` (1), `unevaluatedProperties` (1) |
//! | `refRemote` | 0 (0) | 15 | `$id` (3), `$ref` (12) |
//! | `required` | 5 (18) | 0 |  |
//! | `type` | 11 (80) | 0 |  |
//! | `unevaluatedItems` | 0 (0) | 29 | `$dynamicAnchor` (1), `unevaluatedItems` (28) |
//! | `unevaluatedProperties` | 0 (0) | 44 | `$dynamicAnchor` (1), `unevaluatedProperties` (43) |
//! | `uniqueItems` | 6 (69) | 0 |  |
//! | `vocabulary` | 0 (0) | 2 | `$schema` (2) |
//! | **all 46 files** | **253 (980)** | **130** | |
//!
//! # Feature `full`
//!
//! Adds `FullValidator` (and `ValidatorOptions::compile_full`): all of JSON Schema 2020-12,
//! and 2019-09, draft-07, draft-06 and draft-04 where `$schema` names them, through the
//! `jsonschema` crate (without its default features: no HTTP client, no TLS, no file access).
//! [`compile`] then picks the subset for every schema it compiles (their results are the
//! same, and the subset is faster) and `full` for the schemas it refuses as
//! [`SchemaError::Unsupported`]. Messages are the same words either way; keywords the subset
//! lacks (`unevaluatedProperties`, ...) get their own. `format` only asserts where the draft
//! says so (draft-07 and earlier), as in `jsonschema`. `$ref` resolves within the schema
//! and to the standard meta-schemas only: **remote references are never fetched** (schemas
//! come from peers, and fetching their URLs would let a peer make us send requests), so a
//! schema that needs one fails to compile with [`SchemaError::Reference`].
//!
//! # Errors
//!
//! A [`ValidationError`] holds a JSON pointer to the failing value (`/` for the root) and an
//! [`ErrorKind`]; it displays as `at {pointer}: {message}`. Messages name what failed:
//! `missing required property "numbers"` (reported at the object), `additional property "foo"
//! is not allowed` (also at the object), `expected at most 3 items, got 5`, `value must be one
//! of ["a","b"]`, `string does not match pattern "^a"`, `expected a multiple of 2, got 3`,
//! `expected at least 1 character, got 0`. Type errors name JSON Schema types; a number with
//! no fractional part is reported as `integer` (`expected string, got integer`), any other as
//! `number`.
//!
//! # Hostile input
//!
//! Schemas and values may come from peers. Schemas nesting deeper than
//! [`ValidatorOptions::max_schema_depth`] fail to compile and values nesting deeper than
//! [`ValidatorOptions::max_instance_depth`] fail validation with [`ErrorKind::TooDeep`], so
//! neither can exhaust the stack. A `pattern` that needs more than
//! [`ValidatorOptions::backtrack_limit`] backtracking steps on a string rejects it with
//! [`ErrorKind::PatternLimit`] instead of running on. `uniqueItems` hashes items, so it stays
//! linear on long arrays. Through `$ref`s the subset nests at most
//! [`ValidatorOptions::max_reference_depth`] schema levels and follows at most
//! [`ValidatorOptions::max_reference_steps`] references per value (a schema whose references
//! fan out could otherwise take exponential time); past either, the value is rejected with
//! [`ErrorKind::ReferenceDepth`] or [`ErrorKind::ReferenceSteps`]. A limit hit inside `not`,
//! `anyOf`, `oneOf`, `if` or `contains` rejects the value too: it never counts as "this
//! branch does not match", which `not` would turn into acceptance.

mod apply;
mod compile;
mod error;
#[cfg(feature = "full")]
mod full;
mod graph;
mod keywords;
mod node;
mod number;
mod pointer;
mod regex;
mod resolve;
mod uri;
mod validator;
mod value;
mod vocabulary;

pub use error::{ErrorKind, JsonType, SchemaError, ValidationError, ValidationErrors};
#[cfg(feature = "full")]
pub use full::FullValidator;
pub use validator::{SubsetValidator, Validator, ValidatorOptions, compile};
