//! Initialize-era sessions over the client transport: the session id and negotiated version,
//! the GET stream, resumption with `Last-Event-ID`, expiry, `DELETE` on close.

use std::time::{Duration, Instant};

use presa_client::{TransportErrorKind, TransportEvent};
use presa_test::http::{Exchange, Mock, SseStream};
use presa_test::message::{legacy_notification, legacy_request};
use serde_json::{Value, json};

use crate::client_support::Transport;

const SESSION: &str = "6f1d2c1e-94a3-4b7e-8d52-2f0f5a1c9b77";

fn initialize() -> Value {
    legacy_request(
        0,
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"}}),
    )
}

fn initialize_result(version: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": version,
        "capabilities": {}, "serverInfo": {"name": "mock", "version": "1"}}})
}

/// Runs the handshake; returns the GET stream request, unanswered.
async fn handshake(mock: &mut Mock, transport: &mut Transport, version: &str) -> Exchange {
    transport.send(initialize()).await;
    let post = mock.next().await;
    assert_eq!(post.rpc_method(), "initialize");
    assert!(post.header("mcp-session-id").is_none());
    assert!(post.header("mcp-protocol-version").is_none());
    assert!(post.header("mcp-method").is_none());
    post.respond_json_with(
        200,
        &[("mcp-session-id", SESSION)],
        &initialize_result(version),
    );
    assert_eq!(
        transport.message().await["result"]["protocolVersion"],
        version
    );

    transport
        .send(legacy_notification("notifications/initialized", json!({})))
        .await;
    let post = mock.next().await;
    assert_eq!(post.rpc_method(), "notifications/initialized");
    assert_eq!(post.header("mcp-session-id"), Some(SESSION));
    post.accept();

    let get = mock.next().await;
    assert_eq!(get.method, "GET");
    assert_eq!(get.header("accept"), Some("text/event-stream"));
    assert_eq!(get.header("mcp-session-id"), Some(SESSION));
    get
}

#[tokio::test]
async fn the_session_id_and_version_go_on_every_later_request_and_close_deletes() {
    let mut mock = Mock::start().await;
    let mut transport = Transport::connect(&mock.url);
    let get = handshake(&mut mock, &mut transport, "2025-11-25").await;
    assert_eq!(get.header("mcp-protocol-version"), Some("2025-11-25"));
    let stream = get.respond_sse(&[]);

    transport
        .send(legacy_request(1, "tools/list", json!({})))
        .await;
    let post = mock.next().await;
    assert_eq!(post.header("mcp-session-id"), Some(SESSION));
    assert_eq!(post.header("mcp-protocol-version"), Some("2025-11-25"));
    assert!(post.header("mcp-method").is_none());
    post.respond_result(json!({"tools": []}));
    transport.message().await;

    let mut incoming = transport.close();
    let delete = mock.next().await;
    assert_eq!(delete.method, "DELETE");
    assert_eq!(delete.header("mcp-session-id"), Some(SESSION));
    assert_eq!(delete.header("mcp-protocol-version"), Some("2025-11-25"));
    // the GET stream was dropped before
    stream.closed().await;
    delete.respond(200, &[], "");
    assert!(matches!(
        incoming.recv().await,
        Some(TransportEvent::Closed(None))
    ));
}

#[tokio::test]
async fn no_version_header_before_2025_06_18() {
    let mut mock = Mock::start().await;
    let mut transport = Transport::connect(&mock.url);
    let get = handshake(&mut mock, &mut transport, "2025-03-26").await;
    assert!(get.header("mcp-protocol-version").is_none());
    get.respond(405, &[], "");

    transport.send(legacy_request(1, "ping", json!({}))).await;
    let post = mock.next().await;
    assert_eq!(post.header("mcp-session-id"), Some(SESSION));
    assert!(post.header("mcp-protocol-version").is_none());
    post.respond_result(json!({}));
    assert_eq!(transport.message().await["id"], 1);
    // a 405 on GET is no error
    let warnings = transport.warnings();
    assert!(warnings.is_empty(), "{warnings:?}");
}

#[tokio::test]
async fn the_get_stream_delivers_server_messages_and_responses_are_posted() {
    let mut mock = Mock::start().await;
    let mut transport = Transport::connect(&mock.url);
    let stream = handshake(&mut mock, &mut transport, "2025-06-18")
        .await
        .respond_sse(&[]);

    let changed = json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"});
    stream.message(&changed).await;
    assert_eq!(transport.message().await, changed);

    let request = json!({"jsonrpc": "2.0", "id": "srv-1", "method": "roots/list"});
    stream.message(&request).await;
    assert_eq!(transport.message().await, request);

    // the client's answer is POSTed like anything else
    transport
        .send(json!({"jsonrpc": "2.0", "id": "srv-1", "result": {"roots": []}}))
        .await;
    let post = mock.next().await;
    assert_eq!(post.method, "POST");
    assert_eq!(post.header("mcp-session-id"), Some(SESSION));
    assert_eq!(post.json()["id"], "srv-1");
    post.accept();
}

#[tokio::test]
async fn requests_after_initialized_wait_for_the_get_stream() {
    let mut mock = Mock::start().await;
    let mut transport = Transport::connect(&mock.url);
    let get = handshake(&mut mock, &mut transport, "2025-11-25").await;
    transport
        .send(legacy_request(1, "tools/call", json!({"name": "ask"})))
        .await;
    // held back: a server pushing elicitation/create on the GET stream would lose it
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(mock.try_next().is_none());

    let _stream = get.respond_sse(&[]);
    let post = mock.next().await;
    assert_eq!(post.rpc_method(), "tools/call");
    post.respond_result(json!({"content": []}));
    assert_eq!(transport.message().await["id"], 1);
}

#[tokio::test]
async fn a_get_stream_that_never_answers_holds_requests_two_seconds_at_most() {
    let mut mock = Mock::start().await;
    let mut transport = Transport::connect(&mock.url);
    let _get = handshake(&mut mock, &mut transport, "2025-11-25").await;
    let sent = Instant::now();
    transport
        .send(legacy_request(1, "tools/list", json!({})))
        .await;
    let post = mock.next().await;
    let waited = sent.elapsed();
    assert!(waited >= Duration::from_millis(1900), "{waited:?}");
    assert!(waited < Duration::from_secs(4), "{waited:?}");
    assert_eq!(post.rpc_method(), "tools/list");
}

#[tokio::test]
async fn closing_sends_what_waited_for_the_get_stream() {
    let mut mock = Mock::start().await;
    let mut transport = Transport::connect(&mock.url);
    let get = handshake(&mut mock, &mut transport, "2025-11-25").await;
    transport
        .send(legacy_notification(
            "notifications/roots/list_changed",
            json!({}),
        ))
        .await;
    let _incoming = transport.close();
    let post = mock.next().await;
    assert_eq!(post.rpc_method(), "notifications/roots/list_changed");
    post.accept();
    assert_eq!(mock.next().await.method, "DELETE");
    drop(get);
}

#[tokio::test]
async fn nothing_waits_when_initialized_is_refused() {
    let mut mock = Mock::start().await;
    let mut transport = Transport::connect(&mock.url);
    transport.send(initialize()).await;
    mock.next().await.respond_json_with(
        200,
        &[("mcp-session-id", SESSION)],
        &initialize_result("2025-11-25"),
    );
    transport.message().await;
    transport
        .send(legacy_notification("notifications/initialized", json!({})))
        .await;
    transport
        .send(legacy_request(1, "tools/list", json!({})))
        .await;
    mock.next().await.respond(400, &[], "no");
    // no GET stream: the request goes at once
    let post = mock.next().await;
    assert_eq!(post.method, "POST");
    assert_eq!(post.rpc_method(), "tools/list");
}

#[tokio::test]
async fn a_stream_that_ends_early_is_resumed_with_last_event_id_after_retry() {
    let mut mock = Mock::start().await;
    let mut transport = Transport::connect(&mock.url);
    let get_stream = handshake(&mut mock, &mut transport, "2025-11-25")
        .await
        .respond_sse(&[]);

    transport
        .send(legacy_request(
            7,
            "tools/call",
            json!({"name": "test_reconnection", "arguments": {}}),
        ))
        .await;
    let stream = mock.next().await.respond_sse(&[]);
    stream.raw("id: event-1\nretry: 300\ndata:\n\n").await;
    let progress = json!({"jsonrpc": "2.0", "method": "notifications/progress",
        "params": {"progressToken": 1, "progress": 1}});
    stream
        .raw(&format!("id: event-2\ndata: {progress}\n\n"))
        .await;
    assert_eq!(transport.message().await, progress);
    drop(stream);
    let closed_at = Instant::now();

    let get = mock.next().await;
    assert!(closed_at.elapsed() >= Duration::from_millis(300) - Duration::from_millis(20));
    assert_eq!(get.method, "GET");
    assert_eq!(get.header("last-event-id"), Some("event-2"));
    assert_eq!(get.header("mcp-session-id"), Some(SESSION));
    assert_eq!(get.header("accept"), Some("text/event-stream"));
    let resumed = get.respond_sse(&[]);
    resumed.raw("id: event-3\ndata:\n\n").await;
    let result = json!({"jsonrpc": "2.0", "id": 7, "result": {"content": [
        {"type": "text", "text": "Reconnection test completed successfully"}]}});
    resumed
        .raw(&format!("event: message\nid: event-4\ndata: {result}\n\n"))
        .await;
    assert_eq!(transport.message().await, result);
    resumed.closed().await;
    drop(get_stream);
}

#[tokio::test]
async fn a_stream_without_event_ids_cannot_be_resumed() {
    let mut mock = Mock::start().await;
    let mut transport = Transport::connect(&mock.url);
    let _get = handshake(&mut mock, &mut transport, "2025-11-25")
        .await
        .respond_sse(&[]);
    transport
        .send(legacy_request(1, "tools/call", json!({"name": "x"})))
        .await;
    let stream = mock.next().await.respond_sse(&[]);
    stream.raw(": nothing\n\n").await;
    drop(stream);
    match transport.event().await {
        TransportEvent::RequestFailed { id, error } => {
            assert_eq!(id, 1.into());
            assert_eq!(error.kind(), TransportErrorKind::Io);
            assert!(error.message().contains("no event id"), "{error}");
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn a_404_in_a_session_means_it_expired() {
    let mut mock = Mock::start().await;
    let mut transport = Transport::connect(&mock.url);
    let _get = handshake(&mut mock, &mut transport, "2025-11-25")
        .await
        .respond_sse(&[]);

    transport
        .send(legacy_request(1, "tools/list", json!({})))
        .await;
    // what the TypeScript SDK answers for an unknown session
    mock.next().await.respond_json(
        404,
        &json!({"jsonrpc": "2.0", "error": {"code": -32001, "message": "Session not found"}, "id": null}),
    );
    match transport.event().await {
        TransportEvent::Closed(Some(error)) => {
            assert_eq!(error.kind(), TransportErrorKind::Closed);
            assert!(error.message().starts_with("session expired"), "{error}");
        }
        other => panic!("{other:?}"),
    }
    // no DELETE for a session the server forgot
    assert!(mock.try_next().is_none());
}

#[tokio::test]
async fn a_404_with_the_requests_own_error_is_an_answer() {
    let mut mock = Mock::start().await;
    let mut transport = Transport::connect(&mock.url);
    let _get = handshake(&mut mock, &mut transport, "2025-11-25")
        .await
        .respond_sse(&[]);
    transport
        .send(legacy_request(1, "nope/nope", json!({})))
        .await;
    let error = json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "Method not found"}});
    mock.next().await.respond_json(404, &error);
    assert_eq!(transport.message().await, error);
}

#[tokio::test]
async fn an_initialize_era_cancellation_is_posted_and_the_stream_dropped() {
    let mut mock = Mock::start().await;
    let mut transport = Transport::connect(&mock.url);
    let _get: SseStream = handshake(&mut mock, &mut transport, "2025-11-25")
        .await
        .respond_sse(&[]);
    transport
        .send(legacy_request(3, "tools/call", json!({"name": "slow"})))
        .await;
    let stream = mock.next().await.respond_sse(&[]);
    stream.raw("id: a-1\ndata:\n\n").await;

    transport
        .send(legacy_notification(
            "notifications/cancelled",
            json!({"requestId": 3, "reason": "x"}),
        ))
        .await;
    let post = mock.next().await;
    assert_eq!(post.rpc_method(), "notifications/cancelled");
    assert_eq!(post.header("mcp-session-id"), Some(SESSION));
    post.accept();
    stream.closed().await;
}

#[tokio::test]
async fn a_new_initialize_starts_a_new_session() {
    let mut mock = Mock::start().await;
    let mut transport = Transport::connect(&mock.url);
    let old_get = handshake(&mut mock, &mut transport, "2025-11-25")
        .await
        .respond_sse(&[]);
    // handshake() checks that the new initialize carries no session id
    let _get = handshake(&mut mock, &mut transport, "2025-11-25").await;
    old_get.closed().await;
}

#[tokio::test]
async fn a_refused_initialize_falls_back_to_http_sse() {
    let mut mock = Mock::start().await;
    let mut transport = Transport::connect(&mock.url);
    transport.send(initialize()).await;
    let post = mock.next().await;
    assert_eq!(post.method, "POST");
    post.respond(405, &[("content-type", "text/plain")], "Method Not Allowed");

    let get = mock.next().await;
    assert_eq!(get.method, "GET");
    assert_eq!(get.header("accept"), Some("text/event-stream"));
    let stream = get.respond_sse(&[]);
    stream
        .raw("event: endpoint\ndata: /mcp?sessionId=aa81\n\n")
        .await;
    // the initialize goes again, to the endpoint
    let post = mock.next().await;
    assert_eq!(post.method, "POST");
    assert_eq!(post.uri.query(), Some("sessionId=aa81"));
    assert_eq!(post.rpc_method(), "initialize");
    post.respond(202, &[], "Accepted");
    let result = initialize_result("2024-11-05");
    stream
        .raw(&format!("event: message\ndata: {result}\n\n"))
        .await;
    assert_eq!(transport.message().await, result);

    // from now on everything goes to the endpoint; answers come on the stream
    transport
        .send(legacy_notification("notifications/initialized", json!({})))
        .await;
    let post = mock.next().await;
    assert_eq!(post.uri.query(), Some("sessionId=aa81"));
    assert!(post.header("mcp-protocol-version").is_none());
    post.respond(202, &[], "Accepted");
    transport
        .send(legacy_request(1, "tools/list", json!({})))
        .await;
    let post = mock.next().await;
    assert_eq!(post.uri.query(), Some("sessionId=aa81"));
    post.respond(202, &[], "Accepted");
    let tools = json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": []}});
    stream
        .raw(&format!("event: message\ndata: {tools}\n\n"))
        .await;
    assert_eq!(transport.message().await, tools);

    // closing drops the stream; there is no session to DELETE
    let mut incoming = transport.close();
    stream.closed().await;
    assert!(matches!(
        incoming.recv().await,
        Some(TransportEvent::Closed(None))
    ));
    assert!(mock.try_next().is_none());
}

#[tokio::test]
async fn a_refused_initialize_without_an_sse_server_fails() {
    let mut mock = Mock::start().await;
    let mut transport = Transport::connect(&mock.url);
    transport.send(initialize()).await;
    mock.next().await.respond(404, &[], "Cannot POST /mcp");
    let get = mock.next().await;
    assert_eq!(get.method, "GET");
    get.respond(404, &[], "Cannot GET /mcp");
    match transport.event().await {
        TransportEvent::RequestFailed { id, error } => {
            assert_eq!(id, 0.into());
            assert_eq!(error.message(), "HTTP 404 Not Found: Cannot POST /mcp");
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn an_http_sse_endpoint_on_another_origin_is_refused() {
    let mut mock = Mock::start().await;
    let mut transport = Transport::connect(&mock.url);
    transport.send(initialize()).await;
    mock.next().await.respond(405, &[], "");
    let stream = mock.next().await.respond_sse(&[]);
    stream
        .raw("event: endpoint\ndata: http://evil.example/messages\n\n")
        .await;
    match transport.event().await {
        TransportEvent::RequestFailed { id, .. } => assert_eq!(id, 0.into()),
        other => panic!("{other:?}"),
    }
    stream.closed().await;
}
