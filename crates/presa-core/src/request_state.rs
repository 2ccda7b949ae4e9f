//! The sealed `requestState` of multi round-trip requests: see [`RequestStateCodec`].

use std::fmt;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, KeyInit, Mac};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use crate::ErrorObject;

type HmacSha256 = Hmac<Sha256>;

/// The format version, first byte of every token.
const FORMAT: u8 = 1;
/// Domain separation for the MAC and the binding digest.
const MAC_CONTEXT: &[u8] = b"presa requestState v1 mac\0";
const BINDING_CONTEXT: &[u8] = b"presa requestState v1 binding\0";
const BINDING_LEN: usize = 16;
const TAG_LEN: usize = 32;
/// Format byte, expiry (u64 big-endian), binding digest.
const HEADER_LEN: usize = 1 + 8 + BINDING_LEN;

/// A secret key for sealing `requestState`, at least [`RequestStateKey::MIN_LEN`] bytes.
///
/// Generate it from a cryptographic random source (presa-core has none) and share it between
/// the instances that serve the same clients. Its bytes never appear in `Debug` output.
#[derive(Clone)]
pub struct RequestStateKey {
    mac: HmacSha256,
}

impl RequestStateKey {
    /// The shortest key accepted: 32 bytes, the output size of SHA-256 (RFC 2104 §3).
    pub const MIN_LEN: usize = 32;

    /// A key from secret bytes.
    pub fn new(bytes: impl AsRef<[u8]>) -> Result<Self, RequestStateKeyError> {
        let bytes = bytes.as_ref();
        if bytes.len() < Self::MIN_LEN {
            return Err(RequestStateKeyError { len: bytes.len() });
        }
        let mac = <HmacSha256 as KeyInit>::new_from_slice(bytes)
            .map_err(|_| RequestStateKeyError { len: bytes.len() })?;
        Ok(Self { mac })
    }

    fn tag(&self, body: &[u8]) -> HmacSha256 {
        let mut mac = self.mac.clone();
        mac.update(MAC_CONTEXT);
        mac.update(body);
        mac
    }
}

impl fmt::Debug for RequestStateKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("RequestStateKey(..)")
    }
}

/// A key shorter than [`RequestStateKey::MIN_LEN`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RequestStateKeyError {
    len: usize,
}

impl fmt::Display for RequestStateKeyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "request state key has {} bytes, at least {} are needed",
            self.len,
            RequestStateKey::MIN_LEN
        )
    }
}

impl std::error::Error for RequestStateKeyError {}

/// Seals and opens the `requestState` of multi round-trip requests (MRTR, <https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr>).
///
/// A 2026-07-28 server that needs input from the client answers `tools/call`, `prompts/get` or
/// `resources/read` with an `InputRequiredResult`; whatever it must remember until the retry
/// travels in the opaque `requestState` string, which the client echoes byte for byte. The
/// client is untrusted, so presa seals the state: an HMAC-SHA256 under a server key covers the
/// state, an expiry, and a digest of the originating request (its method and identifying
/// params), so a state cannot be altered, kept past its lifetime, or replayed on another tool,
/// prompt, resource or set of arguments. Every instance behind a load balancer that shares the
/// key can open it.
///
/// The state is integrity-protected, **not encrypted**: the client can read it (Base64 of
/// JSON). Keep secrets out of it. Sealing does not make a state single-use either; one-time
/// semantics need server-side bookkeeping.
///
/// ```
/// use std::time::{Duration, SystemTime};
///
/// use presa_core::{RequestStateCodec, RequestStateError, RequestStateKey, request_state_binding};
/// use serde_json::json;
///
/// let key = RequestStateKey::new([7u8; 32]).unwrap();
/// let codec = RequestStateCodec::new(key);
/// let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000);
///
/// let params = json!({"name": "deploy", "arguments": {"env": "prod"}});
/// let binding = request_state_binding("tools/call", &params);
/// let token = codec.seal(now, Duration::from_secs(300), "tools/call", &binding, &json!({"step": 2}));
///
/// // The retry carries the same params plus `requestState: token`.
/// let state = codec.open(now, &token, "tools/call", &binding).unwrap();
/// assert_eq!(state, json!({"step": 2}));
///
/// let tampered = format!("{token}-TAMPERED");
/// assert!(codec.open(now, &tampered, "tools/call", &binding).is_err());
/// let later = now + Duration::from_secs(301);
/// assert_eq!(codec.open(later, &token, "tools/call", &binding), Err(RequestStateError::Expired));
/// ```
///
/// The codec seals with a current key and, during a rotation, also opens with previous keys.
///
/// A token is `base64url(1 || expiry || binding digest || state JSON || HMAC-SHA256)`,
/// unpadded: about 76 characters plus 4/3 of the state's canonical JSON. The expiry is in unix
/// milliseconds; the binding digest is the first 16 bytes of SHA-256 over the method and the
/// [canonical JSON](canonical_json) of the binding.
#[derive(Clone, Debug)]
pub struct RequestStateCodec {
    current: RequestStateKey,
    previous: Vec<RequestStateKey>,
}

impl RequestStateCodec {
    /// A codec sealing and opening with `key`.
    pub fn new(key: RequestStateKey) -> Self {
        Self {
            current: key,
            previous: Vec::new(),
        }
    }

    /// Also opens tokens sealed with `key` (a key being rotated out). Each extra key costs one
    /// more HMAC when a token fails to verify under the current key.
    #[must_use]
    pub fn with_previous_key(mut self, key: RequestStateKey) -> Self {
        self.previous.push(key);
        self
    }

    /// Seals `state` for a retry of the request `method` with `binding` (see
    /// [`request_state_binding`]), valid until `now + ttl`.
    ///
    /// To tie the state to the caller as well (the MRTR server requirements recommend binding the authenticated
    /// principal), put the principal into `binding`, e.g.
    /// `json!({"request": request_state_binding(..), "sub": subject})`.
    pub fn seal(
        &self,
        now: SystemTime,
        ttl: Duration,
        method: &str,
        binding: &Value,
        state: &Value,
    ) -> String {
        let expires =
            unix_millis(now).saturating_add(u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX));
        let mut body = Vec::with_capacity(HEADER_LEN + 64 + TAG_LEN);
        body.push(FORMAT);
        body.extend_from_slice(&expires.to_be_bytes());
        body.extend_from_slice(&binding_digest(method, binding));
        write_canonical(&mut body, state);
        let tag = self.current.tag(&body).finalize().into_bytes();
        body.extend_from_slice(&tag);
        URL_SAFE_NO_PAD.encode(body)
    }

    /// Opens a token received as `requestState` on a retry of `method` with `binding`.
    ///
    /// Checks, in order: the token decodes ([`Malformed`](RequestStateError::Malformed)), its
    /// MAC verifies under one of the keys, compared in constant time
    /// ([`Tampered`](RequestStateError::Tampered)), it was sealed for this method and binding
    /// ([`Foreign`](RequestStateError::Foreign)), and `now` is not past its expiry
    /// ([`Expired`](RequestStateError::Expired)).
    pub fn open(
        &self,
        now: SystemTime,
        token: &str,
        method: &str,
        binding: &Value,
    ) -> Result<Value, RequestStateError> {
        let bytes = URL_SAFE_NO_PAD
            .decode(token)
            .map_err(|_| RequestStateError::Malformed)?;
        if bytes.len() < HEADER_LEN + TAG_LEN || bytes.first() != Some(&FORMAT) {
            return Err(RequestStateError::Malformed);
        }
        let malformed = || RequestStateError::Malformed;
        let (body, tag) = bytes
            .split_at_checked(bytes.len() - TAG_LEN)
            .ok_or_else(malformed)?;
        let authentic = std::iter::once(&self.current)
            .chain(&self.previous)
            .any(|key| key.tag(body).verify_slice(tag).is_ok());
        if !authentic {
            return Err(RequestStateError::Tampered);
        }
        let (header, state) = body.split_at_checked(HEADER_LEN).ok_or_else(malformed)?;
        let expires: [u8; 8] = header
            .get(1..9)
            .and_then(|b| b.try_into().ok())
            .ok_or_else(malformed)?;
        let digest = header.get(9..).ok_or_else(malformed)?;
        if digest != binding_digest(method, binding) {
            return Err(RequestStateError::Foreign);
        }
        let expires = u64::from_be_bytes(expires);
        if unix_millis(now) > expires {
            return Err(RequestStateError::Expired);
        }
        serde_json::from_slice(state).map_err(|_| RequestStateError::Malformed)
    }
}

fn unix_millis(time: SystemTime) -> u64 {
    time.duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

fn binding_digest(method: &str, binding: &Value) -> [u8; BINDING_LEN] {
    let mut hasher = Sha256::new();
    hasher.update(BINDING_CONTEXT);
    hasher.update((method.len() as u64).to_be_bytes());
    hasher.update(method.as_bytes());
    let mut canonical = Vec::new();
    write_canonical(&mut canonical, binding);
    hasher.update(&canonical);
    let digest = hasher.finalize();
    let mut out = [0; BINDING_LEN];
    out.copy_from_slice(digest.get(..BINDING_LEN).unwrap_or(&[0; BINDING_LEN]));
    out
}

/// The part of a request's params a `requestState` is bound to: what identifies the request
/// apart from the MRTR fields, `_meta` and the JSON-RPC id.
///
/// - `tools/call`, `prompts/get`: `{"name": …, "arguments": …}`, absent or `null` arguments
///   counting as `{}`;
/// - `resources/read`: `{"uri": …}`;
/// - any other method: the params without `_meta`, `inputResponses` and `requestState`.
///
/// ```
/// use presa_core::request_state_binding;
/// use serde_json::json;
///
/// let params = json!({
///     "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"},
///     "name": "deploy",
///     "inputResponses": {"confirm": {"action": "accept"}},
///     "requestState": "…"
/// });
/// assert_eq!(request_state_binding("tools/call", &params), json!({"name": "deploy", "arguments": {}}));
/// ```
pub fn request_state_binding(method: &str, params: &Value) -> Value {
    let field = |name: &str| params.get(name).cloned().unwrap_or(Value::Null);
    match method {
        "tools/call" | "prompts/get" => {
            let arguments = match params.get("arguments") {
                None | Some(Value::Null) => Value::Object(Map::new()),
                Some(arguments) => arguments.clone(),
            };
            let mut out = Map::new();
            out.insert("name".to_owned(), field("name"));
            out.insert("arguments".to_owned(), arguments);
            Value::Object(out)
        }
        "resources/read" => {
            let mut out = Map::new();
            out.insert("uri".to_owned(), field("uri"));
            Value::Object(out)
        }
        _ => match params {
            Value::Object(map) => Value::Object(
                map.iter()
                    .filter(|(k, _)| {
                        !matches!(k.as_str(), "_meta" | "inputResponses" | "requestState")
                    })
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect(),
            ),
            other => other.clone(),
        },
    }
}

/// Serializes a JSON value canonically: object members sorted by key (bytewise UTF-8, i.e. by
/// code point), no whitespace, whole numbers within ±2^53 written as integers (`1.0` → `1`),
/// minimal string escapes. Independent of serde_json's `preserve_order` feature, so two
/// encodings of the same arguments in any key order give the same text.
///
/// ```
/// use presa_core::canonical_json;
/// use serde_json::json;
///
/// assert_eq!(canonical_json(&json!({"b": [1.0, "x\n"], "a": null})), r#"{"a":null,"b":[1,"x\n"]}"#);
/// ```
pub fn canonical_json(value: &Value) -> String {
    let mut out = Vec::new();
    write_canonical(&mut out, value);
    // Only valid UTF-8 is ever written.
    String::from_utf8(out).unwrap_or_default()
}

fn write_canonical(out: &mut Vec<u8>, value: &Value) {
    match value {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(true) => out.extend_from_slice(b"true"),
        Value::Bool(false) => out.extend_from_slice(b"false"),
        Value::Number(n) => {
            const SAFE: f64 = 9_007_199_254_740_991.0;
            let text = match (n.as_i64(), n.as_u64(), n.as_f64()) {
                (Some(i), _, _) => i.to_string(),
                (None, Some(u), _) => u.to_string(),
                (None, None, Some(f)) if f.fract() == 0.0 && f.abs() <= SAFE => {
                    #[allow(clippy::cast_possible_truncation)]
                    let i = f as i64;
                    i.to_string()
                }
                _ => n.to_string(),
            };
            out.extend_from_slice(text.as_bytes());
        }
        Value::String(s) => write_string(out, s),
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_canonical(out, item);
            }
            out.push(b']');
        }
        Value::Object(map) => {
            let mut members: Vec<(&String, &Value)> = map.iter().collect();
            members.sort_unstable_by(|a, b| a.0.cmp(b.0));
            out.push(b'{');
            for (i, (key, item)) in members.into_iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_string(out, key);
                out.push(b':');
                write_canonical(out, item);
            }
            out.push(b'}');
        }
    }
}

fn write_string(out: &mut Vec<u8>, s: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push(b'"');
    for &b in s.as_bytes() {
        match b {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            0x08 => out.extend_from_slice(b"\\b"),
            0x0c => out.extend_from_slice(b"\\f"),
            0x00..=0x1f => {
                out.extend_from_slice(b"\\u00");
                out.push(HEX[usize::from(b >> 4)]);
                out.push(HEX[usize::from(b & 0xf)]);
            }
            _ => out.push(b),
        }
    }
    out.push(b'"');
}

/// Why a received `requestState` was refused; answered with `-32602` Invalid params.
///
/// A token sealed under a key the codec does not hold is indistinguishable from a tampered one
/// and is reported as [`Tampered`](Self::Tampered).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RequestStateError {
    /// Not a token of this format (bad Base64, too short, unknown version, empty).
    Malformed,
    /// The MAC does not verify: altered, or sealed with another key.
    Tampered,
    /// Sealed for another method, or other arguments, name or URI.
    Foreign,
    /// Past its expiry.
    Expired,
}

impl fmt::Display for RequestStateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Malformed => "invalid requestState: malformed",
            Self::Tampered => "invalid requestState: integrity check failed",
            Self::Foreign => "invalid requestState: issued for a different request",
            Self::Expired => "invalid requestState: expired, send the request again without it",
        })
    }
}

impl std::error::Error for RequestStateError {}

impl From<RequestStateError> for ErrorObject {
    /// `-32602` Invalid params. <https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr#server-requirements-basic-workflow>: a state that fails verification is rejected with a
    /// JSON-RPC error (the runner's `input-required-result-tampered-state` fails a server that
    /// answers with a result or a fresh `InputRequiredResult`); `-32602` is the example the spec
    /// gives, and expiry is treated the same way.
    fn from(error: RequestStateError) -> Self {
        ErrorObject::invalid_params(error.to_string())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use serde_json::json;

    use super::*;
    use crate::ErrorCode;

    fn codec(byte: u8) -> RequestStateCodec {
        RequestStateCodec::new(RequestStateKey::new([byte; 32]).unwrap())
    }

    fn t0() -> SystemTime {
        UNIX_EPOCH + Duration::from_millis(1_785_000_000_123)
    }

    const TTL: Duration = Duration::from_secs(600);

    fn binding() -> Value {
        request_state_binding(
            "tools/call",
            &json!({"name": "deploy", "arguments": {"env": "prod", "n": 2}}),
        )
    }

    fn sealed(codec: &RequestStateCodec) -> String {
        codec.seal(
            t0(),
            TTL,
            "tools/call",
            &binding(),
            &json!({"step": 2, "seen": ["a", "ü"]}),
        )
    }

    #[test]
    fn round_trip() {
        let codec = codec(1);
        let token = sealed(&codec);
        assert!(
            token
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        );
        assert_eq!(
            codec.open(t0(), &token, "tools/call", &binding()),
            Ok(json!({"step": 2, "seen": ["a", "ü"]}))
        );
        // Any JSON value is a state.
        for state in [json!(null), json!("s"), json!(1.5), json!([]), json!({})] {
            let token = codec.seal(t0(), TTL, "prompts/get", &json!({}), &state);
            assert_eq!(
                codec.open(t0(), &token, "prompts/get", &json!({})),
                Ok(state)
            );
        }
        // Sealing is deterministic.
        assert_eq!(token, sealed(&codec));
    }

    #[test]
    fn tampered_bytes() {
        let codec = codec(1);
        let token = sealed(&codec);
        let bytes = URL_SAFE_NO_PAD.decode(&token).unwrap();
        for i in 0..bytes.len() {
            let mut altered = bytes.clone();
            altered[i] ^= 0x01;
            let altered = URL_SAFE_NO_PAD.encode(altered);
            let result = codec.open(t0(), &altered, "tools/call", &binding());
            let expect = if i == 0 {
                RequestStateError::Malformed
            } else {
                RequestStateError::Tampered
            };
            assert_eq!(result, Err(expect), "byte {i}");
        }
        // The runner's probe: a suffix appended to the string.
        let appended = format!("{token}-TAMPERED");
        assert!(matches!(
            codec.open(t0(), &appended, "tools/call", &binding()),
            Err(RequestStateError::Malformed | RequestStateError::Tampered)
        ));
        // Truncated.
        let truncated = &token[..token.len() - 4];
        assert!(
            codec
                .open(t0(), truncated, "tools/call", &binding())
                .is_err()
        );
    }

    #[test]
    fn wrong_key_and_rotation() {
        let token = sealed(&codec(1));
        assert_eq!(
            codec(2).open(t0(), &token, "tools/call", &binding()),
            Err(RequestStateError::Tampered)
        );
        let rotated = codec(2).with_previous_key(RequestStateKey::new([1; 32]).unwrap());
        assert!(rotated.open(t0(), &token, "tools/call", &binding()).is_ok());
        // New tokens are sealed with the current key only.
        let fresh = sealed(&rotated);
        assert!(
            codec(2)
                .open(t0(), &fresh, "tools/call", &binding())
                .is_ok()
        );
        assert_eq!(
            codec(1).open(t0(), &fresh, "tools/call", &binding()),
            Err(RequestStateError::Tampered)
        );
    }

    #[test]
    fn expiry() {
        let codec = codec(1);
        let token = sealed(&codec);
        let at = |ms: u64| t0() + Duration::from_millis(ms);
        assert!(
            codec
                .open(at(600_000), &token, "tools/call", &binding())
                .is_ok()
        );
        assert_eq!(
            codec.open(at(600_001), &token, "tools/call", &binding()),
            Err(RequestStateError::Expired)
        );
        // Earlier than sealing is fine (clock skew between instances).
        assert!(
            codec
                .open(UNIX_EPOCH, &token, "tools/call", &binding())
                .is_ok()
        );
        // A huge TTL saturates instead of overflowing.
        let forever = codec.seal(t0(), Duration::MAX, "m", &json!({}), &json!(1));
        assert!(
            codec
                .open(
                    t0() + Duration::from_secs(1 << 40),
                    &forever,
                    "m",
                    &json!({})
                )
                .is_ok()
        );
        // Before the epoch counts as 0.
        let early = UNIX_EPOCH - Duration::from_secs(5);
        let token = codec.seal(early, Duration::ZERO, "m", &json!({}), &json!(1));
        assert!(codec.open(UNIX_EPOCH, &token, "m", &json!({})).is_ok());
        assert_eq!(
            codec.open(
                UNIX_EPOCH + Duration::from_millis(1),
                &token,
                "m",
                &json!({})
            ),
            Err(RequestStateError::Expired)
        );
    }

    #[test]
    fn bound_to_method_and_arguments() {
        let codec = codec(1);
        let token = sealed(&codec);
        assert_eq!(
            codec.open(t0(), &token, "prompts/get", &binding()),
            Err(RequestStateError::Foreign)
        );
        let other = |params: Value| request_state_binding("tools/call", &params);
        for params in [
            json!({"name": "deploy", "arguments": {"env": "staging", "n": 2}}),
            json!({"name": "deploy", "arguments": {"env": "prod"}}),
            json!({"name": "deploy", "arguments": {"env": "prod", "n": 2, "x": null}}),
            json!({"name": "destroy", "arguments": {"env": "prod", "n": 2}}),
            json!({"name": "deploy", "arguments": {"env": "prod", "n": "2"}}),
        ] {
            assert_eq!(
                codec.open(t0(), &token, "tools/call", &other(params.clone())),
                Err(RequestStateError::Foreign),
                "{params}"
            );
        }
        // Same arguments, other key order, MRTR fields and _meta: accepted.
        let retry = serde_json::from_str::<Value>(
            r#"{"_meta": {"progressToken": 1}, "requestState": "x", "inputResponses": {},
                "arguments": {"n": 2.0, "env": "prod"}, "name": "deploy"}"#,
        )
        .unwrap();
        assert!(
            codec
                .open(t0(), &token, "tools/call", &other(retry))
                .is_ok()
        );
        // resources/read binds the URI.
        let read = |uri: &str| request_state_binding("resources/read", &json!({ "uri": uri }));
        let token = codec.seal(t0(), TTL, "resources/read", &read("file:///a"), &json!(1));
        assert!(
            codec
                .open(t0(), &token, "resources/read", &read("file:///a"))
                .is_ok()
        );
        assert_eq!(
            codec.open(t0(), &token, "resources/read", &read("file:///b")),
            Err(RequestStateError::Foreign)
        );
        // Method and binding cannot be shifted into each other.
        let a = codec.seal(t0(), TTL, "ab", &json!("c"), &json!(1));
        assert_eq!(
            codec.open(t0(), &a, "a", &json!("bc")),
            Err(RequestStateError::Foreign)
        );
    }

    #[test]
    fn garbage() {
        let codec = codec(1);
        for token in [
            "",
            "=",
            "!!!!",
            "AQ",
            "not a token",
            "AQAAAAAAAAAA",
            &"A".repeat(200),
            "é",
        ] {
            let result = codec.open(t0(), token, "tools/call", &binding());
            assert!(
                matches!(
                    result,
                    Err(RequestStateError::Malformed | RequestStateError::Tampered)
                ),
                "{token:?}: {result:?}"
            );
        }
        assert_eq!(
            codec.open(t0(), "", "tools/call", &binding()),
            Err(RequestStateError::Malformed)
        );
        // A valid MAC over garbage cannot be made without the key; a valid one over a bad
        // state is reported as malformed.
        let key = RequestStateKey::new([1; 32]).unwrap();
        let mut body = vec![FORMAT];
        body.extend_from_slice(&u64::MAX.to_be_bytes());
        body.extend_from_slice(&binding_digest("m", &json!({})));
        body.extend_from_slice(b"{not json");
        let tag = key.tag(&body).finalize().into_bytes();
        body.extend_from_slice(&tag);
        let token = URL_SAFE_NO_PAD.encode(body);
        assert_eq!(
            codec.open(t0(), &token, "m", &json!({})),
            Err(RequestStateError::Malformed)
        );
    }

    #[test]
    fn keys() {
        assert_eq!(
            RequestStateKey::new([0; 31]).unwrap_err().to_string(),
            "request state key has 31 bytes, at least 32 are needed"
        );
        assert!(RequestStateKey::new(vec![0; 100]).is_ok());
        let key = RequestStateKey::new(*b"super secret key material, 32+ bytes").unwrap();
        let debug = format!("{key:?} {:?}", RequestStateCodec::new(key.clone()));
        assert!(!debug.contains("secret"), "{debug}");
        assert!(!debug.contains("115, 117"), "{debug}");
    }

    #[test]
    fn binding_shapes() {
        assert_eq!(
            request_state_binding("prompts/get", &json!({"name": "p", "arguments": null})),
            json!({"name": "p", "arguments": {}})
        );
        assert_eq!(
            request_state_binding("tools/call", &json!({"arguments": {"a": 1}})),
            json!({"name": null, "arguments": {"a": 1}})
        );
        assert_eq!(
            request_state_binding("resources/read", &json!({"uri": "u", "requestState": "s"})),
            json!({"uri": "u"})
        );
        assert_eq!(
            request_state_binding(
                "x/y",
                &json!({"a": 1, "_meta": {}, "requestState": "s", "inputResponses": {}})
            ),
            json!({"a": 1})
        );
        assert_eq!(request_state_binding("x/y", &json!(null)), json!(null));
    }

    #[test]
    fn canonical_form() {
        let a: Value =
            serde_json::from_str(r#"{"b":{"y":1,"x":[true,false,null]},"a":"\u00e9\"\\\u0001"}"#)
                .unwrap();
        let b: Value =
            serde_json::from_str(r#"{"a":"é\"\\\u0001","b":{"x":[true,false,null],"y":1.0}}"#)
                .unwrap();
        let text = canonical_json(&a);
        assert_eq!(
            text,
            r#"{"a":"é\"\\\u0001","b":{"x":[true,false,null],"y":1}}"#
        );
        assert_eq!(canonical_json(&b), text);
        // The canonical text is valid JSON for the same value.
        assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), a);
        assert_eq!(
            canonical_json(&json!([1.5, -0.0, 1e300, -7, u64::MAX])),
            "[1.5,0,1e+300,-7,18446744073709551615]"
        );
        assert_eq!(
            canonical_json(&json!("\u{8}\u{c}\n\r\t\u{1f}")),
            r#""\b\f\n\r\t\u001f""#
        );
        // Keys sort by code point.
        assert_eq!(
            canonical_json(&json!({"é": 1, "z": 2, "Z": 3, "": 4})),
            r#"{"":4,"Z":3,"z":2,"é":1}"#
        );
    }

    #[test]
    fn error_objects() {
        for error in [
            RequestStateError::Malformed,
            RequestStateError::Tampered,
            RequestStateError::Foreign,
            RequestStateError::Expired,
        ] {
            let object = ErrorObject::from(error);
            assert_eq!(object.code, ErrorCode::INVALID_PARAMS);
            assert!(object.message.starts_with("invalid requestState: "));
        }
    }
}
