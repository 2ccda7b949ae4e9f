//! Serde helpers shared by the wire types: compact numbers, present-but-null values, lenient cache
//! hints, and literal marker types for constant members such as `"type": "string"`.

use serde::{Deserialize, Deserializer, Serializer};
use serde_json::Value;

/// Largest integer an `f64` holds exactly (2^53).
const EXACT_F64_INT: f64 = 9_007_199_254_740_992.0;

/// Writes an integral `f64` as a JSON integer (`50`, not `50.0`), like a JavaScript peer would;
/// other values are written as floats.
pub(crate) fn f64_compact<S: Serializer>(value: &f64, serializer: S) -> Result<S::Ok, S::Error> {
    let v = *value;
    if v.is_finite() && v.fract() == 0.0 && v.abs() < EXACT_F64_INT {
        // Exact: the value is integral and within the range an i64 (and an f64) holds exactly.
        #[allow(clippy::cast_possible_truncation)]
        serializer.serialize_i64(v as i64)
    } else {
        serializer.serialize_f64(v)
    }
}

/// [`f64_compact`] for optional members (used with `skip_serializing_if = "Option::is_none"`).
#[allow(clippy::ref_option)] // serde's `serialize_with` passes `&Option<T>`
pub(crate) fn opt_f64_compact<S: Serializer>(
    value: &Option<f64>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    match value {
        Some(v) => f64_compact(v, serializer),
        None => serializer.serialize_none(),
    }
}

/// Deserializes a member whose presence matters even when its value is `null`: any value,
/// `null` included, becomes `Some`; an absent member stays `None` (with `#[serde(default)]`).
pub(crate) fn present<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Value>, D::Error> {
    Value::deserialize(deserializer).map(Some)
}

/// Lenient `ttlMs`: clients SHOULD treat a negative value as `0` (2026-07-28, caching), so a
/// negative or fractional number never fails the whole result. `null` reads as absent.
pub(crate) fn lenient_ttl<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<u64>, D::Error> {
    let number: Option<serde_json::Number> = Option::deserialize(deserializer)?;
    Ok(number.map(|n| {
        if let Some(u) = n.as_u64() {
            u
        } else if n.as_i64().is_some() {
            0 // negative integer
        } else {
            let f = n.as_f64().unwrap_or(0.0);
            if f.is_finite() && f > 0.0 {
                // Saturating float-to-int conversion; fractions are dropped.
                #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                let u = f as u64;
                u
            } else {
                0
            }
        }
    }))
}

/// Defines a zero-sized marker type that serializes as one fixed string and accepts only that
/// string, for constant members such as `"type": "object"` or `"mode": "url"`.
macro_rules! literal_tag {
    ($(#[$doc:meta])* $name:ident = $literal:literal) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        pub struct $name;

        impl $name {
            /// The literal this marker stands for.
            pub const VALUE: &'static str = $literal;
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str($literal)
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                struct LiteralVisitor;
                impl serde::de::Visitor<'_> for LiteralVisitor {
                    type Value = $name;
                    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                        f.write_str(concat!("the string \"", $literal, "\""))
                    }
                    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<$name, E> {
                        if v == $literal {
                            Ok($name)
                        } else {
                            Err(E::invalid_value(serde::de::Unexpected::Str(v), &self))
                        }
                    }
                }
                deserializer.deserialize_str(LiteralVisitor)
            }
        }
    };
}

/// Implements [`HasMeta`](crate::HasMeta) for structs with a `meta: Option<Meta>` field.
macro_rules! impl_has_meta {
    ($($ty:ty),* $(,)?) => {
        $(
            impl $crate::HasMeta for $ty {
                fn meta(&self) -> Option<&$crate::Meta> {
                    self.meta.as_ref()
                }
                fn meta_mut(&mut self) -> &mut Option<$crate::Meta> {
                    &mut self.meta
                }
            }
        )*
    };
}

/// Implements [`HasResultType`](crate::HasResultType) for results with a
/// `result_type: Option<ResultType>` field.
macro_rules! impl_has_result_type {
    ($($ty:ty),* $(,)?) => {
        $(
            impl $crate::HasResultType for $ty {
                fn result_type(&self) -> Option<&$crate::ResultType> {
                    self.result_type.as_ref()
                }
                fn set_result_type(&mut self, result_type: Option<$crate::ResultType>) {
                    self.result_type = result_type;
                }
            }
        )*
    };
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use serde::Serialize;

    #[derive(Serialize, serde::Deserialize)]
    struct Num {
        #[serde(serialize_with = "super::f64_compact")]
        x: f64,
    }

    #[test]
    fn integral_floats_are_written_as_integers() {
        assert_eq!(
            serde_json::to_string(&Num { x: 50.0 }).unwrap(),
            r#"{"x":50}"#
        );
        assert_eq!(
            serde_json::to_string(&Num { x: -3.0 }).unwrap(),
            r#"{"x":-3}"#
        );
        assert_eq!(
            serde_json::to_string(&Num { x: 0.25 }).unwrap(),
            r#"{"x":0.25}"#
        );
        assert_eq!(
            serde_json::to_string(&Num { x: 1e300 }).unwrap(),
            r#"{"x":1e+300}"#
        );
    }

    #[derive(serde::Deserialize)]
    struct Ttl {
        #[serde(default, deserialize_with = "super::lenient_ttl")]
        ttl: Option<u64>,
    }

    #[test]
    fn ttl_is_lenient() {
        let read = |s: &str| serde_json::from_str::<Ttl>(s).unwrap().ttl;
        assert_eq!(read(r#"{"ttl":5}"#), Some(5));
        assert_eq!(read(r#"{"ttl":-5}"#), Some(0));
        assert_eq!(read(r#"{"ttl":2.7}"#), Some(2));
        assert_eq!(read(r#"{"ttl":null}"#), None);
        assert_eq!(read(r#"{}"#), None);
    }
}
