//! The dispatcher, called directly: definitions, results, validation, errors, pagination and
//! changes while serving, under both eras.

use std::sync::Arc;

use presa_core::{
    ClientCapabilities, ClientContext, ContentBlock, ErrorCode, JsonObject, Prompt,
    ProtocolVersion, Resource, ResourceTemplate, Role, Tool,
};
use presa_server::*;
use serde_json::{Value, json};

fn object(value: Value) -> JsonObject {
    value.as_object().unwrap().clone()
}

fn cx(version: ProtocolVersion) -> Context {
    let client = ClientContext {
        protocol_version: version,
        capabilities: ClientCapabilities::default(),
        client_info: None,
    };
    Context::for_client(client)
}

async fn call(
    server: &Server,
    version: ProtocolVersion,
    method: &str,
    params: Value,
) -> Result<Value, presa_core::ErrorObject> {
    let params = serde_json::value::to_raw_value(&params).unwrap();
    server
        .handle(method, Some(&params), cx(version))
        .await
        .map(|raw| serde_json::from_str(raw.get()).unwrap())
}

const MODERN: ProtocolVersion = ProtocolVersion::V2026_07_28;
const LEGACY: ProtocolVersion = ProtocolVersion::V2025_11_25;

fn add_schema() -> JsonObject {
    object(json!({
        "type": "object",
        "properties": {"numbers": {"type": "array", "items": {"type": "number"}}},
        "required": ["numbers"]
    }))
}

fn server() -> Server {
    Server::builder("test", "1.0.0")
        .tool(
            Tool::new("add", add_schema()).output_schema(object(json!({
                "type": "object", "properties": {"sum": {"type": "number"}}, "required": ["sum"]
            }))),
            |args: Value, _cx: Context| async move {
                let sum: f64 = args["numbers"].as_array().unwrap().iter().filter_map(Value::as_f64).sum();
                json!({ "sum": sum })
            },
        )
        .tool_sync(Tool::without_params("text"), |_: Value, _| "plain")
        .tool_sync(Tool::without_params("blocks"), |_: Value, _| {
            Content(vec![content::text("Here is the logo:"), content::image(b"\x89PNG", "image/png")])
        })
        .tool_sync(Tool::without_params("nothing"), |_: Value, _| ())
        .tool_sync(Tool::without_params("failing"), |_: Value, _| Err::<String, _>(std::io::Error::other("upstream down")))
        .tool_sync(Tool::without_params("tool_error"), |_: Value, _| ToolError::new("try again later"))
        .tool_sync(Tool::without_params("protocol_error"), |_: Value, _| {
            Err::<String, _>(ProtocolError::new(ErrorCode(-31999), "custom").with_data(json!({"why": 1})))
        })
        .tool(Tool::without_params("panics"), |_: Value, _| async move {
            if true {
                panic!("kaboom");
            }
            "unreachable"
        })
        .tool_sync(Tool::without_params("lies"), |_: Value, _| json!({"sum": "not a number"}))
        .tool_sync(Tool::without_params("full"), |_: Value, _| presa_core::CallToolResult::text("as is"))
        .resource(Resource::new("file:///readme.txt", "readme").mime_type("text/plain"), |_| async { "Read me first." })
        .resource(Resource::new("file:///blob", "blob"), |_| async { vec![1u8, 2, 3] })
        .resource_template(ResourceTemplate::new("people://{id}", "person"), |vars: Variables, _| async move {
            match vars["id"].as_str() {
                "ada" => Some("Ada Lovelace"),
                _ => None,
            }
        })
        .resource_template(ResourceTemplate::new("file:///{+path}", "files"), |vars: Variables, _| async move {
            Some(format!("file at {}", vars["path"]))
        })
        .prompt(Prompt::new("introduce").arg("id", true).arg("style", false), |args: PromptArgs, _| async move {
            format!("Introduce {} in one sentence.", args["id"])
        })
        .prompt(Prompt::new("dialog"), |_, _| async { vec![Message::from("hi"), Message::from((Role::Assistant, "hello"))] })
        .complete_prompt_argument("introduce", "id", |input: CompletionInput, _| async move {
            ["ada", "alan", "grace"].into_iter().filter(|p| p.starts_with(&input.value)).collect::<Vec<_>>()
        })
        .complete_template_variable("people://{id}", "id", |_: CompletionInput, _| async { (0..250).map(|i| format!("p{i}")).collect::<Vec<_>>() })
        .build()
        .unwrap()
}

#[tokio::test]
async fn tool_results_in_each_shape() {
    let s = server();
    let r = call(
        &s,
        MODERN,
        "tools/call",
        json!({"name": "add", "arguments": {"numbers": [1, 2, 3]}}),
    )
    .await
    .unwrap();
    assert_eq!(r["structuredContent"], json!({"sum": 6.0}));
    assert_eq!(
        r["content"],
        json!([{"type": "text", "text": "{\"sum\":6.0}"}])
    );
    assert_eq!(r["resultType"], "complete");
    assert_eq!(
        r["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "test"
    );

    let r = call(&s, MODERN, "tools/call", json!({"name": "text"}))
        .await
        .unwrap();
    assert_eq!(r["content"], json!([{"type": "text", "text": "plain"}]));
    let r = call(&s, MODERN, "tools/call", json!({"name": "blocks"}))
        .await
        .unwrap();
    assert_eq!(
        r["content"][1],
        json!({"type": "image", "data": "iVBORw==", "mimeType": "image/png"})
    );
    let r = call(&s, MODERN, "tools/call", json!({"name": "nothing"}))
        .await
        .unwrap();
    assert_eq!(r["content"], json!([]));
    let r = call(&s, MODERN, "tools/call", json!({"name": "full"}))
        .await
        .unwrap();
    assert_eq!(r["content"][0]["text"], "as is");
}

#[tokio::test]
async fn failures_are_tool_errors_and_the_server_lives_on() {
    let s = server();
    for (tool, message) in [
        ("failing", "upstream down"),
        ("tool_error", "try again later"),
        ("panics", "handler panicked: kaboom"),
    ] {
        let r = call(&s, MODERN, "tools/call", json!({"name": tool}))
            .await
            .unwrap();
        assert_eq!(r["isError"], true, "{tool}");
        assert_eq!(r["content"][0]["text"], message, "{tool}");
    }
    let e = call(&s, MODERN, "tools/call", json!({"name": "protocol_error"}))
        .await
        .unwrap_err();
    assert_eq!(
        (e.code.code(), e.message.as_str(), e.data),
        (-31999, "custom", Some(json!({"why": 1})))
    );
    // still serving after the panic
    assert!(
        call(&s, MODERN, "tools/call", json!({"name": "text"}))
            .await
            .is_ok()
    );
}

#[tokio::test]
async fn arguments_and_structured_results_are_validated() {
    let s = server();
    let r = call(
        &s,
        MODERN,
        "tools/call",
        json!({"name": "add", "arguments": {"numbers": ["one"]}}),
    )
    .await
    .unwrap();
    assert_eq!(r["isError"], true);
    assert_eq!(
        r["content"][0]["text"],
        "Invalid arguments at /numbers/0: expected number, got string"
    );
    let r = call(
        &s,
        MODERN,
        "tools/call",
        json!({"name": "add", "arguments": {}}),
    )
    .await
    .unwrap();
    assert_eq!(
        r["content"][0]["text"],
        "Invalid arguments at /: missing required property \"numbers\""
    );
    let lying = Server::builder("t", "1")
        .tool_sync(
            Tool::without_params("lies").output_schema(object(
                json!({"type": "object", "properties": {"sum": {"type": "number"}}}),
            )),
            |_: Value, _| json!({"sum": "x"}),
        )
        .build()
        .unwrap();
    let r = call(&lying, MODERN, "tools/call", json!({"name": "lies"}))
        .await
        .unwrap();
    assert_eq!(r["isError"], true);
    assert_eq!(
        r["content"][0]["text"],
        "Invalid structured result at /sum: expected number, got string"
    );
}

#[tokio::test]
async fn validation_can_be_turned_off() {
    let s = Server::builder("t", "1")
        .validate(false)
        .tool(
            Tool::new("add", add_schema()),
            |args: Value, _| async move { args },
        )
        .build()
        .unwrap();
    let r = call(
        &s,
        MODERN,
        "tools/call",
        json!({"name": "add", "arguments": {"numbers": "nope"}}),
    )
    .await
    .unwrap();
    assert_eq!(r["structuredContent"], json!({"numbers": "nope"}));
}

#[tokio::test]
async fn a_replacement_validator_is_used() {
    let s = Server::builder("t", "1")
        .schema_compiler(|_schema| {
            presa_schema::compile(&json!({"type": "object", "maxProperties": 0}))
        })
        .tool(
            Tool::new("x", object(json!({"type": "object"}))),
            |_: Value, _| async { "ran" },
        )
        .build()
        .unwrap();
    let r = call(
        &s,
        MODERN,
        "tools/call",
        json!({"name": "x", "arguments": {"a": 1}}),
    )
    .await
    .unwrap();
    assert_eq!(r["isError"], true);
}

#[tokio::test]
async fn protocol_errors_for_unknown_things() {
    let s = server();
    let e = call(&s, MODERN, "tools/call", json!({"name": "nope"}))
        .await
        .unwrap_err();
    assert_eq!(
        (e.code, e.message.as_str()),
        (ErrorCode::INVALID_PARAMS, "Unknown tool: nope")
    );
    let e = call(&s, MODERN, "tools/call", json!({"arguments": {}}))
        .await
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::INVALID_PARAMS);
    let e = call(&s, MODERN, "nope/nope", json!({})).await.unwrap_err();
    assert_eq!(e.code, ErrorCode::METHOD_NOT_FOUND);
    // params are an object: an array is not read as the fields in order (it would be
    // `{"name": "add", ...}` to serde, unseen by the routing headers)
    for version in [MODERN, LEGACY] {
        let e = call(&s, version, "tools/call", json!(["add", {"a": 1, "b": 2}]))
            .await
            .unwrap_err();
        assert_eq!(
            (e.code, e.message.as_str()),
            (
                ErrorCode::INVALID_PARAMS,
                "Invalid params: params must be an object"
            )
        );
    }
    let empty = Server::builder("t", "1").build().unwrap();
    for method in [
        "tools/list",
        "prompts/list",
        "resources/list",
        "completion/complete",
    ] {
        let e = call(&empty, MODERN, method, json!({})).await.unwrap_err();
        assert_eq!(e.code, ErrorCode::METHOD_NOT_FOUND, "{method}");
    }
}

#[tokio::test]
async fn resources_fixed_first_then_templates_in_order() {
    let s = server();
    let r = call(
        &s,
        MODERN,
        "resources/read",
        json!({"uri": "file:///readme.txt"}),
    )
    .await
    .unwrap();
    assert_eq!(
        r["contents"],
        json!([{"uri": "file:///readme.txt", "mimeType": "text/plain", "text": "Read me first."}])
    );
    assert_eq!(
        (r["ttlMs"].clone(), r["cacheScope"].clone()),
        (json!(0), json!("private"))
    );
    let r = call(&s, MODERN, "resources/read", json!({"uri": "file:///blob"}))
        .await
        .unwrap();
    assert_eq!(r["contents"][0]["blob"], "AQID");
    let r = call(&s, MODERN, "resources/read", json!({"uri": "people://ada"}))
        .await
        .unwrap();
    assert_eq!(r["contents"][0]["text"], "Ada Lovelace");
    let r = call(
        &s,
        MODERN,
        "resources/read",
        json!({"uri": "file:///docs/guide.md"}),
    )
    .await
    .unwrap();
    assert_eq!(r["contents"][0]["text"], "file at docs/guide.md");
}

#[tokio::test]
async fn a_missing_resource_is_not_found_with_the_code_of_its_era() {
    let s = server();
    let e = call(
        &s,
        MODERN,
        "resources/read",
        json!({"uri": "people://nobody"}),
    )
    .await
    .unwrap_err();
    assert_eq!(
        (e.code.code(), e.message.as_str()),
        (-32602, "Resource not found")
    );
    assert_eq!(e.data, Some(json!({"uri": "people://nobody"})));
    let e = call(&s, LEGACY, "resources/read", json!({"uri": "nowhere://x"}))
        .await
        .unwrap_err();
    assert_eq!(e.code.code(), -32002);
}

#[tokio::test]
async fn prompts_check_required_arguments_first() {
    let s = server();
    let r = call(
        &s,
        MODERN,
        "prompts/get",
        json!({"name": "introduce", "arguments": {"id": "alan"}}),
    )
    .await
    .unwrap();
    assert_eq!(
        r["messages"],
        json!([{"role": "user", "content": {"type": "text", "text": "Introduce alan in one sentence."}}])
    );
    let e = call(
        &s,
        MODERN,
        "prompts/get",
        json!({"name": "introduce", "arguments": {"style": "x"}}),
    )
    .await
    .unwrap_err();
    assert_eq!(
        (e.code, e.message.as_str()),
        (
            ErrorCode::INVALID_PARAMS,
            "Missing required argument for prompt introduce: id"
        )
    );
    let r = call(&s, MODERN, "prompts/get", json!({"name": "dialog"}))
        .await
        .unwrap();
    assert_eq!(r["messages"][1]["role"], "assistant");
    let e = call(&s, MODERN, "prompts/get", json!({"name": "nope"}))
        .await
        .unwrap_err();
    assert_eq!(e.message, "Unknown prompt: nope");
}

#[tokio::test]
async fn completions_for_prompts_and_templates() {
    let s = server();
    let r = call(&s, MODERN, "completion/complete", json!({"ref": {"type": "ref/prompt", "name": "introduce"}, "argument": {"name": "id", "value": "a"}})).await.unwrap();
    assert_eq!(r["completion"]["values"], json!(["ada", "alan"]));
    let r = call(&s, MODERN, "completion/complete", json!({"ref": {"type": "ref/resource", "uri": "people://{id}"}, "argument": {"name": "id", "value": ""}})).await.unwrap();
    assert_eq!(r["completion"]["values"].as_array().unwrap().len(), 100);
    assert_eq!(
        (
            r["completion"]["total"].clone(),
            r["completion"]["hasMore"].clone()
        ),
        (json!(250), json!(true))
    );
    let r = call(&s, MODERN, "completion/complete", json!({"ref": {"type": "ref/prompt", "name": "introduce"}, "argument": {"name": "style", "value": ""}})).await.unwrap();
    assert_eq!(r["completion"]["values"], json!([]));
    let e = call(&s, MODERN, "completion/complete", json!({"ref": {"type": "ref/prompt", "name": "nope"}, "argument": {"name": "id", "value": ""}})).await.unwrap_err();
    assert_eq!(e.code, ErrorCode::INVALID_PARAMS);
}

#[tokio::test]
async fn completions_are_added_while_serving_and_go_with_their_definition() {
    let s = Server::builder("later", "1").build().unwrap();
    let complete = |input: CompletionInput, _cx: Context| async move {
        ["red", "rose"]
            .into_iter()
            .filter(|v| v.starts_with(&input.value))
            .collect::<Vec<_>>()
    };
    s.add_prompt(
        Prompt::new("paint").argument(PromptArgument::new("color")),
        |_: PromptArgs, _cx: Context| async { "paint" },
    )
    .unwrap();
    s.add_resource_template(
        ResourceTemplate::new("paint://{color}", "paint"),
        |_: Variables, _cx: Context| async { "paint" },
    )
    .unwrap();
    let mut changes = s.changes();
    s.add_prompt_completion("paint", "color", complete).unwrap();
    s.add_template_completion("paint://{color}", "color", complete)
        .unwrap();
    // a completion changes no list
    assert!(changes.try_recv().is_none());
    assert!(s.capabilities().completions.is_some());
    for reference in [
        json!({"type": "ref/prompt", "name": "paint"}),
        json!({"type": "ref/resource", "uri": "paint://{color}"}),
    ] {
        let params = json!({"ref": reference, "argument": {"name": "color", "value": "ro"}});
        let r = call(&s, MODERN, "completion/complete", params)
            .await
            .unwrap();
        assert_eq!(r["completion"]["values"], json!(["rose"]), "{reference}");
    }
    // only what the definitions have
    let refused = s
        .add_prompt_completion("paint", "size", complete)
        .unwrap_err();
    assert!(
        matches!(refused, BuildError::UnknownCompletionTarget { .. }),
        "{refused}"
    );
    // removed with the prompt
    s.remove_prompt("paint");
    let params = json!({"ref": {"type": "ref/prompt", "name": "paint"}, "argument": {"name": "color", "value": ""}});
    assert!(
        call(&s, MODERN, "completion/complete", params)
            .await
            .is_err()
    );
}

#[tokio::test]
async fn capabilities_follow_the_definitions() {
    let s = server();
    assert_eq!(
        serde_json::to_value(s.capabilities()).unwrap(),
        json!({"tools": {}, "resources": {}, "prompts": {}, "completions": {}})
    );
    let s = Server::builder("t", "1")
        .list_changed(true)
        .subscribe(true)
        .logging(true)
        .resource(Resource::new("a://b", "b"), |_| async { "b" })
        .build()
        .unwrap();
    assert_eq!(
        serde_json::to_value(s.capabilities()).unwrap(),
        // lists that change are declared even while empty: clients list what is added later
        json!({
            "resources": {"subscribe": true, "listChanged": true},
            "tools": {"listChanged": true},
            "prompts": {"listChanged": true},
            "logging": {}
        })
    );
}

#[tokio::test]
async fn lists_page_and_stale_cursors_are_rejected() {
    let s = Server::builder("t", "1").page_size(2).build().unwrap();
    for i in 0..5 {
        s.add_tool(Tool::without_params(format!("t{i}")), |_: Value, _| async {
            ""
        })
        .unwrap();
    }
    let mut names = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let params = match &cursor {
            Some(c) => json!({"cursor": c}),
            None => json!({}),
        };
        let r = call(&s, MODERN, "tools/list", params).await.unwrap();
        names.extend(
            r["tools"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t["name"].as_str().unwrap().to_owned()),
        );
        match r.get("nextCursor") {
            Some(c) => cursor = Some(c.as_str().unwrap().to_owned()),
            None => break,
        }
    }
    assert_eq!(names, ["t0", "t1", "t2", "t3", "t4"], "deterministic order");
    let first = call(&s, MODERN, "tools/list", json!({})).await.unwrap();
    let stale = first["nextCursor"].as_str().unwrap().to_owned();
    s.remove_tool("t4");
    let e = call(&s, MODERN, "tools/list", json!({"cursor": stale}))
        .await
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::INVALID_PARAMS);
    let e = call(&s, MODERN, "tools/list", json!({"cursor": "garbage!"}))
        .await
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::INVALID_PARAMS);
}

#[tokio::test]
async fn initialize_era_results_carry_no_2026_fields() {
    let s = server();
    for (method, params) in [
        ("tools/list", json!({})),
        ("tools/call", json!({"name": "text"})),
        ("resources/list", json!({})),
        ("resources/templates/list", json!({})),
        ("resources/read", json!({"uri": "file:///readme.txt"})),
        ("prompts/list", json!({})),
        ("prompts/get", json!({"name": "dialog"})),
    ] {
        let r = call(&s, LEGACY, method, params).await.unwrap();
        for field in ["resultType", "ttlMs", "cacheScope", "_meta"] {
            assert!(r.get(field).is_none(), "{method} has {field}: {r}");
        }
        let r = call(
            &s,
            MODERN,
            method,
            json!({"name": "text", "uri": "file:///readme.txt"}),
        )
        .await;
        if let Ok(r) = r {
            assert_eq!(r["resultType"], "complete", "{method}");
        }
    }
    let e = call(&s, LEGACY, "server/discover", json!({}))
        .await
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::METHOD_NOT_FOUND);
}

#[tokio::test]
async fn cache_hints_come_from_the_option() {
    let s = Server::builder("t", "1")
        .cache(60_000, presa_core::CacheScope::Public)
        .tool_sync(Tool::without_params("x"), |_: Value, _| "")
        .build()
        .unwrap();
    let r = call(&s, MODERN, "tools/list", json!({})).await.unwrap();
    assert_eq!(
        (r["ttlMs"].clone(), r["cacheScope"].clone()),
        (json!(60_000), json!("public"))
    );
    let d = call(&s, MODERN, "server/discover", json!({}))
        .await
        .unwrap();
    assert_eq!(d["ttlMs"], 60_000);
}

#[tokio::test]
async fn definitions_change_while_serving() {
    let s = server();
    let mut changes = s.changes();
    s.add_tool(Tool::without_params("late"), |_: Value, _| async { "late" })
        .unwrap();
    assert_eq!(
        changes.recv().await.unwrap().unwrap(),
        Change::ListChanged(ListKind::Tools)
    );
    assert_eq!(
        call(&s, MODERN, "tools/call", json!({"name": "late"}))
            .await
            .unwrap()["content"][0]["text"],
        "late"
    );
    assert!(s.remove_tool("late"));
    assert_eq!(
        changes.recv().await.unwrap().unwrap(),
        Change::ListChanged(ListKind::Tools)
    );
    assert!(
        !s.remove_tool("late"),
        "nothing to remove, no change announced"
    );
    assert_eq!(
        call(&s, MODERN, "tools/call", json!({"name": "late"}))
            .await
            .unwrap_err()
            .code,
        ErrorCode::INVALID_PARAMS
    );
    s.add_resource(Resource::new("mem://x", "x"), |_| async { "x" })
        .unwrap();
    assert_eq!(
        changes.recv().await.unwrap().unwrap(),
        Change::ListChanged(ListKind::Resources)
    );
    assert!(s.remove_resource("mem://x"));
    s.add_resource_template(
        ResourceTemplate::new("t://{a}", "t"),
        |v: Variables, _| async move { Some(v["a"].clone()) },
    )
    .unwrap();
    assert_eq!(
        call(&s, MODERN, "resources/read", json!({"uri": "t://q"}))
            .await
            .unwrap()["contents"][0]["text"],
        "q"
    );
    assert!(s.remove_resource_template("t://{a}"));
    s.add_prompt(Prompt::new("p"), |_, _| async { "p" })
        .unwrap();
    assert!(s.remove_prompt("p"));
    assert!(matches!(
        s.add_tool(Tool::without_params("add"), |_: Value, _| async { "" }),
        Err(BuildError::Duplicate { .. })
    ));
}

#[test]
fn bad_definitions_fail_at_build() {
    let bad_name = Server::builder("t", "1")
        .tool_sync(Tool::without_params("has space"), |_: Value, _| "")
        .build();
    assert!(matches!(bad_name, Err(BuildError::InvalidToolName { .. })));
    let not_object = Server::builder("t", "1")
        .tool_sync(
            Tool::new("x", object(json!({"type": "array"}))),
            |_: Value, _| "",
        )
        .build();
    assert!(matches!(
        not_object,
        Err(BuildError::InputSchemaNotObject { .. })
    ));
    let bad_schema = Server::builder("t", "1")
        .tool_sync(
            Tool::new(
                "x",
                object(json!({"type": "object", "properties": {"a": {"minLength": -1}}})),
            ),
            |_: Value, _| "",
        )
        .build();
    assert!(
        matches!(
            bad_schema,
            Err(BuildError::Schema {
                which: SchemaRole::Input,
                ..
            })
        ),
        "{bad_schema:?}"
    );
    let bad_template = Server::builder("t", "1")
        .resource_template(
            ResourceTemplate::new("x://{", "x"),
            |_: Variables, _| async { None::<String> },
        )
        .build();
    assert!(matches!(bad_template, Err(BuildError::UriTemplate { .. })));
    let bad_header = Server::builder("t", "1")
        .tool_sync(Tool::new("x", object(json!({"type": "object", "properties": {"a": {"type": "object", "x-mcp-header": "A"}}}))), |_: Value, _| "")
        .build();
    assert!(matches!(
        bad_header,
        Err(BuildError::HeaderAnnotation { .. })
    ));
    let unknown_completion = Server::builder("t", "1")
        .complete_prompt_argument("nope", "x", |_: CompletionInput, _| async {
            Vec::<String>::new()
        })
        .build();
    assert!(matches!(
        unknown_completion,
        Err(BuildError::UnknownCompletionTarget { .. })
    ));
    let duplicate = Server::builder("t", "1")
        .prompt(Prompt::new("p"), |_, _| async { "" })
        .prompt(Prompt::new("p"), |_, _| async { "" })
        .build();
    assert!(matches!(
        duplicate,
        Err(BuildError::Duplicate {
            kind: DefinitionKind::Prompt,
            ..
        })
    ));
}

#[tokio::test]
async fn a_struct_can_be_a_tool() {
    #[derive(Debug)]
    struct Greeter {
        greeting: String,
    }
    impl ToolHandler for Greeter {
        fn call(&self, arguments: JsonObject, _cx: Context) -> BoxFuture<'static, ToolOutcome> {
            let text = format!(
                "{}, {}",
                self.greeting,
                arguments
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or("you")
            );
            Box::pin(async move {
                Ok(presa_core::CallToolResult::new(vec![ContentBlock::text(
                    text,
                )]))
            })
        }
    }
    let s = Server::builder("t", "1")
        .tool_handler(
            Tool::new("greet", object(json!({"type": "object"}))),
            Arc::new(Greeter {
                greeting: "Hej".into(),
            }),
        )
        .build()
        .unwrap();
    let r = call(
        &s,
        MODERN,
        "tools/call",
        json!({"name": "greet", "arguments": {"name": "Ada"}}),
    )
    .await
    .unwrap();
    assert_eq!(r["content"][0]["text"], "Hej, Ada");
}

#[tokio::test]
async fn sessions_share_one_configuration_until_the_definitions_change() {
    let s = Server::builder("shared", "1").build().unwrap();
    let first = s.shared_session_config();
    assert!(
        Arc::ptr_eq(&first, &s.shared_session_config()),
        "one configuration for every session while nothing changes"
    );
    assert!(first.discover_result().capabilities.tools.is_none());
    s.add_tool(Tool::without_params("late"), |_: Value, _| async { "late" })
        .unwrap();
    let after = s.shared_session_config();
    assert!(!Arc::ptr_eq(&first, &after), "a new one after a change");
    assert!(
        after.discover_result().capabilities.tools.is_some(),
        "announcing the tools capability"
    );
}

#[tokio::test]
async fn a_tool_call_with_a_meta_that_is_not_an_object_is_invalid_params() {
    let s = Server::builder("meta", "1")
        .tool_sync(Tool::without_params("quick"), |_: Value, _| "quick")
        .build()
        .unwrap();
    let error = call(
        &s,
        ProtocolVersion::V2025_06_18,
        "tools/call",
        json!({"name": "quick", "_meta": 5}),
    )
    .await
    .unwrap_err();
    assert_eq!(error.code, ErrorCode::INVALID_PARAMS);
    let ok = call(
        &s,
        ProtocolVersion::V2025_06_18,
        "tools/call",
        json!({"name": "quick", "_meta": {"progressToken": "p", "x": [1, {"y": null}]}}),
    )
    .await
    .unwrap();
    assert_eq!(ok["content"][0]["text"], "quick");
}

#[tokio::test]
async fn a_2026_result_carries_the_server_info_once_beside_its_own_members() {
    let s = Server::builder("stamp", "1.2.3")
        .tool_sync(Tool::without_params("quick"), |_: Value, _| "quick")
        .build()
        .unwrap();
    let params =
        serde_json::value::to_raw_value(&json!({"name": "quick", "arguments": {}})).unwrap();
    let raw = s
        .handle(
            "tools/call",
            Some(&params),
            cx(ProtocolVersion::V2026_07_28),
        )
        .await
        .unwrap();
    let text = raw.get();
    assert_eq!(text.matches("\"_meta\"").count(), 1, "{text}");
    let result: Value = serde_json::from_str(text).unwrap();
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/serverInfo"]["version"],
        "1.2.3"
    );
    assert_eq!(result["resultType"], "complete");
    assert_eq!(result["content"][0]["text"], "quick");
    // the initialize era has neither
    let raw = s
        .handle(
            "tools/call",
            Some(&params),
            cx(ProtocolVersion::V2025_06_18),
        )
        .await
        .unwrap();
    assert!(!raw.get().contains("_meta"), "{}", raw.get());
}

#[tokio::test]
async fn discover_called_directly_answers_on_2026_and_is_unknown_before() {
    // a connection's session answers server/discover itself; Server::handle answers it too
    let discovered = call(&server(), MODERN, "server/discover", json!({}))
        .await
        .unwrap();
    assert_eq!(discovered["supportedVersions"][0], "2026-07-28");
    assert!(
        discovered["capabilities"]["tools"].is_object(),
        "{discovered}"
    );
    let before = call(&server(), LEGACY, "server/discover", json!({})).await;
    assert_eq!(before.unwrap_err().code, ErrorCode::METHOD_NOT_FOUND);
}
