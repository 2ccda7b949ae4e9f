//! `x-mcp-header` annotations compiled into the list of `Mcp-Param-*` headers of a tool.

use std::fmt;

use serde_json::{Map, Value};

use super::MCP_PARAM_HEADER_PREFIX;

/// The JSON Schema keyword that designates a tool argument to be mirrored into a header.
pub const X_MCP_HEADER: &str = "x-mcp-header";

/// Largest magnitude of an integer that may be mirrored into a header: 2^53 − 1, JavaScript's
/// safe range (<https://modelcontextprotocol.io/specification/2026-07-28/server/tools#x-mcp-header>).
pub const MAX_HEADER_INTEGER: i64 = (1 << 53) - 1;

/// The primitive type of an argument mirrored into an `Mcp-Param-*` header.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ParamKind {
    /// `"type": "string"`.
    String,
    /// `"type": "integer"`.
    Integer,
    /// `"type": "boolean"`.
    Boolean,
}

impl ParamKind {
    fn from_type_name(name: &str) -> Option<Self> {
        match name {
            "string" => Some(Self::String),
            "integer" => Some(Self::Integer),
            "boolean" => Some(Self::Boolean),
            _ => None,
        }
    }
}

/// One argument a tool mirrors into a header: where it lives in `arguments`, and the header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamHeader {
    name: String,
    header_name: String,
    path: Vec<String>,
    kind: ParamKind,
}

impl ParamHeader {
    /// The annotation's value, e.g. `Region`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The full header name, e.g. `Mcp-Param-Region`.
    pub fn header_name(&self) -> &str {
        &self.header_name
    }

    /// The chain of property names from `arguments` to the value, e.g. `["window", "days"]`.
    pub fn path(&self) -> &[String] {
        &self.path
    }

    /// The argument's declared type.
    pub fn kind(&self) -> ParamKind {
        self.kind
    }

    /// The value at [`path`](Self::path) in `arguments`; `None` when it is absent or `null`, in
    /// which case no header is sent and none is expected.
    pub fn value_in<'a>(&self, arguments: &'a Value) -> Option<&'a Value> {
        let mut value = arguments;
        for key in &self.path {
            value = value.as_object()?.get(key)?;
        }
        (!value.is_null()).then_some(value)
    }

    /// The path for messages: `arguments.window.days`.
    pub(super) fn display_path(&self) -> String {
        let mut out = String::from("arguments");
        for key in &self.path {
            out.push('.');
            out.push_str(key);
        }
        out
    }
}

/// The `Mcp-Param-*` headers of one tool, compiled once from its `inputSchema`
/// (<https://modelcontextprotocol.io/specification/2026-07-28/server/tools#x-mcp-header>).
///
/// A server compiles each tool's schema when the tool is registered and refuses a tool whose
/// annotations are invalid; a client compiles each listed tool and drops (with a warning naming
/// the tool and the error) those that fail, so one bad tool does not hide the others. The
/// compiled list then builds the headers of a call ([`ParamHeaders::headers`]) and checks
/// received ones ([`ReceivedHeaders::check_params`](crate::ReceivedHeaders::check_params)).
///
/// ```
/// use presa_core::{ParamHeaders, ParamKind};
/// use serde_json::json;
///
/// let schema = json!({
///     "type": "object",
///     "properties": {
///         "tenant": { "type": "string", "x-mcp-header": "Tenant" },
///         "window": {
///             "type": "object",
///             "properties": { "days": { "type": "integer", "x-mcp-header": "Window-Days" } }
///         },
///         "expr": { "type": "string" }
///     }
/// });
/// let params = ParamHeaders::from_input_schema(&schema).unwrap();
/// let names: Vec<_> = params.iter().map(|p| p.header_name()).collect();
/// assert_eq!(names, ["Mcp-Param-Tenant", "Mcp-Param-Window-Days"]);
/// assert_eq!(params.iter().nth(1).unwrap().kind(), ParamKind::Integer);
///
/// let headers = params.headers(Some(&json!({"tenant": "Zürich", "window": {"days": 7}}))).unwrap();
/// assert_eq!(headers, [
///     ("Mcp-Param-Tenant".to_owned(), "=?base64?WsO8cmljaA==?=".to_owned()),
///     ("Mcp-Param-Window-Days".to_owned(), "7".to_owned()),
/// ]);
///
/// let bad = json!({"type": "object", "properties": {"ratio": {"type": "number", "x-mcp-header": "Ratio"}}});
/// assert!(ParamHeaders::from_input_schema(&bad).is_err());
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ParamHeaders {
    entries: Vec<ParamHeader>,
}

impl ParamHeaders {
    /// Compiles the annotations of a tool's `inputSchema`.
    ///
    /// Annotations are looked for on every property reachable from the root through a chain of
    /// `properties` keywords, depth first, in the order of `serde_json`'s maps (the schema's
    /// order with its `preserve_order` feature, sorted by key without it). An annotation anywhere else (under
    /// `items`, `anyOf`, `$defs`, `if`, …) makes the schema invalid, as does a value that is not
    /// a non-empty RFC 9110 token, a name used twice (case-insensitively), or a property whose
    /// `type` is not `string`, `integer` or `boolean` (optionally together with `null`, as in
    /// `["string", "null"]`; `type` must be present).
    pub fn from_input_schema(schema: &Value) -> Result<Self, XMcpHeaderError> {
        Self::compile(schema.as_object())
    }

    /// Compiles the annotations of `tool`'s `inputSchema` (see
    /// [`from_input_schema`](Self::from_input_schema)).
    ///
    /// ```
    /// use presa_core::{ParamHeaders, Tool};
    ///
    /// let tool: Tool = serde_json::from_value(serde_json::json!({"name": "query",
    ///     "inputSchema": {"type": "object", "properties": {
    ///         "region": {"type": "string", "x-mcp-header": "Region"}}}})).unwrap();
    /// assert_eq!(ParamHeaders::of_tool(&tool).unwrap().len(), 1);
    /// ```
    pub fn of_tool(tool: &crate::Tool) -> Result<Self, XMcpHeaderError> {
        Self::compile(Some(&tool.input_schema))
    }

    fn compile(root: Option<&serde_json::Map<String, Value>>) -> Result<Self, XMcpHeaderError> {
        let mut entries: Vec<ParamHeader> = Vec::new();
        let mut path = Vec::new();
        if let Some(root) = root {
            if root.contains_key(X_MCP_HEADER) {
                return Err(XMcpHeaderError::NotOnProperty {
                    location: String::new(),
                });
            }
            walk_properties(root, &mut path, &mut String::new(), &mut entries)?;
        }
        Ok(Self { entries })
    }

    /// The compiled headers, in the order described in
    /// [`from_input_schema`](Self::from_input_schema).
    pub fn iter(&self) -> std::slice::Iter<'_, ParamHeader> {
        self.entries.iter()
    }

    /// How many arguments the tool mirrors.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the tool mirrors no argument.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entry for a header name suffix (`Region` for `Mcp-Param-Region`), compared
    /// case-insensitively.
    pub fn get(&self, name: &str) -> Option<&ParamHeader> {
        self.entries
            .iter()
            .find(|p| p.name.eq_ignore_ascii_case(name))
    }

    /// The `Mcp-Param-*` headers for a call with these `arguments`, as a client sends them: one
    /// per annotated argument that is present and not `null`, its value stringified (strings
    /// as-is, integers in decimal, booleans `true`/`false`) and encoded with
    /// [`encode_header_value`](crate::encode_header_value).
    ///
    /// Fails when an annotated argument holds a value no header can carry: an object, an array,
    /// a fractional number, or an integer beyond ±(2^53 − 1).
    pub fn headers(
        &self,
        arguments: Option<&Value>,
    ) -> Result<Vec<(String, String)>, ParamValueError> {
        let mut out = Vec::with_capacity(self.entries.len());
        let Some(arguments) = arguments else {
            return Ok(out);
        };
        for param in &self.entries {
            let Some(value) = param.value_in(arguments) else {
                continue;
            };
            let text = stringify(param, value)?;
            out.push((
                param.header_name.clone(),
                super::encode_header_value(&text).into_owned(),
            ));
        }
        Ok(out)
    }
}

impl<'a> IntoIterator for &'a ParamHeaders {
    type Item = &'a ParamHeader;
    type IntoIter = std::slice::Iter<'a, ParamHeader>;

    fn into_iter(self) -> Self::IntoIter {
        self.entries.iter()
    }
}

fn stringify(param: &ParamHeader, value: &Value) -> Result<String, ParamValueError> {
    let unsupported = || ParamValueError::Unsupported {
        header: param.header_name.clone(),
        path: param.display_path(),
    };
    match value {
        Value::String(s) => Ok(s.clone()),
        Value::Bool(b) => Ok(b.to_string()),
        Value::Number(n) => {
            let out_of_range = || ParamValueError::IntegerOutOfRange {
                header: param.header_name.clone(),
                path: param.display_path(),
            };
            let integer = if let Some(i) = n.as_i64() {
                i
            } else if n.as_u64().is_some() {
                return Err(out_of_range());
            } else {
                // A whole number written with a fraction (`7.0`) is still that integer.
                let f = n
                    .as_f64()
                    .filter(|f| f.is_finite() && f.fract() == 0.0)
                    .ok_or_else(unsupported)?;
                if f.abs() > MAX_HEADER_INTEGER as f64 {
                    return Err(out_of_range());
                }
                #[allow(clippy::cast_possible_truncation)]
                let i = f as i64;
                i
            };
            if integer.unsigned_abs() > MAX_HEADER_INTEGER.unsigned_abs() {
                return Err(out_of_range());
            }
            Ok(integer.to_string())
        }
        Value::Null | Value::Array(_) | Value::Object(_) => Err(unsupported()),
    }
}

/// Walks `schema.properties`, recording annotated properties and recursing into nested
/// `properties`; everything else is searched for misplaced annotations.
fn walk_properties(
    schema: &Map<String, Value>,
    path: &mut Vec<String>,
    pointer: &mut String,
    entries: &mut Vec<ParamHeader>,
) -> Result<(), XMcpHeaderError> {
    for (keyword, sub) in schema {
        if keyword == "properties" {
            continue;
        }
        let len = pointer.len();
        push_pointer(pointer, keyword);
        find_misplaced(keyword, sub, pointer)?;
        pointer.truncate(len);
    }
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return Ok(());
    };
    let base = pointer.len();
    push_pointer(pointer, "properties");
    for (name, property) in properties {
        let len = pointer.len();
        push_pointer(pointer, name);
        path.push(name.clone());
        if let Some(property) = property.as_object() {
            if let Some(annotation) = property.get(X_MCP_HEADER) {
                let entry = compile(annotation, property, path, pointer)?;
                if let Some(first) = entries
                    .iter()
                    .find(|e| e.name.eq_ignore_ascii_case(&entry.name))
                {
                    return Err(XMcpHeaderError::Duplicate {
                        name: entry.name,
                        first: first.display_path(),
                        location: pointer.clone(),
                    });
                }
                entries.push(entry);
            }
            walk_properties(property, path, pointer, entries)?;
        }
        path.pop();
        pointer.truncate(len);
    }
    pointer.truncate(base);
    Ok(())
}

fn compile(
    annotation: &Value,
    property: &Map<String, Value>,
    path: &[String],
    pointer: &str,
) -> Result<ParamHeader, XMcpHeaderError> {
    let location = || pointer.to_owned();
    let Some(name) = annotation.as_str() else {
        return Err(XMcpHeaderError::NotAString {
            location: location(),
        });
    };
    if name.is_empty() {
        return Err(XMcpHeaderError::Empty {
            location: location(),
        });
    }
    if !name.bytes().all(is_tchar) {
        return Err(XMcpHeaderError::InvalidName {
            name: name.to_owned(),
            location: location(),
        });
    }
    let kind = property_kind(property).ok_or_else(|| XMcpHeaderError::UnsupportedType {
        name: name.to_owned(),
        location: location(),
    })?;
    Ok(ParamHeader {
        name: name.to_owned(),
        header_name: format!("{MCP_PARAM_HEADER_PREFIX}{name}"),
        path: path.to_vec(),
        kind,
    })
}

/// `"type": "string"`, or `["string", "null"]` (in any order); nothing else.
fn property_kind(property: &Map<String, Value>) -> Option<ParamKind> {
    match property.get("type")? {
        Value::String(t) => ParamKind::from_type_name(t),
        Value::Array(types) => {
            let mut kind = None;
            let mut seen_null = false;
            for t in types {
                match t.as_str()? {
                    "null" if !seen_null => seen_null = true,
                    other if kind.is_none() => kind = Some(ParamKind::from_type_name(other)?),
                    _ => return None,
                }
            }
            kind
        }
        _ => None,
    }
}

/// Keywords whose value is data, not a schema: an `x-mcp-header` key inside them means nothing.
const DATA_KEYWORDS: &[&str] = &[
    "const", "enum", "default", "examples", "example", "required",
];

/// Keywords holding a map of names to schemas.
const SCHEMA_MAP_KEYWORDS: &[&str] = &[
    "$defs",
    "definitions",
    "patternProperties",
    "dependentSchemas",
    "dependencies",
    "properties",
];

/// Searches a keyword's value for an `x-mcp-header` outside the `properties` chain.
fn find_misplaced(
    keyword: &str,
    value: &Value,
    pointer: &mut String,
) -> Result<(), XMcpHeaderError> {
    if DATA_KEYWORDS.contains(&keyword) {
        return Ok(());
    }
    if SCHEMA_MAP_KEYWORDS.contains(&keyword) {
        if let Some(map) = value.as_object() {
            for (name, sub) in map {
                let len = pointer.len();
                push_pointer(pointer, name);
                find_misplaced_in_schema(sub, pointer)?;
                pointer.truncate(len);
            }
        }
        return Ok(());
    }
    match value {
        Value::Array(items) => {
            for (i, sub) in items.iter().enumerate() {
                let len = pointer.len();
                push_pointer(pointer, &i.to_string());
                find_misplaced_in_schema(sub, pointer)?;
                pointer.truncate(len);
            }
            Ok(())
        }
        Value::Object(_) => find_misplaced_in_schema(value, pointer),
        _ => Ok(()),
    }
}

fn find_misplaced_in_schema(schema: &Value, pointer: &mut String) -> Result<(), XMcpHeaderError> {
    let Some(map) = schema.as_object() else {
        return Ok(());
    };
    if map.contains_key(X_MCP_HEADER) {
        return Err(XMcpHeaderError::NotOnProperty {
            location: pointer.clone(),
        });
    }
    for (keyword, sub) in map {
        let len = pointer.len();
        push_pointer(pointer, keyword);
        find_misplaced(keyword, sub, pointer)?;
        pointer.truncate(len);
    }
    Ok(())
}

/// Appends one JSON Pointer token (RFC 6901 escaping).
fn push_pointer(pointer: &mut String, token: &str) {
    pointer.push('/');
    for c in token.chars() {
        match c {
            '~' => pointer.push_str("~0"),
            '/' => pointer.push_str("~1"),
            c => pointer.push(c),
        }
    }
}

/// RFC 9110 `tchar`.
fn is_tchar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

/// Why a tool's `x-mcp-header` annotations are invalid (<https://modelcontextprotocol.io/specification/2026-07-28/server/tools#x-mcp-header>). A server refuses to
/// register such a tool; an HTTP client drops it from the tools it exposes.
///
/// `location` is a JSON Pointer into the `inputSchema` (`/properties/region`); it is empty for
/// the root. No JSON-RPC error corresponds to this error: it is raised when a definition is
/// built or a `tools/list` result is read, not in answer to a request.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum XMcpHeaderError {
    /// The annotation is not a string.
    NotAString {
        /// Where the annotation is.
        location: String,
    },
    /// The annotation is the empty string.
    Empty {
        /// Where the annotation is.
        location: String,
    },
    /// The annotation is not an RFC 9110 token (spaces, `:`, control characters, non-ASCII …).
    InvalidName {
        /// The annotation's value.
        name: String,
        /// Where the annotation is.
        location: String,
    },
    /// Two annotations name the same header, compared case-insensitively.
    Duplicate {
        /// The second occurrence's value.
        name: String,
        /// The argument path of the first occurrence (`arguments.region`).
        first: String,
        /// Where the second annotation is.
        location: String,
    },
    /// The annotated property's `type` is missing or not `string`, `integer` or `boolean`.
    UnsupportedType {
        /// The annotation's value.
        name: String,
        /// Where the annotation is.
        location: String,
    },
    /// The annotation is not on a property reachable from the root through `properties` alone
    /// (it is under `items`, a combinator, a conditional, `$defs`, … or on the root itself).
    NotOnProperty {
        /// Where the annotation is.
        location: String,
    },
}

impl fmt::Display for XMcpHeaderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fn at(location: &str) -> &str {
            if location.is_empty() {
                "the schema root"
            } else {
                location
            }
        }
        match self {
            Self::NotAString { location } => {
                write!(f, "x-mcp-header at {} is not a string", at(location))
            }
            Self::Empty { location } => write!(f, "x-mcp-header at {} is empty", at(location)),
            Self::InvalidName { name, location } => write!(
                f,
                "x-mcp-header {name:?} at {} is not a valid header name token",
                at(location)
            ),
            Self::Duplicate {
                name,
                first,
                location,
            } => write!(
                f,
                "x-mcp-header {name:?} at {} repeats the header of {first}",
                at(location)
            ),
            Self::UnsupportedType { name, location } => write!(
                f,
                "x-mcp-header {name:?} at {} is on a property whose type is not string, integer or boolean",
                at(location)
            ),
            Self::NotOnProperty { location } => write!(
                f,
                "x-mcp-header at {} is not on a property reachable through properties alone",
                at(location)
            ),
        }
    }
}

impl std::error::Error for XMcpHeaderError {}

/// Why an argument annotated with `x-mcp-header` cannot be put in its header when a client
/// builds a call (see [`ParamHeaders::headers`]), or the method in `Mcp-Method` (see
/// [`request_headers`](crate::request_headers)).
///
/// This is a local error of the calling client: the call is not sent. For a parameter, the
/// arguments break the tool's schema, which the server would also reject.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ParamValueError {
    /// The value is an object, an array or a fractional number.
    Unsupported {
        /// The header, e.g. `Mcp-Param-Region`.
        header: String,
        /// The argument, e.g. `arguments.region`.
        path: String,
    },
    /// The value is an integer beyond ±(2^53 − 1).
    IntegerOutOfRange {
        /// The header, e.g. `Mcp-Param-Count`.
        header: String,
        /// The argument, e.g. `arguments.count`.
        path: String,
    },
    /// The method is not visible ASCII (spaces inside only), so `Mcp-Method` cannot carry it.
    UnsendableMethod {
        /// The method, as given.
        method: String,
    },
}

impl fmt::Display for ParamValueError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Unsupported { header, path } => write!(
                f,
                "{path} cannot be sent in header {header}: not a string, integer or boolean"
            ),
            Self::IntegerOutOfRange { header, path } => write!(
                f,
                "{path} cannot be sent in header {header}: integer beyond 2^53-1 in magnitude"
            ),
            Self::UnsendableMethod { method } => write!(
                f,
                "method {method:?} cannot be sent in header Mcp-Method: only visible ASCII, \
                 spaces inside"
            ),
        }
    }
}

impl std::error::Error for ParamValueError {}

#[cfg(test)]
mod tests;
