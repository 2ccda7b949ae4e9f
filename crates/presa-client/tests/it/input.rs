//! Input the server asks for: server→client requests (initialize era) and input-required
//! results (2026-07-28), answered by the same handlers.

use std::future::IntoFuture;
use std::sync::Arc;

use presa_client::{ClientError, ClientOptions, InputContext, ResultText};
use presa_core::{
    CreateMessageResult, ElicitResult, ErrorCode, ErrorObject, ListRootsResult, ProtocolVersion,
    Root,
};
use presa_test::fake::FakeConfig;
use serde_json::json;

use crate::{connect_with, legacy, modern};

fn with_handlers() -> ClientOptions {
    ClientOptions::default()
        .sampling(|_params, cx: InputContext| async move {
            Ok(CreateMessageResult::text(
                "m",
                format!("sampled on {}", cx.protocol_version()),
            ))
        })
        .elicitation(|params, _cx| async move {
            assert_eq!(params.message(), "Your name?");
            let mut content = serde_json::Map::new();
            content.insert("name".into(), json!("Ada"));
            Ok(ElicitResult::accept(content))
        })
        .roots(|_params, _cx| async move {
            Ok(ListRootsResult::new(vec![Root::new("file:///src", "src")]))
        })
}

#[tokio::test(start_paused = true)]
async fn server_requests_reach_the_handlers_in_the_initialize_era() {
    let (client, mut fake) = connect_with(FakeConfig::legacy(), with_handlers()).await;
    let initialize = fake.request("initialize").await;
    let capabilities = &initialize["params"]["capabilities"];
    assert!(capabilities["sampling"].is_object(), "{capabilities}");
    assert!(capabilities["elicitation"].is_object(), "{capabilities}");
    assert!(capabilities["roots"].is_object(), "{capabilities}");

    let sampled = client.call_tool("sample", ()).await.unwrap();
    assert_eq!(sampled.text(), "sampled on 2025-11-25");
    assert_eq!(client.call_tool("ask", ()).await.unwrap().text(), "Ada");
    assert_eq!(
        client.call_tool("roots", ()).await.unwrap().text(),
        "1 roots"
    );
    let answer = fake
        .next(|m| m.get("result").is_some() && m["result"]["model"] == "m")
        .await;
    assert_eq!(answer["result"]["role"], "assistant");
}

#[tokio::test(start_paused = true)]
async fn without_a_handler_server_requests_get_method_not_found() {
    let (client, _fake) = legacy().await;
    let result = client.call_tool("sample", ()).await.unwrap();
    assert_eq!(result.text(), "client error -32601");
}

#[tokio::test(start_paused = true)]
async fn a_handler_error_is_the_server_request_s_error() {
    let options = ClientOptions::default().sampling(|_p, _cx| async {
        Err(ErrorObject::new(ErrorCode::USER_REJECTED, "User declined"))
    });
    let (client, _fake) = connect_with(FakeConfig::legacy(), options).await;
    let result = client.call_tool("sample", ()).await.unwrap();
    assert_eq!(result.text(), "client error -1");
}

#[tokio::test(start_paused = true)]
async fn input_required_is_answered_and_retried() {
    let (client, mut fake) = connect_with(FakeConfig::default(), with_handlers()).await;
    assert_eq!(client.protocol_version(), ProtocolVersion::V2026_07_28);
    fake.drain();
    assert_eq!(client.call_tool("ask", ()).await.unwrap().text(), "Ada");
    let first = fake.request("tools/call").await;
    let retry = fake.request("tools/call").await;
    assert_ne!(first["id"], retry["id"], "a retry is a new request");
    assert_eq!(retry["params"]["name"], "ask");
    assert_eq!(retry["params"]["requestState"], "s1");
    assert_eq!(
        retry["params"]["inputResponses"]["q"],
        json!({"action": "accept", "content": {"name": "Ada"}})
    );
    let capabilities = &retry["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"];
    assert!(capabilities["elicitation"].is_object(), "{capabilities}");

    let sampled = client.call_tool("sample", ()).await.unwrap();
    assert_eq!(sampled.text(), "sampled on 2026-07-28");
    assert_eq!(
        client.call_tool("roots", ()).await.unwrap().text(),
        "1 roots"
    );
}

#[tokio::test(start_paused = true)]
async fn input_required_without_a_handler_is_an_error_holding_the_request() {
    let (client, _fake) = modern().await;
    let error = client.call_tool("ask", ()).await.unwrap_err();
    let ClientError::InputRequired(asked) = &error else {
        panic!("{error:?}")
    };
    let requests = asked.input_requests.as_ref().unwrap();
    assert_eq!(requests["q"].method(), "elicitation/create");
    assert_eq!(asked.request_state.as_deref(), Some("s1"));
    assert!(error.to_string().contains("elicitation/create"), "{error}");
}

#[tokio::test(start_paused = true)]
async fn a_refusing_handler_stops_the_call() {
    let options = ClientOptions::default().sampling(|_p, _cx| async {
        Err(ErrorObject::new(ErrorCode::USER_REJECTED, "User declined"))
    });
    let (client, mut fake) = connect_with(FakeConfig::default(), options).await;
    fake.drain();
    let error = client.call_tool("sample", ()).await.unwrap_err();
    assert!(
        matches!(&error, ClientError::InputRefused { method, error } if method == "sampling/createMessage" && error.code == ErrorCode::USER_REJECTED),
        "{error:?}"
    );
    fake.request("tools/call").await;
    client
        .call_tool("echo", json!({"text": "x"}))
        .await
        .unwrap();
    let next = fake.request("tools/call").await;
    assert_eq!(next["params"]["name"], "echo", "no retry was sent");
}

#[tokio::test(start_paused = true)]
async fn the_round_limit_stops_retrying() {
    let (client, _fake) =
        connect_with(FakeConfig::default(), with_handlers().max_input_rounds(0)).await;
    let error = client.call_tool("ask", ()).await.unwrap_err();
    assert!(matches!(error, ClientError::InputRequired(_)), "{error:?}");
}

#[tokio::test(start_paused = true)]
async fn handlers_can_be_shared_trait_objects() {
    use presa_client::{BoxFuture, InputHandler};
    use presa_core::{ListRoots, RequestParams};

    struct Workspace;
    impl InputHandler<ListRoots> for Workspace {
        fn handle<'a>(
            &'a self,
            _params: RequestParams,
            _cx: InputContext,
        ) -> BoxFuture<'a, Result<ListRootsResult, ErrorObject>> {
            Box::pin(async {
                Ok(ListRootsResult::new(vec![
                    Root::new("file:///a", "a"),
                    Root::new("file:///b", "b"),
                ]))
            })
        }
    }
    let options = ClientOptions::default().roots_handler(Arc::new(Workspace));
    let (client, _fake) = connect_with(FakeConfig::default(), options.clone()).await;
    assert_eq!(
        client.call_tool("roots", ()).await.unwrap().text(),
        "2 roots"
    );
    let (client, _fake) = connect_with(FakeConfig::legacy(), options).await;
    assert_eq!(
        client.call_tool("roots", ()).await.unwrap().text(),
        "2 roots"
    );
}

#[tokio::test(start_paused = true)]
async fn a_server_cancellation_stops_the_handler() {
    struct Guard(Option<tokio::sync::oneshot::Sender<()>>);
    impl Drop for Guard {
        fn drop(&mut self) {
            if let Some(tx) = self.0.take() {
                let _ = tx.send(());
            }
        }
    }
    let (started_tx, mut started) = tokio::sync::mpsc::unbounded_channel::<()>();
    let (dropped_tx, dropped) = tokio::sync::oneshot::channel::<()>();
    let dropped_tx = Arc::new(std::sync::Mutex::new(Some(dropped_tx)));
    let options = ClientOptions::default().sampling(move |_p, _cx| {
        let guard = Guard(dropped_tx.lock().unwrap().take());
        let _ = started_tx.send(());
        async move {
            let _guard = guard;
            std::future::pending::<()>().await;
            Ok(CreateMessageResult::text("m", "never"))
        }
    });
    let (client, fake) = connect_with(FakeConfig::legacy(), options).await;
    let call = tokio::spawn(client.call_tool("sample_then_cancel", ()).into_future());
    started.recv().await.unwrap();
    fake.cancel_asked();
    assert_eq!(call.await.unwrap().unwrap().text(), "cancelled");
    dropped.await.unwrap();
}
