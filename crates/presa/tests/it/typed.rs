//! The typed tier end to end, presa's client against presa's server in-process under both eras:
//! prompts whose arguments are a struct, templates whose variables are one, elicitation forms
//! derived from a type, typed tool calls on the client, and calls the server's capabilities rule
//! out.

use presa::client::{Client, ClientError, ClientOptions, ResultText};
use presa::core::{ElicitResult, Implementation, ProtocolVersion};
use presa::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::json;

const VERSIONS: [ProtocolVersion; 2] = [ProtocolVersion::V2026_07_28, ProtocolVersion::V2025_11_25];

/// Review a page.
#[derive(Deserialize, JsonSchema)]
struct Review {
    /// The page number.
    page: u32,
    /// Be strict about it.
    strict: Option<bool>,
}

#[derive(Deserialize, JsonSchema)]
struct Page {
    book: String,
    number: u32,
}

#[derive(Deserialize, JsonSchema)]
struct Confirm {
    /// Yes, delete it.
    sure: bool,
}

/// Add numbers.
#[derive(Deserialize, Serialize, JsonSchema)]
struct Add {
    numbers: Vec<f64>,
}

#[derive(Deserialize, Serialize, JsonSchema, Debug, PartialEq)]
struct Sum {
    sum: f64,
}

fn server() -> Server {
    Server::builder("typed", "1.0.0")
        .elicitation_form::<Confirm>()
        .typed_prompt(
            "review",
            |Args(review): Args<Review>, _cx: Context| async move {
                let how = if review.strict == Some(true) {
                    "strictly"
                } else {
                    "kindly"
                };
                format!("Review page {} {how}.", review.page)
            },
        )
        .typed_resource_template(
            ResourceTemplate::new("books://{book}/pages/{number}", "page"),
            |Args(page): Args<Page>, _cx: Context| async move {
                format!("page {} of {}", page.number, page.book)
            },
        )
        .typed_tool("delete", |(), cx: Context| async move {
            Ok::<_, InputError>(match cx.elicit_as::<Confirm>("Delete it?").await? {
                Elicitation::Accepted(Confirm { sure: true }) => "deleted",
                Elicitation::Accepted(_) => "kept",
                Elicitation::Declined | Elicitation::Cancelled => "not asked again",
            })
        })
        .typed_tool_sync("add", |Args(add): Args<Add>, _cx: Context| {
            Json(Sum {
                sum: add.numbers.iter().sum(),
            })
        })
        .typed_tool_sync("words", |(), _cx: Context| Json(vec!["alpha", "beta"]))
        .typed_tool_sync("fail", |(), _cx: Context| {
            Err::<Json<Sum>, _>(ToolError::new("no such sum"))
        })
        .build()
        .unwrap()
}

async fn client(server: Server, version: ProtocolVersion) -> Client {
    let options = ClientOptions::new(Implementation::new("typed-test", "1.0.0"))
        .protocol_version(Some(version))
        .elicitation(|params, _cx| async move {
            let asked = serde_json::to_value(&params).unwrap();
            assert_eq!(
                asked["requestedSchema"]["properties"]["sure"],
                json!({"type": "boolean", "description": "Yes, delete it."})
            );
            let mut content = serde_json::Map::new();
            content.insert("sure".into(), json!(true));
            Ok(ElicitResult::accept(content))
        });
    Client::connect(presa::in_process(server), options)
        .await
        .unwrap()
}

#[tokio::test]
async fn prompt_arguments_are_the_fields_of_a_struct() {
    for version in VERSIONS {
        let client = client(server(), version).await;
        let prompts = client.list_prompts().await.unwrap();
        let review = &prompts[0];
        assert_eq!(review.description.as_deref(), Some("Review a page."));
        let arguments = review.arguments.as_ref().unwrap();
        let listed: Vec<(&str, Option<bool>, Option<&str>)> = arguments
            .iter()
            .map(|a| (a.name.as_str(), a.required, a.description.as_deref()))
            .collect();
        assert_eq!(
            listed,
            [
                ("page", Some(true), Some("The page number.")),
                ("strict", None, Some("Be strict about it."))
            ]
        );
        let got = client
            .get_prompt("review", json!({"page": "7", "strict": "true"}))
            .await
            .unwrap();
        let text = serde_json::to_value(&got.messages[0].content).unwrap();
        assert_eq!(text["text"], "Review page 7 strictly.", "{version}");
        let error = client
            .get_prompt("review", json!({"page": "seven"}))
            .await
            .unwrap_err();
        assert_eq!(error.code(), Some(presa::core::ErrorCode::INVALID_PARAMS));
        assert_eq!(
            error.server_message(),
            Some("Invalid arguments at /page: expected integer, got string")
        );
        client.close().await;
    }
}

#[tokio::test]
async fn template_variables_are_the_fields_of_a_struct() {
    for version in VERSIONS {
        let client = client(server(), version).await;
        let page = client.read_resource("books://dune/pages/12").await.unwrap();
        let page = serde_json::to_value(&page.contents[0]).unwrap();
        assert_eq!(page["text"], "page 12 of dune");
        let missing = client
            .read_resource("books://dune/pages/twelve")
            .await
            .unwrap_err();
        assert!(missing.is_resource_not_found(), "{missing:?}");
        client.close().await;
    }
}

#[test]
fn a_template_without_a_variable_for_a_required_field_is_refused() {
    let refused = Server::builder("typed", "1.0.0")
        .typed_resource_template(
            ResourceTemplate::new("books://{book}", "book"),
            |Args(page): Args<Page>, _cx: Context| async move { page.book },
        )
        .build()
        .unwrap_err();
    assert_eq!(
        refused.to_string(),
        "resource template \"books://{book}\": field \"number\" is required but the template has no such variable"
    );
}

#[tokio::test]
async fn an_elicitation_form_is_derived_from_a_type() {
    for version in VERSIONS {
        let client = client(server(), version).await;
        let result = client.call_tool("delete", json!({})).await.unwrap();
        assert_eq!(result.text(), "deleted", "{version}");
        client.close().await;
    }
}

#[tokio::test]
async fn typed_calls_read_checked_structured_results() {
    for version in VERSIONS {
        let client = client(server(), version).await;
        let sum: Sum = client
            .call_tool_as(
                "add",
                Add {
                    numbers: vec![1.0, 2.5],
                },
            )
            .await
            .unwrap();
        assert_eq!(sum, Sum { sum: 3.5 });
        // a list goes out as {"result": [...]} and reads back as the list
        let words: Vec<String> = client.call_tool_as("words", ()).await.unwrap();
        assert_eq!(words, ["alpha", "beta"]);
        // read as the wrapped value because the listed schema is a wrapped result's, even as
        // a type the wrapper itself would also read as
        let words: serde_json::Value = client.call_tool_as("words", ()).await.unwrap();
        assert_eq!(words, json!(["alpha", "beta"]));
        // a tool error, a server error and a mismatch stay apart
        let failed = client.call_tool_as::<Sum>("fail", ()).await.unwrap_err();
        assert_eq!(failed, ClientError::ToolFailed("no such sum".into()));
        let unknown = client.call_tool_as::<Sum>("nope", ()).await.unwrap_err();
        assert!(matches!(unknown, ClientError::Server(_)), "{unknown:?}");
        let mismatch = client
            .call_tool_as::<String>("add", Add { numbers: vec![] })
            .await
            .unwrap_err();
        assert!(
            matches!(&mismatch, ClientError::OutputMismatch { tool, .. } if tool == "add"),
            "{mismatch:?}"
        );
        client.close().await;
    }
}

#[tokio::test]
async fn a_structured_result_breaking_the_output_schema_is_refused() {
    // a server that does not check its own results, and sends a sum that is not a number
    let lying = Server::builder("lying", "1.0.0")
        .validate(false)
        .tool(
            Tool::named("add").output_schema(presa::server::output_schema_for::<Sum>().0),
            |_: serde_json::Value, _cx: Context| async { Json(json!({"sum": "three"})) },
        )
        .build()
        .unwrap();
    for version in VERSIONS {
        let client = client(lying.clone(), version).await;
        let error = client
            .call_tool_as::<Sum>("add", Add { numbers: vec![1.0] })
            .await
            .unwrap_err();
        let ClientError::OutputMismatch { reason, .. } = &error else {
            panic!("{error:?}")
        };
        assert!(
            reason.contains("at /sum: expected number, got string"),
            "{reason}"
        );
        // the untyped call that keeps the whole result is held to the schema as well
        let error = client
            .call_tool_checked("add", json!({}))
            .await
            .unwrap_err();
        assert!(
            matches!(&error, ClientError::OutputMismatch { tool, .. } if tool == "add"),
            "{error:?}"
        );
        client.close().await;
    }
}

#[tokio::test]
async fn a_checked_call_keeps_the_whole_result_and_passes_error_results() {
    for version in VERSIONS {
        let client = client(server(), version).await;
        let result = client
            .call_tool_checked("add", Add { numbers: vec![2.0] })
            .await
            .unwrap();
        assert_eq!(
            result.structured_content,
            Some(json!({"sum": 2.0})),
            "{version}"
        );
        assert!(!result.content.is_empty(), "{version}");
        // an error result is returned as it is, not checked
        let failed = client.call_tool_checked("fail", ()).await.unwrap();
        assert!(failed.is_error(), "{version}");
        client.close().await;
    }
}

#[tokio::test]
async fn calls_the_server_did_not_declare_are_not_sent() {
    let tools_only = Server::builder("tools-only", "1.0.0")
        .typed_tool_sync("add", |Args(add): Args<Add>, _cx: Context| {
            Json(Sum {
                sum: add.numbers.iter().sum(),
            })
        })
        .build()
        .unwrap();
    for version in VERSIONS {
        let client = client(tools_only.clone(), version).await;
        let error = client.list_prompts().await.unwrap_err();
        assert_eq!(
            error,
            ClientError::NotOffered {
                method: "prompts/list".into(),
                capability: "prompts"
            }
        );
        assert_eq!(
            error.to_string(),
            "prompts/list not sent: the server did not declare the prompts capability"
        );
        assert!(matches!(
            client.read_resource("file:///x").await,
            Err(ClientError::NotOffered {
                capability: "resources",
                ..
            })
        ));
        assert!(client.list_tools().await.is_ok());
        assert_eq!(client.info().version(), Some("1.0.0"));
        client.close().await;
    }
}

#[tokio::test]
async fn a_server_whose_lists_change_serves_every_list_it_declares() {
    let changing = Server::builder("changing", "1.0.0")
        .list_changed(true)
        .build()
        .unwrap();
    for version in VERSIONS {
        let client = client(changing.clone(), version).await;
        assert!(client.list_prompts().await.unwrap().is_empty());
        assert!(client.list_resources().await.unwrap().is_empty());
        assert!(client.list_tools().await.unwrap().is_empty());
        changing
            .add_typed_tool("late", |(), _cx: Context| async { "late" })
            .unwrap();
        assert_eq!(client.list_tools().await.unwrap()[0].name, "late");
        changing.remove_tool("late");
        client.close().await;
    }
}

#[tokio::test]
async fn typed_definitions_are_added_while_serving() {
    let live = Server::builder("live", "1.0.0")
        .list_changed(true)
        .build()
        .unwrap();
    live.add_typed_prompt(
        "review",
        |Args(review): Args<Review>, _cx: Context| async move {
            format!("Review page {}.", review.page)
        },
    )
    .unwrap();
    live.add_typed_resource_template(
        ResourceTemplate::new("books://{book}/pages/{number}", "page"),
        |Args(page): Args<Page>, _cx: Context| async move { format!("{} {}", page.book, page.number) },
    )
    .unwrap();
    live.add_typed_tool_sync("add", |Args(add): Args<Add>, _cx: Context| {
        Json(Sum {
            sum: add.numbers.iter().sum(),
        })
    })
    .unwrap();
    let refused = live.add_typed_resource_template(
        ResourceTemplate::new("books://{book}", "book"),
        |Args(page): Args<Page>, _cx: Context| async move { page.book },
    );
    assert!(
        matches!(refused, Err(presa::server::BuildError::Field { .. })),
        "{refused:?}"
    );
    let client = client(live, ProtocolVersion::V2026_07_28).await;
    let prompt = client
        .get_prompt("review", json!({"page": "3"}))
        .await
        .unwrap();
    assert_eq!(prompt.text(), "Review page 3.");
    let page = client.read_resource("books://dune/pages/4").await.unwrap();
    assert_eq!(page.text(), "dune 4");
    let sum: Sum = client
        .call_tool_as(
            "add",
            Add {
                numbers: vec![2.0, 2.0],
            },
        )
        .await
        .unwrap();
    assert_eq!(sum, Sum { sum: 4.0 });
    client.close().await;
}
