//! Extensions: a server declares one and serves its custom methods; a client declares its own,
//! reads the server's, and calls the methods typed. One test body on every transport
//! (in-process, stdio over pipes, Streamable HTTP on 127.0.0.1) under 2026-07-28 and under
//! 2025-11-25.

use std::sync::{Arc, Mutex};

use presa::client::{Client, ClientOptions};
use presa::core::{ErrorCode, Notification, NotificationMethod, RequestMethod, Tool};
use presa::server::{
    Audit, AuditRecord, BuildError, Context, InputError, MethodHandler, Outcome, ProtocolError,
    Server,
};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio::sync::{Notify, mpsc};

use crate::harness::{ALICE, BOB, GUARD, Harness, LEGACY, MODERN, everywhere};

const EXTENSION: &str = "com.example/echoes";

#[derive(Serialize, Deserialize)]
struct ShoutParams {
    text: String,
}

#[derive(Debug, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
struct Shouted {
    text: String,
    /// What the handler's context said of the client's declaration of [`EXTENSION`].
    client_declared: Option<Value>,
    protocol_version: String,
}

enum Shout {}

impl RequestMethod for Shout {
    const METHOD: &'static str = "echoes/shout";
    type Params = ShoutParams;
    type Result = Shouted;
}

#[derive(Serialize, Deserialize)]
struct PokeParams {
    who: String,
}

enum Poke {}

impl NotificationMethod for Poke {
    const METHOD: &'static str = "notifications/echoes/poke";
    type Params = PokeParams;
}

/// A method whose handler reports progress, then waits until it is cancelled.
enum Wait {}

impl RequestMethod for Wait {
    const METHOD: &'static str = "echoes/wait";
    type Params = Value;
    type Result = Value;
}

/// What the waiting handler tells the test: it reported progress, its future was dropped.
#[derive(Default)]
struct Waited {
    dropped: Notify,
}

/// Notifies when dropped: the handler's future holds one while it waits.
struct DropSignal(Arc<Waited>);

impl Drop for DropSignal {
    fn drop(&mut self) {
        self.0.dropped.notify_one();
    }
}

/// A method whose handler fails with an error of its own (not a `ProtocolError`).
enum Fail {}

impl RequestMethod for Fail {
    const METHOD: &'static str = "echoes/fail";
    type Params = Value;
    type Result = Value;
}

enum Heard {}

impl NotificationMethod for Heard {
    const METHOD: &'static str = "notifications/echoes/heard";
    type Params = Value;
}

/// A server declaring [`EXTENSION`] and serving its methods; pokes go to `poked`, and every
/// request is audited into `records`.
fn echoes(
    poked: mpsc::UnboundedSender<(String, String)>,
    records: Arc<Mutex<Vec<AuditRecord>>>,
    waited: Arc<Waited>,
) -> Server {
    Server::builder("echoes", "1.0.0")
        .extension(EXTENSION, json!({"loud": true}))
        .tool_sync(
            Tool::without_params("plain"),
            |_: Value, _cx: Context| "plain",
        )
        .method::<Shout>(|params: ShoutParams, cx: Context| async move {
            if params.text.is_empty() {
                return Err(ProtocolError::new(
                    ErrorCode::INVALID_PARAMS,
                    "nothing to shout",
                ));
            }
            cx.notify::<Heard>(&json!({"text": params.text}))
                .await
                .map_err(|e| ProtocolError::new(ErrorCode::INTERNAL_ERROR, e.to_string()))?;
            Ok(Shouted {
                text: params.text.to_uppercase(),
                client_declared: cx.client_extension(EXTENSION).cloned(),
                protocol_version: cx.protocol_version().to_string(),
            })
        })
        .notification::<Poke>(move |params: PokeParams, cx: Context| {
            let poked = poked.clone();
            async move {
                if params.who == "nobody" {
                    panic!("a handler's own bug");
                }
                // relates to no request: goes to the session as a whole
                let _ = cx.notify::<Heard>(&json!({"from": "poke"})).await;
                let _ = poked.send((params.who, cx.protocol_version().to_string()));
            }
        })
        .method::<Fail>(|_: Value, _cx: Context| async move {
            Err::<Value, _>(std::io::Error::other("disk on fire"))
        })
        .method::<Wait>(move |_: Value, cx: Context| {
            let waited = Arc::clone(&waited);
            async move {
                let _signal = DropSignal(waited);
                cx.progress(1.0, Some(2.0), Some("halfway")).await;
                std::future::pending::<()>().await;
                Ok::<Value, ProtocolError>(json!({}))
            }
        })
        .middleware(Audit::new(move |record| {
            records.lock().unwrap().push(record.clone());
        }))
        .build()
        .unwrap()
}

fn declaring(options: ClientOptions) -> ClientOptions {
    options.extension(EXTENSION, json!({"whisper": false}))
}

async fn shout(client: &Client, text: &str) -> Result<Shouted, presa::client::ClientError> {
    client
        .request::<Shout>(&ShoutParams { text: text.into() })
        .await
}

#[tokio::test]
async fn custom_methods_and_notifications_are_served_like_built_in_ones() {
    everywhere(|transport, version| async move {
        let (poked, mut pokes) = mpsc::unbounded_channel();
        let records: Arc<Mutex<Vec<AuditRecord>>> = Arc::default();
        let waited = Arc::new(Waited::default());
        let server = echoes(poked, Arc::clone(&records), Arc::clone(&waited));
        let mut harness = Harness::start(transport, version, server).await;
        let alice = harness.connect_with(ALICE, declaring).await;
        let bob = harness.connect(BOB).await;
        let at = format!("{transport:?} {version}");

        // the declaration, as the client reads it
        assert!(alice.has_extension(EXTENSION), "{at}");
        assert_eq!(
            alice.server_extensions()[EXTENSION],
            json!({"loud": true}),
            "{at}"
        );
        assert!(!alice.has_extension("com.example/other"), "{at}");

        // typed params and result; the per-request check sees each client's own declaration
        let mut heard = alice.notifications();
        let shouted = shout(&alice, "hello").await.unwrap();
        assert_eq!(
            shouted,
            Shouted {
                text: "HELLO".into(),
                client_declared: Some(json!({"whisper": false})),
                protocol_version: version.to_string(),
            },
            "{at}"
        );
        let notification = tokio::time::timeout(GUARD, heard.recv())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(notification.method, Heard::METHOD, "{at}");
        assert_eq!(
            shout(&bob, "hi").await.unwrap().client_declared,
            None,
            "{at}"
        );

        // params that do not read, the handler's own error, a method nobody serves
        let unreadable = alice
            .request_raw(Shout::METHOD, json!({"text": 7}))
            .await
            .unwrap_err();
        assert_eq!(
            unreadable.as_server_error().unwrap().code,
            ErrorCode::INVALID_PARAMS,
            "{at}"
        );
        let refused = shout(&alice, "").await.unwrap_err();
        let refused = refused.as_server_error().unwrap();
        assert_eq!(
            (refused.code, refused.message.as_str()),
            (ErrorCode::INVALID_PARAMS, "nothing to shout"),
            "{at}"
        );
        let failed = alice
            .request_raw(Fail::METHOD, json!({}))
            .await
            .unwrap_err();
        let failed = failed.as_server_error().unwrap();
        assert_eq!(
            (failed.code, failed.message.as_str()),
            (ErrorCode::INTERNAL_ERROR, "disk on fire"),
            "{at}"
        );
        // a 2026-07-28 result is stamped as every result is; an initialize-era one is not
        let raw = alice
            .request_raw(Shout::METHOD, json!({"text": "raw"}))
            .await
            .unwrap();
        if version == MODERN {
            assert_eq!(raw["resultType"], "complete", "{at}");
            assert_eq!(
                raw["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "echoes",
                "{at}"
            );
        } else {
            assert!(
                raw.get("resultType").is_none() && raw.get("_meta").is_none(),
                "{at}: {raw}"
            );
        }
        let unknown = alice
            .request_raw("echoes/whisper", json!({}))
            .await
            .unwrap_err();
        assert_eq!(
            unknown.as_server_error().unwrap().code,
            ErrorCode::METHOD_NOT_FOUND,
            "{at}"
        );

        // a notification reaches its handler (after one whose handler panicked)
        for who in ["nobody", "alice"] {
            let poke = Notification::new(Poke::METHOD, &json!({"who": who})).unwrap();
            alice.notify(poke).await.unwrap();
        }
        let (who, revision) = tokio::time::timeout(GUARD, pokes.recv())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(
            (who.as_str(), revision),
            ("alice", version.to_string()),
            "{at}"
        );
        if version == LEGACY {
            // what its handler sent went to the session, outside any request
            loop {
                let heard = tokio::time::timeout(GUARD, heard.recv())
                    .await
                    .unwrap()
                    .unwrap();
                let params = heard.params.as_deref().map(|p| p.get()).unwrap_or_default();
                if heard.method == Heard::METHOD && params.contains("\"poke\"") {
                    break;
                }
            }
        }

        // progress reaches the caller; dropping the call cancels the handler
        let (progressed, mut progress) = mpsc::unbounded_channel();
        let waiting = alice
            .request::<Wait>(&json!({}))
            .on_progress(move |p| {
                let _ = progressed.send(p.progress);
            })
            .into_future();
        let call = tokio::spawn(waiting);
        let reported = tokio::time::timeout(GUARD, progress.recv()).await.unwrap();
        assert_eq!(reported, Some(1.0), "{at}");
        call.abort();
        tokio::time::timeout(GUARD, waited.dropped.notified())
            .await
            .unwrap_or_else(|_| panic!("{at}: the cancelled handler was not dropped"));

        harness.stop().await;
        // the middleware saw the custom requests as it sees built-in ones
        let records = records.lock().unwrap();
        let shouts: Vec<(&str, &Outcome)> = records
            .iter()
            .filter(|r| r.method == Shout::METHOD)
            .map(|r| (r.caller.as_deref().unwrap_or("-"), &r.outcome))
            .collect();
        assert_eq!(shouts.len(), 5, "{at}: {shouts:?}");
        assert_eq!(
            shouts[..2],
            [("alice", &Outcome::Ok), ("bob", &Outcome::Ok)],
            "{at}"
        );
    })
    .await;
}

#[test]
fn a_custom_method_cannot_shadow_a_built_in_one() {
    struct Nothing;
    impl MethodHandler for Nothing {
        fn call(
            &self,
            _params: Option<&serde_json::value::RawValue>,
            _cx: Context,
        ) -> presa::server::BoxFuture<'static, Result<Value, presa::core::ErrorObject>> {
            Box::pin(async { Ok(json!({})) })
        }
    }
    for method in ["tools/call", "initialize", "server/discover", "tasks/get"] {
        let refused = Server::builder("shadow", "1")
            .method_handler(method, Arc::new(Nothing))
            .build()
            .unwrap_err();
        assert!(
            matches!(&refused, BuildError::Method { method: m, .. } if m == method),
            "{method}: {refused}"
        );
        assert!(
            refused
                .to_string()
                .starts_with(&format!("method {method:?}: ")),
            "{refused}"
        );
    }
    let refused = Server::builder("shadow", "1")
        .extension("echoes", json!({}))
        .build()
        .unwrap_err();
    assert!(matches!(refused, BuildError::Extension { .. }), "{refused}");
}

#[derive(Serialize, Deserialize)]
struct HoldParams {
    who: String,
}

/// A notification whose handler asks the client for input, then waits for its cancellation
/// and past it: it ends only when dropped.
enum Hold {}

impl NotificationMethod for Hold {
    const METHOD: &'static str = "notifications/echoes/hold";
    type Params = HoldParams;
}

/// Tells the test `(who, "dropped")` when the holding handler's future is dropped.
struct Dropped(mpsc::UnboundedSender<(String, &'static str)>, String);

impl Drop for Dropped {
    fn drop(&mut self) {
        let _ = self.0.send((self.1.clone(), "dropped"));
    }
}

/// Receives what the holding handlers did until `expected` arrived, in any order: each
/// handler's own events arrive in the order it did them.
async fn expect_events(
    events: &mut mpsc::UnboundedReceiver<(String, &'static str)>,
    expected: &[(&str, &str)],
    at: &str,
) {
    let mut seen = Vec::new();
    while seen.len() < expected.len() {
        let event = tokio::time::timeout(GUARD, events.recv())
            .await
            .unwrap_or_else(|_| panic!("{at}: waiting for {expected:?}, saw {seen:?}"))
            .unwrap();
        seen.push(event);
    }
    let mut seen: Vec<(&str, &str)> = seen.iter().map(|(w, e)| (w.as_str(), *e)).collect();
    let mut expected = expected.to_vec();
    seen.sort_unstable();
    expected.sort_unstable();
    assert_eq!(seen, expected, "{at}");
}

#[tokio::test]
async fn a_notification_handler_waits_within_its_session_and_ends_with_it() {
    everywhere(|transport, version| async move {
        let (told, mut events) = mpsc::unbounded_channel();
        let server = Server::builder("holder", "1.0.0")
            .extension(EXTENSION, json!({}))
            .limits(presa::core::SessionLimits::default().max_in_flight_requests(2))
            .notification::<Hold>(move |params: HoldParams, cx: Context| {
                let told = told.clone();
                async move {
                    let _dropped = Dropped(told.clone(), params.who.clone());
                    // the client cannot answer: the ask fails at once, the handler goes on
                    let form = presa::core::ElicitRequestFormParams::new(
                        "name?",
                        presa::core::ElicitationSchema::new(),
                    );
                    let asked = match cx.elicit(form.into()).await {
                        Err(InputError::Unavailable(_)) => "unavailable",
                        Err(InputError::NotAllowed) => "not allowed",
                        _ => "answered",
                    };
                    let _ = told.send((params.who.clone(), asked));
                    cx.cancelled().await;
                    let _ = told.send((params.who, "cancelled"));
                    std::future::pending::<()>().await;
                }
            })
            .build()
            .unwrap();
        let mut harness = Harness::start(transport, version, server).await;
        let alice = harness.connect(ALICE).await;
        let bob = harness.connect(BOB).await;
        let at = format!("{transport:?} {version}");
        let hold = |who: &str| Notification::new(Hold::METHOD, &json!({ "who": who })).unwrap();
        // the client cannot answer: initialize era, it did not declare elicitation; 2026-07-28,
        // a notification cannot ask at all
        let refused = if version == LEGACY {
            "unavailable"
        } else {
            "not allowed"
        };

        // two wait; the third finds no room and is dropped after its first poll
        for who in ["a1", "a2", "a3"] {
            alice.notify(hold(who)).await.unwrap();
        }
        expect_events(
            &mut events,
            &[
                ("a1", refused),
                ("a2", refused),
                ("a3", refused),
                ("a3", "dropped"),
            ],
            &at,
        )
        .await;

        if transport == presa::server::Transport::Http && version == MODERN {
            // posted on their own, outside any session: one bound across the server, and
            // nothing ends them but themselves
            bob.notify(hold("b1")).await.unwrap();
            expect_events(&mut events, &[("b1", refused), ("b1", "dropped")], &at).await;
            harness.stop().await;
            return;
        }
        // another session has room of its own
        bob.notify(hold("b1")).await.unwrap();
        expect_events(&mut events, &[("b1", refused)], &at).await;
        // a session's end cancels its handlers and drops them; the other's wait on
        alice.close().await;
        expect_events(
            &mut events,
            &[
                ("a1", "cancelled"),
                ("a1", "dropped"),
                ("a2", "cancelled"),
                ("a2", "dropped"),
            ],
            &at,
        )
        .await;
        bob.close().await;
        expect_events(&mut events, &[("b1", "cancelled"), ("b1", "dropped")], &at).await;
        harness.stop().await;
    })
    .await;
}
