//! Identity and scope requirements: what handlers see in `cx.auth()`, and the dispatcher refusing
//! callers without the scopes a tool, resource, template or prompt requires.

use std::sync::Arc;

use presa_core::{
    ClientCapabilities, ClientContext, ErrorObject, JsonObject, Message, Prompt, ProtocolVersion,
    Resource, ResourceTemplate, Tool, Transmit,
};
use presa_server::*;
use presa_test::message::{self, decode};
use serde_json::{Value, json};
use tokio::sync::mpsc;

fn object(value: Value) -> JsonObject {
    value.as_object().unwrap().clone()
}

fn cx(auth: Option<AuthInfo>) -> Context {
    let client = ClientContext {
        protocol_version: ProtocolVersion::V2025_11_25,
        capabilities: ClientCapabilities::default(),
        client_info: None,
    };
    let cx = Context::for_client(client);
    match auth {
        Some(auth) => cx.with_auth(auth),
        None => cx,
    }
}

async fn call(
    server: &Server,
    auth: Option<AuthInfo>,
    method: &str,
    params: Value,
) -> Result<Value, ErrorObject> {
    let params = serde_json::value::to_raw_value(&params).unwrap();
    server
        .handle(method, Some(&params), cx(auth))
        .await
        .map(|raw| serde_json::from_str(raw.get()).unwrap())
}

fn server() -> Server {
    Server::builder("auth", "1.0.0")
        .tool(
            Tool::new("whoami", object(json!({"type": "object"}))),
            |_: Value, cx: Context| async move {
                let auth = cx.auth();
                json!({
                    "subject": auth.and_then(AuthInfo::subject),
                    "scopes": auth.map(|a| a.scopes().iter().cloned().collect::<Vec<_>>()),
                })
            },
        )
        .tool(
            Tool::new("write", object(json!({"type": "object"})))
                .requires_scopes(["files:read", "files:write"]),
            |_: Value, _cx: Context| async move { "written" },
        )
        .tool(
            Tool::new("delete", object(json!({"type": "object"}))),
            |_: Value, cx: Context| async move {
                cx.require_scopes(["files:delete"])?;
                Ok::<_, InsufficientScope>("deleted")
            },
        )
        .resource(
            Resource::new("file:///secret", "secret").requires_scopes(["secrets:read"]),
            |_cx| async { "s3cr3t" },
        )
        .resource_template(
            ResourceTemplate::new("file:///logs/{name}", "logs").requires_scopes(["logs:read"]),
            |vars: Variables, _cx| async move { format!("log {}", vars["name"]) },
        )
        .prompt(
            Prompt::new("admin").requires_scopes(["admin"]),
            |_args, _cx| async { "be root" },
        )
        .build()
        .unwrap()
}

fn scope_of(error: &ErrorObject) -> String {
    InsufficientScope::from_error(error)
        .unwrap_or_else(|| panic!("not an insufficient-scope error: {error:?}"))
        .scope()
}

#[tokio::test]
async fn handlers_see_the_identity() {
    let auth = AuthInfo::new()
        .with_subject("alice")
        .with_scopes(["files:read"]);
    let result = call(
        &server(),
        Some(auth),
        "tools/call",
        json!({"name": "whoami"}),
    )
    .await
    .unwrap();
    assert_eq!(
        result["structuredContent"],
        json!({"subject": "alice", "scopes": ["files:read"]})
    );
}

#[tokio::test]
async fn tool_scopes_are_enforced_before_the_handler() {
    let s = server();
    let partial = AuthInfo::new().with_scopes(["files:read"]);
    let error = call(&s, Some(partial), "tools/call", json!({"name": "write"}))
        .await
        .unwrap_err();
    assert_eq!(scope_of(&error), "files:read files:write");
    assert!(error.message.contains("tool \"write\""), "{error:?}");

    let error = call(&s, None, "tools/call", json!({"name": "write"}))
        .await
        .unwrap_err();
    assert_eq!(scope_of(&error), "files:read files:write");

    let full = AuthInfo::new().with_scopes(["files:read", "files:write", "other"]);
    let result = call(&s, Some(full), "tools/call", json!({"name": "write"}))
        .await
        .unwrap();
    assert_eq!(result["content"][0]["text"], "written");
    // an unscoped tool needs nothing
    assert!(
        call(&s, None, "tools/call", json!({"name": "whoami"}))
            .await
            .is_ok()
    );
}

#[tokio::test]
async fn a_handler_can_ask_for_scopes_itself() {
    let s = server();
    let error = call(
        &s,
        Some(AuthInfo::new()),
        "tools/call",
        json!({"name": "delete"}),
    )
    .await
    .unwrap_err();
    assert_eq!(scope_of(&error), "files:delete");
    let ok = AuthInfo::new().with_scopes(["files:delete"]);
    let result = call(&s, Some(ok), "tools/call", json!({"name": "delete"}))
        .await
        .unwrap();
    assert_eq!(result["content"][0]["text"], "deleted");
}

#[tokio::test]
async fn resource_template_and_prompt_scopes_are_enforced() {
    let s = server();
    let reader = AuthInfo::new().with_scopes(["secrets:read", "logs:read"]);
    let error = call(&s, None, "resources/read", json!({"uri": "file:///secret"}))
        .await
        .unwrap_err();
    assert_eq!(scope_of(&error), "secrets:read");
    let read = call(
        &s,
        Some(reader.clone()),
        "resources/read",
        json!({"uri": "file:///secret"}),
    )
    .await
    .unwrap();
    assert_eq!(read["contents"][0]["text"], "s3cr3t");

    let error = call(
        &s,
        Some(AuthInfo::new().with_scopes(["secrets:read"])),
        "resources/read",
        json!({"uri": "file:///logs/today"}),
    )
    .await
    .unwrap_err();
    assert_eq!(scope_of(&error), "logs:read");
    let read = call(
        &s,
        Some(reader.clone()),
        "resources/read",
        json!({"uri": "file:///logs/today"}),
    )
    .await
    .unwrap();
    assert_eq!(read["contents"][0]["text"], "log today");

    let error = call(&s, Some(reader), "prompts/get", json!({"name": "admin"}))
        .await
        .unwrap_err();
    assert_eq!(scope_of(&error), "admin");
    let admin = AuthInfo::new().with_scopes(["admin"]);
    assert!(
        call(&s, Some(admin), "prompts/get", json!({"name": "admin"}))
            .await
            .is_ok()
    );
}

#[tokio::test]
async fn the_requirement_belongs_to_the_definition() {
    let s = server();
    assert!(s.remove_tool("write"));
    // added again without scopes: anyone may call it
    s.add_tool(
        Tool::new("write", object(json!({"type": "object"}))),
        |_: Value, _cx: Context| async move { "again" },
    )
    .unwrap();
    let result = call(&s, None, "tools/call", json!({"name": "write"}))
        .await
        .unwrap();
    assert_eq!(result["content"][0]["text"], "again");
    // added while serving with scopes of its own: they apply at once
    s.add_tool(
        Tool::new("purge", object(json!({"type": "object"}))).requires_scopes(["files:purge"]),
        |_: Value, _cx: Context| async move { "purged" },
    )
    .unwrap();
    let error = call(&s, None, "tools/call", json!({"name": "purge"}))
        .await
        .unwrap_err();
    assert_eq!(scope_of(&error), "files:purge");
}

fn request(id: i64, method: &str, params: Value) -> Message {
    decode(&message::request(id, method, params))
}

async fn answer(from_server: &mut mpsc::Receiver<Transmit>) -> Value {
    let transmit = from_server.recv().await.expect("a message");
    serde_json::from_str(&transmit.message.to_json()).unwrap()
}

#[tokio::test]
async fn connections_carry_the_identity_of_each_message_or_their_own() {
    let (to_server, incoming) = mpsc::channel(16);
    let (outgoing, mut from_server) = mpsc::channel(16);
    let options = ConnectionOptions::default().auth(AuthInfo::new().with_subject("connection"));
    tokio::spawn(serve_connection(
        server(),
        ServerChannel {
            incoming: incoming.into(),
            outgoing,
        },
        options,
    ));
    let whoami = json!({"name": "whoami"});
    to_server
        .send(Incoming::Message(request(1, "tools/call", whoami.clone())))
        .await
        .unwrap();
    let reply = answer(&mut from_server).await;
    assert_eq!(
        reply["result"]["structuredContent"]["subject"],
        "connection"
    );
    let bob = Arc::new(AuthInfo::new().with_subject("bob"));
    to_server
        .send(Incoming::Authenticated(
            request(2, "tools/call", whoami.clone()),
            bob,
        ))
        .await
        .unwrap();
    let reply = answer(&mut from_server).await;
    assert_eq!(reply["result"]["structuredContent"]["subject"], "bob");
    to_server
        .send(Incoming::Message(request(3, "tools/call", whoami)))
        .await
        .unwrap();
    let reply = answer(&mut from_server).await;
    assert_eq!(
        reply["result"]["structuredContent"]["subject"],
        "connection"
    );
}
