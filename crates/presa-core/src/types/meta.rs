//! `_meta` objects, their reserved keys, and progress tokens.

use std::fmt;

use serde::de::{self, DeserializeOwned, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::RequestId;

/// A JSON object: the type of open members such as `arguments`, `_meta` and capability
/// settings.
pub type JsonObject = Map<String, Value>;

/// The `_meta` member of params, results, notifications and many objects: reserved for protocol
/// and extension metadata. Keys follow the `_meta` key grammar (an optional reverse-DNS prefix
/// ending in `/`, then a name); the keys MCP itself reserves are the `META_*` constants.
pub type Meta = Map<String, Value>;

/// Request `_meta` key: the [`ProgressToken`] that opts in to `notifications/progress` (all
/// revisions).
pub const META_PROGRESS_TOKEN: &str = "progressToken";
/// Request `_meta` key: the protocol revision this request speaks, e.g. `"2026-07-28"`.
/// Required on every request since 2026-07-28.
pub const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// Request `_meta` key: the [`ClientCapabilities`](crate::ClientCapabilities) for this request.
/// Required on every request since 2026-07-28.
pub const META_CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// Request `_meta` key: the client's [`Implementation`](crate::Implementation) (2026-07-28;
/// SHOULD be sent).
pub const META_CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
/// Request `_meta` key: the [`LoggingLevel`](crate::LoggingLevel) that opts in to
/// `notifications/message` for this request (2026-07-28, replaces `logging/setLevel`).
pub const META_LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
/// Result `_meta` key: the server's [`Implementation`](crate::Implementation) (2026-07-28,
/// replaces `InitializeResult.serverInfo`).
pub const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
/// Notification and `subscriptions/listen` result `_meta` key: the id of the
/// `subscriptions/listen` request a message belongs to, with its JSON type kept (2026-07-28).
pub const META_SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";
/// `_meta` key carrying a [`RelatedTaskMetadata`](crate::RelatedTaskMetadata) on messages that
/// belong to a task (2025-11-25 only; removed in 2026-07-28).
pub const META_RELATED_TASK: &str = "io.modelcontextprotocol/related-task";
/// `CreateTaskResult` `_meta` key: an optional, non-binding string the host may show the model
/// while the task runs (2025-11-25 only).
pub const META_MODEL_IMMEDIATE_RESPONSE: &str = "io.modelcontextprotocol/model-immediate-response";
/// `_meta` key reserved for W3C Trace Context propagation.
pub const META_TRACEPARENT: &str = "traceparent";
/// `_meta` key reserved for W3C Trace Context propagation.
pub const META_TRACESTATE: &str = "tracestate";
/// `_meta` key reserved for W3C Baggage propagation.
pub const META_BAGGAGE: &str = "baggage";

/// Typed access to the reserved keys of a [`Meta`] object.
///
/// Getters return `None` when the key is absent or its value has the wrong JSON type; the
/// `*_as` getter reports the deserialization error instead.
///
/// ```
/// use presa_core::{Meta, MetaExt, ProgressToken, META_PROTOCOL_VERSION};
///
/// let mut meta = Meta::new();
/// meta.insert(META_PROTOCOL_VERSION.into(), "2026-07-28".into());
/// meta.set_progress_token(ProgressToken::from(7));
/// assert_eq!(meta.protocol_version(), Some("2026-07-28"));
/// assert_eq!(meta.progress_token(), Some(ProgressToken::Number(7)));
/// ```
pub trait MetaExt {
    /// `io.modelcontextprotocol/protocolVersion`, if it is a string.
    fn protocol_version(&self) -> Option<&str>;
    /// `progressToken`, if it is a string or an integer.
    fn progress_token(&self) -> Option<ProgressToken>;
    /// `io.modelcontextprotocol/subscriptionId`, if it is a string or an integer.
    fn subscription_id(&self) -> Option<RequestId>;
    /// Deserializes the value under `key`; `Ok(None)` when the key is absent.
    fn get_as<T: DeserializeOwned>(&self, key: &str) -> Result<Option<T>, serde_json::Error>;
    /// Sets `progressToken`.
    fn set_progress_token(&mut self, token: ProgressToken);
    /// Serializes `value` under `key`, replacing any previous value.
    fn insert_as<T: Serialize + ?Sized>(
        &mut self,
        key: &str,
        value: &T,
    ) -> Result<(), serde_json::Error>;
}

impl MetaExt for Meta {
    fn protocol_version(&self) -> Option<&str> {
        self.get(META_PROTOCOL_VERSION).and_then(Value::as_str)
    }

    fn progress_token(&self) -> Option<ProgressToken> {
        self.get(META_PROGRESS_TOKEN)
            .and_then(|v| ProgressToken::deserialize(v).ok())
    }

    fn subscription_id(&self) -> Option<RequestId> {
        self.get(META_SUBSCRIPTION_ID)
            .and_then(|v| RequestId::deserialize(v).ok())
    }

    fn get_as<T: DeserializeOwned>(&self, key: &str) -> Result<Option<T>, serde_json::Error> {
        self.get(key).map(T::deserialize).transpose()
    }

    fn set_progress_token(&mut self, token: ProgressToken) {
        let value = match token {
            ProgressToken::Number(n) => Value::from(n),
            ProgressToken::String(s) => Value::from(s),
        };
        self.insert(META_PROGRESS_TOKEN.to_owned(), value);
    }

    fn insert_as<T: Serialize + ?Sized>(
        &mut self,
        key: &str,
        value: &T,
    ) -> Result<(), serde_json::Error> {
        self.insert(key.to_owned(), serde_json::to_value(value)?);
        Ok(())
    }
}

/// Access to the `_meta` member of a params, result or notification type, for code that handles
/// many of them generically (e.g. stamping `serverInfo` on every result).
pub trait HasMeta {
    /// The `_meta` object, if present.
    fn meta(&self) -> Option<&Meta>;
    /// The `_meta` slot, to set or edit it.
    fn meta_mut(&mut self) -> &mut Option<Meta>;
    /// The `_meta` object, created empty if absent.
    fn meta_or_default(&mut self) -> &mut Meta {
        self.meta_mut().get_or_insert_with(Meta::new)
    }
}

/// A progress token: a string or an integer, chosen by the requester and echoed in
/// `notifications/progress`. Like [`RequestId`], `1` and `"1"` are different tokens.
///
/// ```
/// use presa_core::ProgressToken;
///
/// let n: ProgressToken = serde_json::from_str("1").unwrap();
/// let s: ProgressToken = serde_json::from_str("\"1\"").unwrap();
/// assert_ne!(n, s);
/// assert_eq!(s.to_string(), "\"1\"");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ProgressToken {
    /// An integer token.
    Number(i64),
    /// A string token.
    String(String),
}

impl fmt::Display for ProgressToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Number(n) => write!(f, "{n}"),
            Self::String(s) => write!(f, "{s:?}"),
        }
    }
}

impl From<i64> for ProgressToken {
    fn from(n: i64) -> Self {
        Self::Number(n)
    }
}

impl From<i32> for ProgressToken {
    fn from(n: i32) -> Self {
        Self::Number(n.into())
    }
}

impl From<u32> for ProgressToken {
    fn from(n: u32) -> Self {
        Self::Number(n.into())
    }
}

impl From<String> for ProgressToken {
    fn from(s: String) -> Self {
        Self::String(s)
    }
}

impl From<&str> for ProgressToken {
    fn from(s: &str) -> Self {
        Self::String(s.to_owned())
    }
}

impl From<RequestId> for ProgressToken {
    fn from(id: RequestId) -> Self {
        match id {
            RequestId::Number(n) => Self::Number(n),
            RequestId::String(s) => Self::String(s),
        }
    }
}

impl Serialize for ProgressToken {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Number(n) => serializer.serialize_i64(*n),
            Self::String(s) => serializer.serialize_str(s),
        }
    }
}

impl<'de> Deserialize<'de> for ProgressToken {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct TokenVisitor;
        impl Visitor<'_> for TokenVisitor {
            type Value = ProgressToken;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string or an integer")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<ProgressToken, E> {
                Ok(ProgressToken::Number(v))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<ProgressToken, E> {
                i64::try_from(v)
                    .map(ProgressToken::Number)
                    .map_err(|_| E::invalid_value(de::Unexpected::Unsigned(v), &self))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<ProgressToken, E> {
                Ok(ProgressToken::String(v.to_owned()))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<ProgressToken, E> {
                Ok(ProgressToken::String(v))
            }
        }
        deserializer.deserialize_any(TokenVisitor)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn progress_token_keeps_its_json_type() {
        let n: ProgressToken = serde_json::from_str("1").unwrap();
        let s: ProgressToken = serde_json::from_str("\"1\"").unwrap();
        assert_eq!(n, ProgressToken::Number(1));
        assert_eq!(s, ProgressToken::String("1".into()));
        assert_eq!(serde_json::to_string(&n).unwrap(), "1");
        assert_eq!(serde_json::to_string(&s).unwrap(), "\"1\"");
        for bad in ["null", "1.5", "true", "[]", "{}"] {
            assert!(serde_json::from_str::<ProgressToken>(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn meta_getters_ignore_wrong_types() {
        let meta: Meta = serde_json::from_str(
            r#"{"progressToken": 1.5, "io.modelcontextprotocol/protocolVersion": 3,
                "io.modelcontextprotocol/subscriptionId": 7}"#,
        )
        .unwrap();
        assert_eq!(meta.progress_token(), None);
        assert_eq!(meta.protocol_version(), None);
        assert_eq!(meta.subscription_id(), Some(RequestId::Number(7)));
        assert!(meta.get_as::<String>(META_PROTOCOL_VERSION).is_err());
        assert_eq!(meta.get_as::<String>(META_CLIENT_INFO).unwrap(), None);
    }
}
