//! What the `presa` command's tests share: presa's examples, built once with the features
//! presa's own tests use, and processes that print `listening URL`.

use std::io::{BufRead as _, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

/// How long a test waits for anything a process should print.
pub(crate) const WAIT: Duration = Duration::from_secs(60);

/// presa's features the examples are built with: those `cargo test --workspace
/// --all-features` gives presa's own tests, so that the two share one build.
const FEATURES: &[&str] = &[
    "server",
    "client",
    "in-process",
    "stdio",
    "http",
    "full-schema",
    "schemars",
    "redis",
];

/// presa's example `name`, built on first use.
pub(crate) fn example(name: &'static str) -> &'static Path {
    static BUILT: OnceLock<Mutex<Vec<(&'static str, &'static Path)>>> = OnceLock::new();
    let mut built = BUILT.get_or_init(Default::default).lock().unwrap();
    if let Some((_, path)) = built.iter().find(|(n, _)| *n == name) {
        return path;
    }
    let path: &'static Path =
        Box::leak(presa_test::examples::build(name, FEATURES).into_boxed_path());
    built.push((name, path));
    path
}

/// `presa ARGS`, with a home of the tests' own (never the developer's token store).
pub(crate) fn presa(args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_presa"));
    command.args(args).stdin(Stdio::null());
    isolated(&mut command);
    command
}

/// `command` with a home and config folder of the tests' own.
pub(crate) fn isolated(command: &mut Command) {
    let home = std::env::temp_dir().join(format!("presa-cli-tests-home-{}", std::process::id()));
    command
        .env("HOME", &home)
        .env("XDG_CONFIG_HOME", home.join("config"));
}

/// Each line `read` gives, on a channel.
pub(crate) fn lines_of(read: impl std::io::Read + Send + 'static) -> Receiver<String> {
    let (sender, lines) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(read).lines() {
            let Ok(line) = line else { return };
            if sender.send(line).is_err() {
                return;
            }
        }
    });
    lines
}

/// A process that printed `listening URL` on stdout; its stderr lines on a channel; killed
/// and reaped when dropped.
pub(crate) struct Listening {
    child: Child,
    pub(crate) url: String,
    pub(crate) stderr: Receiver<String>,
}

impl Listening {
    pub(crate) fn start(mut command: Command) -> Self {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the server starts");
        let stderr = lines_of(child.stderr.take().unwrap());
        let stdout = lines_of(child.stdout.take().unwrap());
        let url = loop {
            let line = stdout
                .recv_timeout(WAIT)
                .expect("the server prints `listening URL`");
            if let Some(url) = line.strip_prefix("listening ") {
                break url.to_owned();
            }
        };
        std::thread::spawn(move || stdout.iter().for_each(drop));
        Self { child, url, stderr }
    }
}

impl Drop for Listening {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
