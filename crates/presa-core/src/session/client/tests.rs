//! Unit tests of `client`.

#![allow(clippy::unwrap_used)]

use super::*;

/// Lists the tools (one annotated `query`, one `broken`), then calls `query`.
fn call(client: &mut ClientSession, arguments: Value) -> Result<RequestId, ClientSendError> {
    let now = Instant::now();
    let listing = client
        .send_request(now, "tools/list", None, &RequestOptions::default())
        .unwrap();
    while client.poll_transmit().is_some() {}
    let result = serde_json::json!({"tools": [
        {"name": "query", "inputSchema": {"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"}}}},
        {"name": "broken", "inputSchema": {"type": "object", "properties": {
            "ratio": {"type": "number", "x-mcp-header": "Ratio"}}}}
    ]});
    let answer = crate::Response::result(listing, &result).unwrap();
    client.handle_message(now, answer.into());
    let mut params = Map::new();
    params.insert("name".into(), "query".into());
    params.insert("arguments".into(), arguments);
    client.send_request(now, "tools/call", Some(params), &RequestOptions::default())
}

#[test]
fn without_mirror_headers_a_2026_request_carries_none_and_cannot_fail_on_them() {
    let config = ClientSessionConfig::new(Implementation::new("c", "1")).mirror_headers(false);
    let mut client = ClientSession::new(config);
    client.use_stateless(ProtocolVersion::V2026_07_28);
    call(&mut client, serde_json::json!({"region": [1]})).unwrap();
    let sent = client.poll_transmit().unwrap();
    assert_eq!(sent.protocol_version, Some(ProtocolVersion::V2026_07_28));
    assert!(sent.headers.is_empty());
    client.notify(Notification::without_params(
        "notifications/roots/list_changed",
    ));
    assert!(client.poll_transmit().unwrap().headers.is_empty());
}

#[test]
fn with_mirror_headers_they_come_with_each_2026_message() {
    let mut client = ClientSession::new(ClientSessionConfig::new(Implementation::new("c", "1")));
    client.use_stateless(ProtocolVersion::V2026_07_28);
    call(&mut client, serde_json::json!({"region": "eu"})).unwrap();
    let sent = client.poll_transmit().unwrap();
    assert!(
        sent.headers
            .contains(&("Mcp-Param-Region".into(), "eu".into()))
    );
}
