//! Requests, notifications and responses, and how they are written.

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::value::RawValue;

use super::{ErrorObject, RequestId};

/// Raw, still unparsed JSON: the `params` of a request or notification, or the `result` of a
/// response, kept as text until the method is known and its typed struct can be read from it.
pub type RawJson = Box<RawValue>;

/// A JSON-RPC request: a method call that expects a response with the same id.
#[derive(Clone, Debug)]
pub struct Request {
    /// The id the response will carry.
    pub id: RequestId,
    /// The method name, e.g. `tools/call`.
    pub method: String,
    /// The params, unparsed; `None` when the member was absent.
    pub params: Option<RawJson>,
}

/// A JSON-RPC notification: a method call without an id, never answered.
#[derive(Clone, Debug)]
pub struct Notification {
    /// The method name, e.g. `notifications/progress`.
    pub method: String,
    /// The params, unparsed; `None` when the member was absent.
    pub params: Option<RawJson>,
}

/// A JSON-RPC response: the result or the error of one request.
#[derive(Clone, Debug)]
pub struct Response {
    /// The id of the request this answers; `None` only for an error about a message whose id
    /// could not be read (then the member is omitted on the wire).
    pub id: Option<RequestId>,
    /// The result (unparsed) or the error.
    pub payload: ResponsePayload,
}

/// What a [`Response`] carries.
#[derive(Clone, Debug)]
pub enum ResponsePayload {
    /// A successful result, unparsed.
    Result(RawJson),
    /// An error.
    Error(ErrorObject),
}

/// One JSON-RPC message.
#[derive(Clone, Debug, PartialEq)]
pub enum Message {
    /// A request.
    Request(Request),
    /// A notification.
    Notification(Notification),
    /// A response (result or error).
    Response(Response),
}

impl Request {
    /// A request whose params are serialized from `params`.
    ///
    /// ```
    /// use presa_core::{Message, Request};
    ///
    /// let request = Request::new(1, "tools/list", &serde_json::json!({})).unwrap();
    /// assert_eq!(
    ///     Message::from(request).to_json(),
    ///     r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}"#
    /// );
    /// ```
    pub fn new(
        id: impl Into<RequestId>,
        method: impl Into<String>,
        params: &impl Serialize,
    ) -> Result<Self, serde_json::Error> {
        Ok(Self {
            id: id.into(),
            method: method.into(),
            params: Some(to_raw(params)?),
        })
    }
}

impl Notification {
    /// A notification whose params are serialized from `params`.
    pub fn new(
        method: impl Into<String>,
        params: &impl Serialize,
    ) -> Result<Self, serde_json::Error> {
        Ok(Self {
            method: method.into(),
            params: Some(to_raw(params)?),
        })
    }

    /// A notification without params.
    pub fn without_params(method: impl Into<String>) -> Self {
        Self {
            method: method.into(),
            params: None,
        }
    }
}

impl Response {
    /// A successful response whose result is serialized from `result`.
    pub fn result(id: RequestId, result: &impl Serialize) -> Result<Self, serde_json::Error> {
        Ok(Self {
            id: Some(id),
            payload: ResponsePayload::Result(to_raw(result)?),
        })
    }

    /// An error response. `id` is `None` only when the request's id could not be read.
    pub fn error(id: Option<RequestId>, error: ErrorObject) -> Self {
        Self {
            id,
            payload: ResponsePayload::Error(error),
        }
    }

    /// The error, if this is an error response.
    pub fn as_error(&self) -> Option<&ErrorObject> {
        match &self.payload {
            ResponsePayload::Error(error) => Some(error),
            ResponsePayload::Result(_) => None,
        }
    }
}

impl Message {
    /// Whether this is a response (a result or an error).
    pub fn is_response(&self) -> bool {
        matches!(self, Self::Response(_))
    }

    /// The method name of a request or notification.
    pub fn method(&self) -> Option<&str> {
        match self {
            Self::Request(r) => Some(&r.method),
            Self::Notification(n) => Some(&n.method),
            Self::Response(_) => None,
        }
    }

    /// The raw params of a request or notification, when sent.
    pub fn params(&self) -> Option<&RawValue> {
        match self {
            Self::Request(r) => r.params.as_deref(),
            Self::Notification(n) => n.params.as_deref(),
            Self::Response(_) => None,
        }
    }

    /// The id of a request or response.
    pub fn id(&self) -> Option<&RequestId> {
        match self {
            Self::Request(r) => Some(&r.id),
            Self::Notification(_) => None,
            Self::Response(r) => r.id.as_ref(),
        }
    }

    /// Appends this message as compact JSON (one line, no trailing newline) to `out`.
    pub fn write_to(&self, out: &mut Vec<u8>) {
        let start = out.len();
        // Writing into a Vec cannot fail, and every part is already valid JSON.
        if serde_json::to_writer(&mut *out, self).is_err() {
            // what was written before this message stays
            out.truncate(start);
            out.extend_from_slice(UNSERIALIZABLE.as_bytes());
        }
    }

    /// This message as compact JSON on one line.
    pub fn to_json(&self) -> String {
        // serde_json's own text output: no second pass over it to check its UTF-8
        serde_json::to_string(self).unwrap_or_else(|_| UNSERIALIZABLE.to_owned())
    }
}

/// What a [`Message`] that cannot be serialized is written as. Serializing one only fails if a
/// `data` value holds a map with non-string keys, which `serde_json::Value` cannot; the output
/// stays valid JSON regardless.
const UNSERIALIZABLE: &str =
    r#"{"jsonrpc":"2.0","error":{"code":-32603,"message":"unserializable message"}}"#;

impl From<Request> for Message {
    fn from(r: Request) -> Self {
        Self::Request(r)
    }
}

impl From<Notification> for Message {
    fn from(n: Notification) -> Self {
        Self::Notification(n)
    }
}

impl From<Response> for Message {
    fn from(r: Response) -> Self {
        Self::Response(r)
    }
}

/// Raw JSON compares by its text: the same bytes are equal, the same value spelled differently is
/// not.
fn same_raw(a: &Option<RawJson>, b: &Option<RawJson>) -> bool {
    a.as_ref().map(|r| r.get()) == b.as_ref().map(|r| r.get())
}

impl PartialEq for Request {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id && self.method == other.method && same_raw(&self.params, &other.params)
    }
}

impl PartialEq for Notification {
    fn eq(&self, other: &Self) -> bool {
        self.method == other.method && same_raw(&self.params, &other.params)
    }
}

impl PartialEq for ResponsePayload {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Self::Result(a), Self::Result(b)) => a.get() == b.get(),
            (Self::Error(a), Self::Error(b)) => a == b,
            _ => false,
        }
    }
}

impl PartialEq for Response {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id && self.payload == other.payload
    }
}

/// Serializes a value into raw JSON text.
pub fn to_raw(value: &impl Serialize) -> Result<RawJson, serde_json::Error> {
    serde_json::value::to_raw_value(value)
}

impl Serialize for Message {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("jsonrpc", "2.0")?;
        match self {
            Self::Request(r) => {
                map.serialize_entry("id", &r.id)?;
                map.serialize_entry("method", &r.method)?;
                if let Some(params) = &r.params {
                    map.serialize_entry("params", params)?;
                }
            }
            Self::Notification(n) => {
                map.serialize_entry("method", &n.method)?;
                if let Some(params) = &n.params {
                    map.serialize_entry("params", params)?;
                }
            }
            Self::Response(r) => {
                if let Some(id) = &r.id {
                    map.serialize_entry("id", id)?;
                }
                match &r.payload {
                    ResponsePayload::Result(result) => map.serialize_entry("result", result)?,
                    ResponsePayload::Error(error) => map.serialize_entry("error", error)?,
                }
            }
        }
        map.end()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::ErrorCode;
    use serde_json::json;

    #[test]
    fn messages_serialize_compactly_with_the_envelope() {
        let n = Notification::without_params("notifications/initialized");
        assert_eq!(
            Message::from(n).to_json(),
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#
        );
        let r = Response::result("a".into(), &json!({"tools": []})).unwrap();
        assert_eq!(
            Message::from(r).to_json(),
            r#"{"jsonrpc":"2.0","id":"a","result":{"tools":[]}}"#
        );
    }

    #[test]
    fn an_error_without_an_id_omits_the_member() {
        let r = Response::error(None, ErrorObject::parse_error("Parse error"));
        assert_eq!(
            Message::from(r).to_json(),
            r#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}"#
        );
    }

    #[test]
    fn error_data_is_written() {
        let e = ErrorObject::new(ErrorCode::UNSUPPORTED_PROTOCOL_VERSION, "no")
            .with_data(json!({"supported": ["2026-07-28"], "requested": "x"}));
        let r = Response::error(Some(7.into()), e);
        let written: serde_json::Value = serde_json::from_str(&Message::from(r).to_json()).unwrap();
        assert_eq!(
            written,
            json!({"jsonrpc":"2.0","id":7,"error":{"code":-32022,"message":"no","data":{"requested":"x","supported":["2026-07-28"]}}})
        );
    }
}
