//! The connection: transport failures, cancellation, timeouts, progress, notifications, close.

use std::future::IntoFuture;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use presa_client::{ClientError, ClientOptions, ResultText, TransportError, TransportErrorKind};
use presa_core::{ErrorReport, LoggingLevel};
use presa_test::fake::{FakeConfig, id_of};
use serde_json::{Value, json};

use crate::{connect_with, legacy, methods, modern};

#[tokio::test(start_paused = true)]
async fn a_closed_transport_fails_every_pending_call_at_once() {
    let (client, mut fake) = modern().await;
    let a = tokio::spawn(client.call_tool("slow", ()).into_future());
    let b = tokio::spawn(client.list_tools_page(Some("p2".into())).into_future());
    fake.request("tools/call").await;
    fake.close(Some(TransportError::new(
        TransportErrorKind::Closed,
        "server exited with exit status: 1",
    )));
    // b may have been answered before the close; a never is
    let error = a.await.unwrap().unwrap_err();
    let ClientError::Transport(transport) = &error else {
        panic!("{error:?}")
    };
    assert_eq!(transport.kind(), TransportErrorKind::Closed);
    // the client's error says only that the transport failed; the transport's, behind it, why
    assert_eq!(error.to_string(), "transport failed");
    assert_eq!(
        ErrorReport(&error).to_string(),
        "transport failed: server exited with exit status: 1"
    );
    let _ = b.await.unwrap();
    let later = client
        .call_tool("echo", json!({"text": "x"}))
        .await
        .unwrap_err();
    assert_eq!(later, error, "later calls fail with the same error");
    assert!(client.is_closed());
}

#[tokio::test(start_paused = true)]
async fn two_pending_calls_both_fail_when_the_transport_closes() {
    let (client, mut fake) = legacy().await;
    let a = tokio::spawn(client.call_tool("slow", ()).into_future());
    let b = tokio::spawn(client.call_tool("slow", ()).into_future());
    fake.request("tools/call").await;
    fake.request("tools/call").await;
    fake.close(None);
    for call in [a, b] {
        let error = call.await.unwrap().unwrap_err();
        assert!(matches!(error, ClientError::Transport(_)), "{error:?}");
    }
}

#[tokio::test(start_paused = true)]
async fn a_failed_request_fails_only_that_call() {
    let (client, mut fake) = modern().await;
    let a = tokio::spawn(client.call_tool("slow", ()).into_future());
    let first = fake.request("tools/call").await;
    let b = tokio::spawn(client.call_tool("slow", ()).into_future());
    fake.request("tools/call").await;
    fake.fail(
        id_of(&first),
        TransportError::new(TransportErrorKind::Protocol, "HTTP 502 Bad Gateway"),
    );
    let error = a.await.unwrap().unwrap_err();
    assert!(
        matches!(&error, ClientError::Transport(e) if e.message() == "HTTP 502 Bad Gateway"),
        "{error:?}"
    );
    fake.release();
    assert_eq!(b.await.unwrap().unwrap().text(), "released");
    // the client still works, and told the server nothing about the failed request
    client
        .call_tool("echo", json!({"text": "ok"}))
        .await
        .unwrap();
    let sent = fake.drain();
    assert!(
        !methods(&sent).contains(&"notifications/cancelled".to_owned()),
        "{sent:?}"
    );
}

#[tokio::test(start_paused = true)]
async fn a_dropped_call_is_cancelled() {
    for (client, mut fake) in [modern().await, legacy().await] {
        let call = tokio::spawn(client.call_tool("slow", ()).into_future());
        let request = fake.request("tools/call").await;
        call.abort();
        let cancel = fake
            .next(|m| m["method"] == "notifications/cancelled")
            .await;
        assert_eq!(cancel["params"]["requestId"], request["id"]);
        // the server was told, and the client is fine
        client
            .call_tool("echo", json!({"text": "x"}))
            .await
            .unwrap();
    }
}

#[tokio::test(start_paused = true)]
async fn a_call_dropped_just_before_closing_is_still_cancelled() {
    // what a command line does on Ctrl-C: drop the call, then close at once
    for (client, mut fake) in [modern().await, legacy().await] {
        let mut call = Box::pin(client.call_tool("slow", ()).into_future());
        let request = tokio::select! {
            _ = &mut call => panic!("the slow call answered"),
            request = fake.request("tools/call") => request,
        };
        // dropped, and the connection closed, with nothing in between
        drop(call);
        client.close().await;
        let seen = fake.drain();
        let methods: Vec<&Value> = seen.iter().map(|m| &m["method"]).collect();
        let cancel = seen
            .iter()
            .find(|m| m["method"] == "notifications/cancelled")
            .unwrap_or_else(|| panic!("not cancelled: {methods:?}"));
        assert_eq!(cancel["params"]["requestId"], request["id"]);
    }
}

#[tokio::test(start_paused = true)]
async fn a_call_times_out_and_the_server_is_told() {
    let (client, mut fake) = modern().await;
    let error = client
        .call_tool("slow", ())
        .timeout(Duration::from_secs(5))
        .await
        .unwrap_err();
    assert_eq!(error, ClientError::TimedOut);
    let request = fake.request("tools/call").await;
    let cancel = fake
        .next(|m| m["method"] == "notifications/cancelled")
        .await;
    assert_eq!(cancel["params"]["requestId"], request["id"]);
    assert_eq!(cancel["params"]["reason"], "timed out");
}

#[tokio::test(start_paused = true)]
async fn the_default_timeout_comes_from_the_options() {
    let options = ClientOptions::default().request_timeout(Some(Duration::from_secs(1)));
    let (client, _fake) = connect_with(FakeConfig::legacy(), options).await;
    let error = client.call_tool("slow", ()).await.unwrap_err();
    assert_eq!(error, ClientError::TimedOut);
}

#[tokio::test(start_paused = true)]
async fn progress_reaches_the_call_s_callback() {
    for (client, mut fake) in [modern().await, legacy().await] {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink = seen.clone();
        let result = client
            .call_tool("progress", ())
            .on_progress(move |p| sink.lock().unwrap().push((p.progress, p.total, p.message)))
            .await
            .unwrap();
        assert_eq!(result.text(), "done");
        assert_eq!(
            *seen.lock().unwrap(),
            [
                (1.0, Some(2.0), Some("step 1".to_owned())),
                (2.0, Some(2.0), Some("step 2".to_owned()))
            ]
        );
        let sent = fake.request("tools/call").await;
        assert!(sent["params"]["_meta"]["progressToken"].is_number());
    }
}

#[tokio::test(start_paused = true)]
async fn a_panicking_progress_callback_does_not_break_the_connection() {
    let (client, _fake) = modern().await;
    let result = client
        .call_tool("progress", ())
        .on_progress(|_| panic!("callback bug"))
        .await
        .unwrap();
    assert_eq!(result.text(), "done");
    client
        .call_tool("echo", json!({"text": "x"}))
        .await
        .unwrap();
}

#[tokio::test(start_paused = true)]
async fn notifications_reach_every_receiver() {
    let (client, fake) = modern().await;
    let mut a = client.notifications();
    let mut b = client.notifications();
    fake.notify("notifications/tools/list_changed", json!({}));
    for rx in [&mut a, &mut b] {
        let n = rx.recv().await.unwrap();
        assert_eq!(n.method, "notifications/tools/list_changed");
    }
    assert_eq!(a.missed(), 0);
}

#[tokio::test(start_paused = true)]
async fn log_messages_come_with_a_log_level() {
    let (client, _fake) = modern().await;
    let mut notifications = client.notifications();
    client
        .call_tool("log", ())
        .log_level(LoggingLevel::Info)
        .await
        .unwrap();
    let n = notifications.recv().await.unwrap();
    assert_eq!(n.method, "notifications/message");
    let params: serde_json::Value = serde_json::from_str(n.params.unwrap().get()).unwrap();
    assert_eq!(params["data"], "careful");
}

#[tokio::test(start_paused = true)]
async fn close_ends_calls_receivers_and_the_transport() {
    let (client, mut fake) = modern().await;
    let mut notifications = client.notifications();
    let other = client.clone();
    let pending = tokio::spawn(other.call_tool("slow", ()).into_future());
    fake.request("tools/call").await;
    client.close().await;
    assert_eq!(pending.await.unwrap().unwrap_err(), ClientError::Closed);
    assert_eq!(
        client.call_tool("echo", json!({})).await.unwrap_err(),
        ClientError::Closed
    );
    assert!(notifications.recv().await.is_none());
    assert!(client.notifications().recv().await.is_none());
    fake.ended().await;
    client.close().await; // twice is fine
}

#[tokio::test(start_paused = true)]
async fn dropping_the_last_client_closes_the_transport() {
    let (client, mut fake) = legacy().await;
    let clone = client.clone();
    drop(client);
    clone
        .call_tool("echo", json!({"text": "still open"}))
        .await
        .unwrap();
    drop(clone);
    fake.ended().await;
}
