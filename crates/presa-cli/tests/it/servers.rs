//! The `presa` command against servers nobody here wrote: the npm reference server
//! `@modelcontextprotocol/server-everything` over stdio and in its Streamable HTTP mode, and the
//! PyPI `mcp-server-time`, both pinned in `interop/` and installed on first use.

use std::io::{BufRead as _, BufReader};
use std::process::{Child, Command, Output, Stdio};

use presa_test::interop::{node, python};
use serde_json::Value;

fn presa(args: &[&str], server: &[&str]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_presa"));
    command
        .args(args)
        .arg("--")
        .args(server)
        .stdin(Stdio::null());
    crate::common::isolated(&mut command);
    command.output().expect("presa runs")
}

/// Runs `presa`, expecting success; returns its stdout.
fn ok(args: &[&str], server: &[&str]) -> String {
    let output = presa(args, server);
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "presa {args:?} -- {server:?}: {}\nstdout:\n{stdout}\nstderr:\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

fn everything_stdio() -> Vec<String> {
    let entry = node().path("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    vec!["node".into(), entry.display().to_string()]
}

/// What every era of server-everything answers the same way.
fn everything(server: &[&str], era: &str) {
    let with = |args: &[&str]| -> Vec<String> {
        args.iter()
            .chain(&["--era", era])
            .map(|s| (*s).to_owned())
            .collect()
    };
    let ok = |args: &[&str]| {
        let args = with(args);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        ok(&args, server)
    };
    let info = ok(&["info"]);
    assert!(info.starts_with("mcp-servers/everything "), "{info}");
    assert!(info.contains("revision: 2025-11-25"), "{info}");
    let tools = ok(&["tools"]);
    assert!(tools.starts_with("NAME "), "{tools}");
    for tool in [
        "echo",
        "get-sum",
        "get-tiny-image",
        "trigger-long-running-operation",
    ] {
        assert!(
            tools
                .lines()
                .any(|line| line.starts_with(&format!("{tool} "))),
            "{tool}: {tools}"
        );
    }
    assert_eq!(ok(&["call", "echo", "message=hi"]), "Echo: hi\n");
    assert_eq!(
        ok(&["call", "get-sum", "a=2", "b=3"]),
        "The sum of 2 and 3 is 5.\n"
    );
    let image = ok(&["call", "get-tiny-image"]);
    assert!(image.contains("[image image/png, "), "{image}");
    // structured content, checked against the tool's output schema
    let structured: Value = serde_json::from_str(&ok(&[
        "call",
        "get-structured-content",
        "location=New York",
        "--json",
    ]))
    .unwrap();
    assert!(
        structured["structuredContent"]["temperature"].is_number(),
        "{structured}"
    );
    // progress and completion of a long operation
    let long = ok(&[
        "call",
        "trigger-long-running-operation",
        "duration=0.2",
        "steps=2",
    ]);
    assert!(long.contains("completed"), "{long}");
    let resources = ok(&["resources"]);
    let first = resources
        .lines()
        .nth(1)
        .and_then(|line| line.split_whitespace().next())
        .unwrap()
        .to_owned();
    assert!(!ok(&["read", &first]).is_empty());
    let prompt = ok(&["prompt", "args-prompt", "city=Paris"]);
    assert!(prompt.contains("Paris"), "{prompt}");
    let completed = ok(&[
        "complete",
        "prompt",
        "completable-prompt",
        "department",
        "E",
    ]);
    assert!(
        completed.lines().any(|line| line.starts_with('E')),
        "{completed}"
    );
    // the elicitation, answered from the command line
    let answered = ok(&["call", "trigger-elicitation-request", "--decline"]);
    assert!(answered.contains("decline"), "{answered}");
    assert!(ok(&["ping"]).starts_with("ping: answered in "));
}

#[test]
fn server_everything_over_stdio() {
    let server = everything_stdio();
    let server: Vec<&str> = server.iter().map(String::as_str).collect();
    everything(&server, "auto");
    everything(&server, "legacy");
}

/// server-everything in its Streamable HTTP mode on 127.0.0.1; it exits when its stdin closes.
struct EverythingHttp {
    child: Child,
    url: String,
}

impl EverythingHttp {
    fn start() -> Self {
        let mut child = node()
            .script("everything-http.mjs")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("server-everything starts");
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let url = loop {
            let line = lines.next().expect("a line").expect("stdout");
            if let Some(url) = line.strip_prefix("listening ") {
                break url.to_owned();
            }
        };
        std::thread::spawn(move || lines.for_each(drop));
        Self { child, url }
    }
}

impl Drop for EverythingHttp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn server_everything_over_streamable_http() {
    let server = EverythingHttp::start();
    everything(&[&server.url], "auto");
    everything(&[&server.url], "legacy");
}

#[test]
fn mcp_server_time_over_stdio() {
    let program = python().program("mcp-server-time");
    let program = program.display().to_string();
    for (era, revision) in [("auto", "2026-07-28"), ("legacy", "2025-11-25")] {
        let info = ok(&["info", "--era", era], &[&program]);
        assert!(info.starts_with("mcp-time "), "{info}");
        assert!(
            info.contains(&format!("revision: {revision}")),
            "{era}: {info}"
        );
        let tools = ok(&["tools", "--era", era], &[&program]);
        assert!(tools.contains("get_current_time"), "{tools}");
        assert!(tools.contains("convert_time"), "{tools}");
        let now: Value = serde_json::from_str(&ok(
            &["call", "get_current_time", "timezone=UTC", "--era", era],
            &[&program],
        ))
        .unwrap();
        assert_eq!(now["timezone"], "UTC", "{era}");
        let converted: Value = serde_json::from_str(&ok(
            &[
                "call",
                "convert_time",
                "source_timezone=Europe/Paris",
                "time=12:00",
                "target_timezone=Asia/Tokyo",
                "--era",
                era,
            ],
            &[&program],
        ))
        .unwrap();
        assert_eq!(converted["source"]["timezone"], "Europe/Paris", "{era}");
        assert_eq!(converted["target"]["timezone"], "Asia/Tokyo", "{era}");
        // a timezone that does not exist: the tool's error, exit 1
        let wrong = presa(
            &[
                "call",
                "get_current_time",
                "timezone=Mars/Olympus",
                "--era",
                era,
            ],
            &[&program],
        );
        assert_eq!(wrong.status.code(), Some(1), "{era}");
    }
}
