//! SEP-2243 header values and checks (`presa_core::decode_header_value`, `encode_header_value`,
//! `ReceivedHeaders`, `ParamHeaders`, `request_headers`):
//!
//! - any received bytes decode or fail cleanly; a decoded value re-encodes to a header value
//!   that decodes to it again;
//! - any string encodes to a valid header value that decodes back to it exactly;
//! - for a request `{"method", "params", "schema"}` (the tool's input schema), the headers
//!   presa's client would send pass presa's server checks: routing and every mirrored
//!   parameter.
#![no_main]

use libfuzzer_sys::fuzz_target;
use presa_core::{
    ParamHeaders, ReceivedHeaders, decode_header_value, encode_header_value, plain_header_value,
    request_headers,
};
use serde_json::Value;
use serde_json::value::RawValue;

fn values(data: &[u8]) {
    if let Ok(decoded) = decode_header_value(data) {
        let encoded = encode_header_value(&decoded);
        let again = decode_header_value(encoded.as_bytes())
            .unwrap_or_else(|e| panic!("{encoded:?} (encoding {decoded:?}) fails: {e}"));
        assert_eq!(again, decoded);
    }
    let _ = plain_header_value(data);
    let text = String::from_utf8_lossy(data);
    let encoded = encode_header_value(&text);
    assert!(
        encoded.bytes().all(|b| (0x20..=0x7e).contains(&b)),
        "{encoded:?} is not a plain header value"
    );
    let decoded = decode_header_value(encoded.as_bytes())
        .unwrap_or_else(|e| panic!("{encoded:?} (encoding {text:?}) fails: {e}"));
    assert_eq!(decoded, text);
}

fn sent_headers_pass(case: &Value) {
    let (Some(method), Some(params)) = (case["method"].as_str(), case.get("params")) else {
        return;
    };
    let tool = case.get("schema").map(ParamHeaders::from_input_schema);
    let tool = match tool {
        Some(Ok(tool)) => Some(tool),
        Some(Err(_)) => return,
        None => None,
    };
    let Ok(headers) = request_headers("2026-07-28", method, Some(params), tool.as_ref()) else {
        return;
    };
    let received =
        ReceivedHeaders::from_pairs(headers.iter().map(|(n, v)| (n.as_str(), v.as_str())));
    let raw = RawValue::from_string(params.to_string()).expect("a JSON value");
    if let Err(e) = received.check_request_routing(method, Some(&raw)) {
        panic!("{method} {params}: the headers sent {headers:?} fail routing: {e}");
    }
    // only a tools/call carries the tool's parameter headers
    if let (Some(tool), "tools/call") = (&tool, method) {
        if let Err(e) = received.check_params(tool, params.get("arguments")) {
            panic!("{method} {params}: the headers sent {headers:?} fail the parameters: {e}");
        }
    }
}

fuzz_target!(|data: &[u8]| {
    values(data);
    if let Ok(case) = serde_json::from_slice::<Value>(data) {
        sent_headers_pass(&case);
    }
});
