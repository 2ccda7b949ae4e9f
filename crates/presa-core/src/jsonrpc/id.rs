//! Request ids.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A JSON-RPC request id: a string or an integer, never `null`.
///
/// `92` and `"92"` are different ids, and [`Display`](fmt::Display) tells them apart by quoting
/// strings.
///
/// ```
/// use presa_core::RequestId;
///
/// let number = RequestId::from(92);
/// let string = RequestId::from("92");
/// assert_ne!(number, string);
/// assert_eq!(number.to_string(), "92");
/// assert_eq!(string.to_string(), "\"92\"");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RequestId {
    /// An integer id.
    Number(i64),
    /// A string id.
    String(String),
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Number(n) => write!(f, "{n}"),
            Self::String(s) => write!(f, "{s:?}"),
        }
    }
}

impl From<i64> for RequestId {
    fn from(n: i64) -> Self {
        Self::Number(n)
    }
}

impl From<i32> for RequestId {
    fn from(n: i32) -> Self {
        Self::Number(n.into())
    }
}

impl From<u32> for RequestId {
    fn from(n: u32) -> Self {
        Self::Number(n.into())
    }
}

impl From<String> for RequestId {
    fn from(s: String) -> Self {
        Self::String(s)
    }
}

impl From<&str> for RequestId {
    fn from(s: &str) -> Self {
        Self::String(s.to_owned())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn integer_and_string_ids_stay_apart_on_the_wire() {
        let n: RequestId = serde_json::from_str("92").unwrap();
        let s: RequestId = serde_json::from_str("\"92\"").unwrap();
        assert_eq!(n, RequestId::Number(92));
        assert_eq!(s, RequestId::String("92".into()));
        assert_eq!(serde_json::to_string(&n).unwrap(), "92");
        assert_eq!(serde_json::to_string(&s).unwrap(), "\"92\"");
    }

    #[test]
    fn null_fractional_and_structured_ids_are_rejected() {
        for bad in ["null", "1.5", "[1]", "{}", "true"] {
            assert!(serde_json::from_str::<RequestId>(bad).is_err(), "{bad}");
        }
    }
}
