//! What a new user met in their first hour with presa, each written as they wrote it: a handler
//! that returns `Result<_, ToolError>` and meets every error presa hands it, a handler that
//! falls back when the client cannot answer, a tool without arguments that still has a
//! description. Run in-process under 2026-07-28 and under 2025-11-25.

use presa::client::{Client, ClientError, ClientOptions, ResultText};
use presa::core::{ElicitResult, ErrorCode, Implementation, ProtocolVersion};
use presa::prelude::*;
use serde::Deserialize;
use serde_json::json;

const ERAS: [ProtocolVersion; 2] = [ProtocolVersion::V2026_07_28, ProtocolVersion::V2025_11_25];

/// What the user is asked before a todo is deleted.
#[derive(Deserialize, JsonSchema)]
struct Confirm {
    sure: bool,
}

/// The server's todos.
struct Todos(Vec<&'static str>);

fn server() -> Server {
    Server::builder("todos", "1.0.0")
        .state(Todos(vec!["write docs", "ship"]))
        .elicitation_form::<Confirm>()
        // every error this handler meets converts with `?`: the state's, the input's
        .typed_tool("delete_todos", |(), cx: Context| async move {
            let todos = cx.state::<Todos>()?;
            let deleted = match cx.elicit_as::<Confirm>("Delete every todo?").await? {
                Elicitation::Accepted(Confirm { sure: true }) => todos.0.len(),
                _ => 0,
            };
            Ok::<_, ToolError>(format!("deleted {deleted}"))
        })
        .typed_tool("admin_only", |(), cx: Context| async move {
            cx.require_scopes(["todos:admin"])?;
            Ok::<_, ToolError>("done")
        })
        .typed_tool("missing_state", |(), cx: Context| async move {
            let _: &String = cx.state::<String>()?;
            Ok::<_, ToolError>("unreachable")
        })
        // asks only a client that can answer, and says what it did otherwise
        .typed_tool(
            Tool::named("complete_todo").description("Mark a todo done, confirming first."),
            |(), cx: Context| async move {
                if !cx.can_elicit() {
                    return Ok::<_, ToolError>("not confirmed: this client cannot ask".to_owned());
                }
                Ok(match cx.elicit_as::<Confirm>("Mark it done?").await? {
                    Elicitation::Accepted(Confirm { sure: true }) => "done".to_owned(),
                    _ => "left open".to_owned(),
                })
            },
        )
        .build()
        .unwrap()
}

fn options(version: ProtocolVersion) -> ClientOptions {
    ClientOptions::new(Implementation::new("first-hour", "1.0.0")).protocol_version(Some(version))
}

/// A client that answers every form with `{"sure": sure}`.
fn confirming(version: ProtocolVersion, sure: bool) -> ClientOptions {
    options(version).elicitation(move |_params, _cx| async move {
        let mut content = serde_json::Map::new();
        content.insert("sure".into(), json!(sure));
        Ok(ElicitResult::accept(content))
    })
}

async fn connect(options: ClientOptions) -> Client {
    Client::connect(presa::in_process(server()), options)
        .await
        .unwrap()
}

#[tokio::test]
async fn a_tool_error_handler_uses_question_mark_on_state_and_input() {
    for version in ERAS {
        let client = connect(confirming(version, true)).await;
        let result = client.call_tool("delete_todos", ()).await.unwrap();
        assert_eq!(
            (result.text(), result.is_error()),
            ("deleted 2".into(), false),
            "{version}"
        );
        // the state's error is a tool error naming what is missing
        let result = client.call_tool("missing_state", ()).await.unwrap();
        assert!(result.is_error(), "{version}");
        assert!(
            result.text().contains("String"),
            "{version}: {}",
            result.text()
        );
        client.close().await;

        let client = connect(confirming(version, false)).await;
        let result = client.call_tool("delete_todos", ()).await.unwrap();
        assert_eq!(result.text(), "deleted 0", "{version}");
        client.close().await;
    }
}

#[tokio::test]
async fn an_input_error_becomes_a_tool_error_the_model_can_read() {
    // a client that answers the server's request with an error: the initialize era's way to
    // refuse, which the handler meets as `InputError::Rejected`
    let refusing = options(ProtocolVersion::V2025_11_25).elicitation(|_params, _cx| async move {
        Err(presa::core::ErrorObject::internal_error(
            "the user closed the window",
        ))
    });
    let client = connect(refusing).await;
    let result = client.call_tool("delete_todos", ()).await.unwrap();
    assert!(result.is_error());
    assert!(
        result.text().contains("the user closed the window"),
        "{}",
        result.text()
    );
    client.close().await;
}

#[tokio::test]
async fn a_missing_scope_stays_a_protocol_error_through_tool_error() {
    for version in ERAS {
        let client = connect(options(version)).await;
        let error = client.call_tool("admin_only", ()).await.unwrap_err();
        let ClientError::Server(error) = error else {
            panic!("{version}: not a protocol error: {error:?}");
        };
        assert_ne!(error.code, ErrorCode::INTERNAL_ERROR, "{version}");
        assert!(
            error.message.contains("todos:admin"),
            "{version}: {error:?}"
        );
        client.close().await;
    }
}

#[tokio::test]
async fn a_handler_falls_back_when_the_client_cannot_elicit() {
    for version in ERAS {
        // no elicitation handler: the client declares no elicitation capability
        let client = connect(options(version)).await;
        let result = client.call_tool("complete_todo", ()).await.unwrap();
        assert_eq!(
            (result.text(), result.is_error()),
            ("not confirmed: this client cannot ask".into(), false),
            "{version}"
        );
        client.close().await;

        let client = connect(confirming(version, true)).await;
        let result = client.call_tool("complete_todo", ()).await.unwrap();
        assert_eq!(result.text(), "done", "{version}");
        client.close().await;
    }
}

#[tokio::test]
async fn a_tool_without_arguments_has_the_description_it_was_given() {
    let client = connect(options(ProtocolVersion::V2026_07_28)).await;
    let tools = client.list_tools().await.unwrap();
    let tool = tools.iter().find(|t| t.name == "complete_todo").unwrap();
    assert_eq!(
        tool.description.as_deref(),
        Some("Mark a todo done, confirming first.")
    );
    client.close().await;
}
