//! A presa `Client` over the HTTP client transport against a hostile server on 127.0.0.1: a
//! server flooding its GET stream with pings gets a bounded number of answers in flight.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use presa_client::{Client, ClientOptions};
use presa_core::ProtocolVersion;
use presa_http::HttpClientOptions;
use serde_json::{Value, json};
use tokio::sync::Notify;

/// Pings the flooding server sends at once on its GET stream.
const PINGS: usize = 2_000;
/// Answers the test waits for before judging.
const ANSWERS: usize = 100;

#[derive(Default)]
struct Flood {
    in_flight: AtomicUsize,
    most_in_flight: AtomicUsize,
    answered: AtomicUsize,
    enough: Notify,
}

async fn endpoint(State(flood): State<Arc<Flood>>, body: Bytes) -> Response {
    let message: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    match message["method"].as_str() {
        Some("initialize") => {
            let result = json!({"jsonrpc": "2.0", "id": message["id"], "result": {
                "protocolVersion": "2025-06-18", "capabilities": {},
                "serverInfo": {"name": "flood", "version": "1"}}});
            let mut headers = HeaderMap::new();
            headers.insert("mcp-session-id", "flooded".parse().unwrap());
            headers.insert("content-type", "application/json".parse().unwrap());
            (StatusCode::OK, headers, result.to_string()).into_response()
        }
        Some(_) => StatusCode::ACCEPTED.into_response(),
        // an answer to a ping: taken slowly, counting how many wait at once
        None => {
            let now = flood.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
            flood.most_in_flight.fetch_max(now, Ordering::SeqCst);
            tokio::time::sleep(Duration::from_millis(100)).await;
            flood.in_flight.fetch_sub(1, Ordering::SeqCst);
            if flood.answered.fetch_add(1, Ordering::SeqCst) + 1 == ANSWERS {
                flood.enough.notify_one();
            }
            StatusCode::ACCEPTED.into_response()
        }
    }
}

async fn stream() -> Response {
    let mut text = String::new();
    for id in 0..PINGS {
        text.push_str(&format!(
            "data: {{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"ping\"}}\n\n"
        ));
    }
    let pings =
        futures_util::stream::once(async move { Ok::<_, std::io::Error>(Bytes::from(text)) });
    let body = futures_util::StreamExt::chain(pings, futures_util::stream::pending());
    let mut response = Body::from_stream(body).into_response();
    response
        .headers_mut()
        .insert("content-type", "text/event-stream".parse().unwrap());
    response
}

#[tokio::test]
async fn a_ping_flood_gets_a_bounded_number_of_answers_in_flight() {
    let flood = Arc::new(Flood::default());
    let app = axum::Router::new()
        .route("/mcp", post(endpoint).get(stream))
        .with_state(Arc::clone(&flood));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });

    let channel = presa_http::client(&url, HttpClientOptions::default()).unwrap();
    let options = ClientOptions::default().protocol_version(Some(ProtocolVersion::V2025_06_18));
    let client = Client::connect(channel, options).await.unwrap();
    tokio::time::timeout(Duration::from_secs(60), flood.enough.notified())
        .await
        .expect("the pings are answered");
    let most = flood.most_in_flight.load(Ordering::SeqCst);
    assert!(most <= 16, "{most} answers were in flight at once");
    drop(client);
}
