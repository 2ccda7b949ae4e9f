//! presa-redis against a real Redis (Debian's `redis-server`, started per test on a free
//! 127.0.0.1 port and installed on first use).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use presa_core::TaskStatus;
use presa_http::{
    InMemorySessionStore, LoggedEvent, Relayed, SessionState, SessionStorage, SessionStore,
    SharedSessionStore,
};
use presa_redis::{Redis, RedisBus, RedisError, RedisOptions};
use presa_server::{
    BusReceiver, Change, EventBus, InMemoryTaskStore, ListKind, TaskLimits, TaskRecord, TaskStore,
    TaskStoreError,
};
use presa_test::redis::{RedisCluster, RedisServer};
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

/// What two instances' stores on one Redis share besides the states: each session's event
/// log, and the relay of client messages. Run on standalone Redis and on a cluster.
async fn two_stores_share_logs_and_relay(a: &dyn SharedSessionStore, b: &dyn SharedSessionStore) {
    let hour = Some(Duration::from_secs(3600));
    let json = |n: u64| {
        format!(r#"{{"jsonrpc":"2.0","method":"notifications/message","params":{{"n":{n}}}}}"#)
    };
    for id in ["g", "h", "t"] {
        assert!(a.save(state(id, 1), None, hour).await.unwrap());
    }
    let mut events = vec![LoggedEvent::opening("g", 65, 1)];
    events.extend((2..=5).map(|seq| LoggedEvent::new("g", 65, seq, json(seq))));
    // another session and another stream of this one, in the same batch
    events.push(LoggedEvent::new("h", 65, 2, json(9)));
    events.push(LoggedEvent::opening("g", 70, 0));
    events.push(LoggedEvent::new("g", 70, 1, json(70)));
    a.log_events(events, hour).await.unwrap();

    let seqs = |found: Option<Vec<LoggedEvent>>| {
        found.map(|events| {
            events
                .iter()
                .map(|e| (e.seq, e.json.to_string()))
                .collect::<Vec<_>>()
        })
    };
    assert_eq!(
        seqs(b.events_after("g", 65, 3).await.unwrap()),
        Some(vec![(4, json(4)), (5, json(5))]),
        "the other instance reads what came after the event, in order, of that stream only"
    );
    assert_eq!(
        seqs(b.events_after("g", 65, 1).await.unwrap()).map(|e| e.len()),
        Some(4),
        "from the priming event, every message (the opening mark is not one)"
    );
    assert_eq!(
        seqs(b.events_after("g", 65, 5).await.unwrap()),
        Some(vec![])
    );
    assert_eq!(
        seqs(b.events_after("g", 70, 0).await.unwrap()),
        Some(vec![(1, json(70))])
    );
    assert_eq!(
        b.events_after("g", 66, 1).await.unwrap(),
        None,
        "an unknown stream"
    );
    assert_eq!(
        b.events_after("x", 65, 1).await.unwrap(),
        None,
        "an unknown session"
    );

    // a capped log: once the event resumed from is trimmed away, it is unknown
    let many = (1..=1100)
        .map(|seq| LoggedEvent::new("t", 1, seq, json(seq)))
        .collect();
    a.log_events(many, hour).await.unwrap();
    assert_eq!(
        b.events_after("t", 1, 3).await.unwrap(),
        None,
        "trimmed away"
    );
    assert_eq!(
        seqs(b.events_after("t", 1, 1098).await.unwrap()).map(|e| e.len()),
        Some(2)
    );

    // the log goes with its session, and is not made again for it
    a.remove("g").await.unwrap();
    assert_eq!(b.events_after("g", 65, 3).await.unwrap(), None, "removed");
    let late = vec![
        LoggedEvent::opening("g", 80, 0),
        LoggedEvent::new("g", 80, 1, json(1)),
    ];
    a.log_events(late, hour).await.unwrap();
    assert_eq!(
        b.events_after("g", 80, 0).await.unwrap(),
        None,
        "no log for a removed session"
    );

    // a relayed message reaches the other instance, not the sender
    let mut on_a = a.relayed();
    let mut on_b = b.relayed();
    let message = Relayed::new("g", r#"{"jsonrpc":"2.0","id":"b7:0","result":{}}"#);
    // the channel's subscription may still be settling: relay until b hears, each once
    let heard = timeout(PATIENCE, async {
        loop {
            a.relay(message.clone());
            if let Ok(Some(Ok(heard))) = timeout(Duration::from_millis(200), on_b.recv()).await {
                return heard;
            }
        }
    })
    .await
    .expect("b hears what a relays");
    assert_eq!(heard, message);
    assert!(
        on_a.try_recv().is_none(),
        "the sender does not hear its own message"
    );
}

#[tokio::test]
async fn the_in_memory_store_is_the_reference() {
    behaves_as_a_session_store(&InMemorySessionStore::default()).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_redis_store_behaves_as_the_in_memory_one() {
    let server = RedisServer::start();
    let redis = connect(&server).await;
    behaves_as_a_session_store(&redis.session_store().await.unwrap()).await;
    let other = Redis::connect(redis.options().clone()).await.unwrap();
    let (a, b) = (
        redis.session_store().await.unwrap(),
        other.session_store().await.unwrap(),
    );
    two_stores_share_logs_and_relay(&a, &b).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_in_memory_store_serves_one_instance_and_the_redis_store_several() {
    // the in-memory store has no event log and no relay: it can only be local storage
    assert!(!SessionStorage::local(Arc::new(InMemorySessionStore::default())).is_shared());
    let server = RedisServer::start();
    let redis = connect(&server).await;
    assert!(SessionStorage::shared(Arc::new(redis.session_store().await.unwrap())).is_shared());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_session_is_one_hash_with_the_idle_timeout_as_its_ttl() {
    let server = RedisServer::start();
    let redis = connect(&server).await;
    let prefix = redis.options().get_prefix().to_owned();
    let store = redis.session_store().await.unwrap();
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
            .session_store()
            .await
            .unwrap(),
        Redis::connect(options)
            .await
            .unwrap()
            .session_store()
            .await
            .unwrap(),
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
async fn next(listener: &mut BusReceiver<Change>) -> Change {
    timeout(PATIENCE, listener.recv())
        .await
        .expect("a change within the patience")
        .expect("the bus is open")
        .expect("nothing missed")
}

/// What two instances' buses on one Redis do: written once, run on standalone Redis and on a
/// cluster.
async fn two_buses_hear_each_other_once(bus_a: &RedisBus, bus_b: &RedisBus) {
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
    assert!(on_a.try_recv().is_none() && on_b.try_recv().is_none());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_change_published_on_one_instance_reaches_every_instance_once() {
    let server = RedisServer::start();
    let options = options(&server);
    let a = Redis::connect(options.clone()).await.unwrap();
    let b = Redis::connect(options).await.unwrap();
    let (bus_a, bus_b) = (a.event_bus().await.unwrap(), b.event_bus().await.unwrap());
    two_buses_hear_each_other_once(&bus_a, &bus_b).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_redis_restart_fails_requests_meanwhile_and_everything_works_after() {
    let server = RedisServer::start();
    let options = options(&server).response_timeout(Duration::from_millis(500));
    let a = Redis::connect(options.clone()).await.unwrap();
    let b = Redis::connect(options).await.unwrap();
    let store = a.session_store().await.unwrap();
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
                Ok(Some(Ok(change))) if change == tools => return,
                Ok(Some(Ok(_) | Err(_))) | Err(_) => {}
                Ok(None) => panic!("the bus closed"),
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

/// A running task of `owner`, created at 1,000 ms and kept 100 ms once it ends.
fn task(id: &str, owner: &str) -> TaskRecord {
    serde_json::from_value(serde_json::json!({
        "id": id, "owner": owner, "protocolVersion": "2026-07-28", "status": "working",
        "createdAtMs": 1_000, "updatedAtMs": 1_000, "ttlMs": 100
    }))
    .unwrap()
}

fn ended(mut task: TaskRecord, status: TaskStatus) -> TaskRecord {
    task.status = status;
    task
}

fn ids(page: Vec<TaskRecord>) -> Vec<String> {
    page.into_iter().map(|t| t.id).collect()
}

/// What every task store does: written once, run on the in-memory store and on Redis.
async fn behaves_as_a_task_store(store: &dyn TaskStore) {
    let limits = TaskLimits {
        per_owner: 2,
        total: 3,
    };
    store.create(task("a1", "a"), limits, 1_000).await.unwrap();
    store.create(task("a2", "a"), limits, 1_000).await.unwrap();
    let refused = store.create(task("a3", "a"), limits, 1_000).await;
    assert!(
        matches!(
            refused,
            Err(TaskStoreError::Full {
                limit: "per owner",
                max: 2
            })
        ),
        "{refused:?}"
    );
    store.create(task("b1", "b"), limits, 1_000).await.unwrap();
    let refused = store.create(task("c1", "c"), limits, 1_000).await;
    assert!(
        matches!(
            refused,
            Err(TaskStoreError::Full {
                limit: "total",
                max: 3
            })
        ),
        "{refused:?}"
    );
    let got = store.get("a1", 1_000).await.unwrap().expect("created");
    assert_eq!((got.owner.as_str(), got.status), ("a", TaskStatus::Working));
    assert!(store.get("nope", 1_000).await.unwrap().is_none());

    // a running task never expires; one that ended does, 100 ms after its creation, and then
    // makes room
    assert!(store.get("a1", u64::MAX).await.unwrap().is_some());
    assert!(
        store
            .update(ended(task("a1", "a"), TaskStatus::Completed))
            .await
            .unwrap()
    );
    assert!(store.create(task("c1", "c"), limits, 1_099).await.is_err());
    assert!(store.get("a1", 1_099).await.unwrap().is_some());
    store.create(task("c1", "c"), limits, 1_100).await.unwrap();
    assert!(store.get("a1", 1_100).await.unwrap().is_none());
    // a task that is gone is not brought back by a late write
    assert!(
        !store
            .update(ended(task("a1", "a"), TaskStatus::Failed))
            .await
            .unwrap()
    );
    assert!(store.get("a1", 0).await.unwrap().is_none());

    // a task that ended stays as it ended
    assert!(
        store
            .update(ended(task("b1", "b"), TaskStatus::Cancelled))
            .await
            .unwrap()
    );
    let mut progress = task("b1", "b");
    progress.status_message = Some("half way".into());
    assert!(!store.update(progress).await.unwrap());
    let b1 = store.get("b1", 1_000).await.unwrap().unwrap();
    assert_eq!(
        (b1.status, b1.status_message),
        (TaskStatus::Cancelled, None)
    );

    // eviction takes what expired, and says what is left: a2 and c1 run, b1 ended
    assert_eq!(store.evict_expired(1_099).await.unwrap(), 3);
    assert_eq!(store.evict_expired(1_100).await.unwrap(), 2);
    assert_eq!(
        store.evict_expired(u64::MAX).await.unwrap(),
        2,
        "running tasks stay"
    );

    // a running task is kept while its runner's lease holds, and forgotten once it lapses
    // (its instance stopped); a renewal moves it
    let mut leased = task("l1", "l");
    leased.lease_until_ms = Some(1_050);
    store
        .create(leased.clone(), TaskLimits::default(), 1_000)
        .await
        .unwrap();
    assert!(store.get("l1", 1_049).await.unwrap().is_some());
    assert!(
        store.get("l1", 1_050).await.unwrap().is_none(),
        "the lease lapsed"
    );
    leased.lease_until_ms = Some(2_000);
    assert!(
        store.update(leased).await.unwrap(),
        "renewed before the sweep"
    );
    assert!(store.get("l1", 1_999).await.unwrap().is_some());
    assert_eq!(
        store.evict_expired(1_500).await.unwrap(),
        3,
        "a2, c1 and l1 are left"
    );
    assert_eq!(
        store.evict_expired(2_000).await.unwrap(),
        2,
        "l1's renewed lease lapsed"
    );
    assert!(
        !store.update(task("l1", "l")).await.unwrap(),
        "and it stays gone"
    );

    // lists: per owner, in creation order, paged, without the expired
    let many = TaskLimits::default();
    for id in ["x1", "y1", "x2", "x3", "x4"] {
        store.create(task(id, &id[..1]), many, 1_000).await.unwrap();
    }
    assert!(
        store
            .update(ended(task("x2", "x"), TaskStatus::Completed))
            .await
            .unwrap()
    );
    assert_eq!(
        ids(store.list("x", None, 2, 1_000).await.unwrap()),
        ["x1", "x2"]
    );
    assert_eq!(
        ids(store.list("x", Some("x2"), 2, 1_000).await.unwrap()),
        ["x3", "x4"]
    );
    assert_eq!(
        ids(store.list("x", None, 2, 1_100).await.unwrap()),
        ["x1", "x3"],
        "x2 expired"
    );
    assert_eq!(
        ids(store.list("x", Some("y1"), 1, 1_000).await.unwrap()),
        ["x1"],
        "not x's"
    );
    assert_eq!(ids(store.list("y", None, 10, 1_000).await.unwrap()), ["y1"]);
    assert!(store.list("z", None, 10, 1_000).await.unwrap().is_empty());
    assert!(store.list("x", None, 0, 1_000).await.unwrap().is_empty());

    // a long list reads past Redis's chunks, in order
    let long: Vec<String> = (0..250).map(|i| format!("w{i:03}")).collect();
    for id in &long {
        store.create(task(id, "w"), many, 1_000).await.unwrap();
    }
    assert_eq!(ids(store.list("w", None, 300, 1_000).await.unwrap()), long);
    assert_eq!(
        ids(store.list("w", Some("w099"), 120, 1_000).await.unwrap()),
        long[100..220]
    );
}

#[tokio::test]
async fn the_in_memory_task_store_is_the_reference() {
    behaves_as_a_task_store(&InMemoryTaskStore::new()).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_redis_task_store_behaves_as_the_in_memory_one() {
    let server = RedisServer::start();
    let redis = connect(&server).await;
    behaves_as_a_task_store(&redis.task_store()).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn tasks_created_on_one_instance_are_seen_and_ended_on_another() {
    let server = RedisServer::start();
    let options = options(&server);
    let one = Redis::connect(options.clone()).await.unwrap().task_store();
    let two = Redis::connect(options).await.unwrap().task_store();
    one.create(task("t", "o"), TaskLimits::default(), 1_000)
        .await
        .unwrap();
    assert_eq!(
        two.get("t", 1_000).await.unwrap().unwrap().status,
        TaskStatus::Working
    );
    // a cancel on two; the runner on one learns of it from its next write
    assert!(
        two.update(ended(task("t", "o"), TaskStatus::Cancelled))
            .await
            .unwrap()
    );
    assert!(!one.update(task("t", "o")).await.unwrap());
    assert_eq!(ids(one.list("o", None, 10, 1_000).await.unwrap()), ["t"]);
    // a burst of creates from both at once never passes the limits
    let limits = TaskLimits {
        per_owner: 10,
        total: 1_000,
    };
    let creates = (0..40).map(|i| {
        let store = if i % 2 == 0 { &one } else { &two };
        store.create(task(&format!("burst{i}"), "p"), limits, 1_000)
    });
    let created = futures_util::future::join_all(creates)
        .await
        .into_iter()
        .filter(Result::is_ok)
        .count();
    assert_eq!(created, 10);
    assert_eq!(one.list("p", None, 100, 1_000).await.unwrap().len(), 10);
}

#[tokio::test(flavor = "multi_thread")]
async fn on_a_redis_cluster_the_stores_and_the_bus_behave_the_same() {
    let cluster = RedisCluster::start();
    let options = RedisOptions::cluster(cluster.urls()).prefix("c");
    let a = Redis::connect(options.clone()).await.unwrap();
    let b = Redis::connect(options).await.unwrap();
    behaves_as_a_session_store(&a.session_store().await.unwrap()).await;
    behaves_as_a_task_store(&a.task_store()).await;
    let (one, two) = (
        a.session_store().await.unwrap(),
        b.session_store().await.unwrap(),
    );
    two_stores_share_logs_and_relay(&one, &two).await;

    let (bus_a, bus_b) = (a.event_bus().await.unwrap(), b.event_bus().await.unwrap());
    two_buses_hear_each_other_once(&bus_a, &bus_b).await;
}
