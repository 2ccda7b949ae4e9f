//! The measured processes: starting them (pinned), and reading their CPU time and memory from
//! `/proc`.

use std::path::Path;
use std::process::Stdio;

use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

/// A command for `program`, pinned to `cpus` with `taskset` when given. `taskset` execs the
/// program, so the child's pid is the program's.
pub(super) fn command(program: &Path, cpus: Option<&str>) -> Command {
    let mut command = match cpus {
        Some(cpus) => {
            let mut command = Command::new("taskset");
            command.arg("-c").arg(cpus).arg(program);
            command
        }
        None => Command::new(program),
    };
    command.kill_on_drop(true).stderr(Stdio::inherit());
    command
}

/// A server process listening on HTTP.
#[derive(Debug)]
pub(super) struct HttpServer {
    /// The process; killed when dropped.
    pub(super) child: Child,
    /// Its pid, for `/proc`.
    pub(super) pid: u32,
    /// `127.0.0.1:PORT`.
    pub(super) address: String,
    /// The MCP path, e.g. `/mcp`.
    pub(super) path: String,
}

impl HttpServer {
    /// Kills the server and reaps it.
    pub(super) async fn stop(&mut self) {
        let _ = self.child.kill().await;
    }
}

/// Starts `program` with `args` and waits for its `listening http://HOST:PORT/PATH` line.
pub(super) async fn start_http(
    program: &Path,
    args: &[&str],
    cpus: Option<&str>,
) -> Result<HttpServer, String> {
    let mut child = command(program, cpus)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", program.display()))?;
    let pid = child.id().ok_or("the server exited at once")?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let mut line = String::new();
    BufReader::new(stdout)
        .read_line(&mut line)
        .await
        .map_err(|e| format!("reading the server's first line: {e}"))?;
    let url = line
        .trim()
        .strip_prefix("listening http://")
        .ok_or_else(|| format!("unexpected first line from the server: {line:?}"))?;
    let (address, path) = url.split_once('/').unwrap_or((url, "mcp"));
    Ok(HttpServer {
        child,
        pid,
        address: address.to_owned(),
        path: format!("/{path}"),
    })
}

/// Clock ticks per second of `/proc/<pid>/stat` times (`getconf CLK_TCK`, else 100).
pub(super) fn clock_ticks() -> f64 {
    std::process::Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|out| String::from_utf8(out.stdout).ok())
        .and_then(|text| text.trim().parse().ok())
        .unwrap_or(100.0)
}

/// User plus system CPU time of `pid` (all its threads) so far, in clock ticks.
pub(super) fn cpu_ticks(pid: u32) -> Result<u64, String> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map_err(|e| format!("/proc/{pid}/stat: {e}"))?;
    // the command name (field 2) may hold spaces: count fields after its closing parenthesis,
    // where field 3 (state) is index 0, so utime (14) is 11 and stime (15) is 12
    let after = stat.rsplit_once(')').map(|(_, rest)| rest).unwrap_or("");
    let fields: Vec<&str> = after.split_whitespace().collect();
    let field = |i: usize| -> Result<u64, String> {
        fields
            .get(i)
            .and_then(|f| f.parse().ok())
            .ok_or_else(|| format!("/proc/{pid}/stat: no field {}", i + 3))
    };
    Ok(field(11)? + field(12)?)
}

/// A `kB` line of `/proc/<pid>/status` (`VmHWM`, `VmRSS`), in KiB.
pub(super) fn status_kib(pid: u32, key: &str) -> Result<u64, String> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))
        .map_err(|e| format!("/proc/{pid}/status: {e}"))?;
    status
        .lines()
        .find_map(|line| line.strip_prefix(key)?.strip_prefix(':'))
        .and_then(|value| value.trim().trim_end_matches("kB").trim().parse().ok())
        .ok_or_else(|| format!("/proc/{pid}/status has no {key}"))
}

/// The run a measuring program (`in_process`, a client of the client-http-64 row) reported on
/// its stdout: one JSON line `{"calls", "seconds", "p50_us", "p99_us"}`.
pub(super) fn report(stdout: &[u8], program: &Path) -> Result<super::measure::Run, String> {
    let report: serde_json::Value = serde_json::from_slice(stdout)
        .map_err(|e| format!("{} printed no report: {e}", program.display()))?;
    let number = |key: &str| report[key].as_f64().unwrap_or(0.0);
    Ok(super::measure::Run {
        throughput: number("calls") / number("seconds").max(f64::MIN_POSITIVE),
        p50_us: number("p50_us") as u32,
        p99_us: number("p99_us") as u32,
        cpu_us: None,
        peak_rss_kib: None,
    })
}
