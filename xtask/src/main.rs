//! `cargo xtask <task>`: presa's project tasks.
//!
//! Tasks are plain Rust so that they run wherever cargo does; they shell out to tools and never
//! depend on presa's own crates.

use std::process::ExitCode;

const USAGE: &str = "usage: cargo xtask <task>

tasks:
  help    print this message";

fn main() -> ExitCode {
    let task = std::env::args().nth(1);
    match task.as_deref() {
        None | Some("help" | "-h" | "--help") => {
            println!("{USAGE}");
            ExitCode::SUCCESS
        }
        Some(other) => {
            eprintln!("xtask: unknown task `{other}`\n\n{USAGE}");
            ExitCode::from(2)
        }
    }
}
