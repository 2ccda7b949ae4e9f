//! Screening a 2026-07-28 `tools/list` result as a client reads it: compile each tool's
//! `x-mcp-header` annotations, drop the tools whose annotations are invalid
//! (<https://modelcontextprotocol.io/specification/2026-07-28/server/tools#x-mcp-header>).

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use super::{ParamHeaders, XMcpHeaderError};
use crate::{RawJson, to_raw};

/// What screening one page of tools found.
#[derive(Debug, Default)]
pub(crate) struct Screened {
    /// Tools whose annotations compiled, with their compiled headers (possibly none).
    pub(crate) headers: Vec<(String, ParamHeaders)>,
    /// Tools left out, and why.
    pub(crate) dropped: Vec<(String, XMcpHeaderError)>,
    /// The result without the dropped tools; `None` when nothing was dropped (then the
    /// original bytes are passed on untouched).
    pub(crate) result: Option<RawJson>,
}

#[derive(Deserialize)]
struct ToolView {
    name: String,
    #[serde(rename = "inputSchema", default)]
    input_schema: Value,
}

/// Screens a `tools/list` result. A result that does not read as an object with a `tools`
/// array, and tools without a name, are left as they are for the client to judge.
pub(crate) fn screen(result: &RawValue) -> Screened {
    let mut screened = Screened::default();
    let Ok(mut members) = serde_json::from_str::<BTreeMap<String, Box<RawValue>>>(result.get())
    else {
        return screened;
    };
    let Some(Ok(tools)) = members
        .get("tools")
        .map(|tools| serde_json::from_str::<Vec<&RawValue>>(tools.get()))
    else {
        return screened;
    };
    let mut kept: Vec<&RawValue> = Vec::with_capacity(tools.len());
    for tool in tools {
        let Ok(view) = serde_json::from_str::<ToolView>(tool.get()) else {
            kept.push(tool);
            continue;
        };
        match ParamHeaders::from_input_schema(&view.input_schema) {
            Ok(headers) => {
                screened.headers.push((view.name, headers));
                kept.push(tool);
            }
            Err(error) => screened.dropped.push((view.name, error)),
        }
    }
    if screened.dropped.is_empty() {
        return screened;
    }
    // Re-assemble: kept tools stay byte for byte; only the top-level member order may change.
    if let Ok(tools) = to_raw(&kept) {
        members.insert("tools".to_owned(), tools);
        screened.result = to_raw(&members).ok();
    }
    screened
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use serde_json::json;

    use super::*;

    fn raw(value: Value) -> RawJson {
        to_raw(&value).unwrap()
    }

    #[test]
    fn valid_tools_pass_untouched_with_their_headers() {
        let result = raw(json!({"tools": [
            {"name": "plain", "inputSchema": {"type": "object"}},
            {"name": "routed", "inputSchema": {"type": "object", "properties": {
                "region": {"type": "string", "x-mcp-header": "Region"}}}}
        ], "nextCursor": "2"}));
        let screened = screen(&result);
        assert!(screened.result.is_none());
        assert!(screened.dropped.is_empty());
        let names: Vec<_> = screened
            .headers
            .iter()
            .map(|(n, h)| (n.as_str(), h.len()))
            .collect();
        assert_eq!(names, [("plain", 0), ("routed", 1)]);
    }

    #[test]
    fn invalid_tools_are_dropped_and_the_rest_kept_verbatim() {
        let text = r#"{"tools":[{"name":"bad","inputSchema":{"type":"object","properties":{"r":{"type":"number","x-mcp-header":"R"}}}},{"name":"good","inputSchema":{"type":"object","properties":{"z":{"type":"string"},"a":{"type":"string"}}}}],"ttlMs":0,"resultType":"complete"}"#;
        let result = RawValue::from_string(text.to_owned()).unwrap();
        let screened = screen(&result);
        assert_eq!(screened.dropped.len(), 1);
        assert_eq!(screened.dropped[0].0, "bad");
        let rewritten = screened.result.unwrap();
        assert!(
            rewritten.get().contains(
                r#"[{"name":"good","inputSchema":{"type":"object","properties":{"z":{"type":"string"},"a":{"type":"string"}}}}]"#
            ),
            "{}",
            rewritten.get()
        );
        let value: Value = serde_json::from_str(rewritten.get()).unwrap();
        assert_eq!(value["ttlMs"], 0);
        assert_eq!(value["resultType"], "complete");
    }

    #[test]
    fn odd_results_are_left_alone() {
        for odd in [
            json!([]),
            json!({"tools": 3}),
            json!({"tools": [{"inputSchema": {}}]}),
        ] {
            let screened = screen(&raw(odd));
            assert!(screened.result.is_none());
            assert!(screened.headers.is_empty());
        }
    }
}
