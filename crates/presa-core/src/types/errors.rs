//! Typed `data` of the protocol's JSON-RPC errors.

use serde::{Deserialize, Serialize};

use crate::{ClientCapabilities, ElicitRequestUrlParams, ErrorCode, ErrorObject};

/// `data` of `-32022` UnsupportedProtocolVersion (2026-07-28), also the documented shape of the
/// initialize era's "unsupported protocol version" `-32602`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnsupportedProtocolVersionData {
    /// Revisions the server supports.
    pub supported: Vec<String>,
    /// The revision the request asked for.
    pub requested: String,
}

impl UnsupportedProtocolVersionData {
    /// The `-32022` error carrying this data, with a message listing the supported versions.
    pub fn into_error(self) -> ErrorObject {
        let message = format!(
            "Protocol version {} is not supported (supported: {})",
            self.requested,
            self.supported.join(", ")
        );
        ErrorObject::new(ErrorCode::UNSUPPORTED_PROTOCOL_VERSION, message).with_data(to_data(&self))
    }
}

/// `data` of `-32021` MissingRequiredClientCapability (2026-07-28).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MissingRequiredClientCapabilityData {
    /// The capabilities the request would have needed.
    pub required_capabilities: ClientCapabilities,
}

impl MissingRequiredClientCapabilityData {
    /// The `-32021` error carrying this data.
    pub fn into_error(self, message: impl Into<String>) -> ErrorObject {
        ErrorObject::new(ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY, message)
            .with_data(to_data(&self))
    }
}

/// `data` of `-32042` URLElicitationRequired (2025-11-25 only).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct UrlElicitationRequiredData {
    /// The URL elicitations to complete first (each with an `elicitationId`).
    pub elicitations: Vec<ElicitRequestUrlParams>,
}

impl UrlElicitationRequiredData {
    /// The `-32042` error carrying this data.
    pub fn into_error(self, message: impl Into<String>) -> ErrorObject {
        ErrorObject::new(ErrorCode::URL_ELICITATION_REQUIRED, message).with_data(to_data(&self))
    }
}

/// `data` of a resource-not-found error (`-32602` since 2026-07-28, `-32002` before).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResourceNotFoundData {
    /// The URI that was not found.
    pub uri: String,
}

impl ResourceNotFoundData {
    /// The error for `uri` with the code of `era`: `-32602` on 2026-07-28, else `-32002`.
    pub fn into_error(self, era: crate::Era) -> ErrorObject {
        let code = match era {
            crate::Era::Stateless => ErrorCode::INVALID_PARAMS,
            crate::Era::Initialize => ErrorCode::RESOURCE_NOT_FOUND,
        };
        ErrorObject::new(code, "Resource not found").with_data(to_data(&self))
    }
}

fn to_data<T: Serialize>(data: &T) -> serde_json::Value {
    // These types hold only strings, lists and string-keyed objects: serialization cannot fail.
    serde_json::to_value(data).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use serde_json::json;

    use super::*;

    #[test]
    fn unsupported_version_error() {
        let error = UnsupportedProtocolVersionData {
            supported: vec!["2026-07-28".into()],
            requested: "1900-01-01".into(),
        }
        .into_error();
        assert_eq!(error.code, ErrorCode::UNSUPPORTED_PROTOCOL_VERSION);
        assert_eq!(
            error.data,
            Some(json!({"supported": ["2026-07-28"], "requested": "1900-01-01"}))
        );
    }
}
