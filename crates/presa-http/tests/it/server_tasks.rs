//! Tasks over real HTTP on 127.0.0.1: 2026-07-28 tasks bound to the authenticated caller, and a
//! 2025-11-25 session whose task asks its question on the stream of the `tasks/result` waiting
//! for it.

use futures_util::StreamExt;
use presa_core::{
    ElicitRequestFormParams, ElicitationSchema, StringSchema, TASKS_EXTENSION, TaskSupport, Tool,
};
use presa_http::{AuthOptions, HttpOptions, RunningServer, VerifyError, serve};
use presa_server::{AuthInfo, Context, InputError, Server};
use presa_test::message::{initialize_with, legacy_request};
use serde_json::{Value, json};

fn server() -> Server {
    Server::builder("tasks-http", "1.0.0")
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
        .unwrap()
}

fn identity(token: &str) -> Result<AuthInfo, VerifyError> {
    match token {
        "alice" | "bob" => Ok(AuthInfo::new().with_subject(token)),
        _ => Err(VerifyError::Invalid("unknown token".into())),
    }
}

struct Fixture {
    running: RunningServer,
    http: reqwest::Client,
}

impl Fixture {
    async fn start(options: HttpOptions) -> Self {
        Self {
            running: serve(server(), options).await.unwrap(),
            http: reqwest::Client::new(),
        }
    }

    fn post(&self) -> reqwest::RequestBuilder {
        self.http
            .post(self.running.url())
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
    }

    /// A 2026-07-28 request declaring the tasks extension, as `token`'s.
    async fn modern(&self, token: &str, method: &str, params: Value) -> Value {
        let mut params = params;
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}, "extensions": {TASKS_EXTENSION: {}}},
        });
        let name = params
            .get("name")
            .or_else(|| params.get("taskId"))
            .and_then(Value::as_str)
            .map(str::to_owned);
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        let mut request = self
            .post()
            .bearer_auth(token)
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", method);
        if let Some(name) = name {
            request = request.header("mcp-name", name);
        }
        let response = request.body(body.to_string()).send().await.unwrap();
        serde_json::from_str(&response.text().await.unwrap()).unwrap()
    }
}

#[tokio::test]
async fn a_task_is_its_callers_alone() {
    let auth = AuthOptions::new("https://login.example.net", |token: String| async move {
        identity(&token)
    });
    let f = Fixture::start(HttpOptions::default().auth(auth)).await;
    let created = f
        .modern("alice", "tools/call", json!({"name": "asks"}))
        .await;
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    let mine = f.modern("alice", "tasks/get", json!({"taskId": id})).await;
    assert!(mine["result"]["status"].is_string(), "{mine}");
    for method in ["tasks/get", "tasks/cancel"] {
        let theirs = f.modern("bob", method, json!({"taskId": id})).await;
        assert_eq!(theirs["error"]["code"], -32602, "{method}: {theirs}");
    }
    // bob's cancel changed nothing: alice cancels it herself
    let ack = f
        .modern("alice", "tasks/cancel", json!({"taskId": id}))
        .await;
    assert_eq!(ack["result"]["resultType"], "complete");
}

#[tokio::test]
async fn a_legacy_tasks_question_rides_the_stream_of_its_tasks_result() {
    let f = Fixture::start(HttpOptions::default()).await;
    let init = initialize_with(0, "2025-11-25", json!({"elicitation": {}}));
    let response = f.post().body(init.to_string()).send().await.unwrap();
    let session = response.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_owned();
    let legacy = |body: Value| {
        f.post()
            .header("mcp-session-id", &session)
            .header("mcp-protocol-version", "2025-11-25")
            .body(body.to_string())
    };
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(legacy(note).send().await.unwrap().status(), 202);
    let call = legacy_request(1, "tools/call", json!({"name": "asks", "task": {}}));
    let created = legacy(call).send().await.unwrap().text().await.unwrap();
    let created: Value = serde_json::from_str(&created).unwrap();
    let id = created["result"]["task"]["taskId"]
        .as_str()
        .unwrap()
        .to_owned();

    // tasks/result answers on a stream: first the task's question, then the result
    let result = legacy(legacy_request(2, "tasks/result", json!({"taskId": id})))
        .send()
        .await
        .unwrap();
    let mut body = result.bytes_stream();
    let mut text = String::new();
    let mut answered = false;
    let outcome = loop {
        let chunk = body.next().await.expect("the stream goes on").unwrap();
        text.push_str(&String::from_utf8_lossy(&chunk));
        let messages: Vec<Value> = text
            .lines()
            .filter_map(|l| l.strip_prefix("data: "))
            .filter(|d| !d.is_empty())
            .filter_map(|d| serde_json::from_str(d).ok())
            .collect();
        if let Some(done) = messages.iter().find(|m| m["id"] == 2) {
            break done.clone();
        }
        let ask = messages
            .iter()
            .find(|m| m["method"] == "elicitation/create");
        if let (Some(ask), false) = (ask, answered) {
            assert_eq!(
                ask["params"]["_meta"]["io.modelcontextprotocol/related-task"]["taskId"],
                id.as_str()
            );
            let reply = json!({"jsonrpc": "2.0", "id": ask["id"], "result": {"action": "accept", "content": {"name": "Kim"}}});
            assert_eq!(legacy(reply).send().await.unwrap().status(), 202);
            answered = true;
        }
    };
    assert!(answered);
    assert_eq!(outcome["result"]["content"][0]["text"], "hello \"Kim\"");
    assert_eq!(
        outcome["result"]["_meta"]["io.modelcontextprotocol/related-task"]["taskId"],
        id.as_str()
    );
}
