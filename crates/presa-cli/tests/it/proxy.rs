//! `presa proxy` both ways, with the Python SDK's client on the far side in both eras: a stdio
//! server (presa's `patterns` and `countdown` examples) served as Streamable HTTP, and that HTTP
//! server served again on stdio. Calls with their progress and log messages, the server's input
//! requests (elicitation, sampling, roots) answered by the far client, and cancellation, which
//! must reach the stdio server.

use std::process::Command;

use crate::common::{Listening, WAIT, example, presa};
use presa_test::interop::python;
use serde_json::{Value, json};

/// `presa proxy --listen 127.0.0.1:0 -- EXAMPLE`.
fn over_http(name: &'static str) -> Listening {
    let example = example(name).display().to_string();
    Listening::start(presa(&["proxy", "--listen", "127.0.0.1:0", "--", &example]))
}

/// Runs the Python client's `scenario` in `era` through `target` (`--http URL` or `--stdio
/// COMMAND…`); returns its report.
fn python_through(era: &str, scenario: &str, target: &[&str]) -> Value {
    let mut python = python().script("proxy_client.py");
    python.args([era, scenario]).args(target);
    // the proxies it starts keep no tokens of the developer's
    crate::common::isolated(&mut python);
    let output = python.output().expect("python runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "proxy_client.py {era} {scenario} {target:?} failed ({}):\n{stdout}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_str(stdout.lines().last().unwrap_or_default())
        .unwrap_or_else(|e| panic!("no report ({e}):\n{stdout}"))
}

fn check_patterns(report: &Value, era: &str) {
    let revision = if era == "2025" {
        "2025-11-25"
    } else {
        "2026-07-28"
    };
    assert_eq!(report["protocolVersion"], revision, "{report}");
    assert_eq!(report["serverInfo"], "patterns", "{report}");
    assert_eq!(report["count"], "counted to 3", "{report}");
    assert_eq!(
        report["progress"],
        json!([
            [1.0, 3.0, "step 1"],
            [2.0, 3.0, "step 2"],
            [3.0, 3.0, "step 3"]
        ]),
        "{report}"
    );
    assert_eq!(
        report["logs"],
        json!([{"step": 1}, {"step": 2}, {"step": 3}]),
        "{report}"
    );
    assert_eq!(report["confirm"], "deleted /x", "{report}");
    assert_eq!(report["summarize"], "python says: short", "{report}");
    assert_eq!(report["workspace"], "py", "{report}");
    assert_eq!(
        report["asked"],
        json!({"elicitation": "Delete /x?", "sampling": "Summarize: hello", "roots": true}),
        "{report}"
    );
}

#[test]
fn a_stdio_server_is_served_as_streamable_http_and_back_on_stdio() {
    let proxy = over_http("patterns");
    let presa_bin = env!("CARGO_BIN_EXE_presa");
    for era in ["2026", "2025"] {
        // the Python client over HTTP to the proxy, which runs the server on stdio
        check_patterns(
            &python_through(era, "patterns", &["--http", &proxy.url]),
            era,
        );
        // the Python client on stdio to a second proxy, which reaches the first over HTTP
        let report = python_through(
            era,
            "patterns",
            &["--stdio", presa_bin, "proxy", "--stdio", &proxy.url],
        );
        check_patterns(&report, era);
    }
}

#[test]
fn a_cancelled_call_is_cancelled_in_the_server_behind_the_proxy() {
    let proxy = over_http("countdown");
    let presa_bin = env!("CARGO_BIN_EXE_presa");
    for era in ["2026", "2025"] {
        for target in [
            vec!["--http", proxy.url.as_str()],
            vec!["--stdio", presa_bin, "proxy", "--stdio", proxy.url.as_str()],
        ] {
            let report = python_through(era, "cancel", &target);
            assert_eq!(report["cancelled"], true, "{era} {target:?}: {report}");
            assert_eq!(
                report["after"],
                json!(["countdown"]),
                "{era} {target:?}: {report}"
            );
            // the countdown's handler was dropped: it says so on its stderr, the proxy's
            loop {
                let line = proxy
                    .stderr
                    .recv_timeout(WAIT)
                    .unwrap_or_else(|_| panic!("{era} {target:?}: the countdown was not stopped"));
                if line.contains("countdown stopped before liftoff") {
                    break;
                }
            }
        }
    }
}

#[test]
fn a_proxy_without_a_server_is_a_usage_error() {
    let status = presa(&["proxy", "--listen", "127.0.0.1:0"])
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(2));
    let status = Command::new(env!("CARGO_BIN_EXE_presa"))
        .args([
            "proxy",
            "--stdio",
            "http://127.0.0.1:1/mcp",
            "--listen",
            "127.0.0.1:0",
        ])
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(2));
}

#[test]
fn list_changes_and_resource_updates_behind_the_proxy_reach_the_front() {
    let proxy = over_http("patterns");
    for era in ["auto", "legacy"] {
        let mut listening = presa(&[
            "listen",
            "--json",
            "--resource",
            "file:///status.txt",
            "--era",
            era,
            "--",
            &proxy.url,
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
        let events = crate::common::lines_of(listening.stdout.take().unwrap());
        let said = crate::common::lines_of(listening.stderr.take().unwrap());
        assert!(said.recv_timeout(WAIT).unwrap().starts_with("listening"));

        let tool = format!("hello_{era}");
        let added = presa(&[
            "call",
            "add_tool",
            &format!("name={tool}"),
            "--",
            &proxy.url,
        ])
        .output()
        .unwrap();
        assert!(
            added.status.success(),
            "{}",
            String::from_utf8_lossy(&added.stderr)
        );
        let event: Value = serde_json::from_str(&events.recv_timeout(WAIT).unwrap()).unwrap();
        assert_eq!(event["event"], "tools/list_changed", "{era}: {event}");
        let tools = presa(&["tools", "--", &proxy.url]).output().unwrap();
        let tools = String::from_utf8_lossy(&tools.stdout);
        assert!(
            tools
                .lines()
                .any(|line| line.starts_with(&format!("{tool} ")) || line == tool),
            "{era}: {tools}"
        );
        // a resource update behind the proxy reaches a subscriber in front of it
        let set = presa(&["call", "set_status", "text=busy", "--", &proxy.url])
            .output()
            .unwrap();
        assert!(
            set.status.success(),
            "{}",
            String::from_utf8_lossy(&set.stderr)
        );
        let event: Value = serde_json::from_str(&events.recv_timeout(WAIT).unwrap()).unwrap();
        assert_eq!(
            event,
            json!({"event": "resources/updated", "uri": "file:///status.txt"}),
            "{era}"
        );
        let _ = listening.kill();
        let _ = listening.wait();
    }
}
