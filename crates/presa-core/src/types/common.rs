//! Building blocks shared by many messages: `resultType`, cache hints, params that carry only
//! `_meta`, pagination, the empty result, roles, annotations and icons.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::serde_util;
use crate::Meta;

/// The `resultType` member of a 2026-07-28 result: how the client must read the rest.
///
/// Initialize-era results carry no `resultType`; a missing one means [`ResultType::Complete`].
/// Values other than the two core ones belong to extensions (the tasks extension adds
/// `"task"`) and are kept in [`ResultType::Other`].
///
/// ```
/// use presa_core::ResultType;
///
/// let rt: ResultType = serde_json::from_str("\"task\"").unwrap();
/// assert_eq!(rt, ResultType::Other("task".into()));
/// assert_eq!(serde_json::to_string(&ResultType::InputRequired).unwrap(), "\"input_required\"");
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum ResultType {
    /// `"complete"`: the method's ordinary result.
    #[default]
    Complete,
    /// `"input_required"`: an [`InputRequiredResult`](crate::InputRequiredResult) (MRTR).
    InputRequired,
    /// Any other value, defined by an extension (e.g. `"task"`).
    Other(String),
}

impl ResultType {
    /// The wire string.
    pub fn as_str(&self) -> &str {
        match self {
            Self::Complete => "complete",
            Self::InputRequired => "input_required",
            Self::Other(s) => s,
        }
    }

    /// Reads a wire string.
    pub fn from_wire(s: &str) -> Self {
        match s {
            "complete" => Self::Complete,
            "input_required" => Self::InputRequired,
            other => Self::Other(other.to_owned()),
        }
    }
}

impl fmt::Display for ResultType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for ResultType {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ResultType {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct RtVisitor;
        impl serde::de::Visitor<'_> for RtVisitor {
            type Value = ResultType;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a result type string")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<ResultType, E> {
                Ok(ResultType::from_wire(v))
            }
        }
        deserializer.deserialize_str(RtVisitor)
    }
}

/// Access to the `resultType` member of a result type, for code that stamps results generically
/// (the server sets it for 2026-07-28 and clears it for the initialize era).
pub trait HasResultType {
    /// The `resultType`, if present.
    fn result_type(&self) -> Option<&ResultType>;
    /// Sets or clears `resultType`.
    fn set_result_type(&mut self, result_type: Option<ResultType>);
}

/// The `cacheScope` cache hint (2026-07-28): who may reuse a cached result.
///
/// Unknown values are read as [`CacheScope::Private`], the safe reading (also presa's reading of
/// an absent `cacheScope`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CacheScope {
    /// No user-specific content: any client, gateway or proxy may store and share it.
    Public,
    /// Reusable only within the same authorization context.
    #[default]
    Private,
}

impl<'de> Deserialize<'de> for CacheScope {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ScopeVisitor;
        impl serde::de::Visitor<'_> for ScopeVisitor {
            type Value = CacheScope;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("\"public\" or \"private\"")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<CacheScope, E> {
                Ok(if v == "public" {
                    CacheScope::Public
                } else {
                    CacheScope::Private
                })
            }
        }
        deserializer.deserialize_str(ScopeVisitor)
    }
}

/// Params made of `_meta` only: `server/discover`, `ping`, `roots/list` (schema `RequestParams`).
///
/// In 2026-07-28 every request carries params with `_meta` (protocol version, client
/// capabilities); in the initialize era params are optional and `_meta` only carries
/// `progressToken`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RequestParams {
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// Params of notifications that carry only `_meta` (`notifications/initialized`, the
/// `list_changed` notifications).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct NotificationParams {
    /// Notification metadata (2026-07-28: `io.modelcontextprotocol/subscriptionId` on listen
    /// streams).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// Params of the paginated list methods (`tools/list`, `prompts/list`, `resources/list`,
/// `resources/templates/list`, 2025-11-25 `tasks/list`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PaginatedRequestParams {
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// The opaque `nextCursor` of the previous page; absent for the first page. An empty string
    /// is a valid cursor.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
}

impl PaginatedRequestParams {
    /// Params asking for the page after `cursor`.
    pub fn with_cursor(cursor: impl Into<String>) -> Self {
        Self {
            meta: None,
            cursor: Some(cursor.into()),
        }
    }
}

/// A result without members of its own (`ping`, `logging/setLevel`, `resources/subscribe`,
/// `resources/unsubscribe`). Serializes as `{}` when both fields are `None` — the `ping` reply
/// must be literally empty.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EmptyResult {
    /// 2026-07-28 only: the result type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// The sender of a message, or an intended audience.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The user.
    User,
    /// The assistant (the model).
    Assistant,
}

/// Hints on how to use or display an object (resources, templates, content blocks).
/// Since 2025-03-26 as a named type; 2024-11-05 had `audience` and `priority` inline.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Annotations {
    /// Who the object is meant for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audience: Option<Vec<Role>>,
    /// Importance from 0.0 (optional) to 1.0 (effectively required).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "serde_util::opt_f64_compact"
    )]
    pub priority: Option<f64>,
    /// ISO 8601 timestamp of the last modification. Since 2025-06-18.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_modified: Option<String>,
}

/// An icon for display (`icons` on implementations, tools, prompts, resources). Since
/// 2025-11-25.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Icon {
    /// An `https:` or `data:` URI.
    pub src: String,
    /// The MIME type, if the URI does not make it evident.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Sizes such as `"48x48"` or `"any"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sizes: Option<Vec<String>>,
    /// The theme the icon is designed for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub theme: Option<IconTheme>,
}

impl Icon {
    /// An icon at `src` without further hints.
    pub fn new(src: impl Into<String>) -> Self {
        Self {
            src: src.into(),
            ..Self::default()
        }
    }
}

/// The background an [`Icon`] is designed for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum IconTheme {
    /// For a light background.
    Light,
    /// For a dark background.
    Dark,
}

impl_has_meta!(
    RequestParams,
    NotificationParams,
    PaginatedRequestParams,
    EmptyResult
);
impl_has_result_type!(EmptyResult);

/// What kind of JSON value `value` is, as an error message names it: `null`, `a boolean`,
/// `a number`, `a string`, `an array`, `an object`.
///
/// ```
/// assert_eq!(presa_core::json_kind(&serde_json::json!([1])), "an array");
/// ```
pub fn json_kind(value: &serde_json::Value) -> &'static str {
    use serde_json::Value;
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn result_type_round_trips_every_value() {
        for (wire, rt) in [
            ("complete", ResultType::Complete),
            ("input_required", ResultType::InputRequired),
            ("task", ResultType::Other("task".into())),
        ] {
            let json = format!("\"{wire}\"");
            assert_eq!(serde_json::from_str::<ResultType>(&json).unwrap(), rt);
            assert_eq!(serde_json::to_string(&rt).unwrap(), json);
        }
    }

    #[test]
    fn empty_result_is_literally_empty() {
        assert_eq!(
            serde_json::to_string(&EmptyResult::default()).unwrap(),
            "{}"
        );
    }

    #[test]
    fn unknown_cache_scope_reads_as_private() {
        let scope: CacheScope = serde_json::from_str("\"shared\"").unwrap();
        assert_eq!(scope, CacheScope::Private);
        assert_eq!(
            serde_json::to_string(&CacheScope::Public).unwrap(),
            "\"public\""
        );
    }
}
