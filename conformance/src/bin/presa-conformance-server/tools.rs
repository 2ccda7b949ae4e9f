//! The tools of the runner's tool scenarios (`tools-*`, `json-schema-2020-12`,
//! `http-custom-header-server-validation`) and the diagnostic tools of `server-stateless`.
//!
//! `test_simple_text` comes first: `http-header-validation` calls the first listed tool with
//! `{}`. Every tool has a description (`tools-list` requires one on each).

use std::time::Duration;

use presa_core::{
    ClientCapabilities, JsonObject, LoggingLevel, MissingRequiredClientCapabilityData, Prompt,
    SamplingCapability, Tool,
};
use presa_server::{Content, Context, ProtocolError, ServerBuilder, ToolError, content};
use serde_json::{Value, json};

use crate::ServerCell;

/// A one-pixel red PNG, base64-encoded.
pub(crate) const RED_PIXEL_PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

/// A WAV file with one silent sample, base64-encoded.
const SILENT_WAV: &str = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";

/// The pause between the steps of the logging and progress tools.
const STEP: Duration = Duration::from_millis(50);

/// The input schema of `json_schema_2020_12_tool`, served exactly as written: `$schema`,
/// `$defs`, `$anchor`, composition and conditionals must reach the client untouched.
fn json_schema_2020_12() -> JsonObject {
    object(json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {
            "address": {
                "$anchor": "addressDef",
                "type": "object",
                "properties": {"street": {"type": "string"}, "city": {"type": "string"}}
            }
        },
        "properties": {
            "name": {"type": "string"},
            "address": {"$ref": "#/$defs/address"},
            "contactMethod": {"type": "string", "enum": ["phone", "email"]},
            "phone": {"type": "string"},
            "email": {"type": "string"}
        },
        "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
        "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
        "then": {"required": ["phone"]},
        "else": {"required": ["email"]},
        "additionalProperties": false
    }))
}

/// `region` is mirrored into the `Mcp-Param-Region` header on 2026-07-28 (SEP-2243).
fn custom_header_schema() -> JsonObject {
    object(json!({
        "type": "object",
        "properties": {
            "region": {
                "type": "string",
                "description": "A region; sent as the Mcp-Param-Region header too",
                "x-mcp-header": "Region"
            }
        },
        "required": ["region"]
    }))
}

/// A JSON object literal as a schema.
pub(crate) fn object(value: Value) -> JsonObject {
    match value {
        Value::Object(map) => map,
        _ => JsonObject::new(),
    }
}

/// Adds the tools, in listing order.
pub(crate) fn register(builder: ServerBuilder, server: &ServerCell) -> ServerBuilder {
    let builder = content_tools(builder);
    let builder = notifying_tools(builder);
    let builder = schema_tools(builder);
    diagnostic_tools(builder, server)
}

/// `tools-call-simple-text`, `-image`, `-audio`, `-embedded-resource`, `-mixed-content`,
/// `-error`: one kind of content each.
fn content_tools(builder: ServerBuilder) -> ServerBuilder {
    builder
        .tool_sync(
            Tool::without_params("test_simple_text").description("Returns a simple text response."),
            |_: Value, _: Context| "This is a simple text response for testing.",
        )
        .tool(
            Tool::without_params("test_reconnection").description(
                "Closes its response stream early; the result comes on the resumed stream.",
            ),
            |_: Value, cx: Context| async move {
                // SEP-1699 polling (server-sse-polling): the client resumes with Last-Event-ID
                cx.close_stream();
                tokio::time::sleep(STEP).await;
                "Reconnection test completed successfully"
            },
        )
        .tool_sync(
            Tool::without_params("test_image_content").description("Returns a one-pixel PNG."),
            |_: Value, _: Context| content::image_base64(RED_PIXEL_PNG, "image/png"),
        )
        .tool_sync(
            Tool::without_params("test_audio_content").description("Returns a short WAV clip."),
            |_: Value, _: Context| content::audio_base64(SILENT_WAV, "audio/wav"),
        )
        .tool_sync(
            Tool::without_params("test_embedded_resource")
                .description("Returns an embedded text resource."),
            |_: Value, _: Context| {
                content::embedded_text(
                    "test://embedded-resource",
                    "This is an embedded resource content.",
                    Some("text/plain"),
                )
            },
        )
        .tool_sync(
            Tool::without_params("test_multiple_content_types")
                .description("Returns text, an image and an embedded resource."),
            |_: Value, _: Context| {
                Content(vec![
                    content::text("Multiple content types test:"),
                    content::image_base64(RED_PIXEL_PNG, "image/png"),
                    content::embedded_text(
                        "test://mixed-content-resource",
                        json!({"test": "data", "value": 123}).to_string(),
                        Some("application/json"),
                    ),
                ])
            },
        )
        .tool_sync(
            Tool::without_params("test_error_handling")
                .description("Always fails with a tool error (isError: true)."),
            |_: Value, _: Context| {
                ToolError::new("This tool intentionally returns an error for testing")
            },
        )
}

/// `tools-call-with-logging` and `tools-call-with-progress`: notifications on the request's
/// stream before the result.
fn notifying_tools(builder: ServerBuilder) -> ServerBuilder {
    builder
        .tool(
            Tool::without_params("test_tool_with_logging")
                .description("Logs three messages while it runs."),
            |_: Value, cx: Context| async move {
                cx.log(LoggingLevel::Info, "Tool execution started").await;
                tokio::time::sleep(STEP).await;
                cx.log(LoggingLevel::Info, "Tool processing data").await;
                tokio::time::sleep(STEP).await;
                cx.log(LoggingLevel::Info, "Tool execution completed").await;
                "Tool with logging completed."
            },
        )
        .tool(
            Tool::without_params("test_tool_with_progress")
                .description("Reports progress 0, 50 and 100 of 100 while it runs."),
            |_: Value, cx: Context| async move {
                cx.progress(0.0, Some(100.0), Some("Started")).await;
                tokio::time::sleep(STEP).await;
                cx.progress(50.0, Some(100.0), Some("Halfway")).await;
                tokio::time::sleep(STEP).await;
                cx.progress(100.0, Some(100.0), Some("Done")).await;
                "Tool with progress completed."
            },
        )
}

/// `json-schema-2020-12` and `http-custom-header-server-validation`: schemas the client must see
/// as written.
fn schema_tools(builder: ServerBuilder) -> ServerBuilder {
    builder
        .tool_sync(
            Tool::new("json_schema_2020_12_tool", json_schema_2020_12())
                .description("Tool with JSON Schema 2020-12 features"),
            |args: Value, _: Context| format!("Received: {args}"),
        )
        .tool_sync(
            Tool::new("test_custom_header", custom_header_schema())
                .description("Echoes its region, which also travels as a header."),
            |args: Value, _: Context| {
                let region = args["region"].as_str().unwrap_or_default();
                format!("Region: {region}")
            },
        )
}

/// The tools `server-stateless` calls to probe the 2026-07-28 rules.
///
/// - `test_missing_capability` answers `-32021` when the request's client lacks `sampling`.
/// - `test_streaming_elicitation` returns a plain result: on 2026-07-28 a server never sends the
///   client a request on a response stream (it would ask with an `input_required` result).
/// - `test_logging_tool` logs; presa sends the message only when the request set a log level.
/// - The trigger tools change a list and change it back, so the visible lists stay the same.
///   presa does not serve `subscriptions/listen` yet, so nobody hears of the change for now.
fn diagnostic_tools(builder: ServerBuilder, server: &ServerCell) -> ServerBuilder {
    let tools_server = ServerCell::clone(server);
    let prompts_server = ServerCell::clone(server);
    builder
        .tool_sync(
            Tool::without_params("test_missing_capability").description(
                "Needs the client's sampling capability; fails with -32021 without it.",
            ),
            |_: Value, cx: Context| {
                if cx.client_capabilities().sampling.is_some() {
                    return Ok("The client can sample.");
                }
                let required = ClientCapabilities {
                    sampling: Some(SamplingCapability::default()),
                    ..ClientCapabilities::default()
                };
                let error = MissingRequiredClientCapabilityData {
                    required_capabilities: required,
                }
                .into_error("This tool needs the client's sampling capability");
                Err(ProtocolError::from(error))
            },
        )
        .tool_sync(
            Tool::without_params("test_streaming_elicitation").description(
                "Answers on its own response stream and never sends the client a request.",
            ),
            |_: Value, _: Context| "Streaming elicitation test completed.",
        )
        .tool(
            Tool::without_params("test_logging_tool")
                .description("Logs a message, which is sent only if the request asked for logs."),
            |_: Value, cx: Context| async move {
                cx.log(LoggingLevel::Info, "test_logging_tool was called")
                    .await;
                "Logging tool completed."
            },
        )
        .tool_sync(
            Tool::without_params("test_trigger_tool_change")
                .description("Changes the tool list (and changes it back)."),
            move |_: Value, _: Context| {
                if let Some(server) = tools_server.get() {
                    const PROBE: &str = "test_trigger_tool_change_probe";
                    let probe =
                        Tool::without_params(PROBE).description("Added and removed at once.");
                    // a concurrent trigger may hold the name: its own removal undoes the change
                    let _ = server.add_tool(probe, |_: Value, _: Context| async { "" });
                    server.remove_tool(PROBE);
                }
                "The tool list changed."
            },
        )
        .tool_sync(
            Tool::without_params("test_trigger_prompt_change")
                .description("Changes the prompt list (and changes it back)."),
            move |_: Value, _: Context| {
                if let Some(server) = prompts_server.get() {
                    const PROBE: &str = "test_trigger_prompt_change_probe";
                    let probe = Prompt::new(PROBE).description("Added and removed at once.");
                    let _ = server.add_prompt(probe, |_, _: Context| async { "" });
                    server.remove_prompt(PROBE);
                }
                "The prompt list changed."
            },
        )
}
