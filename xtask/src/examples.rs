//! `cargo xtask examples`: build the facade's examples and run every one whose doc comment
//! says what it prints, checking that it prints exactly that.
//!
//! An example states its output in its first doc comment, as a `text` block after a line
//! `Prints:`. The block is what a reader sees; this task makes sure it stays true, and
//! `cargo xtask docs` shows each run's output on the example's page of the book.
//!
//! A server example, which prints nothing of its own, states a session instead: a block of
//! `$ presa … -- cargo run -q -p presa --example NAME` commands, each followed by what it prints.
//! The task runs each command with the `presa` command it built, against the example binary it
//! built (in place of the `cargo run`), and compares what presa prints on stdout.

use std::ops::Range;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use presa_test::redis::RedisServer;

pub(crate) const USAGE: &str = "usage: cargo xtask examples [options]

Builds presa's examples (crates/presa/examples) and runs each one whose doc comment has a
`Prints:` block, checking that what it prints on stdout is exactly that block. A block of
`$ presa …` commands is a session: each command runs (the `presa` command against the built
example) and must print what follows it.

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
    /// Its files (relative to the examples folder) and their text, the main file first.
    sources: Vec<(String, String)>,
    doc: String,
    /// The `Prints:` block.
    expected: String,
    /// The `$ presa …` commands of a session block (without the `$ `); empty when the example
    /// runs on its own.
    session: Vec<String>,
    /// Its doc comment names `REDIS_URL`: it runs with a Redis of its own.
    needs_redis: bool,
}

/// An example that ran and printed what it states: what the book's page shows.
#[derive(Debug)]
pub(crate) struct Captured {
    pub(crate) name: String,
    /// Its files (relative to `crates/presa/examples`) and their text, the main file first.
    pub(crate) sources: Vec<(String, String)>,
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
        let (name, files) = match path.extension() {
            Some(ext) if ext == "rs" => (path.file_stem(), vec![path.clone()]),
            _ if path.join("main.rs").is_file() => {
                let mut files: Vec<PathBuf> = crate::entries(&path)?
                    .into_iter()
                    .filter(|file| file.extension().is_some_and(|ext| ext == "rs"))
                    .collect();
                // main.rs first, then the folder's other files
                files.sort_by_key(|file| (!file.ends_with("main.rs"), file.clone()));
                (path.file_name(), files)
            }
            _ => continue,
        };
        let Some(name) = name.and_then(|n| n.to_str()) else {
            continue;
        };
        let mut sources = Vec::new();
        for file in &files {
            let relative = file.strip_prefix(dir).unwrap_or(file).to_string_lossy();
            sources.push((relative.into_owned(), crate::read(file)?));
        }
        let doc = doc_comment(sources.first().map_or("", |(_, source)| source.as_str()));
        if let Some(expected) = stated_output(&doc) {
            found.push(Example {
                name: name.to_owned(),
                needs_redis: doc.contains("REDIS_URL"),
                session: session(&expected),
                sources,
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

/// Where a doc comment states its output, as line numbers: from the line `Prints:` through the
/// closing fence of the `text` block that follows it (blank lines only between them), and the
/// block's own lines.
pub(crate) fn stated_output_lines(doc: &str) -> Option<(Range<usize>, Range<usize>)> {
    let lines: Vec<&str> = doc.lines().collect();
    let prints = lines.iter().position(|line| line.trim() == "Prints:")?;
    let after_prints = lines.get(prints + 1..)?;
    let open = prints + 1 + after_prints.iter().position(|l| !l.trim().is_empty())?;
    if lines.get(open)?.trim() != "```text" {
        return None;
    }
    let close = open
        + 1
        + lines
            .get(open + 1..)?
            .iter()
            .position(|l| l.trim() == "```")?;
    Some((prints..close + 1, open + 1..close))
}

/// The `text` block that follows a line `Prints:` in a doc comment.
fn stated_output(doc: &str) -> Option<String> {
    let (_, block) = stated_output_lines(doc)?;
    let lines: Vec<&str> = doc.lines().skip(block.start).take(block.len()).collect();
    Some(lines.join("\n"))
}

/// The `$ presa …` commands of a session block (one whose first line is such a command),
/// without the `$ `; none for any other block. What they print is compared as a whole.
fn session(block: &str) -> Vec<String> {
    if !block.starts_with("$ presa ") {
        return Vec::new();
    }
    block
        .lines()
        .filter_map(|line| line.strip_prefix("$ "))
        .filter(|command| command.starts_with("presa "))
        .map(str::to_owned)
        .collect()
}

/// Builds every example, with every feature, and the `presa` command that sessions run: the
/// workspace's examples and binaries as `cargo test --workspace --all-features` builds them, so
/// that after the tests nothing is built again.
fn build() -> Result<(), String> {
    crate::run_command(crate::cargo().current_dir(crate::workspace_root()).args([
        "build",
        "--workspace",
        "--all-features",
        "--examples",
        "--bins",
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
        let ran = if example.session.is_empty() {
            run_example(&bin, &example.name, redis.as_ref().map(RedisServer::url))
        } else {
            run_session(&bin, &example.session)
        };
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
            sources: example.sources,
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

/// Runs the example `name` from `bin` (the built examples) in the workspace root; its stdout,
/// or why it failed.
fn run_example(bin: &Path, name: &str, redis_url: Option<String>) -> Result<String, String> {
    let mut command = Command::new(bin.join(name));
    if let Some(url) = redis_url {
        command.env("REDIS_URL", url);
    }
    run_to_end(command, &format!("example {name}"))
}

/// Runs each command of a session against the built example; the session as it went (each
/// `$ presa …` line and what it printed), or why a command failed.
fn run_session(bin: &Path, session: &[String]) -> Result<String, String> {
    let presa = bin.parent().unwrap_or(bin).join("presa");
    let mut transcript = String::new();
    for line in session {
        let printed = run_to_end(session_command(line, &presa, bin)?, &format!("`{line}`"))?;
        transcript.push_str("$ ");
        transcript.push_str(line);
        transcript.push('\n');
        transcript.push_str(&printed);
        if !printed.ends_with('\n') && !printed.is_empty() {
            transcript.push('\n');
        }
    }
    Ok(transcript)
}

/// The process a session's `presa … -- cargo run … --example NAME [-- ARGS]` line stands for:
/// `presa` (the one built) with the line's arguments, and the built example `NAME` (with
/// `ARGS`) as its server.
fn session_command(line: &str, presa: &Path, bin: &Path) -> Result<Command, String> {
    let words = split_words(line)?;
    let (ours, server) = match words.iter().position(|w| w == "--") {
        Some(at) => (&words[1..at], &words[at + 1..]),
        None => return Err(format!("`{line}` names no server after `--`")),
    };
    let example = server
        .iter()
        .position(|w| w == "--example")
        .and_then(|at| server.get(at + 1))
        .filter(|_| server.starts_with(&["cargo".to_owned(), "run".to_owned()]))
        .ok_or_else(|| format!("`{line}`: the server is not `cargo run … --example NAME`"))?;
    let arguments = server
        .iter()
        .position(|w| w == "--")
        .map_or(&[][..], |at| &server[at + 1..]);
    let mut command = Command::new(presa);
    command
        .args(ours)
        .arg("--")
        .arg(bin.join(example))
        .args(arguments);
    Ok(command)
}

/// The words of a shell command line: split at spaces, with `'…'` taken as it is and `"…"`
/// with `\"` and `\\` escapes, as a shell reads them.
fn split_words(line: &str) -> Result<Vec<String>, String> {
    let (mut words, mut word, mut in_word) = (Vec::new(), String::new(), false);
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                }
                in_word = false;
                continue;
            }
            '\'' => loop {
                match chars.next() {
                    Some('\'') => break,
                    Some(c) => word.push(c),
                    None => return Err(format!("`{line}`: a quote is not closed")),
                }
            },
            '"' => loop {
                match chars.next() {
                    Some('"') => break,
                    Some('\\') => match chars.next() {
                        Some(c @ ('"' | '\\' | '$' | '`')) => word.push(c),
                        Some(c) => {
                            word.push('\\');
                            word.push(c);
                        }
                        None => return Err(format!("`{line}`: a quote is not closed")),
                    },
                    Some(c) => word.push(c),
                    None => return Err(format!("`{line}`: a quote is not closed")),
                }
            },
            '\\' => word.extend(chars.next()),
            c => word.push(c),
        }
        in_word = true;
    }
    if in_word {
        words.push(word);
    }
    Ok(words)
}

/// Runs `command` from the workspace root with no stdin, to its end or [`LIMIT`]; its stdout,
/// or why it failed (`label` names it).
fn run_to_end(mut command: Command, label: &str) -> Result<String, String> {
    let child = command
        .current_dir(crate::workspace_root())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start {label}: {e}"))?;
    let pid = child.id();
    let (sender, finished) = mpsc::channel();
    // reads stdout and stderr together, so that neither pipe fills while the other is read
    std::thread::spawn(move || {
        let _ = sender.send(child.wait_with_output());
    });
    match finished.recv_timeout(LIMIT) {
        Ok(Ok(output)) if output.status.success() => {
            std::io::Write::write_all(&mut std::io::stderr(), &output.stderr).ok();
            String::from_utf8(output.stdout).map_err(|_| format!("{label} printed non-UTF-8"))
        }
        Ok(Ok(output)) => Err(format!(
            "{label} failed ({}):\n{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        )),
        Ok(Err(error)) => Err(format!("{label}: {error}")),
        Err(_) => {
            // ours, by its PID
            let _ = Command::new("kill").arg(pid.to_string()).status();
            Err(format!("{label} ran longer than {} s", LIMIT.as_secs()))
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
    fn the_stated_output_is_found_by_line() {
        let doc = "What.\n\nPrints:\n\n```text\none\ntwo\n```\n\nAfter.";
        assert_eq!(stated_output_lines(doc), Some((2..8, 5..7)));
        // a block that does not follow `Prints:` is not what it prints
        let apart = "Prints:\nsomething else\n```text\nx\n```";
        assert_eq!(stated_output_lines(apart), None);
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
    fn a_block_of_presa_commands_is_a_session() {
        let block = "$ presa tools -- cargo run -q -p presa --example library\nNAME  DESCRIPTION\nadd   Add numbers.\n$ presa ping -- cargo run -q -p presa --example library";
        assert_eq!(
            session(block),
            [
                "presa tools -- cargo run -q -p presa --example library",
                "presa ping -- cargo run -q -p presa --example library",
            ]
        );
        assert_eq!(session("liftoff\n$ presa ping -- x"), [] as [&str; 0]);
    }

    #[test]
    fn a_session_line_runs_presa_against_the_built_example() {
        let command = session_command(
            r#"presa call add 'numbers=[1, 2]' --answer "name=Ada \"L\"" -- cargo run -q -p presa --features prometheus --example observed -- --http 127.0.0.1:0"#,
            Path::new("/t/presa"),
            Path::new("/t/examples"),
        )
        .unwrap();
        assert_eq!(command.get_program(), "/t/presa");
        let args: Vec<_> = command.get_args().collect();
        assert_eq!(
            args,
            [
                "call",
                "add",
                "numbers=[1, 2]",
                "--answer",
                "name=Ada \"L\"",
                "--",
                "/t/examples/observed",
                "--http",
                "127.0.0.1:0"
            ]
        );
        for wrong in [
            "presa tools",
            "presa tools -- ./server",
            "presa call x 'open -- cargo run --example y",
        ] {
            assert!(
                session_command(wrong, Path::new("p"), Path::new("b")).is_err(),
                "{wrong}"
            );
        }
    }

    #[test]
    fn trailing_spaces_and_blank_lines_do_not_count() {
        assert_eq!(normalized("a  \nb\n\n"), normalized("a\nb"));
        assert_ne!(normalized("a\nb"), normalized("a\n b"));
    }
}
