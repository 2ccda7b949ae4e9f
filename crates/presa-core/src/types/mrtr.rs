//! Multi round-trip requests (MRTR, 2026-07-28): `InputRequiredResult`, the embedded input
//! requests and responses, and [`MrtrResult`], the result of the methods that may ask for
//! input (`tools/call`, `prompts/get`, `resources/read`).

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::de::{DeserializeOwned, Error as _};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use crate::{
    ClientCapabilities, CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams,
    ElicitResult, ElicitationCapability, JsonObject, ListRootsResult, Meta, RequestParams,
    ResultType, SamplingCapability,
};

/// `inputRequests`: server-chosen keys → what the server needs.
pub type InputRequests = BTreeMap<String, InputRequest>;

/// `inputResponses`: the keys of `inputRequests` → the client's answers.
pub type InputResponses = BTreeMap<String, InputResponse>;

/// A result asking the client for input before the request can finish (`resultType:
/// "input_required"`). The client fulfils `inputRequests`, then re-sends the original request
/// (with a new id) carrying `inputResponses` and the echoed `requestState`. At least one of
/// the two members is present. 2026-07-28 only.
///
/// ```
/// use presa_core::{InputRequest, InputRequiredResult};
///
/// let result = InputRequiredResult::new().request("where", InputRequest::roots()).state("s1");
/// assert_eq!(
///     serde_json::to_string(&result).unwrap(),
///     r#"{"resultType":"input_required","inputRequests":{"where":{"method":"roots/list"}},"requestState":"s1"}"#
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InputRequiredResult {
    /// [`ResultType::InputRequired`].
    pub result_type: ResultType,
    /// What the server needs, by key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_requests: Option<InputRequests>,
    /// Opaque state the client must echo byte for byte on the retry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl Default for InputRequiredResult {
    fn default() -> Self {
        Self {
            result_type: ResultType::InputRequired,
            input_requests: None,
            request_state: None,
            meta: None,
        }
    }
}

impl InputRequiredResult {
    /// An empty result; add requests or state before sending.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds an input request under `key`.
    #[must_use]
    pub fn request(mut self, key: impl Into<String>, request: InputRequest) -> Self {
        self.input_requests
            .get_or_insert_with(BTreeMap::new)
            .insert(key.into(), request);
        self
    }

    /// Sets the `requestState`.
    #[must_use]
    pub fn state(mut self, state: impl Into<String>) -> Self {
        self.request_state = Some(state.into());
        self
    }
}

/// An embedded request for client input: `{"method": .., "params": ..}` without `jsonrpc` or
/// `id`.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum InputRequest {
    /// `elicitation/create`.
    Elicit(ElicitRequestParams),
    /// `sampling/createMessage`.
    CreateMessage(CreateMessageRequestParams),
    /// `roots/list`; params are optional (only `_meta`).
    ListRoots(Option<RequestParams>),
    /// A method this version of presa does not know; kept so the rest of the result still
    /// reads.
    Other {
        /// The method name.
        method: String,
        /// The params, if any.
        params: Option<Value>,
    },
}

impl InputRequest {
    /// An `elicitation/create` request.
    pub fn elicit(params: impl Into<ElicitRequestParams>) -> Self {
        Self::Elicit(params.into())
    }

    /// A `sampling/createMessage` request.
    pub fn create_message(params: CreateMessageRequestParams) -> Self {
        Self::CreateMessage(params)
    }

    /// A `roots/list` request without params.
    pub fn roots() -> Self {
        Self::ListRoots(None)
    }

    /// The method name.
    pub fn method(&self) -> &str {
        match self {
            Self::Elicit(_) => <crate::Elicit as crate::RequestMethod>::METHOD,
            Self::CreateMessage(_) => <crate::CreateMessage as crate::RequestMethod>::METHOD,
            Self::ListRoots(_) => <crate::ListRoots as crate::RequestMethod>::METHOD,
            Self::Other { method, .. } => method,
        }
    }

    /// The client capability this request needs that `declared` lacks, shaped as the
    /// `requiredCapabilities` of a `-32021` error; `None` when `declared` covers it. The one
    /// rule both sides keep: a server asks only for what the client declared, and a client
    /// answers only that. A form elicitation needs `elicitation.form` (a bare `elicitation`
    /// counts as form), a URL one `elicitation.url`; sampling needs `sampling`, and
    /// `sampling.tools` when it offers tools or a tool choice; roots need `roots`. Nothing is
    /// known of other methods.
    ///
    /// ```
    /// use presa_core::{ClientCapabilities, CreateMessageRequestParams, InputRequest};
    ///
    /// let none = ClientCapabilities::default();
    /// let needed = InputRequest::roots().required_capability(&none).unwrap();
    /// assert!(needed.roots.is_some());
    /// let roots: ClientCapabilities = serde_json::from_str(r#"{"roots": {}}"#).unwrap();
    /// assert!(InputRequest::roots().required_capability(&roots).is_none());
    /// ```
    pub fn required_capability(&self, declared: &ClientCapabilities) -> Option<ClientCapabilities> {
        let only = |capabilities: ClientCapabilities| Some(capabilities);
        match self {
            Self::Elicit(ElicitRequestParams::Form(_)) if !declared.supports_elicitation_form() => {
                only(ClientCapabilities {
                    elicitation: Some(ElicitationCapability {
                        form: Some(JsonObject::new()),
                        ..Default::default()
                    }),
                    ..Default::default()
                })
            }
            Self::Elicit(ElicitRequestParams::Url(_)) if !declared.supports_elicitation_url() => {
                only(ClientCapabilities {
                    elicitation: Some(ElicitationCapability {
                        url: Some(JsonObject::new()),
                        ..Default::default()
                    }),
                    ..Default::default()
                })
            }
            Self::CreateMessage(params) => {
                let needs_tools = params.tools.as_ref().is_some_and(|t| !t.is_empty())
                    || params.tool_choice.is_some();
                match declared.sampling.as_ref() {
                    None => only(ClientCapabilities {
                        sampling: Some(SamplingCapability::default()),
                        ..Default::default()
                    }),
                    Some(sampling) if needs_tools && sampling.tools.is_none() => {
                        only(ClientCapabilities {
                            sampling: Some(SamplingCapability {
                                tools: Some(JsonObject::new()),
                                ..Default::default()
                            }),
                            ..Default::default()
                        })
                    }
                    Some(_) => None,
                }
            }
            Self::ListRoots(_) if declared.roots.is_none() => only(ClientCapabilities {
                roots: Some(Default::default()),
                ..Default::default()
            }),
            _ => None,
        }
    }
}

impl Serialize for InputRequest {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("method", self.method())?;
        match self {
            Self::Elicit(p) => map.serialize_entry("params", p)?,
            Self::CreateMessage(p) => map.serialize_entry("params", p)?,
            Self::ListRoots(Some(p)) => map.serialize_entry("params", p)?,
            Self::Other {
                params: Some(p), ..
            } => map.serialize_entry("params", p)?,
            Self::ListRoots(None) | Self::Other { params: None, .. } => {}
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for InputRequest {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct Embedded {
            method: String,
            #[serde(default)]
            params: Option<Value>,
        }
        let Embedded { method, params } = Embedded::deserialize(deserializer)?;
        let parsed = match method.as_str() {
            <crate::Elicit as crate::RequestMethod>::METHOD => {
                let params = params.ok_or_else(|| D::Error::missing_field("params"))?;
                serde_json::from_value(params).map(Self::Elicit)
            }
            <crate::CreateMessage as crate::RequestMethod>::METHOD => {
                let params = params.ok_or_else(|| D::Error::missing_field("params"))?;
                serde_json::from_value(params).map(Self::CreateMessage)
            }
            <crate::ListRoots as crate::RequestMethod>::METHOD => params
                .map(serde_json::from_value)
                .transpose()
                .map(Self::ListRoots),
            _ => return Ok(Self::Other { method, params }),
        };
        parsed.map_err(D::Error::custom)
    }
}

/// The client's answer to one [`InputRequest`], placed in `inputResponses`. Carries no
/// `resultType`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum InputResponse {
    /// Answer to `elicitation/create` (has `action`).
    Elicit(ElicitResult),
    /// Answer to `sampling/createMessage` (has `model`, `role`, `content`).
    CreateMessage(CreateMessageResult),
    /// Answer to `roots/list` (has `roots`).
    ListRoots(ListRootsResult),
    /// An object of none of these shapes; servers SHOULD ignore entries they cannot use.
    Other(JsonObject),
}

impl<'de> Deserialize<'de> for InputResponse {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let object = JsonObject::deserialize(deserializer)?;
        let parsed = if object.contains_key("action") {
            serde_json::from_value(Value::Object(object)).map(Self::Elicit)
        } else if object.contains_key("roots") {
            serde_json::from_value(Value::Object(object)).map(Self::ListRoots)
        } else if object.contains_key("model") || object.contains_key("role") {
            serde_json::from_value(Value::Object(object)).map(Self::CreateMessage)
        } else {
            return Ok(Self::Other(object));
        };
        parsed.map_err(D::Error::custom)
    }
}

impl From<ElicitResult> for InputResponse {
    fn from(r: ElicitResult) -> Self {
        Self::Elicit(r)
    }
}

impl From<CreateMessageResult> for InputResponse {
    fn from(r: CreateMessageResult) -> Self {
        Self::CreateMessage(r)
    }
}

impl From<ListRootsResult> for InputResponse {
    fn from(r: ListRootsResult) -> Self {
        Self::ListRoots(r)
    }
}

/// The result of a method that may ask for input (`tools/call`, `prompts/get`,
/// `resources/read`), read by its `resultType`: absent or `"complete"` → `T`,
/// `"input_required"` → [`InputRequiredResult`], anything else (an extension's type, such as
/// the tasks extension's `"task"`) → the raw object, which a client must treat as invalid unless
/// it negotiated that extension.
///
/// Serializes as the inner value. Deserializing through [`Deserialize`] buffers the object once
/// to look at `resultType`; [`MrtrResult::from_json`] reads from text without buffering.
///
/// ```
/// use presa_core::{CallToolResult, MrtrResult};
///
/// let legacy = r#"{"content":[{"type":"text","text":"hi"}]}"#;
/// let read = MrtrResult::<CallToolResult>::from_json(legacy).unwrap();
/// assert!(matches!(read, MrtrResult::Complete(_)));
///
/// let ask = r#"{"resultType":"input_required","requestState":"s"}"#;
/// let read: MrtrResult<CallToolResult> = serde_json::from_str(ask).unwrap();
/// assert!(matches!(read, MrtrResult::InputRequired(_)));
/// ```
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum MrtrResult<T> {
    /// The method's ordinary result.
    Complete(T),
    /// The server needs input first.
    InputRequired(InputRequiredResult),
    /// A `resultType` defined by an extension.
    Other(JsonObject),
}

impl<T> MrtrResult<T> {
    /// The ordinary result, if this is one.
    pub fn into_complete(self) -> Option<T> {
        match self {
            Self::Complete(t) => Some(t),
            _ => None,
        }
    }

    /// The ordinary result, if this is one.
    pub fn as_complete(&self) -> Option<&T> {
        match self {
            Self::Complete(t) => Some(t),
            _ => None,
        }
    }
}

impl<T: DeserializeOwned> MrtrResult<T> {
    /// Reads a result from JSON text, looking at `resultType` first and then parsing the text
    /// once more as the selected type (no intermediate tree).
    pub fn from_json(json: &str) -> Result<Self, serde_json::Error> {
        #[derive(Deserialize)]
        struct Peek<'a> {
            #[serde(rename = "resultType", borrow, default)]
            result_type: Option<Cow<'a, str>>,
        }
        let peek: Peek<'_> = serde_json::from_str(json)?;
        match peek.result_type.as_deref() {
            None | Some("complete") => serde_json::from_str(json).map(Self::Complete),
            Some("input_required") => serde_json::from_str(json).map(Self::InputRequired),
            Some(_) => serde_json::from_str(json).map(Self::Other),
        }
    }
}

impl<'de, T: DeserializeOwned> Deserialize<'de> for MrtrResult<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        let parsed = match value.get("resultType") {
            None => serde_json::from_value(value).map(Self::Complete),
            Some(Value::String(rt)) => match rt.as_str() {
                "complete" => serde_json::from_value(value).map(Self::Complete),
                "input_required" => serde_json::from_value(value).map(Self::InputRequired),
                _ => serde_json::from_value(value).map(Self::Other),
            },
            Some(other) => {
                return Err(D::Error::custom(format!(
                    "resultType must be a string, got {other}"
                )));
            }
        };
        parsed.map_err(D::Error::custom)
    }
}

impl_has_meta!(InputRequiredResult);

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use serde_json::json;

    use super::*;
    use crate::CallToolResult;

    #[test]
    fn mrtr_result_dispatches_on_result_type() {
        let cases = [
            (json!({"content": []}), "complete"),
            (json!({"resultType": "complete", "content": []}), "complete"),
            (
                json!({"resultType": "input_required", "requestState": "x"}),
                "input",
            ),
            (
                json!({"resultType": "task", "taskId": "t-1", "status": "working"}),
                "other",
            ),
        ];
        for (case, expect) in cases {
            let text = case.to_string();
            for read in [
                serde_json::from_value::<MrtrResult<CallToolResult>>(case.clone()).unwrap(),
                MrtrResult::<CallToolResult>::from_json(&text).unwrap(),
            ] {
                let got = match &read {
                    MrtrResult::Complete(_) => "complete",
                    MrtrResult::InputRequired(_) => "input",
                    MrtrResult::Other(_) => "other",
                };
                assert_eq!(got, expect, "{case}");
                assert_eq!(serde_json::to_value(&read).unwrap(), case);
            }
        }
        assert!(
            serde_json::from_value::<MrtrResult<CallToolResult>>(json!({"resultType": 1})).is_err()
        );
    }

    #[test]
    fn input_requests_and_responses_round_trip() {
        let requests = json!({
            "a": {"method": "roots/list"},
            "b": {"method": "roots/list", "params": {}},
            "c": {"method": "elicitation/create", "params": {"mode": "url", "message": "m", "url": "https://x"}},
            "d": {"method": "future/thing", "params": {"x": 1}}
        });
        let parsed: InputRequests = serde_json::from_value(requests.clone()).unwrap();
        assert!(matches!(parsed["d"], InputRequest::Other { .. }));
        assert_eq!(serde_json::to_value(&parsed).unwrap(), requests);

        let responses = json!({
            "a": {"roots": []},
            "b": {"action": "decline"},
            "c": {"role": "assistant", "content": {"type": "text", "text": "x"}, "model": "m"},
            "d": {"something": "else"}
        });
        let parsed: InputResponses = serde_json::from_value(responses.clone()).unwrap();
        assert!(matches!(parsed["a"], InputResponse::ListRoots(_)));
        assert!(matches!(parsed["b"], InputResponse::Elicit(_)));
        assert!(matches!(parsed["c"], InputResponse::CreateMessage(_)));
        assert!(matches!(parsed["d"], InputResponse::Other(_)));
        assert_eq!(serde_json::to_value(&parsed).unwrap(), responses);
    }
}
