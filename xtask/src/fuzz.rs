//! `cargo xtask fuzz`: builds presa's cargo-fuzz targets (`crates/presa-fuzz`) on the nightly
//! toolchain and runs each for a while, seeded from the spec's example messages, the JSON
//! Schema test suite and a few hand-written inputs; prints per target the executions run, the
//! corpus size and the verdict.
//!
//! The corpus of each target grows in `target/fuzz/corpus/<target>` from run to run; a crash
//! leaves its input in `target/fuzz/artifacts/<target>/` (reproduce it with `cargo +nightly
//! fuzz run --fuzz-dir crates/presa-fuzz <target> <file>`) and makes the task fail.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{Value, json};

use crate::workspace_root;

pub(crate) const USAGE: &str = "usage: cargo xtask fuzz [options]

options:
  --seconds N     run each target for N seconds (default 60)
  --target NAME   run one target only (default: all of them)
  --jobs N        run N targets at a time, each in its own process (default: the number of
                  CPUs; libFuzzer runs one on each)
  --asan          build with AddressSanitizer (default: none; presa has no unsafe code)
  --opt-level N   the optimization level of the build (default 3); 1 builds in about two
                  thirds of the time, for a short run (CI's), at fewer executions a second

targets: jsonrpc_envelope typed_messages sep2243_headers uri_template cursor request_state
         schema sse oauth";

const TARGETS: [&str; 9] = [
    "jsonrpc_envelope",
    "typed_messages",
    "sep2243_headers",
    "uri_template",
    "cursor",
    "request_state",
    "schema",
    "sse",
    "oauth",
];

/// The build's optimization level, set for cargo fuzz's release profile.
const OPT_LEVEL: &str = "CARGO_PROFILE_RELEASE_OPT_LEVEL";

struct Options {
    seconds: u64,
    targets: Vec<&'static str>,
    asan: bool,
    jobs: usize,
    opt_level: String,
}

fn parse(args: &[String]) -> Result<Options, String> {
    let mut options = Options {
        seconds: 60,
        targets: TARGETS.to_vec(),
        asan: false,
        opt_level: "3".to_owned(),
        jobs: std::thread::available_parallelism().map_or(1, usize::from),
    };
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let mut value = || {
            args.next()
                .cloned()
                .ok_or_else(|| format!("{arg} needs a value"))
        };
        match arg.as_str() {
            "--seconds" => {
                let text = value()?;
                options.seconds =
                    text.parse().ok().filter(|s| *s > 0).ok_or_else(|| {
                        format!("--seconds takes a positive number, not {text:?}")
                    })?;
            }
            "--target" => {
                let name = value()?;
                let target = TARGETS
                    .iter()
                    .find(|t| **t == name)
                    .ok_or_else(|| format!("unknown target {name:?}"))?;
                options.targets = vec![target];
            }
            "--jobs" => {
                let text = value()?;
                options.jobs = text
                    .parse()
                    .ok()
                    .filter(|n| *n > 0)
                    .ok_or_else(|| format!("--jobs takes a positive number, not {text:?}"))?;
            }
            "--opt-level" => {
                let level = value()?;
                if !["0", "1", "2", "3"].contains(&level.as_str()) {
                    return Err(format!("--opt-level takes 0, 1, 2 or 3, not {level:?}"));
                }
                options.opt_level = level;
            }
            "--asan" => options.asan = true,
            other => return Err(format!("unknown option {other:?}")),
        }
    }
    Ok(options)
}

pub(crate) fn run(args: &[String]) -> ExitCode {
    let options = match parse(args) {
        Ok(options) => options,
        Err(error) => {
            eprintln!("xtask fuzz: {error}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match fuzz(&options) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(error) => {
            eprintln!("xtask fuzz: {error}");
            ExitCode::FAILURE
        }
    }
}

/// One target's run.
struct Outcome {
    target: &'static str,
    executions: u64,
    corpus: usize,
    crashed: bool,
}

fn fuzz(options: &Options) -> Result<bool, String> {
    let root = workspace_root();
    let dir = crate::target_dir().join("fuzz");
    ensure_cargo_fuzz()?;
    write_seeds(&root, &dir.join("seeds"))?;
    let sanitizer = if options.asan { "address" } else { "none" };
    let fuzz_dir = root.join("crates").join("presa-fuzz");
    // rustup's `cargo` (`+nightly` needs the proxy, not `CARGO`), with xtask's environment
    // as it is: the fuzz build has a target tree of its own, which nothing else builds in
    let status = Command::new("cargo")
        .current_dir(&root)
        .args(["+nightly", "fuzz", "build", "--fuzz-dir"])
        .arg(&fuzz_dir)
        .args([
            "--sanitizer",
            sanitizer,
            "--debug-assertions",
            "--target-dir",
        ])
        .arg(&dir)
        .env(OPT_LEVEL, &options.opt_level)
        .status()
        .map_err(|e| format!("cannot run cargo +nightly fuzz: {e}"))?;
    if !status.success() {
        return Err("building the fuzz targets failed".to_owned());
    }
    // `jobs` workers take the targets in order; each returns the outcomes it ran, with the
    // target's index in the list
    let next = AtomicUsize::new(0);
    let worker = || {
        let mut ran = Vec::new();
        loop {
            let index = next.fetch_add(1, Ordering::Relaxed);
            let Some(target) = options.targets.get(index) else {
                return ran;
            };
            let outcome = run_target(options, &root, &fuzz_dir, &dir, sanitizer, target);
            ran.push((index, outcome));
        }
    };
    let mut outcomes = Vec::new();
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..options.jobs.min(options.targets.len()))
            .map(|_| scope.spawn(worker))
            .collect();
        for worker in workers {
            let ran = worker
                .join()
                .map_err(|_| "a fuzz worker panicked".to_owned())?;
            outcomes.extend(ran);
        }
        Ok::<_, String>(())
    })?;
    outcomes.sort_by_key(|(index, _)| *index);
    let outcomes = outcomes
        .into_iter()
        .map(|(_, outcome)| outcome)
        .collect::<Result<Vec<_>, _>>()?;
    println!(
        "\n{:<18} {:>8} {:>14} {:>8}  result",
        "target", "seconds", "executions", "corpus"
    );
    for outcome in &outcomes {
        println!(
            "{:<18} {:>8} {:>14} {:>8}  {}",
            outcome.target,
            options.seconds,
            outcome.executions,
            outcome.corpus,
            if outcome.crashed {
                "CRASH (see target/fuzz/artifacts)"
            } else {
                "0 crashes"
            }
        );
    }
    Ok(outcomes.iter().all(|o| !o.crashed))
}

fn run_target(
    options: &Options,
    root: &Path,
    fuzz_dir: &Path,
    dir: &Path,
    sanitizer: &str,
    target: &'static str,
) -> Result<Outcome, String> {
    let corpus = dir.join("corpus").join(target);
    let artifacts = dir.join("artifacts").join(target);
    for made in [&corpus, &artifacts] {
        fs::create_dir_all(made).map_err(|e| format!("{}: {e}", made.display()))?;
    }
    println!("\n== {target}: {} s", options.seconds);
    let output = Command::new("cargo")
        .current_dir(root)
        .args(["+nightly", "fuzz", "run", "--fuzz-dir"])
        .arg(fuzz_dir)
        .args([
            "--sanitizer",
            sanitizer,
            "--debug-assertions",
            "--target-dir",
        ])
        .arg(dir)
        // as built: another level would build the targets again
        .env(OPT_LEVEL, &options.opt_level)
        .arg(target)
        .arg(&corpus)
        .arg(dir.join("seeds").join(target))
        .arg("--")
        .arg(format!("-max_total_time={}", options.seconds))
        .arg(format!("-artifact_prefix={}/", artifacts.display()))
        // an input that takes this long is a hang worth reporting
        .arg("-timeout=10")
        .arg("-print_final_stats=1")
        .stdout(Stdio::inherit())
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| format!("cannot run cargo +nightly fuzz: {e}"))?;
    let log = String::from_utf8_lossy(&output.stderr);
    let crashed = !output.status.success();
    if crashed {
        // libFuzzer's report: the failing assertion, the input and its artifact
        eprintln!("{log}");
    } else if let Some(done) = log.lines().rev().find(|l| l.starts_with("Done ")) {
        println!("{target}: {done}");
    }
    let executions = log
        .lines()
        .find_map(|l| l.strip_prefix("stat::number_of_executed_units:"))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_default();
    let corpus = fs::read_dir(&corpus).map(Iterator::count).unwrap_or(0);
    Ok(Outcome {
        target,
        executions,
        corpus,
        crashed,
    })
}

/// Installs the pinned cargo-fuzz unless it is there; the nightly toolchain must be.
fn ensure_cargo_fuzz() -> Result<(), String> {
    let nightly = Command::new("cargo")
        .args(["+nightly", "--version"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    if !nightly.is_ok_and(|s| s.success()) {
        return Err(
            "fuzzing needs the nightly toolchain (rustup toolchain install nightly)".into(),
        );
    }
    crate::tools::ensure(&crate::tools::CARGO_FUZZ)
}

/// Writes every target's seed inputs under `seeds/<target>/`, anew on each run.
fn write_seeds(root: &Path, seeds: &Path) -> Result<(), String> {
    let shared = root.parent().unwrap_or(root).join("shared");
    let examples = spec_examples(&shared.join("spec").join("schema"));
    let suite = schema_suite(&shared.join("json-schema-test-suite").join("draft2020-12"));
    let mut by_target: Vec<(&str, Vec<Vec<u8>>)> = Vec::new();

    let mut messages: Vec<Vec<u8>> = examples
        .iter()
        .map(|e| e.to_string().into_bytes())
        .collect();
    messages.push(br#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"}]"#.to_vec());
    messages.push(b"[1,1,1]".to_vec());
    by_target.push(("jsonrpc_envelope", messages.clone()));
    by_target.push(("typed_messages", messages));

    let mut headers: Vec<Vec<u8>> = [
        &b"  get_x  "[..],
        b"=?base64?SGVsbG8=?=",
        b"=?base64?SGVsbG8?=",
        b"Z\xc3\xbcrich",
        b"=?base64?=",
    ]
    .iter()
    .map(|v| v.to_vec())
    .collect();
    let schema = json!({"type": "object", "properties": {
        "region": {"type": "string", "x-mcp-header": "Region"},
        "count": {"type": "integer", "x-mcp-header": "Count"},
        "dry": {"type": "boolean", "x-mcp-header": "Dry-Run"}}});
    for arguments in [
        json!({"region": "us-west1", "count": 3, "dry": true}),
        json!({"region": " Zürich ", "count": 4.2e1}),
        json!({"region": "=?base64?literal?="}),
    ] {
        let case = json!({"method": "tools/call",
            "params": {"name": "execute_sql", "arguments": arguments}, "schema": schema});
        headers.push(case.to_string().into_bytes());
    }
    for (method, params) in [
        ("resources/read", json!({"uri": "file:///a b"})),
        ("prompts/get", json!({"name": "greet"})),
        ("tools/list", json!({})),
    ] {
        headers.push(
            json!({"method": method, "params": params})
                .to_string()
                .into_bytes(),
        );
    }
    by_target.push(("sep2243_headers", headers));

    by_target.push((
        "uri_template",
        [
            "file:///{+path}\0src/main.rs",
            "people://{id}\0a b",
            "test://template/{id}/data\0x123",
            "{a}-{b}\0x\0y-z",
            "db://{table}/{+rest}\0users\0a/b?c#d",
            "{a}{b}\0x\0y",
        ]
        .iter()
        .map(|s| s.as_bytes().to_vec())
        .collect(),
    ));
    by_target.push((
        "cursor",
        ["AQPIAQ", "AQAA", "", "AQ", "Af__________AQ"]
            .iter()
            .map(|s| s.as_bytes().to_vec())
            .collect(),
    ));
    by_target.push((
        "request_state",
        examples
            .iter()
            .take(40)
            .enumerate()
            .map(|(i, e)| json!([e, {"name": "x"}, i]).to_string().into_bytes())
            .chain([b"AQAAAAAAAAAA".to_vec()])
            .collect(),
    ));
    let mut schemas = suite;
    // inputs that once crashed a target, kept so that every run starts from them
    schemas.push(
        br##"[{"allOf":[{"$id":"http://a/b","$anchor":"x"},{"$id":"http://a/b","$ref":"#x"}]},1]"##
            .to_vec(),
    );
    by_target.push(("schema", schemas));
    by_target.push((
        "sse",
        [
            &b"\x05data: x\n\n"[..],
            b"\x01id: 1\nevent: message\ndata: {\"jsonrpc\":\"2.0\"}\n\n",
            b"\x03: comment\r\ndata: a\r\ndata: b\r\n\r\nretry: 10\n\n",
            b"\x02data\n\nid\nevent:\n\n",
        ]
        .iter()
        .map(|v| v.to_vec())
        .collect(),
    ));
    let mut oauth: Vec<Vec<u8>> = [
        "\0Bearer resource_metadata=\"https://mcp.example.com/.well-known/oauth-protected-resource\", scope=\"files:read files:write\"",
        "\0DPoP algs=\"ES256\", Bearer error=\"insufficient_scope\", scope=\"a\"",
        "\0Basic realm=\"x\", Bearer token68==, Newauth realm=\"apps\", type=1, title=\"Login to \\\"apps\\\"\"",
        "\x01{\"access_token\":\"t\",\"token_type\":\"Bearer\",\"expires_in\":3600,\"refresh_token\":\"r\",\"scope\":\"a b\"}",
        "\x01{\"access_token\":\"t\",\"expires_in\":\"18446744073709551615\"}",
        "\x01{\"issuer\":\"https://as.example.com\",\"authorization_endpoint\":\"https://as.example.com/authorize\",\"token_endpoint\":\"https://as.example.com/token\",\"code_challenge_methods_supported\":[\"S256\"]}",
        "\x01{\"resource\":\"https://mcp.example.com/mcp\",\"authorization_servers\":[\"https://as.example.com\"]}",
        "\x02https://as.example.com/token",
        "\x02http://127.1:9000/token",
        "\x02https://[::ffff:169.254.169.254]/",
        "\x02http://10.0.0.5/.well-known/x",
    ]
    .iter()
    .map(|s| s.as_bytes().to_vec())
    .collect();
    oauth.push(b"\x00Bearer \xff\xfe=\"\\".to_vec());
    by_target.push(("oauth", oauth));

    for (target, inputs) in by_target {
        let dir = seeds.join(target);
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        for (i, input) in inputs.iter().enumerate() {
            let file = dir.join(format!("seed-{i:04}"));
            fs::write(&file, input).map_err(|e| format!("{}: {e}", file.display()))?;
        }
    }
    Ok(())
}

/// Every example message of every revision (`<rev>/examples/<Type>/*.json`), parsed.
fn spec_examples(schema: &Path) -> Vec<Value> {
    let mut found = Vec::new();
    for revision in read_dir_sorted(schema) {
        for kind in read_dir_sorted(&revision.join("examples")) {
            for file in read_dir_sorted(&kind) {
                if let Some(value) = fs::read(&file)
                    .ok()
                    .and_then(|b| serde_json::from_slice::<Value>(&b).ok())
                {
                    found.push(value);
                }
            }
        }
    }
    found
}

/// `[schema, instance]` for every test of the JSON Schema test suite's draft 2020-12 files.
fn schema_suite(dir: &Path) -> Vec<Vec<u8>> {
    let mut cases = Vec::new();
    for file in read_dir_sorted(dir) {
        let Some(Value::Array(groups)) = fs::read(&file)
            .ok()
            .and_then(|b| serde_json::from_slice::<Value>(&b).ok())
        else {
            continue;
        };
        for group in &groups {
            for test in group["tests"].as_array().into_iter().flatten() {
                cases.push(
                    json!([group["schema"], test["data"]])
                        .to_string()
                        .into_bytes(),
                );
            }
        }
    }
    cases
}

fn read_dir_sorted(dir: &Path) -> Vec<PathBuf> {
    let mut entries: Vec<PathBuf> = fs::read_dir(dir)
        .map(|entries| entries.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    entries.sort();
    entries
}
