//! "notes": a small MCP server in presa's typed tier, on stdio by default or on Streamable HTTP
//! at `/mcp` with `--http HOST:PORT`.
//!
//! ```sh
//! cargo run -p presa --example notes
//! cargo run -p presa --example notes -- --http 127.0.0.1:8080
//! ```
//!
//! The session below asks it with the [`presa` command](presa::guide::cli) (`cargo install
//! --path crates/presa-cli`).
//!
//! Prints:
//!
//! ```text
//! $ presa tools -- cargo run -q -p presa --example notes
//! NAME          DESCRIPTION
//! add_note      Add a note; returns its id.
//! search_notes  Search notes by title, body or tag.
//! summarize     Summarize a note (slow: about a second; reports progress; cancellable).
//! delete_note   Delete a note after the user confirms.
//! $ presa call search_notes query=welcome -- cargo run -q -p presa --example notes
//! {"notes":[{"id":1,"tags":["intro"],"title":"Welcome"}]}
//! $ presa read notes://1 -- cargo run -q -p presa --example notes
//! # Welcome
//!
//! This is the notes server. Add notes with add_note and search them with search_notes.
//!
//! tags: intro
//! $ presa call delete_note id=1 --answer confirm=yes -- cargo run -q -p presa --example notes
//! deleted note 1
//! ```
//!
//! Like `library`, several instances (built with the `redis` feature) share their sessions on
//! Redis with `--redis URL` or `--redis-cluster URL,URL,…`; each instance keeps notes of its
//! own.

#[path = "../shared/command_line.rs"]
mod command_line;
mod definitions;

use std::process::ExitCode;

use definitions::{Notes, notes_server_with};

#[tokio::main]
async fn main() -> ExitCode {
    let notes = Notes::default();
    // a first note, so that there is something to look at
    notes.add(
        "Welcome".into(),
        "This is the notes server. Add notes with add_note and search them with search_notes."
            .into(),
        vec!["intro".into()],
    );
    command_line::run("notes", |configure| notes_server_with(notes, configure)).await
}
