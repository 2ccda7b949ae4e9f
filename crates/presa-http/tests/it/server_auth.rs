//! The protected MCP server over real HTTP on 127.0.0.1: challenges, protected resource
//! metadata, identities reaching handlers, scopes, sessions and cancellation per caller (the JWT
//! verifier's tests are presa-oauth's).

use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use presa_core::{ProtocolVersion, Resource, Tool};
use presa_http::{AuthOptions, CancellationPolicy, HttpOptions, RunningServer, VerifyError, serve};
use presa_server::{AuthInfo, Context, RequireScopes, Server};
use presa_test::message::{initialize, legacy_request, request};
use reqwest::header::HeaderMap;
use serde_json::{Value, json};
use tokio::sync::Notify;

const AS: &str = "https://login.example.net";

fn identity(token: &str) -> Result<AuthInfo, VerifyError> {
    let info = AuthInfo::new();
    Ok(match token {
        "alice" => info.with_subject("alice").with_scopes(["mcp"]),
        "alice-writer" => info
            .with_subject("alice")
            .with_scopes(["mcp", "files:write"]),
        "bob" => info.with_subject("bob").with_scopes(["mcp"]),
        "bob-reader" => info
            .with_subject("bob")
            .with_scopes(["mcp", "secrets:read"]),
        "no-mcp" => info.with_subject("carol").with_scopes(["files:write"]),
        _ => return Err(VerifyError::Invalid("unknown token".into())),
    })
}

fn auth() -> AuthOptions {
    AuthOptions::new(AS, |token: String| async move { identity(&token) })
}

fn test_server(cancelled: Arc<Notify>) -> Server {
    Server::builder("auth-test", "1.0.0")
        .tool(
            Tool::without_params("whoami"),
            |_: Value, cx: Context| async move {
                let auth = cx.auth().expect("an authenticated request");
                json!({"subject": auth.subject(), "scopes": auth.scopes()})
            },
        )
        .tool(
            Tool::without_params("write").requires_scopes(["files:write"]),
            |_: Value, _| async { "written" },
        )
        .resource(
            Resource::new("file:///secret", "secret").requires_scopes(["secrets:read"]),
            |_cx| async { "s3cr3t" },
        )
        .tool(
            Tool::without_params("slow"),
            move |_: Value, cx: Context| {
                let cancelled = Arc::clone(&cancelled);
                async move {
                    cx.progress(1.0, None, None).await;
                    struct Signal(Arc<Notify>);
                    impl Drop for Signal {
                        fn drop(&mut self) {
                            self.0.notify_one();
                        }
                    }
                    let _signal = Signal(cancelled);
                    std::future::pending::<()>().await;
                    "never"
                }
            },
        )
        .build()
        .unwrap()
}

struct Fixture {
    running: RunningServer,
    http: reqwest::Client,
    cancelled: Arc<Notify>,
}

async fn fixture(options: HttpOptions) -> Fixture {
    let cancelled = Arc::new(Notify::new());
    let running = serve(test_server(Arc::clone(&cancelled)), options)
        .await
        .unwrap();
    Fixture {
        running,
        http: reqwest::Client::new(),
        cancelled,
    }
}

impl Fixture {
    fn origin(&self) -> String {
        format!("http://{}", self.running.local_addr())
    }

    fn metadata_url(&self) -> String {
        format!("{}/.well-known/oauth-protected-resource/mcp", self.origin())
    }

    fn post(&self, token: Option<&str>) -> reqwest::RequestBuilder {
        let request = self
            .http
            .post(self.running.url())
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream");
        match token {
            Some(token) => request.bearer_auth(token),
            None => request,
        }
    }

    /// A correct 2026-07-28 POST of `body`.
    fn modern_post(&self, token: Option<&str>, body: &Value) -> reqwest::RequestBuilder {
        let mut request = self
            .post(token)
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", body["method"].as_str().unwrap());
        let name = body["params"]
            .get("name")
            .or_else(|| body["params"].get("uri"));
        if let Some(name) = name.and_then(Value::as_str) {
            request = request.header("mcp-name", name);
        }
        request.body(body.to_string())
    }

    async fn send(&self, request: reqwest::RequestBuilder) -> (u16, HeaderMap, Value) {
        let response = request.send().await.unwrap();
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let text = response.text().await.unwrap();
        let body = serde_json::from_str(&text).unwrap_or(Value::String(text));
        (status, headers, body)
    }

    /// Starts an initialize-era session as the holder of `token`.
    async fn initialize(&self, token: &str) -> String {
        let init = initialize(0, ProtocolVersion::V2025_11_25).to_string();
        let (status, headers, _) = self.send(self.post(Some(token)).body(init)).await;
        assert_eq!(status, 200);
        let session = headers["mcp-session-id"].to_str().unwrap().to_owned();
        let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let (status, ..) = self
            .send(
                self.post(Some(token))
                    .header("mcp-session-id", &session)
                    .body(note.to_string()),
            )
            .await;
        assert_eq!(status, 202);
        session
    }

    fn in_session(&self, token: &str, session: &str, body: String) -> reqwest::RequestBuilder {
        self.post(Some(token))
            .header("mcp-session-id", session)
            .header("mcp-protocol-version", "2025-11-25")
            .body(body)
    }
}

fn challenge(headers: &HeaderMap) -> &str {
    headers["www-authenticate"].to_str().unwrap()
}

#[tokio::test]
async fn no_token_gets_401_pointing_at_the_metadata() {
    let f = fixture(HttpOptions::default().auth(auth())).await;
    let body = request(1, "tools/call", json!({"name": "whoami"}));
    let (status, headers, error) = f.send(f.modern_post(None, &body)).await;
    assert_eq!(status, 401);
    assert_eq!(
        challenge(&headers),
        format!("Bearer resource_metadata=\"{}\"", f.metadata_url())
    );
    assert_eq!(error["error"]["code"], -32600);

    // with server-wide scopes, the challenge names them
    let f = fixture(HttpOptions::default().auth(auth().required_scopes(["mcp"]))).await;
    let (status, headers, _) = f.send(f.modern_post(None, &body)).await;
    assert_eq!(status, 401);
    assert_eq!(
        challenge(&headers),
        format!(
            "Bearer scope=\"mcp\", resource_metadata=\"{}\"",
            f.metadata_url()
        )
    );
    // GET and DELETE are protected too
    let response = f.http.get(f.running.url()).send().await.unwrap();
    assert_eq!(response.status(), 401);
}

#[tokio::test]
async fn a_bad_token_gets_invalid_token() {
    let f = fixture(HttpOptions::default().auth(auth())).await;
    let body = request(1, "tools/call", json!({"name": "whoami"}));
    let (status, headers, error) = f.send(f.modern_post(Some("forged"), &body)).await;
    assert_eq!(status, 401);
    assert_eq!(
        challenge(&headers),
        format!(
            "Bearer error=\"invalid_token\", resource_metadata=\"{}\", error_description=\"unknown token\"",
            f.metadata_url()
        )
    );
    assert_eq!(error["error"]["message"], "Unauthorized: unknown token");
    let (status, headers, _) = f
        .send(
            f.modern_post(None, &body)
                .header("authorization", "Bearer two words"),
        )
        .await;
    assert_eq!(status, 400);
    assert!(
        challenge(&headers).starts_with("Bearer error=\"invalid_request\""),
        "{headers:?}"
    );
}

#[tokio::test]
async fn metadata_is_served_without_a_token() {
    let f = fixture(
        HttpOptions::default().auth(
            auth()
                .required_scopes(["mcp"])
                .scopes_supported(["mcp", "files:write", "secrets:read"])
                .resource_name("Test files"),
        ),
    )
    .await;
    let response = f.http.get(f.metadata_url()).send().await.unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "application/json");
    let metadata: Value = serde_json::from_str(&response.text().await.unwrap()).unwrap();
    assert_eq!(
        metadata,
        json!({
            "resource": f.running.url(),
            "authorization_servers": [AS],
            "scopes_supported": ["mcp", "files:write", "secrets:read"],
            "bearer_methods_supported": ["header"],
            "resource_name": "Test files",
        })
    );
    // the DNS-rebinding guard still applies
    let response = f
        .http
        .get(f.metadata_url())
        .header("origin", "http://evil.example.com")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 403);
}

#[tokio::test]
async fn a_configured_resource_decides_the_metadata() {
    let options = HttpOptions::default().auth(auth().resource("https://api.example.net/mcp"));
    let f = fixture(options).await;
    let body = request(1, "tools/call", json!({"name": "whoami"}));
    let (_, headers, _) = f.send(f.modern_post(None, &body)).await;
    assert_eq!(
        challenge(&headers),
        "Bearer resource_metadata=\"https://api.example.net/.well-known/oauth-protected-resource/mcp\""
    );
    let response = f.http.get(f.metadata_url()).send().await.unwrap();
    let metadata: Value = serde_json::from_str(&response.text().await.unwrap()).unwrap();
    assert_eq!(metadata["resource"], "https://api.example.net/mcp");
    // required scopes default the supported ones; none here
    assert!(metadata.get("scopes_supported").is_none());
}

#[tokio::test]
async fn a_valid_token_reaches_the_handler_in_both_eras() {
    let f = fixture(HttpOptions::default().auth(auth())).await;
    let body = request(1, "tools/call", json!({"name": "whoami"}));
    let (status, _, r) = f.send(f.modern_post(Some("alice"), &body)).await;
    assert_eq!(status, 200, "{r}");
    assert_eq!(
        r["result"]["structuredContent"],
        json!({"subject": "alice", "scopes": ["mcp"]})
    );

    let session = f.initialize("bob").await;
    let call = legacy_request(1, "tools/call", json!({"name": "whoami"})).to_string();
    let (status, _, r) = f.send(f.in_session("bob", &session, call)).await;
    assert_eq!(status, 200, "{r}");
    assert_eq!(r["result"]["structuredContent"]["subject"], "bob");
}

#[tokio::test]
async fn tool_scopes_get_403_insufficient_scope() {
    let f = fixture(HttpOptions::default().auth(auth().required_scopes(["mcp"]))).await;
    let body = request(7, "tools/call", json!({"name": "write"}));
    let (status, headers, r) = f.send(f.modern_post(Some("alice"), &body)).await;
    assert_eq!(status, 403);
    assert_eq!(
        challenge(&headers),
        format!(
            "Bearer error=\"insufficient_scope\", scope=\"mcp files:write\", resource_metadata=\"{}\", error_description=\"Insufficient scope: tool write requires files:write\"",
            f.metadata_url()
        )
    );
    assert_eq!(r["id"], 7);
    assert_eq!(r["error"]["data"]["error"], "insufficient_scope");

    let (status, _, r) = f.send(f.modern_post(Some("alice-writer"), &body)).await;
    assert_eq!(status, 200);
    assert_eq!(r["result"]["content"][0]["text"], "written");
}

#[tokio::test]
async fn resource_scopes_get_403_inside_a_session_too() {
    let f = fixture(HttpOptions::default().auth(auth())).await;
    let session = f.initialize("bob").await;
    let read = legacy_request(2, "resources/read", json!({"uri": "file:///secret"})).to_string();
    let (status, headers, r) = f.send(f.in_session("bob", &session, read)).await;
    assert_eq!(status, 403, "{r}");
    let challenge = challenge(&headers);
    assert!(
        challenge.starts_with("Bearer error=\"insufficient_scope\", scope=\"secrets:read\""),
        "{challenge}"
    );
    assert_eq!(r["id"], 2);

    // the session carries on, and a token with the scope reads the resource (bob, upgraded)
    let session_reader = f.initialize("bob-reader").await;
    let read = legacy_request(3, "resources/read", json!({"uri": "file:///secret"})).to_string();
    let (status, _, r) = f
        .send(f.in_session("bob-reader", &session_reader, read))
        .await;
    assert_eq!(status, 200);
    assert_eq!(r["result"]["contents"][0]["text"], "s3cr3t");
    let read = legacy_request(4, "resources/read", json!({"uri": "file:///secret"})).to_string();
    let (status, _, r) = f.send(f.in_session("bob-reader", &session, read)).await;
    assert_eq!(
        (status, &r["result"]["contents"][0]["text"]),
        (200, &json!("s3cr3t"))
    );
}

#[tokio::test]
async fn server_wide_scopes_are_checked_by_the_layer() {
    let f = fixture(HttpOptions::default().auth(auth().required_scopes(["mcp"]))).await;
    let body = request(1, "tools/call", json!({"name": "whoami"}));
    let (status, headers, _) = f.send(f.modern_post(Some("no-mcp"), &body)).await;
    assert_eq!(status, 403);
    assert!(
        challenge(&headers).starts_with("Bearer error=\"insufficient_scope\", scope=\"mcp\""),
        "{headers:?}"
    );
}

#[tokio::test]
async fn sessions_belong_to_the_caller_who_created_them() {
    let f = fixture(HttpOptions::default().auth(auth())).await;
    let session = f.initialize("alice").await;
    let call = legacy_request(1, "tools/call", json!({"name": "whoami"})).to_string();
    let (status, ..) = f.send(f.in_session("bob", &session, call.clone())).await;
    assert_eq!(status, 404, "another caller cannot use the session");
    let response = f
        .http
        .delete(f.running.url())
        .bearer_auth("bob")
        .header("mcp-session-id", &session)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 404, "nor end it");
    // the same subject with another token can
    let (status, _, r) = f.send(f.in_session("alice-writer", &session, call)).await;
    assert_eq!(status, 200);
    assert_eq!(r["result"]["structuredContent"]["subject"], "alice");
}

/// One caller holding as many sessions as one caller may is refused another (503 with
/// `Retry-After`); other callers are not.
#[tokio::test]
async fn each_caller_holds_at_most_its_share_of_sessions() {
    let f = fixture(
        HttpOptions::default()
            .auth(auth())
            .max_sessions_per_caller(2),
    )
    .await;
    let first = f.initialize("alice").await;
    f.initialize("alice-writer").await;
    let init = initialize(0, ProtocolVersion::V2025_11_25).to_string();
    let (status, headers, body) = f.send(f.post(Some("alice")).body(init.clone())).await;
    assert_eq!(status, 503, "{body}");
    assert_eq!(headers["retry-after"], "1");
    f.initialize("bob").await;
    let ended = f
        .http
        .delete(f.running.url())
        .bearer_auth("alice")
        .header("mcp-session-id", &first)
        .send()
        .await
        .unwrap();
    assert_eq!(ended.status(), 200);
    f.initialize("alice").await;
}

#[tokio::test]
async fn posted_cancellation_is_per_authenticated_subject() {
    let f = fixture(
        HttpOptions::default()
            .auth(auth())
            .cancellation(CancellationPolicy::AuthSubject),
    )
    .await;
    let mut body = request(1, "tools/call", json!({"name": "slow"}));
    body["params"]["_meta"]["progressToken"] = json!(1);
    let response = f.modern_post(Some("alice"), &body).send().await.unwrap();
    assert_eq!(response.status(), 200);
    let mut stream = response.bytes_stream();
    let first = stream.next().await.unwrap().unwrap();
    assert!(String::from_utf8_lossy(&first).contains("notifications/progress"));

    let cancel = request(0, "notifications/cancelled", json!({"requestId": 1}));
    let mut cancel = cancel.as_object().unwrap().clone();
    cancel.remove("id");
    let cancel = Value::Object(cancel).to_string();
    let post_cancel = |token: &'static str| {
        f.post(Some(token))
            .header("mcp-protocol-version", "2026-07-28")
            .body(cancel.clone())
    };
    let (status, ..) = f.send(post_cancel("bob")).await;
    assert_eq!(status, 202);
    let bob_cancelled =
        tokio::time::timeout(Duration::from_millis(300), f.cancelled.notified()).await;
    assert!(bob_cancelled.is_err(), "bob cannot cancel alice's request");

    let (status, ..) = f.send(post_cancel("alice-writer")).await;
    assert_eq!(status, 202);
    tokio::time::timeout(Duration::from_secs(30), f.cancelled.notified())
        .await
        .expect("alice cancels her own request");
    drop(stream);
}
