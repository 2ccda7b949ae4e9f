//! Canned replies: results serialized once, answered with each request's id spliced in.

use std::collections::HashMap;

use serde::Deserialize;
use serde_json::value::RawValue;

/// As much of a JSON-RPC message as a baseline needs. Deserializing it validates the whole
/// text but builds nothing else: the other members are skipped, the id is borrowed as written.
#[derive(Debug, Deserialize)]
pub struct Envelope<'a> {
    /// The id as written, absent on a notification.
    #[serde(borrow, default)]
    pub id: Option<&'a RawValue>,
    /// The method, absent on a response.
    #[serde(borrow, default)]
    pub method: Option<std::borrow::Cow<'a, str>>,
}

impl<'a> Envelope<'a> {
    /// Reads `text`, or `None` when it is not a JSON object.
    pub fn read(text: &'a [u8]) -> Option<Self> {
        serde_json::from_slice(text).ok()
    }
}

/// As much of a request as the SSE baseline needs besides its envelope: the progress token.
#[derive(Debug, Deserialize)]
pub struct ProgressRequest<'a> {
    #[serde(borrow, default)]
    params: Option<ProgressParams<'a>>,
}

#[derive(Debug, Deserialize)]
struct ProgressParams<'a> {
    #[serde(borrow, default, rename = "_meta")]
    meta: Option<ProgressMeta<'a>>,
}

#[derive(Debug, Deserialize)]
struct ProgressMeta<'a> {
    #[serde(borrow, default, rename = "progressToken")]
    progress_token: Option<&'a RawValue>,
}

impl<'a> ProgressRequest<'a> {
    /// The request's `params._meta.progressToken`, as written.
    pub fn token(text: &'a [u8]) -> Option<&'a RawValue> {
        let request: ProgressRequest<'a> = serde_json::from_slice(text).ok()?;
        request.params?.meta?.progress_token
    }
}

/// The SSE event of progress `step` of `total` for `token`: what a server writes per step.
pub fn progress_event(token: &RawValue, step: u32, total: u32) -> Vec<u8> {
    let mut event = Vec::with_capacity(128);
    event.extend_from_slice(
        br#"data: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"#,
    );
    event.extend_from_slice(token.get().as_bytes());
    event.extend_from_slice(format!(r#","progress":{step},"total":{total}}}}}"#).as_bytes());
    event.extend_from_slice(b"\n\n");
    event
}

/// A JSON-RPC response around a fixed result: `{"jsonrpc":"2.0","id":` ID `,"result":…}`.
#[derive(Debug, Clone)]
pub struct Canned {
    /// Everything after the id.
    tail: Vec<u8>,
}

const HEAD: &[u8] = br#"{"jsonrpc":"2.0","id":"#;

impl Canned {
    /// The response carrying `result` (a JSON text, written as it is).
    pub fn new(result: &str) -> Self {
        let mut tail = Vec::with_capacity(result.len() + 12);
        tail.extend_from_slice(br#","result":"#);
        tail.extend_from_slice(result.as_bytes());
        tail.push(b'}');
        Canned { tail }
    }

    /// Writes the response with `id` into `out`.
    pub fn write(&self, id: &RawValue, out: &mut Vec<u8>) {
        out.reserve(HEAD.len() + id.get().len() + self.tail.len());
        out.extend_from_slice(HEAD);
        out.extend_from_slice(id.get().as_bytes());
        out.extend_from_slice(&self.tail);
    }
}

/// `add`'s result to `{"numbers": [1, 2, 3]}`, as a 2026-07-28 server answers it (the driver
/// passes presa's own answer with `--reply` where the bytes matter).
pub const ADD_RESULT: &str = r#"{"resultType":"complete","content":[{"type":"text","text":"{\"sum\":6}"}],"structuredContent":{"sum":6}}"#;

/// An `initialize` result of a tools-only server (for clients that open a session first).
pub const INITIALIZE_RESULT: &str = r#"{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"baseline","version":"0"}}"#;

/// A `server/discover` result of a tools-only server (for 2026-07-28 clients that ask first).
pub const DISCOVER_RESULT: &str = r#"{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"baseline","version":"0"}},"ttlMs":0,"cacheScope":"public"}"#;

/// Canned replies by method; `tools/call` answers `add`'s result unless told otherwise.
#[derive(Debug, Clone)]
pub struct Replies {
    by_method: HashMap<String, Canned>,
}

impl Default for Replies {
    fn default() -> Self {
        let by_method = [
            ("tools/call", ADD_RESULT),
            ("initialize", INITIALIZE_RESULT),
            ("server/discover", DISCOVER_RESULT),
            ("ping", "{}"),
        ]
        .into_iter()
        .map(|(method, result)| (method.to_owned(), Canned::new(result)))
        .collect();
        Replies { by_method }
    }
}

impl Replies {
    /// Reads `--reply METHOD=FILE` options (the file holds the result's JSON) over the
    /// defaults; returns the replies and the arguments left.
    pub fn from_args(
        args: impl IntoIterator<Item = String>,
    ) -> Result<(Self, Vec<String>), String> {
        let mut replies = Replies::default();
        let mut rest = Vec::new();
        let mut args = args.into_iter();
        while let Some(arg) = args.next() {
            if arg != "--reply" {
                rest.push(arg);
                continue;
            }
            let value = args.next().ok_or("--reply needs METHOD=FILE")?;
            let (method, file) = value
                .split_once('=')
                .ok_or_else(|| format!("--reply {value}: not METHOD=FILE"))?;
            let result =
                std::fs::read_to_string(file).map_err(|e| format!("--reply {file}: {e}"))?;
            RawValue::from_string(result.trim().to_owned())
                .map_err(|e| format!("--reply {file}: not JSON: {e}"))?;
            replies
                .by_method
                .insert(method.to_owned(), Canned::new(result.trim()));
        }
        Ok((replies, rest))
    }

    /// The canned reply of `method`, if there is one.
    pub fn get(&self, method: &str) -> Option<&Canned> {
        self.by_method.get(method)
    }

    /// The reply to `request`: `None` for a notification or a response (nothing to answer).
    /// A method without a canned reply is answered with method-not-found.
    pub fn answer(&self, request: &Envelope<'_>, out: &mut Vec<u8>) -> Option<()> {
        let (id, method) = (request.id?, request.method.as_deref()?);
        match self.by_method.get(method) {
            Some(canned) => canned.write(id, out),
            None => {
                out.extend_from_slice(HEAD);
                out.extend_from_slice(id.get().as_bytes());
                out.extend_from_slice(br#","error":{"code":-32601,"message":"method not found"}}"#);
            }
        }
        Some(())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn answer(replies: &Replies, request: &str) -> Option<String> {
        let envelope = Envelope::read(request.as_bytes())?;
        let mut out = Vec::new();
        replies.answer(&envelope, &mut out)?;
        Some(String::from_utf8(out).unwrap())
    }

    #[test]
    fn a_call_is_answered_with_its_id_as_written() {
        let replies = Replies::default();
        let reply = answer(
            &replies,
            r#"{"jsonrpc":"2.0","id":"a\"b","method":"tools/call","params":{"id":7,"method":"x"}}"#,
        )
        .unwrap();
        let value: serde_json::Value = serde_json::from_str(&reply).unwrap();
        assert_eq!(value["id"], "a\"b");
        assert_eq!(value["result"]["structuredContent"]["sum"], 6);
    }

    #[test]
    fn a_progress_event_carries_the_token_as_written() {
        let request = br#"{"id":1,"method":"tools/call","params":{"name":"p","_meta":{"progressToken":"t1"}}}"#;
        let token = ProgressRequest::token(request).unwrap();
        let event = String::from_utf8(progress_event(token, 2, 10)).unwrap();
        let data: serde_json::Value =
            serde_json::from_str(event.strip_prefix("data: ").unwrap().trim_end()).unwrap();
        assert_eq!(data["params"]["progressToken"], "t1");
        assert_eq!(data["params"]["progress"], 2);
        assert!(event.ends_with("\n\n"));
        assert!(ProgressRequest::token(br#"{"id":1,"params":{}}"#).is_none());
    }

    #[test]
    fn notifications_and_bad_json_get_no_answer_and_unknown_methods_an_error() {
        let replies = Replies::default();
        assert_eq!(
            answer(
                &replies,
                r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#
            ),
            None
        );
        assert_eq!(answer(&replies, r#"{"jsonrpc":"2.0","id":1,"#), None);
        let reply = answer(&replies, r#"{"jsonrpc":"2.0","id":3,"method":"nope"}"#).unwrap();
        let value: serde_json::Value = serde_json::from_str(&reply).unwrap();
        assert_eq!(value["error"]["code"], -32601);
        assert_eq!(value["id"], 3);
    }
}
