//! The `library` server: on stdio by default, or on Streamable HTTP at `/mcp` with
//! `--http HOST:PORT` (port 0 picks a free one; the URL is printed on the first line).
//!
//! ```sh
//! cargo run -p presa --example library
//! cargo run -p presa --example library -- --http 127.0.0.1:8080
//! ```
//!
//! The session below asks it with the [`presa` command](presa::guide::cli) (`cargo install
//! --path crates/presa-cli`).
//!
//! Prints:
//!
//! ```text
//! $ presa tools -- cargo run -q -p presa --example library
//! NAME  DESCRIPTION
//! add   Add numbers.
//! logo  A one-pixel PNG.
//! $ presa call add 'numbers=[1,2,3.5]' -- cargo run -q -p presa --example library
//! {"sum":6.5}
//! $ presa resources -- cargo run -q -p presa --example library
//! URI                 NAME    MIME TYPE
//! file:///readme.txt  readme  text/plain
//! $ presa prompts -- cargo run -q -p presa --example library
//! NAME       ARGUMENTS  DESCRIPTION
//! introduce  id         Introduce a person.
//! ```
//!
//! Several instances behind a load balancer (built with the `redis` feature) share their state
//! on Redis with `--redis URL` (or `--redis-cluster URL,URL,…` for a Redis Cluster), and the
//! key that seals 2026-07-28 input rounds from the environment variable
//! `PRESA_REQUEST_STATE_KEY` (at least 32 bytes), the same for every instance:
//!
//! ```sh
//! PRESA_REQUEST_STATE_KEY=… cargo run -p presa --features redis --example library -- \
//!     --http 127.0.0.1:8080 --redis redis://127.0.0.1:6379/
//! ```

#[path = "../shared/command_line.rs"]
mod command_line;
mod definitions;

use std::process::ExitCode;

#[tokio::main]
async fn main() -> ExitCode {
    command_line::run("library", |configure| definitions::library_with(configure)).await
}
