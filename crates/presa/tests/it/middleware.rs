//! The middleware that ships with presa-server — rate limit, audit, scope-filtered lists — each
//! tested once and run on every transport (in-process, stdio over pipes, Streamable HTTP on
//! 127.0.0.1) under 2026-07-28 and under 2025-11-25.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use presa::client::{Client, ClientOptions};
use presa::core::{
    CallToolResult, ElicitRequestFormParams, ElicitRequestParams, ElicitResult, ElicitationSchema,
    Prompt, Resource, ResourceTemplate, TaskSupport, Tool,
};
use presa::server::{
    Audit, AuditRecord, Context, Outcome, RateLimit, RequireScopes, ScopeFilteredLists, Server,
    ServerBuilder, ToolError, Transport, Variables,
};
use serde_json::{Value, json};
use tokio::sync::mpsc;

use crate::harness::{ALICE, BOB, CAROL, GUARD, Harness, MODERN, everywhere};

fn tools(builder: ServerBuilder) -> ServerBuilder {
    builder
        .tool_sync(Tool::without_params("echo"), |_: Value, cx: Context| {
            format!(
                "echo for {}",
                cx.auth().and_then(|a| a.subject()).unwrap_or("?")
            )
        })
        .tool_sync(
            Tool::without_params("other"),
            |_: Value, _: Context| "other",
        )
        .tool(Tool::without_params("fail"), |_: Value, _: Context| async {
            Err::<String, _>(ToolError::new("the tool failed"))
        })
}

/// A form asking `message`, with nothing to fill in.
fn form(message: &str) -> ElicitRequestParams {
    ElicitRequestFormParams::new(message, ElicitationSchema::new()).into()
}

/// Tools that ask the client for input twice (three rounds on 2026-07-28, one request before)
/// or run as a task, and a resource template.
fn long_calls(builder: ServerBuilder) -> ServerBuilder {
    builder
        .tool(
            Tool::without_params("confirm"),
            |_: Value, cx: Context| async move {
                cx.elicit(form("Sure?")).await?;
                cx.elicit(form("Really sure?")).await?;
                Ok::<_, ToolError>("confirmed")
            },
        )
        .tool(
            Tool::without_params("export").task_support(TaskSupport::Optional),
            |_: Value, cx: Context| async move {
                cx.run_as_task().await;
                tokio::time::sleep(Duration::from_millis(50)).await;
                "exported"
            },
        )
        .resource_template(
            ResourceTemplate::new("todo://{id}", "todo"),
            |variables: Variables, _cx: Context| async move {
                format!("todo {}", variables.get("id").map_or("?", String::as_str))
            },
        )
}

/// A client that accepts every form, and takes tasks.
fn accepting(options: ClientOptions) -> ClientOptions {
    options
        .elicitation(|_params, _cx| async move { Ok(ElicitResult::accept(Default::default())) })
        .tasks(true)
}

fn text(result: &CallToolResult) -> &str {
    result.content[0].as_text().unwrap()
}

#[tokio::test]
async fn rate_limit_refuses_a_caller_past_its_budget_per_tool() {
    everywhere(|transport, version| async move {
        let server = tools(Server::builder("limited", "1.0.0"))
            .middleware(RateLimit::new(2, Duration::from_secs(3600)))
            .build()
            .unwrap();
        let mut harness = Harness::start(transport, version, server).await;
        let alice = harness.connect(ALICE).await;
        let bob = harness.connect(BOB).await;
        for _ in 0..2 {
            let result = alice.call_tool("echo", json!({})).await.unwrap();
            assert_eq!(text(&result), "echo for alice");
        }
        let refused = alice.call_tool("echo", json!({})).await.unwrap_err();
        let error = refused
            .as_server_error()
            .unwrap_or_else(|| panic!("{transport:?} {version}: {refused:?}"));
        assert_eq!(error.code, RateLimit::ERROR_CODE, "{transport:?} {version}");
        let data = error.data.as_ref().unwrap();
        assert_eq!(data["error"], "rate_limited");
        // one of two calls an hour comes back in half an hour
        let retry = data["retryAfterMs"].as_u64().unwrap();
        assert!((1_790_000..=1_800_000).contains(&retry), "{retry}");
        assert!(error.message.contains("\"echo\""), "{}", error.message);
        // another tool, another caller: budgets of their own
        assert_eq!(
            text(&alice.call_tool("other", json!({})).await.unwrap()),
            "other"
        );
        let result = bob.call_tool("echo", json!({})).await.unwrap();
        assert_eq!(text(&result), "echo for bob");
        // other methods are not counted
        for _ in 0..3 {
            assert_eq!(alice.list_tools().await.unwrap().len(), 3);
        }
        harness.stop().await;
    })
    .await;
}

#[tokio::test]
async fn audit_records_method_target_caller_outcome_and_duration() {
    everywhere(|transport, version| async move {
        let records: Arc<Mutex<Vec<AuditRecord>>> = Arc::default();
        let sink = Arc::clone(&records);
        let server = tools(Server::builder("audited", "1.0.0"))
            .middleware(Audit::new(move |record| {
                sink.lock().unwrap().push(record.clone());
            }))
            .build()
            .unwrap();
        let mut harness = Harness::start(transport, version, server).await;
        let alice = harness.connect(ALICE).await;
        alice.call_tool("echo", json!({})).await.unwrap();
        let failed = alice.call_tool("fail", json!({})).await.unwrap();
        assert_eq!(failed.is_error, Some(true));
        let unknown = alice.call_tool("nope", json!({})).await.unwrap_err();
        assert_eq!(unknown.as_server_error().unwrap().code.code(), -32602);
        alice.list_tools().await.unwrap();
        harness.stop().await;

        let records = records.lock().unwrap();
        let seen: Vec<(&str, Option<&str>, &Outcome)> = records
            .iter()
            .map(|r| (r.method.as_str(), r.target.as_deref(), &r.outcome))
            .collect();
        let unknown_tool = Outcome::Error {
            code: presa::core::ErrorCode::INVALID_PARAMS,
            message: "Unknown tool: nope".into(),
        };
        assert_eq!(
            seen,
            [
                ("tools/call", Some("echo"), &Outcome::Ok),
                ("tools/call", Some("fail"), &Outcome::ToolError),
                ("tools/call", None, &unknown_tool),
                ("tools/list", None, &Outcome::Ok),
            ],
            "{transport:?} {version}"
        );
        for record in records.iter() {
            assert_eq!(record.caller.as_deref(), Some("alice"));
            assert_eq!(record.transport, transport);
            assert_eq!(record.protocol_version, version);
            assert!(record.duration < GUARD);
        }
    })
    .await;
}

#[tokio::test]
async fn rate_limit_counts_a_call_once_however_many_rounds_it_takes() {
    everywhere(|transport, version| async move {
        let server = long_calls(Server::builder("limited", "1.0.0"))
            .middleware(RateLimit::new(1, Duration::from_secs(3600)))
            .build()
            .unwrap();
        let mut harness = Harness::start(transport, version, server).await;
        let alice = harness.connect_with(ALICE, accepting).await;
        // two questions answered: three requests on 2026-07-28, one call
        let result = alice.call_tool("confirm", json!({})).await.unwrap();
        assert_eq!(text(&result), "confirmed", "{transport:?} {version}");
        // the one call of the hour is spent
        let refused = alice.call_tool("confirm", json!({})).await.unwrap_err();
        let error = refused
            .as_server_error()
            .unwrap_or_else(|| panic!("{transport:?} {version}: {refused:?}"));
        assert_eq!(error.code, RateLimit::ERROR_CODE, "{transport:?} {version}");
        harness.stop().await;
    })
    .await;
}

#[tokio::test]
async fn a_round_sent_again_costs_a_call() {
    // 2026-07-28 only: the initialize era has no rounds to send again
    for transport in [Transport::InProcess, Transport::Stdio, Transport::Http] {
        let server = long_calls(Server::builder("limited", "1.0.0"))
            .middleware(RateLimit::new(2, Duration::from_secs(3600)))
            .build()
            .unwrap();
        let mut harness = Harness::start(transport, MODERN, server).await;
        // declares elicitation, and answers by hand
        let capabilities = serde_json::from_value(json!({"elicitation": {}})).unwrap();
        let alice = harness
            .connect_with(ALICE, |options| options.capabilities(capabilities))
            .await;
        let call = |extra: Value| {
            let mut params = json!({"name": "confirm", "arguments": {}});
            params
                .as_object_mut()
                .unwrap()
                .extend(extra.as_object().unwrap().clone());
            alice.request_raw("tools/call", params)
        };
        let asked = call(json!({})).await.unwrap();
        assert_eq!(
            asked["resultType"], "input_required",
            "{transport:?}: {asked}"
        );
        let key = asked["inputRequests"]
            .as_object()
            .unwrap()
            .keys()
            .next()
            .unwrap();
        let retry = json!({
            "inputResponses": {key.clone(): {"action": "accept", "content": {}}},
            "requestState": asked["requestState"],
        });
        // the round that follows the answer is free; the same round again is not, and the
        // next time the bucket (two calls) is empty
        for refused in [false, false, true] {
            let again = call(retry.clone()).await;
            assert_eq!(rate_limited(&again), refused, "{transport:?}: {again:?}");
        }
        harness.stop().await;
    }
}

#[tokio::test]
async fn a_round_that_answers_nothing_costs_a_call() {
    for transport in [Transport::InProcess, Transport::Stdio, Transport::Http] {
        let server = long_calls(Server::builder("limited", "1.0.0"))
            .middleware(RateLimit::new(2, Duration::from_secs(3600)))
            .build()
            .unwrap();
        let mut harness = Harness::start(transport, MODERN, server).await;
        let capabilities = serde_json::from_value(json!({"elicitation": {}})).unwrap();
        let alice = harness
            .connect_with(ALICE, |options| options.capabilities(capabilities))
            .await;
        // each round sent back with its state and no answers is asked the same again: were
        // such rounds free, a client could run the handler forever for one call
        let mut params = json!({"name": "confirm", "arguments": {}});
        for refused in [false, false, true] {
            let answer = alice.request_raw("tools/call", params.clone()).await;
            assert_eq!(rate_limited(&answer), refused, "{transport:?}: {answer:?}");
            if let Ok(asked) = answer {
                assert_eq!(asked["resultType"], "input_required", "{transport:?}");
                params["requestState"] = asked["requestState"].clone();
            }
        }
        harness.stop().await;
    }
}

/// Whether `answer` is the rate limit's refusal.
fn rate_limited<T>(answer: &Result<T, presa::client::ClientError>) -> bool {
    matches!(
        answer,
        Err(error) if error.as_server_error().is_some_and(|e| e.code == RateLimit::ERROR_CODE)
    )
}

#[tokio::test]
async fn audit_can_record_every_round_of_a_call() {
    for transport in [Transport::InProcess, Transport::Stdio, Transport::Http] {
        let (sink, mut records) = mpsc::unbounded_channel::<AuditRecord>();
        let audit = Audit::new(move |record| {
            let _ = sink.send(record.clone());
        });
        let server = long_calls(Server::builder("audited", "1.0.0"))
            .middleware(audit.record_rounds(true))
            .build()
            .unwrap();
        let mut harness = Harness::start(transport, MODERN, server).await;
        let alice = harness.connect_with(ALICE, accepting).await;
        assert_eq!(
            text(&alice.call_tool("confirm", json!({})).await.unwrap()),
            "confirmed"
        );
        harness.stop().await;
        let rounds: Vec<AuditRecord> = std::iter::from_fn(|| records.try_recv().ok()).collect();
        let seen: Vec<(u32, &Outcome)> = rounds.iter().map(|r| (r.rounds, &r.outcome)).collect();
        assert_eq!(
            seen,
            [
                (1, &Outcome::InputRequired),
                (2, &Outcome::InputRequired),
                (3, &Outcome::Ok)
            ],
            "{transport:?}"
        );
        // one call: the same id in every round, carried in the sealed state
        assert!(
            rounds.iter().all(|r| r.call_id == rounds[0].call_id),
            "{rounds:?}"
        );
    }
}

#[tokio::test]
async fn audit_records_a_call_once_with_its_rounds_caller_task_and_uri() {
    everywhere(|transport, version| async move {
        let (sink, mut records) = mpsc::unbounded_channel::<AuditRecord>();
        let server = long_calls(Server::builder("audited", "1.0.0"))
            // the one key every middleware reads
            .caller_key(|request| Some(format!("user:{}", request.caller()?.subject()?)))
            .middleware(Audit::new(move |record| {
                let _ = sink.send(record.clone());
            }))
            .build()
            .unwrap();
        let mut harness = Harness::start(transport, version, server).await;
        let alice = harness.connect_with(ALICE, accepting).await;
        let case = format!("{transport:?} {version}");

        assert_eq!(
            text(&alice.call_tool("confirm", json!({})).await.unwrap()),
            "confirmed"
        );
        // a 2025-11-25 client allowing tasks lists the tools first, to know which run as tasks
        let mut next = async || loop {
            let record = records.recv().await.unwrap();
            if record.method != "tools/list" {
                return record;
            }
        };
        let confirmed = next().await;
        let rounds = if version == MODERN { 3 } else { 1 };
        assert_eq!(
            (
                confirmed.method.as_str(),
                confirmed.target.as_deref(),
                &confirmed.outcome
            ),
            ("tools/call", Some("confirm"), &Outcome::Ok),
            "{case}"
        );
        assert_eq!(confirmed.rounds, rounds, "{case}");

        alice.read_resource("todo://7").await.unwrap();
        let read = next().await;
        assert_eq!(read.method, "resources/read", "{case}");
        assert_eq!(
            read.target.as_deref(),
            Some("todo://7"),
            "{case}: the URI read"
        );
        assert_eq!(read.rounds, 1);

        // a task's record comes when it ends, with the work's outcome and duration; its polls
        // write none
        assert_eq!(
            text(&alice.call_tool("export", json!({})).await.unwrap()),
            "exported"
        );
        let exported = next().await;
        assert_eq!(
            (exported.target.as_deref(), &exported.outcome),
            (Some("export"), &Outcome::Ok),
            "{case}"
        );
        assert!(exported.task_id.is_some(), "{case}: {exported:?}");
        assert!(
            exported.duration >= Duration::from_millis(50),
            "{case}: {exported:?}"
        );

        // a task's polls are not recorded, unless one fails (a task that is not the caller's)
        let unknown = alice
            .request_raw("tasks/get", json!({"taskId": "not-a-task"}))
            .await;
        assert!(unknown.is_err(), "{case}: {unknown:?}");
        let poll = next().await;
        assert_eq!(poll.method, "tasks/get", "{case}");
        assert_eq!(poll.task_id.as_deref(), Some("not-a-task"), "{case}");
        assert!(
            matches!(poll.outcome, Outcome::Error { .. }),
            "{case}: {poll:?}"
        );

        harness.stop().await;
        for record in [&confirmed, &read, &exported, &poll] {
            assert_eq!(record.caller.as_deref(), Some("user:alice"), "{case}");
            assert_eq!(record.transport, transport);
            assert_eq!(record.protocol_version, version);
        }
        assert_ne!(confirmed.call_id, read.call_id);
        let more: Vec<AuditRecord> = std::iter::from_fn(|| records.try_recv().ok())
            .filter(|record| record.method != "tools/list")
            .collect();
        assert!(more.is_empty(), "{case}: one record per call: {more:?}");
    })
    .await;
}

fn guarded_definitions(builder: ServerBuilder) -> ServerBuilder {
    builder
        .tool_sync(
            Tool::without_params("public"),
            |_: Value, _: Context| "public",
        )
        .tool_sync(
            Tool::without_params("secret").requires_scopes(["secret:read"]),
            |_: Value, _: Context| "secret",
        )
        .prompt(Prompt::new("greeting"), |_args, _cx| async { "hello" })
        .prompt(
            Prompt::new("confession").requires_scopes(["secret:read"]),
            |_args, _cx| async { "psst" },
        )
        .resource(Resource::new("file:///readme", "readme"), |_cx| async {
            "read me"
        })
        .resource(
            Resource::new("file:///vault", "vault").requires_scopes(["secret:read"]),
            |_cx| async { "gold" },
        )
}

async fn listing(client: &Client) -> (Vec<String>, Vec<String>, Vec<String>) {
    let tools = client.list_tools().await.unwrap();
    let prompts = client.list_prompts().await.unwrap();
    let resources = client.list_resources().await.unwrap();
    (
        tools.into_iter().map(|t| t.name).collect(),
        prompts.into_iter().map(|p| p.name).collect(),
        resources.into_iter().map(|r| r.uri).collect(),
    )
}

#[tokio::test]
async fn scope_filtered_lists_show_a_caller_what_its_scopes_allow() {
    everywhere(|transport, version| async move {
        let server = guarded_definitions(Server::builder("filtered", "1.0.0"))
            .middleware(ScopeFilteredLists)
            .build()
            .unwrap();
        let mut harness = Harness::start(transport, version, server).await;
        let alice = harness.connect(ALICE).await;
        let carol = harness.connect(CAROL).await;
        let everything = (
            vec!["public".to_owned(), "secret".to_owned()],
            vec!["greeting".to_owned(), "confession".to_owned()],
            vec!["file:///readme".to_owned(), "file:///vault".to_owned()],
        );
        assert_eq!(listing(&carol).await, everything, "{transport:?} {version}");
        let (tools, prompts, resources) = listing(&alice).await;
        assert_eq!(tools, ["public"], "{transport:?} {version}");
        assert_eq!(prompts, ["greeting"]);
        assert_eq!(resources, ["file:///readme"]);
        // asking again is answered the same (nothing cached across callers)
        assert_eq!(listing(&carol).await, everything);
        assert_eq!(listing(&alice).await.0, ["public"]);
        // hidden is not callable either: the definition's scopes still decide
        let refused = alice.call_tool("secret", json!({})).await.unwrap_err();
        assert!(refused.to_string().contains("secret:read"), "{refused}");
        harness.stop().await;

        // without the middleware every list shows everything
        let server = guarded_definitions(Server::builder("unfiltered", "1.0.0"))
            .build()
            .unwrap();
        let mut harness = Harness::start(transport, version, server).await;
        let alice = harness.connect(ALICE).await;
        assert_eq!(listing(&alice).await, everything);
        harness.stop().await;
    })
    .await;
}

/// What a middleware attached to the request, as a handler reads it.
#[derive(Clone)]
struct Tenant(String);

#[tokio::test]
async fn handlers_see_the_transport_the_http_request_and_what_middleware_attached() {
    everywhere(|transport, version| async move {
        let server = Server::builder("context", "1.0.0")
            .middleware(
                |mut request: presa::server::McpRequest, next: presa::server::Next| async move {
                    let tenant = match request.context().http() {
                        Some(http) => http.headers()["authorization"].to_str().unwrap().to_owned(),
                        None => format!("{:?}", request.context().transport()),
                    };
                    request.extensions_mut().insert(Tenant(tenant));
                    next.run(request).await
                },
            )
            .tool_sync(Tool::without_params("whereami"), |_: Value, cx: Context| {
                let tenant = cx.extensions().get::<Tenant>().map(|t| t.0.clone());
                json!({"transport": cx.transport().as_str(), "tenant": tenant})
            })
            .build()
            .unwrap();
        let mut harness = Harness::start(transport, version, server).await;
        let alice = harness.connect(ALICE).await;
        let result = alice.call_tool("whereami", json!({})).await.unwrap();
        let expected_tenant = match transport {
            Transport::Http => "Bearer alice".to_owned(),
            other => format!("{other:?}"),
        };
        assert_eq!(
            result.structured_content,
            Some(json!({"transport": transport.as_str(), "tenant": expected_tenant})),
            "{transport:?} {version}"
        );
        harness.stop().await;
    })
    .await;
}
