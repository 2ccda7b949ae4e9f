//! The official JSON Schema Test Suite (draft 2020-12), read at test time from the shared
//! checkout beside the project (`../shared/json-schema-test-suite`).
//!
//! - The subset must agree with every test of every group whose schema uses only subset and
//!   annotation keywords.
//! - With `full`, [`compile`] (and [`ValidatorOptions::compile_full`]) must agree with every
//!   test outside `optional/`, except the groups listed in [`NEEDS_REMOTE`], which need the
//!   suite's `http://localhost:1234` remotes and must fail to compile instead.

use std::path::PathBuf;

use presa_schema::{Validator, ValidatorOptions};
use serde_json::Value;

fn suite_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/json-schema-test-suite/draft2020-12")
}

struct Group {
    file: String,
    description: String,
    schema: Value,
    tests: Vec<(String, Value, bool)>,
}

fn groups() -> Vec<Group> {
    let dir = suite_dir();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .collect();
    files.sort();
    let mut groups = Vec::new();
    for path in files {
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&path).unwrap();
        let parsed: Value = serde_json::from_str(&text).unwrap();
        for group in parsed.as_array().unwrap() {
            let tests = group["tests"]
                .as_array()
                .unwrap()
                .iter()
                .map(|test| {
                    (
                        test["description"].as_str().unwrap().to_owned(),
                        test["data"].clone(),
                        test["valid"].as_bool().unwrap(),
                    )
                })
                .collect();
            groups.push(Group {
                file: file.clone(),
                description: group["description"].as_str().unwrap().to_owned(),
                schema: group["schema"].clone(),
                tests,
            });
        }
    }
    groups
}

/// Keywords the subset evaluates, and keywords that are annotations only.
const SUBSET: &[&str] = &[
    "type",
    "enum",
    "const",
    "required",
    "properties",
    "additionalProperties",
    "items",
    "minLength",
    "maxLength",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minProperties",
    "maxProperties",
    "pattern",
];
const ANNOTATIONS: &[&str] = &[
    "$schema",
    "$comment",
    "title",
    "description",
    "default",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
    "format",
    "contentEncoding",
    "contentMediaType",
    "contentSchema",
];

/// Whether every keyword anywhere in `schema` is a subset or annotation keyword.
fn subset_only(schema: &Value) -> bool {
    let Value::Object(object) = schema else {
        return true;
    };
    object.iter().all(|(key, value)| match key.as_str() {
        "properties" => value.as_object().unwrap().values().all(subset_only),
        "items" | "additionalProperties" => subset_only(value),
        key => SUBSET.contains(&key) || ANNOTATIONS.contains(&key),
    })
}

/// Runs `group` against `validator`; returns one line per disagreement.
fn disagreements(group: &Group, validator: &dyn Validator, backend: &str) -> Vec<String> {
    let mut failures = Vec::new();
    for (description, data, valid) in &group.tests {
        let first = validator.validate(data);
        let all = validator.validate_all(data);
        let check = validator.is_valid(data);
        if first.is_ok() != *valid || all.is_ok() != *valid || check != *valid {
            failures.push(format!(
                "[{backend}] {} / {} / {}: expected valid={valid}, validate={:?}, validate_all={:?}, is_valid={check}",
                group.file,
                group.description,
                description,
                first.err().map(|e| e.to_string()),
                all.err().map(|e| e.to_string()),
            ));
        } else if let (Err(first), Err(all)) = (first, all) {
            // The first error is the first of all errors.
            if &first != all.first() {
                failures.push(format!(
                    "[{backend}] {} / {} / {}: first error {first} but validate_all starts with {}",
                    group.file,
                    group.description,
                    description,
                    all.first()
                ));
            }
        }
    }
    failures
}

#[test]
fn subset_agrees_with_the_suite() {
    let options = ValidatorOptions::default();
    let (mut run, mut skipped, mut cases) = (0, 0, 0);
    let mut failures = Vec::new();
    for group in groups() {
        if !subset_only(&group.schema) {
            skipped += 1;
            continue;
        }
        run += 1;
        cases += group.tests.len();
        match options.compile_subset(&group.schema) {
            Ok(validator) => failures.extend(disagreements(&group, &validator, "subset")),
            Err(e) => failures.push(format!(
                "[subset] {} / {}: does not compile: {e}",
                group.file, group.description
            )),
        }
    }
    eprintln!("subset: {run} groups run ({cases} tests), {skipped} skipped");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Guard against silently running nothing (e.g. a moved suite or a too-strict filter).
    assert!(run >= 120, "only {run} groups ran");
    assert!(cases >= 550, "only {cases} tests ran");
}

/// Groups that need the suite's remotes (`http://localhost:1234/...`), which are never fetched:
/// each must fail to compile with [`presa_schema::SchemaError::Reference`].
#[cfg(feature = "full")]
const NEEDS_REMOTE: &[(&str, &str, &str)] = &[
    (
        "dynamicRef.json",
        "strict-tree schema, guards against misspelled properties",
        "refs http://localhost:1234/draft2020-12/tree.json",
    ),
    (
        "dynamicRef.json",
        "tests for implementation dynamic anchor and reference link",
        "refs http://localhost:1234/draft2020-12/extendible-dynamic-ref.json",
    ),
    (
        "dynamicRef.json",
        "$ref and $dynamicAnchor are independent of order - $defs first",
        "refs http://localhost:1234/draft2020-12/extendible-dynamic-ref.json",
    ),
    (
        "dynamicRef.json",
        "$ref and $dynamicAnchor are independent of order - $ref first",
        "refs http://localhost:1234/draft2020-12/extendible-dynamic-ref.json",
    ),
    (
        "dynamicRef.json",
        "$ref to $dynamicRef finds detached $dynamicAnchor",
        "refs http://localhost:1234/draft2020-12/detached-dynamicref.json",
    ),
    (
        "vocabulary.json",
        "schema that uses custom metaschema with with no validation vocabulary",
        "$schema is the remote http://localhost:1234/draft2020-12/metaschema-no-validation.json",
    ),
    (
        "vocabulary.json",
        "ignore unrecognized optional vocabulary",
        "$schema is the remote http://localhost:1234/draft2020-12/metaschema-optional-vocabulary.json",
    ),
];

/// Whole files that exist to test remote references.
#[cfg(feature = "full")]
const REMOTE_FILES: &[&str] = &["refRemote.json"];

#[cfg(feature = "full")]
#[test]
fn full_agrees_with_the_suite() {
    use presa_schema::SchemaError;

    let options = ValidatorOptions::default();
    let (mut run, mut cases) = (0, 0);
    let mut failures = Vec::new();
    let mut remote_seen = Vec::new();
    let (mut remote_files_seen, mut remote_files_refused) = (0, 0);
    for group in groups() {
        if REMOTE_FILES.contains(&group.file.as_str()) {
            remote_files_seen += 1;
            // Remote references must fail cleanly, never be fetched; groups whose refs stay
            // local must still pass.
            match options.compile_full(&group.schema) {
                Err(SchemaError::Reference { .. }) => remote_files_refused += 1,
                Ok(validator) => failures.extend(disagreements(&group, &validator, "full")),
                Err(e) => failures.push(format!(
                    "[full] {} / {}: unexpected error {e}",
                    group.file, group.description
                )),
            }
            continue;
        }
        if let Some(entry) = NEEDS_REMOTE
            .iter()
            .find(|(file, description, _)| *file == group.file && *description == group.description)
        {
            remote_seen.push(entry);
            match options.compile_full(&group.schema) {
                Err(SchemaError::Reference { .. }) => {}
                other => failures.push(format!(
                    "[full] {} / {}: listed as needing a remote, but compiling gave {:?}",
                    group.file,
                    group.description,
                    other.map(|_| ())
                )),
            }
            continue;
        }
        run += 1;
        cases += group.tests.len();
        match options.compile_full(&group.schema) {
            Ok(validator) => failures.extend(disagreements(&group, &validator, "full")),
            Err(e) => failures.push(format!(
                "[full] {} / {}: does not compile: {e}",
                group.file, group.description
            )),
        }
        match options.compile(&group.schema) {
            Ok(validator) => failures.extend(disagreements(&group, &validator, "auto")),
            Err(e) => failures.push(format!(
                "[auto] {} / {}: does not compile: {e}",
                group.file, group.description
            )),
        }
    }
    eprintln!(
        "full: {run} groups run ({cases} tests), {} skipped as needing remotes, \
         {remote_files_seen} in remote-only files ({remote_files_refused} refused to compile)",
        remote_seen.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(
        remote_seen.len(),
        NEEDS_REMOTE.len(),
        "stale NEEDS_REMOTE entry"
    );
    assert!(remote_files_seen > 0, "remote-only files not found");
    assert!(run >= 350, "only {run} groups ran");
}
