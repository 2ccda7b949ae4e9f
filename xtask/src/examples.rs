//! `cargo xtask examples`: build the facade's examples and run every one whose doc comment
//! says what it prints, checking that it prints exactly that.
//!
//! An example states its output in its first doc comment, as a `text` block after a line
//! `Prints:`. The block is what a reader sees; this task makes sure it stays true, and
//! `cargo xtask docs` shows each run's output on the example's page of the book.

use std::path::Path;
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
    /// Its main file, relative to the examples folder.
    path: String,
    source: String,
    doc: String,
    expected: String,
    /// Its doc comment names `REDIS_URL`: it runs with a Redis of its own.
    needs_redis: bool,
}

/// An example that ran and printed what it states: what the book's page shows.
#[derive(Debug)]
pub(crate) struct Captured {
    pub(crate) name: String,
    /// Its main file, relative to `crates/presa/examples`.
    pub(crate) path: String,
    pub(crate) source: String,
    /// Its doc comment, without the markers.
    pub(crate) doc: String,
    pub(crate) printed: String,
}

/// Builds and runs every example that states its output; each one's capture, or the first
/// that failed or printed something else.
pub(crate) fn capture() -> Result<Vec<Captured>, String> {
    let found = examples(&crate::workspace_root().join("crates/presa/examples"))?;
    build()?;
    let (captured, failed) = check(found)?;
    if failed.is_empty() {
        Ok(captured)
    } else {
        Err(format!(
            "examples that printed something else: {}",
            failed.join(", ")
        ))
    }
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
            match build().and_then(|()| check(chosen)) {
                Ok((_, failed)) if failed.is_empty() => ExitCode::SUCCESS,
                Ok(_) => ExitCode::FAILURE,
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
    let mut found = Vec::new();
    for path in crate::entries(dir)? {
        let (name, main) = match path.extension() {
            Some(ext) if ext == "rs" => (path.file_stem(), path.clone()),
            _ if path.join("main.rs").is_file() => (path.file_name(), path.join("main.rs")),
            _ => continue,
        };
        let relative = main
            .strip_prefix(dir)
            .unwrap_or(&main)
            .to_string_lossy()
            .into_owned();
        let Some(name) = name.and_then(|n| n.to_str()) else {
            continue;
        };
        let source = crate::read(&main)?;
        let doc = doc_comment(&source);
        if let Some(expected) = stated_output(&doc) {
            found.push(Example {
                name: name.to_owned(),
                path: relative,
                needs_redis: doc.contains("REDIS_URL"),
                source,
                doc,
                expected,
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
    crate::run_command(crate::cargo().current_dir(crate::workspace_root()).args([
        "build",
        "-p",
        "presa",
        "--examples",
        "--all-features",
    ]))
}

/// Runs each example and compares what it printed with what it states: the captures of those
/// that agree, and the names of those that do not.
fn check(examples: Vec<Example>) -> Result<(Vec<Captured>, Vec<String>), String> {
    let bin = crate::target_dir().join("debug/examples");
    let (count, mut failed, mut agreed) = (examples.len(), Vec::new(), Vec::new());
    for example in examples {
        // Debian's redis-server on a free port, stopped (by PID) when dropped
        let redis = example.needs_redis.then(RedisServer::start);
        let ran = run_example(
            &bin.join(&example.name),
            redis.as_ref().map(RedisServer::url),
        );
        drop(redis);
        // an example that fails or hangs is reported like one that prints something else, and
        // the others still run
        let printed = match ran {
            Ok(printed) => printed,
            Err(error) => {
                println!("example {}: {error}", example.name);
                failed.push(example.name);
                continue;
            }
        };
        if normalized(&printed) == normalized(&example.expected) {
            println!("example {}: ok", example.name);
        } else {
            println!(
                "example {}: printed something else\n--- stated\n{}\n--- printed\n{}\n---",
                example.name,
                example.expected,
                printed.trim_end()
            );
            failed.push(example.name);
            continue;
        }
        agreed.push(Captured {
            name: example.name,
            path: example.path,
            source: example.source,
            doc: example.doc,
            printed,
        });
    }
    println!(
        "{count} examples ran, {} printed what they state",
        agreed.len()
    );
    if !failed.is_empty() {
        println!("failed: {}", failed.join(", "));
    }
    Ok((agreed, failed))
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
fn run_example(path: &Path, redis_url: Option<String>) -> Result<String, String> {
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
