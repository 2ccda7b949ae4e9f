//! What the server reads from a request's params and writes as a result beyond presa-core's
//! types: the names a request targets, and a result as the raw JSON a response carries.

use presa_core::{CompletionReference, ErrorObject, RawJson, to_raw};
use serde::Serialize;
use serde_json::value::RawValue;

/// `result` serialized for a response; a value that cannot be serialized (a map with non-string
/// keys, a failing `Serialize` impl) is an internal error, not a panic.
pub(crate) fn raw(result: &impl Serialize) -> Result<RawJson, ErrorObject> {
    to_raw(result)
        .map_err(|e| ErrorObject::internal_error(format!("result could not be serialized: {e}")))
}

/// The members of a request's params that name what it is about (a tool's or prompt's name, a
/// resource's URI, a completion's reference), read without the rest.
#[derive(serde::Deserialize)]
pub(crate) struct ParamNames {
    #[serde(default)]
    pub(crate) name: Option<String>,
    #[serde(default)]
    pub(crate) uri: Option<String>,
    #[serde(default, rename = "ref")]
    pub(crate) reference: Option<CompletionReference>,
}

impl ParamNames {
    /// The names in `params`, if they are an object (absent params read as `{}`).
    pub(crate) fn read(params: Option<&RawValue>) -> Option<Self> {
        presa_core::parse_params(params).ok()
    }
}
