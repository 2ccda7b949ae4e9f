//! SEP-2243 HTTP mirror headers of the 2026-07-28 Streamable HTTP binding, as pure functions.
//!
//! Client side: [`request_headers`] (overview of the headers there), with [`ParamHeaders`]
//! compiled from each tool's `inputSchema`. Server side: [`ReceivedHeaders`] (validation order
//! there), failing with [`HeaderError`]. Value encoding: [`encode_header_value`],
//! [`decode_header_value`].

mod annotations;
pub(crate) mod screen;
mod validate;
mod value;

pub use annotations::*;
pub use validate::*;
pub use value::*;

use serde_json::Value;

/// `MCP-Protocol-Version`: the protocol version of the request (every POST).
pub const MCP_PROTOCOL_VERSION_HEADER: &str = "MCP-Protocol-Version";

/// `Mcp-Method`: the JSON-RPC method (every 2026-07-28 request).
pub const MCP_METHOD_HEADER: &str = "Mcp-Method";

/// `Mcp-Name`: the tool or prompt name, resource URI or task id (see [`mcp_name_field`]).
pub const MCP_NAME_HEADER: &str = "Mcp-Name";

/// `Mcp-Param-`: the prefix of the headers mirroring `x-mcp-header` tool arguments.
pub const MCP_PARAM_HEADER_PREFIX: &str = "Mcp-Param-";

/// The `params` member a method's `Mcp-Name` header mirrors, if it has one.
///
/// ```
/// use presa_core::mcp_name_field;
///
/// assert_eq!(mcp_name_field("tools/call"), Some("name"));
/// assert_eq!(mcp_name_field("prompts/get"), Some("name"));
/// assert_eq!(mcp_name_field("resources/read"), Some("uri"));
/// assert_eq!(mcp_name_field("tasks/get"), Some("taskId"));
/// assert_eq!(mcp_name_field("tools/list"), None);
/// ```
pub fn mcp_name_field(method: &str) -> Option<&'static str> {
    match method {
        "tools/call" | "prompts/get" => Some("name"),
        "resources/read" => Some("uri"),
        "tasks/get" | "tasks/update" | "tasks/cancel" => Some("taskId"),
        _ => None,
    }
}

/// The mirror headers a client sends with a 2026-07-28 request over Streamable HTTP.
///
/// A 2026-07-28 client mirrors parts of each request body into headers so intermediaries can
/// route without parsing JSON (<https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#standard-request-headers>):
///
/// | Header | Mirrors | Sent on |
/// |---|---|---|
/// | `MCP-Protocol-Version` | `_meta["io.modelcontextprotocol/protocolVersion"]` | every POST |
/// | `Mcp-Method` | `method` | every request (and, from presa clients, notifications) |
/// | `Mcp-Name` | `params.name`, `params.uri` or `params.taskId` ([`mcp_name_field`]) | `tools/call`, `prompts/get`, `resources/read`, `tasks/get`, `tasks/update`, `tasks/cancel` |
/// | `Mcp-Param-{Name}` | the argument whose input-schema property has `"x-mcp-header": "{Name}"` ([`ParamHeaders`]) | `tools/call`, when the argument is present and not `null` |
///
/// Header names are case-insensitive; values are case-sensitive. A server checks them with
/// [`ReceivedHeaders`].
///
/// This function returns, in order: `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` when the
/// method has one and `params` holds it as a string, then for `tools/call` the `Mcp-Param-*`
/// headers of `tool` (the tool's compiled schema, if the client has it; without it none are sent, and a server that
/// needs them answers `-32020`, after which the client refreshes `tools/list`).
///
/// Values are encoded with [`encode_header_value`]; the protocol version and method are sent
/// as they are. Fails only if an annotated argument holds a value no header can carry.
///
/// ```
/// use presa_core::{ParamHeaders, request_headers};
/// use serde_json::json;
///
/// let tool = ParamHeaders::from_input_schema(&json!({
///     "type": "object",
///     "properties": { "region": { "type": "string", "x-mcp-header": "Region" } }
/// }))
/// .unwrap();
/// let params = json!({"name": "execute_sql", "arguments": {"region": "us-west1", "query": "SELECT 1"}});
/// let headers = request_headers("2026-07-28", "tools/call", Some(&params), Some(&tool)).unwrap();
/// assert_eq!(headers, [
///     ("MCP-Protocol-Version".to_owned(), "2026-07-28".to_owned()),
///     ("Mcp-Method".to_owned(), "tools/call".to_owned()),
///     ("Mcp-Name".to_owned(), "execute_sql".to_owned()),
///     ("Mcp-Param-Region".to_owned(), "us-west1".to_owned()),
/// ]);
/// ```
pub fn request_headers(
    protocol_version: &str,
    method: &str,
    params: Option<&Value>,
    tool: Option<&ParamHeaders>,
) -> Result<Vec<(String, String)>, ParamValueError> {
    // `Mcp-Method` is compared as sent (trimmed, never Base64-decoded): a method it cannot
    // carry as itself could never pass the server's check
    if header_value_needs_base64(method) {
        return Err(ParamValueError::UnsendableMethod {
            method: method.to_owned(),
        });
    }
    let mut out = vec![
        (
            MCP_PROTOCOL_VERSION_HEADER.to_owned(),
            protocol_version.to_owned(),
        ),
        (MCP_METHOD_HEADER.to_owned(), method.to_owned()),
    ];
    let name = mcp_name_field(method).and_then(|field| params?.get(field)?.as_str());
    if let Some(name) = name {
        out.push((
            MCP_NAME_HEADER.to_owned(),
            encode_header_value(name).into_owned(),
        ));
    }
    if let (Some(tool), "tools/call") = (tool, method) {
        out.extend(tool.headers(params.and_then(|p| p.get("arguments")))?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
