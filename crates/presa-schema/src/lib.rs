//! JSON Schema validation for presa: compile a schema once, validate many values against it.
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
//! - arrays: `items` (a single schema, as in 2020-12), `minItems`, `maxItems`, `uniqueItems`;
//! - objects: `properties`, `required`, `additionalProperties` (boolean or schema),
//!   `minProperties`, `maxProperties`;
//! - the boolean schemas `true` and `false`.
//!
//! **Every other keyword is ignored**, including `$ref`, `allOf`/`anyOf`/`oneOf`/`not`,
//! `if`/`then`/`else`, `patternProperties`, `prefixItems` and `format`; so is `$schema`, so
//! the subset applies 2020-12 semantics to any draft. A schema using them validates more
//! loosely than its author meant; enable `full` if peers send such schemas. Subset keywords
//! with ill-typed values (`"minLength": -1`, `"items": [..]`, a bad `pattern`) fail to compile
//! with a [`SchemaError`].
//!
//! # Feature `full`
//!
//! Adds `FullValidator` (and `ValidatorOptions::compile_full`): all of JSON Schema 2020-12,
//! and 2019-09, draft-07, draft-06 and draft-04 where `$schema` names them, through the
//! `jsonschema` crate (without its default features: no HTTP client, no TLS, no file access).
//! [`compile`] then picks the subset for schemas that stay within it (their results are the
//! same, and the subset is faster) and `full` for the rest. Messages are the same words
//! either way; keywords the subset lacks (`anyOf`, `not`, `contains`, ...) get their own.
//! `format` only asserts where the draft says so (draft-07 and earlier), as in `jsonschema`. `$ref` resolves within the schema
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
//! linear on long arrays.

mod compile;
mod error;
#[cfg(feature = "full")]
mod full;
mod node;
mod number;
mod pointer;
mod regex;
mod validator;
mod value;

pub use error::{ErrorKind, JsonType, SchemaError, ValidationError, ValidationErrors};
#[cfg(feature = "full")]
pub use full::FullValidator;
pub use validator::{SubsetValidator, Validator, ValidatorOptions, compile};
