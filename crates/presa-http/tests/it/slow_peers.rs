//! Peers that hold a connection without finishing a request, over raw TCP on 127.0.0.1: each is
//! cut off by a timeout, and connections past the cap are turned away, while well-behaved
//! clients go on being served.

use std::time::Duration;

use presa_http::{HttpOptions, RunningServer, serve};
use presa_server::Server;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Longer than any timeout below by far: a peer not cut off by then was held.
const PATIENCE: Duration = Duration::from_secs(20);

async fn start(options: HttpOptions) -> RunningServer {
    let server = Server::builder("slow-peers", "1").build().unwrap();
    serve(server, options).await.unwrap()
}

async fn connect(running: &RunningServer) -> TcpStream {
    TcpStream::connect(running.local_addr()).await.unwrap()
}

/// Everything the server sends until it closes the connection; fails if it holds the
/// connection past [`PATIENCE`].
async fn read_until_closed(tcp: &mut TcpStream) -> String {
    let mut out = Vec::new();
    let read = tokio::time::timeout(PATIENCE, tcp.read_to_end(&mut out)).await;
    assert!(
        read.is_ok(),
        "the server held the connection: {:?}",
        String::from_utf8_lossy(&out)
    );
    String::from_utf8_lossy(&out).into_owned()
}

/// A well-formed initialize-era `initialize` POST, as raw HTTP/1.1.
fn initialize_post(running: &RunningServer) -> String {
    let body = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;
    format!(
        "POST /mcp HTTP/1.1\r\nhost: {}\r\ncontent-type: application/json\r\n\
         accept: application/json, text/event-stream\r\ncontent-length: {}\r\n\r\n{body}",
        running.local_addr(),
        body.len()
    )
}

fn quick() -> HttpOptions {
    HttpOptions::default()
        .header_read_timeout(Some(Duration::from_millis(300)))
        .body_timeout(Some(Duration::from_millis(300)))
}

#[tokio::test]
async fn a_silent_connection_is_closed() {
    let running = start(quick()).await;
    let mut tcp = connect(&running).await;
    assert_eq!(read_until_closed(&mut tcp).await, "");
}

#[tokio::test]
async fn half_sent_headers_are_cut_off() {
    let running = start(quick()).await;
    let mut tcp = connect(&running).await;
    tcp.write_all(b"POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-")
        .await
        .unwrap();
    read_until_closed(&mut tcp).await;
}

#[tokio::test]
async fn a_half_sent_body_gets_408() {
    let running = start(quick()).await;
    let mut tcp = connect(&running).await;
    let post = initialize_post(&running);
    // everything but the body's last 10 bytes
    tcp.write_all(&post.as_bytes()[..post.len() - 10])
        .await
        .unwrap();
    let answer = read_until_closed(&mut tcp).await;
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("did not arrive within 300 ms"), "{answer}");
}

#[tokio::test]
async fn an_idle_keep_alive_connection_is_closed_after_its_request() {
    let running = start(quick()).await;
    let mut tcp = connect(&running).await;
    tcp.write_all(initialize_post(&running).as_bytes())
        .await
        .unwrap();
    let answer = read_until_closed(&mut tcp).await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(
        answer.contains("\"protocolVersion\":\"2025-06-18\""),
        "{answer}"
    );
}

#[tokio::test]
async fn connections_past_the_cap_are_turned_away_and_room_comes_back() {
    let running = start(HttpOptions::default().max_connections(2)).await;
    let mut held = vec![connect(&running).await, connect(&running).await];
    // both held connections are being served (a request on each is answered)
    for tcp in &mut held {
        tcp.write_all(initialize_post(&running).as_bytes())
            .await
            .unwrap();
        let mut first = [0u8; 12];
        tcp.read_exact(&mut first).await.unwrap();
        assert_eq!(&first, b"HTTP/1.1 200");
    }
    let mut third = connect(&running).await;
    let answer = read_until_closed(&mut third).await;
    assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
    assert!(answer.contains("retry-after: 1"), "{answer}");
    drop(held.pop());
    // the freed place is taken by the next connection (the server notices the close first)
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        let mut next = connect(&running).await;
        next.write_all(initialize_post(&running).as_bytes())
            .await
            .unwrap();
        let mut first = [0u8; 12];
        next.read_exact(&mut first).await.unwrap();
        if &first == b"HTTP/1.1 200" {
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "no room came back");
    }
}
