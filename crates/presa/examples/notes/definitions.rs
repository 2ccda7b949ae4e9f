//! The `notes` server in typed form: add, search, summarize (with progress, cancellable) and
//! delete (after the user confirms) notes; a resource per note and an index, a template for any
//! note, and a review prompt, with completion of note ids. No JSON Schema is written by hand:
//! every schema is derived from the types below.

use std::collections::BTreeMap;
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use presa::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::json;

/// A note.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub(crate) struct Note {
    id: u64,
    title: String,
    body: String,
    tags: Vec<String>,
}

/// The notes, shared by every handler through the server's state.
#[derive(Default)]
pub(crate) struct Notes {
    store: Mutex<Store>,
}

#[derive(Default)]
struct Store {
    next_id: u64,
    notes: BTreeMap<u64, Note>,
}

impl Notes {
    fn store(&self) -> MutexGuard<'_, Store> {
        self.store
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Adds a note; returns it.
    pub(crate) fn add(&self, title: String, body: String, tags: Vec<String>) -> Note {
        let mut store = self.store();
        store.next_id += 1;
        let note = Note {
            id: store.next_id,
            title,
            body,
            tags,
        };
        store.notes.insert(note.id, note.clone());
        note
    }

    fn get(&self, id: u64) -> Option<Note> {
        self.store().notes.get(&id).cloned()
    }
}

fn text_of(note: &Note) -> String {
    format!(
        "# {}\n\n{}\n\ntags: {}",
        note.title,
        note.body,
        note.tags.join(", ")
    )
}

fn uri_of(id: u64) -> String {
    format!("notes://{id}")
}

const INDEX: &str = "notes://index";

// ---------- add_note ----------

/// Add a note; returns its id.
#[derive(Deserialize, JsonSchema)]
struct AddNote {
    title: String,
    body: String,
    #[serde(default)]
    tags: Vec<String>,
}

#[derive(Serialize, JsonSchema)]
struct Added {
    /// The new note's id.
    id: u64,
}

async fn add_note(Args(add): Args<AddNote>, cx: Context) -> Result<Json<Added>, ToolError> {
    let note = cx.state::<Notes>()?.add(add.title, add.body, add.tags);
    if let Some(server) = cx.server() {
        let resource =
            Resource::new(uri_of(note.id), note.title.clone()).mime_type("text/markdown");
        let id = note.id;
        let read = move |cx: Context| async move {
            Ok::<_, MissingState>(cx.state::<Notes>()?.get(id).map(|n| text_of(&n)))
        };
        server
            .add_resource(resource, read)
            .map_err(|e| ToolError::new(e.to_string()))?;
        server.resource_updated(INDEX);
    }
    Ok(Json(Added { id: note.id }))
}

// ---------- search_notes ----------

/// Search notes by title, body or tag.
#[derive(Deserialize, JsonSchema)]
struct SearchNotes {
    query: String,
    /// At most this many notes (default 10).
    #[schemars(range(min = 1, max = 50))]
    limit: Option<usize>,
}

#[derive(Serialize, JsonSchema)]
struct Hit {
    id: u64,
    title: String,
    tags: Vec<String>,
}

#[derive(Serialize, JsonSchema)]
struct Hits {
    notes: Vec<Hit>,
}

fn search_notes(Args(search): Args<SearchNotes>, cx: Context) -> Result<Json<Hits>, ToolError> {
    let needle = search.query.to_lowercase();
    let matches = |note: &&Note| {
        note.title.to_lowercase().contains(&needle)
            || note.body.to_lowercase().contains(&needle)
            || note.tags.iter().any(|tag| tag.to_lowercase() == needle)
    };
    let store = cx.state::<Notes>()?.store();
    let notes = store
        .notes
        .values()
        .filter(matches)
        .take(search.limit.unwrap_or(10));
    let notes = notes.map(|n| Hit {
        id: n.id,
        title: n.title.clone(),
        tags: n.tags.clone(),
    });
    Ok(Json(Hits {
        notes: notes.collect(),
    }))
}

// ---------- summarize ----------

// The input of the tools, the template and the prompt about one note, each described where it
// is defined (`Tool::named(..).description(..)`): this doc comment is the schema's, for the model.
/// The note, by its id.
#[derive(Deserialize, JsonSchema)]
struct ById {
    /// The note's id.
    #[schemars(range(min = 1))]
    id: u64,
}

/// Says on stderr when a summary stops unfinished: a cancelled handler is dropped at its next
/// await, so a guard's `Drop` is where that is seen.
struct StopNotice {
    id: u64,
    finished: bool,
}

impl Drop for StopNotice {
    fn drop(&mut self) {
        if !self.finished {
            eprintln!("notes: summarize {} stopped (cancelled)", self.id);
        }
    }
}

async fn summarize(Args(ById { id }): Args<ById>, cx: Context) -> Result<String, ToolError> {
    let note = cx
        .state::<Notes>()?
        .get(id)
        .ok_or_else(|| ToolError::new(format!("no note {id}")))?;
    let mut notice = StopNotice {
        id,
        finished: false,
    };
    let steps = 10u32;
    for step in 1..=steps {
        let message = format!("step {step}/{steps}");
        cx.progress(f64::from(step), Some(f64::from(steps)), Some(&message))
            .await;
        cx.log(LoggingLevel::Info, json!({"summarizing": id, "step": step}))
            .await;
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    notice.finished = true;
    let words = note.body.split_whitespace().count();
    let first: Vec<&str> = note.body.split_whitespace().take(8).collect();
    Ok(format!(
        "\"{}\" ({words} words): {}…",
        note.title,
        first.join(" ")
    ))
}

// ---------- delete_note ----------

/// The confirmation form.
#[derive(Deserialize, JsonSchema)]
pub(crate) struct Confirm {
    /// Yes, delete it.
    confirm: bool,
}

// every error met here (the state's, the client's answer's) converts into `ToolError`
async fn delete_note(Args(ById { id }): Args<ById>, cx: Context) -> Result<String, ToolError> {
    let Some(note) = cx.state::<Notes>()?.get(id) else {
        return Ok(format!("no note {id}"));
    };
    let asked = format!("Delete note {id} \"{}\"?", note.title);
    let Elicitation::Accepted(Confirm { confirm: true }) = cx.elicit_as::<Confirm>(asked).await?
    else {
        return Ok(format!("kept note {id}"));
    };
    cx.state::<Notes>()?.store().notes.remove(&id);
    if let Some(server) = cx.server() {
        server.remove_resource(&uri_of(id));
        server.resource_updated(INDEX);
    }
    Ok(format!("deleted note {id}"))
}

// ---------- resources, the template, the prompt, completion ----------

async fn index(cx: Context) -> Result<String, MissingState> {
    let store = cx.state::<Notes>()?.store();
    let index: Vec<_> = store
        .notes
        .values()
        .map(|n| json!({"id": n.id, "title": n.title}))
        .collect();
    Ok(json!(index).to_string())
}

async fn note(Args(ById { id }): Args<ById>, cx: Context) -> Result<Option<String>, MissingState> {
    Ok(cx.state::<Notes>()?.get(id).map(|n| text_of(&n)))
}

async fn review(Args(ById { id }): Args<ById>, cx: Context) -> Result<Vec<Message>, MissingState> {
    Ok(match cx.state::<Notes>()?.get(id) {
        Some(note) => vec![
            Message::from(format!(
                "Review this note for clarity and suggest tags:\n\n{}",
                text_of(&note)
            )),
            Message::from((Role::Assistant, "Here is my review:")),
        ],
        None => vec![Message::from("There is no such note.")],
    })
}

async fn complete_id(input: CompletionInput, cx: Context) -> Vec<String> {
    let Ok(notes) = cx.state::<Notes>() else {
        return Vec::new();
    };
    let ids = notes
        .store()
        .notes
        .keys()
        .map(u64::to_string)
        .collect::<Vec<_>>();
    ids.into_iter()
        .filter(|id| id.starts_with(&input.value))
        .collect()
}

/// The notes server, holding `notes`.
#[allow(
    dead_code,
    reason = "not every user of these definitions configures the builder"
)]
pub(crate) fn notes_server(notes: Notes) -> Result<Server, BuildError> {
    notes_server_with(notes, |builder| builder)
}

/// The notes server, holding `notes`, `configure` given the builder last (a bus, a key).
pub(crate) fn notes_server_with(
    notes: Notes,
    configure: impl FnOnce(ServerBuilder) -> ServerBuilder,
) -> Result<Server, BuildError> {
    let builder = Server::builder("notes", "0.1.0")
        .instructions("A small note store.")
        .logging(true)
        .list_changed(true)
        .subscribe(true)
        .state(notes)
        .elicitation_form::<Confirm>()
        .typed_tool("add_note", add_note)
        .typed_tool_sync("search_notes", search_notes)
        .typed_tool(
            Tool::named("summarize").description(
                "Summarize a note (slow: about a second; reports progress; cancellable).",
            ),
            summarize,
        )
        .typed_tool(
            Tool::named("delete_note").description("Delete a note after the user confirms."),
            delete_note,
        )
        .resource(
            Resource::new(INDEX, "index")
                .mime_type("application/json")
                .description("All notes"),
            index,
        )
        .typed_resource_template(
            ResourceTemplate::new("notes://{id}", "note").mime_type("text/markdown"),
            note,
        )
        .complete_template_variable("notes://{id}", "id", complete_id)
        .typed_prompt(
            Prompt::new("review_note").description("Review a note for clarity and suggest tags."),
            review,
        )
        .complete_prompt_argument("review_note", "id", complete_id);
    configure(builder).build()
}
