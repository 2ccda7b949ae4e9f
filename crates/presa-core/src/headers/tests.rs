//! Header tests across the submodules: the server tables of the http-header-validation and
//! http-custom-header-server-validation conformance scenarios, the http-standard-headers client
//! table, and client-built headers passing server validation.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Value, json};

use super::*;
use crate::{ErrorCode, ErrorObject};

const VERSION: &str = "2026-07-28";

fn headers(pairs: &[(&str, &str)]) -> ReceivedHeaders {
    ReceivedHeaders::from_pairs(pairs.iter().copied())
}

/// Steps 1, 3 and 5 for a body, as a server runs them.
fn validate(h: &ReceivedHeaders, method: &str, params: &Value) -> Result<(), HeaderError> {
    h.check_protocol_version()?;
    h.check_protocol_version_matches(VERSION)?;
    h.check_routing(method, Some(params))
}

#[track_caller]
fn check_ok(pairs: &[(&str, &str)], method: &str, params: Value) {
    if let Err(e) = validate(&headers(pairs), method, &params) {
        panic!("expected acceptance, got: {e}");
    }
}

#[track_caller]
fn check_err(pairs: &[(&str, &str)], method: &str, params: Value, expect: &str) {
    let err = validate(&headers(pairs), method, &params).unwrap_err();
    assert_eq!(err.to_string(), expect);
    assert_eq!(ErrorObject::from(err).code, ErrorCode::HEADER_MISMATCH);
}

// The http-header-validation conformance scenario.
#[test]
fn runner_header_validation_table() {
    let pv = ("MCP-Protocol-Version", VERSION);
    let call = || json!({"name": "get_x", "arguments": {}});
    check_err(
        &[pv, ("Mcp-Method", "prompts/list")],
        "tools/list",
        json!({}),
        "header Mcp-Method 'prompts/list' does not match method \"tools/list\"",
    );
    check_err(
        &[pv],
        "tools/list",
        json!({}),
        "missing header Mcp-Method (mirrors method)",
    );
    check_err(
        &[
            pv,
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", "wrong_tool_name"),
        ],
        "tools/call",
        call(),
        "header Mcp-Name 'wrong_tool_name' does not match params.name \"get_x\"",
    );
    check_ok(
        &[pv, ("Mcp-Method", "tools/call"), ("Mcp-Name", "  get_x  ")],
        "tools/call",
        call(),
    );
    check_err(
        &[pv, ("Mcp-Method", "tools/call")],
        "tools/call",
        call(),
        "missing header Mcp-Name (mirrors params.name)",
    );
    check_ok(&[pv, ("mcp-method", "tools/list")], "tools/list", json!({}));
    check_ok(&[pv, ("MCP-METHOD", "tools/list")], "tools/list", json!({}));
    check_err(
        &[pv, ("Mcp-Method", "TOOLS/LIST")],
        "tools/list",
        json!({}),
        "header Mcp-Method 'TOOLS/LIST' does not match method \"tools/list\"",
    );
}

// Validation steps 1 and 3, the server-stateless conformance scenario.
#[test]
fn protocol_version_steps() {
    let h = headers(&[("Mcp-Method", "server/discover")]);
    assert!(!h.has_protocol_version());
    assert_eq!(h.protocol_version(), None);
    assert_eq!(
        h.check_protocol_version().unwrap_err().to_string(),
        "missing header MCP-Protocol-Version (mirrors _meta io.modelcontextprotocol/protocolVersion)"
    );

    let h = headers(&[("mcp-protocol-version", " 2026-07-28 ")]);
    assert!(h.has_protocol_version());
    assert_eq!(h.protocol_version(), Some(VERSION));
    assert!(h.check_protocol_version_matches(VERSION).is_ok());
    // Header 2026-07-28 with _meta v999.0.0: a mismatch (-32020), not an unsupported version.
    let err = h.check_protocol_version_matches("v999.0.0").unwrap_err();
    assert_eq!(
        err.to_string(),
        "header MCP-Protocol-Version '2026-07-28' does not match _meta io.modelcontextprotocol/protocolVersion \"v999.0.0\""
    );
    // Header and meta both v999.0.0: the headers agree; -32022 is the version module's call.
    let h = headers(&[("MCP-Protocol-Version", "v999.0.0")]);
    assert!(h.check_protocol_version_matches("v999.0.0").is_ok());

    let h = headers(&[
        ("MCP-Protocol-Version", VERSION),
        ("MCP-Protocol-Version", VERSION),
    ]);
    assert!(h.has_protocol_version());
    assert_eq!(h.protocol_version(), None);
    assert!(matches!(
        h.check_protocol_version(),
        Err(HeaderError::Repeated { .. })
    ));

    let h = ReceivedHeaders::from_pairs([("MCP-Protocol-Version", &b"2026\xff"[..])]);
    assert_eq!(
        h.check_protocol_version().unwrap_err().to_string(),
        "header MCP-Protocol-Version contains invalid characters"
    );
}

#[test]
fn mcp_name_per_method() {
    let pv = ("MCP-Protocol-Version", VERSION);
    check_ok(
        &[
            pv,
            ("Mcp-Method", "resources/read"),
            ("Mcp-Name", "file:///path/to/file%20name.txt"),
        ],
        "resources/read",
        json!({"uri": "file:///path/to/file%20name.txt"}),
    );
    check_ok(
        &[
            pv,
            ("Mcp-Method", "resources/read"),
            ("Mcp-Name", "=?base64?ZmlsZTovLy9ow6lsbG8=?="),
        ],
        "resources/read",
        json!({"uri": "file:///héllo"}),
    );
    check_err(
        &[pv, ("Mcp-Method", "prompts/get"), ("Mcp-Name", "other")],
        "prompts/get",
        json!({"name": "review"}),
        "header Mcp-Name 'other' does not match params.name \"review\"",
    );
    check_err(
        &[pv, ("Mcp-Method", "tasks/cancel")],
        "tasks/cancel",
        json!({"taskId": "t-5c1e"}),
        "missing header Mcp-Name (mirrors params.taskId)",
    );
    check_ok(
        &[pv, ("Mcp-Method", "tasks/get"), ("Mcp-Name", "t-1")],
        "tasks/get",
        json!({"taskId": "t-1"}),
    );
    // Methods without Mcp-Name ignore one; bodies without the value do not require one.
    check_ok(
        &[pv, ("Mcp-Method", "tools/list"), ("Mcp-Name", "x")],
        "tools/list",
        json!({}),
    );
    check_ok(
        &[pv, ("Mcp-Method", "tools/call")],
        "tools/call",
        json!({"arguments": {}}),
    );
    check_ok(
        &[pv, ("Mcp-Method", "tools/call")],
        "tools/call",
        json!({"name": 5}),
    );
    // A base64 name that does not decode is rejected even if the literal would match.
    check_err(
        &[
            pv,
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", "=?base64?Z2V0X3g?="),
        ],
        "tools/call",
        json!({"name": "get_x"}),
        "header Mcp-Name has an invalid base64 payload",
    );
    check_ok(
        &[
            pv,
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", "=?base64?Z2V0X3g=?="),
        ],
        "tools/call",
        json!({"name": "get_x"}),
    );
    check_err(
        &[
            pv,
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", "a"),
            ("mcp-name", "a"),
        ],
        "tools/call",
        json!({"name": "a"}),
        "header Mcp-Name is sent more than once",
    );
}

fn custom_header_tool() -> ParamHeaders {
    ParamHeaders::from_input_schema(&json!({
        "type": "object",
        "properties": {"region": {"type": "string", "x-mcp-header": "Region"}},
        "required": ["region"]
    }))
    .unwrap()
}

#[track_caller]
fn check_param(
    tool: &ParamHeaders,
    pairs: &[(&str, &str)],
    arguments: Value,
) -> Result<(), String> {
    headers(pairs)
        .check_params(tool, Some(&arguments))
        .map_err(|e| {
            assert_eq!(
                ErrorObject::from(e.clone()).code,
                ErrorCode::HEADER_MISMATCH
            );
            assert!(e.is_param_header());
            e.to_string()
        })
}

// The http-custom-header-server-validation conformance scenario.
#[test]
fn runner_custom_header_table() {
    let tool = custom_header_tool();
    let region = |v: &str| json!({ "region": v });
    assert_eq!(
        check_param(
            &tool,
            &[("Mcp-Param-Region", "=?base64?SGVsbG8=?=")],
            region("Hello")
        ),
        Ok(())
    );
    assert_eq!(
        check_param(
            &tool,
            &[("Mcp-Param-Region", "=?base64?SGVsbG8?=")],
            region("Hello")
        ),
        Err("header Mcp-Param-Region has an invalid base64 payload".to_owned())
    );
    assert_eq!(
        check_param(
            &tool,
            &[("Mcp-Param-Region", "=?base64?SGVs!!!bG8=?=")],
            region("Hello")
        ),
        Err("header Mcp-Param-Region has an invalid base64 payload".to_owned())
    );
    assert_eq!(
        check_param(
            &tool,
            &[("Mcp-Param-Region", "SGVsbG8=")],
            region("SGVsbG8=")
        ),
        Ok(())
    );
    assert_eq!(
        check_param(
            &tool,
            &[("Mcp-Param-Region", "=?base64?SGVsbG8=")],
            region("=?base64?SGVsbG8=")
        ),
        Ok(())
    );
    assert_eq!(
        check_param(&tool, &[], region("test-value")),
        Err("missing header Mcp-Param-Region (mirrors arguments.region)".to_owned())
    );
}

#[test]
fn param_headers_edge_cases() {
    let tool = custom_header_tool();
    // Names are case-insensitive; values trimmed.
    assert_eq!(
        check_param(
            &tool,
            &[("MCP-PARAM-REGION", " us-west1 ")],
            json!({"region": "us-west1"})
        ),
        Ok(())
    );
    assert_eq!(
        check_param(
            &tool,
            &[("mcp-param-region", "us-west1")],
            json!({"region": "us-west1"})
        ),
        Ok(())
    );
    // Absent or null argument: nothing expected, a stray header ignored.
    assert_eq!(check_param(&tool, &[], json!({})), Ok(()));
    assert_eq!(
        check_param(&tool, &[("Mcp-Param-Region", "x")], json!({"region": null})),
        Ok(())
    );
    assert!(headers(&[]).check_params(&tool, None).is_ok());
    // Undeclared Mcp-Param-* headers are ignored.
    assert_eq!(
        check_param(
            &tool,
            &[("Mcp-Param-Region", "a"), ("Mcp-Param-Other", "\u{1}")],
            json!({"region": "a"})
        ),
        Ok(())
    );
    assert_eq!(
        check_param(
            &tool,
            &[("Mcp-Param-Region", "eu")],
            json!({"region": "us"})
        ),
        Err("header Mcp-Param-Region 'eu' does not match arguments.region \"us\"".to_owned())
    );
    assert_eq!(
        check_param(
            &tool,
            &[("Mcp-Param-Region", "a\u{1}b")],
            json!({"region": "a\u{1}b"})
        ),
        Err("header Mcp-Param-Region contains invalid characters".to_owned())
    );
    assert_eq!(
        check_param(
            &tool,
            &[("Mcp-Param-Region", "a"), ("Mcp-Param-region", "a")],
            json!({"region": "a"})
        ),
        Err("header Mcp-Param-Region is sent more than once".to_owned())
    );
    // An empty value mirrors an empty string.
    assert_eq!(
        check_param(&tool, &[("Mcp-Param-Region", "")], json!({"region": ""})),
        Ok(())
    );
    // A bare prefix is not a param header.
    assert_eq!(
        ReceivedHeaders::from_pairs([("Mcp-Param-", "x")]),
        ReceivedHeaders::default()
    );
    // Long and control-laden values are shortened and escaped in the message.
    let long = format!("{}\n", "x".repeat(100));
    let err = check_param(
        &tool,
        &[("Mcp-Param-Region", &encode_header_value(&long))],
        json!({"region": "y"}),
    )
    .unwrap_err();
    assert_eq!(
        err,
        format!(
            "header Mcp-Param-Region '{}…' does not match arguments.region \"y\"",
            "x".repeat(64)
        )
    );
}

#[test]
fn param_headers_typed_comparison() {
    let tool = ParamHeaders::from_input_schema(&json!({"type": "object", "properties": {
        "n": {"type": "integer", "x-mcp-header": "N"},
        "b": {"type": "boolean", "x-mcp-header": "B"},
        "w": {"type": "object", "properties": {"days": {"type": "integer", "x-mcp-header": "Window-Days"}}}
    }}))
    .unwrap();
    let n = |header: &str, body: Value| {
        check_param(&tool, &[("Mcp-Param-N", header)], json!({ "n": body }))
    };
    for (header, body) in [
        ("42", json!(42)),
        ("42.0", json!(42)),
        ("4.2e1", json!(42)),
        ("042", json!(42)),
        ("-7", json!(-7)),
        ("42", json!(42.0)),
        ("18446744073709551615", json!(u64::MAX)),
        ("=?base64?NDI=?=", json!(42)),
    ] {
        assert_eq!(n(header, body.clone()), Ok(()), "{header} vs {body}");
    }
    for (header, body) in [
        ("43", json!(42)),
        ("42.5", json!(42)),
        ("+42", json!(42)),
        ("0x2A", json!(42)),
        ("42abc", json!(42)),
        ("4.", json!(4)),
        (".5", json!(0.5)),
        ("inf", json!(1e308)),
        ("NaN", json!(0)),
        ("", json!(0)),
        ("9007199254740993", json!(9_007_199_254_740_992_u64)),
        ("true", json!(1)),
        // A string body compares as a string.
        ("42.0", json!("42")),
    ] {
        assert!(n(header, body.clone()).is_err(), "{header} vs {body}");
    }
    assert_eq!(
        n("14", json!(7)),
        Err("header Mcp-Param-N '14' does not match arguments.n 7".to_owned())
    );
    let b = |header: &str, body: Value| {
        check_param(&tool, &[("Mcp-Param-B", header)], json!({ "b": body }))
    };
    assert_eq!(b("true", json!(true)), Ok(()));
    assert_eq!(b("false", json!(false)), Ok(()));
    assert!(b("False", json!(false)).is_err());
    assert!(b("1", json!(true)).is_err());
    // An object where a primitive belongs can never match.
    assert!(b("{}", json!({})).is_err());
    // Nested: the example of the spec's custom-header section.
    assert_eq!(
        check_param(
            &tool,
            &[("Mcp-Param-Window-Days", "14")],
            json!({"w": {"days": 7}})
        ),
        Err("header Mcp-Param-Window-Days '14' does not match arguments.w.days 7".to_owned())
    );
}

// The http-standard-headers conformance scenario: the client builds exactly the runner's expected headers, and a server accepts
// them.
#[test]
fn runner_client_custom_headers_round_trip() {
    let prop = |t: &str, name: &str| json!({"type": t, "x-mcp-header": name});
    let schema = json!({"type": "object", "properties": {
        "region": prop("string", "Region"),
        "priority": prop("integer", "Priority"),
        "verbose": prop("boolean", "Verbose"),
        "debug": prop("boolean", "Debug"),
        "empty_val": prop("string", "EmptyVal"),
        "method_val": prop("string", "Method"),
        "float_val": {"type": "number"},
        "non_ascii_val": prop("string", "NonAscii"),
        "whitespace_val": prop("string", "Whitespace"),
        "leading_space_val": prop("string", "LeadingSpace"),
        "trailing_space_val": prop("string", "TrailingSpace"),
        "internal_space_val": prop("string", "InternalSpace"),
        "control_char_val": prop("string", "ControlChar"),
        "crlf_val": prop("string", "CrLf"),
        "tab_val": prop("string", "Tab"),
        "query": {"type": "string"}
    }});
    let tool = ParamHeaders::from_input_schema(&schema).unwrap();
    let params = json!({"name": "test_custom_headers", "arguments": {
        "region": "us-west1", "priority": 42, "verbose": false, "debug": true, "empty_val": "",
        "method_val": "test-method", "float_val": 2.5, "non_ascii_val": "Hello, 世界",
        "whitespace_val": " padded ", "leading_space_val": " us-west1",
        "trailing_space_val": "us-west1 ", "internal_space_val": "us west 1",
        "control_char_val": "line1\nline2", "crlf_val": "line1\r\nline2", "tab_val": "\tindented",
        "query": "SELECT * FROM users"
    }});
    let built = request_headers(VERSION, "tools/call", Some(&params), Some(&tool)).unwrap();
    let expect = [
        ("MCP-Protocol-Version", VERSION),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", "test_custom_headers"),
        ("Mcp-Param-Region", "us-west1"),
        ("Mcp-Param-Priority", "42"),
        ("Mcp-Param-Verbose", "false"),
        ("Mcp-Param-Debug", "true"),
        ("Mcp-Param-EmptyVal", ""),
        ("Mcp-Param-Method", "test-method"),
        ("Mcp-Param-NonAscii", "=?base64?SGVsbG8sIOS4lueVjA==?="),
        ("Mcp-Param-Whitespace", "=?base64?IHBhZGRlZCA=?="),
        ("Mcp-Param-LeadingSpace", "=?base64?IHVzLXdlc3Qx?="),
        ("Mcp-Param-TrailingSpace", "=?base64?dXMtd2VzdDEg?="),
        ("Mcp-Param-InternalSpace", "us west 1"),
        ("Mcp-Param-ControlChar", "=?base64?bGluZTEKbGluZTI=?="),
        ("Mcp-Param-CrLf", "=?base64?bGluZTENCmxpbmUy?="),
        ("Mcp-Param-Tab", "=?base64?CWluZGVudGVk?="),
    ];
    let mut built_ref: Vec<(&str, &str)> = built
        .iter()
        .map(|(n, v)| (n.as_str(), v.as_str()))
        .collect();
    // The standard headers come first; param headers follow in map order (preserve_order or not).
    assert_eq!(built_ref[..3], expect[..3]);
    let mut expect = expect.to_vec();
    built_ref.sort_unstable();
    expect.sort_unstable();
    assert_eq!(built_ref, expect);

    // The server side accepts what the client built (whatever the key order of the schema).
    let received = ReceivedHeaders::from_pairs(built.iter().map(|(n, v)| (n.as_str(), v.as_str())));
    validate(&received, "tools/call", &params).unwrap();
    received
        .check_params(&tool, params.get("arguments"))
        .unwrap();
    // "Mcp-Param-Method" is a param header, not Mcp-Method.
    received.check_method("tools/call").unwrap();

    // The null call: no Mcp-Param-Verbose.
    let params = json!({"name": "test_custom_headers_null", "arguments": {
        "region": "us-east1", "priority": 1, "verbose": null, "query": "SELECT 1"
    }});
    let built = request_headers(VERSION, "tools/call", Some(&params), Some(&tool)).unwrap();
    let mut names: Vec<&str> = built.iter().map(|(n, _)| n.as_str()).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "MCP-Protocol-Version",
            "Mcp-Method",
            "Mcp-Name",
            "Mcp-Param-Priority",
            "Mcp-Param-Region"
        ]
    );
}

#[test]
fn request_headers_per_method() {
    let names = |method: &str, params: Value| -> Vec<(String, String)> {
        request_headers(VERSION, method, Some(&params), None).unwrap()
    };
    assert_eq!(names("tools/list", json!({})).len(), 2);
    let read = names(
        "resources/read",
        json!({"uri": "https://example.com/resource?id=123"}),
    );
    assert_eq!(
        read[2],
        (
            "Mcp-Name".to_owned(),
            "https://example.com/resource?id=123".to_owned()
        )
    );
    let task = names("tasks/update", json!({"taskId": "t-5c1e"}));
    assert_eq!(task[2], ("Mcp-Name".to_owned(), "t-5c1e".to_owned()));
    let unicode = names("prompts/get", json!({"name": "résumé"}));
    assert_eq!(unicode[2].1, "=?base64?csOpc3Vtw6k=?=");
    // Notifications carry the version and method only.
    let notification = request_headers(VERSION, "notifications/cancelled", None, None).unwrap();
    assert_eq!(notification.len(), 2);
    // Param headers only for tools/call.
    let tool = custom_header_tool();
    let other = request_headers(
        VERSION,
        "prompts/get",
        Some(&json!({"name": "p", "arguments": {"region": "x"}})),
        Some(&tool),
    )
    .unwrap();
    assert_eq!(other.len(), 3);
}

/// Found by the sep2243_headers fuzz target: a method `Mcp-Method` cannot carry as itself
/// (`"prompts/get "`) was sent anyway, and the server, which trims the header, refused it.
#[test]
fn a_method_the_header_cannot_carry_is_refused_before_sending() {
    for method in ["prompts/get ", " tools/list", "tools\tlist", "wérk", "x\n"] {
        assert_eq!(
            request_headers(VERSION, method, Some(&json!({})), None),
            Err(ParamValueError::UnsendableMethod {
                method: method.to_owned()
            }),
            "{method:?}"
        );
    }
    assert!(request_headers(VERSION, "vendor/do thing", Some(&json!({})), None).is_ok());
}

#[test]
fn error_object_shape() {
    let err = headers(&[]).check_method("tools/list").unwrap_err();
    assert_eq!(err.header(), "Mcp-Method");
    assert!(!err.is_param_header());
    let object = ErrorObject::from(err);
    assert_eq!(
        serde_json::to_value(&object).unwrap(),
        json!({"code": -32020, "message": "missing header Mcp-Method (mirrors method)", "data": {"header": "Mcp-Method"}})
    );
}

#[test]
fn from_pairs_accepts_owned_and_byte_values() {
    let owned = vec![("Mcp-Method".to_owned(), b"tools/list".to_vec())];
    assert!(
        ReceivedHeaders::from_pairs(owned)
            .check_method("tools/list")
            .is_ok()
    );
    let mut h = ReceivedHeaders::default();
    h.insert("content-type", b"application/json");
    h.insert("mcp-method", b"tools/list");
    assert!(h.check_method("tools/list").is_ok());
}

// found by the sep2243_headers fuzz target: serde's derived readers take an array as the
// fields in order, so the raw-params reader took `["get_x"]`'s first element for its name
// and required an `Mcp-Name` the client (reading members) never sends
#[test]
fn array_params_have_no_name_for_any_reader() {
    let pv = ("MCP-Protocol-Version", VERSION);
    let raw = serde_json::value::RawValue::from_string(r#" ["get_x"]"#.into()).unwrap();
    let method_only = headers(&[pv, ("Mcp-Method", "tools/call")]);
    assert!(
        method_only
            .check_routing("tools/call", Some(&json!(["get_x"])))
            .is_ok()
    );
    assert!(
        method_only
            .check_request_routing("tools/call", Some(&raw))
            .is_ok()
    );
    let named = headers(&[pv, ("Mcp-Method", "tools/call"), ("Mcp-Name", "other")]);
    assert!(
        named
            .check_request_routing("tools/call", Some(&raw))
            .is_ok()
    );
    assert!(named.check_sent_routing("tools/call", Some(&raw)).is_ok());
    // an object's member is still read, whatever space comes first
    let object = serde_json::value::RawValue::from_string(r#" {"name":"get_x"}"#.into()).unwrap();
    assert!(
        method_only
            .check_request_routing("tools/call", Some(&object))
            .is_err()
    );
}
