//! Tools: the `Tool` descriptor and the `tools/list` and `tools/call` params and results.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::serde_util;
use crate::{
    CacheScope, ContentBlock, Icon, InputResponses, JsonObject, Meta, ResultType, TaskMetadata,
};

/// A tool the server offers (schema `Tool`).
///
/// ```
/// use presa_core::Tool;
/// use serde_json::json;
///
/// let schema = json!({"type": "object", "properties": {"city": {"type": "string"}}});
/// let tool = Tool::new("forecast", schema.as_object().cloned().unwrap_or_default())
///     .description("Weather forecast for a city");
/// assert_eq!(serde_json::to_value(&tool).unwrap()["inputSchema"], schema);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Tool {
    /// Programmatic name, unique within the server.
    pub name: String,
    /// Display name. Since 2025-06-18.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the tool does, for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Icons for display. Since 2025-11-25.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// JSON Schema of the arguments; its root `type` is `"object"`.
    pub input_schema: JsonObject,
    /// JSON Schema of `structuredContent`. Since 2025-06-18 (root `type: "object"` up to
    /// 2025-11-25; any schema since 2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<JsonObject>,
    /// Behaviour hints. Since 2025-03-26.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<ToolAnnotations>,
    /// Task support. 2025-11-25 only (removed in 2026-07-28, where tasks are an extension).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub execution: Option<ToolExecution>,
    /// Metadata. Since 2025-06-18.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// The member a structured tool result that is not a JSON object is wrapped in:
/// `{"result": <value>}`. `structuredContent` must be an object; presa's servers send a typed
/// tool's list, number or string this way (with an output schema to match), and presa's typed
/// client calls read it back.
pub const WRAPPED_RESULT: &str = "result";

/// Whether an output schema is that of a wrapped result: an object whose only property is
/// [`WRAPPED_RESULT`], and required. What a typed client reads from `{"result": <value>}`.
///
/// ```
/// use serde_json::json;
///
/// let wrapped = json!({"type": "object", "properties": {"result": {"type": "array"}}, "required": ["result"]});
/// assert!(presa_core::is_wrapped_output_schema(wrapped.as_object().unwrap()));
/// let plain = json!({"type": "object", "properties": {"sum": {"type": "number"}}});
/// assert!(!presa_core::is_wrapped_output_schema(plain.as_object().unwrap()));
/// ```
pub fn is_wrapped_output_schema(schema: &JsonObject) -> bool {
    let only_result = schema
        .get("properties")
        .and_then(Value::as_object)
        .is_some_and(|properties| properties.len() == 1 && properties.contains_key(WRAPPED_RESULT));
    let required = schema
        .get("required")
        .and_then(Value::as_array)
        .is_some_and(|names| names.iter().any(|name| name == WRAPPED_RESULT));
    schema.get("type").and_then(Value::as_str) == Some("object") && only_result && required
}

impl Tool {
    /// A tool with a name and an input schema.
    pub fn new(name: impl Into<String>, input_schema: JsonObject) -> Self {
        Self {
            name: name.into(),
            input_schema,
            ..Self::default()
        }
    }

    /// A tool with a name and an input schema admitting any object (`{"type": "object"}`). The
    /// typed registrations of presa-server (`typed_tool`) replace the schema with the one
    /// derived from the handler's input type.
    ///
    /// ```
    /// let tool = presa_core::Tool::named("ping");
    /// assert_eq!(tool.input_schema.get("type"), Some(&serde_json::json!("object")));
    /// ```
    pub fn named(name: impl Into<String>) -> Self {
        let mut input_schema = JsonObject::new();
        input_schema.insert("type".into(), "object".into());
        Self::new(name, input_schema)
    }

    /// A tool without parameters: input schema `{"type": "object", "additionalProperties": false}`.
    pub fn without_params(name: impl Into<String>) -> Self {
        let mut schema = JsonObject::new();
        schema.insert("type".into(), Value::from("object"));
        schema.insert("additionalProperties".into(), Value::Bool(false));
        Self::new(name, schema)
    }

    /// Sets the title.
    #[must_use]
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Sets the description.
    #[must_use]
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Sets the output schema.
    #[must_use]
    pub fn output_schema(mut self, schema: JsonObject) -> Self {
        self.output_schema = Some(schema);
        self
    }

    /// Sets the annotations.
    #[must_use]
    pub fn annotations(mut self, annotations: ToolAnnotations) -> Self {
        self.annotations = Some(annotations);
        self
    }

    /// Whether the tool runs as a task: never ([`TaskSupport::Forbidden`], the default), when
    /// the client allows it ([`TaskSupport::Optional`]) or always ([`TaskSupport::Required`]).
    ///
    /// Only 2025-11-25 lists it, as `execution.taskSupport` in `tools/list`. 2026-07-28 has no
    /// such field (its tasks extension removed it): there it decides how the server answers a
    /// call whose request declared the extension, and `tools/list` shows nothing of it. A
    /// 2026-07-28 client learns a tool's support from the answer to a call (a task, or the
    /// `-32021` error naming the extension for a [`Required`](TaskSupport::Required) tool).
    ///
    /// ```
    /// use presa_core::{TaskSupport, Tool};
    ///
    /// let tool = Tool::without_params("export").task_support(TaskSupport::Optional);
    /// assert_eq!(tool.get_task_support(), TaskSupport::Optional);
    /// assert_eq!(Tool::without_params("greet").get_task_support(), TaskSupport::Forbidden);
    /// ```
    #[must_use]
    pub fn task_support(mut self, support: TaskSupport) -> Self {
        self.execution
            .get_or_insert_with(ToolExecution::default)
            .task_support = Some(support);
        self
    }

    /// The tool with an app (MCP Apps, SEP-1865): the `ui://` page that shows its results in a
    /// host that renders apps, in `_meta.ui` (and in the deprecated `_meta["ui/resourceUri"]`
    /// that hosts still read). The tool's `content` is what every other client shows, so it
    /// should say the same in words. For who may call it, see [`ui_meta`](Self::ui_meta).
    ///
    /// ```
    /// use presa_core::Tool;
    ///
    /// let tool = Tool::without_params("forecast").ui("ui://weather/forecast");
    /// assert_eq!(tool.meta.unwrap()["ui"]["resourceUri"], "ui://weather/forecast");
    /// ```
    #[must_use]
    pub fn ui(self, resource_uri: impl Into<String>) -> Self {
        self.ui_meta(crate::apps::UiToolMeta::new(resource_uri))
    }

    /// The tool with its app as `meta` says (its page, and who may call it: a tool only the
    /// page calls is `visibility([UiVisibility::App])`).
    #[must_use]
    pub fn ui_meta(mut self, meta: crate::apps::UiToolMeta) -> Self {
        meta.merge_into(self.meta.get_or_insert_with(Meta::new));
        self
    }

    /// Whether the tool runs as a task (see [`task_support`](Self::task_support)).
    pub fn get_task_support(&self) -> TaskSupport {
        self.execution
            .as_ref()
            .and_then(|e| e.task_support)
            .unwrap_or_default()
    }

    /// The name to show a user: `title`, then `annotations.title`, then `name`.
    pub fn display_name(&self) -> &str {
        self.title
            .as_deref()
            .or_else(|| self.annotations.as_ref().and_then(|a| a.title.as_deref()))
            .unwrap_or(&self.name)
    }
}

/// Hints about a tool's behaviour. Untrusted unless the server is trusted. Since 2025-03-26.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolAnnotations {
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The tool does not modify its environment (default false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only_hint: Option<bool>,
    /// The tool may perform destructive updates (default true; meaningful if not read-only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destructive_hint: Option<bool>,
    /// Repeated calls with the same arguments have no further effect (default false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotent_hint: Option<bool>,
    /// The tool talks to an open world of external entities (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_world_hint: Option<bool>,
}

/// Execution properties of a tool. 2025-11-25 only.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolExecution {
    /// Whether the tool may, must or must not be called as a task (default `forbidden`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_support: Option<TaskSupport>,
}

/// Whether a tool supports task-augmented calls. 2025-11-25 only.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TaskSupport {
    /// Clients must not use a task (the default).
    #[default]
    Forbidden,
    /// Clients may use a task.
    Optional,
    /// Clients must use a task.
    Required,
}

/// Result of `tools/list`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListToolsResult {
    /// 2026-07-28 only: the result type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// This page of tools.
    pub tools: Vec<Tool>,
    /// Cursor for the next page; absent on the last page. An empty string is a real cursor.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// Freshness in milliseconds. 2026-07-28 only (required there).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "serde_util::lenient_ttl"
    )]
    pub ttl_ms: Option<u64>,
    /// Who may reuse the result. 2026-07-28 only (required there).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<CacheScope>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// Params of `tools/call`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallToolRequestParams {
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// The tool's name.
    pub name: String,
    /// The arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<JsonObject>,
    /// MRTR retry: answers to the previous `inputRequests`. 2026-07-28 only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_responses: Option<InputResponses>,
    /// MRTR retry: the `requestState` echoed byte for byte. 2026-07-28 only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
    /// Asks for a task-augmented call. 2025-11-25 only; the answer is then a
    /// [`CreateTaskResult`](crate::CreateTaskResult).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskMetadata>,
}

impl CallToolRequestParams {
    /// Params calling `name` with `arguments`.
    pub fn new(name: impl Into<String>, arguments: JsonObject) -> Self {
        Self {
            name: name.into(),
            arguments: Some(arguments),
            ..Self::default()
        }
    }
}

/// Result of `tools/call`. Tool failures are results with `isError: true`, not JSON-RPC errors.
/// Under 2026-07-28 the method may answer with an
/// [`InputRequiredResult`](crate::InputRequiredResult) instead; see
/// [`MrtrResult`](crate::MrtrResult).
///
/// ```
/// use presa_core::CallToolResult;
///
/// let ok = CallToolResult::text("done");
/// assert_eq!(serde_json::to_string(&ok).unwrap(), r#"{"content":[{"type":"text","text":"done"}]}"#);
/// let failed = CallToolResult::error("no such city");
/// assert_eq!(failed.is_error, Some(true));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallToolResult {
    /// 2026-07-28 only: the result type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// Unstructured result.
    pub content: Vec<ContentBlock>,
    /// Structured result, conforming to the tool's `outputSchema`. Since 2025-06-18: an object
    /// up to 2025-11-25, any JSON value since 2026-07-28. A present `null` is kept as
    /// `Some(Value::Null)`.
    #[serde(
        default,
        deserialize_with = "serde_util::present",
        skip_serializing_if = "Option::is_none"
    )]
    pub structured_content: Option<Value>,
    /// Whether the call failed (default false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl CallToolResult {
    /// A successful result with these content blocks.
    pub fn new(content: Vec<ContentBlock>) -> Self {
        Self {
            content,
            ..Self::default()
        }
    }

    /// A successful result with one text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self::new(vec![ContentBlock::text(text)])
    }

    /// A failed result (`isError: true`) with one text block explaining the failure.
    pub fn error(message: impl Into<String>) -> Self {
        Self {
            is_error: Some(true),
            ..Self::text(message)
        }
    }

    /// A successful result with structured content and, for older clients, its serialization as
    /// a text block.
    pub fn structured(value: Value) -> Self {
        let text = value.to_string();
        Self {
            structured_content: Some(value),
            ..Self::text(text)
        }
    }

    /// Whether the result reports a failure.
    pub fn is_error(&self) -> bool {
        self.is_error.unwrap_or(false)
    }
}

impl_has_meta!(Tool, ListToolsResult, CallToolRequestParams, CallToolResult);
impl_has_result_type!(ListToolsResult, CallToolResult);

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use serde_json::json;

    use super::*;

    #[test]
    fn legacy_and_modern_shapes_share_the_struct() {
        let mut result = CallToolResult::structured(json!(["a", "b"]));
        let legacy = serde_json::to_value(&result).unwrap();
        assert!(legacy.get("resultType").is_none());
        result.result_type = Some(ResultType::Complete);
        let modern = serde_json::to_value(&result).unwrap();
        assert_eq!(modern["resultType"], "complete");
        assert_eq!(modern["structuredContent"], json!(["a", "b"]));
    }

    #[test]
    fn display_name_precedence() {
        let mut tool = Tool::without_params("t");
        assert_eq!(tool.display_name(), "t");
        tool.annotations = Some(ToolAnnotations {
            title: Some("A".into()),
            ..Default::default()
        });
        assert_eq!(tool.display_name(), "A");
        tool.title = Some("T".into());
        assert_eq!(tool.display_name(), "T");
    }
}
