//! What the interop tests share: installing the independent MCP implementations, building
//! presa's `library` example, and running processes that never outlive a test.
//!
//! The independent implementations are presa-test's [`interop`](presa_test::interop): installed
//! from package registries on first use; a failed install fails the test that needed it.

pub(crate) mod library;
pub(crate) mod peers;

use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::thread::{self, JoinHandle};

use serde_json::Value;

pub(crate) use presa_test::interop::{node, python};

/// presa's `library` example (crates/presa/examples/library), built on first use with the
/// features and profile of this test binary, so that `cargo test` finds it up to date.
pub(crate) fn library() -> &'static Path {
    static LIBRARY: OnceLock<PathBuf> = OnceLock::new();
    LIBRARY.get_or_init(|| build_example("library"))
}

/// The `notes` example's binary, built as [`library`] is.
pub(crate) fn notes() -> &'static Path {
    static NOTES: OnceLock<PathBuf> = OnceLock::new();
    NOTES.get_or_init(|| build_example("notes"))
}

/// The `apps` example's binary, built as [`library`] is.
pub(crate) fn apps() -> &'static Path {
    static APPS: OnceLock<PathBuf> = OnceLock::new();
    APPS.get_or_init(|| build_example("apps"))
}

/// The `skills` example's binary, built as [`library`] is.
pub(crate) fn skills() -> &'static Path {
    static SKILLS: OnceLock<PathBuf> = OnceLock::new();
    SKILLS.get_or_init(|| build_example("skills"))
}

/// Builds example `name` with this test binary's features and profile; returns its binary.
fn build_example(name: &str) -> PathBuf {
    let features: Vec<&str> = [
        ("server", cfg!(feature = "server")),
        ("client", cfg!(feature = "client")),
        ("in-process", cfg!(feature = "in-process")),
        ("stdio", cfg!(feature = "stdio")),
        ("http", cfg!(feature = "http")),
        ("full-schema", cfg!(feature = "full-schema")),
        ("schemars", cfg!(feature = "schemars")),
        ("redis", cfg!(feature = "redis")),
    ]
    .into_iter()
    .filter_map(|(feature, on)| on.then_some(feature))
    .collect();
    presa_test::examples::build(name, &features)
}

/// Runs an interop driver (a client script of `interop/`) to completion and returns the
/// JSON object it printed as its last stdout line; panics, with its stderr, if it failed.
pub(crate) fn report(mut command: Command) -> Value {
    let output = command
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("could not run {command:?}: {e}"));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "{command:?} failed ({}); stderr:\n{stderr}",
        output.status
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    let last = stdout.lines().last().unwrap_or_default();
    serde_json::from_str(last).unwrap_or_else(|e| {
        panic!("{command:?} printed no JSON report ({e}); stdout:\n{stdout}\nstderr:\n{stderr}")
    })
}

/// An HTTP server process that printed `listening URL`; killed and reaped when dropped, its
/// stderr shown if the test is failing.
#[derive(Debug)]
#[allow(dead_code, reason = "interop_stdio starts no HTTP server")]
pub(crate) struct Listening {
    name: &'static str,
    url: String,
    child: Child,
    stderr: Option<JoinHandle<String>>,
}

#[allow(dead_code, reason = "interop_stdio starts no HTTP server")]
impl Listening {
    /// Starts `command` and waits for its `listening URL` line on stdout. The process gets a
    /// piped stdin (the servers of `interop/` exit when it closes, so even a test killed before
    /// it could drop this leaves none of them behind); the rest of its stdout is read and
    /// dropped.
    pub(crate) fn start(name: &'static str, mut command: Command) -> Self {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("could not start {name}: {e}"));
        let mut stderr = child.stderr.take().expect("piped stderr");
        let stderr = thread::spawn(move || {
            let mut text = String::new();
            let _ = stderr.read_to_string(&mut text);
            text
        });
        let mut stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
        let mut server = Self {
            name,
            url: String::new(),
            child,
            stderr: Some(stderr),
        };
        let mut line = String::new();
        loop {
            line.clear();
            let read = stdout.read_line(&mut line).expect("the server's stdout");
            assert!(read > 0, "{name} exited before printing `listening URL`");
            if let Some(url) = line.trim().strip_prefix("listening ") {
                server.url = url.to_owned();
                break;
            }
        }
        thread::spawn(move || io::copy(&mut stdout, &mut io::sink()));
        server
    }

    /// presa's `library` example on Streamable HTTP at 127.0.0.1, on a free port.
    pub(crate) fn library() -> Self {
        let mut command = Command::new(library());
        command.args(["--http", "127.0.0.1:0"]);
        Self::start("the library example", command)
    }

    /// The server's MCP endpoint.
    pub(crate) fn url(&self) -> &str {
        &self.url
    }

    /// Whether the process is still running.
    pub(crate) fn is_running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// Kills the process (`SIGKILL`: nothing of it runs on) and waits until it is gone.
    pub(crate) fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Listening {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let status = self.child.wait();
        let stderr = self
            .stderr
            .take()
            .and_then(|h| h.join().ok())
            .unwrap_or_default();
        if thread::panicking() {
            eprintln!("--- {} ({status:?}) stderr ---\n{stderr}", self.name);
        }
    }
}
