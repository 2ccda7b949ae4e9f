//! Helpers over instance values: JSON equality (`1 == 1.0`), a hash consistent with it,
//! duplicate search for `uniqueItems`, and the nesting-depth check.
//!
//! Recursion here follows the instance, so callers check the instance depth first
//! ([`too_deep`]); the walk below is then bounded by the configured limit.

use std::hash::{DefaultHasher, Hash, Hasher};

use serde_json::Value;

use crate::number::Num;
use crate::pointer::Path;

/// JSON equality: numbers compare by value, objects ignore key order.
pub(crate) fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::Bool(a), Value::Bool(b)) => a == b,
        (Value::Number(a), Value::Number(b)) => Num::of(a).equals(Num::of(b)),
        (Value::String(a), Value::String(b)) => a == b,
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(a, b)| json_eq(a, b))
        }
        (Value::Object(a), Value::Object(b)) => {
            a.len() == b.len()
                && a.iter()
                    .all(|(key, a)| b.get(key).is_some_and(|b| json_eq(a, b)))
        }
        _ => false,
    }
}

/// A hash consistent with [`json_eq`].
fn json_hash(value: &Value, state: &mut impl Hasher) {
    match value {
        Value::Null => state.write_u8(0),
        Value::Bool(b) => {
            state.write_u8(1);
            b.hash(state);
        }
        Value::Number(n) => {
            state.write_u8(2);
            Num::of(n).hash_into(state);
        }
        Value::String(s) => {
            state.write_u8(3);
            s.hash(state);
        }
        Value::Array(items) => {
            state.write_u8(4);
            state.write_usize(items.len());
            for item in items {
                json_hash(item, state);
            }
        }
        Value::Object(map) => {
            // Order-independent: sum the hashes of the entries.
            state.write_u8(5);
            state.write_usize(map.len());
            let mut sum = 0u64;
            for (key, value) in map {
                let mut entry = DefaultHasher::new();
                key.hash(&mut entry);
                json_hash(value, &mut entry);
                sum = sum.wrapping_add(entry.finish());
            }
            state.write_u64(sum);
        }
    }
}

/// Below this length, compare pairs directly; above, bucket by hash first.
const PAIRWISE_MAX: usize = 16;

/// The first pair of equal items `(i, j)`, `i < j`, smallest `j` first; `None` if all differ.
pub(crate) fn find_duplicate(items: &[Value]) -> Option<(usize, usize)> {
    if items.len() <= PAIRWISE_MAX {
        for (j, b) in items.iter().enumerate() {
            if let Some(i) = items.get(..j)?.iter().position(|a| json_eq(a, b)) {
                return Some((i, j));
            }
        }
        return None;
    }
    let mut hashed: Vec<(u64, usize)> = items
        .iter()
        .enumerate()
        .map(|(index, item)| {
            let mut state = DefaultHasher::new();
            json_hash(item, &mut state);
            (state.finish(), index)
        })
        .collect();
    hashed.sort_unstable();
    let mut best: Option<(usize, usize)> = None;
    for run in hashed.chunk_by(|a, b| a.0 == b.0) {
        for (k, &(_, j)) in run.iter().enumerate().skip(1) {
            if best.is_some_and(|(_, best_j)| best_j <= j) {
                break;
            }
            let earlier = run.get(..k)?;
            if let Some(&(_, i)) = earlier.iter().find(|&&(_, i)| {
                items
                    .get(i)
                    .zip(items.get(j))
                    .is_some_and(|(a, b)| json_eq(a, b))
            }) {
                best = Some((i, j));
                break;
            }
        }
    }
    best
}

/// If `value` nests more than `limit` arrays/objects deep, the pointer of the first container
/// past the limit. Recursion is bounded by `limit`.
pub(crate) fn too_deep(value: &Value, limit: usize) -> Option<String> {
    too_deep_at(value, limit, Path::Root)
}

fn too_deep_at(value: &Value, remaining: usize, path: Path<'_>) -> Option<String> {
    match value {
        Value::Array(items) => {
            if remaining == 0 {
                return Some(path.to_pointer());
            }
            items
                .iter()
                .enumerate()
                .filter(|(_, item)| is_container(item))
                .find_map(|(index, item)| too_deep_at(item, remaining - 1, path.index(index)))
        }
        Value::Object(map) => {
            if remaining == 0 {
                return Some(path.to_pointer());
            }
            map.iter()
                .filter(|(_, item)| is_container(item))
                .find_map(|(key, item)| too_deep_at(item, remaining - 1, path.key(key)))
        }
        _ => None,
    }
}

fn is_container(value: &Value) -> bool {
    matches!(value, Value::Array(_) | Value::Object(_))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use serde_json::json;

    #[test]
    fn equality_is_numeric_and_order_free() {
        assert!(json_eq(&json!(1), &json!(1.0)));
        assert!(json_eq(
            &json!({"a": [1, {"b": 2.0}], "c": null}),
            &json!({"c": null, "a": [1.0, {"b": 2}]})
        ));
        assert!(!json_eq(&json!([1, 2]), &json!([2, 1])));
        assert!(!json_eq(&json!(false), &json!(0)));
        assert!(!json_eq(&json!({"a": 1}), &json!({"a": 1, "b": 2})));
    }

    #[test]
    fn duplicates_found_in_small_and_large_arrays() {
        assert_eq!(
            find_duplicate(&[json!(1), json!("1"), json!(1.0)]),
            Some((0, 2))
        );
        assert_eq!(find_duplicate(&[json!(1), json!(true)]), None);
        let mut many: Vec<Value> = (0..1000).map(|i| json!({"n": i})).collect();
        assert_eq!(find_duplicate(&many), None);
        many.push(json!({"n": 500.0}));
        many.push(json!({"n": 7}));
        assert_eq!(find_duplicate(&many), Some((500, 1000)));
    }

    #[test]
    fn depth_counts_containers() {
        assert_eq!(too_deep(&json!([[1]]), 2), None);
        assert_eq!(too_deep(&json!([[1]]), 1).as_deref(), Some("/0"));
        assert_eq!(
            too_deep(&json!({"a": [{"b": 1}]}), 2).as_deref(),
            Some("/a/0")
        );
        assert_eq!(too_deep(&json!("deep"), 0), None);
        assert_eq!(too_deep(&json!([]), 0).as_deref(), Some("/"));
    }
}
