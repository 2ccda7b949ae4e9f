//! The optional cache: hits, expiry, invalidation, and what is never cached.

use std::time::Duration;

use presa_client::{Client, ClientOptions, ResultText};
use presa_test::fake::{Fake, FakeConfig};
use serde_json::json;

use crate::{connect_with, methods};

async fn cached(ttl_ms: u64) -> (Client, Fake) {
    let config = FakeConfig {
        ttl_ms,
        discover_ttl_ms: ttl_ms,
        ..FakeConfig::default()
    };
    let (client, mut fake) = connect_with(config, ClientOptions::default().cache(true)).await;
    fake.drain();
    (client, fake)
}

fn count(fake: &mut Fake, method: &str) -> usize {
    methods(&fake.drain())
        .iter()
        .filter(|m| *m == method)
        .count()
}

#[tokio::test(start_paused = true)]
async fn fresh_results_are_served_from_the_cache() {
    let (client, mut fake) = cached(1000).await;
    for _ in 0..2 {
        assert_eq!(client.list_tools().await.unwrap().len(), 3);
        let read = client.read_resource("file:///readme.txt").await.unwrap();
        assert_eq!(read.text(), "Read me first.");
    }
    client.discover().await.unwrap();
    let sent = fake.drain();
    let sent = methods(&sent);
    assert_eq!(
        sent.iter().filter(|m| *m == "tools/list").count(),
        3,
        "one pass of pages"
    );
    assert_eq!(sent.iter().filter(|m| *m == "resources/read").count(), 1);
    assert_eq!(
        sent.iter().filter(|m| *m == "server/discover").count(),
        0,
        "cached at connect"
    );
}

#[tokio::test(start_paused = true)]
async fn entries_expire_after_their_ttl() {
    let (client, mut fake) = cached(1000).await;
    client.read_resource("file:///readme.txt").await.unwrap();
    tokio::time::advance(Duration::from_millis(999)).await;
    client.read_resource("file:///readme.txt").await.unwrap();
    assert_eq!(count(&mut fake, "resources/read"), 1);
    tokio::time::advance(Duration::from_millis(1)).await;
    client.read_resource("file:///readme.txt").await.unwrap();
    assert_eq!(count(&mut fake, "resources/read"), 1, "fetched again");
}

#[tokio::test(start_paused = true)]
async fn change_notifications_drop_what_they_concern() {
    let (client, mut fake) = cached(60_000).await;
    let mut notifications = client.notifications();
    client.list_tools().await.unwrap();
    client.list_resources().await.unwrap();
    client.read_resource("file:///readme.txt").await.unwrap();
    fake.drain();

    fake.notify("notifications/tools/list_changed", json!({}));
    notifications.recv().await.unwrap();
    client.list_tools().await.unwrap();
    client.list_resources().await.unwrap();
    assert_eq!(
        methods(&fake.drain()),
        ["tools/list"; 3],
        "resources stayed cached"
    );

    fake.notify(
        "notifications/resources/updated",
        json!({"uri": "file:///readme.txt"}),
    );
    notifications.recv().await.unwrap();
    client.read_resource("file:///readme.txt").await.unwrap();
    client.list_resources().await.unwrap();
    assert_eq!(methods(&fake.drain()), ["resources/read"]);

    fake.notify("notifications/resources/list_changed", json!({}));
    notifications.recv().await.unwrap();
    client.list_resources().await.unwrap();
    client.read_resource("file:///readme.txt").await.unwrap();
    assert_eq!(methods(&fake.drain()), ["resources/list"]);
}

#[tokio::test(start_paused = true)]
async fn zero_ttl_is_never_cached() {
    let (client, mut fake) = cached(0).await;
    client.list_tools_page(None).await.unwrap();
    client.list_tools_page(None).await.unwrap();
    assert_eq!(count(&mut fake, "tools/list"), 2);
}

#[tokio::test(start_paused = true)]
async fn a_call_may_skip_the_cache_and_the_cache_is_off_by_default() {
    let (client, mut fake) = cached(60_000).await;
    client.list_tools_page(None).await.unwrap();
    client.list_tools_page(None).use_cache(false).await.unwrap();
    client.list_tools_page(None).await.unwrap();
    assert_eq!(count(&mut fake, "tools/list"), 2);

    let config = FakeConfig {
        ttl_ms: 60_000,
        ..FakeConfig::default()
    };
    let (client, mut fake) = connect_with(config, ClientOptions::default()).await;
    fake.drain();
    client.list_tools_page(None).await.unwrap();
    client.list_tools_page(None).await.unwrap();
    assert_eq!(count(&mut fake, "tools/list"), 2);
}

#[tokio::test(start_paused = true)]
async fn tool_calls_are_never_cached() {
    let (client, mut fake) = cached(60_000).await;
    client
        .call_tool("echo", json!({"text": "a"}))
        .await
        .unwrap();
    client
        .call_tool("echo", json!({"text": "a"}))
        .await
        .unwrap();
    assert_eq!(count(&mut fake, "tools/call"), 2);
}
