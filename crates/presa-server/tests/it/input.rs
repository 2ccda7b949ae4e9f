//! Asking the client for input: `input_required` rounds on 2026-07-28 (sealed state, several
//! rounds, capability checks, bad answers) and real server→client requests in the initialize era.

use presa_core::{
    ClientCapabilities, ClientContext, ElicitRequestParams, ErrorCode, Prompt, ProtocolVersion,
    Resource, Tool, Transmit,
};
use presa_server::*;
use serde_json::{Value, json};
use tokio::sync::mpsc;

fn ask_name(message: &str, field: &str) -> ElicitRequestParams {
    serde_json::from_value(json!({
        "mode": "form",
        "message": message,
        "requestedSchema": {"type": "object", "properties": {field: {"type": "string"}}, "required": [field]}
    }))
    .unwrap()
}

fn server() -> Server {
    Server::builder("input", "1")
        .request_state_key([7u8; 32])
        .tool(Tool::without_params("greet"), |_: Value, cx: Context| async move {
            let answer = cx.elicit_keyed("user_name", ask_name("What is your name?", "name")).await?;
            let name = answer.content.and_then(|c| c.get("name").and_then(Value::as_str).map(str::to_owned)).unwrap_or_default();
            Ok::<_, InputError>(format!("Hello, {name}!"))
        })
        .tool(Tool::without_params("two_steps"), |_: Value, cx: Context| async move {
            let first = cx.elicit_keyed("step1", ask_name("Step 1: What is your name?", "name")).await?;
            let second = cx.elicit_keyed("step2", ask_name("Step 2: What is your favorite color?", "color")).await?;
            Ok::<_, InputError>(format!("{} likes {}", first.content.unwrap()["name"], second.content.unwrap()["color"]))
        })
        .tool(Tool::without_params("ask_model"), |_: Value, cx: Context| async move {
            let params = serde_json::from_value(json!({
                "messages": [{"role": "user", "content": {"type": "text", "text": "Capital of France?"}}],
                "maxTokens": 100
            }))
            .unwrap();
            let (sampled, roots) = tokio::join!(cx.sample_keyed("capital", params), cx.roots_keyed("client_roots"));
            let text = sampled?.content.as_slice()[0].as_text().unwrap_or_default().to_owned();
            Ok::<_, InputError>(format!("{text} / {} roots", roots?.roots.len()))
        })
        .prompt(Prompt::new("contextual"), |_: PromptArgs, cx: Context| async move {
            let answer = cx.elicit_keyed("user_context", ask_name("What context?", "context")).await.map_err(|e| e.to_string())?;
            Ok::<_, String>(format!("Prompt with context: {}", answer.content.unwrap()["context"].as_str().unwrap()))
        })
        .resource(Resource::new("secret://answer", "secret"), |cx: Context| async move {
            let ok = cx.elicit_keyed("confirm", ask_name("Reveal?", "ok")).await.map_err(|e| e.to_string())?;
            Ok::<_, String>(format!("revealed after {}", ok.content.unwrap()["ok"]))
        })
        .build()
        .unwrap()
}

fn all_capabilities() -> ClientCapabilities {
    serde_json::from_value(json!({"elicitation": {}, "sampling": {}, "roots": {}})).unwrap()
}

fn cx(version: ProtocolVersion, capabilities: ClientCapabilities) -> Context {
    let client = ClientContext {
        protocol_version: version,
        capabilities,
        client_info: None,
    };
    Context::for_client(client)
}

async fn call(
    server: &Server,
    method: &str,
    params: Value,
    capabilities: ClientCapabilities,
) -> Result<Value, presa_core::ErrorObject> {
    let params = serde_json::value::to_raw_value(&params).unwrap();
    let cx = cx(ProtocolVersion::V2026_07_28, capabilities);
    server
        .handle(method, Some(&params), cx)
        .await
        .map(|raw| serde_json::from_str(raw.get()).unwrap())
}

fn accept(field: &str, value: Value) -> Value {
    json!({"action": "accept", "content": {field: value}})
}

#[tokio::test]
async fn a_tool_asks_then_completes_on_the_retry() {
    let s = server();
    let first = call(
        &s,
        "tools/call",
        json!({"name": "greet"}),
        all_capabilities(),
    )
    .await
    .unwrap();
    assert_eq!(first["resultType"], "input_required");
    assert_eq!(
        first["inputRequests"]["user_name"]["method"],
        "elicitation/create"
    );
    assert_eq!(
        first["inputRequests"]["user_name"]["params"]["message"],
        "What is your name?"
    );
    let state = first["requestState"].as_str().unwrap().to_owned();
    let retry = json!({"name": "greet", "inputResponses": {"user_name": accept("name", json!("Alice"))}, "requestState": state});
    let done = call(&s, "tools/call", retry, all_capabilities())
        .await
        .unwrap();
    assert_eq!(
        (
            done["resultType"].clone(),
            done["content"][0]["text"].clone()
        ),
        (json!("complete"), json!("Hello, Alice!"))
    );
}

#[tokio::test]
async fn answers_without_state_and_extra_keys_are_fine() {
    let s = server();
    let retry = json!({"name": "greet", "inputResponses": {
        "user_name": accept("name", json!("Bob")), "unknown_extra_key": {"x": 1}, "another": {"action": "decline"}}});
    let done = call(&s, "tools/call", retry, all_capabilities())
        .await
        .unwrap();
    assert_eq!(done["content"][0]["text"], "Hello, Bob!");
    let wrong_key =
        json!({"name": "greet", "inputResponses": {"wrong_key": accept("name", json!("Bob"))}});
    let again = call(&s, "tools/call", wrong_key, all_capabilities())
        .await
        .unwrap();
    assert_eq!(
        again["resultType"], "input_required",
        "a missing answer is asked for again"
    );
}

#[tokio::test]
async fn several_rounds_each_with_a_new_state() {
    let s = server();
    let r1 = call(
        &s,
        "tools/call",
        json!({"name": "two_steps"}),
        all_capabilities(),
    )
    .await
    .unwrap();
    let state1 = r1["requestState"].as_str().unwrap().to_owned();
    assert!(r1["inputRequests"].get("step1").is_some());
    let r2 = call(
        &s,
        "tools/call",
        json!({"name": "two_steps", "requestState": state1,
        "inputResponses": {"step1": accept("name", json!("Ada"))}}),
        all_capabilities(),
    )
    .await
    .unwrap();
    assert_eq!(r2["resultType"], "input_required");
    assert!(
        r2["inputRequests"].get("step2").is_some() && r2["inputRequests"].get("step1").is_none()
    );
    let state2 = r2["requestState"].as_str().unwrap().to_owned();
    assert_ne!(state1, state2);
    // the second state carries the first answer: only step2 is sent now
    let r3 = call(
        &s,
        "tools/call",
        json!({"name": "two_steps", "requestState": state2,
        "inputResponses": {"step2": accept("color", json!("green"))}}),
        all_capabilities(),
    )
    .await
    .unwrap();
    assert_eq!(r3["content"][0]["text"], "\"Ada\" likes \"green\"");
}

#[tokio::test]
async fn tampered_foreign_and_malformed_input_is_rejected() {
    let s = server();
    let r1 = call(
        &s,
        "tools/call",
        json!({"name": "greet"}),
        all_capabilities(),
    )
    .await
    .unwrap();
    let state = r1["requestState"].as_str().unwrap();
    let answer = json!({"user_name": accept("name", json!("Eve"))});
    let tampered = call(&s, "tools/call", json!({"name": "greet", "inputResponses": answer, "requestState": format!("{state}-TAMPERED")}), all_capabilities()).await;
    assert_eq!(tampered.unwrap_err().code, ErrorCode::INVALID_PARAMS);
    let foreign = call(
        &s,
        "tools/call",
        json!({"name": "two_steps", "inputResponses": answer, "requestState": state}),
        all_capabilities(),
    )
    .await;
    assert_eq!(
        foreign.unwrap_err().code,
        ErrorCode::INVALID_PARAMS,
        "state sealed for another tool"
    );
    let other_key = Server::builder("x", "1")
        .request_state_key([9u8; 32])
        .tool(
            Tool::without_params("greet"),
            |_: Value, _: Context| async { "hi" },
        )
        .build()
        .unwrap();
    let elsewhere = call(
        &other_key,
        "tools/call",
        json!({"name": "greet", "inputResponses": answer, "requestState": state}),
        all_capabilities(),
    )
    .await;
    assert_eq!(
        elsewhere.unwrap_err().code,
        ErrorCode::INVALID_PARAMS,
        "state sealed by another key"
    );
    let null = call(
        &s,
        "tools/call",
        json!({"name": "greet", "inputResponses": null}),
        all_capabilities(),
    )
    .await;
    assert_eq!(null.unwrap_err().code, ErrorCode::INVALID_PARAMS);
    let number = call(
        &s,
        "tools/call",
        json!({"name": "greet", "inputResponses": {"user_name": 12345}}),
        all_capabilities(),
    )
    .await;
    assert_eq!(number.unwrap_err().code, ErrorCode::INVALID_PARAMS);
    let off_schema = call(
        &s,
        "tools/call",
        json!({"name": "greet", "inputResponses": {"user_name": accept("name", json!(5))}}),
        all_capabilities(),
    )
    .await;
    assert_eq!(
        off_schema.unwrap_err().code,
        ErrorCode::INVALID_PARAMS,
        "the answer is checked against the asked schema"
    );
}

#[tokio::test]
async fn a_capability_the_request_did_not_declare_is_32021() {
    let s = server();
    let e = call(
        &s,
        "tools/call",
        json!({"name": "greet"}),
        ClientCapabilities::default(),
    )
    .await
    .unwrap_err();
    assert_eq!(e.code, ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY);
    assert_eq!(
        e.data.unwrap()["requiredCapabilities"],
        json!({"elicitation": {"form": {}}})
    );
    let sampling_only: ClientCapabilities =
        serde_json::from_value(json!({"sampling": {}})).unwrap();
    let e = call(
        &s,
        "tools/call",
        json!({"name": "ask_model"}),
        sampling_only,
    )
    .await
    .unwrap_err();
    assert_eq!(
        e.data.unwrap()["requiredCapabilities"],
        json!({"roots": {}})
    );
}

#[tokio::test]
async fn concurrent_asks_come_in_one_round() {
    let s = server();
    let r1 = call(
        &s,
        "tools/call",
        json!({"name": "ask_model"}),
        all_capabilities(),
    )
    .await
    .unwrap();
    let keys: Vec<_> = r1["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    assert_eq!(keys, ["capital", "client_roots"]);
    assert_eq!(r1["inputRequests"]["client_roots"]["method"], "roots/list");
    let retry = json!({"name": "ask_model", "requestState": r1["requestState"], "inputResponses": {
        "capital": {"role": "assistant", "content": {"type": "text", "text": "Paris"}, "model": "m", "stopReason": "endTurn"},
        "client_roots": {"roots": [{"uri": "file:///test/a", "name": "Test Root"}]}}});
    let done = call(&s, "tools/call", retry, all_capabilities())
        .await
        .unwrap();
    assert_eq!(done["content"][0]["text"], "Paris / 1 roots");
}

#[tokio::test]
async fn prompts_and_resources_can_ask_too() {
    let s = server();
    let r1 = call(
        &s,
        "prompts/get",
        json!({"name": "contextual"}),
        all_capabilities(),
    )
    .await
    .unwrap();
    assert_eq!(r1["resultType"], "input_required");
    let done = call(
        &s,
        "prompts/get",
        json!({"name": "contextual", "requestState": r1["requestState"],
        "inputResponses": {"user_context": accept("context", json!("test context"))}}),
        all_capabilities(),
    )
    .await
    .unwrap();
    assert_eq!(
        done["messages"][0]["content"]["text"],
        "Prompt with context: test context"
    );
    let r1 = call(
        &s,
        "resources/read",
        json!({"uri": "secret://answer"}),
        all_capabilities(),
    )
    .await
    .unwrap();
    assert_eq!(r1["resultType"], "input_required");
    assert!(
        r1.get("ttlMs").is_none(),
        "input_required results carry no cache hints"
    );
}

// ----- the initialize era: real requests to the client -----

#[tokio::test]
async fn in_the_initialize_era_the_same_handler_sends_a_request() {
    let (to_server, incoming) = mpsc::channel(16);
    let (outgoing, mut from_server) = mpsc::channel::<Transmit>(16);
    tokio::spawn(serve_connection(
        server(),
        ServerChannel {
            incoming: incoming.into(),
            outgoing,
        },
        ConnectionOptions::default(),
    ));
    let send = |v: Value| {
        let to_server = to_server.clone();
        async move {
            to_server
                .send(Incoming::Frame(v.to_string().into_bytes()))
                .await
                .unwrap()
        }
    };
    async fn next(rx: &mut mpsc::Receiver<Transmit>) -> Value {
        serde_json::from_str::<Value>(&rx.recv().await.unwrap().message.to_json()).unwrap()
    }
    send(json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25",
        "capabilities": {"elicitation": {}}, "clientInfo": {"name": "c", "version": "1"}}})).await;
    next(&mut from_server).await;
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
    send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "greet"}}))
        .await;
    let request = next(&mut from_server).await;
    assert_eq!(request["method"], "elicitation/create");
    assert_eq!(request["params"]["message"], "What is your name?");
    send(json!({"jsonrpc": "2.0", "id": request["id"], "result": accept("name", json!("Grace"))}))
        .await;
    let done = next(&mut from_server).await;
    assert_eq!(
        (
            done["id"].clone(),
            done["result"]["content"][0]["text"].clone()
        ),
        (json!(1), json!("Hello, Grace!"))
    );
    // sampling was not declared at initialize: the request fails with a capability error
    send(
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "ask_model"}}),
    )
    .await;
    let failed = next(&mut from_server).await;
    assert_eq!(failed["error"]["code"], -32602);
}

#[tokio::test]
async fn an_ask_from_work_the_handler_spawned_suspends_the_request_too() {
    // the handler waits on a task that asks; nothing the handler itself waits on is woken
    let server = Server::builder("spawned", "1")
        .request_state_key([7u8; 32])
        .tool(
            Tool::without_params("delegate"),
            |_: Value, cx: Context| async move {
                let asking = tokio::spawn(async move {
                    cx.elicit_keyed("user_name", ask_name("What is your name?", "name"))
                        .await
                        .map(|answer| answer.content.unwrap()["name"].clone())
                });
                let name = asking
                    .await
                    .map_err(|e| e.to_string())?
                    .map_err(|e| e.to_string())?;
                Ok::<_, String>(format!("Hello, {name}!"))
            },
        )
        .build()
        .unwrap();
    let asked = tokio::time::timeout(
        std::time::Duration::from_secs(60),
        call(
            &server,
            "tools/call",
            json!({"name": "delegate", "arguments": {}}),
            all_capabilities(),
        ),
    )
    .await
    .expect("the request is suspended, not left waiting")
    .unwrap();
    assert_eq!(asked["resultType"], "input_required", "{asked}");
    assert_eq!(
        asked["inputRequests"]["user_name"]["method"], "elicitation/create",
        "{asked}"
    );
}
