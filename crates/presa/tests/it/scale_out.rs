//! Several instances of the `library` example sharing their state on a real Redis: each
//! request sent to the instance a round-robin load balancer would pick, and independent MCP
//! clients (the TypeScript and Python SDKs, in every negotiation mode) through a real nginx
//! balancing round-robin over three replicas.
//!
//! The Redis is standalone, or a Redis Cluster of three masters when `PRESA_SCALE_OUT_REDIS`
//! is `cluster` (what `cargo xtask cluster --redis-cluster` sets).

use presa_test::nginx::Nginx;
use presa_test::redis::{RedisCluster, RedisServer};
use serde_json::{Value, json};

use crate::interop::library::{self as seed, Driver};
use crate::interop::{self, Listening, library};

/// The key every instance seals 2026-07-28 input rounds with.
const KEY: &str = "a shared request-state key of at least 32 bytes";

/// The Redis the replicas share.
enum Shared {
    Standalone(RedisServer),
    Cluster(RedisCluster),
}

impl Shared {
    /// Standalone, unless `PRESA_SCALE_OUT_REDIS` asks for a cluster.
    fn start() -> Self {
        match std::env::var("PRESA_SCALE_OUT_REDIS").as_deref() {
            Ok("cluster") => Self::Cluster(RedisCluster::start()),
            _ => Self::Standalone(RedisServer::start()),
        }
    }

    /// The library's flags for it.
    fn flags(&self) -> [String; 2] {
        match self {
            Self::Standalone(redis) => ["--redis".into(), redis.url()],
            Self::Cluster(cluster) => ["--redis-cluster".into(), cluster.urls().join(",")],
        }
    }

    /// Its processes, each a `redis-server`.
    fn nodes(&self) -> &[RedisServer] {
        match self {
            Self::Standalone(redis) => std::slice::from_ref(redis),
            Self::Cluster(cluster) => cluster.nodes(),
        }
    }

    /// How many keys it holds.
    fn keys(&self) -> u64 {
        self.nodes()
            .iter()
            .map(|node| node.command(&["DBSIZE"])[1..].parse::<u64>().unwrap())
            .sum()
    }
}

/// `library --http 127.0.0.1:0 --redis URL` (or `--redis-cluster URL,…`).
fn replica(redis: &Shared) -> Listening {
    let mut command = std::process::Command::new(library());
    command
        .args(["--http", "127.0.0.1:0"])
        .args(redis.flags())
        .env("PRESA_REQUEST_STATE_KEY", KEY);
    Listening::start("a library replica", command)
}

/// What a POST was answered with: its status, its session id, and the JSON-RPC message of its
/// body (JSON, or the first event of an event stream), `Null` for none.
struct Answer {
    status: u16,
    session: Option<String>,
    message: Value,
}

/// POSTs `body` as an MCP client does: on `session` (initialize era) if given, with the
/// 2026-07-28 headers when the body carries a `_meta`.
async fn send(url: &str, session: Option<&str>, body: &Value) -> reqwest::Response {
    let mut request = reqwest::Client::new()
        .post(url)
        .header("Accept", "application/json, text/event-stream")
        .header("Content-Type", "application/json");
    if let Some(session) = session {
        request = request
            .header("Mcp-Session-Id", session)
            .header("MCP-Protocol-Version", "2025-11-25");
    }
    if body["params"]["_meta"].is_object() {
        request = request
            .header("MCP-Protocol-Version", "2026-07-28")
            .header("Mcp-Method", body["method"].as_str().unwrap())
            .header(
                "Mcp-Name",
                body["params"]["name"].as_str().unwrap_or_default(),
            );
    }
    request.body(body.to_string()).send().await.unwrap()
}

async fn post(url: &str, session: Option<&str>, body: Value) -> Answer {
    let response = send(url, session, &body).await;
    let status = response.status().as_u16();
    let session = response
        .headers()
        .get("mcp-session-id")
        .map(|v| v.to_str().unwrap().to_owned());
    let text = response.text().await.unwrap();
    let json = match text.lines().find_map(|line| line.strip_prefix("data:")) {
        Some(data) => data.trim(),
        None => text.trim(),
    };
    let message = if json.is_empty() {
        Value::Null
    } else {
        serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}: {text}"))
    };
    Answer {
        status,
        session,
        message,
    }
}

fn request(id: u64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

#[tokio::test(flavor = "multi_thread")]
async fn an_initialize_era_session_goes_on_on_every_replica() {
    let redis = Shared::start();
    let replicas = [replica(&redis), replica(&redis), replica(&redis)];
    let url = |i: usize| replicas[i % replicas.len()].url();

    let initialize = request(
        1,
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {},
               "clientInfo": {"name": "scale-out", "version": "1"}}),
    );
    let started = post(url(0), None, initialize).await;
    assert_eq!(started.status, 200);
    assert_eq!(started.message["result"]["protocolVersion"], "2025-11-25");
    let id = started.session.expect("an Mcp-Session-Id");
    let session = Some(id.as_str());

    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(post(url(1), session, initialized).await.status, 202);

    // each request on the next replica, round-robin
    for (i, id) in (2..8).enumerate() {
        let add = request(
            id,
            "tools/call",
            json!({"name": "add", "arguments": {"numbers": [1, 2, id]}}),
        );
        let answer = post(url(i + 2), session, add).await;
        assert_eq!(answer.status, 200, "on replica {}", (i + 2) % 3);
        assert_eq!(
            answer.message["result"]["structuredContent"]["sum"].as_u64(),
            Some(3 + id),
            "{}",
            answer.message
        );
    }
    let read = request(9, "resources/read", json!({"uri": "file:///readme.txt"}));
    let answer = post(url(2), session, read).await;
    assert_eq!(
        answer.message["result"]["contents"][0]["text"],
        "Read me first."
    );

    // the session's state is on Redis, not in one process
    assert_eq!(redis.keys(), 1);

    // ended on one replica, it is gone on all
    let ended = reqwest::Client::new()
        .delete(url(1))
        .header("Mcp-Session-Id", &id)
        .header("MCP-Protocol-Version", "2025-11-25")
        .send()
        .await
        .unwrap();
    assert!(ended.status().is_success(), "{}", ended.status());
    for i in 0..3 {
        let ping = request(20, "ping", json!({}));
        assert_eq!(
            post(url(i), session, ping).await.status,
            404,
            "on replica {i}"
        );
    }
    assert_eq!(redis.keys(), 0);
}

#[test]
fn a_replica_whose_redis_cannot_be_reached_says_where_it_looked() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let output = std::process::Command::new(library())
        .args(["--http", "127.0.0.1:0", "--redis"])
        .arg(format!("redis://127.0.0.1:{port}/"))
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(&format!(
            "could not connect to Redis at redis://127.0.0.1:{port}/"
        )),
        "{stderr}"
    );
}

/// Redis, three replicas on it, and nginx in front of them with plain round-robin.
struct Cluster {
    nginx: Nginx,
    replicas: Vec<Listening>,
    redis: Shared,
}

impl Cluster {
    /// Of `library` replicas.
    fn start() -> Self {
        Self::of(replica)
    }

    /// Of the replicas `start` starts.
    fn of(start: fn(&Shared) -> Listening) -> Self {
        let redis = Shared::start();
        let replicas: Vec<Listening> = (0..3).map(|_| start(&redis)).collect();
        let upstreams: Vec<std::net::SocketAddr> = replicas
            .iter()
            .map(|replica| {
                let url = replica.url().strip_prefix("http://").unwrap();
                url.split_once('/').unwrap().0.parse().unwrap()
            })
            .collect();
        Self {
            nginx: Nginx::round_robin(&upstreams),
            replicas,
            redis,
        }
    }

    fn url(&self) -> String {
        self.nginx.url("/mcp")
    }
}

/// The seed replay of `library.rs` (list, call, read, templates, prompts, completion) by
/// `driver`, through nginx to three replicas.
fn drive_through_the_balancer(driver: Driver) {
    let cluster = Cluster::start();
    let mut client = driver.command();
    client.args(["--http", &cluster.url()]);
    let report = interop::report(client);
    seed::check(&report, driver);
}

#[test]
fn typescript_sdk_v2_legacy_through_round_robin() {
    drive_through_the_balancer(Driver::SdkV2Initialize);
}

#[test]
fn typescript_sdk_v2_auto_through_round_robin() {
    drive_through_the_balancer(Driver::SdkV2Auto);
}

#[test]
fn typescript_sdk_v2_pinned_2026_through_round_robin() {
    drive_through_the_balancer(Driver::SdkV2Pinned);
}

#[test]
fn python_sdk_legacy_through_round_robin() {
    drive_through_the_balancer(Driver::PythonInitialize);
}

#[test]
fn python_sdk_auto_through_round_robin() {
    drive_through_the_balancer(Driver::PythonAuto);
}

#[test]
fn python_sdk_pinned_2026_through_round_robin() {
    drive_through_the_balancer(Driver::PythonPinned);
}

#[tokio::test(flavor = "multi_thread")]
async fn while_redis_is_down_sessions_get_503_and_2026_calls_go_on() {
    let shared = Shared::Standalone(RedisServer::start());
    let replica = replica(&shared);
    let Shared::Standalone(redis) = &shared else {
        unreachable!()
    };
    let initialize = request(
        1,
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {},
               "clientInfo": {"name": "outage", "version": "1"}}),
    );
    let id = post(replica.url(), None, initialize).await.session.unwrap();
    redis.stop();

    let ping = request(2, "ping", json!({}));
    let response = send(replica.url(), Some(&id), &ping).await;
    assert_eq!(response.status().as_u16(), 503);
    assert!(response.headers().contains_key("retry-after"));

    // 2026-07-28 needs no store
    let add = presa_test::message::request(
        3,
        "tools/call",
        json!({"name": "add", "arguments": {"numbers": [2, 2]}}),
    );
    let (status, body) = status_through(replica.url(), None, &add).await;
    assert_eq!(status, 200);
    assert!(body.contains(r#""sum":4"#), "{body}");

    // Redis back (empty: nothing was persisted): the session is unknown, a new one works
    redis.resume();
    let again = async {
        loop {
            let ping = request(4, "ping", json!({}));
            let answer = post(replica.url(), Some(&id), ping).await;
            if answer.status != 503 {
                return answer.status;
            }
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    };
    let status = tokio::time::timeout(std::time::Duration::from_secs(10), again)
        .await
        .expect("the replica reaches Redis again");
    assert_eq!(status, 404);
    let initialize = request(
        5,
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {},
               "clientInfo": {"name": "outage", "version": "1"}}),
    );
    assert_eq!(post(replica.url(), None, initialize).await.status, 200);
}

/// A server instance with its event bus on `redis`, served over Streamable HTTP.
async fn instance(
    redis: &presa::redis::Redis,
) -> (presa::server::Server, presa::http::RunningServer) {
    use presa::core::Resource;
    use presa::server::{Context, Server};
    let server = Server::builder("desk", "1.0.0")
        .subscribe(true)
        .list_changed(true)
        .shared_bus(std::sync::Arc::new(redis.event_bus().await.unwrap()))
        .resource(
            Resource::new("file:///status.txt", "status"),
            |_cx: Context| async { "idle" },
        )
        .build()
        .unwrap();
    let options = presa::http::HttpOptions::default().port(0);
    let running = presa::http::serve(server.clone(), options).await.unwrap();
    (server, running)
}

#[tokio::test(flavor = "multi_thread")]
async fn listens_on_every_instance_hear_a_change_published_on_one() {
    use presa::client::{ChangeEvent, Client, ClientOptions, SubscriptionOptions};
    use presa::redis::{Redis, RedisOptions};

    let server = RedisServer::start();
    let redis = Redis::connect(RedisOptions::new(server.url()))
        .await
        .unwrap();
    let instances = [
        instance(&redis).await,
        instance(&redis).await,
        instance(&redis).await,
    ];
    // a 2026-07-28 client listening on each instance
    let mut listens = Vec::new();
    for (_, running) in &instances {
        let channel = presa::http::client(running.url(), Default::default()).unwrap();
        let client = Client::connect(channel, ClientOptions::default())
            .await
            .unwrap();
        let changes = client
            .subscribe(
                SubscriptionOptions::new()
                    .resource("file:///status.txt")
                    .resource("file:///other.txt"),
            )
            .await
            .unwrap();
        listens.push((client, changes));
    }
    // a change made on the first instance: its listen hears it at once, the others through
    // Redis; then one made on the second: each listen hears it next (the first instance's own
    // change did not come back to it through Redis)
    for (publisher, uri) in [(0, "file:///status.txt"), (1, "file:///other.txt")] {
        instances[publisher].0.resource_updated(uri);
        for (i, (_, changes)) in listens.iter_mut().enumerate() {
            let next =
                tokio::time::timeout(std::time::Duration::from_secs(10), changes.next()).await;
            assert_eq!(
                next.unwrap_or_else(|_| panic!("instance {i} heard nothing")),
                Some(ChangeEvent::ResourceUpdated { uri: uri.into() }),
                "on instance {i}"
            );
        }
    }
}

/// What a POST of `body` through the balancer was answered with: its status and body.
async fn status_through(url: &str, session: Option<&str>, body: &Value) -> (u16, String) {
    let response = send(url, session, body).await;
    let status = response.status().as_u16();
    (status, response.text().await.unwrap())
}

#[tokio::test(flavor = "multi_thread")]
async fn redis_restarted_under_the_cluster_errors_meanwhile_and_no_replica_exits() {
    let mut cluster = Cluster::start();
    let url = cluster.url();
    let initialize = request(
        1,
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {},
               "clientInfo": {"name": "restart", "version": "1"}}),
    );
    let session = post(&url, None, initialize.clone()).await.session.unwrap();

    for node in cluster.redis.nodes() {
        node.stop();
    }
    // every replica in turn: sessions and new sessions get 503, 2026-07-28 calls are answered
    let add = presa_test::message::request(
        2,
        "tools/call",
        json!({"name": "add", "arguments": {"numbers": [1, 1]}}),
    );
    for _ in 0..3 {
        let ping = request(3, "ping", json!({}));
        assert_eq!(status_through(&url, Some(&session), &ping).await.0, 503);
        assert_eq!(status_through(&url, None, &initialize).await.0, 503);
        let (status, body) = status_through(&url, None, &add).await;
        assert_eq!(status, 200, "{body}");
        assert!(body.contains(r#""sum":2"#), "{body}");
    }

    for node in cluster.redis.nodes() {
        node.resume();
    }
    // each replica reconnects by itself: three new sessions in a row, one on each
    let recovered = async {
        let mut in_a_row = 0;
        while in_a_row < 3 {
            match status_through(&url, None, &initialize).await.0 {
                200 => in_a_row += 1,
                _ => {
                    in_a_row = 0;
                    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                }
            }
        }
    };
    tokio::time::timeout(std::time::Duration::from_secs(20), recovered)
        .await
        .expect("every replica serves new sessions again");
    for (i, replica) in cluster.replicas.iter_mut().enumerate() {
        assert!(replica.is_running(), "replica {i} exited");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_session_call_costs_one_redis_round_trip_and_a_2026_call_none() {
    let redis = Shared::Standalone(RedisServer::start());
    let replicas = [replica(&redis), replica(&redis), replica(&redis)];
    let Shared::Standalone(server) = &redis else {
        unreachable!()
    };
    let initialize = request(
        1,
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {},
               "clientInfo": {"name": "counting", "version": "1"}}),
    );
    let id = post(replicas[0].url(), None, initialize)
        .await
        .session
        .unwrap();
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    post(replicas[1].url(), Some(&id), initialized).await;
    // every replica has the session's live parts (its first request there restores them) and
    // a block of stream numbers of its own
    for replica in &replicas {
        post(replica.url(), Some(&id), request(2, "ping", json!({}))).await;
    }

    // requests spread round-robin: each loads the state (one script), none saves it
    let calls = 90;
    let started = std::time::Instant::now();
    let (before, saves_before) = (server.round_trips(), server.calls("hset"));
    for i in 0..calls {
        let add = request(
            3 + i,
            "tools/call",
            json!({"name": "add", "arguments": {"numbers": [i]}}),
        );
        let answer = post(replicas[i as usize % 3].url(), Some(&id), add).await;
        assert_eq!(answer.status, 200);
    }
    let session_trips = server.round_trips() - before;
    assert_eq!(
        server.calls("hset") - saves_before,
        0,
        "no call saved the session"
    );
    // besides, each replica's two channels (the bus, the relay) check their subscriptions
    // once a second each
    let watch = 6 * (started.elapsed().as_secs() + 2);
    assert!(
        session_trips >= calls && session_trips <= calls + watch,
        "{session_trips} round trips for {calls} session calls"
    );

    let started = std::time::Instant::now();
    let before = server.round_trips();
    for i in 0..calls {
        let add = presa_test::message::request(
            200 + i,
            "tools/call",
            json!({"name": "add", "arguments": {"numbers": [i]}}),
        );
        let (status, _) = status_through(replicas[i as usize % 3].url(), None, &add).await;
        assert_eq!(status, 200);
    }
    let stateless_trips = server.round_trips() - before;
    let watch = 6 * (started.elapsed().as_secs() + 2);
    assert!(
        stateless_trips <= watch,
        "{stateless_trips} round trips for {calls} 2026-07-28 calls"
    );
}

/// `notes --http 127.0.0.1:0 --redis URL`: the example with elicitation and subscriptions.
fn notes_replica(redis: &Shared) -> Listening {
    let mut command = std::process::Command::new(crate::interop::notes());
    command
        .args(["--http", "127.0.0.1:0"])
        .args(redis.flags())
        .env("PRESA_REQUEST_STATE_KEY", KEY);
    Listening::start("a notes replica", command)
}

/// How long a scenario waits for an event before it fails.
const PATIENCE: std::time::Duration = std::time::Duration::from_secs(10);

/// The events of one SSE response, read as they come.
struct Events {
    body: reqwest::Response,
    pending: String,
}

/// One SSE event: its id and its data (`Null` for a priming event's empty data).
#[derive(Clone, Debug, PartialEq)]
struct Event {
    id: Option<String>,
    message: Value,
}

impl Events {
    fn of(response: reqwest::Response) -> Self {
        assert_eq!(response.status(), 200);
        assert!(
            response.headers()["content-type"]
                .to_str()
                .unwrap()
                .starts_with("text/event-stream")
        );
        Self {
            body: response,
            pending: String::new(),
        }
    }

    /// The next event (comments and keep-alives skipped); `None` when the stream ended.
    async fn next(&mut self) -> Option<Event> {
        loop {
            if let Some(end) = self.pending.find("\n\n") {
                let block: String = self.pending.drain(..end + 2).collect();
                let mut id = None;
                let mut data = String::new();
                let mut any = false;
                for line in block.lines() {
                    if let Some(value) = line.strip_prefix("id:") {
                        id = Some(value.trim().to_owned());
                        any = true;
                    } else if let Some(value) = line.strip_prefix("data:") {
                        data.push_str(value.trim());
                        any = true;
                    }
                }
                if !any {
                    continue;
                }
                let message = if data.is_empty() {
                    Value::Null
                } else {
                    serde_json::from_str(&data).unwrap()
                };
                return Some(Event { id, message });
            }
            let chunk = tokio::time::timeout(PATIENCE, self.body.chunk())
                .await
                .expect("an event within the patience")
                .unwrap()?;
            self.pending
                .push_str(&String::from_utf8_lossy(&chunk).replace("\r\n", "\n"));
        }
    }

    /// The next event carrying a message whose method is `method`, the others passed over.
    async fn next_of(&mut self, method: &str) -> Event {
        loop {
            let event = self.next().await.expect("the stream goes on");
            if event.message["method"] == method {
                return event;
            }
        }
    }
}

/// Opens session `session`'s GET stream on `url`, resuming after `last_event_id` if given.
async fn get_stream(url: &str, session: &str, last_event_id: Option<&str>) -> reqwest::Response {
    let mut request = reqwest::Client::new()
        .get(url)
        .header("Accept", "text/event-stream")
        .header("Mcp-Session-Id", session)
        .header("MCP-Protocol-Version", "2025-11-25");
    if let Some(id) = last_event_id {
        request = request.header("Last-Event-ID", id);
    }
    request.send().await.unwrap()
}

/// An initialized 2025-11-25 session of a client that can answer elicitations: `initialize`
/// on `first`, `notifications/initialized` on `second`; returns its id.
async fn elicitation_session(first: &str, second: &str) -> String {
    let initialize = request(
        1,
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {"elicitation": {"form": {}}},
               "clientInfo": {"name": "spread", "version": "1"}}),
    );
    let id = post(first, None, initialize).await.session.unwrap();
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(post(second, Some(&id), initialized).await.status, 202);
    id
}

fn add_note(id: u64, title: &str) -> Value {
    request(
        id,
        "tools/call",
        json!({"name": "add_note", "arguments": {"title": title, "body": "b"}}),
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn a_session_spread_over_replicas_hears_updates_and_answers_elicitations_anywhere() {
    let redis = Shared::start();
    let replicas = [
        notes_replica(&redis),
        notes_replica(&redis),
        notes_replica(&redis),
    ];
    let (a, b, c) = (replicas[0].url(), replicas[1].url(), replicas[2].url());
    spread(a, b, c).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_session_through_the_balancer_hears_updates_and_answers_elicitations() {
    let cluster = Cluster::of(notes_replica);
    let url = cluster.url();
    // each request to whichever replica nginx picks next
    spread(&url, &url, &url).await;
}

/// `initialize` and the GET stream on `a`, the subscription on `b`, a note added on `c`: the
/// update reaches the GET stream; then a tool on `b` asks for confirmation, answered on `a`.
async fn spread(a: &str, b: &str, c: &str) {
    let session = elicitation_session(a, b).await;
    let id = Some(session.as_str());

    // the GET stream on A; the subscription made through B
    let mut stream = Events::of(get_stream(a, &session, None).await);
    let priming = stream.next().await.unwrap();
    assert_eq!(
        priming.message,
        Value::Null,
        "a 2025-11-25 stream starts primed"
    );
    let subscribe = request(2, "resources/subscribe", json!({"uri": "notes://index"}));
    assert_eq!(post(b, id, subscribe).await.status, 200);

    // a note added on C: C announces the index's update, and A's GET stream carries it
    let added = post(c, id, add_note(3, "from C")).await;
    assert!(
        added.message["result"]["structuredContent"]["id"].is_u64(),
        "{}",
        added.message
    );
    let updated = stream.next_of("notifications/resources/updated").await;
    assert_eq!(updated.message["params"]["uri"], "notes://index");

    // a tool on B asks for confirmation on its POST stream; the answer goes to A
    let delete = request(
        4,
        "tools/call",
        json!({"name": "delete_note", "arguments": {"id": 1}}),
    );
    let mut on_b = Events::of(send(b, id, &delete).await);
    let asked = on_b.next_of("elicitation/create").await;
    assert!(
        asked.message["params"]["message"]
            .as_str()
            .unwrap()
            .contains("Welcome"),
        "{}",
        asked.message
    );
    let answer = json!({"jsonrpc": "2.0", "id": asked.message["id"],
                        "result": {"action": "accept", "content": {"confirm": true}}});
    assert_eq!(post(a, id, answer).await.status, 202);
    let result = loop {
        let event = on_b.next().await.expect("B's stream ends with the result");
        if event.message["id"] == 4 {
            break event.message;
        }
    };
    assert_eq!(
        result["result"]["content"][0]["text"], "deleted note 1",
        "{result}"
    );
}

/// The events the log holds for session `session` (the stream's opening mark included), on
/// whichever node of the Redis holds its key.
fn logged(redis: &Shared, session: &str) -> u64 {
    let key = format!("presa:events:{{{session}}}");
    redis
        .nodes()
        .iter()
        .find_map(|node| {
            node.command(&["XLEN", &key])
                .strip_prefix(':')?
                .parse()
                .ok()
        })
        .unwrap_or(0)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_replica_killed_mid_stream_loses_no_logged_event() {
    let redis = Shared::start();
    let mut replicas = [
        notes_replica(&redis),
        notes_replica(&redis),
        notes_replica(&redis),
    ];
    let urls: Vec<String> = replicas.iter().map(|r| r.url().to_owned()).collect();
    // `initialize` on A, the notes added on C, the GET stream on B, the resumption on A
    let steps = [&urls[0], &urls[2], &urls[1], &urls[0]];
    failover(&redis, &mut replicas, steps.map(String::as_str)).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_replica_killed_mid_stream_through_the_balancer_loses_no_logged_event() {
    let mut cluster = Cluster::of(notes_replica);
    let url = cluster.url();
    let steps = [url.as_str(); 4];
    failover(&cluster.redis, &mut cluster.replicas, steps).await;
}

/// The address a replica or nginx listens on, from its URL.
fn address(url: &str) -> &str {
    let rest = url.strip_prefix("http://").unwrap();
    rest.split_once('/').map_or(rest, |(address, _)| address)
}

/// A session's GET stream carries what three notes announce; once the log holds all of it, the
/// replica holding the stream is killed, and the client resumes after the first event. The
/// steps go to replicas' URLs, or to nginx's (the replica holding the stream is then the one
/// nginx names in `X-Upstream`): `initialize`, the session's POSTs, the GET stream, the
/// resumption.
async fn failover(
    redis: &Shared,
    replicas: &mut [Listening],
    [initialize, posts, get, resume]: [&str; 4],
) {
    let session = elicitation_session(initialize, posts).await;
    let id = Some(session.as_str());
    let subscribe = request(2, "resources/subscribe", json!({"uri": "notes://index"}));
    assert_eq!(post(posts, id, subscribe).await.status, 200);

    let response = get_stream(get, &session, None).await;
    let holder = response
        .headers()
        .get("x-upstream")
        .map_or(address(get), |upstream| upstream.to_str().unwrap())
        .to_owned();
    let mut stream = Events::of(response);
    assert_eq!(stream.next().await.unwrap().message, Value::Null);
    let mut received = Vec::new();
    for n in 0..3 {
        post(posts, id, add_note(10 + n, "streamed")).await;
        // each note is a list change and the index's update
        loop {
            let event = stream.next().await.unwrap();
            let last = event.message["method"] == "notifications/resources/updated";
            received.push(event);
            if last {
                break;
            }
        }
    }
    // everything the holder sent is in the log (written in the background), then it is killed
    let expected = 1 + received.len() as u64;
    tokio::time::timeout(PATIENCE, async {
        while logged(redis, &session) < expected {
            tokio::task::yield_now().await;
        }
    })
    .await
    .expect("the holder logs what it sent");
    replicas
        .iter_mut()
        .find(|replica| address(replica.url()) == holder)
        .unwrap_or_else(|| panic!("no replica at {holder}"))
        .kill();

    // the client resumes after the first event it got, elsewhere
    let resumed_from = received[0].id.clone().unwrap();
    let response = get_stream(resume, &session, Some(&resumed_from)).await;
    if let Some(upstream) = response.headers().get("x-upstream") {
        // nginx may have tried the killed replica first: the one that answered comes last
        let upstream = upstream.to_str().unwrap();
        assert_ne!(upstream.rsplit(", ").next(), Some(holder.as_str()));
    }
    let mut resumed = Events::of(response);
    for expected in &received[1..] {
        let event = resumed.next().await.unwrap();
        assert_eq!(
            &event, expected,
            "every event after {resumed_from}, once, in order"
        );
    }
    // then the stream goes on there: primed, and live
    let primed = resumed.next().await.unwrap();
    assert_eq!(primed.message, Value::Null);
    assert_ne!(
        primed.id.as_deref().unwrap().split('-').next(),
        resumed_from.split('-').next(),
        "a stream of the new replica's own"
    );
    post(posts, id, add_note(20, "after the failover")).await;
    let live = resumed.next_of("notifications/resources/updated").await;
    assert_eq!(live.message["params"]["uri"], "notes://index");
}

/// An instance serving tasks on `redis` (its bus and its task store), behind bearer tokens
/// naming the caller: the tool `asks` becomes a task that asks its caller's name.
async fn task_instance(redis: &presa::redis::Redis) -> presa::http::RunningServer {
    use presa::core::{
        ElicitRequestFormParams, ElicitationSchema, StringSchema, TaskSupport, Tool,
    };
    use presa::http::{AuthOptions, HttpOptions, VerifyError};
    use presa::server::{AuthInfo, Context, InputError, Server, TaskOptions};
    let server = Server::builder("desk", "1.0.0")
        .shared_bus(std::sync::Arc::new(redis.event_bus().await.unwrap()))
        .tasks(TaskOptions::default().store(redis.task_store()))
        .tool(
            Tool::without_params("asks").task_support(TaskSupport::Optional),
            |_: Value, cx: Context| async move {
                cx.run_as_task().await;
                let form =
                    ElicitationSchema::new().property("name", StringSchema::titled("Name"), true);
                let answer = cx
                    .elicit(ElicitRequestFormParams::new("Who are you?", form).into())
                    .await?;
                let name = answer.content.and_then(|c| c.get("name").cloned());
                Ok::<_, InputError>(format!("hello {}", name.unwrap_or(Value::Null)))
            },
        )
        .build()
        .unwrap();
    let auth = AuthOptions::new("https://login.example.net", |token: String| async move {
        match token.as_str() {
            "alice" => Ok(AuthInfo::new().with_subject(token)),
            _ => Err(VerifyError::Invalid("unknown token".into())),
        }
    });
    let options = HttpOptions::default().port(0).auth(auth);
    presa::http::serve(server, options).await.unwrap()
}

/// A 2026-07-28 request of alice's, declaring the tasks extension; its JSON answer.
async fn alices(url: &str, method: &str, mut params: Value) -> Value {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities":
            {"elicitation": {}, "extensions": {"io.modelcontextprotocol/tasks": {}}},
    });
    let name = params
        .get("name")
        .or_else(|| params.get("taskId"))
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let response = reqwest::Client::new()
        .post(url)
        .bearer_auth("alice")
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .header("MCP-Protocol-Version", "2026-07-28")
        .header("Mcp-Method", method)
        .header("Mcp-Name", name)
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    serde_json::from_str(&response.text().await.unwrap()).unwrap()
}

/// `tasks/get` on `url` until the task's status is `status`, polling as a client does.
async fn until_status(url: &str, task: &str, status: &str) -> Value {
    let polled = async {
        loop {
            let got = alices(url, "tasks/get", json!({"taskId": task})).await;
            if got["result"]["status"] == status {
                return got["result"].clone();
            }
            assert!(got.get("error").is_none(), "{got}");
            let interval = got["result"]["pollIntervalMs"].as_u64().unwrap_or(1000);
            tokio::time::sleep(std::time::Duration::from_millis(interval.min(50))).await;
        }
    };
    tokio::time::timeout(PATIENCE, polled)
        .await
        .unwrap_or_else(|_| panic!("task {task} never was {status}"))
}

#[tokio::test(flavor = "multi_thread")]
async fn a_tasks_answers_and_cancel_reach_its_handler_from_any_instance() {
    use presa::redis::{Redis, RedisOptions};
    let server = RedisServer::start();
    let redis = Redis::connect(RedisOptions::new(server.url()))
        .await
        .unwrap();
    let (a, b) = (task_instance(&redis).await, task_instance(&redis).await);

    // a task made on A, its question answered through B
    let created = alices(a.url(), "tools/call", json!({"name": "asks"})).await;
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    let task = created["result"]["taskId"].as_str().unwrap().to_owned();
    let waiting = until_status(b.url(), &task, "input_required").await;
    let key = waiting["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .next()
        .unwrap()
        .clone();
    let update = json!({"taskId": task, "inputResponses":
        {key: {"action": "accept", "content": {"name": "Ada"}}}});
    let ack = alices(b.url(), "tasks/update", update).await;
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    let done = until_status(b.url(), &task, "completed").await;
    assert_eq!(
        done["result"]["content"][0]["text"], r#"hello "Ada""#,
        "{done}"
    );

    // another one made on A, cancelled through B: its handler on A stops
    let created = alices(a.url(), "tools/call", json!({"name": "asks"})).await;
    let task = created["result"]["taskId"].as_str().unwrap().to_owned();
    until_status(b.url(), &task, "input_required").await;
    let ack = alices(b.url(), "tasks/cancel", json!({"taskId": task})).await;
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    until_status(a.url(), &task, "cancelled").await;
}
