//! Reading messages from bytes: one pass over the input, `params` and `result` kept unparsed.

use std::fmt;

use serde::Deserialize;
use serde::de::{DeserializeSeed, IgnoredAny};
use serde_json::error::Category;
use serde_json::value::RawValue;

use super::{
    ErrorCode, ErrorObject, Message, Notification, Request, RequestId, Response, ResponsePayload,
};

/// What one transport frame (a stdio line, an HTTP body) held.
#[derive(Clone, Debug, PartialEq)]
pub enum Packet {
    /// A single message.
    Single(Message),
    /// A batch (JSON array) of messages, each decoded on its own; only 2025-03-26 allows them.
    Batch(Vec<Result<Message, DecodeError>>),
}

/// Why bytes could not be read as a JSON-RPC message.
///
/// [`code`](Self::code) tells `-32700` (not JSON) from `-32600` (JSON, but not a valid message),
/// and [`id`](Self::id) keeps the request id when it could be read, so the error response can
/// carry it.
///
/// ```
/// use presa_core::{decode_message, ErrorCode, RequestId};
///
/// let error = decode_message(br#"{"jsonrpc":"1.0","id":"x","method":"ping"}"#).unwrap_err();
/// assert_eq!(error.code(), ErrorCode::INVALID_REQUEST);
/// assert_eq!(error.id(), Some(&RequestId::from("x")));
///
/// let error = decode_message(b"{not json").unwrap_err();
/// assert_eq!(error.code(), ErrorCode::PARSE_ERROR);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodeError {
    code: ErrorCode,
    id: Option<RequestId>,
    detail: String,
}

impl DecodeError {
    fn not_json(detail: impl fmt::Display) -> Self {
        Self {
            code: ErrorCode::PARSE_ERROR,
            id: None,
            detail: format!("Parse error: {detail}"),
        }
    }

    fn invalid(id: Option<RequestId>, detail: impl fmt::Display) -> Self {
        Self {
            code: ErrorCode::INVALID_REQUEST,
            id,
            detail: format!("Invalid request: {detail}"),
        }
    }

    /// `-32700` when the input is not JSON, `-32600` when it is JSON but not a valid message.
    pub fn code(&self) -> ErrorCode {
        self.code
    }

    /// The id of the offending request, when it could be read.
    pub fn id(&self) -> Option<&RequestId> {
        self.id.as_ref()
    }

    /// The error object to answer with.
    pub fn to_error_object(&self) -> ErrorObject {
        ErrorObject::new(self.code, self.detail.clone())
    }

    /// The error response to answer with (its id omitted when it could not be read).
    pub fn to_response(&self) -> Response {
        Response::error(self.id.clone(), self.to_error_object())
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.detail)
    }
}

impl std::error::Error for DecodeError {}

/// Whether JSON `text` may spell `name` somewhere (as a member's name, say): it holds `name`
/// as it is, or holds a `\u` escape, which could spell any part of it. `false` is certain, so a
/// reader can skip parsing `text` for a member that is rarely there; `true` means parse to know.
///
/// ```
/// use presa_core::json_may_name;
///
/// assert!(json_may_name(r#"{"requestState":"s"}"#, "requestState"));
/// assert!(json_may_name(r#"{"r\u0065questState":"s"}"#, "requestState"));
/// assert!(!json_may_name(r#"{"name":"x"}"#, "requestState"));
/// ```
pub fn json_may_name(text: &str, name: &str) -> bool {
    text.contains(name) || text.contains("\\u")
}

/// Decodes one frame that must hold exactly one message (every revision but 2025-03-26).
///
/// A JSON array is answered as an invalid request: batches are not allowed.
///
/// ```
/// use presa_core::{decode_message, Message};
///
/// let message = decode_message(br#"{"jsonrpc":"2.0","id":92,"method":"tools/list","params":{}}"#).unwrap();
/// let Message::Request(request) = message else { panic!("a request") };
/// assert_eq!(request.id.to_string(), "92");
/// assert_eq!(request.params.unwrap().get(), "{}");
/// ```
pub fn decode_message(input: &[u8]) -> Result<Message, DecodeError> {
    match decode_packet(input, false)? {
        Packet::Single(message) => Ok(message),
        Packet::Batch(_) => Err(DecodeError::invalid(None, "batches are not allowed")),
    }
}

/// The most members a batch may have: a larger one is refused as a whole, before any member is
/// decoded (each member would cost an answer of its own).
pub const MAX_BATCH_MEMBERS: usize = 1000;

/// Decodes one frame, which may be a batch when `allow_batches` is true (2025-03-26).
///
/// An empty batch, a batch of more than [`MAX_BATCH_MEMBERS`], or a batch where batches are not
/// allowed is one invalid-request error (where they are not allowed, the members are not even
/// split apart); each member of any other batch is decoded on its own, so one bad member does
/// not spoil the others.
///
/// ```
/// use presa_core::{decode_packet, Packet};
///
/// let batch = br#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"x"}]"#;
/// let Ok(Packet::Batch(members)) = decode_packet(batch, true) else { panic!("a batch") };
/// assert_eq!(members.len(), 2);
/// assert!(decode_packet(batch, false).is_err());
/// let huge = format!("[{}1]", "1,".repeat(5_000));
/// let refused = decode_packet(huge.as_bytes(), true).unwrap_err();
/// assert!(refused.to_string().contains("more than 1000 members"));
/// ```
pub fn decode_packet(input: &[u8], allow_batches: bool) -> Result<Packet, DecodeError> {
    let most = if allow_batches { MAX_BATCH_MEMBERS } else { 0 };
    decode_packet_limited(input, most)
}

/// [`decode_packet`] with a batch of at most `max_batch_members` members (0: no batches).
///
/// ```
/// use presa_core::decode_packet_limited;
///
/// let batch = br#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]"#;
/// assert!(decode_packet_limited(batch, 2).is_ok());
/// let refused = decode_packet_limited(batch, 1).unwrap_err();
/// assert!(refused.to_string().contains("more than 1 members"));
/// ```
pub fn decode_packet_limited(
    input: &[u8],
    max_batch_members: usize,
) -> Result<Packet, DecodeError> {
    match first_significant_byte(input) {
        Some(b'{') => decode_object(serde_json::from_slice(input)).map(Packet::Single),
        Some(b'[') if max_batch_members == 0 => match serde_json::from_slice::<IgnoredAny>(input) {
            Ok(_) => Err(DecodeError::invalid(
                None,
                "batches are not allowed in this protocol revision",
            )),
            Err(e) => Err(DecodeError::not_json(e)),
        },
        Some(b'[') => {
            let mut deserializer = serde_json::Deserializer::from_slice(input);
            let members = Members(max_batch_members)
                .deserialize(&mut deserializer)
                .and_then(|members| deserializer.end().map(|()| members))
                .map_err(|e| match e.classify() {
                    Category::Data => DecodeError::invalid(None, e),
                    _ => DecodeError::not_json(e),
                })?;
            if members.is_empty() {
                return Err(DecodeError::invalid(None, "empty batch"));
            }
            Ok(Packet::Batch(
                members.into_iter().map(decode_member).collect(),
            ))
        }
        _ => match serde_json::from_slice::<IgnoredAny>(input) {
            Ok(_) => Err(DecodeError::invalid(
                None,
                "a message must be a JSON object",
            )),
            Err(e) => Err(DecodeError::not_json(e)),
        },
    }
}

/// Reads a batch's members, unparsed, stopping at the first member past the most allowed.
struct Members(usize);

impl<'de> serde::de::DeserializeSeed<'de> for Members {
    type Value = Vec<&'de RawValue>;

    fn deserialize<D: serde::Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<Self::Value, D::Error> {
        struct Visitor(usize);

        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Vec<&'de RawValue>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a batch of messages")
            }

            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Self::Value, A::Error> {
                let most = self.0;
                let mut members = Vec::new();
                while let Some(member) = seq.next_element::<&'de RawValue>()? {
                    if members.len() == most {
                        return Err(serde::de::Error::custom(format_args!(
                            "a batch of more than {most} members"
                        )));
                    }
                    members.push(member);
                }
                Ok(members)
            }
        }

        deserializer.deserialize_seq(Visitor(self.0))
    }
}

fn decode_member(raw: &RawValue) -> Result<Message, DecodeError> {
    if raw.get().starts_with('{') {
        decode_object(serde_json::from_str(raw.get()))
    } else {
        Err(DecodeError::invalid(
            None,
            "a batch member must be a JSON object",
        ))
    }
}

fn first_significant_byte(input: &[u8]) -> Option<u8> {
    input
        .iter()
        .copied()
        .find(|b| !matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
}

/// The members of a message object, each unparsed. Unknown members are ignored.
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(borrow, default, deserialize_with = "present")]
    jsonrpc: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    id: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    method: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    params: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    result: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    error: Option<&'a RawValue>,
}

/// `Some` for every member that is present, `null` included.
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue>::deserialize(d).map(Some)
}

fn decode_object(parsed: Result<Envelope<'_>, serde_json::Error>) -> Result<Message, DecodeError> {
    let envelope = parsed.map_err(|e| match e.classify() {
        Category::Data => DecodeError::invalid(None, e),
        _ => DecodeError::not_json(e),
    })?;
    let id = match envelope.id {
        None => None,
        Some(raw) if raw.get() == "null" => None,
        Some(raw) => match serde_json::from_str::<RequestId>(raw.get()) {
            Ok(id) => Some(id),
            Err(_) => {
                return Err(DecodeError::invalid(
                    None,
                    "id must be a string or an integer",
                ));
            }
        },
    };
    match envelope
        .jsonrpc
        .map(|raw| serde_json::from_str::<&str>(raw.get()))
    {
        Some(Ok("2.0")) => {}
        _ => return Err(DecodeError::invalid(id, r#"jsonrpc must be "2.0""#)),
    }
    if let Some(method) = envelope.method {
        if envelope.result.is_some() || envelope.error.is_some() {
            return Err(DecodeError::invalid(
                id,
                "a message cannot have both method and result or error",
            ));
        }
        let Ok(method) = serde_json::from_str::<String>(method.get()) else {
            return Err(DecodeError::invalid(id, "method must be a string"));
        };
        let params = match envelope.params {
            None => None,
            Some(raw) if raw.get().starts_with(['{', '[']) => Some(raw.to_owned()),
            Some(_) => {
                return Err(DecodeError::invalid(
                    id,
                    "params must be an object or an array",
                ));
            }
        };
        return Ok(match (envelope.id, id) {
            (None, _) => Message::Notification(Notification { method, params }),
            (Some(_), Some(id)) => Message::Request(Request { id, method, params }),
            (Some(_), None) => {
                return Err(DecodeError::invalid(
                    None,
                    "id must be a string or an integer",
                ));
            }
        });
    }
    let payload = match (envelope.result, envelope.error) {
        (Some(result), None) => {
            if id.is_none() {
                return Err(DecodeError::invalid(None, "a result response needs an id"));
            }
            ResponsePayload::Result(result.to_owned())
        }
        (None, Some(error)) => match serde_json::from_str::<ErrorObject>(error.get()) {
            Ok(error) => ResponsePayload::Error(error),
            Err(e) => {
                return Err(DecodeError::invalid(
                    id,
                    format_args!("malformed error object: {e}"),
                ));
            }
        },
        (Some(_), Some(_)) => {
            return Err(DecodeError::invalid(
                id,
                "a response cannot have both result and error",
            ));
        }
        (None, None) => {
            return Err(DecodeError::invalid(
                id,
                "a message needs a method, a result or an error",
            ));
        }
    };
    Ok(Message::Response(Response { id, payload }))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn code(input: &str) -> (i32, Option<RequestId>) {
        let e = decode_message(input.as_bytes()).unwrap_err();
        (e.code().code(), e.id().cloned())
    }

    #[test]
    fn requests_notifications_and_responses() {
        let m = decode_message(br#"{"jsonrpc":"2.0","id":"92","method":"ping"}"#).unwrap();
        assert_eq!(
            m,
            Message::Request(Request {
                id: "92".into(),
                method: "ping".into(),
                params: None
            })
        );
        let m =
            decode_message(br#" {"method":"notifications/initialized","jsonrpc":"2.0"} "#).unwrap();
        assert!(matches!(m, Message::Notification(n) if n.method == "notifications/initialized"));
        let m = decode_message(br#"{"jsonrpc":"2.0","id":3,"result":{}}"#).unwrap();
        assert!(matches!(
            m,
            Message::Response(Response {
                id: Some(RequestId::Number(3)),
                payload: ResponsePayload::Result(_)
            })
        ));
        let m = decode_message(
            br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"bad"}}"#,
        )
        .unwrap();
        assert!(
            matches!(m, Message::Response(Response { id: None, payload: ResponsePayload::Error(e) }) if e.code == ErrorCode::PARSE_ERROR)
        );
    }

    #[test]
    fn unknown_members_are_ignored_and_params_stay_verbatim() {
        let m = decode_message(
            br#"{"jsonrpc":"2.0","id":1,"method":"x","params":{"b":1,"a":[2]},"extra":true}"#,
        )
        .unwrap();
        let Message::Request(r) = m else { panic!() };
        assert_eq!(r.params.unwrap().get(), r#"{"b":1,"a":[2]}"#);
    }

    #[test]
    fn not_json_is_a_parse_error() {
        for input in [
            "",
            "   ",
            "{",
            "{\"jsonrpc\":\"2.0\",}",
            "nul",
            "[1,",
            "{} {}",
            "\u{1}",
        ] {
            assert_eq!(code(input), (-32700, None), "{input:?}");
        }
        assert_eq!(
            decode_message(b"{\"jsonrpc\":\"2.0\",\"method\":\"\xff\"}")
                .unwrap_err()
                .code(),
            ErrorCode::PARSE_ERROR
        );
    }

    #[test]
    fn json_that_is_not_a_message_is_an_invalid_request() {
        assert_eq!(code("42"), (-32600, None));
        assert_eq!(code("\"hi\""), (-32600, None));
        assert_eq!(code("null"), (-32600, None));
        assert_eq!(code("{}"), (-32600, None));
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":5}"#),
            (-32600, Some(5.into()))
        );
        assert_eq!(
            code(r#"{"id":5,"method":"ping"}"#),
            (-32600, Some(5.into()))
        );
        assert_eq!(
            code(r#"{"jsonrpc":2.0,"id":"a","method":"ping"}"#),
            (-32600, Some("a".into()))
        );
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":5,"method":7}"#),
            (-32600, Some(5.into()))
        );
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":5,"method":"x","params":3}"#),
            (-32600, Some(5.into()))
        );
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":1.5,"method":"x"}"#),
            (-32600, None)
        );
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":null,"method":"x"}"#),
            (-32600, None)
        );
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":{},"method":"x"}"#),
            (-32600, None)
        );
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":1,"method":"x","result":{}}"#),
            (-32600, Some(1.into()))
        );
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":""}}"#),
            (-32600, Some(1.into()))
        );
        assert_eq!(code(r#"{"jsonrpc":"2.0","result":{}}"#), (-32600, None));
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":2,"error":{"code":"x"}}"#),
            (-32600, Some(2.into()))
        );
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","jsonrpc":"2.0","id":1,"method":"x"}"#),
            (-32600, None)
        );
    }

    #[test]
    fn batches_only_where_allowed() {
        let batch =
            br#"[{"jsonrpc":"2.0","id":7,"method":"tools/list"},{"jsonrpc":"2.0","method":"n"},5]"#;
        assert_eq!(
            decode_message(batch).unwrap_err().code(),
            ErrorCode::INVALID_REQUEST
        );
        assert_eq!(
            decode_packet(batch, false).unwrap_err().code(),
            ErrorCode::INVALID_REQUEST
        );
        let Packet::Batch(members) = decode_packet(batch, true).unwrap() else {
            panic!()
        };
        assert_eq!(members.len(), 3);
        assert!(matches!(&members[0], Ok(Message::Request(r)) if r.id == RequestId::Number(7)));
        assert!(matches!(&members[1], Ok(Message::Notification(_))));
        assert_eq!(
            members[2].as_ref().unwrap_err().code(),
            ErrorCode::INVALID_REQUEST
        );
        assert_eq!(
            decode_packet(b"[]", true).unwrap_err().code(),
            ErrorCode::INVALID_REQUEST
        );
        assert_eq!(
            decode_packet(b"[{}", true).unwrap_err().code(),
            ErrorCode::PARSE_ERROR
        );
    }

    #[test]
    fn string_and_integer_ids_round_trip_distinctly() {
        for input in [
            r#"{"jsonrpc":"2.0","id":92,"method":"m"}"#,
            r#"{"jsonrpc":"2.0","id":"92","method":"m"}"#,
        ] {
            assert_eq!(decode_message(input.as_bytes()).unwrap().to_json(), input);
        }
    }

    #[test]
    fn error_responses_carry_the_id_that_could_be_read() {
        let e = decode_message(br#"{"jsonrpc":"1","id":"q","method":"m"}"#).unwrap_err();
        assert_eq!(
            Message::from(e.to_response()).to_json(),
            r#"{"jsonrpc":"2.0","id":"q","error":{"code":-32600,"message":"Invalid request: jsonrpc must be \"2.0\""}}"#
        );
    }
}
