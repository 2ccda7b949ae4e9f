//! The `presa` command against presa's own example servers: the `library` example over stdio
//! and Streamable HTTP in both eras, and the `patterns` example for input requests, progress
//! and logs. Each test runs the built binary as a user would and reads what it printed.

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use crate::common::{Listening, WAIT, example, lines_of, presa};
use assert_cmd::assert::OutputAssertExt as _;
use serde_json::Value;

/// presa's example `name` on Streamable HTTP at 127.0.0.1.
fn http_example(name: &'static str) -> Listening {
    let mut command = Command::new(example(name));
    command.args(["--http", "127.0.0.1:0"]);
    Listening::start(command)
}

fn library() -> String {
    example("library").display().to_string()
}

fn patterns() -> String {
    example("patterns").display().to_string()
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Runs `presa` with `args`, expecting exit code `code`; returns what it printed.
fn run(args: &[&str], code: i32) -> Output {
    let output = presa(args).output().expect("presa runs");
    assert_eq!(
        output.status.code(),
        Some(code),
        "presa {args:?}\nstdout:\n{}\nstderr:\n{}",
        stdout(&output),
        stderr(&output)
    );
    output
}

/// A fresh folder of the test's, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Self {
        let path = std::env::temp_dir().join(format!("presa-cli-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).unwrap();
        Self(path)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Every subcommand against one server, in one era: `server` is what follows `--`.
fn every_subcommand(server: &[&str], era: &str, revision: &str) {
    let with = |args: &[&str]| -> Vec<String> {
        args.iter()
            .chain(&["--era", era, "--"])
            .chain(server)
            .map(|s| (*s).to_owned())
            .collect()
    };
    let run = |args: &[&str], code: i32| {
        let args = with(args);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        run(&args, code)
    };

    let info = stdout(&run(&["info"], 0));
    assert!(info.starts_with("library 0.1.0\n"), "{info}");
    assert!(info.contains(&format!("revision: {revision}\n")), "{info}");
    assert!(info.contains("tools"), "{info}");
    let info: Value = serde_json::from_str(&stdout(&run(&["info", "--json"], 0))).unwrap();
    assert_eq!(info["protocolVersion"], revision);

    let tools = stdout(&run(&["tools"], 0));
    let lines: Vec<&str> = tools.lines().collect();
    assert!(lines[0].starts_with("NAME"), "{tools}");
    assert!(lines.iter().any(|l| l.starts_with("add ")), "{tools}");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("logo ") && l.ends_with("A one-pixel PNG.")),
        "{tools}"
    );
    let listed: Value = serde_json::from_str(&stdout(&run(&["tools", "--json"], 0))).unwrap();
    assert_eq!(listed["tools"].as_array().unwrap().len(), 2);
    let schemas = stdout(&run(&["tools", "--schema"], 0));
    assert!(schemas.contains("add input: {"), "{schemas}");
    assert!(schemas.contains("add output: {"), "{schemas}");

    // arguments as pairs (JSON when they read as JSON) or as one JSON object
    assert_eq!(
        stdout(&run(&["call", "add", "numbers=[1,2,3]"], 0)),
        "{\"sum\":6}\n"
    );
    let called: Value = serde_json::from_str(&stdout(&run(
        &["call", "add", "--json", "{\"numbers\": [0.5, 2]}"],
        0,
    )))
    .unwrap();
    assert_eq!(called["structuredContent"]["sum"], 2.5);
    // a tool's error result: its text, exit 1
    let failed = run(&["call", "add", "numbers=[1e308,1e308]"], 1);
    assert!(
        stdout(&failed).contains("not a finite number"),
        "{}",
        stdout(&failed)
    );
    // the server's error: exit 2
    let unknown = run(&["call", "nope"], 2);
    assert!(stderr(&unknown).contains("nope"), "{}", stderr(&unknown));
    // arguments the tool's schema refuses: the tool's error result
    let bad = run(&["call", "add", "numbers=oops"], 1);
    assert!(stdout(&bad).contains("expected array"), "{}", stdout(&bad));

    // images summarized, or saved
    let shown = stdout(&run(&["call", "logo"], 0));
    assert_eq!(shown, "Here is the logo:\n[image image/png, 68 bytes]\n");
    let scratch = Scratch::new(&format!("save-{era}-{}", server.len()));
    let saved_to = scratch.0.display().to_string();
    let saved = stdout(&run(&["call", "logo", "--save", &saved_to], 0));
    assert!(saved.contains("saved to"), "{saved}");
    let png = std::fs::read(scratch.0.join("content-1.png")).unwrap();
    assert_eq!(&png[1..4], b"PNG");

    let resources = stdout(&run(&["resources"], 0));
    assert!(
        resources.contains("file:///readme.txt  readme  text/plain"),
        "{resources}"
    );
    let templates = stdout(&run(&["templates"], 0));
    assert!(templates.contains("people://{id}"), "{templates}");
    assert_eq!(
        stdout(&run(&["read", "file:///readme.txt"], 0)),
        "Read me first.\n"
    );
    assert_eq!(stdout(&run(&["read", "people://ada"], 0)), "Ada Lovelace\n");
    run(&["read", "people://nobody"], 2);

    let prompts = stdout(&run(&["prompts"], 0));
    assert!(prompts.contains("introduce  id"), "{prompts}");
    let prompt = stdout(&run(&["prompt", "introduce", "id=ada"], 0));
    assert!(
        prompt.contains("user:\nIntroduce Ada Lovelace in one sentence."),
        "{prompt}"
    );

    assert_eq!(
        stdout(&run(
            &["complete", "template", "people://{id}", "id", "a"],
            0
        )),
        "ada\nalan\n"
    );
    assert_eq!(
        stdout(&run(&["complete", "prompt", "introduce", "id", "al"], 0)),
        "alan\n"
    );

    let ping = stdout(&run(&["ping"], 0));
    let method = if era == "legacy" {
        "ping"
    } else {
        "server/discover"
    };
    assert!(
        ping.starts_with(&format!("{method}: answered in ")),
        "{ping}"
    );
}

#[test]
fn every_subcommand_over_stdio_in_both_eras() {
    let library = library();
    every_subcommand(&[&library], "auto", "2026-07-28");
    every_subcommand(&[&library], "legacy", "2025-11-25");
}

#[test]
fn every_subcommand_over_http_in_both_eras() {
    let server = http_example("library");
    every_subcommand(&[&server.url], "auto", "2026-07-28");
    every_subcommand(&[&server.url], "legacy", "2025-11-25");
    // a header must be NAME:VALUE
    run(&["tools", "--header", "X-Trace", "--", &server.url], 2);
}

#[test]
fn a_server_that_cannot_be_reached_is_a_transport_error() {
    let missing = run(&["tools", "--", "/nonexistent/presa-test-server"], 3);
    assert!(
        stderr(&missing).starts_with("presa: "),
        "{}",
        stderr(&missing)
    );
    // a port nothing listens on
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    run(&["tools", "--", &format!("http://127.0.0.1:{port}/mcp")], 3);
    // a server that exits at once
    run(&["tools", "--", "sh", "-c", "exit 0"], 3);
    // usage errors are clap's
    run(&["tools"], 2);
    run(&["tools", "--era", "1999-01-01", "--", "x"], 2);
}

#[test]
fn the_servers_input_requests_are_answered_from_the_command_line() {
    let patterns = patterns();
    for era in ["auto", "legacy"] {
        let call = |args: &[&str], code: i32| {
            let mut all: Vec<&str> = vec!["call"];
            all.extend(args);
            all.extend(["--era", era, "--", &patterns]);
            run(&all, code)
        };
        // elicitation: answered, declined, or refused without a terminal
        let answered = call(
            &["confirm_delete", "path=/tmp/x", "--answer", "sure=yes"],
            0,
        );
        assert_eq!(stdout(&answered), "deleted /tmp/x\n", "{era}");
        let declined = call(&["confirm_delete", "path=/tmp/x", "--decline"], 0);
        assert_eq!(stdout(&declined), "kept /tmp/x\n", "{era}");
        // what cannot be answered: on 2026-07-28 the call fails here (exit 2); in the
        // initialize era the server hears the refusal and its tool fails (exit 1)
        let refused = if era == "legacy" { 1 } else { 2 };
        let unable = call(&["confirm_delete", "path=/tmp/x"], refused);
        let said = format!("{}{}", stdout(&unable), stderr(&unable));
        assert!(said.contains("--answer"), "{era}: {said}");
        let wrong = call(
            &["confirm_delete", "path=/tmp/x", "--answer", "sure=maybe"],
            refused,
        );
        let said = format!("{}{}", stdout(&wrong), stderr(&wrong));
        assert!(said.contains("sure"), "{era}: {said}");

        // sampling: refused without a command (the client does not offer it), answered by one
        // (the server fails the whole request: exit 2 in both eras)
        let unsampled = call(&["summarize", "text=hello"], 2);
        let said = format!("{}{}", stdout(&unsampled), stderr(&unsampled));
        assert!(said.contains("sampling"), "{era}: {said}");
        let sampler = r#"cat > /dev/null; printf '{"role":"assistant","content":{"type":"text","text":"short"},"model":"shell"}'"#;
        let sampled = call(&["summarize", "text=hello", "--sampling-cmd", sampler], 0);
        assert_eq!(stdout(&sampled), "shell says: short\n", "{era}");

        // roots
        let scratch = Scratch::new(&format!("roots-{era}"));
        let root = scratch.0.display().to_string();
        let rooted = call(&["workspace", "--root", &root], 0);
        assert_eq!(
            stdout(&rooted).trim(),
            scratch.0.file_name().unwrap().to_str().unwrap(),
            "{era}"
        );

        // logs on stderr with their level; the result on stdout
        let counted = call(&["count", "to=2"], 0);
        assert_eq!(stdout(&counted), "counted to 2\n", "{era}");
        let logs = stderr(&counted);
        assert!(logs.contains("[info] {\"step\":1}"), "{era}: {logs}");
        assert!(logs.contains("[info] {\"step\":2}"), "{era}: {logs}");
        let quiet = call(&["count", "to=2", "--log-level", "error"], 0);
        assert!(
            !stderr(&quiet).contains("[info]"),
            "{era}: {}",
            stderr(&quiet)
        );
    }
}

#[test]
fn arguments_as_json_come_from_stdin_too() {
    let library = library();
    let mut child = presa(&["call", "add", "--json", "-", "--", &library])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write as _;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(br#"{"numbers": [40, 2]}"#)
        .unwrap();
    let output = child.wait_with_output().unwrap();
    output.clone().assert().success();
    let result: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(result["structuredContent"], serde_json::json!({"sum": 42}));
}

#[cfg(unix)]
#[test]
fn listen_prints_changes_until_interrupted() {
    let server = http_example("notes");
    for era in ["auto", "legacy"] {
        let mut listening = presa(&[
            "listen",
            "--json",
            "--resource",
            "notes://index",
            "--era",
            era,
            "--",
            &server.url,
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
        let events = lines_of(listening.stdout.take().unwrap());
        let said = lines_of(listening.stderr.take().unwrap());
        // subscribed before anything changes
        let ready = said.recv_timeout(WAIT).unwrap();
        assert!(ready.starts_with("listening"), "{era}: {ready}");

        run(
            &[
                "call",
                "add_note",
                "title=Milk",
                "body=Buy milk",
                "--",
                &server.url,
            ],
            0,
        );
        let mut seen = Vec::new();
        while seen.len() < 2 {
            let line = events
                .recv_timeout(WAIT)
                .unwrap_or_else(|_| panic!("{era}: saw {seen:?}"));
            seen.push(serde_json::from_str::<Value>(&line).unwrap());
        }
        seen.sort_by_key(|event| event["event"].as_str().map(str::to_owned));
        assert_eq!(
            seen,
            [
                serde_json::json!({"event": "resources/list_changed", "uri": null}),
                serde_json::json!({"event": "resources/updated", "uri": "notes://index"}),
            ],
            "{era}"
        );

        // Ctrl-C: the subscription ends, and so does the run, as interrupted
        let pid = listening.id().to_string();
        let sent = Command::new("kill").args(["-INT", &pid]).status().unwrap();
        assert!(sent.success());
        let status = listening.wait().unwrap();
        assert_eq!(status.code(), Some(130), "{era}");
    }
}

/// A tmux server of the test's own (its own socket), running one command in a terminal;
/// stopped by its PID when dropped.
#[cfg(unix)]
struct Terminal {
    socket: String,
    pid: Option<String>,
}

#[cfg(unix)]
impl Terminal {
    /// Runs `shell_command` in a new terminal of 120×40.
    fn run(name: &str, shell_command: &str) -> Self {
        presa_test::debian::ensure("tmux", "-V", "tmux");
        let socket = format!("presa-cli-{name}-{}", std::process::id());
        let started = Command::new("tmux")
            .args(["-L", &socket, "new-session", "-d", "-x", "120", "-y", "40"])
            .arg(shell_command)
            .status()
            .unwrap();
        assert!(started.success());
        let pid = Command::new("tmux")
            .args(["-L", &socket, "display-message", "-p", "#{pid}"])
            .output()
            .ok()
            .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_owned());
        Self { socket, pid }
    }

    /// What the terminal shows.
    fn screen(&self) -> String {
        let output = Command::new("tmux")
            .args(["-L", &self.socket, "capture-pane", "-p"])
            .output()
            .unwrap();
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    /// Waits until the terminal shows `text`.
    fn wait_for(&self, text: &str) {
        let deadline = std::time::Instant::now() + WAIT;
        loop {
            let screen = self.screen();
            if screen.contains(text) {
                return;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "the terminal never showed {text:?}:\n{screen}"
            );
            // polling what the terminal shows: tmux has no way to wait for text
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }

    /// Types `keys` (tmux key names, e.g. `Enter`).
    fn keys(&self, keys: &[&str]) {
        let sent = Command::new("tmux")
            .args(["-L", &self.socket, "send-keys"])
            .args(keys)
            .status()
            .unwrap();
        assert!(sent.success());
    }
}

#[cfg(unix)]
impl Drop for Terminal {
    fn drop(&mut self) {
        if let Some(pid) = &self.pid {
            let _ = Command::new("kill").arg(pid).status();
        }
    }
}

#[cfg(unix)]
#[test]
fn an_elicitation_is_answered_on_the_terminal() {
    let patterns = patterns();
    let scratch = Scratch::new("terminal");
    let out = scratch.0.join("out.txt");
    for era in ["auto", "legacy"] {
        // the result goes to a file; the form is asked on the terminal (stdin and stderr)
        let command = format!(
            "{presa} call onboard --era {era} --sampling-cmd {sampler} --root {root} -- {patterns} \
             > {out}; echo \"exit $?\"; sleep 600",
            presa = env!("CARGO_BIN_EXE_presa"),
            sampler = "'cat >/dev/null; printf \"{\\\"role\\\":\\\"assistant\\\",\\\"content\\\":{\\\"type\\\":\\\"text\\\",\\\"text\\\":\\\"hi\\\"},\\\"model\\\":\\\"m\\\"}\"'",
            root = scratch.0.display(),
            out = out.display(),
        );
        let terminal = Terminal::run(era, &command);
        terminal.wait_for("What is your name?");
        terminal.wait_for("Name:");
        terminal.keys(&["Ada", "Enter"]);
        terminal.wait_for("Send these answers?");
        terminal.keys(&["y"]);
        terminal.wait_for("exit 0");
        let result: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
        assert_eq!(result["name"], "Ada", "{era}: {result}");
        assert_eq!(result["welcome"], "hi", "{era}: {result}");

        // declined at the last question: the tool goes on without the answers
        let terminal = Terminal::run(
            &format!("{era}-declined"),
            &command.replace("onboard", "confirm_delete path=/tmp/x"),
        );
        terminal.wait_for("Delete /tmp/x?");
        terminal.keys(&["y"]);
        terminal.wait_for("Send these answers?");
        terminal.keys(&["n"]);
        terminal.wait_for("exit 0");
        assert_eq!(
            std::fs::read_to_string(&out).unwrap(),
            "kept /tmp/x\n",
            "{era}"
        );
    }
}

#[cfg(unix)]
#[test]
fn ctrl_c_cancels_the_call_in_the_server_then_exits() {
    let countdown = example("countdown").display().to_string();
    for era in ["auto", "legacy"] {
        let mut calling = presa(&[
            "call",
            "countdown",
            "seconds=600",
            "--era",
            era,
            "--",
            &countdown,
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
        // the server's log of its first step, then its own stderr, come on presa's stderr
        let said = lines_of(calling.stderr.take().unwrap());
        let started = said
            .recv_timeout(WAIT)
            .unwrap_or_else(|_| panic!("{era}: no first step"));
        assert!(started.contains("\"left\":600"), "{era}: {started}");
        let pid = calling.id().to_string();
        assert!(
            Command::new("kill")
                .args(["-INT", &pid])
                .status()
                .unwrap()
                .success()
        );
        // the server hears the cancellation: its handler stops before liftoff
        loop {
            let line = said
                .recv_timeout(WAIT)
                .unwrap_or_else(|_| panic!("{era}: the countdown was not cancelled"));
            if line.contains("countdown stopped before liftoff") {
                break;
            }
        }
        assert_eq!(calling.wait().unwrap().code(), Some(130), "{era}");
    }
}
