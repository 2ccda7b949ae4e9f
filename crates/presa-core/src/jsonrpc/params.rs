//! Reading a request's params, which MCP requires to be a JSON object.

use serde_json::value::RawValue;

use super::ErrorObject;

/// Reads a request's params as `T`; absent params read as `{}`. MCP's params are an object:
/// anything else (an array, which serde's derived readers would take as the fields in order)
/// is refused. Failure is `-32602`.
///
/// ```
/// use presa_core::{ErrorCode, parse_params};
/// use serde_json::value::RawValue;
///
/// #[derive(serde::Deserialize)]
/// struct Call { name: String }
///
/// let object = RawValue::from_string(r#"{"name":"add"}"#.to_owned()).unwrap();
/// assert_eq!(parse_params::<Call>(Some(&object)).unwrap().name, "add");
/// let array = RawValue::from_string(r#"["add"]"#.to_owned()).unwrap();
/// let refused = parse_params::<Call>(Some(&array)).err().unwrap();
/// assert_eq!(refused.code, ErrorCode::INVALID_PARAMS);
/// ```
pub fn parse_params<T: serde::de::DeserializeOwned>(
    params: Option<&RawValue>,
) -> Result<T, ErrorObject> {
    let text = match params {
        None => "{}",
        Some(params) => object_text(params).ok_or_else(|| {
            ErrorObject::invalid_params("Invalid params: params must be an object")
        })?,
    };
    serde_json::from_str(text)
        .map_err(|e| ErrorObject::invalid_params(format!("Invalid params: {e}")))
}

/// The text of raw params that are a JSON object: what a struct reader may read members from
/// (serde's derived readers take an array too, its elements as the fields in order).
pub(crate) fn object_text(params: &RawValue) -> Option<&str> {
    let text = params.get();
    text.trim_start().starts_with('{').then_some(text)
}
