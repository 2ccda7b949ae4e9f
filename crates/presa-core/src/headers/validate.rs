//! Server-side validation of received mirror headers against the body.

use std::collections::BTreeMap;
use std::fmt;

use serde_json::value::RawValue;
use serde_json::{Number, Value, json};

use super::{
    HeaderValueError, MCP_METHOD_HEADER, MCP_NAME_HEADER, MCP_PARAM_HEADER_PREFIX,
    MCP_PROTOCOL_VERSION_HEADER, ParamHeaders, decode_header_value, mcp_name_field,
    plain_header_value,
};
use crate::{ErrorCode, ErrorObject};

/// The `_meta` key the `MCP-Protocol-Version` header mirrors.
const META_PROTOCOL_VERSION: &str = "_meta io.modelcontextprotocol/protocolVersion";

/// One header as received: absent, once (raw bytes), or more than once.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
enum Slot {
    #[default]
    Absent,
    One(Vec<u8>),
    Repeated,
}

impl Slot {
    fn add(&mut self, value: &[u8]) {
        *self = match self {
            Self::Absent => Self::One(value.to_vec()),
            Self::One(_) | Self::Repeated => Self::Repeated,
        };
    }
}

/// The MCP mirror headers of one received HTTP request, collected once and then checked
/// against the body, as a 2026-07-28 server does (SEP-2243, <https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#server-validation>).
///
/// Collect them from any iterator of `(name, value)` pairs; names are matched
/// case-insensitively and every other header is ignored. With axum:
/// `ReceivedHeaders::from_pairs(request.headers())` (an `http::HeaderMap` yields
/// `(&HeaderName, &HeaderValue)`, which are `AsRef<str>` and `AsRef<[u8]>`). Values are taken
/// as bytes so that a value that is not even UTF-8 gets a proper `-32020` rather than a
/// transport error. A header sent more than once is an error when it is checked.
///
/// # Validation order
///
/// A 2026-07-28 HTTP server validates a request in this order (<https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#server-validation>,
/// in the order the conformance runner probes);
/// each failing step answers HTTP 400 with the error named. The steps marked *here* are methods
/// of this type; the others belong to the version and `_meta` checks of the session layer.
///
/// 1. *here* [`check_protocol_version`](Self::check_protocol_version): the
///    `MCP-Protocol-Version` header is present (`-32020`). A dual-era server first routes
///    requests without it (and without modern `_meta` keys) to the initialize era.
/// 2. `_meta` carries `io.modelcontextprotocol/protocolVersion` and
///    `io.modelcontextprotocol/clientCapabilities` (`-32602`).
/// 3. *here* [`check_protocol_version_matches`](Self::check_protocol_version_matches): the
///    header equals the `_meta` version (`-32020`) — before step 4, so header `2026-07-28`
///    with `_meta` `v999.0.0` is a mismatch, not an unsupported version.
/// 4. The version is supported (`-32022`).
/// 5. *here* [`check_routing`](Self::check_routing): `Mcp-Method` equals the method and, for
///    `tools/call`, `prompts/get`, `resources/read` and the task methods, `Mcp-Name` equals the
///    name, URI or task id (`-32020`). Only for requests: notification POSTs are not checked.
///
/// Then the method is dispatched (`-32601`), its params are read (`-32602`, e.g. unknown
/// tool), and once the tool is resolved, *here* [`check_params`](Self::check_params) compares
/// the `Mcp-Param-*` headers with the arguments (`-32020`), before the tool runs.
///
/// ```
/// use presa_core::{ErrorCode, ErrorObject, ReceivedHeaders};
/// use serde_json::json;
///
/// let headers = ReceivedHeaders::from_pairs([
///     ("mcp-protocol-version", "2026-07-28"),
///     ("MCP-METHOD", "tools/call"),
///     ("Mcp-Name", "  get_weather  "),
/// ]);
/// let params = json!({"name": "get_weather", "arguments": {}});
/// assert_eq!(headers.check_protocol_version(), Ok("2026-07-28"));
/// assert!(headers.check_protocol_version_matches("2026-07-28").is_ok());
/// assert!(headers.check_routing("tools/call", Some(&params)).is_ok());
///
/// let error = headers.check_routing("tools/list", None).unwrap_err();
/// let error = ErrorObject::from(error);
/// assert_eq!(error.code, ErrorCode::HEADER_MISMATCH);
/// assert_eq!(error.message, "header Mcp-Method 'tools/call' does not match method \"tools/list\"");
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReceivedHeaders {
    protocol_version: Slot,
    method: Slot,
    name: Slot,
    /// Keyed by the lowercased name suffix after `Mcp-Param-`.
    params: BTreeMap<String, Slot>,
}

impl ReceivedHeaders {
    /// Collects the MCP headers out of all the request's headers.
    pub fn from_pairs<I, N, V>(pairs: I) -> Self
    where
        I: IntoIterator<Item = (N, V)>,
        N: AsRef<str>,
        V: AsRef<[u8]>,
    {
        let mut out = Self::default();
        for (name, value) in pairs {
            out.insert(name.as_ref(), value.as_ref());
        }
        out
    }

    /// Adds one header; headers that are not MCP mirror headers are ignored.
    pub fn insert(&mut self, name: &str, value: &[u8]) {
        if name.eq_ignore_ascii_case(MCP_PROTOCOL_VERSION_HEADER) {
            self.protocol_version.add(value);
        } else if name.eq_ignore_ascii_case(MCP_METHOD_HEADER) {
            self.method.add(value);
        } else if name.eq_ignore_ascii_case(MCP_NAME_HEADER) {
            self.name.add(value);
        } else if let Some(suffix) = param_suffix(name) {
            self.params
                .entry(suffix.to_ascii_lowercase())
                .or_default()
                .add(value);
        }
    }

    /// Whether an `MCP-Protocol-Version` header was sent at all, whatever its value: what a
    /// dual-era server looks at to route a request (<https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#backward-compatibility>).
    pub fn has_protocol_version(&self) -> bool {
        self.protocol_version != Slot::Absent
    }

    /// The `MCP-Protocol-Version` value, trimmed, if it was sent exactly once and is well
    /// formed; for routing. Validation uses [`check_protocol_version`](Self::check_protocol_version).
    pub fn protocol_version(&self) -> Option<&str> {
        self.check_protocol_version().ok()
    }

    /// Step 1: the `MCP-Protocol-Version` header is present, once, with visible ASCII only;
    /// returns its trimmed value.
    pub fn check_protocol_version(&self) -> Result<&str, HeaderError> {
        plain(
            &self.protocol_version,
            MCP_PROTOCOL_VERSION_HEADER,
            META_PROTOCOL_VERSION,
        )
    }

    /// Step 3: the `MCP-Protocol-Version` header equals the `_meta` protocol version of the
    /// body, byte for byte (after trimming the header). Includes step 1.
    pub fn check_protocol_version_matches(&self, meta_version: &str) -> Result<(), HeaderError> {
        let value = self.check_protocol_version()?;
        if value == meta_version {
            return Ok(());
        }
        Err(HeaderError::mismatch(
            MCP_PROTOCOL_VERSION_HEADER,
            value,
            META_PROTOCOL_VERSION,
            &Value::String(meta_version.to_owned()),
        ))
    }

    /// `Mcp-Method` is present, once, and equals the body's `method` byte for byte (after
    /// trimming): `TOOLS/LIST` is not `tools/list`.
    pub fn check_method(&self, method: &str) -> Result<(), HeaderError> {
        let value = plain(&self.method, MCP_METHOD_HEADER, "method")?;
        if value == method {
            return Ok(());
        }
        Err(HeaderError::mismatch(
            MCP_METHOD_HEADER,
            value,
            "method",
            &Value::String(method.to_owned()),
        ))
    }

    /// `Mcp-Name` equals `body_value`, the body's name, URI or task id (see
    /// [`mcp_name_field`]), after trimming and Base64 decoding.
    ///
    /// Nothing is required for methods without an `Mcp-Name`, nor when the body lacks the value
    /// (`None`): such a request fails its own params validation. A header sent then is ignored.
    pub fn check_name(&self, method: &str, body_value: Option<&str>) -> Result<(), HeaderError> {
        let (Some(field), Some(expected)) = (mcp_name_field(method), body_value) else {
            return Ok(());
        };
        let field = format!("params.{field}");
        let value = decoded(&self.name, MCP_NAME_HEADER, &field)?;
        if value == expected {
            return Ok(());
        }
        Err(HeaderError::mismatch(
            MCP_NAME_HEADER,
            &value,
            &field,
            &Value::String(expected.to_owned()),
        ))
    }

    /// Step 5: [`check_method`](Self::check_method), then [`check_name`](Self::check_name)
    /// with the value read from `params` (a non-string value counts as absent).
    pub fn check_routing(&self, method: &str, params: Option<&Value>) -> Result<(), HeaderError> {
        self.check_method(method)?;
        let body_value = mcp_name_field(method).and_then(|field| params?.get(field)?.as_str());
        self.check_name(method, body_value)
    }

    /// Step 5 on a request's raw params: [`check_routing`](Self::check_routing) reading only
    /// the member `Mcp-Name` mirrors (the name, URI or task id), not the whole params.
    ///
    /// ```
    /// use presa_core::ReceivedHeaders;
    /// use serde_json::value::RawValue;
    ///
    /// let headers = ReceivedHeaders::from_pairs([("Mcp-Method", "tools/call"), ("Mcp-Name", "add")]);
    /// let params = RawValue::from_string(r#"{"name":"add","arguments":{"a":1}}"#.to_owned()).unwrap();
    /// assert!(headers.check_request_routing("tools/call", Some(&params)).is_ok());
    /// ```
    pub fn check_request_routing(
        &self,
        method: &str,
        params: Option<&RawValue>,
    ) -> Result<(), HeaderError> {
        self.check_method(method)?;
        let Some(field) = mcp_name_field(method) else {
            return Ok(());
        };
        let body_value = params
            .and_then(crate::jsonrpc::object_text)
            .and_then(|text| routed_member(text, field));
        self.check_name(method, body_value.as_deref())
    }

    /// The routing headers a message *sent* agree with its body: `Mcp-Method`, when present,
    /// equals the method and `Mcp-Name`, when present, the name, URI or task id. What an
    /// initialize-era request is held to, where the headers are optional: a gateway that routes
    /// or authorizes on them must not be told one thing while the server does another.
    ///
    /// ```
    /// use presa_core::ReceivedHeaders;
    ///
    /// assert!(ReceivedHeaders::default().check_sent_routing("tools/list", None).is_ok());
    /// let lying = ReceivedHeaders::from_pairs([("Mcp-Method", "tools/list")]);
    /// assert!(lying.check_sent_routing("tools/call", None).is_err());
    /// ```
    pub fn check_sent_routing(
        &self,
        method: &str,
        params: Option<&RawValue>,
    ) -> Result<(), HeaderError> {
        if self.method != Slot::Absent {
            self.check_method(method)?;
        }
        if self.name == Slot::Absent {
            return Ok(());
        }
        let Some(field) = mcp_name_field(method) else {
            return Ok(());
        };
        let body_value = params
            .and_then(crate::jsonrpc::object_text)
            .and_then(|text| routed_member(text, field));
        self.check_name(method, body_value.as_deref())
    }

    /// After the tool is resolved: every argument the tool mirrors that is present and not
    /// `null` in `arguments` has its `Mcp-Param-*` header, once, equal to it after trimming and
    /// Base64 decoding. Strings compare exactly, booleans as `true`/`false`, numbers
    /// numerically (`42.0` and `4.2e1` equal `42`).
    ///
    /// Headers for absent or `null` arguments, and `Mcp-Param-*` headers the tool does not
    /// declare, are ignored.
    pub fn check_params(
        &self,
        tool: &ParamHeaders,
        arguments: Option<&Value>,
    ) -> Result<(), HeaderError> {
        let Some(arguments) = arguments else {
            return Ok(());
        };
        for param in tool {
            let Some(expected) = param.value_in(arguments) else {
                continue;
            };
            let field = param.display_path();
            let slot = self
                .params
                .get(&param.name().to_ascii_lowercase())
                .unwrap_or(&Slot::Absent);
            let value = decoded(slot, param.header_name(), &field)?;
            if !matches_body(&value, expected) {
                return Err(HeaderError::mismatch(
                    param.header_name(),
                    &value,
                    &field,
                    expected,
                ));
            }
        }
        Ok(())
    }
}

/// The string member `field` of params given as the text of a JSON object (see
/// [`object_text`](crate::jsonrpc::object_text): an array has no members), if there is
/// one. Only that member is read; params the probe cannot take (a duplicate member) are read in
/// full, the last duplicate winning as in any JSON reader.
fn routed_member(json: &str, field: &str) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Probe {
        #[serde(default)]
        name: Option<Value>,
        #[serde(default)]
        uri: Option<Value>,
        #[serde(default, rename = "taskId")]
        task_id: Option<Value>,
    }
    let value = match serde_json::from_str::<Probe>(json) {
        Ok(probe) => match field {
            "name" => probe.name,
            "uri" => probe.uri,
            "taskId" => probe.task_id,
            _ => None,
        },
        Err(_) => serde_json::from_str::<Value>(json)
            .ok()?
            .get(field)
            .cloned(),
    };
    match value? {
        Value::String(s) => Some(s),
        _ => None,
    }
}

/// The part after `Mcp-Param-`, if `name` starts with it (case-insensitively) and has more.
fn param_suffix(name: &str) -> Option<&str> {
    let prefix = name.get(..MCP_PARAM_HEADER_PREFIX.len())?;
    let suffix = name.get(MCP_PARAM_HEADER_PREFIX.len()..)?;
    (prefix.eq_ignore_ascii_case(MCP_PARAM_HEADER_PREFIX) && !suffix.is_empty()).then_some(suffix)
}

fn single<'a>(slot: &'a Slot, header: &str, field: &str) -> Result<&'a [u8], HeaderError> {
    match slot {
        Slot::One(raw) => Ok(raw),
        Slot::Absent => Err(HeaderError::Missing {
            header: header.to_owned(),
            field: field.to_owned(),
        }),
        Slot::Repeated => Err(HeaderError::Repeated {
            header: header.to_owned(),
        }),
    }
}

fn plain<'a>(slot: &'a Slot, header: &str, field: &str) -> Result<&'a str, HeaderError> {
    plain_header_value(single(slot, header, field)?).map_err(|reason| HeaderError::Malformed {
        header: header.to_owned(),
        reason,
    })
}

fn decoded(slot: &Slot, header: &str, field: &str) -> Result<String, HeaderError> {
    decode_header_value(single(slot, header, field)?)
        .map(std::borrow::Cow::into_owned)
        .map_err(|reason| HeaderError::Malformed {
            header: header.to_owned(),
            reason,
        })
}

/// Whether a decoded header value mirrors a body value.
fn matches_body(header: &str, body: &Value) -> bool {
    match body {
        Value::String(s) => header == s,
        Value::Bool(b) => header == if *b { "true" } else { "false" },
        Value::Number(n) => numeric_eq(header, n),
        Value::Null | Value::Array(_) | Value::Object(_) => false,
    }
}

/// Compares a header's decimal text with a JSON number numerically.
fn numeric_eq(text: &str, number: &Number) -> bool {
    let Some(is_integer) = decimal_kind(text) else {
        return false;
    };
    if is_integer && let Ok(header) = text.parse::<i128>() {
        if let Some(body) = number.as_i64() {
            return header == i128::from(body);
        }
        if let Some(body) = number.as_u64() {
            return header == i128::from(body);
        }
    }
    match (text.parse::<f64>(), number.as_f64()) {
        (Ok(header), Some(body)) => header.is_finite() && header == body,
        _ => false,
    }
}

/// `Some(true)` for `-?[0-9]+`, `Some(false)` for other JSON-style decimals
/// (`-?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?`, leading zeros allowed), `None` otherwise: no `+`,
/// hex, `inf`, `NaN` or bare `.5`.
fn decimal_kind(text: &str) -> Option<bool> {
    let bytes = text.strip_prefix('-').unwrap_or(text).as_bytes();
    let digits = |s: &[u8]| s.iter().take_while(|b| b.is_ascii_digit()).count();
    let mut i = digits(bytes);
    if i == 0 {
        return None;
    }
    let mut integer = true;
    if bytes.get(i) == Some(&b'.') {
        let n = digits(bytes.get(i + 1..)?);
        if n == 0 {
            return None;
        }
        i += 1 + n;
        integer = false;
    }
    if matches!(bytes.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(bytes.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let n = digits(bytes.get(i..)?);
        if n == 0 {
            return None;
        }
        i += n;
        integer = false;
    }
    (i == bytes.len()).then_some(integer)
}

/// A received header that is missing, repeated, malformed or disagrees with the body:
/// answered with `-32020` HeaderMismatch and HTTP 400 (<https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#server-validation>).
///
/// ```
/// use presa_core::{ErrorCode, ErrorObject, ReceivedHeaders};
///
/// let headers = ReceivedHeaders::from_pairs([("Mcp-Name", "x")]);
/// let error = ErrorObject::from(headers.check_method("tools/list").unwrap_err());
/// assert_eq!(error.code, ErrorCode::HEADER_MISMATCH);
/// assert_eq!(error.message, "missing header Mcp-Method (mirrors method)");
/// assert_eq!(error.data, Some(serde_json::json!({"header": "Mcp-Method"})));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum HeaderError {
    /// The header is absent although the body has the value it mirrors.
    Missing {
        /// The header's name, e.g. `Mcp-Name` or `Mcp-Param-Region`.
        header: String,
        /// What it mirrors, e.g. `params.name` or `arguments.region`.
        field: String,
    },
    /// The header was sent more than once.
    Repeated {
        /// The header's name.
        header: String,
    },
    /// The header's value has invalid characters or an undecodable Base64 payload.
    Malformed {
        /// The header's name.
        header: String,
        /// What is wrong with the value.
        reason: HeaderValueError,
    },
    /// The header's (decoded) value differs from the body.
    Mismatch {
        /// The header's name.
        header: String,
        /// The decoded header value, shortened and escaped for display.
        value: String,
        /// What it mirrors, e.g. `params.name`.
        field: String,
        /// The body's value as JSON, shortened and escaped for display.
        expected: String,
    },
}

impl HeaderError {
    fn mismatch(header: &str, value: &str, field: &str, expected: &Value) -> Self {
        Self::Mismatch {
            header: header.to_owned(),
            value: excerpt(value),
            field: field.to_owned(),
            expected: excerpt(&expected.to_string()),
        }
    }

    /// The header the error is about.
    pub fn header(&self) -> &str {
        match self {
            Self::Missing { header, .. }
            | Self::Repeated { header }
            | Self::Malformed { header, .. }
            | Self::Mismatch { header, .. } => header,
        }
    }

    /// Whether the error is about an `Mcp-Param-*` header: a client that gets it back SHOULD
    /// refresh `tools/list` and retry with the new schema's headers.
    pub fn is_param_header(&self) -> bool {
        param_suffix(self.header()).is_some()
    }
}

/// At most 64 characters, control characters escaped: header and body values are the peer's.
fn excerpt(text: &str) -> String {
    const MAX: usize = 64;
    let mut out = String::new();
    for (i, c) in text.chars().enumerate() {
        if i == MAX {
            out.push('…');
            break;
        }
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

impl fmt::Display for HeaderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Missing { header, field } => {
                write!(f, "missing header {header} (mirrors {field})")
            }
            Self::Repeated { header } => write!(f, "header {header} is sent more than once"),
            Self::Malformed { header, reason } => write!(f, "header {header} {reason}"),
            Self::Mismatch {
                header,
                value,
                field,
                expected,
            } => {
                write!(
                    f,
                    "header {header} '{value}' does not match {field} {expected}"
                )
            }
        }
    }
}

impl std::error::Error for HeaderError {}

impl From<HeaderError> for ErrorObject {
    /// `-32020` HeaderMismatch, with `data: {"header": <name>}`.
    fn from(error: HeaderError) -> Self {
        let data = json!({ "header": error.header() });
        ErrorObject::new(ErrorCode::HEADER_MISMATCH, error.to_string()).with_data(data)
    }
}
