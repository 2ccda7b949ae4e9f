//! `cargo xtask examples`: build the facade's examples and run every one whose doc comment
//! says what it prints, checking that it prints exactly that.
//!
//! An example states its output in its first doc comment, as a `text` block after a line
//! `Prints:`. The block is what a reader sees; this task makes sure it stays true. Each run's
//! output is also written to `target/examples/NAME.txt`, for the book's example pages.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use presa_test::redis::RedisServer;

pub(crate) const USAGE: &str = "usage: cargo xtask examples [options]

Builds presa's examples (crates/presa/examples) and runs each one whose doc comment has a
`Prints:` block, checking that what it prints on stdout is exactly that block.

options:
  --example NAME   run this example only
  --list           list the examples that state their output, and build nothing";

/// How long one example may run: they finish in well under a second, so this only stops a
/// hung one from hanging the task.
const LIMIT: Duration = Duration::from_secs(120);

/// One example that states its output.
#[derive(Debug)]
struct Example {
    name: String,
    expected: String,
    /// Its doc comment names `REDIS_URL`: it runs with a Redis of its own.
    needs_redis: bool,
}

pub(crate) fn run(args: &[String]) -> ExitCode {
    let mut only = None;
    let mut list = false;
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--example" => match args.next() {
                Some(name) => only = Some(name.clone()),
                None => return usage("--example needs a name"),
            },
            "--list" => list = true,
            other => return usage(&format!("unknown option {other}")),
        }
    }
    match examples(&crate::workspace_root().join("crates/presa/examples")) {
        Ok(found) => {
            let chosen: Vec<Example> = found
                .into_iter()
                .filter(|e| only.as_deref().is_none_or(|name| e.name == name))
                .collect();
            if chosen.is_empty() {
                eprintln!("xtask examples: no example states its output under that name");
                return ExitCode::FAILURE;
            }
            if list {
                chosen.iter().for_each(|e| println!("{}", e.name));
                return ExitCode::SUCCESS;
            }
            match build().and_then(|()| check(&chosen)) {
                Ok(true) => ExitCode::SUCCESS,
                Ok(false) => ExitCode::FAILURE,
                Err(error) => {
                    eprintln!("xtask examples: {error}");
                    ExitCode::FAILURE
                }
            }
        }
        Err(error) => {
            eprintln!("xtask examples: {error}");
            ExitCode::FAILURE
        }
    }
}

fn usage(error: &str) -> ExitCode {
    eprintln!("xtask examples: {error}\n\n{USAGE}");
    ExitCode::from(2)
}

/// The examples in `dir` (files, and folders with a `main.rs`) that state their output, by name.
fn examples(dir: &Path) -> Result<Vec<Example>, String> {
    let entries = fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    let mut found = Vec::new();
    for entry in entries {
        let path = entry
            .map_err(|e| format!("cannot read {}: {e}", dir.display()))?
            .path();
        let (name, main) = match path.extension() {
            Some(ext) if ext == "rs" => (path.file_stem(), path.clone()),
            _ if path.join("main.rs").is_file() => (path.file_name(), path.join("main.rs")),
            _ => continue,
        };
        let Some(name) = name.and_then(|n| n.to_str()) else {
            continue;
        };
        let source = fs::read_to_string(&main)
            .map_err(|e| format!("cannot read {}: {e}", main.display()))?;
        let doc = doc_comment(&source);
        if let Some(expected) = stated_output(&doc) {
            found.push(Example {
                name: name.to_owned(),
                expected,
                needs_redis: doc.contains("REDIS_URL"),
            });
        }
    }
    found.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(found)
}

/// The leading `//!` comment of a source file, without the markers.
fn doc_comment(source: &str) -> String {
    source
        .lines()
        .map_while(|line| line.strip_prefix("//!"))
        .map(|line| line.strip_prefix(' ').unwrap_or(line))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The `text` block that follows a line `Prints:` in a doc comment.
fn stated_output(doc: &str) -> Option<String> {
    let mut lines = doc
        .lines()
        .skip_while(|line| line.trim() != "Prints:")
        .skip(1);
    lines.by_ref().find(|line| line.trim() == "```text")?;
    let mut block = Vec::new();
    for line in lines {
        if line.trim() == "```" {
            return Some(block.join("\n"));
        }
        block.push(line);
    }
    None
}

/// Builds every example of the facade, with every feature (the profile the tests use).
fn build() -> Result<(), String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let status = Command::new(cargo)
        .current_dir(crate::workspace_root())
        .args(["build", "-p", "presa", "--examples", "--all-features"])
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("building the examples failed ({status})"))
    }
}

/// Runs each example and compares what it printed with what it states; true when all agree.
fn check(examples: &[Example]) -> Result<bool, String> {
    let bin = crate::target_dir().join("debug/examples");
    let captured = crate::target_dir().join("examples");
    fs::create_dir_all(&captured)
        .map_err(|e| format!("cannot create {}: {e}", captured.display()))?;
    let mut failed = Vec::new();
    for example in examples {
        // Debian's redis-server on a free port, stopped (by PID) when dropped
        let redis = example.needs_redis.then(RedisServer::start);
        let printed = run_example(
            &bin.join(&example.name),
            redis.as_ref().map(RedisServer::url),
        )?;
        drop(redis);
        fs::write(captured.join(format!("{}.txt", example.name)), &printed)
            .map_err(|e| format!("cannot write {}'s output: {e}", example.name))?;
        if normalized(&printed) == normalized(&example.expected) {
            println!("example {}: ok", example.name);
        } else {
            println!(
                "example {}: printed something else\n--- stated\n{}\n--- printed\n{}\n---",
                example.name,
                example.expected,
                printed.trim_end()
            );
            failed.push(example.name.as_str());
        }
    }
    println!(
        "{} examples ran, {} printed what they state",
        examples.len(),
        examples.len() - failed.len()
    );
    if !failed.is_empty() {
        println!("failed: {}", failed.join(", "));
    }
    Ok(failed.is_empty())
}

/// Lines without trailing spaces, and no trailing blank lines.
fn normalized(text: &str) -> Vec<&str> {
    let mut lines: Vec<&str> = text.lines().map(str::trim_end).collect();
    while lines.last().is_some_and(|line| line.is_empty()) {
        lines.pop();
    }
    lines
}

/// Runs one example binary from the workspace root; its stdout, or why it failed.
fn run_example(path: &PathBuf, redis_url: Option<String>) -> Result<String, String> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut command = Command::new(path);
    if let Some(url) = redis_url {
        command.env("REDIS_URL", url);
    }
    let child = command
        .current_dir(crate::workspace_root())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start example {name}: {e}"))?;
    let pid = child.id();
    let (sender, finished) = mpsc::channel();
    // reads stdout and stderr together, so that neither pipe fills while the other is read
    std::thread::spawn(move || {
        let _ = sender.send(child.wait_with_output());
    });
    match finished.recv_timeout(LIMIT) {
        Ok(Ok(output)) if output.status.success() => {
            std::io::Write::write_all(&mut std::io::stderr(), &output.stderr).ok();
            String::from_utf8(output.stdout)
                .map_err(|_| format!("example {name} printed non-UTF-8"))
        }
        Ok(Ok(output)) => Err(format!(
            "example {name} failed ({}):\n{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        )),
        Ok(Err(error)) => Err(format!("example {name}: {error}")),
        Err(_) => {
            // ours, by its PID
            let _ = Command::new("kill").arg(pid.to_string()).status();
            Err(format!(
                "example {name} ran longer than {} s",
                LIMIT.as_secs()
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn the_stated_output_is_the_text_block_after_prints() {
        let doc = doc_comment(
            "//! What it shows.\n//!\n//! ```sh\n//! cargo run\n//! ```\n//!\n//! Prints:\n//!\n//! ```text\n//! one\n//!   two\n//! ```\n\nfn main() {}\n",
        );
        assert_eq!(stated_output(&doc).as_deref(), Some("one\n  two"));
    }

    #[test]
    fn an_example_that_states_nothing_is_not_run() {
        assert_eq!(
            stated_output("What it shows.\n\n```text\nnot its output\n```"),
            None
        );
        assert_eq!(stated_output("Prints:\n\n```text\nunterminated"), None);
    }

    #[test]
    fn trailing_spaces_and_blank_lines_do_not_count() {
        assert_eq!(normalized("a  \nb\n\n"), normalized("a\nb"));
        assert_ne!(normalized("a\nb"), normalized("a\n b"));
    }
}
