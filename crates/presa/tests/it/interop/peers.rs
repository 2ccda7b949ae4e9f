//! What presa's client must get from the independent servers, the same for every transport.

use std::process::Command;

use presa::client::{Client, ResultText, StructuredContent};
use presa::core::{CompletionReference, ProtocolVersion};
use serde_json::{Value, json};

use super::{node, python};

/// Drives @modelcontextprotocol/server-everything, the reference server of the TypeScript SDK
/// v1, which speaks only the initialize era: `client` must have fallen back to `initialize`.
pub(crate) async fn server_everything(client: &Client) {
    let info = client.info();
    assert_eq!(info.protocol_version, ProtocolVersion::V2025_11_25);
    assert_eq!(info.name(), Some("mcp-servers/everything"));
    assert!(info.instructions.is_some());

    let tools: Vec<String> = client
        .list_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name)
        .collect();
    for tool in [
        "echo",
        "get-sum",
        "get-structured-content",
        "get-tiny-image",
    ] {
        assert!(tools.iter().any(|t| t == tool), "no {tool} in {tools:?}");
    }
    let echo = client
        .call_tool("echo", json!({"message": "hello from presa"}))
        .await
        .unwrap();
    assert_eq!(echo.text(), "Echo: hello from presa");
    let sum = client
        .call_tool("get-sum", json!({"a": 2, "b": 3}))
        .await
        .unwrap();
    assert_eq!(sum.text(), "The sum of 2 and 3 is 5.");
    let weather = client
        .call_tool("get-structured-content", json!({"location": "Chicago"}))
        .await
        .unwrap();
    let weather: Value = weather.structured().unwrap();
    assert_eq!(weather["temperature"], 36);
    let image = client.call_tool("get-tiny-image", ()).await.unwrap();
    assert!(
        image
            .content
            .iter()
            .any(|c| serde_json::to_value(c).unwrap()["type"] == "image")
    );

    let resources = client.list_resources().await.unwrap();
    assert!(!resources.is_empty());
    let templates = client.list_resource_templates().await.unwrap();
    assert!(
        templates
            .iter()
            .any(|t| t.uri_template == "demo://resource/dynamic/text/{resourceId}")
    );
    let dynamic = client
        .read_resource("demo://resource/dynamic/text/7")
        .await
        .unwrap();
    assert!(
        dynamic
            .text()
            .starts_with("Resource 7: This is a plaintext resource"),
        "{}",
        dynamic.text()
    );

    let prompt = client
        .get_prompt("args-prompt", json!({"city": "Lisbon"}))
        .await
        .unwrap();
    assert_eq!(prompt.text(), "What's weather in Lisbon?");
    let names = client
        .complete_with_context(
            CompletionReference::prompt("completable-prompt"),
            "name",
            "",
            [("department", "Engineering")],
        )
        .await
        .unwrap();
    assert_eq!(names.completion.values, ["Alice", "Bob", "Charlie"]);
}

/// A server that speaks both eras and offers the same tools, resource and prompt, built on
/// another SDK.
#[derive(Clone, Copy, Debug)]
pub(crate) enum DualEraServer {
    /// `interop/node/sdk-v2-server.mjs`, on the TypeScript SDK v2 (@modelcontextprotocol/server).
    SdkV2,
    /// `interop/python/server.py`, on the Python SDK (`mcp`'s MCPServer).
    Python,
}

impl DualEraServer {
    /// The command that serves it on `transport` (`stdio` or `http`).
    pub(crate) fn command(self, transport: &str) -> Command {
        let mut command = match self {
            Self::SdkV2 => node().script("sdk-v2-server.mjs"),
            Self::Python => python().script("server.py"),
        };
        command.arg(transport);
        command
    }

    fn name(self) -> &'static str {
        match self {
            Self::SdkV2 => "typescript-sdk-v2-interop",
            Self::Python => "python-sdk-interop",
        }
    }
}

/// Drives a [`DualEraServer`]: `client` must speak `version`, and the server must say it served
/// that era.
pub(crate) async fn dual_era_server(
    client: &Client,
    server: DualEraServer,
    version: ProtocolVersion,
) {
    let info = client.info();
    assert_eq!(info.protocol_version, version);
    assert_eq!(info.name(), Some(server.name()));

    let tools: Vec<String> = client
        .list_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name)
        .collect();
    assert_eq!(tools, ["echo", "multiply", "era"]);
    let era = client.call_tool("era", ()).await.unwrap();
    let expected = if version == ProtocolVersion::V2026_07_28 {
        "modern"
    } else {
        "legacy"
    };
    assert_eq!(era.text(), expected, "the era the server says it served");

    let echo = client
        .call_tool("echo", json!({"message": "hello from presa"}))
        .await
        .unwrap();
    assert_eq!(echo.text(), "echo: hello from presa");
    let product = client
        .call_tool("multiply", json!({"a": 6, "b": 7}))
        .await
        .unwrap();
    assert_eq!(
        product.structured::<Value>().unwrap()["product"].as_f64(),
        Some(42.0)
    );
    let invalid = client
        .call_tool("multiply", json!({"a": "six"}))
        .await
        .unwrap();
    assert!(invalid.is_error(), "{invalid:?}");

    let motto = client.read_resource("memo://motto").await.unwrap();
    assert_eq!(motto.text(), "Interoperate or die.");
    let greet = client
        .get_prompt("greet", json!({"name": "presa"}))
        .await
        .unwrap();
    assert_eq!(greet.text(), "Say hello to presa.");
}
