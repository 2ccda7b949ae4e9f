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
