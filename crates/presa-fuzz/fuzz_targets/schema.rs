//! JSON Schema compilation and validation (`presa_schema`): any schema compiles or fails with a
//! `SchemaError`, in the built-in subset and in `full`; validating any instance never panics,
//! `validate`, `validate_all` and `is_valid` agree; and where the subset compiles a schema,
//! `full` compiles it too and both give the same verdict on the instance.
//!
//! Input: a JSON `[schema, instance]`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use presa_schema::{FullValidator, SubsetValidator, Validator};
use serde_json::Value;

fn verdict(validator: &dyn Validator, instance: &Value) -> bool {
    let valid = validator.is_valid(instance);
    assert_eq!(
        validator.validate(instance).is_ok(),
        valid,
        "validate and is_valid disagree"
    );
    match validator.validate_all(instance) {
        Ok(()) => assert!(valid, "validate_all found no error for an invalid instance"),
        Err(errors) => {
            assert!(!valid, "validate_all found errors for a valid instance");
            assert!(
                errors.iter().next().is_some(),
                "an error list without errors"
            );
        }
    }
    valid
}

/// Whether a string anywhere in `schema` (a pattern, a `patternProperties` key) holds `[]` or
/// `[^]`.
fn has_empty_class(schema: &Value) -> bool {
    let empty = |text: &str| text.contains("[]") || text.contains("[^]");
    match schema {
        Value::String(text) => empty(text),
        Value::Array(items) => items.iter().any(has_empty_class),
        Value::Object(members) => members
            .iter()
            .any(|(key, value)| empty(key) || has_empty_class(value)),
        _ => false,
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(Value::Array(case)) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    let [schema, instance] = case.as_slice() else {
        return;
    };
    let subset = SubsetValidator::new(schema);
    let full = FullValidator::new(schema);
    let full_verdict = full.as_ref().ok().map(|full| verdict(full, instance));
    if let Ok(subset) = subset {
        let subset_verdict = verdict(&subset, instance);
        let Some(full_verdict) = full_verdict else {
            // the one known difference: the subset's fancy-regex takes ECMA-262's Annex B
            // forms (a lone `{`) that full's pattern check refuses
            if full
                .as_ref()
                .err()
                .is_some_and(|e| e.to_string().contains("regex"))
            {
                return;
            }
            panic!(
                "the subset compiles {schema}, full does not: {:?}",
                full.err()
            );
        };
        // the other known difference: ECMA-262 reads `[]` as a class of nothing and `[^]` as
        // one of anything; full's engine reads them as the start of a class holding `]`
        if subset_verdict != full_verdict && has_empty_class(schema) {
            return;
        }
        assert_eq!(
            subset_verdict, full_verdict,
            "on {schema} the subset says {subset_verdict}, full {full_verdict} for {instance}"
        );
    }
});
