//! The strict HTTP baseline of `cargo xtask bench`: POST `/mcp` reads the JSON-RPC body only as
//! far as its `id` and `method` and answers a result serialized at start with the id spliced in
//! (202 for a notification). No MCP, no sessions, no header checks: the floor an MCP server on
//! axum is measured against.
//!
//! ```sh
//! cargo run --release -p presa-bench --bin axum_baseline -- 127.0.0.1:0 [--reply METHOD=FILE]...
//! ```
//!
//! `--reply tools/list=page.json` answers `tools/list` with the result in `page.json` (the
//! driver passes the very page presa answered, so both sides send the same bytes).
//! `--progress N` answers every `tools/call` as an SSE stream instead: N progress
//! notifications to the request's progress token, each its own frame, then the reply.

use std::convert::Infallible;
use std::process::ExitCode;
use std::sync::Arc;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::StatusCode;
use axum::http::header::CONTENT_TYPE;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::serve::ListenerExt;
use presa_bench::canned::{Envelope, ProgressRequest, Replies, progress_event};

/// What the baseline answers.
#[derive(Debug)]
struct Baseline {
    replies: Replies,
    /// Progress notifications sent before each `tools/call`'s reply, on SSE.
    progress: Option<u32>,
}

async fn mcp(State(baseline): State<Arc<Baseline>>, body: Bytes) -> Response {
    let Some(request) = Envelope::read(&body) else {
        return StatusCode::BAD_REQUEST.into_response();
    };
    let replies = &baseline.replies;
    if let (Some(total), Some("tools/call"), Some(id)) =
        (baseline.progress, request.method.as_deref(), request.id)
        && let Some(token) = ProgressRequest::token(&body)
        && let Some(canned) = replies.get("tools/call")
    {
        let mut last = b"data: ".to_vec();
        canned.write(id, &mut last);
        last.extend_from_slice(b"\n\n");
        let token = token.to_owned();
        let events = (1..=total)
            .map(move |step| progress_event(&token, step, total))
            .chain(std::iter::once(last))
            .map(Ok::<_, Infallible>);
        let body = Body::from_stream(futures_util::stream::iter(events));
        return ([(CONTENT_TYPE, "text/event-stream")], body).into_response();
    }
    let mut reply = Vec::new();
    match replies.answer(&request, &mut reply) {
        Some(()) => ([(CONTENT_TYPE, "application/json")], reply).into_response(),
        None => StatusCode::ACCEPTED.into_response(),
    }
}

async fn run() -> Result<(), String> {
    let (replies, rest) = Replies::from_args(std::env::args().skip(1))?;
    let (mut address, mut progress) = ("127.0.0.1:0", None);
    let mut rest = rest.iter();
    while let Some(arg) = rest.next() {
        if arg == "--progress" {
            let count = rest.next().ok_or("--progress needs a count")?;
            progress = Some(count.parse().map_err(|_| format!("not a count: {count}"))?);
        } else {
            address = arg;
        }
    }
    let listener = tokio::net::TcpListener::bind(address)
        .await
        .map_err(|e| format!("bind {address}: {e}"))?;
    let local = listener.local_addr().map_err(|e| e.to_string())?;
    println!("listening http://{local}/mcp");
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    let app = Router::new()
        .route("/mcp", post(mcp))
        .with_state(Arc::new(Baseline { replies, progress }));
    axum::serve(listener, app).await.map_err(|e| e.to_string())
}

#[tokio::main]
async fn main() -> ExitCode {
    match run().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("axum_baseline: {error}");
            ExitCode::FAILURE
        }
    }
}
