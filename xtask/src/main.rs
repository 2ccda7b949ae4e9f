//! `cargo xtask <task>`: presa's project tasks.
//!
//! Tasks are plain Rust so that they run wherever cargo does; they shell out to tools, and of
//! presa's crates use only presa-test (Redis and nginx; the bench driver talks HTTP and stdio
//! to processes).

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

mod bench;
mod cluster;
mod conformance;
mod docs;
mod examples;
mod fuzz;
mod layers;
mod package;
mod snippets;
mod tools;

const USAGE: &str = "usage: cargo xtask <task> [options]

tasks:
  bench         measure presa against plain axum and raw stdio baselines (cargo xtask bench --help)
  cluster       the scale-out scenarios: three replicas sharing Redis behind nginx round-robin
                (cargo xtask cluster --help)
  conformance   run the official MCP conformance runner against presa's fixtures
                (cargo xtask conformance --help for its options)
  docs          build the documentation site (mdBook: guides, examples, API) into
                target/book/html and check its links (cargo xtask docs --help)
  examples      build presa's examples and run each that states its output, checking it
                (cargo xtask examples --help)
  fuzz          build the cargo-fuzz targets on nightly and run each (cargo xtask fuzz --help)
  package       package every publishable crate and check the packages together, each presa
                crate resolved to its package (cargo xtask package --help)
  snippets      compile and run every Rust snippet of README.md and docs/ in a fresh crate that
                has only the README's [dependencies] (cargo xtask snippets --help)
  soak          a long run of sessions, calls, listens and GET streams against one server,
                its RSS sampled throughout (cargo xtask soak --help)
  tools         install the pinned cargo-deny, cargo-machete, cargo-hack, cargo-fuzz, mdbook
                and mdbook-mermaid where missing (cargo xtask tools --help)
  layers        fail when a library crate's modules import each other in a cycle that
                docs/architecture.md does not name (cargo xtask layers --help)
  help          print this message";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        None | Some("help" | "-h" | "--help") => {
            println!("{USAGE}");
            ExitCode::SUCCESS
        }
        Some("conformance") if args.iter().any(|a| a == "--help" || a == "-h") => {
            println!("{}", conformance::USAGE);
            ExitCode::SUCCESS
        }
        Some("conformance") => conformance::run(&args[1..]),
        Some("cluster") if args.iter().any(|a| a == "--help" || a == "-h") => {
            println!("{}", cluster::USAGE);
            ExitCode::SUCCESS
        }
        Some("cluster") => cluster::run(&args[1..]),
        Some("bench") if args.iter().any(|a| a == "--help" || a == "-h") => {
            println!("{}", bench::USAGE);
            ExitCode::SUCCESS
        }
        Some("bench") => bench::run(&args[1..]),
        Some("docs") if args.iter().any(|a| a == "--help" || a == "-h") => {
            println!("{}", docs::USAGE);
            ExitCode::SUCCESS
        }
        Some("docs") => docs::run(&args[1..]),
        Some("examples") if args.iter().any(|a| a == "--help" || a == "-h") => {
            println!("{}", examples::USAGE);
            ExitCode::SUCCESS
        }
        Some("examples") => examples::run(&args[1..]),
        Some("fuzz") if args.iter().any(|a| a == "--help" || a == "-h") => {
            println!("{}", fuzz::USAGE);
            ExitCode::SUCCESS
        }
        Some("fuzz") => fuzz::run(&args[1..]),
        Some("layers") if args.iter().any(|a| a == "--help" || a == "-h") => {
            println!("{}", layers::USAGE);
            ExitCode::SUCCESS
        }
        Some("layers") => layers::run(&args[1..]),
        Some("package") if args.iter().any(|a| a == "--help" || a == "-h") => {
            println!("{}", package::USAGE);
            ExitCode::SUCCESS
        }
        Some("package") => package::run(&args[1..]),
        Some("snippets") if args.iter().any(|a| a == "--help" || a == "-h") => {
            println!("{}", snippets::USAGE);
            ExitCode::SUCCESS
        }
        Some("snippets") => snippets::run(&args[1..]),
        Some("soak") if args.iter().any(|a| a == "--help" || a == "-h") => {
            println!("{}", bench::soak::USAGE);
            ExitCode::SUCCESS
        }
        Some("soak") => bench::soak::run(&args[1..]),
        Some("tools") if args.iter().any(|a| a == "--help" || a == "-h") => {
            println!("{}", tools::USAGE);
            ExitCode::SUCCESS
        }
        Some("tools") => tools::run(&args[1..]),
        Some(other) => {
            eprintln!("xtask: unknown task `{other}`\n\n{USAGE}");
            ExitCode::from(2)
        }
    }
}

/// The workspace's root directory (xtask's parent).
fn workspace_root() -> PathBuf {
    let xtask = Path::new(env!("CARGO_MANIFEST_DIR"));
    xtask.parent().unwrap_or(xtask).to_path_buf()
}

/// `cargo`: the one running this task (`CARGO`), else the one on PATH, without the variables
/// cargo set for running xtask (a build script tracking one would rebuild half the tree: see
/// presa-test's `examples::cargo`).
fn cargo() -> Command {
    presa_test::examples::cargo()
}

/// Runs `command` to its end; the error names it when it cannot start or does not succeed.
fn run_command(command: &mut Command) -> Result<(), String> {
    let status = command
        .status()
        .map_err(|e| format!("cannot run {command:?}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{command:?} failed ({status})"))
    }
}

/// The paths in `dir`, in no particular order.
fn entries(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let cannot = |e: std::io::Error| format!("cannot read {}: {e}", dir.display());
    std::fs::read_dir(dir)
        .map_err(cannot)?
        .map(|entry| entry.map(|entry| entry.path()).map_err(cannot))
        .collect()
}

/// A file's text; the error names the file.
fn read(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

/// The workspace's target directory: `CARGO_TARGET_DIR` when set, else `target/` at the root.
fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("target"))
}
