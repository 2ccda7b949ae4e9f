//! What answers a POST: JSON, event streams, error statuses with and without a JSON-RPC body,
//! failed connections, and cancellation by closing a 2026-07-28 stream.

use presa_client::{TransportError, TransportErrorKind, TransportEvent};
use presa_core::RequestId;
use presa_http::HttpClientOptions;
use presa_test::http::Mock;
use presa_test::message::notification;
use serde_json::json;

use crate::client_support::{Transport, modern};

async fn failed(transport: &mut Transport) -> (RequestId, TransportError) {
    match transport.event().await {
        TransportEvent::RequestFailed { id, error } => (id, error),
        other => panic!("expected a failed request, got {other:?}"),
    }
}

#[tokio::test]
async fn a_json_response_is_delivered() {
    let mut mock = Mock::start().await;
    let mut transport = Transport::connect(&mock.url);
    transport.send(modern(1, "tools/list", json!({}))).await;
    mock.next()
        .await
        .respond_result(json!({"resultType": "complete", "tools": []}));
    assert_eq!(
        transport.message().await,
        json!({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "complete", "tools": []}})
    );
}

#[tokio::test]
async fn an_event_stream_delivers_progress_then_the_result() {
    let mut mock = Mock::start().await;
    let mut transport = Transport::connect(&mock.url);
    transport
        .send(modern(
            5,
            "tools/call",
            json!({"name": "slow", "arguments": {}}),
        ))
        .await;
    let stream = mock
        .next()
        .await
        .respond_sse(&[("x-accel-buffering", "no")]);
    stream.raw(": keep-alive\n\n").await;
    let progress = json!({"jsonrpc": "2.0", "method": "notifications/progress",
        "params": {"progressToken": "tok", "progress": 1, "total": 2}});
    // split mid-event: the parser waits for the rest
    let text = format!("data: {progress}\n\n");
    let (a, b) = text.split_at(20);
    stream.raw(a).await;
    stream.raw(b).await;
    assert_eq!(transport.message().await, progress);

    let result = json!({"jsonrpc": "2.0", "id": 5, "result": {"resultType": "complete",
        "content": [{"type": "text", "text": "done"}]}});
    stream.message(&result).await;
    assert_eq!(transport.message().await, result);
    // the stream is dropped once the response is in
    stream.closed().await;
}

#[tokio::test]
async fn an_error_status_with_a_json_rpc_error_is_the_answer() {
    let mut mock = Mock::start().await;
    let mut transport = Transport::connect(&mock.url);

    transport
        .send(modern(1, "server/discover", json!({})))
        .await;
    let error = json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32022,
        "message": "Unsupported protocol version",
        "data": {"supported": ["2026-07-28"], "requested": "2026-07-28"}}});
    mock.next().await.respond_json(400, &error);
    assert_eq!(transport.message().await, error);

    transport.send(modern(2, "prompts/list", json!({}))).await;
    let error = json!({"jsonrpc": "2.0", "id": 2, "error": {"code": -32601, "message": "Method not found"}});
    mock.next().await.respond_json(404, &error);
    assert_eq!(transport.message().await, error);

    // an error without an id answers the request it came back for
    transport.send(modern(3, "tools/list", json!({}))).await;
    mock.next().await.respond_json(
        403,
        &json!({"jsonrpc": "2.0", "error": {"code": -32600, "message": "Origin not allowed"}}),
    );
    assert_eq!(
        transport.message().await,
        json!({"jsonrpc": "2.0", "id": 3, "error": {"code": -32600, "message": "Origin not allowed"}})
    );

    // the same with a success status
    transport.send(modern(4, "tools/list", json!({}))).await;
    mock.next().await.respond_json(
        200,
        &json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32000, "message": "Bad Request"}}),
    );
    assert_eq!(transport.message().await["id"], 4);
}

#[tokio::test]
async fn an_error_status_without_a_json_rpc_body_fails_the_request() {
    let mut mock = Mock::start().await;
    let mut transport = Transport::connect(&mock.url);

    transport.send(modern(1, "tools/list", json!({}))).await;
    mock.next().await.respond(
        502,
        &[("content-type", "text/html")],
        "<h1>Bad\n gateway</h1>",
    );
    let (id, error) = failed(&mut transport).await;
    assert_eq!(id, 1.into());
    assert_eq!(error.kind(), TransportErrorKind::Protocol);
    assert_eq!(
        error.message(),
        "HTTP 502 Bad Gateway: <h1>Bad gateway</h1>"
    );

    transport.send(modern(2, "tools/list", json!({}))).await;
    mock.next().await.respond(400, &[], "");
    let (id, error) = failed(&mut transport).await;
    assert_eq!(id, 2.into());
    assert_eq!(error.message(), "HTTP 400 Bad Request");
}

#[tokio::test]
async fn a_401_fails_the_request_as_unauthorized_whatever_its_body() {
    let mut mock = Mock::start().await;
    let mut transport = Transport::connect(&mock.url);

    // a JSON-RPC error is the failure's source
    transport.send(modern(1, "tools/list", json!({}))).await;
    let exchange = mock.next().await;
    let id = exchange.rpc_id();
    let error = json!({"code": -32600, "message": "Unauthorized: unknown token"});
    exchange.respond_json(401, &json!({"jsonrpc": "2.0", "id": id, "error": error}));
    let (id, refusal) = failed(&mut transport).await;
    assert_eq!(id, 1.into());
    assert_eq!(refusal.kind(), TransportErrorKind::Unauthorized);
    assert_eq!(refusal.message(), "HTTP 401 Unauthorized");
    let source = std::error::Error::source(&refusal)
        .and_then(|source| source.downcast_ref::<presa_core::ErrorObject>())
        .map(|source| serde_json::to_value(source).unwrap());
    assert_eq!(source, Some(error));

    // an OAuth error body is quoted; an empty one leaves the status
    transport.send(modern(2, "tools/list", json!({}))).await;
    mock.next()
        .await
        .respond_json(401, &json!({"error": "invalid_token"}));
    let (_, refusal) = failed(&mut transport).await;
    assert_eq!(refusal.kind(), TransportErrorKind::Unauthorized);
    assert_eq!(
        refusal.message(),
        r#"HTTP 401 Unauthorized: {"error":"invalid_token"}"#
    );
    transport.send(modern(3, "tools/list", json!({}))).await;
    mock.next().await.respond(401, &[], "");
    let (_, refusal) = failed(&mut transport).await;
    assert_eq!(refusal.message(), "HTTP 401 Unauthorized");

    // a 403 is about the request, not the caller: its JSON-RPC error is the answer
    transport
        .send(modern(4, "tools/call", json!({"name": "close"})))
        .await;
    let exchange = mock.next().await;
    let id = exchange.rpc_id();
    let forbidden = json!({"jsonrpc": "2.0", "id": id,
        "error": {"code": -32600, "message": "Insufficient scope: tickets:write"}});
    exchange.respond_json(403, &forbidden);
    assert_eq!(transport.message().await, forbidden);
}

#[tokio::test]
async fn success_without_a_response_fails_the_request() {
    let mut mock = Mock::start().await;
    let mut transport = Transport::connect(&mock.url);

    transport.send(modern(1, "tools/list", json!({}))).await;
    mock.next().await.accept();
    let (_, error) = failed(&mut transport).await;
    assert!(error.message().contains("without answering"), "{error}");

    transport.send(modern(2, "tools/list", json!({}))).await;
    mock.next()
        .await
        .respond(200, &[("content-type", "application/json")], "{oops");
    let (id, error) = failed(&mut transport).await;
    assert_eq!(id, 2.into());
    assert_eq!(error.kind(), TransportErrorKind::Protocol);
}

#[tokio::test]
async fn a_refused_connection_fails_the_request() {
    // a port nobody listens on: bind, note it, close
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    drop(listener);
    let mut transport = Transport::connect(&url);
    transport
        .send(modern(1, "server/discover", json!({})))
        .await;
    let (id, error) = failed(&mut transport).await;
    assert_eq!(id, 1.into());
    assert_eq!(error.kind(), TransportErrorKind::Connect);
    assert_eq!(error.message(), "POST failed");
    // why: the HTTP client's error, with its own causes behind it
    assert!(std::error::Error::source(&error).is_some(), "{error:?}");
    // the transport stays up: closing it ends it orderly
    let mut incoming = transport.close();
    assert!(matches!(
        incoming.recv().await,
        Some(TransportEvent::Closed(None))
    ));
}

#[tokio::test]
async fn a_2026_stream_that_ends_early_fails_the_request_without_resuming() {
    let mut mock = Mock::start().await;
    let mut transport = Transport::connect(&mock.url);
    transport
        .send(modern(
            1,
            "tools/call",
            json!({"name": "slow", "arguments": {}}),
        ))
        .await;
    let stream = mock.next().await.respond_sse(&[]);
    stream.raw("id: 1\nretry: 100\ndata:\n\n").await;
    drop(stream);
    let (id, error) = failed(&mut transport).await;
    assert_eq!(id, 1.into());
    assert_eq!(error.kind(), TransportErrorKind::Io);
    assert!(error.message().contains("new id"), "{error}");
    // no GET to resume
    transport.send(modern(2, "tools/list", json!({}))).await;
    assert_eq!(mock.next().await.method, "POST");
}

#[tokio::test]
async fn cancelling_a_2026_request_closes_its_stream_and_posts_nothing() {
    let mut mock = Mock::start().await;
    let mut transport = Transport::connect(&mock.url);
    transport
        .send(modern(
            1,
            "tools/call",
            json!({"name": "slow", "arguments": {}}),
        ))
        .await;
    let stream = mock.next().await.respond_sse(&[]);
    stream.raw(": started\n\n").await;

    transport
        .send(notification(
            "notifications/cancelled",
            json!({"requestId": 1}),
        ))
        .await;
    stream.closed().await;
    // The cancellation was not POSTed: the next request is the next thing the server sees.
    transport.send(modern(2, "tools/list", json!({}))).await;
    let next = mock.next().await;
    assert_eq!(next.rpc_method(), "tools/list");
    next.respond_result(json!({"resultType": "complete", "tools": []}));
    // and nothing is reported for the cancelled request
    assert_eq!(transport.message().await["id"], 2);
}

#[tokio::test]
async fn an_oversized_event_fails_the_request() {
    let mut mock = Mock::start().await;
    let options = HttpClientOptions::default().max_message_bytes(1024);
    let mut transport = Transport::with(&mock.url, options);
    transport
        .send(modern(
            1,
            "tools/call",
            json!({"name": "big", "arguments": {}}),
        ))
        .await;
    let stream = mock.next().await.respond_sse(&[]);
    stream.raw(&format!("data: \"{}", "x".repeat(2048))).await;
    let (id, error) = failed(&mut transport).await;
    assert_eq!(id, 1.into());
    assert_eq!(
        error.message(),
        "the server sent an SSE event larger than 1024 bytes"
    );
    stream.closed().await;

    transport.send(modern(2, "tools/list", json!({}))).await;
    mock.next().await.respond_json(
        200,
        &json!({"jsonrpc": "2.0", "id": 2, "result": {"x": "y".repeat(2048)}}),
    );
    let (id, error) = failed(&mut transport).await;
    assert_eq!(id, 2.into());
    assert!(
        error.message().contains("larger than 1024 bytes"),
        "{error}"
    );
}

#[tokio::test]
async fn undecodable_events_are_skipped_and_logged() {
    let mut mock = Mock::start().await;
    let mut transport = Transport::connect(&mock.url);
    transport.send(modern(1, "tools/list", json!({}))).await;
    let stream = mock.next().await.respond_sse(&[]);
    stream
        .raw("data: not json\n\nevent: other\ndata: {}\n\n")
        .await;
    stream
        .message(&json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": []}}))
        .await;
    assert_eq!(transport.message().await["id"], 1);
    let warnings = transport.warnings();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert_eq!(
        warnings[0].message, "skipping an SSE event that is not JSON-RPC",
        "{warnings:?}"
    );
    assert!(warnings[0].field("error").is_some(), "{warnings:?}");
    // an event of another type is no fault: skipped, and told at debug level
    let events = transport.events();
    let other = events
        .iter()
        .find(|e| e.message == "ignoring an SSE event whose type is not message");
    let other = other.unwrap_or_else(|| panic!("{events:?}"));
    assert_eq!(other.level, tracing::Level::DEBUG);
    assert_eq!(other.field("event"), Some("other"));
}

#[tokio::test]
async fn a_closed_transport_without_a_session_ends_with_closed() {
    let mut mock = Mock::start().await;
    let mut transport = Transport::connect(&mock.url);
    transport.send(modern(1, "tools/list", json!({}))).await;
    mock.next()
        .await
        .respond_result(json!({"resultType": "complete", "tools": []}));
    transport.message().await;
    let mut incoming = transport.close();
    assert!(matches!(
        incoming.recv().await,
        Some(TransportEvent::Closed(None))
    ));
    assert!(incoming.recv().await.is_none());
    // no DELETE without a session
    assert!(mock.try_next().is_none());
}

#[tokio::test]
async fn redirects_are_followed_only_when_they_keep_the_method() {
    let mut mock = Mock::start().await;
    let mut transport = Transport::connect(&mock.url);

    transport.send(modern(1, "tools/list", json!({}))).await;
    mock.next()
        .await
        .respond(307, &[("location", "/mcp?moved=1")], "");
    let post = mock.next().await;
    assert_eq!(post.method, "POST");
    assert_eq!(post.uri.query(), Some("moved=1"));
    assert_eq!(post.header("mcp-method"), Some("tools/list"));
    assert_eq!(post.rpc_id(), 1);
    post.respond_result(json!({"resultType": "complete", "tools": []}));
    assert_eq!(transport.message().await["id"], 1);

    transport.send(modern(2, "tools/list", json!({}))).await;
    mock.next()
        .await
        .respond(302, &[("location", "/mcp?moved=2")], "");
    let (id, error) = failed(&mut transport).await;
    assert_eq!(id, 2.into());
    assert_eq!(error.message(), "HTTP 302 Found");
}

/// A redirect to another origin is not followed: it would hand that origin the body, the
/// session id and every custom header.
#[tokio::test]
async fn redirects_to_another_origin_are_not_followed() {
    let mut mock = Mock::start().await;
    let mut elsewhere = Mock::start().await;
    let mut transport = Transport::connect(&mock.url);
    transport.send(modern(1, "tools/list", json!({}))).await;
    mock.next()
        .await
        .respond(307, &[("location", elsewhere.url.as_str())], "");
    let (id, error) = failed(&mut transport).await;
    assert_eq!(id, 1.into());
    assert_eq!(error.message(), "HTTP 307 Temporary Redirect");
    assert!(
        elsewhere.try_next().is_none(),
        "the other origin heard nothing"
    );
}
