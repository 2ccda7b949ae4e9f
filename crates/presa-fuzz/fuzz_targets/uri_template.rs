//! URI templates (`presa_core::UriTemplate`): parsing any text succeeds or fails cleanly;
//! matching any URI never panics; a template expanded with non-empty values matches the
//! expansion, and for a single simple variable gives the value back.
//!
//! Input: the template, then NUL-separated values for its variables, then (after a second
//! NUL run) a URI to match as it is.
#![no_main]

use libfuzzer_sys::fuzz_target;
use presa_core::{UriTemplate, percent_decode};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut parts = text.split('\0');
    let template = parts.next().unwrap_or_default();
    let values: Vec<&str> = parts.collect();
    for value in &values {
        let _ = percent_decode(value);
    }
    let Ok(parsed) = UriTemplate::parse(template) else {
        return;
    };
    for value in &values {
        let _ = parsed.match_uri(value);
    }
    let names: Vec<String> = parsed.variables().map(str::to_owned).collect();
    if values.len() < names.len() || values.iter().take(names.len()).any(|v| v.is_empty()) {
        return;
    }
    let vars: Vec<(&str, &str)> = names
        .iter()
        .map(String::as_str)
        .zip(values.iter().copied())
        .collect();
    let expanded = parsed.expand(vars.iter().copied());
    let matched = parsed.match_uri(&expanded).unwrap_or_else(|| {
        panic!("{template:?} expanded with {vars:?} to {expanded:?}, which it does not match")
    });
    assert!(parsed.is_match(&expanded));
    if let [name] = names.as_slice() {
        // a lone variable is unambiguous: `{var}` gives the value back decoded, `{+var}` as
        // written in the expansion
        let simple = !template.contains("{+");
        let got = &matched[name];
        if simple {
            assert_eq!(got, vars[0].1, "{template:?} on {expanded:?}");
        } else {
            assert!(expanded.contains(got.as_str()));
        }
    }
});
