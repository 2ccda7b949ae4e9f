//! The official JSON Schema Test Suite (draft 2020-12), read at test time from the shared
//! checkout beside the project (`../shared/json-schema-test-suite`).
//!
//! - The subset must agree with every test of every group whose schema it compiles, and every
//!   group it does not compile must fail with [`SchemaError::Unsupported`]: never another
//!   error, never compile and disagree. [`subset_coverage`] prints the per-file table the
//!   crate docs carry.
//! - With `full`, [`compile`] (and [`ValidatorOptions::compile_full`]) must agree with every
//!   test outside `optional/`, except the groups listed in [`NEEDS_REMOTE`], which need the
//!   suite's `http://localhost:1234` remotes and must fail to compile instead; and the subset
//!   and `full` must agree on every test of every group the subset compiles.

use std::collections::BTreeMap;
use std::path::PathBuf;

use presa_schema::{SchemaError, Validator, ValidatorOptions};
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

/// What the subset makes of one group.
enum Outcome {
    /// It compiled; these tests disagree with the suite.
    Ran(Vec<String>),
    /// It refused the schema as unsupported, naming this keyword.
    Refused(String),
    /// It failed to compile with another error: always a bug.
    Failed(String),
}

fn subset_outcome(group: &Group) -> Outcome {
    match ValidatorOptions::default().compile_subset(&group.schema) {
        Ok(validator) => Outcome::Ran(disagreements(group, &validator, "subset")),
        Err(SchemaError::Unsupported { keyword, .. }) => Outcome::Refused(keyword),
        Err(e) => Outcome::Failed(format!(
            "[subset] {} / {}: does not compile: {e}",
            group.file, group.description
        )),
    }
}

#[test]
fn subset_agrees_with_the_suite() {
    let (mut run, mut refused, mut cases) = (0, 0, 0);
    let mut failures = Vec::new();
    for group in groups() {
        match subset_outcome(&group) {
            Outcome::Ran(disagreements) => {
                run += 1;
                cases += group.tests.len();
                failures.extend(disagreements);
            }
            Outcome::Refused(_) => refused += 1,
            Outcome::Failed(failure) => failures.push(failure),
        }
    }
    eprintln!("subset: {run} groups run ({cases} tests), {refused} refused as unsupported");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Guard against silently running nothing (e.g. a moved suite or a too-strict filter).
    assert!(run >= 253, "only {run} groups ran");
    assert!(cases >= 980, "only {cases} tests ran");
}

/// Per suite file: groups the subset passes, groups it refuses (and the keywords that made it
/// refuse). Printed as the Markdown table in the crate docs ("The built-in subset"); run with
/// `cargo test -p presa-schema subset_coverage -- --nocapture` to regenerate it.
#[test]
fn subset_coverage() {
    #[derive(Default)]
    struct Row {
        passed: usize,
        refused: usize,
        tests: usize,
        keywords: BTreeMap<String, usize>,
    }
    let mut rows: BTreeMap<String, Row> = BTreeMap::new();
    let mut failures = Vec::new();
    for group in groups() {
        let row = rows.entry(group.file.clone()).or_default();
        match subset_outcome(&group) {
            Outcome::Ran(disagreements) if disagreements.is_empty() => {
                row.passed += 1;
                row.tests += group.tests.len();
            }
            Outcome::Ran(disagreements) => failures.extend(disagreements),
            Outcome::Refused(keyword) => {
                row.refused += 1;
                *row.keywords.entry(keyword).or_default() += 1;
            }
            Outcome::Failed(failure) => failures.push(failure),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    let mut table = String::from(
        "| File | Groups passed (tests) | Groups refused | Refused for |\n|---|---|---|---|\n",
    );
    let (mut passed, mut refused, mut tests) = (0, 0, 0);
    for (file, row) in &rows {
        let keywords: Vec<String> = row
            .keywords
            .iter()
            .map(|(keyword, n)| format!("`{keyword}` ({n})"))
            .collect();
        table.push_str(&format!(
            "| `{}` | {} ({}) | {} | {} |\n",
            file.trim_end_matches(".json"),
            row.passed,
            row.tests,
            row.refused,
            keywords.join(", ")
        ));
        passed += row.passed;
        refused += row.refused;
        tests += row.tests;
    }
    table.push_str(&format!(
        "| **all {} files** | **{passed} ({tests})** | **{refused}** | |\n",
        rows.len()
    ));
    eprintln!("{table}");
    // The crate docs carry this table; keep them in step.
    let docs = include_str!("../../src/lib.rs");
    let documented = table
        .lines()
        .all(|line| docs.contains(&format!("//! {line}")));
    assert!(
        documented,
        "the table in the crate docs (src/lib.rs) is stale; replace it with:\n{table}"
    );
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

/// On every group the subset compiles, the subset and `full` agree on every test: validity
/// from all three entry points, and whether the first error is the same one.
#[cfg(feature = "full")]
#[test]
fn subset_and_full_agree() {
    let options = ValidatorOptions::default();
    let (mut groups_compared, mut cases) = (0, 0);
    let mut failures = Vec::new();
    for group in groups() {
        let Ok(subset) = options.compile_subset(&group.schema) else {
            continue;
        };
        let full = match options.compile_full(&group.schema) {
            Ok(full) => full,
            Err(e) => {
                failures.push(format!(
                    "{} / {}: the subset compiles it, full does not: {e}",
                    group.file, group.description
                ));
                continue;
            }
        };
        groups_compared += 1;
        for (description, data, _) in &group.tests {
            cases += 1;
            let (a, b) = (subset.validate(data), full.validate(data));
            let agree = a.is_ok() == b.is_ok()
                && subset.is_valid(data) == full.is_valid(data)
                && subset.validate_all(data).is_ok() == full.validate_all(data).is_ok();
            if !agree {
                failures.push(format!(
                    "{} / {} / {description}: subset {:?}, full {:?}",
                    group.file,
                    group.description,
                    a.err().map(|e| e.to_string()),
                    b.err().map(|e| e.to_string()),
                ));
            }
        }
    }
    eprintln!("subset and full compared on {groups_compared} groups ({cases} tests)");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        groups_compared >= 253,
        "only {groups_compared} groups compared"
    );
}
