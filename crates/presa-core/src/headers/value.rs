//! Header value encoding: plain or `=?base64?…?=`.

use std::borrow::Cow;
use std::fmt;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;

const PREFIX: &str = "=?base64?";
const SUFFIX: &str = "?=";

/// Why a received `Mcp-Name` or `Mcp-Param-*` value could not be decoded.
///
/// Every variant means the request is rejected with `-32020` (HeaderMismatch); see
/// [`HeaderError`](crate::HeaderError), which wraps this error with the header's name.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum HeaderValueError {
    /// A byte outside visible ASCII, space and horizontal tab (a control character or obs-text).
    InvalidCharacters,
    /// The `=?base64?…?=` payload is not strict standard Base64 with padding.
    InvalidBase64,
    /// The Base64 payload decodes to bytes that are not UTF-8.
    InvalidUtf8,
}

impl fmt::Display for HeaderValueError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::InvalidCharacters => "contains invalid characters",
            Self::InvalidBase64 => "has an invalid base64 payload",
            Self::InvalidUtf8 => "has a base64 payload that is not utf-8",
        })
    }
}

impl std::error::Error for HeaderValueError {}

/// Whether `value` must travel as `=?base64?…?=` rather than as itself (<https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#value-encoding>).
///
/// A value goes out plain only if every character is visible ASCII (0x21–0x7E) or space, it
/// neither starts nor ends with a space, and it does not itself look like the sentinel (starts
/// with `=?base64?` and ends with `?=`). A tab anywhere needs Base64, as does any other control
/// character and anything beyond ASCII. The empty string is plain.
///
/// ```
/// use presa_core::header_value_needs_base64;
///
/// assert!(!header_value_needs_base64("us west 1"));
/// assert!(!header_value_needs_base64(""));
/// assert!(header_value_needs_base64(" padded"));
/// assert!(header_value_needs_base64("Zürich"));
/// assert!(header_value_needs_base64("\tindented"));
/// assert!(header_value_needs_base64("=?base64?literal?="));
/// ```
pub fn header_value_needs_base64(value: &str) -> bool {
    let bytes = value.as_bytes();
    if !bytes.iter().all(|&b| (0x20..=0x7e).contains(&b)) {
        return true;
    }
    if bytes.first() == Some(&b' ') || bytes.last() == Some(&b' ') {
        return true;
    }
    value.starts_with(PREFIX) && value.ends_with(SUFFIX)
}

/// Encodes a value for `Mcp-Name` or `Mcp-Param-*`: as itself when that is safe, otherwise as
/// `=?base64?<standard Base64 of the UTF-8 bytes>?=` (see [`header_value_needs_base64`]).
///
/// ```
/// use presa_core::encode_header_value;
///
/// assert_eq!(encode_header_value("us-west1"), "us-west1");
/// assert_eq!(encode_header_value("Zürich"), "=?base64?WsO8cmljaA==?=");
/// assert_eq!(encode_header_value("=?base64?literal?="), "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=");
/// ```
pub fn encode_header_value(value: &str) -> Cow<'_, str> {
    if header_value_needs_base64(value) {
        let mut out = String::with_capacity(PREFIX.len() + value.len().div_ceil(3) * 4 + 2);
        out.push_str(PREFIX);
        STANDARD.encode_string(value, &mut out);
        out.push_str(SUFFIX);
        Cow::Owned(out)
    } else {
        Cow::Borrowed(value)
    }
}

/// Decodes a received `Mcp-Name` or `Mcp-Param-*` value, as a server does before comparing it
/// with the body.
///
/// 1. Leading and trailing optional whitespace (space, tab) is removed (RFC 9110 §5.5).
/// 2. Any remaining byte outside visible ASCII, space and tab is rejected.
/// 3. A value that both starts with `=?base64?` and ends with `?=` is Base64: the payload
///    between them is decoded strictly (standard alphabet, padding required, no stray bits) and
///    must be UTF-8. A value with only one of the two markers is a literal. A value too short to
///    hold both markers apart (`=?base64?=`) is a malformed sentinel.
///
/// ```
/// use presa_core::{HeaderValueError, decode_header_value};
///
/// assert_eq!(decode_header_value(b"  get_x  ").unwrap(), "get_x");
/// assert_eq!(decode_header_value(b"=?base64?SGVsbG8=?=").unwrap(), "Hello");
/// assert_eq!(decode_header_value(b"=?base64?SGVsbG8=").unwrap(), "=?base64?SGVsbG8=");
/// assert_eq!(decode_header_value(b"=?base64?SGVsbG8?="), Err(HeaderValueError::InvalidBase64));
/// ```
pub fn decode_header_value(raw: &[u8]) -> Result<Cow<'_, str>, HeaderValueError> {
    let text = plain_header_value(raw)?;
    if !text.starts_with(PREFIX) || !text.ends_with(SUFFIX) {
        return Ok(Cow::Borrowed(text));
    }
    // `=?base64?=` starts and ends with the markers but has no room for a payload: `get` sees an
    // empty-or-reversed range and fails.
    let payload = text
        .get(PREFIX.len()..text.len() - SUFFIX.len())
        .ok_or(HeaderValueError::InvalidBase64)?;
    let bytes = STANDARD
        .decode(payload)
        .map_err(|_| HeaderValueError::InvalidBase64)?;
    String::from_utf8(bytes)
        .map(Cow::Owned)
        .map_err(|_| HeaderValueError::InvalidUtf8)
}

/// Trims optional whitespace and checks the characters of a received header value, without
/// Base64 decoding: what `MCP-Protocol-Version` and `Mcp-Method` are compared as.
///
/// ```
/// use presa_core::{HeaderValueError, plain_header_value};
///
/// assert_eq!(plain_header_value(b" tools/list\t"), Ok("tools/list"));
/// assert_eq!(plain_header_value(b"tools\x01list"), Err(HeaderValueError::InvalidCharacters));
/// ```
pub fn plain_header_value(raw: &[u8]) -> Result<&str, HeaderValueError> {
    let is_ows = |b: &u8| *b == b' ' || *b == b'\t';
    let start = raw.iter().position(|b| !is_ows(b)).unwrap_or(raw.len());
    let end = raw
        .iter()
        .rposition(|b| !is_ows(b))
        .map_or(start, |i| i + 1);
    let trimmed = raw.get(start..end).unwrap_or_default();
    if !trimmed
        .iter()
        .all(|&b| b == b'\t' || (0x20..=0x7e).contains(&b))
    {
        return Err(HeaderValueError::InvalidCharacters);
    }
    // Only ASCII is left, so this cannot fail.
    std::str::from_utf8(trimmed).map_err(|_| HeaderValueError::InvalidCharacters)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[track_caller]
    fn check_encode(value: &str, expect: &str) {
        assert_eq!(encode_header_value(value), expect, "encoding {value:?}");
        assert_eq!(
            decode_header_value(expect.as_bytes()).unwrap(),
            value,
            "decoding {expect:?}"
        );
    }

    // The client table of the http-standard-headers conformance scenario and the spec's encoding
    // examples.
    #[test]
    fn encode_runner_table() {
        check_encode("us-west1", "us-west1");
        check_encode("42", "42");
        check_encode("false", "false");
        check_encode("", "");
        check_encode("test-method", "test-method");
        check_encode("Hello, 世界", "=?base64?SGVsbG8sIOS4lueVjA==?=");
        check_encode(" padded ", "=?base64?IHBhZGRlZCA=?=");
        check_encode(" us-west1", "=?base64?IHVzLXdlc3Qx?=");
        check_encode("us-west1 ", "=?base64?dXMtd2VzdDEg?=");
        check_encode("us west 1", "us west 1");
        check_encode("line1\nline2", "=?base64?bGluZTEKbGluZTI=?=");
        check_encode("line1\r\nline2", "=?base64?bGluZTENCmxpbmUy?=");
        check_encode("\tindented", "=?base64?CWluZGVudGVk?=");
        check_encode("=?base64?literal?=", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=");
        check_encode("Zürich", "=?base64?WsO8cmljaA==?=");
    }

    #[test]
    fn encode_edge_cases() {
        // A tab in the middle is still a control character.
        check_encode("a\tb", "=?base64?YQli?=");
        check_encode("a\x7fb", "=?base64?YX9i?=");
        // One marker alone is harmless and goes out plain.
        check_encode("=?base64?abc", "=?base64?abc");
        check_encode("abc?=", "abc?=");
        // Overlapping markers still look like the sentinel to some decoders: wrap.
        assert!(header_value_needs_base64("=?base64?="));
        check_encode("=?base64?=", "=?base64?PT9iYXNlNjQ/PQ==?=");
        check_encode(" ", "=?base64?IA==?=");
    }

    #[test]
    fn decode_trims_optional_whitespace() {
        assert_eq!(decode_header_value(b"  get_x  ").unwrap(), "get_x");
        assert_eq!(decode_header_value(b"\tget_x\t").unwrap(), "get_x");
        assert_eq!(
            decode_header_value(b"  =?base64?SGVsbG8=?=  ").unwrap(),
            "Hello"
        );
        assert_eq!(decode_header_value(b"   ").unwrap(), "");
        assert_eq!(decode_header_value(b"").unwrap(), "");
        // Inner whitespace is kept.
        assert_eq!(decode_header_value(b"a \t b").unwrap(), "a \t b");
    }

    // The http-custom-header-server-validation conformance scenario.
    #[test]
    fn decode_runner_table() {
        assert_eq!(
            decode_header_value(b"=?base64?SGVsbG8=?=").unwrap(),
            "Hello"
        );
        assert_eq!(
            decode_header_value(b"=?base64?SGVsbG8?="),
            Err(HeaderValueError::InvalidBase64)
        );
        assert_eq!(
            decode_header_value(b"=?base64?SGVs!!!bG8=?="),
            Err(HeaderValueError::InvalidBase64)
        );
        assert_eq!(decode_header_value(b"SGVsbG8=").unwrap(), "SGVsbG8=");
        assert_eq!(
            decode_header_value(b"=?base64?SGVsbG8=").unwrap(),
            "=?base64?SGVsbG8="
        );
    }

    #[test]
    fn decode_is_strict() {
        // URL-safe alphabet is not the standard one.
        assert_eq!(
            decode_header_value(b"=?base64?-_8=?="),
            Err(HeaderValueError::InvalidBase64)
        );
        // Non-zero trailing bits ("SGVsbG9=" would be "Hello" with stray bits).
        assert_eq!(
            decode_header_value(b"=?base64?SGVsbG9=?="),
            Err(HeaderValueError::InvalidBase64)
        );
        // Whitespace inside the payload.
        assert_eq!(
            decode_header_value(b"=?base64?SGVs bG8=?="),
            Err(HeaderValueError::InvalidBase64)
        );
        // Markers are case-sensitive: this is a literal.
        assert_eq!(
            decode_header_value(b"=?BASE64?SGVsbG8=?=").unwrap(),
            "=?BASE64?SGVsbG8=?="
        );
        // Overlapping markers are a malformed sentinel.
        assert_eq!(
            decode_header_value(b"=?base64?="),
            Err(HeaderValueError::InvalidBase64)
        );
        // Empty payload is the empty string.
        assert_eq!(decode_header_value(b"=?base64??=").unwrap(), "");
        // Not UTF-8.
        assert_eq!(
            decode_header_value(b"=?base64?/w==?="),
            Err(HeaderValueError::InvalidUtf8)
        );
    }

    #[test]
    fn decode_rejects_invalid_characters() {
        for raw in [
            &b"a\x00b"[..],
            b"a\rb",
            b"a\nb",
            b"caf\xc3\xa9",
            b"\x7f",
            b"\xff",
        ] {
            assert_eq!(
                decode_header_value(raw),
                Err(HeaderValueError::InvalidCharacters),
                "{raw:?}"
            );
        }
    }
}
