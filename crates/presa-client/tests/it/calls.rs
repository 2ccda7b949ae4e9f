//! Typed calls in both eras: pagination, tools, resources, prompts, completion, raw requests.

use presa_client::{Client, ClientError, ResultText, StructuredContent};
use presa_core::{
    CompletionReference, ErrorCode, ListTools, META_PROTOCOL_VERSION, PaginatedRequestParams,
    ProtocolVersion,
};
use presa_test::fake::Fake;
use serde_json::json;

use crate::{legacy, methods, modern};

async fn both_eras() -> [(Client, Fake); 2] {
    [modern().await, legacy().await]
}

#[tokio::test(start_paused = true)]
async fn listing_follows_every_cursor_including_the_empty_one() {
    for (client, mut fake) in both_eras().await {
        fake.drain();
        let tools = client.list_tools().await.unwrap();
        let names: Vec<_> = tools.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["alpha", "beta", "gamma"]);
        let sent = fake.drain();
        assert_eq!(methods(&sent), ["tools/list"; 3]);
        assert!(sent[0]["params"].get("cursor").is_none());
        assert_eq!(sent[1]["params"]["cursor"], "");
        assert_eq!(sent[2]["params"]["cursor"], "p2");
    }
}

#[tokio::test(start_paused = true)]
async fn one_page_at_a_time() {
    let (client, _fake) = modern().await;
    let first = client.list_tools_page(None).await.unwrap();
    assert_eq!(first.next_cursor.as_deref(), Some(""));
    let second = client.list_tools_page(first.next_cursor).await.unwrap();
    assert_eq!(second.tools[0].name, "beta");
    let error = client
        .list_tools_page(Some("bogus".into()))
        .await
        .unwrap_err();
    assert_eq!(error.code(), Some(ErrorCode::INVALID_PARAMS));
}

#[tokio::test(start_paused = true)]
async fn tools_are_called_with_their_arguments() {
    #[derive(serde::Deserialize)]
    struct Sum {
        sum: f64,
    }
    for (client, mut fake) in both_eras().await {
        let echo = client
            .call_tool("echo", json!({"text": "hello"}))
            .await
            .unwrap();
        assert_eq!(echo.text(), "hello");
        let sent = fake.request("tools/call").await;
        assert_eq!(sent["params"]["name"], "echo");
        assert_eq!(sent["params"]["arguments"], json!({"text": "hello"}));

        let add = client
            .call_tool("add", json!({"numbers": [1, 2, 3]}))
            .await
            .unwrap();
        assert_eq!(add.structured::<Sum>().unwrap().sum, 6.0);

        let boom = client.call_tool("boom", ()).await.unwrap();
        assert!(boom.is_error());
        assert_eq!(boom.text(), "it broke");
        fake.drain();
        client.call_tool("boom", ()).await.unwrap();
        let sent = fake.request("tools/call").await;
        assert!(
            sent["params"].get("arguments").is_none(),
            "() sends no arguments"
        );
    }
}

#[tokio::test(start_paused = true)]
async fn server_errors_carry_code_message_and_data() {
    let (client, _fake) = modern().await;
    let error = client.call_tool("nope", json!({})).await.unwrap_err();
    assert_eq!(error.code(), Some(ErrorCode::INVALID_PARAMS));
    assert_eq!(error.server_message(), Some("Unknown tool: nope"));
    assert_eq!(error.to_string(), "server error -32602: Unknown tool: nope");
    assert!(matches!(error, ClientError::Server(_)));

    let missing = client.read_resource("file:///nope").await.unwrap_err();
    assert!(missing.is_resource_not_found());
    assert_eq!(missing.data(), Some(&json!({"uri": "file:///nope"})));

    let (client, _fake) = legacy().await;
    let missing = client.read_resource("file:///nope").await.unwrap_err();
    assert_eq!(missing.code(), Some(ErrorCode::RESOURCE_NOT_FOUND));
    assert!(missing.is_resource_not_found());
}

#[tokio::test(start_paused = true)]
async fn arguments_that_are_not_objects_are_refused_before_sending() {
    let (client, mut fake) = modern().await;
    fake.drain();
    let error = client.call_tool("echo", json!([1, 2])).await.unwrap_err();
    assert!(matches!(error, ClientError::InvalidParams(_)), "{error:?}");
    let error = client
        .get_prompt("introduce", json!({"id": 7}))
        .await
        .unwrap_err();
    assert!(matches!(error, ClientError::InvalidParams(_)), "{error:?}");
    client
        .call_tool("echo", json!({"text": "x"}))
        .await
        .unwrap();
    assert_eq!(
        methods(&fake.drain()),
        ["tools/call"],
        "only the valid call went out"
    );
}

#[tokio::test(start_paused = true)]
async fn resources_prompts_and_completions() {
    for (client, _fake) in both_eras().await {
        let read = client.read_resource("file:///readme.txt").await.unwrap();
        assert_eq!(read.text(), "Read me first.");
        let resources = client.list_resources().await.unwrap();
        assert_eq!(resources[0].uri, "file:///readme.txt");
        let templates = client.list_resource_templates().await.unwrap();
        assert_eq!(templates[0].uri_template, "people://{id}");
        let prompts = client.list_prompts().await.unwrap();
        assert_eq!(prompts[0].name, "introduce");

        let prompt = client
            .get_prompt("introduce", json!({"id": "alan"}))
            .await
            .unwrap();
        assert_eq!(prompt.text(), "Introduce alan in one sentence.");
        let missing = client.get_prompt("introduce", ()).await.unwrap_err();
        assert_eq!(missing.code(), Some(ErrorCode::INVALID_PARAMS));

        let done = client
            .complete(CompletionReference::prompt("introduce"), "id", "a")
            .await
            .unwrap();
        assert_eq!(done.completion.values, ["ada", "alan"]);
        let done = client
            .complete_with_context(
                CompletionReference::resource("db://{schema}/{table}"),
                "table",
                "",
                [("schema", "sales")],
            )
            .await
            .unwrap();
        assert_eq!(done.completion.values, ["sales"]);
    }
}

#[tokio::test(start_paused = true)]
async fn generic_and_raw_requests() {
    let (client, _fake) = modern().await;
    let page = client
        .request::<ListTools>(&PaginatedRequestParams::with_cursor("p2"))
        .await
        .unwrap();
    assert_eq!(page.tools[0].name, "gamma");
    let raw = client
        .request_raw("tools/list", json!({"cursor": "p2"}))
        .await
        .unwrap();
    assert_eq!(raw["tools"][0]["name"], "gamma");
    let error = client
        .request_raw("nope/nope", serde_json::Value::Null)
        .await
        .unwrap_err();
    assert_eq!(error.code(), Some(ErrorCode::METHOD_NOT_FOUND));
    let error = client
        .request_raw("tools/list", json!(1))
        .await
        .unwrap_err();
    assert!(matches!(error, ClientError::InvalidParams(_)));
}

#[tokio::test(start_paused = true)]
async fn calls_carry_the_era_s_context() {
    let (client, mut fake) = modern().await;
    fake.drain();
    client.list_tools_page(None).await.unwrap();
    let sent = fake.request("tools/list").await;
    assert_eq!(
        sent["params"]["_meta"][META_PROTOCOL_VERSION],
        ProtocolVersion::V2026_07_28.as_str()
    );
    let (client, mut fake) = legacy().await;
    fake.drain();
    client.list_tools_page(None).await.unwrap();
    let sent = fake.request("tools/list").await;
    assert!(sent["params"].get("_meta").is_none(), "{sent}");
}

#[tokio::test(start_paused = true)]
async fn clones_call_concurrently() {
    let (client, _fake) = modern().await;
    let calls: Vec<_> = (0..20)
        .map(|i| {
            let client = client.clone();
            tokio::spawn(async move {
                client
                    .call_tool("echo", json!({"text": format!("n{i}")}))
                    .await
            })
        })
        .collect();
    for (i, call) in calls.into_iter().enumerate() {
        assert_eq!(call.await.unwrap().unwrap().text(), format!("n{i}"));
    }
}
