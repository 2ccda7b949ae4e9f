//! presa-redis against a real Redis (Debian's `redis-server`, started per test on a free
//! 127.0.0.1 port and installed on first use).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use presa_http::{InMemorySessionStore, SessionState, SessionStore};
use presa_redis::{Redis, RedisError, RedisOptions};
use presa_server::{Change, EventBus, ListKind};
use presa_test::redis::RedisServer;
use tokio::sync::broadcast;
use tokio::time::timeout;

const PATIENCE: Duration = Duration::from_secs(10);

/// Options for `redis` with a key prefix of this test's own.
fn options(redis: &RedisServer) -> RedisOptions {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    RedisOptions::new(redis.url()).prefix(format!("t{}", NEXT.fetch_add(1, Ordering::Relaxed)))
}

async fn connect(redis: &RedisServer) -> Redis {
    Redis::connect(options(redis)).await.unwrap()
}

fn state(id: &str, revision: u64) -> Arc<SessionState> {
    let json = format!(
        r#"{{"id":"{id}","owner":"alice","revision":{revision},"nextStream":65,"connection":{{
        "session":{{"client":{{"protocolVersion":"2025-11-25","capabilities":{{}},
        "clientInfo":{{"name":"c","version":"1"}}}},"initialized":true,"logLevel":"info"}},
        "subscriptions":["file:///notes.txt"]}}}}"#
    );
    Arc::new(serde_json::from_str(&json).unwrap())
}

/// What every session store does, whatever keeps the states: written once, run on the
/// in-memory store and on Redis.
async fn behaves_as_a_session_store(store: &dyn SessionStore) {
    let hour = Some(Duration::from_secs(3600));
    assert!(store.save(state("a", 1), None, hour).await.unwrap());
    let loaded = store.load("a", hour).await.unwrap().expect("saved");
    assert_eq!(
        loaded,
        state("a", 1),
        "the state comes back as it was saved"
    );
    assert!(store.load("b", hour).await.unwrap().is_none());

    assert!(
        !store.save(state("a", 1), None, hour).await.unwrap(),
        "a new session's id is taken"
    );
    assert!(
        !store.save(state("a", 2), Some(7), hour).await.unwrap(),
        "a stale revision"
    );
    assert!(store.save(state("a", 2), Some(1), hour).await.unwrap());
    assert_eq!(store.load("a", hour).await.unwrap().unwrap().revision, 2);

    store.remove("a").await.unwrap();
    assert!(store.load("a", hour).await.unwrap().is_none());
    assert!(
        !store.save(state("a", 3), Some(2), hour).await.unwrap(),
        "removed: nothing to replace"
    );
    store.remove("never-saved").await.unwrap();

    // a TTL of zero keeps nothing; a load sets the TTL anew
    assert!(
        store
            .save(state("z", 1), None, Some(Duration::ZERO))
            .await
            .unwrap()
    );
    assert!(
        store.load("z", hour).await.unwrap().is_none(),
        "expired at once"
    );
    assert!(store.save(state("l", 1), None, hour).await.unwrap());
    assert!(
        store
            .load("l", Some(Duration::ZERO))
            .await
            .unwrap()
            .is_some()
    );
    assert!(
        store.load("l", hour).await.unwrap().is_none(),
        "expired after its new TTL"
    );

    // without a TTL, a state stays
    assert!(store.save(state("n", 1), None, None).await.unwrap());
    assert!(store.load("n", None).await.unwrap().is_some());
}

#[tokio::test]
async fn the_in_memory_store_is_the_reference() {
    behaves_as_a_session_store(&InMemorySessionStore::default()).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_redis_store_behaves_as_the_in_memory_one() {
    let server = RedisServer::start();
    let redis = connect(&server).await;
    behaves_as_a_session_store(&redis.session_store()).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_session_is_one_hash_with_the_idle_timeout_as_its_ttl() {
    let server = RedisServer::start();
    let redis = connect(&server).await;
    let prefix = redis.options().get_prefix().to_owned();
    let store = redis.session_store();
    let ttl = Duration::from_secs(1800);
    assert!(store.save(state("5f1c", 1), None, Some(ttl)).await.unwrap());
    let key = format!("{prefix}:session:{{5f1c}}");
    assert_eq!(server.command(&["TYPE", &key]), "+hash");
    let pttl: u64 = server.command(&["PTTL", &key])[1..].parse().unwrap();
    assert!(pttl > 1_700_000 && pttl <= 1_800_000, "PTTL {pttl}");
    // a load renews it; without a TTL it is kept for good
    store.load("5f1c", None).await.unwrap().unwrap();
    assert_eq!(server.command(&["PTTL", &key]), ":-1");
    store.remove("5f1c").await.unwrap();
    assert_eq!(server.command(&["EXISTS", &key]), ":0");
}

#[tokio::test(flavor = "multi_thread")]
async fn two_instances_sharing_redis_never_overwrite_each_others_saves() {
    let server = RedisServer::start();
    let options = options(&server);
    let (one, two) = (
        Redis::connect(options.clone())
            .await
            .unwrap()
            .session_store(),
        Redis::connect(options).await.unwrap().session_store(),
    );
    assert!(one.save(state("s", 1), None, None).await.unwrap());
    // both saw revision 1; both try to replace it at once: exactly one wins
    let (a, b) = tokio::join!(
        one.save(state("s", 2), Some(1), None),
        two.save(state("s", 2), Some(1), None)
    );
    assert!(
        a.unwrap() ^ b.unwrap(),
        "exactly one save of revision 2 wins"
    );
    assert_eq!(two.load("s", None).await.unwrap().unwrap().revision, 2);
}

/// The next change `listener` hears, failing the test after [`PATIENCE`].
async fn next(listener: &mut broadcast::Receiver<Change>) -> Change {
    timeout(PATIENCE, listener.recv())
        .await
        .expect("a change within the patience")
        .unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_change_published_on_one_instance_reaches_every_instance_once() {
    let server = RedisServer::start();
    let options = options(&server);
    let a = Redis::connect(options.clone()).await.unwrap();
    let b = Redis::connect(options).await.unwrap();
    let (bus_a, bus_b) = (a.event_bus().await.unwrap(), b.event_bus().await.unwrap());
    let (mut on_a, mut on_b) = (bus_a.subscribe(), bus_b.subscribe());

    let updated = Change::ResourceUpdated("file:///notes.txt".into());
    bus_a.publish(updated.clone());
    assert_eq!(
        next(&mut on_a).await,
        updated,
        "the publisher's own listeners"
    );
    assert_eq!(next(&mut on_b).await, updated, "through Redis");

    // b answers once it heard; a hears b's change next, so its own did not come back to it
    let tools = Change::ListChanged(ListKind::Tools);
    bus_b.publish(tools.clone());
    assert_eq!(next(&mut on_b).await, tools);
    assert_eq!(
        next(&mut on_a).await,
        tools,
        "nothing of a's own in between"
    );
    assert!(on_a.try_recv().is_err() && on_b.try_recv().is_err());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_redis_restart_fails_requests_meanwhile_and_everything_works_after() {
    let server = RedisServer::start();
    let options = options(&server).response_timeout(Duration::from_millis(500));
    let a = Redis::connect(options.clone()).await.unwrap();
    let b = Redis::connect(options).await.unwrap();
    let store = a.session_store();
    let (bus_a, bus_b) = (a.event_bus().await.unwrap(), b.event_bus().await.unwrap());
    let mut on_b = bus_b.subscribe();
    assert!(store.save(state("r", 1), None, None).await.unwrap());

    server.stop();
    let error = store.load("r", None).await.expect_err("Redis is down");
    assert!(
        error.to_string().contains("could not load session r"),
        "{error}"
    );
    // publishing while Redis is away only warns; this instance still hears it
    let mut on_a = bus_a.subscribe();
    bus_a.publish(Change::ListChanged(ListKind::Prompts));
    assert_eq!(
        next(&mut on_a).await,
        Change::ListChanged(ListKind::Prompts)
    );

    server.resume();
    // the store reconnects by itself (the dataset is empty: nothing was persisted)
    let reconnected = async {
        loop {
            if let Ok(loaded) = store.load("r", None).await {
                return loaded;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    assert!(timeout(PATIENCE, reconnected).await.unwrap().is_none());
    assert!(store.save(state("r", 1), None, None).await.unwrap());
    // and the bus subscribes again by itself: a change published now reaches b
    let heard = async {
        let tools = Change::ListChanged(ListKind::Tools);
        loop {
            bus_a.publish(tools.clone());
            match timeout(Duration::from_millis(200), on_b.recv()).await {
                Ok(Ok(change)) if change == tools => return,
                Ok(Ok(_)) | Err(_) => {}
                Ok(Err(broadcast::error::RecvError::Lagged(_))) => {}
                Ok(Err(broadcast::error::RecvError::Closed)) => panic!("the bus closed"),
            }
        }
    };
    timeout(PATIENCE, heard)
        .await
        .expect("b hears a's changes again");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unreachable_redis_is_a_clear_error_naming_its_url() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("redis://app:s3cret@127.0.0.1:{port}/");
    let options = RedisOptions::new(url).connection_timeout(Duration::from_millis(500));
    let error = Redis::connect(options)
        .await
        .expect_err("nothing listens there");
    assert!(matches!(error, RedisError::Unreachable { .. }), "{error:?}");
    let shown = error.to_string();
    assert!(
        shown.starts_with(&format!(
            "could not connect to Redis at redis://app:***@127.0.0.1:{port}/"
        )),
        "{shown}"
    );
    assert!(!shown.contains("s3cret"));
}
