//! `requestState` (`presa_core::RequestStateCodec`): opening any token fails cleanly unless it
//! was sealed with the key; a state sealed for a method and binding opens to the same state
//! (canonical JSON) for exactly that method and binding, before its expiry; changing any one
//! character of a sealed token makes it fail.
//!
//! Input: a JSON `[state, binding, index]`, else the bytes as a token.
#![no_main]

use std::time::{Duration, SystemTime};

use libfuzzer_sys::fuzz_target;
use presa_core::{RequestStateCodec, RequestStateKey, canonical_json};
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let codec = RequestStateCodec::new(RequestStateKey::new([7u8; 32]).expect("a long key"))
        .with_previous_key(RequestStateKey::new([9u8; 40]).expect("a long key"));
    let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000);
    let text = String::from_utf8_lossy(data);
    assert!(
        codec.open(now, &text, "tools/call", &Value::Null).is_err(),
        "a forged token opened"
    );

    let Ok(Value::Array(case)) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    let [state, binding, index] = case.as_slice() else {
        return;
    };
    let token = codec.seal(now, Duration::from_secs(60), "tools/call", binding, state);
    let opened = codec
        .open(now, &token, "tools/call", binding)
        .unwrap_or_else(|e| panic!("a sealed state does not open: {e}"));
    assert_eq!(canonical_json(&opened), canonical_json(state));
    assert!(codec.open(now, &token, "prompts/get", binding).is_err());
    assert!(
        codec
            .open(now + Duration::from_secs(61), &token, "tools/call", binding)
            .is_err()
    );
    let other = serde_json::json!({"other": binding});
    assert!(codec.open(now, &token, "tools/call", &other).is_err());

    let at = index.as_u64().unwrap_or_default() as usize % token.len();
    let mut changed = token.clone().into_bytes();
    changed[at] = if changed[at] == b'A' { b'B' } else { b'A' };
    let changed = String::from_utf8(changed).expect("ASCII");
    if changed != token {
        assert!(
            codec.open(now, &changed, "tools/call", binding).is_err(),
            "a token changed at {at} still opened"
        );
    }
});
