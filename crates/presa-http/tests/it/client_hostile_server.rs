//! A presa `Client` over the HTTP client transport against a hostile server on 127.0.0.1: a
//! server flooding its stream with pings gets a bounded number of answers in flight, on
//! Streamable HTTP and on the 2024-11-05 HTTP+SSE transport, and answers the server stalls
//! hold back neither the client's requests nor its closing.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use futures_util::StreamExt;
use presa_client::{Client, ClientOptions};
use presa_core::ProtocolVersion;
use presa_http::HttpClientOptions;
use serde_json::{Value, json};
use tokio::sync::{Notify, mpsc};

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
        None => flood.take_slowly().await,
    }
}

impl Flood {
    /// An answer to a ping: taken slowly, counting how many wait at once.
    async fn take_slowly(&self) -> Response {
        let now = self.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        self.most_in_flight.fetch_max(now, Ordering::SeqCst);
        tokio::time::sleep(Duration::from_millis(100)).await;
        self.in_flight.fetch_sub(1, Ordering::SeqCst);
        if self.answered.fetch_add(1, Ordering::SeqCst) + 1 == ANSWERS {
            self.enough.notify_one();
        }
        StatusCode::ACCEPTED.into_response()
    }
}

/// `count` pings as SSE events, in one chunk, each `event: message` if `named`.
fn pings(count: usize, named: bool) -> Bytes {
    let mut text = String::new();
    for id in 0..count {
        if named {
            text.push_str("event: message\n");
        }
        text.push_str(&format!(
            "data: {{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"ping\"}}\n\n"
        ));
    }
    Bytes::from(text)
}

/// An event stream of `first`, then nothing, never ending.
fn stream_of(first: Bytes) -> Response {
    let first = futures_util::stream::once(async move { Ok::<_, std::io::Error>(first) });
    let mut response =
        Body::from_stream(first.chain(futures_util::stream::pending())).into_response();
    response
        .headers_mut()
        .insert("content-type", "text/event-stream".parse().unwrap());
    response
}

async fn stream() -> Response {
    stream_of(pings(PINGS, false))
}

/// Serves `app` on 127.0.0.1; returns the URL of its `/mcp`.
async fn serve(app: axum::Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    url
}

#[tokio::test]
async fn a_ping_flood_gets_a_bounded_number_of_answers_in_flight() {
    let flood = Arc::new(Flood::default());
    let app = axum::Router::new()
        .route("/mcp", post(endpoint).get(stream))
        .with_state(Arc::clone(&flood));
    let url = serve(app).await;

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

/// A 2024-11-05 HTTP+SSE server: refuses the Streamable HTTP `initialize`, names its endpoint
/// on its GET stream, answers there, and floods pings there once initialized.
struct Legacy {
    flood: Flood,
    /// What the GET stream sends after the endpoint event.
    events: mpsc::UnboundedSender<Bytes>,
    stream: Mutex<Option<mpsc::UnboundedReceiver<Bytes>>>,
}

async fn legacy_stream(State(legacy): State<Arc<Legacy>>) -> Response {
    let Some(events) = legacy.stream.lock().unwrap().take() else {
        return StatusCode::CONFLICT.into_response();
    };
    let endpoint = futures_util::stream::once(async {
        Ok::<_, std::io::Error>(Bytes::from_static(b"event: endpoint\ndata: /messages\n\n"))
    });
    let events = futures_util::stream::unfold(events, |mut events| async move {
        let event = events.recv().await?;
        Some((Ok(event), events))
    });
    let mut response = Body::from_stream(endpoint.chain(events)).into_response();
    response
        .headers_mut()
        .insert("content-type", "text/event-stream".parse().unwrap());
    response
}

async fn legacy_messages(State(legacy): State<Arc<Legacy>>, body: Bytes) -> Response {
    let message: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    match message["method"].as_str() {
        Some("initialize") => {
            let result = json!({"jsonrpc": "2.0", "id": message["id"], "result": {
                "protocolVersion": "2024-11-05", "capabilities": {},
                "serverInfo": {"name": "flood", "version": "1"}}});
            let event = format!("event: message\ndata: {result}\n\n");
            let _ = legacy.events.send(Bytes::from(event));
            StatusCode::ACCEPTED.into_response()
        }
        Some("notifications/initialized") => {
            let _ = legacy.events.send(pings(PINGS, true));
            StatusCode::ACCEPTED.into_response()
        }
        Some(_) => StatusCode::ACCEPTED.into_response(),
        None => legacy.flood.take_slowly().await,
    }
}

#[tokio::test]
async fn an_http_sse_ping_flood_gets_a_bounded_number_of_answers_in_flight() {
    let (events, stream) = mpsc::unbounded_channel();
    let legacy = Arc::new(Legacy {
        flood: Flood::default(),
        events,
        stream: Mutex::new(Some(stream)),
    });
    let app = axum::Router::new()
        .route(
            "/mcp",
            post(|| async { StatusCode::METHOD_NOT_ALLOWED }).get(legacy_stream),
        )
        .route("/messages", post(legacy_messages))
        .with_state(Arc::clone(&legacy));
    let url = serve(app).await;

    let channel = presa_http::client(&url, HttpClientOptions::default()).unwrap();
    let options = ClientOptions::default().protocol_version(Some(ProtocolVersion::V2024_11_05));
    let client = Client::connect(channel, options).await.unwrap();
    assert_eq!(client.protocol_version(), ProtocolVersion::V2024_11_05);
    tokio::time::timeout(Duration::from_secs(60), legacy.flood.enough.notified())
        .await
        .expect("the pings are answered");
    let most = legacy.flood.most_in_flight.load(Ordering::SeqCst);
    assert!(most <= 16, "{most} answers were in flight at once");
    drop(client);
}

/// As many pings as the client POSTs answers at once.
const STALLED: usize = 16;

/// A server that refuses every answer to its pings with a 400 whose body never ends.
#[derive(Default)]
struct Stall {
    stalled: AtomicUsize,
    all_stalled: Notify,
}

async fn stalling_endpoint(State(stall): State<Arc<Stall>>, body: Bytes) -> Response {
    let message: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let json = |result: Value| {
        let mut headers = HeaderMap::new();
        headers.insert("mcp-session-id", "stalled".parse().unwrap());
        headers.insert("content-type", "application/json".parse().unwrap());
        let body = json!({"jsonrpc": "2.0", "id": message["id"], "result": result});
        (StatusCode::OK, headers, body.to_string()).into_response()
    };
    match message["method"].as_str() {
        Some("initialize") => json(json!({
            "protocolVersion": "2025-06-18", "capabilities": {},
            "serverInfo": {"name": "stall", "version": "1"}})),
        // the client's own request
        Some("ping") => json(json!({})),
        Some(_) => StatusCode::ACCEPTED.into_response(),
        // an answer to a ping: refused at once, then the refusal's body trickles forever
        None => {
            if stall.stalled.fetch_add(1, Ordering::SeqCst) + 1 == STALLED {
                stall.all_stalled.notify_one();
            }
            let first = futures_util::stream::once(async {
                Ok::<_, std::io::Error>(Bytes::from_static(b"{"))
            });
            let body = Body::from_stream(first.chain(futures_util::stream::pending()));
            let mut response = (StatusCode::BAD_REQUEST, body).into_response();
            response
                .headers_mut()
                .insert("content-type", "application/json".parse().unwrap());
            response
        }
    }
}

#[tokio::test]
async fn answers_stalled_in_a_refusal_body_hold_back_neither_requests_nor_closing() {
    let stall = Arc::new(Stall::default());
    let app = axum::Router::new()
        .route(
            "/mcp",
            post(stalling_endpoint)
                .get(|| async { stream_of(pings(STALLED, false)) })
                .delete(|| async { StatusCode::OK }),
        )
        .with_state(Arc::clone(&stall));
    let url = serve(app).await;

    let channel = presa_http::client(&url, HttpClientOptions::default()).unwrap();
    let options = ClientOptions::default().protocol_version(Some(ProtocolVersion::V2025_06_18));
    let client = Client::connect(channel, options).await.unwrap();
    tokio::time::timeout(Duration::from_secs(10), stall.all_stalled.notified())
        .await
        .expect("every ping is answered");

    // as many answers in flight as the client allows, each stuck in its body: the client's
    // own request still goes out, and closing still ends the transport (its grace is 2 s),
    // long before the answers' timeout
    let pong = tokio::time::timeout(
        Duration::from_secs(10),
        client.request_raw("ping", json!({})),
    )
    .await
    .expect("the request is sent and answered while the answers are stuck");
    assert_eq!(pong.unwrap(), json!({}));
    tokio::time::timeout(Duration::from_secs(10), client.close())
        .await
        .expect("closing ends the transport while the answers are stuck");
    assert_eq!(stall.stalled.load(Ordering::SeqCst), STALLED);
}

/// Large pings a server sends, each about `LARGE_PING_BYTES` long.
const LARGE_PINGS: usize = 70;
const LARGE_PING_BYTES: usize = 1 << 20;

/// How many large pings the server's HTTP stack took from the stream.
#[derive(Default)]
struct Pulled(AtomicUsize);

async fn large_pings(State(pulled): State<Arc<Pulled>>) -> Response {
    let large = futures_util::stream::iter(0..LARGE_PINGS).map(move |n| {
        pulled.0.fetch_add(1, Ordering::SeqCst);
        let pad = "x".repeat(LARGE_PING_BYTES);
        let ping = json!({"jsonrpc": "2.0", "id": n, "method": "ping",
            "params": {"_meta": {"pad": pad}}});
        Ok::<_, std::io::Error>(Bytes::from(format!("data: {ping}\n\n")))
    });
    let mut response =
        Body::from_stream(large.chain(futures_util::stream::pending())).into_response();
    response
        .headers_mut()
        .insert("content-type", "text/event-stream".parse().unwrap());
    response
}

/// A client that takes nothing from its transport (busy, or held back by a server that does
/// not take its answers) while the server sends large messages: the transport stops reading
/// once it holds two of the largest messages it accepts, where a bound in count alone (64
/// messages) let it hold a gigabyte at the default 16 MiB. Read at last, every message is
/// there, in order.
#[tokio::test]
async fn a_client_that_takes_nothing_holds_a_bounded_number_of_bytes() {
    let pulled = Arc::new(Pulled::default());
    let app = axum::Router::new()
        .route(
            "/mcp",
            post(|body: Bytes| endpoint(State(Arc::default()), body)).get(large_pings),
        )
        .with_state(Arc::clone(&pulled));
    let url = serve(app).await;

    let options = HttpClientOptions::default().max_message_bytes(LARGE_PING_BYTES * 3 / 2);
    let mut transport = crate::client_support::Transport::with(&url, options);
    let init = presa_test::message::initialize_with(0, "2025-06-18", json!({}));
    transport.send(init).await;
    transport.message().await;
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    transport.send(initialized).await;
    // the GET stream opens and the server sends; wait until it is no longer taken from
    // (unchanged for a second)
    let mut pulled_now = 0;
    let mut unchanged = 0;
    for _ in 0..300 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        let now = pulled.0.load(Ordering::SeqCst);
        unchanged = if now == pulled_now { unchanged + 1 } else { 0 };
        pulled_now = now;
        // (the stream may open late on a busy machine: stable only once it sent some)
        if unchanged == 10 && pulled_now >= 3 {
            break;
        }
    }
    assert!(
        unchanged >= 10 && pulled_now >= 3,
        "the stream was still read from, or never ({pulled_now} pulled)"
    );
    // two waiting, one being handed over, one in the parser, and what the sockets buffer
    assert!(
        pulled_now < LARGE_PINGS / 2,
        "{pulled_now} large pings of {LARGE_PINGS} were read while the client took none"
    );
    for n in 0..LARGE_PINGS {
        let ping = transport.message().await;
        assert_eq!(ping["id"], n, "{}", ping["method"]);
    }
}
