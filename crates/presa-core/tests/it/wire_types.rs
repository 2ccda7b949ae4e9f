//! The tricky corners of the wire types' serde, across revisions.

use std::collections::BTreeSet;

use presa_core::*;
use presa_test::message::meta_with;
use serde_json::{Value, json};

fn obj(v: Value) -> JsonObject {
    v.as_object().cloned().expect("an object")
}

#[test]
fn result_type_keeps_extension_values() {
    let rt: ResultType = serde_json::from_value(json!("task")).unwrap();
    assert_eq!(rt, ResultType::Other("task".into()));
    assert_eq!(serde_json::to_value(&rt).unwrap(), json!("task"));

    // A plain result struct keeps an unknown resultType as it is.
    let result: CallToolResult =
        serde_json::from_value(json!({"resultType": "task", "content": []})).unwrap();
    assert_eq!(result.result_type, Some(ResultType::Other("task".into())));

    // The MRTR-capable methods route it to `Other`, keeping the whole object.
    let task =
        json!({"resultType": "task", "taskId": "t-5c1e", "status": "working", "ttlMs": 86400000});
    let read: <CallTool as RequestMethod>::Result = serde_json::from_value(task.clone()).unwrap();
    let MrtrResult::Other(raw) = &read else {
        panic!("expected Other, got {read:?}")
    };
    assert_eq!(raw["taskId"], "t-5c1e");
    assert_eq!(serde_json::to_value(&read).unwrap(), task);
}

#[test]
fn missing_result_type_means_complete() {
    let legacy = r#"{"content":[{"type":"text","text":"ok"}],"isError":false}"#;
    let read = MrtrResult::<CallToolResult>::from_json(legacy).unwrap();
    let result = read.into_complete().unwrap();
    assert_eq!(result.result_type, None);
    assert!(!result.is_error());
    assert_eq!(
        serde_json::to_string(&result).unwrap(),
        legacy,
        "no resultType appears on the way out"
    );
}

#[test]
fn content_blocks_are_tagged_by_type() {
    let blocks = json!([
        {"type": "text", "text": "t", "annotations": {"audience": ["user"], "priority": 1}},
        {"type": "image", "data": "iVBO", "mimeType": "image/png"},
        {"type": "audio", "data": "UklG", "mimeType": "audio/wav"},
        {"type": "resource_link", "uri": "file:///a", "name": "a", "size": 3, "icons": [{"src": "https://x/i.png", "theme": "dark"}]},
        {"type": "resource", "resource": {"uri": "file:///b", "text": "b", "_meta": {"k": 1}}}
    ]);
    let parsed: Vec<ContentBlock> = serde_json::from_value(blocks.clone()).unwrap();
    let kinds: Vec<&str> = parsed.iter().map(ContentBlock::kind).collect();
    assert_eq!(
        kinds,
        ["text", "image", "audio", "resource_link", "resource"]
    );
    assert_eq!(serde_json::to_value(&parsed).unwrap(), blocks);

    // tool_use/tool_result are sampling-only; resource blocks are not allowed in sampling.
    let tool_use = json!({"type": "tool_use", "id": "1", "name": "grep", "input": {"q": "x"}});
    assert!(serde_json::from_value::<ContentBlock>(tool_use.clone()).is_err());
    assert!(matches!(
        serde_json::from_value::<SamplingContent>(tool_use).unwrap(),
        SamplingContent::ToolUse(_)
    ));
    let link = json!({"type": "resource_link", "uri": "file:///a", "name": "a"});
    assert!(serde_json::from_value::<SamplingContent>(link).is_err());

    // Constructors produce the wire shape.
    assert_eq!(
        serde_json::to_value(ContentBlock::embedded(ResourceContents::blob(
            "file:///x",
            b"hi",
            None
        )))
        .unwrap(),
        json!({"type": "resource", "resource": {"uri": "file:///x", "blob": "aGk="}})
    );
}

#[test]
fn logging_levels_are_ordered() {
    use LoggingLevel::*;
    let ordered = [
        Debug, Info, Notice, Warning, Error, Critical, Alert, Emergency,
    ];
    assert!(ordered.windows(2).all(|w| w[0] < w[1]));
    let wire: Vec<Value> = ordered
        .iter()
        .map(|l| serde_json::to_value(l).unwrap())
        .collect();
    assert_eq!(
        wire,
        [
            "debug",
            "info",
            "notice",
            "warning",
            "error",
            "critical",
            "alert",
            "emergency"
        ]
        .map(Value::from)
    );
    let threshold: LoggingLevel = serde_json::from_value(json!("warning")).unwrap();
    assert_eq!(ordered.iter().filter(|l| **l >= threshold).count(), 5);
}

#[test]
fn progress_token_one_is_not_string_one() {
    let a: ProgressNotificationParams =
        serde_json::from_value(json!({"progressToken": 1, "progress": 1})).unwrap();
    let b: ProgressNotificationParams =
        serde_json::from_value(json!({"progressToken": "1", "progress": 1})).unwrap();
    assert_ne!(a.progress_token, b.progress_token);
    assert_eq!(serde_json::to_value(&a).unwrap()["progressToken"], json!(1));
    assert_eq!(
        serde_json::to_value(&b).unwrap()["progressToken"],
        json!("1")
    );

    let params: CallToolRequestParams =
        serde_json::from_value(json!({"name": "t", "_meta": {"progressToken": "1"}})).unwrap();
    assert_eq!(
        params.meta.as_ref().unwrap().progress_token(),
        Some(ProgressToken::String("1".into()))
    );
    assert!(serde_json::from_value::<ProgressToken>(json!(1.5)).is_err());
}

#[test]
fn open_capability_objects_keep_unknown_members() {
    let init = json!({
        "protocolVersion": "2025-11-25",
        "capabilities": {
            "roots": {"listChanged": true, "vendorFlag": 1},
            "sampling": {"tools": {}, "future": {"x": [1]}},
            "elicitation": {},
            "experimental": {"com.example/beta": {"on": true}},
            "someFutureCapability": {"a": "b"}
        },
        "clientInfo": {"name": "c", "version": "1"}
    });
    let params: InitializeRequestParams = serde_json::from_value(init.clone()).unwrap();
    assert_eq!(
        params.capabilities.other["someFutureCapability"],
        json!({"a": "b"})
    );
    assert_eq!(
        params.capabilities.roots.as_ref().unwrap().other["vendorFlag"],
        1
    );
    assert!(params.capabilities.supports_elicitation_form());
    assert_eq!(serde_json::to_value(&params).unwrap(), init);

    // 2026-07-28: the capabilities travel in `_meta`, read with the same type.
    let meta = obj(meta_with(
        json!({"roots": {"listChanged": true}, "extensions": {"io.modelcontextprotocol/tasks": {}}}),
    ));
    let caps: ClientCapabilities = meta.get_as(META_CLIENT_CAPABILITIES).unwrap().unwrap();
    assert!(caps.has_extension("io.modelcontextprotocol/tasks"));
    assert_eq!(caps.roots.unwrap().list_changed, Some(true));
}

#[test]
fn a_2024_11_05_result_carries_no_2026_members() {
    let tool = Tool::new(
        "echo",
        obj(json!({"type": "object", "properties": {"text": {"type": "string"}}})),
    )
    .description("Echo the text");
    let list = ListToolsResult {
        tools: vec![tool.clone()],
        ..Default::default()
    };
    assert_eq!(
        serde_json::to_value(&list).unwrap(),
        json!({"tools": [{"name": "echo", "description": "Echo the text",
                          "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}}]})
    );
    let init = InitializeResult {
        protocol_version: "2024-11-05".into(),
        capabilities: ServerCapabilities {
            tools: Some(ListChangedCapability::default()),
            ..Default::default()
        },
        server_info: Implementation::new("srv", "0.9.0"),
        ..Default::default()
    };
    assert_eq!(
        serde_json::to_value(&init).unwrap(),
        json!({"protocolVersion": "2024-11-05", "capabilities": {"tools": {}}, "serverInfo": {"name": "srv", "version": "0.9.0"}})
    );
    assert_eq!(
        serde_json::to_value(EmptyResult::default()).unwrap(),
        json!({})
    );

    // The same structs with the 2026-07-28 members set.
    let mut list = list;
    list.result_type = Some(ResultType::Complete);
    list.ttl_ms = Some(300_000);
    list.cache_scope = Some(CacheScope::Public);
    list.meta_or_default()
        .insert_as(META_SERVER_INFO, &Implementation::new("srv", "1.0"))
        .unwrap();
    let modern = serde_json::to_value(&list).unwrap();
    assert_eq!(modern["resultType"], "complete");
    assert_eq!(modern["ttlMs"], 300_000);
    assert_eq!(modern["cacheScope"], "public");
    assert_eq!(modern["_meta"][META_SERVER_INFO]["version"], "1.0");
}

#[test]
fn results_are_read_leniently_and_params_strictly() {
    // Unknown members (a pre-final top-level `serverInfo`) are ignored.
    let discover: DiscoverResult = serde_json::from_value(json!({
        "resultType": "complete", "supportedVersions": ["2026-07-28"], "capabilities": {},
        "ttlMs": -5, "cacheScope": "public", "serverInfo": {"name": "old", "version": "0"}
    }))
    .unwrap();
    assert_eq!(discover.ttl_ms, Some(0), "a negative ttlMs reads as 0");

    // Members the schema requires are required.
    assert!(serde_json::from_value::<Tool>(json!({"name": "t"})).is_err());
    assert!(serde_json::from_value::<CallToolRequestParams>(json!({"arguments": {}})).is_err());
    assert!(
        serde_json::from_value::<DiscoverResult>(
            json!({"resultType": "complete", "capabilities": {}})
        )
        .is_err()
    );
    assert!(serde_json::from_value::<CallToolResult>(json!({"resultType": "complete"})).is_err());
}

#[test]
fn structured_content_may_be_any_value_including_null() {
    for value in [
        json!(null),
        json!([1, 2]),
        json!("s"),
        json!(3),
        json!({"a": 1}),
    ] {
        let wire = json!({"content": [], "structuredContent": value});
        let result: CallToolResult = serde_json::from_value(wire.clone()).unwrap();
        assert_eq!(result.structured_content.as_ref(), Some(&value));
        assert_eq!(serde_json::to_value(&result).unwrap(), wire);
    }
}

#[test]
fn mrtr_round_trip_of_a_tool_call() {
    let ask = InputRequiredResult::new()
        .request(
            "confirm",
            InputRequest::elicit(ElicitRequestFormParams::new(
                "Delete it?",
                ElicitationSchema::new().property("sure", BooleanSchema::default(), true),
            )),
        )
        .request("where", InputRequest::roots())
        .state("v1.sig");
    let sent: <CallTool as RequestMethod>::Result = MrtrResult::InputRequired(ask);
    let wire = serde_json::to_string(&sent).unwrap();
    let read = MrtrResult::<CallToolResult>::from_json(&wire).unwrap();
    assert_eq!(read, sent);

    let mut retry = CallToolRequestParams::new("delete", obj(json!({"id": 7})));
    retry.request_state = Some("v1.sig".into());
    retry.input_responses = Some(
        [
            (
                "confirm".to_owned(),
                ElicitResult::accept(obj(json!({"sure": true}))).into(),
            ),
            (
                "where".to_owned(),
                ListRootsResult::new(vec![Root::new("file:///w", "w")]).into(),
            ),
        ]
        .into(),
    );
    let wire = serde_json::to_value(&retry).unwrap();
    assert_eq!(
        wire["inputResponses"]["where"]["roots"][0]["uri"],
        "file:///w"
    );
    assert_eq!(
        serde_json::from_value::<CallToolRequestParams>(wire).unwrap(),
        retry
    );
}

/// Every method name a revision's schema defines (`method.const`), against the presa lists.
#[test]
fn method_lists_match_the_schemas() {
    let spec = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/spec/schema");
    for rev in [
        "2024-11-05",
        "2025-03-26",
        "2025-06-18",
        "2025-11-25",
        "2026-07-28",
    ] {
        let text = std::fs::read_to_string(format!("{spec}/{rev}/schema.json")).unwrap();
        let schema: Value = serde_json::from_str(&text).unwrap();
        let defs = schema
            .get("$defs")
            .or_else(|| schema.get("definitions"))
            .unwrap()
            .as_object()
            .unwrap();
        let in_schema: BTreeSet<&str> = defs
            .values()
            .filter_map(|d| {
                d.pointer("/properties/method/const")
                    .and_then(Value::as_str)
            })
            .collect();
        let ours: BTreeSet<&str> = [
            request_methods_in(rev).unwrap(),
            notification_methods_in(rev).unwrap(),
            embedded_methods_in(rev).unwrap(),
        ]
        .concat()
        .into_iter()
        .collect();
        assert_eq!(ours, in_schema, "{rev}");
    }
    assert_eq!(request_methods_in("2027-01-01"), None);
}
