//! Spec vectors must round-trip through the presa-core wire types.
//!
//! 1. Every official example of 2026-07-28 (`shared/spec/schema/2026-07-28/examples/<Type>/*.json`,
//!    the directory naming the schema type) deserializes into its presa-core type and serializes
//!    back to an equal JSON value.
//! 2. Every JSON block of the two digests preceded by `<!-- validate: REV#Name -->` does the same
//!    (these cover the initialize-era types).
//! 3. The round-tripped output of every vector validates against its schema definition (with
//!    presa-schema's full validator); for the three MRTR-capable `*ResultResponse` types, whose
//!    schema union accepts anything with a `resultType`, the `result` is also validated against
//!    the branch its `resultType` selects.
//!
//! Whole JSON-RPC messages are split with a test-local envelope: the envelope members are kept as
//! they are and `params`/`result`/`error` go through the typed structs. Equality is JSON
//! equality: numbers compare by value (`1.0` equals `1`, as in JSON Schema), since presa writes
//! integral `f64` members as integers, like JavaScript peers do.
//!
//! A vector that is wrong per the digests goes into `KNOWN_EXCEPTIONS` (or
//! `KNOWN_SCHEMA_EXCEPTIONS`) with its reason; such an entry must still fail, so a stale entry is
//! caught.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

use presa_core::*;
use presa_schema::{FullValidator, Validator};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

const SPEC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/spec");

/// Vectors expected not to round-trip, with the reason. Each must still fail.
const KNOWN_EXCEPTIONS: &[(&str, &str)] = &[
    // None: `ReadResourceResultResponse/read-resource-result-response.json` (see below)
    // round-trips, because presa-core reads `ttlMs`/`cacheScope` leniently on purpose (clients
    // must tolerate their absence, shared/spec/README.md).
];

/// Vectors whose round-tripped output is expected to fail schema validation, with the reason.
/// Each must still fail.
const KNOWN_SCHEMA_EXCEPTIONS: &[(&str, &str)] = &[(
    "ReadResourceResultResponse/read-resource-result-response.json",
    "the shipped example omits ttlMs and cacheScope, which ReadResourceResult requires \
     (shared/spec/README.md)",
)];

// ---------------------------------------------------------------------------------------------
// Comparison and generic helpers

fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            if let (Some(x), Some(y)) = (x.as_i64(), y.as_i64()) {
                x == y
            } else if let (Some(x), Some(y)) = (x.as_u64(), y.as_u64()) {
                x == y
            } else {
                x.as_f64() == y.as_f64()
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| json_eq(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_eq(v, w)))
        }
        _ => a == b,
    }
}

/// Deserializes `v` as `T` and serializes it back.
fn rt<T: Serialize + DeserializeOwned>(v: &Value) -> Result<Value, String> {
    let typed: T = serde_json::from_value(v.clone()).map_err(|e| format!("deserialize: {e}"))?;
    serde_json::to_value(&typed).map_err(|e| format!("serialize: {e}"))
}

/// Like [`rt`], and checks the parsed value with `pred` (e.g. which enum variant it is).
fn rt_where<T: Serialize + DeserializeOwned>(
    v: &Value,
    what: &str,
    pred: impl Fn(&T) -> bool,
) -> Result<Value, String> {
    let typed: T = serde_json::from_value(v.clone()).map_err(|e| format!("deserialize: {e}"))?;
    if !pred(&typed) {
        return Err(format!("parsed, but not as {what}"));
    }
    serde_json::to_value(&typed).map_err(|e| format!("serialize: {e}"))
}

/// The JSON-RPC envelope, or the embedded `{method, params}` form of 2026-07-28 input requests.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Envelope {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    jsonrpc: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    id: Option<RequestId>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    method: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    params: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    result: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    error: Option<Value>,
}

fn envelope(v: &Value) -> Result<Envelope, String> {
    let env: Envelope = serde_json::from_value(v.clone()).map_err(|e| format!("envelope: {e}"))?;
    match env.jsonrpc.as_deref() {
        None | Some("2.0") => Ok(env),
        Some(other) => Err(format!("jsonrpc is {other:?}")),
    }
}

fn rebuild(env: &Envelope) -> Result<Value, String> {
    serde_json::to_value(env).map_err(|e| format!("envelope: {e}"))
}

fn request<M: RequestMethod>(v: &Value) -> Result<Value, String> {
    let mut env = envelope(v)?;
    if env.method.as_deref() != Some(M::METHOD) {
        return Err(format!(
            "method is {:?}, expected {}",
            env.method,
            M::METHOD
        ));
    }
    if env.result.is_some() || env.error.is_some() {
        return Err("a request with result/error".into());
    }
    match &env.params {
        Some(params) => env.params = Some(rt::<M::Params>(params)?),
        // An absent params reads as the params type's default.
        None => drop(rt::<M::Params>(&Value::Object(JsonObject::new()))?),
    }
    rebuild(&env)
}

/// A 2026-07-28 embedded input request: also readable as [`InputRequest`].
fn embedded_request<M: RequestMethod>(v: &Value) -> Result<Value, String> {
    let out = request::<M>(v)?;
    let env = envelope(v)?;
    if env.jsonrpc.is_none() && env.id.is_none() {
        let embedded = rt_where::<InputRequest>(v, M::METHOD, |r| r.method() == M::METHOD)?;
        if !json_eq(&embedded, v) {
            return Err(format!("as InputRequest: {embedded}"));
        }
    }
    Ok(out)
}

fn notification<N: NotificationMethod>(v: &Value) -> Result<Value, String> {
    let mut env = envelope(v)?;
    if env.method.as_deref() != Some(N::METHOD) {
        return Err(format!(
            "method is {:?}, expected {}",
            env.method,
            N::METHOD
        ));
    }
    if env.id.is_some() || env.result.is_some() || env.error.is_some() {
        return Err("a notification with id/result/error".into());
    }
    match &env.params {
        Some(params) => env.params = Some(rt::<N::Params>(params)?),
        None => drop(rt::<N::Params>(&Value::Object(JsonObject::new()))?),
    }
    rebuild(&env)
}

fn response_with(
    v: &Value,
    check: impl Fn(&Value) -> Result<Value, String>,
) -> Result<Value, String> {
    let mut env = envelope(v)?;
    if env.id.is_none() || env.method.is_some() || env.params.is_some() || env.error.is_some() {
        return Err("not a result response".into());
    }
    let result = env.result.as_ref().ok_or("no result")?;
    env.result = Some(check(result)?);
    rebuild(&env)
}

fn response<T: Serialize + DeserializeOwned>(v: &Value) -> Result<Value, String> {
    response_with(v, rt::<T>)
}

/// An MRTR-capable result: the variant must match `resultType`.
fn mrtr<T: Serialize + DeserializeOwned>(v: &Value) -> Result<Value, String> {
    let expect_input = v.get("resultType").and_then(Value::as_str) == Some("input_required");
    rt_where::<MrtrResult<T>>(v, "the variant its resultType names", |r| match r {
        MrtrResult::Complete(_) => !expect_input,
        MrtrResult::InputRequired(_) => expect_input,
        MrtrResult::Other(_) => false,
    })
}

/// A bare error object with the given code.
fn error_object(v: &Value, code: Option<ErrorCode>) -> Result<Value, String> {
    rt_where::<ErrorObject>(v, "the expected code", |e| code.is_none_or(|c| e.code == c))
}

/// An error response; `data` (if `check_data`) must read as `D`.
fn error_response<D: Serialize + DeserializeOwned>(
    v: &Value,
    code: Option<ErrorCode>,
    check_data: bool,
) -> Result<Value, String> {
    let mut env = envelope(v)?;
    if env.method.is_some() || env.params.is_some() || env.result.is_some() {
        return Err("not an error response".into());
    }
    let error = env.error.as_ref().ok_or("no error")?;
    let mut out = error_object(error, code)?;
    if check_data {
        let data = error.get("data").ok_or("no data")?;
        out["data"] = rt::<D>(data)?;
    }
    env.error = Some(out);
    rebuild(&env)
}

/// Any message, dispatched on its method (for batches).
fn any_message(v: &Value) -> Result<Value, String> {
    let env = envelope(v)?;
    let method = env.method.as_deref().ok_or("no method")?;
    let is_request = env.id.is_some();
    match (method, is_request) {
        (m, true) => match m {
            "tools/list" => request::<ListTools>(v),
            "tools/call" => request::<CallTool>(v),
            "initialize" => request::<Initialize>(v),
            "ping" => request::<Ping>(v),
            other => Err(format!("no dispatch for request {other}")),
        },
        (m, false) => match m {
            "notifications/roots/list_changed" => notification::<RootsListChanged>(v),
            "notifications/initialized" => notification::<Initialized>(v),
            "notifications/cancelled" => notification::<Cancelled>(v),
            other => Err(format!("no dispatch for notification {other}")),
        },
    }
}

// ---------------------------------------------------------------------------------------------
// Type name → check

fn is_text(c: &ContentBlock) -> bool {
    matches!(c, ContentBlock::Text(_))
}

/// Round-trips `v` as the presa-core type of schema type `name` in revision `rev`.
#[allow(clippy::too_many_lines)]
fn check(rev: &str, name: &str, v: &Value) -> Result<Value, String> {
    use PrimitiveSchemaDefinition as Psd;
    let legacy = rev != "2026-07-28";
    match name {
        // Content
        "TextContent" => rt_where::<ContentBlock>(v, "Text", is_text),
        "ImageContent" => {
            rt_where::<ContentBlock>(v, "Image", |c| matches!(c, ContentBlock::Image(_)))
        }
        "AudioContent" => {
            rt_where::<ContentBlock>(v, "Audio", |c| matches!(c, ContentBlock::Audio(_)))
        }
        "ResourceLink" => rt_where::<ContentBlock>(v, "ResourceLink", |c| {
            matches!(c, ContentBlock::ResourceLink(_))
        }),
        "EmbeddedResource" => {
            rt_where::<ContentBlock>(v, "Resource", |c| matches!(c, ContentBlock::Resource(_)))
        }
        "ToolUseContent" => {
            rt_where::<SamplingContent>(v, "ToolUse", |c| matches!(c, SamplingContent::ToolUse(_)))
        }
        "ToolResultContent" => rt_where::<SamplingContent>(v, "ToolResult", |c| {
            matches!(c, SamplingContent::ToolResult(_))
        }),
        "TextResourceContents" => {
            rt_where::<ResourceContents>(v, "Text", |c| matches!(c, ResourceContents::Text(_)))
        }
        "BlobResourceContents" => {
            rt_where::<ResourceContents>(v, "Blob", |c| matches!(c, ResourceContents::Blob(_)))
        }
        "SamplingMessage" => rt::<SamplingMessage>(v),
        "ModelPreferences" => rt::<ModelPreferences>(v),
        "Resource" => rt::<Resource>(v),
        "Root" => rt::<Root>(v),
        "Tool" => rt::<Tool>(v),
        "ClientCapabilities" => rt::<ClientCapabilities>(v),
        "ServerCapabilities" => rt::<ServerCapabilities>(v),

        // Elicitation schemas
        "StringSchema" => rt_where::<Psd>(v, "String", |s| matches!(s, Psd::String(_))),
        "NumberSchema" => rt_where::<Psd>(v, "Number", |s| matches!(s, Psd::Number(_))),
        "BooleanSchema" => rt_where::<Psd>(v, "Boolean", |s| matches!(s, Psd::Boolean(_))),
        "UntitledSingleSelectEnumSchema" => rt_where::<Psd>(v, "UntitledSingleSelect", |s| {
            matches!(s, Psd::UntitledSingleSelect(_))
        }),
        "TitledSingleSelectEnumSchema" => rt_where::<Psd>(v, "TitledSingleSelect", |s| {
            matches!(s, Psd::TitledSingleSelect(_))
        }),
        "UntitledMultiSelectEnumSchema" => rt_where::<Psd>(v, "UntitledMultiSelect", |s| {
            matches!(s, Psd::UntitledMultiSelect(_))
        }),
        "TitledMultiSelectEnumSchema" => rt_where::<Psd>(v, "TitledMultiSelect", |s| {
            matches!(s, Psd::TitledMultiSelect(_))
        }),
        "LegacyTitledEnumSchema" => rt_where::<Psd>(v, "LegacyTitledEnum", |s| {
            matches!(s, Psd::LegacyTitledEnum(_))
        }),

        // Params
        "CallToolRequestParams" => rt::<CallToolRequestParams>(v),
        "CancelledNotificationParams" => rt::<CancelledNotificationParams>(v),
        "CompleteRequestParams" => rt::<CompleteRequestParams>(v),
        "CreateMessageRequestParams" => rt::<CreateMessageRequestParams>(v),
        "ElicitRequestFormParams" => rt_where::<ElicitRequestParams>(v, "Form", |p| {
            matches!(p, ElicitRequestParams::Form(_))
        }),
        "ElicitRequestURLParams" => {
            rt_where::<ElicitRequestParams>(v, "Url", |p| matches!(p, ElicitRequestParams::Url(_)))
        }
        "GetPromptRequestParams" => rt::<GetPromptRequestParams>(v),
        "LoggingMessageNotificationParams" => rt::<LoggingMessageNotificationParams>(v),
        "PaginatedRequestParams" => rt::<PaginatedRequestParams>(v),
        "ProgressNotificationParams" => rt::<ProgressNotificationParams>(v),
        "ResourceUpdatedNotificationParams" => rt::<ResourceUpdatedNotificationParams>(v),

        // Results
        "CallToolResult" if legacy => rt::<CallToolResult>(v),
        "CallToolResult" => mrtr::<CallToolResult>(v),
        "CompleteResult" => rt::<CompleteResult>(v),
        "CreateMessageResult" => rt::<CreateMessageResult>(v),
        "CreateTaskResult" => rt::<CreateTaskResult>(v),
        "DiscoverResult" => rt::<DiscoverResult>(v),
        "ElicitResult" => rt::<ElicitResult>(v),
        "GetPromptResult" => mrtr::<GetPromptResult>(v),
        "InitializeResult" => rt::<InitializeResult>(v),
        "InputRequiredResult" => rt::<InputRequiredResult>(v),
        "InputRequests" => rt::<InputRequests>(v),
        "InputResponses" => rt::<InputResponses>(v),
        "ListPromptsResult" => rt::<ListPromptsResult>(v),
        "ListResourceTemplatesResult" => rt::<ListResourceTemplatesResult>(v),
        "ListResourcesResult" => rt::<ListResourcesResult>(v),
        "ListRootsResult" => rt::<ListRootsResult>(v),
        "ListToolsResult" => rt::<ListToolsResult>(v),
        "ReadResourceResult" => mrtr::<ReadResourceResult>(v),
        "SubscriptionsListenResult" => rt::<SubscriptionsListenResult>(v),

        // Requests
        "CallToolRequest" => request::<CallTool>(v),
        "CompleteRequest" => request::<Complete>(v),
        "CreateMessageRequest" => embedded_request::<CreateMessage>(v),
        "DiscoverRequest" => request::<Discover>(v),
        "ElicitRequest" => embedded_request::<Elicit>(v),
        "GetPromptRequest" => request::<GetPrompt>(v),
        "InitializeRequest" => request::<Initialize>(v),
        "ListPromptsRequest" => request::<ListPrompts>(v),
        "ListResourceTemplatesRequest" => request::<ListResourceTemplates>(v),
        "ListResourcesRequest" => request::<ListResources>(v),
        "ListRootsRequest" => embedded_request::<ListRoots>(v),
        "ListToolsRequest" => request::<ListTools>(v),
        "PingRequest" => request::<Ping>(v),
        "ReadResourceRequest" => request::<ReadResource>(v),
        "SetLevelRequest" => request::<SetLevel>(v),
        "SubscribeRequest" => request::<Subscribe>(v),
        "SubscriptionsListenRequest" => request::<SubscriptionsListen>(v),
        "UnsubscribeRequest" => request::<Unsubscribe>(v),
        "JSONRPCBatchRequest" => {
            let items = v.as_array().ok_or("a batch is an array")?;
            items
                .iter()
                .map(any_message)
                .collect::<Result<Vec<_>, _>>()
                .map(Value::Array)
        }

        // Notifications
        "CancelledNotification" => notification::<Cancelled>(v),
        "ElicitationCompleteNotification" => notification::<ElicitationComplete>(v),
        "InitializedNotification" => notification::<Initialized>(v),
        "LoggingMessageNotification" => notification::<LoggingMessage>(v),
        "ProgressNotification" => notification::<Progress>(v),
        "PromptListChangedNotification" => notification::<PromptListChanged>(v),
        "ResourceListChangedNotification" => notification::<ResourceListChanged>(v),
        "ResourceUpdatedNotification" => notification::<ResourceUpdated>(v),
        "RootsListChangedNotification" => notification::<RootsListChanged>(v),
        "SubscriptionsAcknowledgedNotification" => notification::<SubscriptionsAcknowledged>(v),
        "TaskStatusNotification" => notification::<TaskStatusChanged>(v),
        "ToolListChangedNotification" => notification::<ToolListChanged>(v),

        // Responses
        "CallToolResultResponse" => response_with(v, mrtr::<CallToolResult>),
        "CompleteResultResponse" => response::<CompleteResult>(v),
        "DiscoverResultResponse" => response::<DiscoverResult>(v),
        "GetPromptResultResponse" => response_with(v, mrtr::<GetPromptResult>),
        "ListPromptsResultResponse" => response::<ListPromptsResult>(v),
        "ListResourceTemplatesResultResponse" => response::<ListResourceTemplatesResult>(v),
        "ListResourcesResultResponse" => response::<ListResourcesResult>(v),
        "ListToolsResultResponse" => response::<ListToolsResult>(v),
        "ReadResourceResultResponse" => response_with(v, mrtr::<ReadResourceResult>),
        "SubscriptionsListenResultResponse" => response::<SubscriptionsListenResult>(v),

        // Errors
        "JSONRPCErrorResponse" | "JSONRPCError" => error_response::<Value>(v, None, false),
        "HeaderMismatchError" => {
            error_response::<Value>(v, Some(ErrorCode::HEADER_MISMATCH), false)
        }
        "MissingRequiredClientCapabilityError" => {
            error_response::<MissingRequiredClientCapabilityData>(
                v,
                Some(ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY),
                true,
            )
        }
        "UnsupportedProtocolVersionError" => error_response::<UnsupportedProtocolVersionData>(
            v,
            Some(ErrorCode::UNSUPPORTED_PROTOCOL_VERSION),
            true,
        ),
        "URLElicitationRequiredError" => error_response::<UrlElicitationRequiredData>(
            v,
            Some(ErrorCode::URL_ELICITATION_REQUIRED),
            true,
        ),
        "ParseError" => error_object(v, Some(ErrorCode::PARSE_ERROR)),
        "InvalidRequestError" => error_object(v, Some(ErrorCode::INVALID_REQUEST)),
        "MethodNotFoundError" => error_object(v, Some(ErrorCode::METHOD_NOT_FOUND)),
        "InvalidParamsError" => error_object(v, Some(ErrorCode::INVALID_PARAMS)),
        "InternalError" => error_object(v, Some(ErrorCode::INTERNAL_ERROR)),

        other => Err(format!("no presa-core type mapped for schema type {other}")),
    }
}

/// Runs one case: `Ok` when it round-trips to an equal value.
fn run_case(rev: &str, name: &str, v: &Value) -> Result<(), String> {
    let back = check(rev, name, v)?;
    if json_eq(&back, v) {
        Ok(())
    } else {
        Err(format!(
            "round trip differs:\n    in:  {v}\n    out: {back}"
        ))
    }
}

/// Applies a known-exception list to a set of `(case id, outcome)` and reports every problem.
/// `digest` selects the entries whose case id names a digest file; the others are examples.
fn report(kind: &str, digest: bool, outcomes: &[(String, Result<(), String>)]) {
    report_against(KNOWN_EXCEPTIONS, kind, digest, outcomes);
}

fn report_against(
    exceptions: &[(&str, &str)],
    kind: &str,
    digest: bool,
    outcomes: &[(String, Result<(), String>)],
) {
    let mut problems = Vec::new();
    for (case, _) in exceptions
        .iter()
        .filter(|(case, _)| case.starts_with("digest-") == digest)
    {
        if !outcomes.iter().any(|(id, _)| id == case) {
            problems.push(format!(
                "{case}: listed as a known exception but no such case exists"
            ));
        }
    }
    for (id, outcome) in outcomes {
        let known = exceptions.iter().find(|(case, _)| case == id);
        match (outcome, known) {
            (Ok(()), None) | (Err(_), Some(_)) => {}
            (Err(e), None) => problems.push(format!("{id}: {e}")),
            (Ok(()), Some((_, reason))) => {
                problems.push(format!(
                    "{id}: listed as a known exception ({reason}) but now passes; remove the entry"
                ));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "{} {kind} case(s) failed:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

// ---------------------------------------------------------------------------------------------
// 1. Official examples

fn example_files() -> Vec<(String, PathBuf)> {
    let root = Path::new(SPEC).join("schema/2026-07-28/examples");
    let mut files = Vec::new();
    for dir in fs::read_dir(&root).expect("examples directory") {
        let dir = dir.unwrap().path();
        let type_name = dir.file_name().unwrap().to_string_lossy().into_owned();
        for file in fs::read_dir(&dir).unwrap() {
            let file = file.unwrap().path();
            if file.extension().is_some_and(|e| e == "json") {
                files.push((type_name.clone(), file));
            }
        }
    }
    files.sort();
    files
}

#[test]
fn official_2026_examples_round_trip() {
    let files = example_files();
    assert_eq!(
        files.len(),
        129,
        "the 2026-07-28 snapshot ships 129 example files"
    );
    let mut outcomes = Vec::new();
    for (type_name, path) in &files {
        let id = format!(
            "{type_name}/{}",
            path.file_name().unwrap().to_string_lossy()
        );
        let text = fs::read_to_string(path).unwrap();
        let outcome = serde_json::from_str::<Value>(&text)
            .map_err(|e| format!("not JSON: {e}"))
            .and_then(|v| run_case("2026-07-28", type_name, &v));
        outcomes.push((id, outcome));
    }
    assert_eq!(outcomes.len(), files.len(), "one case per file");
    report("example", false, &outcomes);
}

// ---------------------------------------------------------------------------------------------
// 2. Digest vectors

/// `(case id, revision, type name, JSON text)` for every `<!-- validate: REV#Name -->` marker.
fn digest_vectors(file: &str) -> (usize, Vec<(String, String, String, String)>) {
    let text = fs::read_to_string(Path::new(SPEC).join(file)).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let mut markers = 0;
    let mut vectors = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let line = line.trim();
        let Some(target) = line
            .strip_prefix("<!-- validate:")
            .and_then(|rest| rest.strip_suffix("-->"))
        else {
            continue;
        };
        markers += 1;
        let (rev, name) = target.trim().split_once('#').expect("REV#Name");
        assert_eq!(
            lines.get(i + 1).map(|l| l.trim()),
            Some("```json"),
            "{file}:{}: marker not followed by a json block",
            i + 1
        );
        let body: Vec<&str> = lines[i + 2..]
            .iter()
            .take_while(|l| l.trim() != "```")
            .copied()
            .collect();
        vectors.push((
            format!("{file}:{}#{name}", i + 1),
            rev.to_owned(),
            name.to_owned(),
            body.join("\n"),
        ));
    }
    (markers, vectors)
}

#[test]
fn digest_vectors_round_trip() {
    let mut outcomes = Vec::new();
    let mut total_markers = 0;
    for file in ["digest-2026-07-28.md", "digest-initialize-era.md"] {
        let (markers, vectors) = digest_vectors(file);
        assert!(markers > 0, "{file} has validate markers");
        assert_eq!(vectors.len(), markers, "{file}: one case per marker");
        total_markers += markers;
        for (id, rev, name, json) in vectors {
            let outcome = serde_json::from_str::<Value>(&json)
                .map_err(|e| format!("not JSON: {e}"))
                .and_then(|v| run_case(&rev, &name, &v));
            outcomes.push((id, outcome));
        }
    }
    assert_eq!(outcomes.len(), total_markers);
    report("digest", true, &outcomes);
}

// ---------------------------------------------------------------------------------------------
// 3. Schema validation of the round-tripped vectors

/// Compiled `$defs/<Name>` (or `definitions/<Name>`) validators, per revision and name.
#[derive(Default)]
struct Schemas {
    documents: HashMap<String, Value>,
    validators: HashMap<(String, String), FullValidator>,
}

impl Schemas {
    fn validate(&mut self, rev: &str, name: &str, instance: &Value) -> Result<(), String> {
        let key = (rev.to_owned(), name.to_owned());
        if !self.validators.contains_key(&key) {
            let document = self.documents.entry(rev.to_owned()).or_insert_with(|| {
                let text =
                    fs::read_to_string(Path::new(SPEC).join(format!("schema/{rev}/schema.json")))
                        .unwrap();
                serde_json::from_str(&text).unwrap()
            });
            let defs = if document.get("$defs").is_some() {
                "$defs"
            } else {
                "definitions"
            };
            if document[defs].get(name).is_none() {
                return Err(format!("{rev} has no definition {name}"));
            }
            let mut root = document.clone();
            root["$ref"] = Value::from(format!("#/{defs}/{name}"));
            let validator =
                FullValidator::new(&root).map_err(|e| format!("compile {rev}#{name}: {e}"))?;
            self.validators.insert(key.clone(), validator);
        }
        self.validators[&key]
            .validate(instance)
            .map_err(|e| format!("{rev}#{name}: {e}"))
    }

    /// Validates against `name`, and a MRTR-capable response's `result` against the branch its
    /// `resultType` selects.
    fn validate_vector(&mut self, rev: &str, name: &str, instance: &Value) -> Result<(), String> {
        self.validate(rev, name, instance)?;
        let complete = match name {
            "CallToolResultResponse" => "CallToolResult",
            "GetPromptResultResponse" => "GetPromptResult",
            "ReadResourceResultResponse" => "ReadResourceResult",
            _ => return Ok(()),
        };
        let result = &instance["result"];
        let branch = if result["resultType"] == "input_required" {
            "InputRequiredResult"
        } else {
            complete
        };
        self.validate(rev, branch, result)
    }
}

#[test]
fn round_tripped_vectors_validate_against_their_schema() {
    let mut schemas = Schemas::default();
    let mut cases: Vec<(String, String, String, String)> = example_files()
        .into_iter()
        .map(|(name, path)| {
            let id = format!("{name}/{}", path.file_name().unwrap().to_string_lossy());
            (
                id,
                "2026-07-28".to_owned(),
                name,
                fs::read_to_string(&path).unwrap(),
            )
        })
        .collect();
    let examples = cases.len();
    for file in ["digest-2026-07-28.md", "digest-initialize-era.md"] {
        cases.extend(digest_vectors(file).1);
    }
    let mut example_outcomes = Vec::new();
    let mut digest_outcomes = Vec::new();
    for (i, (id, rev, name, json)) in cases.into_iter().enumerate() {
        let outcome = serde_json::from_str::<Value>(&json)
            .map_err(|e| format!("not JSON: {e}"))
            .and_then(|v| check(&rev, &name, &v))
            .and_then(|back| schemas.validate_vector(&rev, &name, &back));
        if i < examples {
            &mut example_outcomes
        } else {
            &mut digest_outcomes
        }
        .push((id, outcome));
    }
    report_against(
        KNOWN_SCHEMA_EXCEPTIONS,
        "example schema",
        false,
        &example_outcomes,
    );
    report_against(
        KNOWN_SCHEMA_EXCEPTIONS,
        "digest schema",
        true,
        &digest_outcomes,
    );
}
