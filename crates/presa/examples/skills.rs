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
use presa::http::{HttpOptions, serve};
use presa::server::{Server, Skills};
use presa::stdio::ServeOptions;

/// The skills served, beside this file.
const SKILLS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/agent-skills");

fn server() -> Result<Server, String> {
    let skills = Skills::from_dir(SKILLS).map_err(|e| ErrorReport(&e).to_string())?;
    Server::builder("skills", "1.0.0")
        .with(skills)
        .build()
        .map_err(|e| ErrorReport(&e).to_string())
}

#[tokio::main]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match (server(), args.as_slice()) {
        (Err(error), _) => Err(error),
        (Ok(server), []) => presa::stdio::serve(server, ServeOptions::default())
            .await
            .map_err(|e| ErrorReport(&e).to_string()),
        (Ok(server), [flag, address]) if flag == "--http" => serve_http(server, address).await,
        _ => Err("usage: skills [--http HOST:PORT]".to_owned()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("skills: {error}");
            ExitCode::FAILURE
        }
    }
}

async fn serve_http(server: Server, address: &str) -> Result<(), String> {
    let (host, port) = address.rsplit_once(':').ok_or("--http takes HOST:PORT")?;
    let port: u16 = port.parse().map_err(|_| format!("not a port: {port}"))?;
    let running = serve(server, HttpOptions::default().host(host).port(port))
        .await
        .map_err(|e| ErrorReport(&e).to_string())?;
    println!("listening {}", running.url());
    let _ = tokio::signal::ctrl_c().await;
    running
        .stop()
        .await
        .map_err(|e| ErrorReport(&e).to_string())
}
