//! JSON-RPC messages as tests write them, as `serde_json::Value` (to inspect or change before
//! sending) or as JSON text (to write to a pipe or a body).
//!
//! A 2026-07-28 request carries the revision and the client's capabilities in `_meta` (spec,
//! 2026-07-28 basic protocol, reserved `_meta` keys); [`request`] adds them, and so does
//! [`notification`] (required on requests only, the keys are allowed on a notification).
//! Initialize-era messages are [`legacy_request`] and [`legacy_notification`], with `params` as
//! given; the handshake's request is [`initialize`].

use presa_core::{
    META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION, Message, ProtocolVersion, decode_message,
};
use serde_json::{Map, Value, json};

/// The revision of [`meta`] and [`request`]: 2026-07-28.
pub const VERSION: ProtocolVersion = ProtocolVersion::V2026_07_28;

/// The `_meta` of a 2026-07-28 request: the revision and empty client capabilities.
pub fn meta() -> Value {
    meta_with(json!({}))
}

/// The `_meta` of a 2026-07-28 request from a client with `capabilities`.
pub fn meta_with(capabilities: Value) -> Value {
    json!({
        META_PROTOCOL_VERSION: VERSION.as_str(),
        META_CLIENT_CAPABILITIES: capabilities,
    })
}

/// `params` (an object, or null for none) with the 2026-07-28 `_meta` of [`meta`] added. Keys
/// the caller already put in `params._meta` stay as they are, so a test can add a
/// `progressToken` or ask for another revision.
pub fn with_meta(params: Value) -> Value {
    let mut params = match params {
        Value::Null => Map::new(),
        Value::Object(params) => params,
        other => panic!("request params are an object, not {other}"),
    };
    let meta = params
        .entry("_meta")
        .or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(meta) = meta else {
        panic!("_meta is an object, not {meta}")
    };
    let Value::Object(defaults) = self::meta() else {
        unreachable!("meta() is an object")
    };
    for (key, value) in defaults {
        meta.entry(key).or_insert(value);
    }
    Value::Object(params)
}

/// A 2026-07-28 request: `params` (an object, or null) with the `_meta` of [`with_meta`].
pub fn request(id: impl Into<Value>, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id.into(), "method": method, "params": with_meta(params)})
}

/// [`request`] as JSON text.
pub fn request_text(id: impl Into<Value>, method: &str, params: Value) -> String {
    request(id, method, params).to_string()
}

/// A 2026-07-28 notification: `params` (an object, or null) with the `_meta` of
/// [`with_meta`].
pub fn notification(method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "method": method, "params": with_meta(params)})
}

/// [`notification`] as JSON text.
pub fn notification_text(method: &str, params: Value) -> String {
    notification(method, params).to_string()
}

/// An initialize-era request: `params` as given, no `_meta` added.
pub fn legacy_request(id: impl Into<Value>, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id.into(), "method": method, "params": params})
}

/// An initialize-era notification: `params` as given, no `_meta` added.
pub fn legacy_notification(method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "method": method, "params": params})
}

/// An `initialize` request asking for `version`, from a client named `presa-test` with no
/// capabilities.
pub fn initialize(id: impl Into<Value>, version: ProtocolVersion) -> Value {
    initialize_with(id, version.as_str(), json!({}))
}

/// An `initialize` request asking for `version` (any text, to test negotiation), from a client
/// named `presa-test` with `capabilities`.
pub fn initialize_with(id: impl Into<Value>, version: &str, capabilities: Value) -> Value {
    legacy_request(
        id,
        "initialize",
        json!({
            "protocolVersion": version,
            "capabilities": capabilities,
            "clientInfo": {"name": "presa-test", "version": "1.0.0"},
        }),
    )
}

/// `message` decoded as a peer would receive it.
pub fn decode(message: &Value) -> Message {
    decode_message(message.to_string().as_bytes()).unwrap()
}

/// `message` as JSON, as it goes on the wire.
pub fn to_json(message: &Message) -> Value {
    serde_json::from_str(&message.to_json()).unwrap()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_carries_the_revision_and_keeps_the_caller_s_meta() {
        let sent = request(
            1,
            "tools/call",
            json!({"name": "x", "_meta": {"progressToken": 1}}),
        );
        let sent_meta = &sent["params"]["_meta"];
        assert_eq!(
            sent_meta["io.modelcontextprotocol/protocolVersion"],
            "2026-07-28"
        );
        assert_eq!(
            sent_meta["io.modelcontextprotocol/clientCapabilities"],
            json!({})
        );
        assert_eq!(sent_meta["progressToken"], 1);
        let other = request(
            "a",
            "server/discover",
            json!({"_meta": {META_PROTOCOL_VERSION: "v9"}}),
        );
        assert_eq!(other["params"]["_meta"][META_PROTOCOL_VERSION], "v9");
        assert_eq!(
            request(2, "tools/list", Value::Null)["params"]["_meta"],
            meta()
        );
    }
}
