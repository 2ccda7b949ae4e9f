//! Messages built with the presa-core wire types validate against their revision's official
//! schema (`shared/spec/schema/<rev>/schema.json`, definition `$defs/<Name>` or
//! `definitions/<Name>`), through presa-schema's full JSON Schema validator.

use std::collections::HashMap;

use presa_core::*;
use presa_schema::{FullValidator, Validator};
use serde::Serialize;
use serde_json::{Value, json};

const SCHEMAS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/spec/schema");

/// Compiles `$defs/<name>` (or `definitions/<name>`) of a revision's schema, caching per
/// revision and name.
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
                let text = std::fs::read_to_string(format!("{SCHEMAS}/{rev}/schema.json")).unwrap();
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
            .map_err(|e| e.to_string())
    }
}

fn to_json(value: &impl Serialize) -> Value {
    serde_json::to_value(value).unwrap()
}

fn obj(v: Value) -> JsonObject {
    v.as_object().cloned().expect("an object")
}

fn request<M: RequestMethod>(id: i64, params: &M::Params) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": M::METHOD, "params": to_json(params)})
}

fn notification<N: NotificationMethod>(params: &N::Params) -> Value {
    json!({"jsonrpc": "2.0", "method": N::METHOD, "params": to_json(params)})
}

fn response(id: i64, result: &impl Serialize) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": to_json(result)})
}

fn error_response(id: i64, error: &ErrorObject) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": to_json(error)})
}

fn at_least(rev: &str, since: &str) -> bool {
    rev >= since // revision strings are dates
}

fn tool(rev: &str) -> Tool {
    let schema = obj(
        json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
    );
    let mut tool = Tool::new("forecast", schema).description("Weather forecast");
    if at_least(rev, "2025-03-26") {
        tool.annotations = Some(ToolAnnotations {
            read_only_hint: Some(true),
            ..Default::default()
        });
    }
    if at_least(rev, "2025-06-18") {
        tool.title = Some("Forecast".into());
        tool.output_schema = Some(obj(
            json!({"type": "object", "properties": {"temp": {"type": "number"}}}),
        ));
        tool.meta = Some(obj(json!({"com.example/x": 1})));
    }
    if at_least(rev, "2025-11-25") {
        tool.icons = Some(vec![Icon {
            mime_type: Some("image/png".into()),
            sizes: Some(vec!["48x48".into()]),
            ..Icon::new("https://example.com/i.png")
        }]);
    }
    if rev == "2025-11-25" {
        tool.execution = Some(ToolExecution {
            task_support: Some(TaskSupport::Optional),
        });
    }
    tool
}

fn resource(rev: &str) -> Resource {
    let mut r = Resource::new("file:///srv/app.toml", "app.toml")
        .mime_type("application/toml")
        .description("Config");
    r.size = Some(120);
    r.annotations = Some(Annotations {
        audience: Some(vec![Role::User]),
        priority: Some(0.5),
        last_modified: None,
    });
    if at_least(rev, "2025-06-18") {
        r.title = Some("App config".into());
        r.annotations.as_mut().unwrap().last_modified = Some("2025-01-12T15:00:58Z".into());
    }
    r
}

fn server_capabilities(rev: &str) -> ServerCapabilities {
    let mut caps = ServerCapabilities {
        logging: Some(JsonObject::new()),
        prompts: Some(ListChangedCapability::list_changed(true)),
        resources: Some(ResourcesCapability {
            subscribe: Some(true),
            list_changed: Some(true),
            ..Default::default()
        }),
        tools: Some(ListChangedCapability::list_changed(true)),
        experimental: Some(obj(json!({"com.example/beta": {}}))),
        ..Default::default()
    };
    if at_least(rev, "2025-03-26") {
        caps.completions = Some(JsonObject::new());
    }
    if rev == "2025-11-25" {
        caps.tasks = Some(ServerTasksCapability {
            list: Some(JsonObject::new()),
            requests: Some(ServerTaskRequests {
                tools: Some(obj(json!({"call": {}}))),
                ..Default::default()
            }),
            ..Default::default()
        });
    }
    if at_least(rev, "2026-07-28") {
        caps.extensions = Some(obj(json!({"io.modelcontextprotocol/tasks": {}})));
    }
    caps
}

fn client_capabilities(rev: &str) -> ClientCapabilities {
    let mut caps = ClientCapabilities {
        sampling: Some(SamplingCapability::default()),
        ..Default::default()
    };
    if rev < "2026-07-28" {
        caps.roots = Some(RootsCapability {
            list_changed: Some(true),
            ..Default::default()
        });
    } else {
        caps.roots = Some(RootsCapability::default());
        caps.extensions = Some(obj(json!({"io.modelcontextprotocol/tasks": {}})));
    }
    if at_least(rev, "2025-06-18") {
        caps.elicitation = Some(ElicitationCapability::default());
    }
    if at_least(rev, "2025-11-25") {
        caps.elicitation = Some(ElicitationCapability {
            form: Some(JsonObject::new()),
            url: Some(JsonObject::new()),
            ..Default::default()
        });
        caps.sampling = Some(SamplingCapability {
            tools: Some(JsonObject::new()),
            ..Default::default()
        });
    }
    caps
}

/// `_meta` of a 2026-07-28 request; of an initialize-era request only the progress token.
fn request_meta(rev: &str) -> Meta {
    let mut meta = Meta::new();
    if rev == "2026-07-28" {
        meta.insert(META_PROTOCOL_VERSION.into(), rev.into());
        meta.insert_as(META_CLIENT_CAPABILITIES, &client_capabilities(rev))
            .unwrap();
        meta.insert_as(
            META_CLIENT_INFO,
            &Implementation::new("presa-test", "0.1.0"),
        )
        .unwrap();
        meta.insert(META_LOG_LEVEL.into(), "info".into());
    }
    meta.set_progress_token(ProgressToken::from("tok-1"));
    meta
}

fn complete<T: HasResultType + HasMeta>(rev: &str, mut result: T) -> T {
    if rev == "2026-07-28" {
        result.set_result_type(Some(ResultType::Complete));
        result
            .meta_or_default()
            .insert_as(META_SERVER_INFO, &Implementation::new("presa-srv", "1.0.0"))
            .unwrap();
    }
    result
}

/// `(definition, message)` pairs every revision shares.
#[allow(clippy::too_many_lines)]
fn common_cases(rev: &str) -> Vec<(&'static str, Value)> {
    let modern = rev == "2026-07-28";
    let meta = || Some(request_meta(rev));
    let cache = |ttl: u64| {
        if modern {
            (Some(ttl), Some(CacheScope::Public))
        } else {
            (None, None)
        }
    };
    let mut cases = Vec::new();

    let mut list_tools = PaginatedRequestParams::with_cursor("");
    list_tools.meta = meta();
    cases.push(("ListToolsRequest", request::<ListTools>(1, &list_tools)));
    let (ttl_ms, cache_scope) = cache(60_000);
    let tools = complete(
        rev,
        ListToolsResult {
            tools: vec![tool(rev)],
            next_cursor: Some("p2".into()),
            ttl_ms,
            cache_scope,
            ..Default::default()
        },
    );
    cases.push(("ListToolsResult", to_json(&tools)));

    let mut call = CallToolRequestParams::new("forecast", obj(json!({"city": "Zürich"})));
    call.meta = meta();
    cases.push(("CallToolRequest", request::<CallTool>(2, &call)));
    let mut result = CallToolResult::text("Sunny");
    if at_least(rev, "2025-06-18") {
        result = CallToolResult::structured(json!({"temp": 21.5}));
    }
    result.is_error = Some(false);
    cases.push(("CallToolResult", to_json(&complete(rev, result))));
    cases.push((
        "CallToolResult",
        to_json(&complete(rev, CallToolResult::error("no such city"))),
    ));

    let (ttl_ms, cache_scope) = cache(0);
    let resources = complete(
        rev,
        ListResourcesResult {
            resources: vec![resource(rev)],
            ttl_ms,
            cache_scope,
            ..Default::default()
        },
    );
    cases.push(("ListResourcesResult", to_json(&resources)));
    let template = ResourceTemplate {
        description: Some("Tables".into()),
        ..ResourceTemplate::new("db://{schema}/{table}", "table")
    };
    let templates = complete(
        rev,
        ListResourceTemplatesResult {
            resource_templates: vec![template],
            ttl_ms,
            cache_scope,
            ..Default::default()
        },
    );
    cases.push(("ListResourceTemplatesResult", to_json(&templates)));
    let mut read = ReadResourceRequestParams::new("file:///srv/app.toml");
    read.meta = meta();
    cases.push(("ReadResourceRequest", request::<ReadResource>(3, &read)));
    let contents = vec![
        ResourceContents::text("file:///srv/app.toml", "port = 8080"),
        ResourceContents::blob(
            "file:///srv/logo.png",
            &[0x89, 0x50, 0x4e, 0x47],
            Some("image/png".into()),
        ),
    ];
    let read_result = complete(
        rev,
        ReadResourceResult {
            contents,
            ttl_ms,
            cache_scope,
            ..Default::default()
        },
    );
    cases.push(("ReadResourceResult", to_json(&read_result)));

    let prompt = Prompt::new("review")
        .arg("code", true)
        .description("Review code");
    let (ttl_ms, cache_scope) = cache(120_000);
    let prompts = complete(
        rev,
        ListPromptsResult {
            prompts: vec![prompt],
            ttl_ms,
            cache_scope,
            ..Default::default()
        },
    );
    cases.push(("ListPromptsResult", to_json(&prompts)));
    let mut get = GetPromptRequestParams::new("review");
    get.arguments = Some([("code".to_owned(), "fn main() {}".to_owned())].into());
    get.meta = meta();
    cases.push(("GetPromptRequest", request::<GetPrompt>(4, &get)));
    let messages = vec![
        PromptMessage::text(Role::User, "Review this"),
        PromptMessage {
            role: Role::User,
            content: ContentBlock::embedded(ResourceContents::text("file:///a.rs", "fn main() {}")),
        },
        PromptMessage {
            role: Role::Assistant,
            content: ContentBlock::image("iVBORw0KGgo=", "image/png"),
        },
    ];
    let prompt_result = complete(
        rev,
        GetPromptResult {
            description: Some("Review".into()),
            ..GetPromptResult::new(messages)
        },
    );
    cases.push(("GetPromptResult", to_json(&prompt_result)));

    let mut complete_params = CompleteRequestParams::new(
        CompletionReference::resource("db://{schema}/{table}"),
        "table",
        "ord",
    );
    complete_params.meta = meta();
    if at_least(rev, "2025-06-18") {
        complete_params.context = Some(CompletionContext {
            arguments: Some([("schema".to_owned(), "sales".to_owned())].into()),
        });
    }
    cases.push(("CompleteRequest", request::<Complete>(5, &complete_params)));
    let mut completion = CompleteResult::new(vec!["orders".into()]);
    completion.completion.total = Some(1);
    completion.completion.has_more = Some(false);
    cases.push(("CompleteResult", to_json(&complete(rev, completion))));

    let mut progress =
        ProgressNotificationParams::new(ProgressToken::from("tok-1"), 3.0, Some(8.0));
    if at_least(rev, "2025-03-26") {
        progress.message = Some("3 of 8".into());
    }
    cases.push(("ProgressNotification", notification::<Progress>(&progress)));
    let log = LoggingMessageNotificationParams {
        logger: Some("db".into()),
        ..LoggingMessageNotificationParams::new(
            LoggingLevel::Error,
            json!({"msg": "pool exhausted"}),
        )
    };
    cases.push((
        "LoggingMessageNotification",
        notification::<LoggingMessage>(&log),
    ));
    let cancel =
        CancelledNotificationParams::new(RequestId::from(2), Some("user pressed Esc".into()));
    cases.push(("CancelledNotification", notification::<Cancelled>(&cancel)));
    cases.push((
        "ToolListChangedNotification",
        notification::<ToolListChanged>(&NotificationParams::default()),
    ));
    let updated = ResourceUpdatedNotificationParams {
        meta: None,
        uri: "file:///srv/app.toml".into(),
    };
    cases.push((
        "ResourceUpdatedNotification",
        notification::<ResourceUpdated>(&updated),
    ));

    let sampling = CreateMessageRequestParams {
        model_preferences: Some(ModelPreferences {
            hints: Some(vec![ModelHint {
                name: Some("small".into()),
            }]),
            speed_priority: Some(0.9),
            ..Default::default()
        }),
        system_prompt: Some("Be brief".into()),
        include_context: Some(IncludeContext::None),
        temperature: Some(0.2),
        stop_sequences: Some(vec!["\n".into()]),
        ..CreateMessageRequestParams::new(
            vec![SamplingMessage::user_text("Sentiment of 'works great'?")],
            5,
        )
    };
    let sampled = CreateMessageResult::text("some-model", "positive");
    let roots = ListRootsResult::new(vec![Root::new("file:///home/dev/presa", "presa")]);
    if modern {
        let ask = InputRequest::create_message(sampling);
        cases.push(("CreateMessageRequest", to_json(&ask)));
        cases.push(("ListRootsRequest", to_json(&InputRequest::roots())));
    } else {
        cases.push((
            "CreateMessageRequest",
            request::<CreateMessage>(6, &sampling),
        ));
        cases.push((
            "ListRootsRequest",
            request::<ListRoots>(7, &RequestParams::default()),
        ));
    }
    cases.push(("CreateMessageResult", to_json(&sampled)));
    cases.push(("ListRootsResult", to_json(&roots)));

    let error = ErrorObject::new(ErrorCode::INVALID_PARAMS, "Unknown tool: nope");
    let error_def = if at_least(rev, "2025-11-25") {
        "JSONRPCErrorResponse"
    } else {
        "JSONRPCError"
    };
    cases.push((error_def, error_response(8, &error)));
    cases
}

/// Initialize-era only: the handshake, ping, logging/setLevel, resource subscriptions.
fn legacy_cases(rev: &str) -> Vec<(&'static str, Value)> {
    let mut client_info = Implementation::new("presa-cli", "0.3.1");
    let mut server_info = Implementation::new("tracker-mcp", "2.4.0");
    if at_least(rev, "2025-06-18") {
        client_info.title = Some("Presa CLI".into());
    }
    if at_least(rev, "2025-11-25") {
        server_info.website_url = Some("https://tracker.example.com".into());
        server_info.description = Some("Ticket tracker".into());
    }
    let init = InitializeRequestParams::new(rev, client_capabilities(rev), client_info);
    let init_result = InitializeResult {
        protocol_version: rev.into(),
        capabilities: server_capabilities(rev),
        server_info,
        instructions: Some("Search before opening tickets.".into()),
        meta: None,
    };
    let response_def = if at_least(rev, "2025-11-25") {
        "JSONRPCResultResponse"
    } else {
        "JSONRPCResponse"
    };
    vec![
        (response_def, response(0, &init_result)),
        ("InitializeRequest", request::<Initialize>(0, &init)),
        ("InitializeResult", to_json(&init_result)),
        (
            "InitializedNotification",
            json!({"jsonrpc": "2.0", "method": Initialized::METHOD}),
        ),
        (
            "PingRequest",
            json!({"jsonrpc": "2.0", "id": 9, "method": Ping::METHOD}),
        ),
        ("EmptyResult", to_json(&EmptyResult::default())),
        (
            "SetLevelRequest",
            request::<SetLevel>(
                10,
                &SetLevelRequestParams {
                    meta: None,
                    level: LoggingLevel::Notice,
                },
            ),
        ),
        (
            "SubscribeRequest",
            request::<Subscribe>(
                11,
                &SubscribeRequestParams {
                    meta: None,
                    uri: "file:///srv/app.toml".into(),
                },
            ),
        ),
        (
            "UnsubscribeRequest",
            request::<Unsubscribe>(
                12,
                &SubscribeRequestParams {
                    meta: None,
                    uri: "file:///srv/app.toml".into(),
                },
            ),
        ),
        (
            "RootsListChangedNotification",
            notification::<RootsListChanged>(&NotificationParams::default()),
        ),
    ]
}

fn form_schema(rev: &str) -> ElicitationSchema {
    let form = ElicitationSchema::new()
        .property(
            "name",
            StringSchema {
                min_length: Some(1),
                format: None,
                ..StringSchema::titled("Name")
            },
            true,
        )
        .property(
            "age",
            NumberSchema {
                kind: NumberType::Integer,
                minimum: Some(18.0),
                ..Default::default()
            },
            false,
        )
        .property("ok", BooleanSchema::default(), false)
        .property(
            "env",
            LegacyTitledEnumSchema {
                values: vec!["stg".into(), "prd".into()],
                enum_names: Some(vec!["Staging".into(), "Production".into()]),
                ..Default::default()
            },
            false,
        );
    if !at_least(rev, "2025-11-25") {
        return form;
    }
    let options = vec![
        EnumOption {
            value: "r".into(),
            title: "Red".into(),
        },
        EnumOption {
            value: "g".into(),
            title: "Green".into(),
        },
    ];
    form.property(
        "email",
        StringSchema {
            format: Some(StringFormat::Email),
            default: Some("a@example.com".into()),
            ..Default::default()
        },
        false,
    )
    .property(
        "size",
        UntitledSingleSelectEnumSchema {
            values: vec!["s".into(), "m".into()],
            default: Some("m".into()),
            ..Default::default()
        },
        false,
    )
    .property(
        "color",
        TitledSingleSelectEnumSchema {
            one_of: options.clone(),
            ..Default::default()
        },
        false,
    )
    .property(
        "tags",
        UntitledMultiSelectEnumSchema {
            items: UntitledEnumItems {
                values: vec!["a".into(), "b".into()],
                ..Default::default()
            },
            max_items: Some(2),
            ..Default::default()
        },
        false,
    )
    .property(
        "colors",
        TitledMultiSelectEnumSchema {
            items: TitledEnumItems { any_of: options },
            default: Some(vec!["r".into()]),
            ..Default::default()
        },
        false,
    )
}

/// Elicitation (since 2025-06-18).
fn elicitation_cases(rev: &str) -> Vec<(&'static str, Value)> {
    let mut form = ElicitRequestFormParams::new("Your details", form_schema(rev));
    if at_least(rev, "2025-11-25") {
        form.mode = Some(ModeForm);
    }
    let answer = ElicitResult::accept(obj(
        json!({"name": "Ada", "age": 36, "ok": true, "env": "prd"}),
    ));
    let mut cases = vec![
        ("ElicitResult", to_json(&answer)),
        ("ElicitResult", to_json(&ElicitResult::decline())),
    ];
    if rev == "2026-07-28" {
        cases.push(("ElicitRequest", to_json(&InputRequest::elicit(form))));
        let url = ElicitRequestUrlParams::new(
            "Connect billing",
            "https://billing.example.net/connect?s=8f2c",
        );
        cases.push(("ElicitRequest", to_json(&InputRequest::elicit(url))));
    } else {
        cases.push((
            "ElicitRequest",
            request::<Elicit>(20, &ElicitRequestParams::Form(form)),
        ));
    }
    if rev == "2025-11-25" {
        let url = ElicitRequestUrlParams {
            elicitation_id: Some("e-1".into()),
            ..ElicitRequestUrlParams::new("Authorize", "https://mcp.example.org/connect")
        };
        cases.push(("ElicitRequest", request::<Elicit>(21, &url.clone().into())));
        let done = ElicitationCompleteNotificationParams {
            meta: None,
            elicitation_id: "e-1".into(),
        };
        cases.push((
            "ElicitationCompleteNotification",
            notification::<ElicitationComplete>(&done),
        ));
        let data = UrlElicitationRequiredData {
            elicitations: vec![url],
        };
        cases.push((
            "URLElicitationRequiredError",
            error_response(22, &data.into_error("Authorization needed first")),
        ));
    }
    cases
}

/// 2025-11-25: experimental tasks and tool use in sampling.
fn cases_2025_11_25() -> Vec<(&'static str, Value)> {
    let task = Task {
        task_id: "tk-41".into(),
        status: TaskStatus::Working,
        status_message: None,
        created_at: "2025-12-01T08:00:00Z".into(),
        last_updated_at: "2025-12-01T08:00:00Z".into(),
        ttl: Some(3_600_000),
        poll_interval: Some(3000),
        meta: None,
    };
    let done = Task {
        status: TaskStatus::Completed,
        ttl: None,
        poll_interval: None,
        ..task.clone()
    };
    let call = CallToolRequestParams {
        task: Some(TaskMetadata {
            ttl: Some(3_600_000),
        }),
        ..CallToolRequestParams::new("export", obj(json!({"year": 2025})))
    };
    let tool_use = ToolUseContent {
        id: "tu_1".into(),
        name: "grep".into(),
        input: obj(json!({"pattern": "fn save"})),
        meta: None,
    };
    let tool_result = ToolResultContent {
        tool_use_id: "tu_1".into(),
        content: vec![ContentBlock::text("src/save.rs")],
        ..Default::default()
    };
    let sampling = CreateMessageRequestParams {
        messages: vec![
            SamplingMessage::user_text("Which file?"),
            SamplingMessage {
                role: Role::Assistant,
                content: vec![SamplingContent::from(tool_use.clone())].into(),
                meta: None,
            },
            SamplingMessage {
                role: Role::User,
                content: vec![SamplingContent::from(tool_result)].into(),
                meta: None,
            },
        ],
        tools: Some(vec![tool("2025-11-25")]),
        tool_choice: Some(ToolChoice {
            mode: Some(ToolChoiceMode::Auto),
        }),
        ..CreateMessageRequestParams::new(Vec::new(), 400)
    };
    let answer = CreateMessageResult {
        content: vec![SamplingContent::from(tool_use)].into(),
        stop_reason: Some(CreateMessageResult::TOOL_USE.into()),
        ..CreateMessageResult::text("some-model", "")
    };
    vec![
        ("CallToolRequest", request::<CallTool>(30, &call)),
        (
            "CreateTaskResult",
            to_json(&CreateTaskResult {
                task: task.clone(),
                meta: None,
            }),
        ),
        (
            "GetTaskRequest",
            request::<GetTask>(31, &TaskRequestParams::new("tk-41")),
        ),
        ("GetTaskResult", to_json(&task)),
        (
            "GetTaskPayloadRequest",
            request::<GetTaskPayload>(32, &TaskRequestParams::new("tk-41")),
        ),
        (
            "CancelTaskRequest",
            request::<CancelTask>(33, &TaskRequestParams::new("tk-41")),
        ),
        (
            "ListTasksRequest",
            request::<ListTasks>(34, &PaginatedRequestParams::default()),
        ),
        (
            "ListTasksResult",
            to_json(&ListTasksResult {
                tasks: vec![task, done.clone()],
                ..Default::default()
            }),
        ),
        (
            "TaskStatusNotification",
            notification::<TaskStatusChanged>(&done),
        ),
        (
            "CreateMessageRequest",
            request::<CreateMessage>(35, &sampling),
        ),
        ("CreateMessageResult", to_json(&answer)),
    ]
}

/// 2026-07-28: discover, MRTR, listen, caching, the new errors.
fn cases_2026_07_28() -> Vec<(&'static str, Value)> {
    let rev = "2026-07-28";
    let discover_params = RequestParams {
        meta: Some(request_meta(rev)),
    };
    let discover = complete(
        rev,
        DiscoverResult {
            supported_versions: vec!["2026-07-28".into(), "2025-11-25".into()],
            capabilities: server_capabilities(rev),
            instructions: Some("Use search before open.".into()),
            ttl_ms: Some(600_000),
            cache_scope: Some(CacheScope::Public),
            ..Default::default()
        },
    );
    let ask = InputRequiredResult::new()
        .request(
            "confirm",
            InputRequest::elicit(ElicitRequestFormParams::new(
                "Sure?",
                ElicitationSchema::new().property("sure", BooleanSchema::default(), true),
            )),
        )
        .request(
            "login",
            InputRequest::elicit(ElicitRequestUrlParams::new(
                "Log in",
                "https://example.com/login",
            )),
        )
        .request(
            "summary",
            InputRequest::create_message(CreateMessageRequestParams::new(
                vec![SamplingMessage::user_text("Summarize")],
                60,
            )),
        )
        .request("where", InputRequest::roots())
        .state("v1.hZ3k9Qm.sig");
    let mut retry = CallToolRequestParams::new("delete_branch", obj(json!({"branch": "old-ci"})));
    retry.meta = Some(request_meta(rev));
    retry.request_state = ask.request_state.clone();
    retry.input_responses = Some(
        [
            (
                "confirm".to_owned(),
                ElicitResult::accept(obj(json!({"sure": true}))).into(),
            ),
            ("login".to_owned(), ElicitResult::accept_url().into()),
            (
                "summary".to_owned(),
                CreateMessageResult::text("m", "Three experiments").into(),
            ),
            (
                "where".to_owned(),
                ListRootsResult::new(vec![Root::new("file:///w", "w")]).into(),
            ),
        ]
        .into(),
    );
    let listen_id = RequestId::from("sub-a");
    let filter = SubscriptionFilter {
        tools_list_changed: Some(true),
        resource_subscriptions: Some(vec!["file:///srv/app.toml".into()]),
        ..Default::default()
    };
    let listen = SubscriptionsListenRequestParams {
        meta: Some(request_meta(rev)),
        notifications: filter.clone(),
    };
    let ack = SubscriptionsAcknowledgedNotificationParams::new(&listen_id, filter);
    let changed = NotificationParams {
        meta: Some(subscription_meta(&RequestId::from(7))),
    };
    let updated = ResourceUpdatedNotificationParams {
        meta: Some(subscription_meta(&listen_id)),
        uri: "file:///srv/app.toml".into(),
    };
    let unsupported = UnsupportedProtocolVersionData {
        supported: vec!["2026-07-28".into()],
        requested: "2027-01-15".into(),
    }
    .into_error();
    let missing = MissingRequiredClientCapabilityData {
        required_capabilities: ClientCapabilities {
            elicitation: Some(ElicitationCapability {
                url: Some(JsonObject::new()),
                ..Default::default()
            }),
            ..Default::default()
        },
    }
    .into_error("This tool needs URL-mode elicitation");
    let not_found = ResourceNotFoundData {
        uri: "db://orders/nope".into(),
    }
    .into_error(presa_core::Era::Stateless);
    vec![
        ("DiscoverRequest", request::<Discover>(40, &discover_params)),
        ("DiscoverResult", to_json(&discover)),
        ("DiscoverResultResponse", response(40, &discover)),
        (
            "CallToolResultResponse",
            response(
                41,
                &MrtrResult::<CallToolResult>::InputRequired(ask.clone()),
            ),
        ),
        (
            "SubscriptionsListenResultResponse",
            json!({"jsonrpc": "2.0", "id": "sub-a", "result": to_json(&SubscriptionsListenResult::closed(&listen_id))}),
        ),
        ("InputRequiredResult", to_json(&ask)),
        (
            "InputRequiredResult",
            to_json(&InputRequiredResult::new().state("ckpt:4")),
        ),
        ("CallToolRequest", request::<CallTool>(41, &retry)),
        (
            "SubscriptionsListenRequest",
            json!({"jsonrpc": "2.0", "id": "sub-a", "method": SubscriptionsListen::METHOD, "params": to_json(&listen)}),
        ),
        (
            "SubscriptionsAcknowledgedNotification",
            notification::<SubscriptionsAcknowledged>(&ack),
        ),
        (
            "ResourceListChangedNotification",
            notification::<ResourceListChanged>(&changed),
        ),
        (
            "PromptListChangedNotification",
            notification::<PromptListChanged>(&changed),
        ),
        (
            "ResourceUpdatedNotification",
            notification::<ResourceUpdated>(&updated),
        ),
        (
            "SubscriptionsListenResult",
            to_json(&SubscriptionsListenResult::closed(&listen_id)),
        ),
        (
            "UnsupportedProtocolVersionError",
            error_response(42, &unsupported),
        ),
        (
            "MissingRequiredClientCapabilityError",
            error_response(43, &missing),
        ),
        ("JSONRPCErrorResponse", error_response(44, &not_found)),
    ]
}

fn cases_for(rev: &str) -> Vec<(&'static str, Value)> {
    let mut cases = common_cases(rev);
    if rev != "2026-07-28" {
        cases.extend(legacy_cases(rev));
    }
    if at_least(rev, "2025-06-18") {
        cases.extend(elicitation_cases(rev));
    }
    match rev {
        "2025-11-25" => cases.extend(cases_2025_11_25()),
        "2026-07-28" => cases.extend(cases_2026_07_28()),
        _ => {}
    }
    cases
}

#[test]
fn built_messages_validate_against_their_revision_schema() {
    let mut schemas = Schemas::default();
    let mut failures = Vec::new();
    let mut count = 0;
    for rev in [
        "2024-11-05",
        "2025-03-26",
        "2025-06-18",
        "2025-11-25",
        "2026-07-28",
    ] {
        for (name, message) in cases_for(rev) {
            count += 1;
            if let Err(e) = schemas.validate(rev, name, &message) {
                failures.push(format!("{rev}#{name}: {e}\n    {message}"));
            }
        }
    }
    assert!(count > 150, "ran {count} cases");
    assert!(
        failures.is_empty(),
        "{} of {count} built messages fail their schema:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The validator is not vacuous: shapes that are wrong for a revision are rejected.
#[test]
fn wrong_shapes_are_rejected() {
    let mut schemas = Schemas::default();
    // A legacy-shaped result lacks the members 2026-07-28 requires.
    let legacy = to_json(&ListToolsResult {
        tools: vec![tool("2024-11-05")],
        ..Default::default()
    });
    assert!(
        schemas
            .validate("2024-11-05", "ListToolsResult", &legacy)
            .is_ok()
    );
    assert!(
        schemas
            .validate("2026-07-28", "ListToolsResult", &legacy)
            .is_err()
    );
    // A 2026-07-28 request without the required `_meta`.
    let bare = request::<ListTools>(1, &PaginatedRequestParams::default());
    assert!(
        schemas
            .validate("2025-11-25", "ListToolsRequest", &bare)
            .is_ok()
    );
    assert!(
        schemas
            .validate("2026-07-28", "ListToolsRequest", &bare)
            .is_err()
    );
    // draft-07 revisions too: a result without its required `content`.
    let empty = json!({"isError": true});
    assert!(
        schemas
            .validate("2024-11-05", "CallToolResult", &empty)
            .is_err()
    );
    assert!(
        schemas
            .validate("2025-06-18", "CallToolResult", &json!({"content": []}))
            .is_ok()
    );
    // A URL elicitation without `elicitationId` is 2026-07-28 only.
    let url = to_json(&ElicitRequestUrlParams::new(
        "Log in",
        "https://example.com/login",
    ));
    assert!(
        schemas
            .validate("2026-07-28", "ElicitRequestURLParams", &url)
            .is_ok()
    );
    assert!(
        schemas
            .validate("2025-11-25", "ElicitRequestURLParams", &url)
            .is_err()
    );
}
