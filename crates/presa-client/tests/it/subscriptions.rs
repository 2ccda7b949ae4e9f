//! Subscriptions: `subscriptions/listen` (2026-07-28) and `resources/subscribe` with the
//! session's notifications (initialize era), behind one API.

use std::time::Duration;

use presa_client::{ChangeEvent, ClientError, ClientOptions, SubscriptionOptions};
use presa_test::fake::{FakeConfig, id_of};
use serde_json::{Value, json};

use crate::{connect_with, legacy, methods, modern};

fn tagged(id: &Value) -> Value {
    json!({"_meta": {"io.modelcontextprotocol/subscriptionId": id}})
}

fn updated(uri: &str, id: Option<&Value>) -> Value {
    let mut params = json!({"uri": uri});
    if let Some(id) = id {
        params["_meta"] = json!({"io.modelcontextprotocol/subscriptionId": id});
    }
    params
}

fn everything() -> SubscriptionOptions {
    SubscriptionOptions::new()
        .tools_list_changed(true)
        .prompts_list_changed(true)
        .resource("file:///status.txt")
}

#[tokio::test(start_paused = true)]
async fn listen_is_acknowledged_and_yields_only_its_own_notifications() {
    let (client, mut fake) = modern().await;
    let mut subscription = client.subscribe(everything()).await.unwrap();
    let listen = fake.request("subscriptions/listen").await;
    assert_eq!(
        listen["params"]["notifications"],
        json!({"toolsListChanged": true, "promptsListChanged": true,
            "resourceSubscriptions": ["file:///status.txt"]})
    );
    let id = listen["id"].clone();
    assert_eq!(subscription.id(), Some(&id_of(&listen)));
    let honoured = subscription.honoured();
    assert_eq!(honoured.tools_list_changed, Some(true));
    assert_eq!(
        honoured.prompts_list_changed, None,
        "the fake leaves prompts out"
    );

    // another subscription's, and untagged ones, are not this subscription's
    fake.notify("notifications/tools/list_changed", tagged(&json!(99)));
    fake.notify("notifications/tools/list_changed", json!({}));
    fake.notify("notifications/tools/list_changed", tagged(&id));
    fake.notify(
        "notifications/resources/updated",
        updated("file:///status.txt", Some(&id)),
    );
    fake.notify("notifications/tasks/status", tagged(&id));
    assert_eq!(
        subscription.next().await,
        Some(ChangeEvent::ToolsListChanged)
    );
    assert_eq!(
        subscription.next().await,
        Some(ChangeEvent::ResourceUpdated {
            uri: "file:///status.txt".into()
        })
    );
    let Some(ChangeEvent::Other(other)) = subscription.next().await else {
        panic!("an extension's notification is passed on")
    };
    assert_eq!(other.method, "notifications/tasks/status");
    assert_eq!(subscription.missed(), 0);
}

#[tokio::test(start_paused = true)]
async fn a_listen_outlives_the_request_timeout() {
    let options = ClientOptions::default().request_timeout(Some(Duration::from_secs(1)));
    let (client, mut fake) = connect_with(FakeConfig::default(), options).await;
    let mut subscription = client.subscribe(everything()).await.unwrap();
    let id = fake.request("subscriptions/listen").await["id"].clone();
    tokio::time::advance(Duration::from_secs(3600)).await;
    fake.notify("notifications/tools/list_changed", tagged(&id));
    assert_eq!(
        subscription.next().await,
        Some(ChangeEvent::ToolsListChanged)
    );
    assert!(
        !methods(&fake.drain()).contains(&"notifications/cancelled".to_owned()),
        "no timeout cancelled the listen"
    );
}

#[tokio::test(start_paused = true)]
async fn several_subscriptions_are_told_apart_and_dropping_one_cancels_it() {
    let (client, mut fake) = modern().await;
    let mut tools = client
        .subscribe(SubscriptionOptions::new().tools_list_changed(true))
        .await
        .unwrap();
    let first = fake.request("subscriptions/listen").await["id"].clone();
    let mut status = client
        .subscribe(SubscriptionOptions::new().resource("file:///status.txt"))
        .await
        .unwrap();
    let second = fake.request("subscriptions/listen").await["id"].clone();
    assert_ne!(first, second);

    fake.notify(
        "notifications/resources/updated",
        updated("file:///status.txt", Some(&second)),
    );
    fake.notify("notifications/tools/list_changed", tagged(&first));
    assert_eq!(tools.next().await, Some(ChangeEvent::ToolsListChanged));
    assert_eq!(
        status.next().await,
        Some(ChangeEvent::ResourceUpdated {
            uri: "file:///status.txt".into()
        })
    );

    drop(tools);
    let cancel = fake
        .next(|m| m["method"] == "notifications/cancelled")
        .await;
    assert_eq!(cancel["params"]["requestId"], first);
    // the other one lives on
    fake.notify(
        "notifications/resources/updated",
        updated("file:///status.txt/part", Some(&second)),
    );
    assert_eq!(
        status.next().await,
        Some(ChangeEvent::ResourceUpdated {
            uri: "file:///status.txt/part".into()
        })
    );
}

#[tokio::test(start_paused = true)]
async fn the_server_ends_a_subscription_with_its_result_or_a_cancellation() {
    let (client, mut fake) = modern().await;
    let mut graceful = client.subscribe(everything()).await.unwrap();
    let id = fake.request("subscriptions/listen").await["id"].clone();
    fake.notify("notifications/tools/list_changed", tagged(&id));
    fake.raw(
        json!({"jsonrpc": "2.0", "id": id, "result": {"resultType": "complete", "_meta":
        {"io.modelcontextprotocol/subscriptionId": id}}}),
    );
    assert_eq!(
        graceful.next().await,
        Some(ChangeEvent::ToolsListChanged),
        "what came before the end is yielded first"
    );
    assert_eq!(graceful.next().await, None);
    assert_eq!(graceful.next().await, None);
    assert_eq!(graceful.error(), None);

    let mut cancelled = client.subscribe(everything()).await.unwrap();
    let id = fake.request("subscriptions/listen").await["id"].clone();
    fake.raw(
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": id, "reason": "shutting down"}}),
    );
    assert_eq!(cancelled.next().await, None);
    assert_eq!(
        cancelled.error(),
        Some(&ClientError::CancelledByServer {
            reason: Some("shutting down".into())
        })
    );
    // the client still works
    assert_eq!(client.list_tools().await.unwrap().len(), 3);
}

#[tokio::test(start_paused = true)]
async fn closing_the_client_cancels_open_listens_and_ends_them() {
    let (client, mut fake) = modern().await;
    let mut subscription = client.subscribe(everything()).await.unwrap();
    let id = fake.request("subscriptions/listen").await["id"].clone();
    client.close().await;
    let seen = fake.drain();
    let cancel = seen
        .iter()
        .find(|m| m["method"] == "notifications/cancelled")
        .expect("the listen is cancelled");
    assert_eq!(cancel["params"]["requestId"], id);
    assert_eq!(subscription.next().await, None);
    assert_eq!(subscription.error(), Some(&ClientError::Closed));
}

#[tokio::test(start_paused = true)]
async fn notifications_of_a_listen_stream_invalidate_the_cache() {
    let config = FakeConfig {
        ttl_ms: 60_000,
        ..FakeConfig::default()
    };
    let (client, mut fake) = connect_with(config, ClientOptions::default().cache(true)).await;
    let mut subscription = client.subscribe(everything()).await.unwrap();
    let id = fake.request("subscriptions/listen").await["id"].clone();
    client.list_tools().await.unwrap();
    client.list_tools().await.unwrap();
    let lists = |seen: &[Value]| methods(seen).iter().filter(|m| *m == "tools/list").count();
    assert_eq!(lists(&fake.drain()), 3, "three pages once, then the cache");
    fake.notify("notifications/tools/list_changed", tagged(&id));
    assert_eq!(
        subscription.next().await,
        Some(ChangeEvent::ToolsListChanged)
    );
    client.list_tools().await.unwrap();
    assert_eq!(lists(&fake.drain()), 3, "fetched again after the change");
}

#[tokio::test(start_paused = true)]
async fn initialize_era_subscriptions_subscribe_filter_and_unsubscribe() {
    let (client, mut fake) = legacy().await;
    let options = everything()
        .resources_list_changed(true)
        .resource("file:///status.txt")
        .resource("")
        .resource("file:///refused");
    let mut subscription = client.subscribe(options).await.unwrap();
    assert_eq!(subscription.id(), None);
    let seen = fake.drain();
    let subscribed: Vec<&Value> = seen
        .iter()
        .filter(|m| m["method"] == "resources/subscribe")
        .map(|m| &m["params"]["uri"])
        .collect();
    assert_eq!(
        subscribed,
        [&json!("file:///status.txt"), &json!("file:///refused")],
        "an empty URI watches nothing: it is not subscribed to"
    );
    let honoured = subscription.honoured();
    assert_eq!(honoured.tools_list_changed, Some(true));
    assert_eq!(
        honoured.prompts_list_changed, None,
        "prompts: no listChanged"
    );
    assert_eq!(honoured.resources_list_changed, Some(true));
    assert_eq!(
        honoured.resource_subscriptions,
        Some(vec!["file:///status.txt".to_owned()]),
        "the refused URI is left out"
    );

    fake.notify("notifications/prompts/list_changed", json!({}));
    fake.notify(
        "notifications/resources/updated",
        updated("file:///other", None),
    );
    fake.notify(
        "notifications/message",
        json!({"level": "info", "data": "hi"}),
    );
    fake.notify("notifications/tools/list_changed", json!({}));
    fake.notify(
        "notifications/resources/updated",
        updated("file:///status.txt", None),
    );
    fake.notify("notifications/resources/list_changed", json!({}));
    assert_eq!(
        subscription.next().await,
        Some(ChangeEvent::ToolsListChanged)
    );
    assert_eq!(
        subscription.next().await,
        Some(ChangeEvent::ResourceUpdated {
            uri: "file:///status.txt".into()
        })
    );
    assert_eq!(
        subscription.next().await,
        Some(ChangeEvent::ResourcesListChanged)
    );

    // a second subscription to the same URI keeps it subscribed when the first goes
    let second = client
        .subscribe(SubscriptionOptions::new().resource("file:///status.txt"))
        .await
        .unwrap();
    drop(subscription);
    second.close().await;
    let seen = fake.drain();
    let unsubscribed: Vec<&Value> = seen
        .iter()
        .filter(|m| m["method"] == "resources/unsubscribe")
        .map(|m| &m["params"]["uri"])
        .collect();
    assert_eq!(
        unsubscribed,
        [&json!("file:///status.txt")],
        "once, by the last"
    );
}

#[tokio::test(start_paused = true)]
async fn an_initialize_era_subscription_ends_with_the_client() {
    let (client, _fake) = legacy().await;
    let mut subscription = client
        .subscribe(SubscriptionOptions::new().tools_list_changed(true))
        .await
        .unwrap();
    client.close().await;
    assert_eq!(subscription.next().await, None);
    assert_eq!(subscription.error(), Some(&ClientError::Closed));
}

#[tokio::test(start_paused = true)]
async fn subscribing_on_a_closed_client_fails() {
    for (client, _fake) in [modern().await, legacy().await] {
        client.close().await;
        let error = client
            .subscribe(SubscriptionOptions::new().tools_list_changed(true))
            .await
            .unwrap_err();
        assert_eq!(error, ClientError::Closed);
    }
}

#[tokio::test(start_paused = true)]
async fn a_subscription_is_read_from_another_task() {
    let (client, mut fake) = modern().await;
    let mut subscription = client
        .subscribe(SubscriptionOptions::new().tools_list_changed(true))
        .await
        .unwrap();
    let id = fake.request("subscriptions/listen").await["id"].clone();
    let reader = tokio::spawn(async move { subscription.next().await });
    fake.notify("notifications/tools/list_changed", tagged(&id));
    assert_eq!(reader.await.unwrap(), Some(ChangeEvent::ToolsListChanged));
}
