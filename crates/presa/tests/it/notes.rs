//! The `notes` example (the typed tier's version of a user's first server), driven by presa's
//! client in-process under both eras: every tool, the resources it adds and removes, the
//! template, the prompt and completion.

#[path = "../../examples/notes/definitions.rs"]
mod definitions;

use std::sync::{Arc, Mutex};

use presa::client::{Client, ClientOptions, ResultText};
use presa::core::{CompletionReference, ElicitResult, Implementation, ProtocolVersion};
use serde_json::{Value, json};

async fn connect(version: ProtocolVersion, confirm: bool) -> Client {
    let notes = definitions::Notes::default();
    notes.add(
        "Welcome".into(),
        "Hello there, reader of notes.".into(),
        vec!["intro".into()],
    );
    let server = definitions::notes_server(notes).unwrap();
    let options = ClientOptions::new(Implementation::new("notes-test", "1.0.0"))
        .protocol_version(Some(version))
        .elicitation(move |_params, _cx| async move {
            let mut content = serde_json::Map::new();
            content.insert("confirm".into(), json!(confirm));
            Ok(ElicitResult::accept(content))
        });
    Client::connect(presa::in_process(server), options)
        .await
        .unwrap()
}

async fn exercise(version: ProtocolVersion) {
    let client = connect(version, true).await;
    let listed = client.list_tools().await.unwrap();
    let tools: Vec<&str> = listed.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(
        tools,
        ["add_note", "search_notes", "summarize", "delete_note"]
    );
    // every tool described: by its input type's doc comment, or where it is defined
    let described: Vec<Option<&str>> = listed.iter().map(|t| t.description.as_deref()).collect();
    assert_eq!(
        described,
        [
            Some("Add a note; returns its id."),
            Some("Search notes by title, body or tag."),
            Some("Summarize a note (slow: about a second; reports progress; cancellable)."),
            Some("Delete a note after the user confirms."),
        ]
    );

    let added = client
        .call_tool(
            "add_note",
            json!({"title": "Groceries", "body": "milk and bread", "tags": ["home"]}),
        )
        .await
        .unwrap();
    assert_eq!(added.structured_content, Some(json!({"id": 2})));
    let uris: Vec<String> = client
        .list_resources()
        .await
        .unwrap()
        .into_iter()
        .map(|r| r.uri)
        .collect();
    assert_eq!(uris, ["notes://index", "notes://2"]);

    let hits = client
        .call_tool("search_notes", json!({"query": "home"}))
        .await
        .unwrap();
    assert_eq!(
        hits.structured_content.unwrap()["notes"][0]["title"],
        "Groceries"
    );
    let bad = client
        .call_tool("search_notes", json!({"query": "x", "limit": 0}))
        .await
        .unwrap();
    assert_eq!(
        bad.text(),
        "Invalid arguments at /limit: expected at least 1, got 0"
    );

    let steps = Arc::new(Mutex::new(0));
    let counter = Arc::clone(&steps);
    let summary = client
        .call_tool("summarize", json!({"id": 1}))
        .on_progress(move |_| *counter.lock().unwrap() += 1)
        .await
        .unwrap();
    assert!(
        summary.text().starts_with("\"Welcome\" (5 words)"),
        "{}",
        summary.text()
    );
    assert_eq!(*steps.lock().unwrap(), 10);

    let note = client.read_resource("notes://2").await.unwrap();
    let note = serde_json::to_value(&note.contents[0]).unwrap();
    assert_eq!(note["text"], "# Groceries\n\nmilk and bread\n\ntags: home");

    let prompt = client
        .get_prompt("review_note", json!({"id": "2"}))
        .await
        .unwrap();
    let first = serde_json::to_value(&prompt.messages[0].content).unwrap();
    assert!(first["text"].as_str().unwrap().contains("milk and bread"));
    let completed = client
        .complete(CompletionReference::prompt("review_note"), "id", "")
        .await
        .unwrap();
    assert_eq!(completed.completion.values, ["1", "2"]);

    let deleted = client
        .call_tool("delete_note", json!({"id": 2}))
        .await
        .unwrap();
    assert_eq!(deleted.text(), "deleted note 2");
    let uris: Vec<String> = client
        .list_resources()
        .await
        .unwrap()
        .into_iter()
        .map(|r| r.uri)
        .collect();
    assert_eq!(uris, ["notes://index"]);
    let index = client.read_resource("notes://index").await.unwrap();
    let index: Value = serde_json::from_str(&index.text()).unwrap();
    assert_eq!(index, json!([{"id": 1, "title": "Welcome"}]));
    client.close().await;

    let declining = connect(version, false).await;
    let kept = declining
        .call_tool("delete_note", json!({"id": 1}))
        .await
        .unwrap();
    assert_eq!(kept.text(), "kept note 1");
    declining.close().await;
}

#[tokio::test]
async fn notes_2026_07_28() {
    exercise(ProtocolVersion::V2026_07_28).await;
}

#[tokio::test]
async fn notes_2025_11_25() {
    exercise(ProtocolVersion::V2025_11_25).await;
}
