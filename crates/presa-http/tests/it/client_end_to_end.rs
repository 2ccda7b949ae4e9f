//! A presa `Client` over the HTTP client transport, against scripted servers of both eras.

use presa_client::{Client, ClientError, ClientOptions, ResultText, TransportErrorKind};
use presa_core::ProtocolVersion;
use presa_http::HttpClientOptions;
use presa_test::http::Mock;
use serde_json::json;

/// Answers requests as a 2026-07-28 server would, until the client is done; returns what it saw.
async fn modern_server(mut mock: Mock) -> Vec<(String, Option<String>)> {
    let mut seen = Vec::new();
    loop {
        let exchange = mock.next().await;
        let method = exchange.rpc_method();
        seen.push((
            method.clone(),
            exchange.header("mcp-param-region").map(str::to_owned),
        ));
        match method.as_str() {
            "server/discover" => exchange.respond_result(json!({
                "resultType": "complete",
                "supportedVersions": ["2026-07-28"],
                "capabilities": {"tools": {}},
                "ttlMs": 0,
                "cacheScope": "private",
                "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "mock", "version": "1"}}
            })),
            "tools/list" => exchange.respond_result(json!({
                "resultType": "complete", "ttlMs": 0, "cacheScope": "private",
                "tools": [
                    {"name": "query", "inputSchema": {"type": "object", "properties": {
                        "region": {"type": "string", "x-mcp-header": "Region"}}}},
                    {"name": "bad", "inputSchema": {"type": "object", "properties": {
                        "r": {"type": "number", "x-mcp-header": "R"}}}}
                ]
            })),
            "tools/call" => {
                let region = exchange
                    .header("mcp-param-region")
                    .unwrap_or("none")
                    .to_owned();
                exchange.respond_result(json!({"resultType": "complete",
                    "content": [{"type": "text", "text": format!("region {region}")}]}));
                return seen;
            }
            other => panic!("unexpected {other}"),
        }
    }
}

#[tokio::test]
async fn a_client_speaks_2026_over_http() {
    let mock = Mock::start().await;
    // the URL as a `String`, as a user's configuration holds it
    let url: String = mock.url.clone();
    let channel = presa_http::client(url, HttpClientOptions::default()).unwrap();
    let server = tokio::spawn(modern_server(mock));

    let client = Client::connect(channel, ClientOptions::default())
        .await
        .unwrap();
    assert_eq!(client.protocol_version(), ProtocolVersion::V2026_07_28);
    let tools = client.list_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["query"]);
    let result = client
        .call_tool("query", json!({"region": "eu-north"}))
        .await
        .unwrap();
    assert_eq!(result.text(), "region eu-north");
    client.close().await;

    let seen = server.await.unwrap();
    assert_eq!(
        seen.last().unwrap(),
        &("tools/call".to_owned(), Some("eu-north".to_owned()))
    );
}

/// Answers as an initialize-era server that refuses 2026-07-28 requests with a bare 400.
async fn legacy_server(mut mock: Mock) {
    loop {
        let exchange = mock.next().await;
        match (exchange.method.as_str(), exchange.rpc_method().as_str()) {
            ("POST", "server/discover") => exchange.respond(400, &[], ""),
            ("POST", "initialize") => {
                let id = exchange.rpc_id();
                exchange.respond_json_with(
                    200,
                    &[("mcp-session-id", "s-1")],
                    &json!({"jsonrpc": "2.0", "id": id, "result": {
                        "protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                        "serverInfo": {"name": "old", "version": "1"}}}),
                );
            }
            ("POST", "notifications/initialized") => exchange.accept(),
            ("GET", _) => exchange.respond(405, &[], ""),
            ("POST", "tools/list") => {
                assert_eq!(exchange.header("mcp-session-id"), Some("s-1"));
                exchange.respond_result(json!({"tools": [
                    {"name": "echo", "inputSchema": {"type": "object"}}]}));
            }
            ("DELETE", _) => {
                assert_eq!(exchange.header("mcp-session-id"), Some("s-1"));
                exchange.respond(200, &[], "");
                return;
            }
            (method, rpc) => panic!("unexpected {method} {rpc}: {:?}", exchange.json()),
        }
    }
}

#[tokio::test]
async fn a_client_falls_back_to_initialize_over_http() {
    let mock = Mock::start().await;
    let channel = presa_http::client(&mock.url, HttpClientOptions::default()).unwrap();
    let server = tokio::spawn(legacy_server(mock));

    let client = Client::connect(channel, ClientOptions::default())
        .await
        .unwrap();
    assert_eq!(client.protocol_version(), ProtocolVersion::V2025_11_25);
    let tools = client.list_tools().await.unwrap();
    assert_eq!(tools[0].name, "echo");
    client.close().await;
    // the server saw the DELETE before the client finished closing
    server.await.unwrap();
}

#[tokio::test]
async fn a_refused_probe_ends_the_connection_attempt_without_initialize() {
    let mut mock = Mock::start().await;
    let channel = presa_http::client(&mock.url, HttpClientOptions::default()).unwrap();
    let connecting = tokio::spawn(Client::connect(channel, ClientOptions::default()));
    let probe = mock.next().await;
    assert_eq!(probe.rpc_method(), "server/discover");
    let id = probe.rpc_id();
    probe.respond_json(
        401,
        &json!({"jsonrpc": "2.0", "id": id,
            "error": {"code": -32600, "message": "a bearer token is required"}}),
    );
    // a caller no revision lets in ends the attempt: no initialize follows
    let connected = tokio::select! {
        connected = connecting => connected.unwrap(),
        next = mock.next() => panic!("the client went on with {}", next.rpc_method()),
    };
    match connected {
        Err(ClientError::Transport(error)) => {
            assert_eq!(error.kind(), TransportErrorKind::Unauthorized);
            assert_eq!(error.message(), "HTTP 401 Unauthorized");
            let said = std::error::Error::source(&error).map(ToString::to_string);
            assert_eq!(said.as_deref(), Some("a bearer token is required (-32600)"));
        }
        other => panic!("expected the refusal, got {other:?}"),
    }
}

#[tokio::test]
async fn the_channel_names_its_network_for_the_client_spans() {
    let channel =
        presa_http::client("http://127.0.0.1:9/mcp", HttpClientOptions::default()).unwrap();
    assert_eq!(channel.network.transport, Some("tcp"));
    assert_eq!(channel.network.protocol, Some("http"));
}
