//! SEP-2243 headers through the public API: the spec's server-validation example request, validated as a server
//! does, in the documented order.

use presa_core::{
    ErrorCode, ErrorObject, META_PROTOCOL_VERSION, ParamHeaders, ReceivedHeaders, request_headers,
};
use presa_test::message::request;
use serde_json::{Value, json};

fn query_metrics() -> ParamHeaders {
    ParamHeaders::from_input_schema(&json!({
        "type": "object",
        "properties": {
            "tenant": { "type": "string", "x-mcp-header": "Tenant" },
            "window": {
                "type": "object",
                "properties": { "days": { "type": "integer", "x-mcp-header": "Window-Days" } }
            },
            "expr": { "type": "string" }
        },
        "required": ["tenant", "expr"]
    }))
    .unwrap()
}

fn body() -> Value {
    request(
        5,
        "tools/call",
        json!({"name": "query_metrics", "arguments": {"tenant": "Zürich", "window": {"days": 7}, "expr": "p95(latency)"}}),
    )
}

/// Steps 1, 3, 5 and the Mcp-Param check, as presa-http and presa-server chain them.
fn server_validate(
    headers: &ReceivedHeaders,
    body: &Value,
    tool: &ParamHeaders,
) -> Result<(), ErrorObject> {
    let params = &body["params"];
    headers.check_protocol_version()?;
    let meta_version = params["_meta"][META_PROTOCOL_VERSION].as_str().unwrap();
    headers.check_protocol_version_matches(meta_version)?;
    headers.check_routing(body["method"].as_str().unwrap(), Some(params))?;
    headers.check_params(tool, params.get("arguments"))?;
    Ok(())
}

#[test]
fn digest_example_request_is_accepted() {
    let headers = ReceivedHeaders::from_pairs([
        ("host", "metrics.example.com"),
        ("content-type", "application/json"),
        ("accept", "application/json, text/event-stream"),
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
        ("mcp-name", "query_metrics"),
        ("mcp-param-tenant", "=?base64?WsO8cmljaA==?="),
        ("mcp-param-window-days", "7"),
        ("authorization", "Bearer eyJhbGciOi..."),
    ]);
    server_validate(&headers, &body(), &query_metrics()).unwrap();
}

#[test]
fn digest_example_mismatch_error() {
    let headers = ReceivedHeaders::from_pairs([
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", "query_metrics"),
        ("Mcp-Param-Tenant", "=?base64?WsO8cmljaA==?="),
        ("Mcp-Param-Window-Days", "14"),
    ]);
    let error = server_validate(&headers, &body(), &query_metrics()).unwrap_err();
    assert_eq!(error.code, ErrorCode::HEADER_MISMATCH);
    assert_eq!(
        error.message,
        "header Mcp-Param-Window-Days '14' does not match arguments.window.days 7"
    );
}

#[test]
fn client_headers_pass_server_validation() {
    let body = body();
    let tool = query_metrics();
    let built = request_headers(
        "2026-07-28",
        "tools/call",
        Some(&body["params"]),
        Some(&tool),
    )
    .unwrap();
    let received =
        ReceivedHeaders::from_pairs(built.iter().map(|(n, v)| (n.as_str(), v.as_bytes())));
    server_validate(&received, &body, &tool).unwrap();
}
