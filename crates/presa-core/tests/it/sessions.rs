//! A client and a server session driven against each other on a virtual clock: no runtime, no
//! I/O, every message through the wire encoding.

use std::sync::Arc;
use std::time::{Duration, Instant};

use presa_core::*;
use presa_test::message::{decode, legacy_request, request, with_meta};
use serde_json::{Map, Value, json};

const SECOND: Duration = Duration::from_secs(1);

struct Pair {
    now: Instant,
    client: ClientSession,
    server: ServerSession,
    client_events: Vec<ClientEvent>,
    server_events: Vec<ServerEvent>,
    /// Every message the server sent, as JSON.
    server_sent: Vec<Value>,
    /// Every message the client sent, as JSON.
    client_sent: Vec<Value>,
}

fn wire(message: &Message) -> Message {
    decode_message(message.to_json().as_bytes()).unwrap()
}

impl Pair {
    fn new(client: ClientSessionConfig, server: ServerSessionConfig) -> Self {
        Self {
            now: Instant::now(),
            client: ClientSession::new(client),
            server: ServerSession::new(server),
            client_events: Vec::new(),
            server_events: Vec::new(),
            server_sent: Vec::new(),
            client_sent: Vec::new(),
        }
    }

    fn default() -> Self {
        Self::new(client_config(), server_config())
    }

    /// Moves messages both ways until both sides are quiet, collecting events.
    fn drive(&mut self) {
        loop {
            let mut moved = false;
            while let Some(t) = self.client.poll_transmit() {
                moved = true;
                self.client_sent
                    .push(serde_json::from_str(&t.message.to_json()).unwrap());
                self.server.handle_message(self.now, wire(&t.message));
            }
            while let Some(t) = self.server.poll_transmit() {
                moved = true;
                self.server_sent
                    .push(serde_json::from_str(&t.message.to_json()).unwrap());
                self.client.handle_message(self.now, wire(&t.message));
            }
            while let Some(e) = self.client.poll_event() {
                self.client_events.push(e);
            }
            while let Some(e) = self.server.poll_event() {
                self.server_events.push(e);
            }
            if !moved {
                break;
            }
        }
    }

    /// Moves the virtual clock, firing the timeouts that fall due.
    fn advance(&mut self, by: Duration) {
        self.now += by;
        if self.client.poll_timeout().is_some_and(|t| t <= self.now) {
            self.client.handle_timeout(self.now);
        }
        if self.server.poll_timeout().is_some_and(|t| t <= self.now) {
            self.server.handle_timeout(self.now);
        }
        self.drive();
    }

    /// Sends raw JSON to the server and returns what it answered.
    fn raw_to_server(&mut self, json: Value) -> Vec<Value> {
        let before = self.server_sent.len();
        let message = decode_message(json.to_string().as_bytes()).unwrap();
        self.server.handle_message(self.now, message);
        while let Some(t) = self.server.poll_transmit() {
            self.server_sent
                .push(serde_json::from_str(&t.message.to_json()).unwrap());
        }
        while let Some(e) = self.server.poll_event() {
            self.server_events.push(e);
        }
        self.server_sent[before..].to_vec()
    }

    fn initialize(&mut self) {
        self.client.initialize(self.now).unwrap();
        self.drive();
        assert!(self.client.is_ready(), "{:?}", self.client_events);
    }

    fn take_server_request(&mut self) -> IncomingRequest {
        let at = self
            .server_events
            .iter()
            .position(|e| matches!(e, ServerEvent::Request(_)))
            .expect("a request");
        match self.server_events.remove(at) {
            ServerEvent::Request(r) => r,
            _ => unreachable!(),
        }
    }

    fn take_client_response(&mut self, id: &RequestId) -> Result<Value, RequestError> {
        let at = self
            .client_events
            .iter()
            .position(|e| matches!(e, ClientEvent::Response { id: i, .. } if i == id))
            .expect("a response");
        match self.client_events.remove(at) {
            ClientEvent::Response { outcome, .. } => {
                outcome.map(|raw| serde_json::from_str(raw.get()).unwrap())
            }
            _ => unreachable!(),
        }
    }
}

fn client_config() -> ClientSessionConfig {
    ClientSessionConfig::new(Implementation::new("test-client", "1.0.0"))
}

fn server_config() -> ServerSessionConfig {
    let capabilities: ServerCapabilities =
        serde_json::from_value(json!({"tools": {}, "logging": {}})).unwrap();
    ServerSessionConfig::new(Implementation::new("test-server", "2.0.0")).capabilities(capabilities)
}

fn params(value: Value) -> Option<Map<String, Value>> {
    match value {
        Value::Object(map) => Some(map),
        _ => None,
    }
}

// ----- the initialize era -----

#[test]
fn the_handshake_negotiates_and_both_sides_learn_of_it() {
    let mut pair = Pair::default();
    pair.initialize();
    assert_eq!(
        pair.client.protocol_version(),
        Some(ProtocolVersion::V2025_11_25)
    );
    let ClientEvent::Initialized {
        protocol_version,
        result,
    } = &pair.client_events[0]
    else {
        panic!()
    };
    assert_eq!(*protocol_version, ProtocolVersion::V2025_11_25);
    assert_eq!(result.server_info.name, "test-server");
    // the session answered initialize by itself, and told the application so
    let [
        ServerEvent::Answered {
            method,
            version,
            error: None,
            ..
        },
        ServerEvent::Initialized(client),
    ] = &pair.server_events[..]
    else {
        panic!("{:?}", pair.server_events)
    };
    assert_eq!(
        (method.as_str(), *version),
        ("initialize", Some(ProtocolVersion::V2025_11_25))
    );
    assert_eq!(client.client_info.as_ref().unwrap().name, "test-client");
    // initialize, then notifications/initialized, nothing else
    let methods: Vec<_> = pair
        .client_sent
        .iter()
        .map(|m| m["method"].clone())
        .collect();
    assert_eq!(
        methods,
        [json!("initialize"), json!("notifications/initialized")]
    );
    // an initialize-era result carries no 2026-only member
    let result = &pair.server_sent[0]["result"];
    assert!(
        result.get("resultType").is_none() && result.get("ttlMs").is_none(),
        "{result}"
    );
}

#[test]
fn the_server_counter_offers_an_older_revision() {
    let old = SupportedVersions::new([ProtocolVersion::V2025_03_26, ProtocolVersion::V2024_11_05])
        .unwrap();
    let mut pair = Pair::new(client_config(), server_config().versions(old));
    pair.initialize();
    assert_eq!(
        pair.client.protocol_version(),
        Some(ProtocolVersion::V2025_03_26)
    );
}

#[test]
fn a_counter_offer_the_client_cannot_speak_fails_the_handshake_and_queued_requests() {
    let old = SupportedVersions::new([ProtocolVersion::V2024_11_05]).unwrap();
    let new = SupportedVersions::new([ProtocolVersion::V2025_11_25]).unwrap();
    let mut pair = Pair::new(client_config().versions(new), server_config().versions(old));
    pair.client.initialize(pair.now).unwrap();
    let queued = pair
        .client
        .send_request(pair.now, "tools/list", None, &RequestOptions::default())
        .unwrap();
    pair.drive();
    assert!(!pair.client.is_ready());
    assert!(pair.client_events.iter().any(|e| matches!(e,
        ClientEvent::HandshakeFailed(HandshakeError::UnsupportedVersion(v)) if v == "2024-11-05")));
    assert_eq!(
        pair.take_client_response(&queued),
        Err(RequestError::HandshakeFailed)
    );
    // the queued request never reached the server
    assert!(pair.client_sent.iter().all(|m| m["method"] != "tools/list"));
}

#[test]
fn requests_sent_during_the_handshake_go_out_after_it() {
    let mut pair = Pair::default();
    pair.client.initialize(pair.now).unwrap();
    let id = pair
        .client
        .send_request(pair.now, "tools/list", None, &RequestOptions::default())
        .unwrap();
    pair.drive();
    let methods: Vec<_> = pair
        .client_sent
        .iter()
        .map(|m| m["method"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        methods,
        ["initialize", "notifications/initialized", "tools/list"]
    );
    let request = pair.take_server_request();
    assert_eq!(request.id, id);
    assert_eq!(
        request.client.protocol_version,
        ProtocolVersion::V2025_11_25
    );
    pair.server
        .respond(&request.id, Ok(to_raw(&json!({"tools": []})).unwrap()));
    pair.drive();
    assert_eq!(pair.take_client_response(&id), Ok(json!({"tools": []})));
}

#[test]
fn before_initialize_only_ping_is_served() {
    let mut pair = Pair::default();
    let out = pair.raw_to_server(json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}));
    assert_eq!(out, [json!({"jsonrpc": "2.0", "id": 1, "result": {}})]);
    let out = pair.raw_to_server(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}));
    assert_eq!(out[0]["error"]["code"], -32602);
    assert!(
        out[0]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("initialize")
    );
    // nothing to serve; both there to be observed
    let answered: Vec<_> = pair
        .server_events
        .iter()
        .map(|event| match event {
            ServerEvent::Answered {
                method,
                version: None,
                error,
                ..
            } => (method.as_str(), error.as_ref().map(|e| e.code.code())),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(answered, [("ping", None), ("tools/list", Some(-32602))]);
}

#[test]
fn the_session_keeps_subscriptions_itself_within_their_bound() {
    let capabilities: ServerCapabilities =
        serde_json::from_value(json!({"resources": {"subscribe": true}})).unwrap();
    let server = ServerSessionConfig::new(Implementation::new("s", "1"))
        .capabilities(capabilities)
        .keep_subscriptions(true);
    let mut pair = Pair::new(client_config(), server);
    pair.initialize();
    let changes = pair.server.state_changes();
    let subscribe = |id: usize, uri: &str| json!({"jsonrpc": "2.0", "id": id, "method": "resources/subscribe", "params": {"uri": uri}});
    let out = pair.raw_to_server(subscribe(2, "file:///a"));
    assert_eq!(out, [json!({"jsonrpc": "2.0", "id": 2, "result": {}})]);
    assert!(pair.server.is_subscribed("file:///a"));
    assert!(
        pair.server.state_changes() > changes,
        "a subscription is state to save"
    );
    // answered by the session: nothing for the application to serve
    assert!(
        !pair
            .server_events
            .iter()
            .any(|e| matches!(e, ServerEvent::Request(_))),
        "{:?}",
        pair.server_events
    );
    let out = pair.raw_to_server(subscribe(3, ""));
    assert_eq!(out[0]["error"]["code"], -32602);
    // up to the bound, then one more is refused until one goes
    let many: Vec<String> = (1..MAX_WATCHED_RESOURCES)
        .map(|i| format!("file:///{i}"))
        .chain(["file:///a".to_owned()])
        .collect();
    pair.server.set_subscriptions(&many);
    assert_eq!(pair.server.subscriptions().len(), MAX_WATCHED_RESOURCES);
    let out = pair.raw_to_server(subscribe(4, "file:///one-too-many"));
    assert_eq!(out[0]["error"]["code"], -32602);
    assert!(!pair.server.is_subscribed("file:///one-too-many"));
    let unsubscribe = json!({"jsonrpc": "2.0", "id": 5, "method": "resources/unsubscribe",
        "params": {"uri": "file:///a"}});
    assert_eq!(pair.raw_to_server(unsubscribe)[0]["result"], json!({}));
    let out = pair.raw_to_server(subscribe(6, "file:///one-too-many"));
    assert_eq!(out[0]["result"], json!({}));
}

#[test]
fn unless_the_session_keeps_subscriptions_subscribe_goes_to_the_application() {
    let capabilities: ServerCapabilities =
        serde_json::from_value(json!({"resources": {"subscribe": true}})).unwrap();
    let server = ServerSessionConfig::new(Implementation::new("s", "1")).capabilities(capabilities);
    let mut pair = Pair::new(client_config(), server);
    pair.initialize();
    let out = pair.raw_to_server(json!({"jsonrpc": "2.0", "id": 2,
        "method": "resources/subscribe", "params": {"uri": "file:///a"}}));
    assert!(out.is_empty(), "{out:?}");
    assert!(
        pair.server_events
            .iter()
            .any(|e| matches!(e, ServerEvent::Request(r) if r.method == "resources/subscribe"))
    );
    assert!(!pair.server.is_subscribed("file:///a"));
}

#[test]
fn a_second_initialize_is_refused() {
    let mut pair = Pair::default();
    pair.initialize();
    let out = pair.raw_to_server(json!({"jsonrpc": "2.0", "id": 9, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "x", "version": "1"}}}));
    assert_eq!(out[0]["error"]["code"], -32600);
}

#[test]
fn a_modern_only_server_answers_initialize_with_its_versions() {
    let modern = SupportedVersions::new([ProtocolVersion::V2026_07_28]).unwrap();
    let mut pair = Pair::new(client_config(), server_config().versions(modern));
    let out = pair.raw_to_server(json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "x", "version": "1"}}}));
    assert_eq!(out[0]["error"]["code"], -32022);
    assert_eq!(
        out[0]["error"]["data"],
        json!({"supported": ["2026-07-28"], "requested": "2025-11-25"})
    );
}

#[test]
fn ping_is_answered_both_ways_with_an_empty_result() {
    let mut pair = Pair::default();
    pair.initialize();
    let id = pair
        .client
        .send_request(pair.now, "ping", None, &RequestOptions::default())
        .unwrap();
    pair.drive();
    assert_eq!(pair.take_client_response(&id), Ok(json!({})));
    let id = pair
        .server
        .send_request(pair.now, "ping", None, &RequestOptions::default(), None)
        .unwrap();
    pair.drive();
    assert!(pair.server_events.iter().any(|e| matches!(e,
        ServerEvent::Response { id: i, outcome: Ok(raw), .. } if *i == id && raw.get() == "{}")));
}

#[test]
fn the_server_stops_sending_requests_at_its_pending_limit_until_answers_come() {
    let limits = SessionLimits::default().max_pending_server_requests(2);
    let mut pair = Pair::new(client_config(), server_config().limits(limits));
    pair.initialize();
    let send = |pair: &mut Pair| {
        pair.server
            .send_request(pair.now, "ping", None, &RequestOptions::default(), None)
    };
    assert!(send(&mut pair).is_ok());
    assert!(send(&mut pair).is_ok());
    let refused = send(&mut pair).unwrap_err();
    assert!(matches!(
        refused,
        ServerSendError::TooManyPending { limit: 2 }
    ));
    assert!(
        refused.to_string().contains("2 requests already wait"),
        "{refused}"
    );
    // the client answers both pings: room again
    pair.drive();
    assert!(send(&mut pair).is_ok());
}

#[test]
fn an_initialize_describing_more_than_the_limit_starts_nothing() {
    let limits = SessionLimits::default().max_client_description_bytes(100);
    let mut pair = Pair::new(client_config(), server_config().limits(limits));
    let answers = pair.raw_to_server(legacy_request(
        1,
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {"experimental": {"x": "y".repeat(100)}},
               "clientInfo": {"name": "c", "version": "1"}}),
    ));
    assert_eq!(answers[0]["error"]["code"], -32602, "{answers:?}");
    assert!(pair.server.initialize_era_client().is_none());
    let answers = pair.raw_to_server(legacy_request(
        2,
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {},
               "clientInfo": {"name": "c", "version": "1"}}),
    ));
    assert_eq!(
        answers[0]["result"]["protocolVersion"], "2025-06-18",
        "{answers:?}"
    );
}

#[test]
fn server_to_client_requests_are_routed_back_to_the_server() {
    let mut pair = Pair::default();
    assert!(matches!(
        pair.server.send_request(
            pair.now,
            "roots/list",
            None,
            &RequestOptions::default(),
            None
        ),
        Err(ServerSendError::NotInitialized)
    ));
    pair.initialize();
    let id = pair
        .server
        .send_request(
            pair.now,
            "roots/list",
            None,
            &RequestOptions::default(),
            None,
        )
        .unwrap();
    pair.drive();
    let ClientEvent::Request(request) = pair.client_events.pop().unwrap() else {
        panic!()
    };
    assert_eq!(request.method, "roots/list");
    assert!(
        pair.client
            .respond(&request.id, Ok(to_raw(&json!({"roots": []})).unwrap()))
    );
    assert!(
        !pair
            .client
            .respond(&request.id, Ok(to_raw(&json!({})).unwrap())),
        "answered only once"
    );
    pair.drive();
    assert!(pair.server_events.iter().any(|e| matches!(e,
        ServerEvent::Response { id: i, method, outcome: Ok(_) } if *i == id && method == "roots/list")));
}

#[test]
fn a_server_request_times_out_and_is_cancelled_at_the_client() {
    let mut pair = Pair::new(
        client_config(),
        server_config().request_timeout(Some(2 * SECOND)),
    );
    pair.initialize();
    let id = pair
        .server
        .send_request(
            pair.now,
            "sampling/createMessage",
            params(json!({})),
            &RequestOptions::default(),
            None,
        )
        .unwrap();
    pair.drive();
    assert!(matches!(
        pair.client_events.last(),
        Some(ClientEvent::Request(_))
    ));
    assert_eq!(pair.server.poll_timeout(), Some(pair.now + 2 * SECOND));
    pair.advance(SECOND);
    assert!(
        !pair
            .server_events
            .iter()
            .any(|e| matches!(e, ServerEvent::Response { .. }))
    );
    pair.advance(SECOND);
    assert!(pair.server_events.iter().any(|e| matches!(e,
        ServerEvent::Response { id: i, outcome: Err(RequestError::TimedOut), .. } if *i == id)));
    assert!(
        matches!(pair.client_events.last(), Some(ClientEvent::Cancelled { id: i, .. }) if *i == id)
    );
    assert_eq!(pair.server.poll_timeout(), None);
}

#[test]
fn set_level_filters_log_messages_in_the_initialize_era() {
    let mut pair = Pair::default();
    pair.initialize();
    // before setLevel everything is sent
    assert!(pair.server.log(None, LoggingLevel::Debug, None, json!("d")));
    let id = pair
        .client
        .send_request(
            pair.now,
            "logging/setLevel",
            params(json!({"level": "warning"})),
            &RequestOptions::default(),
        )
        .unwrap();
    pair.drive();
    assert_eq!(pair.take_client_response(&id), Ok(json!({})));
    assert!(!pair.server.log(None, LoggingLevel::Info, None, json!("i")));
    assert!(
        pair.server
            .log(None, LoggingLevel::Error, Some("db"), json!({"e": 1}))
    );
    pair.drive();
    let logs: Vec<_> = pair
        .server_sent
        .iter()
        .filter(|m| m["method"] == "notifications/message")
        .collect();
    assert_eq!(logs.len(), 2);
    assert_eq!(
        logs[1]["params"],
        json!({"level": "error", "logger": "db", "data": {"e": 1}})
    );
}

#[test]
fn without_the_logging_capability_nothing_is_logged_and_set_level_is_unknown() {
    let server = ServerSessionConfig::new(Implementation::new("s", "1"));
    let mut pair = Pair::new(client_config(), server);
    pair.initialize();
    assert!(
        !pair
            .server
            .log(None, LoggingLevel::Emergency, None, json!("x"))
    );
    let id = pair
        .client
        .send_request(
            pair.now,
            "logging/setLevel",
            params(json!({"level": "debug"})),
            &RequestOptions::default(),
        )
        .unwrap();
    pair.drive();
    assert!(
        matches!(pair.take_client_response(&id), Err(RequestError::Peer(e)) if e.code == ErrorCode::METHOD_NOT_FOUND)
    );
}

// ----- cancellation, progress, timeouts (both eras behave alike) -----

#[test]
fn a_cancelled_request_gets_no_response_and_a_late_one_is_dropped() {
    let mut pair = Pair::default();
    pair.initialize();
    let id = pair
        .client
        .send_request(
            pair.now,
            "tools/call",
            params(json!({"name": "slow"})),
            &RequestOptions::default(),
        )
        .unwrap();
    pair.drive();
    let request = pair.take_server_request();
    assert!(pair.client.cancel(&id, Some("user pressed Esc")).unwrap());
    pair.drive();
    assert!(pair.server_events.iter().any(|e| matches!(e,
        ServerEvent::Cancelled { id: i, reason: Some(r) } if *i == id && r == "user pressed Esc")));
    assert_eq!(pair.server.requests_in_flight(), 0);
    assert!(
        !pair
            .server
            .respond(&request.id, Ok(to_raw(&json!({})).unwrap())),
        "no response after cancel"
    );
    // the race: a response crossing the cancel is dropped by the client
    pair.client.handle_message(
        pair.now,
        wire(&Response::result(id.clone(), &json!({})).unwrap().into()),
    );
    pair.drive();
    assert!(
        !pair
            .client_events
            .iter()
            .any(|e| matches!(e, ClientEvent::Response { .. }))
    );
    // cancelling again is harmless
    assert!(!pair.client.cancel(&id, None).unwrap());
}

#[test]
fn initialize_cannot_be_cancelled() {
    let mut pair = Pair::default();
    let id = pair.client.initialize(pair.now).unwrap();
    assert!(matches!(
        pair.client.cancel(&id, None),
        Err(ClientSendError::CannotCancelInitialize)
    ));
}

#[test]
fn progress_flows_only_for_requests_that_asked_and_only_upwards() {
    let mut pair = Pair::default();
    pair.initialize();
    let with = pair
        .client
        .send_request(
            pair.now,
            "tools/call",
            None,
            &RequestOptions::default().progress(true),
        )
        .unwrap();
    let without = pair
        .client
        .send_request(pair.now, "tools/call", None, &RequestOptions::default())
        .unwrap();
    pair.drive();
    assert_eq!(
        pair.client_sent.last().unwrap()["params"],
        Value::Null,
        "no params invented without a token"
    );
    let first = pair.take_server_request();
    let second = pair.take_server_request();
    assert_eq!(first.id, with);
    assert_eq!(second.id, without);
    assert_eq!(
        pair.server
            .progress(&first.id, 1.0, Some(4.0), Some("one of four".into())),
        Ok(())
    );
    assert_eq!(
        pair.server.progress(&first.id, 1.0, None, None),
        Err(ProgressError::NotIncreasing)
    );
    assert_eq!(
        pair.server.progress(&second.id, 1.0, None, None),
        Err(ProgressError::NotRequested)
    );
    pair.drive();
    let progress: Vec<_> = pair
        .client_events
        .iter()
        .filter_map(|e| match e {
            ClientEvent::Progress { id, params } => Some((
                id.clone(),
                params.progress,
                params.total,
                params.message.clone(),
            )),
            _ => None,
        })
        .collect();
    assert_eq!(
        progress,
        [(with.clone(), 1.0, Some(4.0), Some("one of four".to_owned()))]
    );
    pair.server
        .respond(&first.id, Ok(to_raw(&json!({})).unwrap()));
    assert_eq!(
        pair.server.progress(&first.id, 2.0, None, None),
        Err(ProgressError::UnknownRequest)
    );
}

#[test]
fn a_request_times_out_on_the_virtual_clock_and_the_server_is_told() {
    let mut pair = Pair::default();
    pair.initialize();
    let options = RequestOptions::default().timeout(Some(5 * SECOND));
    let id = pair
        .client
        .send_request(pair.now, "tools/call", None, &options)
        .unwrap();
    pair.drive();
    assert_eq!(pair.client.poll_timeout(), Some(pair.now + 5 * SECOND));
    pair.advance(4 * SECOND);
    assert_eq!(pair.client.requests_pending(), 1);
    pair.advance(SECOND);
    assert_eq!(pair.take_client_response(&id), Err(RequestError::TimedOut));
    assert!(
        pair.server_events
            .iter()
            .any(|e| matches!(e, ServerEvent::Cancelled { id: i, .. } if *i == id))
    );
    assert_eq!(pair.client.poll_timeout(), None);
}

#[test]
fn progress_can_extend_a_timeout_up_to_its_hard_limit() {
    let mut pair = Pair::default();
    pair.initialize();
    let options = RequestOptions::default()
        .timeout(Some(2 * SECOND))
        .progress(true)
        .reset_timeout_on_progress(true)
        .max_total_timeout(Some(5 * SECOND));
    let id = pair
        .client
        .send_request(pair.now, "tools/call", None, &options)
        .unwrap();
    pair.drive();
    let request = pair.take_server_request();
    for step in 1..=4 {
        pair.advance(SECOND + SECOND / 2);
        if step < 4 {
            pair.server
                .progress(&request.id, f64::from(step), None, None)
                .unwrap();
            pair.drive();
            assert_eq!(pair.client.requests_pending(), 1, "step {step}");
        }
    }
    // 6 s passed: past the 5 s hard limit although progress kept coming
    assert_eq!(pair.take_client_response(&id), Err(RequestError::TimedOut));
}

#[test]
fn a_duplicate_id_in_flight_is_an_invalid_request() {
    let mut pair = Pair::default();
    let request = request("same", "tools/list", json!({}));
    assert!(pair.raw_to_server(request.clone()).is_empty());
    let out = pair.raw_to_server(request);
    assert_eq!(out[0]["error"]["code"], -32600);
    assert_eq!(out[0]["id"], "same");
}

#[test]
fn closing_fails_what_is_pending() {
    let mut pair = Pair::default();
    pair.initialize();
    let id = pair
        .client
        .send_request(pair.now, "tools/list", None, &RequestOptions::default())
        .unwrap();
    pair.client.close();
    while let Some(e) = pair.client.poll_event() {
        pair.client_events.push(e);
    }
    assert_eq!(pair.take_client_response(&id), Err(RequestError::Closed));
    assert_eq!(pair.client.poll_timeout(), None);
}

// ----- 2026-07-28 -----

#[test]
fn stateless_requests_carry_their_context_and_need_no_handshake() {
    let capabilities: ClientCapabilities =
        serde_json::from_value(json!({"elicitation": {"form": {}}})).unwrap();
    let mut pair = Pair::new(
        client_config().capabilities(capabilities.clone()),
        server_config(),
    );
    pair.client.use_stateless(ProtocolVersion::V2026_07_28);
    let id = pair
        .client
        .send_request_with(
            pair.now,
            "tools/call",
            params(json!({"name": "add", "_meta": {"traceparent": "00-ab-cd-01"}})),
            &RequestOptions::default().progress(true),
            RequestExtras::default().log_level(LoggingLevel::Info),
        )
        .unwrap();
    pair.drive();
    let meta = &pair.client_sent[0]["params"]["_meta"];
    assert_eq!(meta[META_PROTOCOL_VERSION], "2026-07-28");
    assert_eq!(
        meta[META_CLIENT_CAPABILITIES],
        json!({"elicitation": {"form": {}}})
    );
    assert_eq!(meta[META_CLIENT_INFO]["name"], "test-client");
    assert_eq!(meta[META_LOG_LEVEL], "info");
    assert_eq!(
        meta["traceparent"], "00-ab-cd-01",
        "the caller's own _meta is kept"
    );
    assert_eq!(meta["progressToken"], json!(id.clone()));
    let request = pair.take_server_request();
    assert_eq!(
        request.client.protocol_version,
        ProtocolVersion::V2026_07_28
    );
    assert_eq!(request.client.capabilities, capabilities);
    // logging honours the request's own level
    assert!(
        !pair
            .server
            .log(Some(&request.id), LoggingLevel::Debug, None, json!("quiet"))
    );
    assert!(pair.server.log(
        Some(&request.id),
        LoggingLevel::Warning,
        None,
        json!("loud")
    ));
    pair.server.respond(
        &request.id,
        Ok(to_raw(&json!({"resultType": "complete", "content": []})).unwrap()),
    );
    pair.drive();
    assert!(pair.take_client_response(&id).is_ok());
    let methods: Vec<_> = pair
        .server_sent
        .iter()
        .map(|m| m.get("method").cloned())
        .collect();
    assert_eq!(methods, [Some(json!("notifications/message")), None]);
}

#[test]
fn a_stateless_request_without_a_log_level_gets_no_log_messages() {
    let mut pair = Pair::default();
    pair.raw_to_server(request(1, "tools/call", json!({"name": "x"})));
    let request = pair.take_server_request();
    assert!(
        !pair
            .server
            .log(Some(&request.id), LoggingLevel::Emergency, None, json!("x"))
    );
}

#[test]
fn stateless_requests_are_checked_in_the_runner_order() {
    let mut pair = Pair::default();
    let cases = [
        (
            json!({"_meta": {META_PROTOCOL_VERSION: "2026-07-28"}}),
            -32602,
        ),
        (json!({"_meta": {META_CLIENT_CAPABILITIES: {}}}), -32602),
        (
            with_meta(json!({"_meta": {META_PROTOCOL_VERSION: "v999.0.0"}})),
            -32022,
        ),
        (
            with_meta(json!({"_meta": {META_PROTOCOL_VERSION: "2025-11-25"}})),
            -32022,
        ),
    ];
    for (i, (params, code)) in cases.into_iter().enumerate() {
        let out = pair.raw_to_server(
            json!({"jsonrpc": "2.0", "id": i, "method": "server/discover", "params": params}),
        );
        assert_eq!(out[0]["error"]["code"], code, "{params}");
        assert_eq!(out[0]["id"], i);
    }
    let out = pair.raw_to_server(request(
        301,
        "server/discover",
        json!({"_meta": {META_PROTOCOL_VERSION: "v999.0.0"}}),
    ));
    assert_eq!(out[0]["error"]["data"]["requested"], "v999.0.0");
    assert_eq!(out[0]["error"]["data"]["supported"][0], "2026-07-28");
    // every one refused before dispatch, under no revision yet, and reported so
    let refused: Vec<_> = pair
        .server_events
        .iter()
        .map(|event| match event {
            ServerEvent::Answered {
                method,
                version: None,
                error: Some(error),
                ..
            } => (method.as_str(), error.code.code()),
            other => panic!("{other:?}"),
        })
        .collect();
    let discover = "server/discover";
    assert_eq!(
        refused,
        [
            (discover, -32602),
            (discover, -32602),
            (discover, -32022),
            (discover, -32022),
            (discover, -32022)
        ]
    );
}

#[test]
fn discover_is_answered_with_versions_capabilities_identity_and_cache_hints() {
    let mut pair = Pair::new(
        client_config(),
        server_config().discover_cache(60_000, CacheScope::Public),
    );
    let out = pair.raw_to_server(request("d1", "server/discover", json!({})));
    let result = &out[0]["result"];
    assert_eq!(result["resultType"], "complete");
    assert_eq!(
        result["supportedVersions"],
        json!([
            "2026-07-28",
            "2025-11-25",
            "2025-06-18",
            "2025-03-26",
            "2024-11-05"
        ])
    );
    assert_eq!(result["capabilities"], json!({"tools": {}, "logging": {}}));
    assert_eq!(result["ttlMs"], 60_000);
    assert_eq!(result["cacheScope"], "public");
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/serverInfo"],
        json!({"name": "test-server", "version": "2.0.0"})
    );
}

#[test]
fn removed_stateful_methods_are_unknown_on_2026() {
    let mut pair = Pair::default();
    for method in [
        "initialize",
        "ping",
        "logging/setLevel",
        "resources/subscribe",
        "resources/unsubscribe",
    ] {
        let out = pair.raw_to_server(request(500, method, json!({})));
        assert_eq!(out[0]["error"]["code"], -32601, "{method}");
    }
}

#[test]
fn both_eras_share_one_connection() {
    let mut pair = Pair::default();
    pair.initialize();
    pair.raw_to_server(request("m", "tools/list", json!({})));
    let modern = pair.take_server_request();
    assert_eq!(modern.client.protocol_version, ProtocolVersion::V2026_07_28);
    pair.raw_to_server(json!({"jsonrpc": "2.0", "id": "l", "method": "tools/list"}));
    let legacy = pair.take_server_request();
    assert_eq!(legacy.client.protocol_version, ProtocolVersion::V2025_11_25);
}

#[test]
fn a_stateless_client_rejects_server_requests() {
    let mut pair = Pair::default();
    pair.client.use_stateless(ProtocolVersion::V2026_07_28);
    let request = decode_message(
        br#"{"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{}}"#,
    )
    .unwrap();
    pair.client.handle_message(pair.now, request);
    let answer = pair.client.poll_transmit().unwrap().message.to_json();
    assert!(answer.contains("-32601"), "{answer}");
}

#[test]
fn a_forgotten_request_is_dropped_without_a_cancel() {
    let mut pair = Pair::default();
    pair.initialize();
    let id = pair
        .client
        .send_request(pair.now, "tools/list", None, &RequestOptions::default())
        .unwrap();
    pair.client.poll_transmit();
    assert!(pair.client.forget(&id));
    assert!(!pair.client.forget(&id));
    assert!(pair.client.poll_transmit().is_none(), "nothing sent");
    assert_eq!(pair.client.requests_pending(), 0);
}

#[test]
fn huge_timeouts_do_not_overflow() {
    let mut pair = Pair::default();
    pair.initialize();
    let forever = RequestOptions::default()
        .timeout(Some(Duration::MAX))
        .reset_timeout_on_progress(true);
    pair.client
        .send_request(pair.now, "tools/call", None, &forever)
        .unwrap();
    assert_eq!(
        pair.client.poll_timeout(),
        None,
        "a deadline past the representable is none"
    );
}

#[test]
fn a_request_without_timeout_outlives_the_session_default() {
    let config = client_config().request_timeout(Some(SECOND));
    let mut pair = Pair::new(config, server_config());
    pair.client.use_stateless(ProtocolVersion::V2026_07_28);
    let listen = RequestOptions::default().without_timeout();
    let id = pair
        .client
        .send_request(
            pair.now,
            "subscriptions/listen",
            params(json!({"notifications": {}})),
            &listen,
        )
        .unwrap();
    pair.client.poll_transmit();
    assert_eq!(pair.client.poll_timeout(), None);
    pair.advance(3600 * SECOND);
    assert_eq!(pair.client.requests_pending(), 1, "still waiting");
    assert!(pair.client.cancel(&id, None).unwrap());
}

#[test]
fn a_stateless_server_cancelling_a_request_of_ours_ends_it() {
    let mut pair = Pair::default();
    pair.client.use_stateless(ProtocolVersion::V2026_07_28);
    let id = pair
        .client
        .send_request(
            pair.now,
            "subscriptions/listen",
            params(json!({"notifications": {}})),
            &RequestOptions::default().without_timeout(),
        )
        .unwrap();
    pair.client.poll_transmit();
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 0, "reason": "shutting down"}});
    let message = decode_message(cancel.to_string().as_bytes()).unwrap();
    pair.client.handle_message(pair.now, message.clone());
    while let Some(e) = pair.client.poll_event() {
        pair.client_events.push(e);
    }
    assert_eq!(
        pair.take_client_response(&id),
        Err(RequestError::CancelledByPeer {
            reason: Some("shutting down".into())
        })
    );
    assert_eq!(pair.client.requests_pending(), 0);
    // a second cancel, or one for a request never sent, is ignored
    pair.client.handle_message(pair.now, message);
    assert!(pair.client.poll_event().is_none());
    assert!(pair.client.poll_transmit().is_none());
}

#[test]
fn a_session_works_on_after_shrinking_and_hands_over_the_meta_it_read() {
    let config = ServerSessionConfig::new(Implementation::new("shrink", "1"));
    let mut server = ServerSession::new(config);
    let now = Instant::now();
    for id in 1..=3 {
        let request = decode(&request(
            id,
            "tools/list",
            json!({"_meta": {"progressToken": id}}),
        ));
        server.handle_message(now, request);
        let Some(ServerEvent::Request(incoming)) = server.poll_event() else {
            panic!("a request event")
        };
        let meta = incoming.meta.expect("the _meta the session read");
        assert_eq!(meta["progressToken"], json!(id));
        server.respond(&incoming.id, Ok(to_raw(&json!({"tools": []})).unwrap()));
        let sent = server.poll_transmit().expect("the answer");
        assert_eq!(sent.message.id(), Some(&RequestId::from(id)));
        assert_eq!(server.requests_in_flight(), 0);
        server.shrink_to_fit();
    }
}

#[test]
fn a_client_transmit_names_its_revision_and_on_2026_its_mirror_headers() {
    let now = Instant::now();
    let mut client = ClientSession::new(client_config());
    client.use_stateless(ProtocolVersion::V2026_07_28);
    // the tool's annotations come from a tools/list result
    let listing = client
        .send_request(now, "tools/list", None, &RequestOptions::default())
        .unwrap();
    client.poll_transmit().unwrap();
    let tools = json!({"tools": [{"name": "query", "inputSchema": {"type": "object",
        "properties": {"region": {"type": "string", "x-mcp-header": "Region"}}}}]});
    client.handle_message(now, Response::result(listing, &tools).unwrap().into());
    client
        .send_request(
            now,
            "tools/call",
            params(json!({"name": "query", "arguments": {"region": "eu"}})),
            &RequestOptions::default(),
        )
        .unwrap();
    let sent = client.poll_transmit().unwrap();
    assert_eq!(sent.protocol_version, Some(ProtocolVersion::V2026_07_28));
    let headers: Vec<(&str, &str)> = sent
        .headers
        .iter()
        .map(|(n, v)| (n.as_str(), v.as_str()))
        .collect();
    assert_eq!(
        headers,
        [
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", "query"),
            ("Mcp-Param-Region", "eu"),
        ]
    );

    // an argument no header can carry: nothing is sent, and the request is not pending
    let refused = client.send_request(
        now,
        "tools/call",
        params(json!({"name": "query", "arguments": {"region": [1]}})),
        &RequestOptions::default(),
    );
    assert!(
        matches!(refused, Err(ClientSendError::Header(_))),
        "{refused:?}"
    );
    assert!(client.poll_transmit().is_none());
    assert_eq!(client.requests_pending(), 1);

    client.notify(Notification::without_params(
        "notifications/roots/list_changed",
    ));
    let note = client.poll_transmit().unwrap();
    assert_eq!(
        note.headers.len(),
        2,
        "version and method: {:?}",
        note.headers
    );
}

#[test]
fn an_annotation_written_with_escapes_is_read_as_one() {
    let now = Instant::now();
    let mut client = ClientSession::new(client_config());
    client.use_stateless(ProtocolVersion::V2026_07_28);
    let listing = client
        .send_request(now, "tools/list", None, &RequestOptions::default())
        .unwrap();
    client.poll_transmit().unwrap();
    // `x-mcp-header` spelled with a `\u` escape, as any JSON writer may
    let answer = format!(
        r#"{{"jsonrpc":"2.0","id":{},"result":{{"tools":[{{"name":"query","inputSchema":{{"type":"object","properties":{{"region":{{"type":"string","x-mcp-h\u0065ader":"Region"}}}}}}}}]}}}}"#,
        serde_json::to_string(&listing).unwrap()
    );
    client.handle_message(now, decode_message(answer.as_bytes()).unwrap());
    client
        .send_request(
            now,
            "tools/call",
            params(json!({"name": "query", "arguments": {"region": "eu"}})),
            &RequestOptions::default(),
        )
        .unwrap();
    let sent = client.poll_transmit().unwrap();
    assert!(
        sent.headers
            .iter()
            .any(|(name, value)| name == "Mcp-Param-Region" && value == "eu"),
        "{:?}",
        sent.headers
    );
}

#[test]
fn initialize_era_transmits_carry_the_negotiated_revision_after_the_handshake() {
    let mut pair = Pair::new(client_config(), server_config());
    pair.client.initialize(pair.now).unwrap();
    let handshake = pair.client.poll_transmit().unwrap();
    assert_eq!(handshake.protocol_version, None);
    assert!(handshake.headers.is_empty());
    pair.server.handle_message(pair.now, handshake.message);
    while let Some(answer) = pair.server.poll_transmit() {
        pair.client.handle_message(pair.now, answer.message);
    }
    let initialized = pair.client.poll_transmit().unwrap();
    assert_eq!(
        initialized.message.method(),
        Some("notifications/initialized")
    );
    assert_eq!(
        initialized.protocol_version,
        Some(ProtocolVersion::V2025_11_25)
    );
    assert!(initialized.headers.is_empty());
}

#[test]
fn sessions_of_one_client_program_share_its_description_across_configurations() {
    let descriptions = ClientDescriptions::default();
    let config = || server_config().client_descriptions(descriptions.clone());
    let mut first = Pair::new(client_config(), config());
    // a configuration rebuilt (the server's definitions changed) with the same table
    let mut second = Pair::new(client_config(), config());
    let mut other = Pair::new(
        ClientSessionConfig::new(Implementation::new("another-client", "1.0.0")),
        config(),
    );
    for pair in [&mut first, &mut second, &mut other] {
        pair.initialize();
    }
    let client = |pair: &Pair| Arc::clone(&pair.server.initialize_era_state().unwrap().client);
    assert!(Arc::ptr_eq(&client(&first), &client(&second)));
    assert!(!Arc::ptr_eq(&client(&first), &client(&other)));
    assert_eq!(
        client(&other).client_info.as_ref().unwrap().name,
        "another-client"
    );
}
