//! A request's params from what the caller gives: any `Serialize` value that is a JSON object
//! (or `null`, for none), and `tools/call`'s name and arguments.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::error::ClientError;

/// The params of `tools/call`: `name`, and `arguments` when they serialize to an object (none
/// for `null`).
pub(crate) fn tool_params(
    name: String,
    arguments: &impl Serialize,
) -> Result<Map<String, Value>, ClientError> {
    object_or_null(arguments).map(|arguments| {
        let mut params = Map::new();
        params.insert("name".into(), Value::String(name));
        if let Some(arguments) = arguments {
            params.insert("arguments".into(), Value::Object(arguments));
        }
        params
    })
}

/// Serializes params: an object, or nothing for `null`.
pub(crate) fn object_or_null(
    value: &impl Serialize,
) -> Result<Option<Map<String, Value>>, ClientError> {
    match serde_json::to_value(value) {
        Ok(Value::Object(map)) => Ok(Some(map)),
        Ok(Value::Null) => Ok(None),
        Ok(other) => Err(ClientError::InvalidParams(format!(
            "expected a JSON object, got {}",
            presa_core::json_kind(&other)
        ))),
        Err(e) => Err(ClientError::InvalidParams(e.to_string())),
    }
}
