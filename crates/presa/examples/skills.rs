//! A server of Agent Skills (the Skills extension, SEP-2640): every folder with a `SKILL.md`
//! under `examples/agent-skills/` is a skill, each of its files a `skill://` resource. Clients
//! list them with `skills/list`, describe one with `skills/get`, browse folders with
//! `resources/directory/read`, and read files with `resources/read`. On stdio by default, or on
//! Streamable HTTP at `/mcp` with `--http HOST:PORT`.
//!
//! ```sh
//! cargo run -p presa --example skills
//! cargo run -p presa --example skills -- --http 127.0.0.1:8080
//! ```
//!
//! The session below asks it with the [`presa` command](presa::guide::cli) (`cargo install
//! --path crates/presa-cli`).
//!
//! Prints:
//!
//! ```text
//! $ presa resources -- cargo run -q -p presa --example skills
//! URI                                       NAME           MIME TYPE      DESCRIPTION
//! skill://acme/support/triage/SKILL.md      triage         text/markdown  Sort incoming support tickets by urgency and route them to a team
//! skill://release-notes/SKILL.md            release-notes  text/markdown  Write release notes from merged pull requests, in the house style
//! skill://release-notes/templates/NOTES.md  NOTES.md       text/markdown
//! $ presa read skill://release-notes/templates/NOTES.md -- cargo run -q -p presa --example skills
//! # {version}
//!
//! ## Added
//!
//! ## Changed
//!
//! ## Fixed
//! ```

use std::process::ExitCode;

use presa::core::ErrorReport;
use presa::server::{Server, Skills};

#[path = "shared/command_line.rs"]
mod command_line;

/// The skills served, beside this file.
const SKILLS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/agent-skills");

#[tokio::main]
async fn main() -> ExitCode {
    let skills = match Skills::from_dir(SKILLS) {
        Ok(skills) => skills,
        Err(error) => {
            eprintln!("skills: {}", ErrorReport(&error));
            return ExitCode::FAILURE;
        }
    };
    command_line::run("skills", |configure| {
        configure(Server::builder("skills", "1.0.0"))
            .with(skills)
            .build()
    })
    .await
}
