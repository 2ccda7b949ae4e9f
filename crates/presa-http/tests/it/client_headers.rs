//! The client transport's headers on 2026-07-28: the SEP-2243 mirrors the client's session made
//! (`x-mcp-header` arguments included) go on the POST as they are, results pass untouched, extra
//! headers and tokens.

use std::sync::atomic::{AtomicUsize, Ordering};

use presa_client::BoxFuture;
use presa_core::ParamHeaders;
use presa_http::{Credential, HttpClientOptions, Refusal, TokenError, TokenProvider};
use presa_test::http::Mock;
use presa_test::message::notification;
use serde_json::{Value, json};

use crate::client_support::{Transport, modern, modern_call};

fn tools_page() -> Value {
    json!({
        "resultType": "complete",
        "ttlMs": 0,
        "cacheScope": "private",
        "tools": [
            {"name": "query", "inputSchema": {"type": "object", "properties": {
                "region": {"type": "string", "x-mcp-header": "Region"},
                "tenant": {"type": "string", "x-mcp-header": "Tenant"},
                "window": {"type": "object", "properties": {
                    "days": {"type": "integer", "x-mcp-header": "Window-Days"}}},
                "verbose": {"type": ["boolean", "null"], "x-mcp-header": "Verbose"},
                "padded": {"type": "string", "x-mcp-header": "Padded"},
                "empty": {"type": "string", "x-mcp-header": "EmptyVal"},
                "method_val": {"type": "string", "x-mcp-header": "Method"},
                "expr": {"type": "string"}
            }}},
            {"name": "bad_number", "inputSchema": {"type": "object", "properties": {
                "ratio": {"type": "number", "x-mcp-header": "Ratio"}}}},
            {"name": "bad_duplicate", "inputSchema": {"type": "object", "properties": {
                "a": {"type": "string", "x-mcp-header": "MyField"},
                "b": {"type": "string", "x-mcp-header": "myfield"}}}},
            {"name": "plain", "inputSchema": {"type": "object"}}
        ]
    })
}

#[tokio::test]
async fn requests_mirror_version_method_and_name() {
    let mut mock = Mock::start().await;
    let mut transport = Transport::connect(&mock.url);

    transport
        .send(modern(
            1,
            "resources/read",
            json!({"uri": "file:///a b/ü.txt"}),
        ))
        .await;
    let post = mock.next().await;
    assert_eq!(post.method, "POST");
    assert_eq!(post.header("content-type"), Some("application/json"));
    assert_eq!(
        post.header("accept"),
        Some("application/json, text/event-stream")
    );
    assert_eq!(post.header("mcp-protocol-version"), Some("2026-07-28"));
    assert_eq!(post.header("mcp-method"), Some("resources/read"));
    // not plain ASCII: wrapped
    assert_eq!(
        post.header("mcp-name"),
        Some("=?base64?ZmlsZTovLy9hIGIvw7wudHh0?=")
    );
    assert!(post.header("mcp-session-id").is_none());
    assert_eq!(post.json()["params"]["uri"], "file:///a b/ü.txt");
    post.respond_result(json!({"resultType": "complete", "contents": []}));
    assert_eq!(transport.message().await["id"], 1);

    transport
        .send(modern(2, "prompts/get", json!({"name": "review"})))
        .await;
    let post = mock.next().await;
    assert_eq!(post.header("mcp-method"), Some("prompts/get"));
    assert_eq!(post.header("mcp-name"), Some("review"));
    post.respond_result(json!({"resultType": "complete", "messages": []}));
    transport.message().await;
}

#[tokio::test]
async fn the_sessions_param_headers_go_on_the_post_and_results_pass_untouched() {
    let mut mock = Mock::start().await;
    let mut transport = Transport::connect(&mock.url);
    let arguments = json!({
        "region": "us-west1",
        "tenant": "Zürich",
        "window": {"days": 7},
        "verbose": null,
        "padded": " x ",
        "empty": "",
        "method_val": "test-method",
        "expr": "p95"
    });
    let query = ParamHeaders::from_input_schema(&tools_page()["tools"][0]["inputSchema"]).unwrap();
    transport
        .send(modern_call(
            1,
            json!({"name": "query", "arguments": arguments}),
            query,
        ))
        .await;
    let post = mock.next().await;
    assert_eq!(post.header("mcp-method"), Some("tools/call"));
    assert_eq!(post.header("mcp-name"), Some("query"));
    assert_eq!(post.header("mcp-param-region"), Some("us-west1"));
    assert_eq!(
        post.header("mcp-param-tenant"),
        Some("=?base64?WsO8cmljaA==?=")
    );
    assert_eq!(post.header("mcp-param-window-days"), Some("7"));
    assert_eq!(post.header("mcp-param-padded"), Some("=?base64?IHgg?="));
    // an empty string is sent, empty
    assert_eq!(post.header("mcp-param-emptyval"), Some(""));
    assert_eq!(post.header("mcp-param-method"), Some("test-method"));
    // null: no header
    assert!(post.header("mcp-param-verbose").is_none());
    post.respond_result(json!({"resultType": "complete", "content": []}));
    transport.message().await;

    // screening tools/list is the client's: the transport passes every tool on
    transport.send(modern(2, "tools/list", json!({}))).await;
    mock.next().await.respond_result(tools_page());
    let response = transport.message().await;
    assert_eq!(response["result"], tools_page());
    let warnings = transport.warnings();
    assert!(warnings.is_empty(), "{warnings:?}");
}

#[tokio::test]
async fn an_initialize_era_tools_list_is_passed_on_untouched() {
    let mut mock = Mock::start().await;
    let mut transport = Transport::connect(&mock.url);

    transport
        .send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}))
        .await;
    let post = mock.next().await;
    assert!(post.header("mcp-method").is_none());
    assert!(post.header("mcp-protocol-version").is_none());
    post.respond_result(tools_page());
    let response = transport.message().await;
    assert_eq!(response["result"]["tools"].as_array().unwrap().len(), 4);
    let warnings = transport.warnings();
    assert!(warnings.is_empty(), "{warnings:?}");
}

#[tokio::test]
async fn notifications_carry_method_and_version_and_get_202() {
    let mut mock = Mock::start().await;
    let mut transport = Transport::connect(&mock.url);

    transport
        .send(modern(1, "server/discover", json!({})))
        .await;
    mock.next()
        .await
        .respond_result(json!({"resultType": "complete"}));
    transport.message().await;

    transport
        .send(notification("notifications/roots/list_changed", json!({})))
        .await;
    let post = mock.next().await;
    assert_eq!(
        post.header("mcp-method"),
        Some("notifications/roots/list_changed")
    );
    assert_eq!(post.header("mcp-protocol-version"), Some("2026-07-28"));
    post.accept();

    // Nothing comes back for an accepted notification: the next event answers the next request.
    transport.send(modern(2, "tools/list", json!({}))).await;
    mock.next()
        .await
        .respond_result(json!({"resultType": "complete", "tools": []}));
    assert_eq!(transport.message().await["id"], 2);
}

#[tokio::test]
async fn extra_headers_and_tokens_go_on_every_request() {
    struct Counting(AtomicUsize);

    impl TokenProvider for Counting {
        fn token(&self) -> BoxFuture<'_, Result<Option<String>, TokenError>> {
            let n = self.0.fetch_add(1, Ordering::SeqCst);
            Box::pin(async move { Ok(Some(format!("token-{n}"))) })
        }

        fn refused<'a>(&'a self, refusal: Refusal<'a>) -> BoxFuture<'a, Result<bool, TokenError>> {
            let retry = refusal.status() == 401
                && refusal.attempt() == 0
                && refusal.challenge() == Some("Bearer error=\"invalid_token\"")
                && refusal.sent() == Some(&Credential::Bearer("token-0".into()));
            Box::pin(async move { Ok(retry) })
        }
    }

    let mut mock = Mock::start().await;
    let options = HttpClientOptions::default()
        .header("X-Api-Key", "k1")
        .header("Authorization", "Basic replaced-by-the-token")
        // a header the transport owns is not overridden
        .header("Mcp-Method", "nope")
        .token_provider(Counting(AtomicUsize::new(0)));
    let mut transport = Transport::with(&mock.url, options);

    transport.send(modern(1, "tools/list", json!({}))).await;
    let post = mock.next().await;
    assert_eq!(post.header("x-api-key"), Some("k1"));
    assert_eq!(post.header("authorization"), Some("Bearer token-0"));
    assert_eq!(post.header("mcp-method"), Some("tools/list"));
    post.respond(
        401,
        &[("www-authenticate", "Bearer error=\"invalid_token\"")],
        "",
    );
    // the provider asked for a retry: same request, fresh token
    let retry = mock.next().await;
    assert_eq!(retry.header("authorization"), Some("Bearer token-1"));
    assert_eq!(retry.rpc_id(), 1);
    retry.respond(401, &[], "");
    // the provider retries once only: the second 401 fails the request
    match transport.event().await {
        presa_client::TransportEvent::RequestFailed { id, error } => {
            assert_eq!(id, 1.into());
            assert_eq!(error.kind(), presa_client::TransportErrorKind::Unauthorized);
            assert!(error.message().contains("401"), "{error}");
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn a_failing_token_provider_fails_the_request() {
    let mock = Mock::start().await;
    let options = HttpClientOptions::default()
        .token_provider(|| async { Err::<Option<String>, TokenError>("vault sealed".into()) });
    let mut transport = Transport::with(&mock.url, options);
    transport.send(modern(1, "tools/list", json!({}))).await;
    match transport.event().await {
        presa_client::TransportEvent::RequestFailed { error, .. } => {
            assert_eq!(error.kind(), presa_client::TransportErrorKind::Connect);
            assert_eq!(error.message(), "the token provider failed");
            let source = std::error::Error::source(&error).map(ToString::to_string);
            assert_eq!(source.as_deref(), Some("vault sealed"));
        }
        other => panic!("{other:?}"),
    }
}
