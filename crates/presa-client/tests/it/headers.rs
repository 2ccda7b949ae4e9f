//! What the client hands its transport with each message: the revision, and on 2026-07-28 the
//! SEP-2243 mirror headers, `Mcp-Param-*` from the annotations `list_tools` learnt.

use presa_client::{Client, ClientError, ClientOptions};
use presa_core::ProtocolVersion;
use presa_test::fake::{Fake, FakeConfig};
use serde_json::json;

use crate::connect_with;

async fn annotated(config: FakeConfig) -> (Client, Fake) {
    let config = FakeConfig {
        annotated_tools: true,
        ..config
    };
    connect_with(config, ClientOptions::default()).await
}

#[tokio::test(start_paused = true)]
async fn a_2026_request_carries_its_revision_and_mirror_headers() {
    let (client, fake) = annotated(FakeConfig::default()).await;
    client
        .call_tool("echo", json!({"text": "hi"}))
        .await
        .unwrap();
    let sent = fake.last_sent("tools/call").unwrap();
    assert_eq!(sent.protocol_version, Some(ProtocolVersion::V2026_07_28));
    assert_eq!(sent.header("MCP-Protocol-Version"), Some("2026-07-28"));
    assert_eq!(sent.header("Mcp-Method"), Some("tools/call"));
    assert_eq!(sent.header("Mcp-Name"), Some("echo"));
}

#[tokio::test(start_paused = true)]
async fn tool_arguments_are_mirrored_once_list_tools_has_seen_their_annotations() {
    let (client, fake) = annotated(FakeConfig::default()).await;
    let arguments = json!({"region": "us-west1", "tenant": "Zürich"});
    client.call_tool("routed", &arguments).await.unwrap();
    let before = fake.last_sent("tools/call").unwrap();
    assert_eq!(before.header("Mcp-Param-Region"), None, "not listed yet");

    let tools = client.list_tools().await.unwrap();
    let names: Vec<_> = tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(
        names,
        ["alpha", "beta", "gamma", "routed"],
        "a tool with an invalid annotation is left out"
    );
    client.call_tool("routed", &arguments).await.unwrap();
    let after = fake.last_sent("tools/call").unwrap();
    assert_eq!(after.header("Mcp-Param-Region"), Some("us-west1"));
    assert_eq!(
        after.header("Mcp-Param-Tenant"),
        Some("=?base64?WsO8cmljaA==?=")
    );
}

#[tokio::test(start_paused = true)]
async fn an_argument_no_header_can_carry_fails_the_call_before_it_is_sent() {
    let (client, mut fake) = annotated(FakeConfig::default()).await;
    client.list_tools().await.unwrap();
    fake.drain();
    let error = client
        .call_tool("routed", json!({"region": {"nested": true}}))
        .await
        .unwrap_err();
    assert!(error.to_string().contains("Mcp-Param-Region"), "{error}");
    assert!(!matches!(error, ClientError::Transport(_)), "{error:?}");
    assert!(fake.drain().is_empty(), "nothing went out");
}

#[tokio::test(start_paused = true)]
async fn initialize_era_messages_carry_the_session_revision_and_no_headers() {
    let (client, fake) = annotated(FakeConfig::legacy()).await;
    let tools = client.list_tools().await.unwrap();
    assert_eq!(
        tools.len(),
        5,
        "x-mcp-header means nothing before 2026-07-28"
    );
    client
        .call_tool("routed", json!({"region": {"nested": true}}))
        .await
        .unwrap();
    let sent = fake.last_sent("tools/call").unwrap();
    assert_eq!(sent.protocol_version, Some(ProtocolVersion::V2025_11_25));
    assert!(sent.headers.is_empty());
    let initialize = fake.last_sent("initialize").unwrap();
    assert_eq!(
        initialize.protocol_version, None,
        "the handshake names no revision yet"
    );
}

#[tokio::test(start_paused = true)]
async fn a_raw_tools_list_teaches_the_annotations_too() {
    let (client, fake) = annotated(FakeConfig::default()).await;
    let page = client
        .request_raw("tools/list", json!({"cursor": "p2"}))
        .await
        .unwrap();
    let names: Vec<_> = page["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["gamma", "routed"], "the broken tool is left out");
    client
        .call_tool("routed", json!({"region": "eu"}))
        .await
        .unwrap();
    let sent = fake.last_sent("tools/call").unwrap();
    assert_eq!(sent.header("Mcp-Param-Region"), Some("eu"));
}
