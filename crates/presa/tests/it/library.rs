//! Every example of presa's design document for the `library` server, replayed with presa's
//! client over each transport — in-process, stdio (the example as a real process) and Streamable
//! HTTP on 127.0.0.1 — under 2026-07-28 and under 2025-11-25.

#[path = "../../examples/library/definitions.rs"]
#[allow(dead_code)]
mod definitions;

use std::path::PathBuf;

use presa::client::{Client, ClientError, ClientOptions, ResultText};
use presa::core::{CompletionReference, Implementation, ProtocolVersion, Tool};
use presa::server::{Context, Server};
use serde_json::{Value, json};

const MODERN: ProtocolVersion = ProtocolVersion::V2026_07_28;
const LEGACY: ProtocolVersion = ProtocolVersion::V2025_11_25;

fn options(version: ProtocolVersion) -> ClientOptions {
    ClientOptions::new(Implementation::new("library-test", "1.0.0")).protocol_version(Some(version))
}

/// The path of a built example of this package (cargo builds examples for `cargo test`).
fn example(name: &str) -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let debug = exe.parent().and_then(|deps| deps.parent()).unwrap();
    debug.join("examples").join(name)
}

/// The examples the document shows, asserted as it shows them.
async fn replay(client: &Client, version: ProtocolVersion) {
    assert_eq!(client.protocol_version(), version);

    let result = client
        .call_tool("add", json!({"numbers": [1, 2, 3]}))
        .await
        .unwrap();
    assert_eq!(
        result
            .structured_content
            .as_ref()
            .and_then(|s| s["sum"].as_f64()),
        Some(6.0)
    );

    let result = client
        .call_tool("add", json!({"numbers": ["one"]}))
        .await
        .unwrap();
    assert!(result.is_error());
    assert_eq!(
        result.text(),
        "Invalid arguments at /numbers/0: expected number, got string"
    );

    let result = client.call_tool("logo", json!({})).await.unwrap();
    assert_eq!(result.content[0].as_text(), Some("Here is the logo:"));
    let image = serde_json::to_value(&result.content[1]).unwrap();
    assert_eq!(
        (image["type"].as_str(), image["mimeType"].as_str()),
        (Some("image"), Some("image/png"))
    );
    assert_eq!(image["data"], definitions::LOGO_PNG);

    let readme = client.read_resource("file:///readme.txt").await.unwrap();
    assert_eq!(readme.text(), "Read me first.");

    let ada = client.read_resource("people://ada").await.unwrap();
    let ada = serde_json::to_value(&ada.contents[0]).unwrap();
    assert_eq!(ada["text"], "Ada Lovelace");

    let missing = client.read_resource("people://nobody").await.unwrap_err();
    let ClientError::Server(error) = &missing else {
        panic!("{missing:?}")
    };
    assert_eq!(error.message, "Resource not found");
    assert!(missing.is_resource_not_found());
    let expected_code = if version == MODERN { -32602 } else { -32002 };
    assert_eq!(error.code.code(), expected_code);
    assert_eq!(error.data, Some(json!({"uri": "people://nobody"})));

    let prompt = client
        .get_prompt("introduce", json!({"id": "alan"}))
        .await
        .unwrap();
    assert_eq!(
        prompt.messages[0].content.as_text(),
        Some("Introduce Alan Turing in one sentence.")
    );

    let completion = client
        .complete(CompletionReference::prompt("introduce"), "id", "a")
        .await
        .unwrap();
    assert_eq!(completion.completion.values, ["ada", "alan"]);
    let completion = client
        .complete(CompletionReference::resource("people://{id}"), "id", "al")
        .await
        .unwrap();
    assert_eq!(completion.completion.values, ["alan"]);

    let capabilities = serde_json::to_value(&client.info().capabilities).unwrap();
    assert_eq!(
        capabilities,
        json!({"tools": {}, "resources": {}, "prompts": {}, "completions": {}})
    );
    assert_eq!(
        client.info().server_info.as_ref().map(|i| i.name.as_str()),
        Some("library")
    );

    let names: Vec<String> = client
        .list_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name)
        .collect();
    assert_eq!(names, ["add", "logo"]);
}

/// The document's "changing a running server" and page-size examples: only possible where the
/// server runs in this process.
async fn replay_changes(server: &Server, client: &Client) {
    server
        .add_tool(
            Tool::without_params("late").description("Added while serving"),
            |_: Value, _: Context| async { "late" },
        )
        .unwrap();
    let names: Vec<String> = client
        .list_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name)
        .collect();
    assert_eq!(names, ["add", "logo", "late"]);
    assert_eq!(
        client.call_tool("late", json!({})).await.unwrap().text(),
        "late"
    );
    assert!(server.remove_tool("late"));

    // list results of more than 10 items come in pages
    for i in 0..11 {
        server
            .add_tool(
                Tool::without_params(format!("extra_{i:02}")),
                |_: Value, _: Context| async { "" },
            )
            .unwrap();
    }
    let first = client.list_tools_page(None).await.unwrap();
    assert_eq!(first.tools.len(), 10);
    assert!(first.next_cursor.is_some());
    assert_eq!(
        client.list_tools().await.unwrap().len(),
        13,
        "every page, followed"
    );
    for i in 0..11 {
        server.remove_tool(&format!("extra_{i:02}"));
    }
}

async fn in_process(version: ProtocolVersion) {
    let server = definitions::library().unwrap();
    let client = Client::connect(presa::in_process(server.clone()), options(version))
        .await
        .unwrap();
    replay(&client, version).await;
    replay_changes(&server, &client).await;
    client.close().await;
}

#[tokio::test]
async fn in_process_2026_07_28() {
    in_process(MODERN).await;
}

#[tokio::test]
async fn in_process_2025_11_25() {
    in_process(LEGACY).await;
}

async fn over_http(version: ProtocolVersion) {
    let server = definitions::library().unwrap();
    let running = presa::http::serve(server.clone(), presa::http::HttpOptions::default())
        .await
        .unwrap();
    let channel =
        presa::http::client(running.url(), presa::http::HttpClientOptions::default()).unwrap();
    let client = Client::connect(channel, options(version)).await.unwrap();
    replay(&client, version).await;
    replay_changes(&server, &client).await;
    client.close().await;
    running.stop().await.unwrap();
}

#[tokio::test]
async fn http_2026_07_28() {
    over_http(MODERN).await;
}

#[tokio::test]
async fn http_2025_11_25() {
    over_http(LEGACY).await;
}

async fn over_stdio(version: ProtocolVersion) {
    let channel = presa::stdio::command(
        [example("library")],
        presa::stdio::CommandOptions::default(),
    )
    .unwrap();
    let client = Client::connect(channel, options(version)).await.unwrap();
    replay(&client, version).await;
    client.close().await;
}

#[tokio::test]
async fn stdio_2026_07_28() {
    over_stdio(MODERN).await;
}

#[tokio::test]
async fn stdio_2025_11_25() {
    over_stdio(LEGACY).await;
}

#[tokio::test]
async fn a_client_without_a_pinned_revision_discovers_2026_07_28() {
    let server = definitions::library().unwrap();
    let client = Client::connect(presa::in_process(server), ClientOptions::default())
        .await
        .unwrap();
    assert_eq!(client.protocol_version(), MODERN);
}

/// Every `description` member, wherever it is, left out.
fn without_descriptions(value: &mut Value) {
    match value {
        Value::Object(object) => {
            object.remove("description");
            object.values_mut().for_each(without_descriptions);
        }
        Value::Array(items) => items.iter_mut().for_each(without_descriptions),
        _ => {}
    }
}

/// The library's tools are derived from Rust types now; their `tools/list` entries are those of
/// the hand-written schemas they replaced (below, as the example had them), descriptions aside.
#[tokio::test]
async fn derived_tools_list_as_the_hand_written_one_did() {
    let hand_written = json!([
        {
            "name": "add",
            "description": "Add numbers.",
            "inputSchema": {
                "type": "object",
                "properties": {"numbers": {"type": "array", "items": {"type": "number"}}},
                "required": ["numbers"]
            },
            "outputSchema": {
                "type": "object",
                "properties": {"sum": {"type": "number"}},
                "required": ["sum"]
            }
        },
        {
            "name": "logo",
            "description": "A one-pixel PNG.",
            "inputSchema": {"type": "object", "additionalProperties": false}
        }
    ]);
    let server = definitions::library().unwrap();
    for version in [MODERN, LEGACY] {
        let cx = Context::for_client(presa::core::ClientContext {
            protocol_version: version,
            capabilities: Default::default(),
            client_info: None,
        });
        let result = server.handle("tools/list", None, cx).await.unwrap();
        let result: Value = serde_json::from_str(result.get()).unwrap();
        let mut tools = result["tools"].clone();
        assert_eq!(tools[0]["description"], "Add numbers.");
        assert_eq!(
            tools[0]["inputSchema"]["properties"]["numbers"]["description"],
            "The numbers to add."
        );
        without_descriptions(&mut tools);
        let mut expected = hand_written.clone();
        without_descriptions(&mut expected);
        assert_eq!(tools, expected, "{version}");
    }
}
