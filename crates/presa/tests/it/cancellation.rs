//! What a cancelled handler sees, in both eras, in-process and over Streamable HTTP: its future
//! is dropped at its next await (a `Drop` guard runs; a `select!` branch on `cx.cancelled()`
//! waiting there does not), and work it handed to a task of its own sees `cx.cancelled()`
//! complete.

use std::future::IntoFuture;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use presa::client::{Client, ClientOptions};
use presa::core::ProtocolVersion;
use presa::prelude::*;
use tokio::sync::Notify;

#[derive(Default)]
struct Seen {
    started: Notify,
    dropped: Notify,
    spawned_saw_cancel: Notify,
    branch_ran: AtomicBool,
}

/// Notifies when the handler's future is dropped.
struct DropGuard(Arc<Seen>);

impl Drop for DropGuard {
    fn drop(&mut self) {
        self.0.dropped.notify_one();
    }
}

fn server(seen: Arc<Seen>) -> Server {
    Server::builder("cancellation", "1.0.0")
        .state(seen)
        .typed_tool("wait", |(), cx: Context| async move {
            let seen = Arc::clone(cx.state::<Arc<Seen>>()?);
            let _guard = DropGuard(Arc::clone(&seen));
            let watcher = cx.clone();
            let spawned = Arc::clone(&seen);
            tokio::spawn(async move {
                watcher.cancelled().await;
                spawned.spawned_saw_cancel.notify_one();
            });
            seen.started.notify_one();
            tokio::select! {
                () = tokio::time::sleep(Duration::from_secs(3600)) => {}
                () = cx.cancelled() => seen.branch_ran.store(true, Ordering::SeqCst),
            }
            Ok::<_, ToolError>("finished")
        })
        .build()
        .unwrap()
}

async fn cancel_a_call(client: Client, seen: &Seen) {
    let call = tokio::spawn(client.call_tool("wait", ()).into_future());
    seen.started.notified().await;
    // dropping the call cancels it: notifications/cancelled, or on 2026-07-28 over HTTP, the
    // request's stream closed
    call.abort();
    let wait = Duration::from_secs(10);
    tokio::time::timeout(wait, seen.dropped.notified())
        .await
        .expect("the handler's future is dropped");
    tokio::time::timeout(wait, seen.spawned_saw_cancel.notified())
        .await
        .expect("a task holding the context sees the cancellation");
    assert!(
        !seen.branch_ran.load(Ordering::SeqCst),
        "a dropped handler runs no cancellation branch"
    );
    client.close().await;
}

fn options(version: ProtocolVersion) -> ClientOptions {
    ClientOptions::new(presa::core::Implementation::new("cancel-test", "1.0.0"))
        .protocol_version(Some(version))
}

#[tokio::test]
async fn a_cancelled_handler_is_dropped_in_process_in_both_eras() {
    for version in [ProtocolVersion::V2026_07_28, ProtocolVersion::V2025_11_25] {
        let seen = Arc::new(Seen::default());
        let client = Client::connect(
            presa::in_process(server(Arc::clone(&seen))),
            options(version),
        )
        .await
        .unwrap();
        cancel_a_call(client, &seen).await;
    }
}

#[tokio::test]
async fn a_cancelled_handler_is_dropped_over_http_in_both_eras() {
    for version in [ProtocolVersion::V2026_07_28, ProtocolVersion::V2025_11_25] {
        let seen = Arc::new(Seen::default());
        let running = presa::http::serve(
            server(Arc::clone(&seen)),
            presa::http::HttpOptions::default(),
        )
        .await
        .unwrap();
        let channel =
            presa::http::client(running.url(), presa::http::HttpClientOptions::default()).unwrap();
        let client = Client::connect(channel, options(version)).await.unwrap();
        cancel_a_call(client, &seen).await;
        running.stop().await.unwrap();
    }
}
