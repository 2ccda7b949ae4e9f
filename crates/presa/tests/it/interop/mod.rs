//! What the interop tests share: installing the independent MCP implementations, building
//! presa's `library` example, and running processes that never outlive a test.
//!
//! The independent implementations come from package registries, pinned by files of
//! `interop/`, and are installed by the first test that needs them, under a lock file in the
//! target directory (so concurrent test processes install once):
//!
//! - npm: `interop/node/package.json` and its committed lockfile, installed with `npm ci` into
//!   `interop/node/node_modules`, reused while that install is newer than the lockfile (as
//!   `cargo xtask conformance` does). Run with the machine's `node` (20 or later).
//! - PyPI: `interop/python/requirements.txt`, every package pinned, installed with pip into a
//!   virtualenv made by the machine's `python3` (3.10 or later) under the target directory,
//!   reused while the requirements it was made from are unchanged.
//!
//! A failed install fails the test that needed it: nothing is skipped.

pub(crate) mod library;
pub(crate) mod peers;

use std::fs::{self, File};
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::thread::{self, JoinHandle};
use std::time::Instant;

use serde_json::Value;

use presa_test::examples::{profile_dir, workspace_root as root};

/// The independent implementations installed from the npm registry, and Node.js to run them.
#[derive(Debug)]
pub(crate) struct Node {
    dir: PathBuf,
}

/// The npm install of `interop/node`, made on first use (see the module docs).
pub(crate) fn node() -> &'static Node {
    static NODE: OnceLock<Node> = OnceLock::new();
    NODE.get_or_init(|| {
        let dir = root().join("interop/node");
        npm_ci(&dir);
        Node { dir }
    })
}

/// Runs `npm ci` in `dir` unless its install is newer than its lockfile.
fn npm_ci(dir: &Path) {
    let _lock = install_lock("interop-node.lock");
    let modified = |path: PathBuf| fs::metadata(path).and_then(|m| m.modified()).ok();
    let lockfile = modified(dir.join("package-lock.json")).expect("interop/node/package-lock.json");
    if modified(dir.join("node_modules/.package-lock.json")).is_some_and(|i| i >= lockfile) {
        return;
    }
    let started = Instant::now();
    let mut npm = Command::new("npm");
    npm.args(["ci", "--no-audit", "--no-fund", "--loglevel=error"])
        .current_dir(dir);
    run_install(npm, "Node.js 20 or later with npm");
    eprintln!(
        "interop: npm ci in {} took {:.1?}",
        dir.display(),
        started.elapsed()
    );
}

/// Holds an exclusive lock on a file of the target directory until dropped.
// `File::lock` is newer than the workspace's rust-version; these tests only run on the
// toolchain that builds them.
fn install_lock(name: &str) -> File {
    let lock = File::create(profile_dir().join(name)).expect("the install lock");
    lock.lock().expect("the install lock");
    lock
}

/// Runs an install step; panics with its output if it fails.
fn run_install(mut command: Command, needs: &str) {
    let output = command
        .output()
        .unwrap_or_else(|e| panic!("could not run {command:?} ({needs} is required): {e}"));
    assert!(
        output.status.success(),
        "{command:?} failed ({}):\n{}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

impl Node {
    /// A file of `interop/node`, such as a script or an installed package's entry point.
    pub(crate) fn path(&self, relative: &str) -> PathBuf {
        self.dir.join(relative)
    }

    /// `node SCRIPT`, for a script of `interop/node`, run from there.
    pub(crate) fn script(&self, script: &str) -> Command {
        let mut command = Command::new("node");
        command.arg(self.path(script)).current_dir(&self.dir);
        command
    }
}

/// The Python MCP SDK installed from PyPI into a virtualenv, and the scripts that use it.
#[derive(Debug)]
pub(crate) struct Python {
    dir: PathBuf,
    venv: PathBuf,
}

/// The virtualenv of `interop/python`, made on first use (see the module docs).
pub(crate) fn python() -> &'static Python {
    static PYTHON: OnceLock<Python> = OnceLock::new();
    PYTHON.get_or_init(|| {
        let python = Python {
            dir: root().join("interop/python"),
            venv: profile_dir().join("interop-python"),
        };
        python.install();
        python
    })
}

impl Python {
    /// Makes the virtualenv and installs the requirements unless it was made from the same
    /// requirements.
    fn install(&self) {
        let _lock = install_lock("interop-python.lock");
        let requirements = self.dir.join("requirements.txt");
        let wanted = fs::read(&requirements).expect("interop/python/requirements.txt");
        let installed = self.venv.join("presa-requirements.txt");
        if fs::read(&installed).is_ok_and(|had| had == wanted) {
            return;
        }
        let started = Instant::now();
        if self.venv.exists() {
            fs::remove_dir_all(&self.venv).expect("removing the outdated virtualenv");
        }
        let mut venv = Command::new("python3");
        venv.args(["-m", "venv"]).arg(&self.venv);
        run_install(venv, "Python 3.10 or later with venv");
        let mut pip = Command::new(self.venv.join("bin/pip"));
        pip.args([
            "install",
            "--disable-pip-version-check",
            "--no-input",
            "--quiet",
            "-r",
        ])
        .arg(&requirements);
        run_install(pip, "pip");
        fs::write(&installed, wanted).expect("recording the installed requirements");
        eprintln!(
            "interop: the Python virtualenv took {:.1?}",
            started.elapsed()
        );
    }

    /// A file of `interop/python`.
    pub(crate) fn path(&self, relative: &str) -> PathBuf {
        self.dir.join(relative)
    }

    /// `python SCRIPT` in the virtualenv, for a script of `interop/python`, run from there.
    pub(crate) fn script(&self, script: &str) -> Command {
        let mut command = Command::new(self.venv.join("bin/python"));
        command.arg(self.path(script)).current_dir(&self.dir);
        command
    }
}

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
