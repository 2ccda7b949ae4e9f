//! The per-request context of 2026-07-28: version, capabilities and identity in `params._meta`.

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::jsonrpc::object_text;
use crate::{
    ClientCapabilities, Era, ErrorCode, ErrorObject, Implementation, LoggingLevel,
    META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_LOG_LEVEL, META_PROGRESS_TOKEN,
    META_PROTOCOL_VERSION, Meta, MetaExt, Notification, ProgressToken, ProtocolVersion, RequestId,
    SupportedVersions,
};

/// The context a 2026-07-28 request carries in `params._meta`, read and checked.
///
/// Reading ([`from_params`](Self::from_params)) and negotiating ([`negotiate`](Self::negotiate))
/// are separate steps so that an HTTP server can compare the `MCP-Protocol-Version` header with
/// the body in between, in the order the conformance runner probes: missing fields (`-32602`),
/// then header/body agreement (`-32020`), then version support (`-32022`).
///
/// ```
/// use presa_core::{RequestMeta, SupportedVersions};
/// use serde_json::value::RawValue;
///
/// let params = RawValue::from_string(r#"{"_meta":{
///     "io.modelcontextprotocol/protocolVersion":"2026-07-28",
///     "io.modelcontextprotocol/clientCapabilities":{}}}"#.to_owned()).unwrap();
/// let meta = RequestMeta::from_params(Some(&params)).unwrap();
/// assert_eq!(meta.protocol_version, "2026-07-28");
/// assert!(meta.negotiate(&SupportedVersions::all()).is_ok());
///
/// let empty = RawValue::from_string("{}".to_owned()).unwrap();
/// let error = RequestMeta::from_params(Some(&empty)).unwrap_err();
/// assert_eq!(error.code.code(), -32602);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct RequestMeta {
    /// The version the request asked for, as sent.
    pub protocol_version: String,
    /// The capabilities the client declared for this request.
    pub client_capabilities: ClientCapabilities,
    /// The client's identity, when sent.
    pub client_info: Option<Implementation>,
    /// The log level the request opted in to; without it no log message may be sent for it.
    pub log_level: Option<LoggingLevel>,
    /// The progress token, when the request asked for progress.
    pub progress_token: Option<ProgressToken>,
}

#[derive(Deserialize)]
struct MetaOnly {
    #[serde(rename = "_meta")]
    meta: Option<Meta>,
}

/// The `_meta` object of raw params, if any. Params that are not a JSON object have none, nor
/// do params that cannot be read.
pub fn params_meta(params: Option<&RawValue>) -> Option<Meta> {
    read_meta(params).ok().flatten()
}

impl Notification {
    /// The subscription a 2026-07-28 notification belongs to:
    /// `_meta["io.modelcontextprotocol/subscriptionId"]` of its params.
    ///
    /// ```
    /// use presa_core::{Notification, RequestId};
    ///
    /// let tagged = Notification::new("notifications/tools/list_changed", &serde_json::json!({
    ///     "_meta": {"io.modelcontextprotocol/subscriptionId": 7}})).unwrap();
    /// assert_eq!(tagged.subscription_id(), Some(RequestId::from(7)));
    /// ```
    pub fn subscription_id(&self) -> Option<RequestId> {
        params_meta(self.params.as_deref())?.subscription_id()
    }
}

/// `_meta` read in full: `Err` for params (an object) that cannot be read into values, such as
/// a number out of range, a lone surrogate escape or nesting past serde_json's limit.
fn read_meta(params: Option<&RawValue>) -> Result<Option<Meta>, serde_json::Error> {
    match params.and_then(object_text) {
        Some(text) => Ok(serde_json::from_str::<MetaOnly>(text)?.meta),
        None => Ok(None),
    }
}

/// [`params_meta`] and [`is_stateless_params`] in one reading, for a server taking requests of
/// both eras: `_meta`, and whether the request is shaped for 2026-07-28. The shape is taken
/// from the `_meta` read ([`is_stateless_shaped`], the fast path of the rule); only params whose
/// `_meta` cannot be read are scanned for its keys ([`is_stateless_params`], the rule itself).
pub fn params_meta_and_shape(params: Option<&RawValue>) -> (Option<Meta>, bool) {
    match read_meta(params) {
        Ok(meta) => {
            let stateless = is_stateless_shaped(meta.as_ref());
            (meta, stateless)
        }
        Err(_) => (None, is_stateless_params(params)),
    }
}

/// The `_meta` keys only a 2026-07-28 request carries: the per-request context that replaced
/// `initialize`. Other `io.modelcontextprotocol/` keys (2025-11-25's `related-task`) are not
/// among them.
const STATELESS_REQUEST_KEYS: [&str; 4] = [
    META_PROTOCOL_VERSION,
    META_CLIENT_CAPABILITIES,
    META_CLIENT_INFO,
    META_LOG_LEVEL,
];

/// [`is_stateless_params`]'s rule on a `_meta` already read: whether it holds one of the
/// per-request context keys (protocol version, client capabilities, client info, log level).
/// A read `_meta` has every key its text has, so the two agree; this is the fast path for a
/// reader that needs `_meta` anyway (the fuzz target `jsonrpc_envelope` checks the agreement).
pub fn is_stateless_shaped(meta: Option<&Meta>) -> bool {
    meta.is_some_and(|m| STATELESS_REQUEST_KEYS.iter().any(|k| m.contains_key(*k)))
}

/// Whether a message is shaped for 2026-07-28 (see [`is_stateless_shaped`]): what a dual-era
/// transport looks at to route a message that came without a version header.
///
/// ```
/// use presa_core::{decode_message, is_stateless_message};
///
/// let modern = decode_message(br#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{
///     "_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#).unwrap();
/// let legacy = decode_message(br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#).unwrap();
/// assert!(is_stateless_message(&modern));
/// assert!(!is_stateless_message(&legacy));
/// ```
pub fn is_stateless_message(message: &crate::Message) -> bool {
    is_stateless_params(message.params())
}

/// What a transport knows of a message when it picks the era that serves it: one rule for
/// every transport, and for presa-core's own session.
///
/// ```
/// use presa_core::{Era, EraSigns};
///
/// // a POST without a session or a version header: an initialize-era client's first message
/// assert_eq!(EraSigns::default().era(|| false), Era::Initialize);
/// // the header decides without a session (the shape is not even asked)
/// let header = EraSigns { version_header: Some("2026-07-28"), ..EraSigns::default() };
/// assert_eq!(header.era(|| unreachable!()), Era::Stateless);
/// // a 2026-07-28 request is one on a session too
/// let session = EraSigns { on_session: true, ..EraSigns::default() };
/// assert_eq!(session.era(|| true), Era::Stateless);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EraSigns<'a> {
    /// It arrived on an initialize-era session (stdio, in-process, or an HTTP session id).
    pub on_session: bool,
    /// The revision the transport's own metadata names (HTTP's `MCP-Protocol-Version`).
    pub version_header: Option<&'a str>,
}

impl EraSigns<'_> {
    /// The era that serves the message, given how to tell whether it is shaped for 2026-07-28
    /// ([`is_stateless_message`]). The shape comes first: a 2026-07-28 request is checked as
    /// one whatever session or header it arrives with, so that a session anyone can make is no
    /// way around those checks. Otherwise a session's message is the session's; without a
    /// session the version header decides (one that names no revision goes to 2026-07-28,
    /// whose checks refuse it by name), and without one it is the initialize era's.
    ///
    /// The shape costs a scan of the params, so it is asked only where it can change the
    /// answer: not for a message without a session whose header names 2026-07-28 (every
    /// 2026-07-28 POST), which is 2026-07-28's whatever its shape.
    pub fn era(&self, stateless_shape: impl FnOnce() -> bool) -> Era {
        let header = self
            .version_header
            .map(|header| header.parse::<ProtocolVersion>().map(ProtocolVersion::era));
        if !self.on_session && matches!(header, Some(Ok(Era::Stateless))) {
            return Era::Stateless;
        }
        if stateless_shape() {
            return Era::Stateless;
        }
        if self.on_session {
            return Era::Initialize;
        }
        match header {
            None => Era::Initialize,
            Some(era) => era.unwrap_or(Era::Stateless),
        }
    }
}

/// Whether raw params are shaped for 2026-07-28: the definition. They are when they are an
/// object whose `_meta` is an object holding one of the per-request context keys that replaced
/// `initialize` (protocol version, client capabilities, client info, log level); a dual-era
/// server then serves the request as a 2026-07-28 one, session or not ([`EraSigns`]). Only the
/// keys of `_meta` are read: no value is built, so asking costs a scan of the text. Params that
/// are not an object, or whose `_meta` is not one, are not. Values that could not be read in
/// full (a number out of range) do not change the answer: the request is then refused as a
/// 2026-07-28 one, for its unreadable params.
///
/// ```
/// use presa_core::is_stateless_params;
/// use serde_json::value::RawValue;
///
/// let raw = |text: &str| RawValue::from_string(text.to_owned()).unwrap();
/// let modern = raw(r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}"#);
/// assert!(is_stateless_params(Some(&modern)));
/// let tagged = raw(r#"{"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"t"}}}"#);
/// assert!(!is_stateless_params(Some(&tagged)));
/// assert!(!is_stateless_params(Some(&raw("[1]"))));
/// assert!(!is_stateless_params(None));
/// ```
pub fn is_stateless_params(params: Option<&RawValue>) -> bool {
    #[derive(Deserialize)]
    struct Probe {
        #[serde(rename = "_meta", default)]
        meta: Option<ContextKeys>,
    }
    params
        .and_then(object_text)
        .and_then(|text| serde_json::from_str::<Probe>(text).ok())
        .and_then(|probe| probe.meta)
        .is_some_and(|keys| keys.0)
}

/// Whether an object holds one of [`STATELESS_REQUEST_KEYS`]; its values are skipped.
struct ContextKeys(bool);

impl<'de> Deserialize<'de> for ContextKeys {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Keys;
        impl<'de> serde::de::Visitor<'de> for Keys {
            type Value = ContextKeys;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object")
            }

            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<ContextKeys, A::Error> {
                let mut found = false;
                while let Some(ContextKey(is_context)) = map.next_key()? {
                    found |= is_context;
                    map.next_value::<serde::de::IgnoredAny>()?;
                }
                Ok(ContextKeys(found))
            }
        }
        deserializer.deserialize_map(Keys)
    }
}

/// Whether a key is one of [`STATELESS_REQUEST_KEYS`], read without copying it.
struct ContextKey(bool);

impl<'de> Deserialize<'de> for ContextKey {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Key;
        impl serde::de::Visitor<'_> for Key {
            type Value = ContextKey;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a key")
            }

            fn visit_str<E: serde::de::Error>(self, key: &str) -> Result<ContextKey, E> {
                Ok(ContextKey(STATELESS_REQUEST_KEYS.contains(&key)))
            }
        }
        deserializer.deserialize_str(Key)
    }
}

fn missing(key: &str) -> ErrorObject {
    ErrorObject::invalid_params(format!("Missing _meta field {key}"))
}

fn invalid(key: &str, error: impl std::fmt::Display) -> ErrorObject {
    ErrorObject::invalid_params(format!("Invalid _meta field {key}: {error}"))
}

fn field<T: serde::de::DeserializeOwned>(meta: &Meta, key: &str) -> Result<Option<T>, ErrorObject> {
    match meta.get(key) {
        None => Ok(None),
        Some(value) => T::deserialize(value).map(Some).map_err(|e| invalid(key, e)),
    }
}

impl RequestMeta {
    /// Reads the context from a request's raw params; a missing `_meta`, protocol version or
    /// client capabilities, or a malformed field, is `-32602`.
    pub fn from_params(params: Option<&RawValue>) -> Result<Self, ErrorObject> {
        let meta = match params {
            None => None,
            Some(raw) => {
                serde_json::from_str::<MetaOnly>(raw.get())
                    .map_err(|e| ErrorObject::invalid_params(format!("Invalid params: {e}")))?
                    .meta
            }
        };
        match meta {
            Some(meta) => Self::from_meta(&meta),
            None => Err(ErrorObject::invalid_params(format!(
                "Missing _meta (with {META_PROTOCOL_VERSION})"
            ))),
        }
    }

    /// Reads the context from a `_meta` object.
    pub fn from_meta(meta: &Meta) -> Result<Self, ErrorObject> {
        let protocol_version = field::<String>(meta, META_PROTOCOL_VERSION)?
            .ok_or_else(|| missing(META_PROTOCOL_VERSION))?;
        let client_capabilities = field::<ClientCapabilities>(meta, META_CLIENT_CAPABILITIES)?
            .ok_or_else(|| missing(META_CLIENT_CAPABILITIES))?;
        Ok(Self {
            protocol_version,
            client_capabilities,
            client_info: field(meta, META_CLIENT_INFO)?,
            log_level: field(meta, META_LOG_LEVEL)?,
            progress_token: field(meta, META_PROGRESS_TOKEN)?,
        })
    }

    /// The revision to serve the request under: the requested one when it is a supported
    /// 2026-07-28-era revision, else `-32022` listing the supported versions.
    pub fn negotiate(&self, versions: &SupportedVersions) -> Result<ProtocolVersion, ErrorObject> {
        match self.protocol_version.parse::<ProtocolVersion>() {
            Ok(v) if v.era() == Era::Stateless && versions.contains(v) => Ok(v),
            _ => Err(unsupported_version_error(&self.protocol_version, versions)),
        }
    }

    /// Writes this context into a `_meta` object (what a client puts on each request).
    pub fn write_into(&self, meta: &mut Meta) {
        meta.insert(
            META_PROTOCOL_VERSION.into(),
            Value::String(self.protocol_version.clone()),
        );
        meta.insert(
            META_CLIENT_CAPABILITIES.into(),
            to_value(&self.client_capabilities),
        );
        if let Some(info) = &self.client_info {
            meta.insert(META_CLIENT_INFO.into(), to_value(info));
        }
        if let Some(level) = self.log_level {
            Self::write_log_level(meta, level);
        }
        if let Some(token) = &self.progress_token {
            meta.insert(META_PROGRESS_TOKEN.into(), to_value(token));
        }
    }
}

impl RequestMeta {
    /// Writes the per-request log level into `meta` (what [`write_into`](Self::write_into)
    /// writes for `log_level`).
    pub(crate) fn write_log_level(meta: &mut Meta, level: LoggingLevel) {
        meta.insert(META_LOG_LEVEL.into(), to_value(&level));
    }
}

fn to_value(value: &impl serde::Serialize) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

/// The `-32022` error for a version that is not supported: `data.supported` lists every
/// supported revision (newest first, as `server/discover` does) and `data.requested` echoes the
/// request.
///
/// ```
/// use presa_core::{unsupported_version_error, SupportedVersions};
///
/// let error = unsupported_version_error("v999.0.0", &SupportedVersions::all());
/// assert_eq!(error.code.code(), -32022);
/// assert_eq!(error.data.unwrap()["requested"], "v999.0.0");
/// ```
pub fn unsupported_version_error(requested: &str, versions: &SupportedVersions) -> ErrorObject {
    let supported = versions.to_strings();
    ErrorObject::new(
        ErrorCode::UNSUPPORTED_PROTOCOL_VERSION,
        format!(
            "Unsupported protocol version {requested:?}; supported: {}",
            supported.join(", ")
        ),
    )
    .with_data(serde_json::json!({ "supported": supported, "requested": requested }))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

    #[test]
    fn a_messages_shape_then_its_session_then_its_version_header_pick_its_era() {
        let era = |stateless_shape: bool, on_session, version_header| {
            EraSigns {
                on_session,
                version_header,
            }
            .era(|| stateless_shape)
        };
        // the shape wins over a session and over any header
        assert_eq!(era(true, true, Some("2025-06-18")), Era::Stateless);
        assert_eq!(era(true, false, None), Era::Stateless);
        // a session's message is the session's, whatever header it carries
        assert_eq!(era(false, true, Some("2026-07-28")), Era::Initialize);
        // without a session the header decides; one naming no revision goes where it is refused
        assert_eq!(era(false, false, Some("2026-07-28")), Era::Stateless);
        assert_eq!(era(false, false, Some("2025-11-25")), Era::Initialize);
        assert_eq!(era(false, false, Some("1999-01-01")), Era::Stateless);
        assert_eq!(era(false, false, None), Era::Initialize);
    }

    fn read(params: Value) -> Result<RequestMeta, ErrorObject> {
        let raw = serde_json::value::to_raw_value(&params).unwrap();
        RequestMeta::from_params(Some(&raw))
    }

    fn meta(extra: Value) -> Value {
        let mut m = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"sampling": {}},
        });
        for (k, v) in extra.as_object().unwrap() {
            m[k] = v.clone();
        }
        json!({ "_meta": m })
    }

    /// The key scan and the full read of `_meta` tell the eras apart alike.
    #[test]
    fn the_key_scan_agrees_with_reading_meta() {
        for (params, stateless) in [
            (
                r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}"#,
                true,
            ),
            (
                r#"{"name":"x","_meta":{"a":[1,{"b":2}],"io.modelcontextprotocol/logLevel":"info"}}"#,
                true,
            ),
            (
                r#"{"_meta":{"io.modelcontextprotocol\/clientInfo":{}}}"#,
                true,
            ),
            (
                r#"{"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"t"}}}"#,
                false,
            ),
            (
                r#"{"_meta":{"progressToken":1},"arguments":{"_meta":{"io.modelcontextprotocol/protocolVersion":"x"}}}"#,
                false,
            ),
            (r#"{"_meta":null}"#, false),
            (r#"{"_meta":[]}"#, false),
            (
                r#"{"_meta":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}"#,
                false,
            ),
            ("[]", false),
            (
                r#"[{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}]"#,
                false,
            ),
            ("1", false),
            ("{}", false),
        ] {
            let raw = RawValue::from_string(params.to_owned()).unwrap();
            assert_eq!(is_stateless_params(Some(&raw)), stateless, "{params}");
            let read = is_stateless_shaped(params_meta(Some(&raw)).as_ref());
            assert_eq!(read, stateless, "{params}");
            assert_eq!(params_meta_and_shape(Some(&raw)).1, stateless, "{params}");
        }
        // values the scan skips but a full read refuses: shaped all the same, unread
        let deep = format!("{}1{}", "[".repeat(200), "]".repeat(200));
        for params in [
            r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","x":1e400}}"#
                .to_owned(),
            r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"\ud800"}}"#.to_owned(),
            format!(r#"{{"_meta":{{"io.modelcontextprotocol/protocolVersion":{deep}}}}}"#),
        ] {
            let raw = RawValue::from_string(params.clone()).unwrap();
            assert!(is_stateless_params(Some(&raw)), "{params}");
            assert_eq!(params_meta_and_shape(Some(&raw)), (None, true), "{params}");
        }
    }

    #[test]
    fn missing_required_fields_are_invalid_params() {
        for params in [
            json!({}),
            json!({"_meta": {}}),
            json!({"_meta": {"io.modelcontextprotocol/clientCapabilities": {}}}),
            json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}),
        ] {
            let error = read(params.clone()).unwrap_err();
            assert_eq!(error.code, ErrorCode::INVALID_PARAMS, "{params}");
            assert!(
                error.message.starts_with("Missing _meta"),
                "{}",
                error.message
            );
        }
        assert_eq!(
            RequestMeta::from_params(None).unwrap_err().code,
            ErrorCode::INVALID_PARAMS
        );
    }

    #[test]
    fn client_info_is_optional_but_other_fields_are_checked() {
        let m = read(meta(json!({}))).unwrap();
        assert_eq!(m.client_info, None);
        assert_eq!(m.log_level, None);
        let m = read(meta(
            json!({"io.modelcontextprotocol/logLevel": "warning", "progressToken": 5}),
        ))
        .unwrap();
        assert_eq!(m.log_level, Some(LoggingLevel::Warning));
        assert!(m.progress_token.is_some());
        for bad in [
            json!({"io.modelcontextprotocol/logLevel": "loud"}),
            json!({"io.modelcontextprotocol/protocolVersion": 20260728}),
            json!({"io.modelcontextprotocol/clientCapabilities": []}),
            json!({"progressToken": 1.5}),
        ] {
            let error = read(meta(bad.clone())).unwrap_err();
            assert_eq!(error.code, ErrorCode::INVALID_PARAMS, "{bad}");
        }
    }

    #[test]
    fn unsupported_versions_name_what_is_supported() {
        let versions = SupportedVersions::all();
        for requested in ["v999.0.0", "2025-11-25", ""] {
            let m = read(meta(
                json!({ "io.modelcontextprotocol/protocolVersion": requested }),
            ))
            .unwrap();
            let error = m.negotiate(&versions).unwrap_err();
            assert_eq!(error.code, ErrorCode::UNSUPPORTED_PROTOCOL_VERSION);
            let data = error.data.unwrap();
            assert_eq!(data["requested"], requested);
            assert_eq!(data["supported"][0], "2026-07-28");
        }
    }

    #[test]
    fn the_context_round_trips_through_meta() {
        let m = read(meta(
            json!({"io.modelcontextprotocol/clientInfo": {"name": "c", "version": "1"}}),
        ))
        .unwrap();
        let mut written = Meta::new();
        m.write_into(&mut written);
        assert_eq!(RequestMeta::from_meta(&written).unwrap(), m);
        assert!(is_stateless_shaped(Some(&written)));
        assert!(!is_stateless_shaped(Some(&Meta::new())));
    }

    #[test]
    fn only_the_request_context_keys_make_a_request_2026_shaped() {
        let shaped = |value: Value| {
            let Value::Object(map) = value else {
                unreachable!("an object literal")
            };
            is_stateless_shaped(Some(&map))
        };
        assert!(shaped(json!({"io.modelcontextprotocol/logLevel": "info"})));
        assert!(shaped(
            json!({"io.modelcontextprotocol/clientCapabilities": {}})
        ));
        // a 2025-11-25 task message is an initialize-era message
        assert!(!shaped(
            json!({"io.modelcontextprotocol/related-task": {"taskId": "t"}})
        ));
        assert!(!shaped(json!({"progressToken": 1})));
    }
}
