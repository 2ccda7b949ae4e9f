//! A multi round-trip `tools/call` through the public API: the state sealed by one instance is
//! opened by another that shares the key, on the client's retry with a new id and extra fields.

use std::time::{Duration, SystemTime};

use presa_core::{
    ErrorCode, ErrorObject, RequestStateCodec, RequestStateError, RequestStateKey,
    request_state_binding,
};
use presa_test::message::meta_with;
use serde_json::json;

fn instance(secret: &[u8]) -> RequestStateCodec {
    RequestStateCodec::new(RequestStateKey::new(secret).unwrap())
}

#[test]
fn retry_lands_on_another_instance() {
    let secret = b"0123456789abcdef0123456789abcdef";
    let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_785_000_000);

    let first = json!({"name": "deploy", "arguments": {"env": "prod", "replicas": 3}});
    let binding = request_state_binding("tools/call", &first);
    let state = instance(secret).seal(
        now,
        Duration::from_secs(60),
        "tools/call",
        &binding,
        &json!({"confirmed": false}),
    );

    let retry = json!({
        "_meta": meta_with(json!({"elicitation": {}})),
        "arguments": {"replicas": 3, "env": "prod"},
        "name": "deploy",
        "inputResponses": {"confirm": {"action": "accept", "content": {"ok": true}}},
        "requestState": state
    });
    let token = retry["requestState"].as_str().unwrap();
    let binding = request_state_binding("tools/call", &retry);
    let opened = instance(secret)
        .open(now + Duration::from_secs(5), token, "tools/call", &binding)
        .unwrap();
    assert_eq!(opened, json!({"confirmed": false}));

    // The runner's tampered-state probe gets a JSON-RPC error, -32602.
    let tampered = format!("{token}-TAMPERED");
    let error = instance(secret)
        .open(now, &tampered, "tools/call", &binding)
        .unwrap_err();
    assert!(matches!(
        error,
        RequestStateError::Malformed | RequestStateError::Tampered
    ));
    assert_eq!(ErrorObject::from(error).code, ErrorCode::INVALID_PARAMS);
}
