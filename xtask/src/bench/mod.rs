//! `cargo xtask bench`: the load driver of presa's performance targets (docs/performance.md).
//!
//! Builds the examples in release, then measures each row against its baseline: the `library`
//! example over HTTP and stdio, a plain axum handler (`bench_axum_baseline`) and a raw
//! serde_json stdio loop (`bench_stdio_baseline`), and the in-process client/server
//! (`bench_in_process`). Each run has a warm-up that is not counted and a bounded measured
//! window, and is repeated; the table shows medians.
//!
//! Pinning: after building (on every CPU), `cargo xtask bench` re-executes the driver's release
//! build; when two or more CPUs exist it runs under `taskset -c 1` and starts every server under
//! `taskset -c 0`, so server and
//! driver never share a CPU. The in-process row runs on every CPU. The driver is one tokio
//! current-thread runtime; the HTTP load is a hand-rolled keep-alive HTTP/1.1 client on raw TCP
//! with TCP_NODELAY (the servers set it too). Server CPU time comes from `/proc/<pid>/stat`
//! (utime + stime over the measured window) and peak RSS from `VmHWM` in `/proc/<pid>/status`.

mod cluster;
mod http;
mod process;
pub(crate) mod soak;
mod stdio;
mod tasks;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use tokio::net::TcpStream;

use http::Era;

use crate::workspace_root;

pub(crate) const USAGE: &str = "usage: cargo xtask bench [options]

options:
  --warmup SECS      warm-up of each run, not counted (default 2)
  --duration SECS    measured window of each run (default 5)
  --repeats N        runs per row and side; the table shows medians (default 3)
  --row NAME         run one row: http-64, http-1, http-session-64, stdio-seq, stdio-64,
                     in-process, idle-sessions, tasks, observed-http-64-none,
                     observed-http-64-spans, observed-http-64-metrics, observed-stdio-64-none,
                     observed-stdio-64-spans, observed-stdio-64-metrics (default: all), or with --cluster
                     cluster-session-64, cluster-2026-64, fanout-10k
  --cluster          run the scale-out rows instead: library replicas on Redis behind nginx,
                     and 10,000 listens over three notes replicas (installs redis-server and
                     nginx with apt-get when missing)
  --sessions N       sessions of the idle-sessions row (default 10000)
  --tasks N          tasks of the tasks row (default 10000)
  --no-build         use the release examples already built
  --no-pin           do not pin server and driver to different CPUs";

/// Set in the re-executed release driver: the number of CPUs to pin across, 0 for no pinning.
const DRIVER: &str = "PRESA_BENCH_CPUS";

/// The scale-out rows, run with `--cluster`.
const CLUSTER_ROWS: [&str; 3] = ["cluster-session-64", "cluster-2026-64", "fanout-10k"];

const ROWS: [&str; 8] = [
    "http-64",
    "http-1",
    "http-session-64",
    "stdio-seq",
    "stdio-64",
    "in-process",
    "idle-sessions",
    "tasks",
];

/// The cost of observing: `bench_observed` (the `library` server built with `otel`) in one
/// state against `library` as it ships, on Streamable HTTP or stdio with 64 requests in flight.
/// Each row: its name, whether it is HTTP, `bench_observed`'s flags, and the most server CPU
/// per request it may cost against `library` (none for a subscriber that wants every span).
const OBSERVED_ROWS: [(&str, bool, &[&str], Option<f64>); 6] = [
    ("observed-http-64-none", true, &[], Some(1.02)),
    ("observed-http-64-spans", true, &["--spans"], None),
    ("observed-http-64-metrics", true, &["--metrics"], Some(1.10)),
    ("observed-stdio-64-none", false, &[], Some(1.02)),
    ("observed-stdio-64-spans", false, &["--spans"], None),
    (
        "observed-stdio-64-metrics",
        false,
        &["--metrics"],
        Some(1.10),
    ),
];

/// What the command line asked for.
#[derive(Debug, Clone)]
struct Options {
    warmup: Duration,
    duration: Duration,
    repeats: usize,
    row: Option<String>,
    sessions: usize,
    tasks: usize,
    build: bool,
    pin: bool,
    /// The scale-out rows instead of the others.
    cluster: bool,
}

fn parse(args: &[String]) -> Result<Options, String> {
    let mut options = Options {
        warmup: Duration::from_secs(2),
        duration: Duration::from_secs(5),
        repeats: 3,
        row: None,
        sessions: 10_000,
        tasks: 10_000,
        build: true,
        pin: true,
        cluster: false,
    };
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{arg} needs a value"));
        let seconds = |v: &String| {
            v.parse::<f64>()
                .ok()
                .filter(|s| *s >= 0.0 && s.is_finite())
                .map(Duration::from_secs_f64)
                .ok_or_else(|| format!("not a number of seconds: {v}"))
        };
        match arg.as_str() {
            "--warmup" => options.warmup = seconds(value()?)?,
            "--duration" => options.duration = seconds(value()?)?,
            "--repeats" => {
                let v = value()?;
                options.repeats = v
                    .parse()
                    .ok()
                    .filter(|n| *n > 0)
                    .ok_or_else(|| format!("not a positive count: {v}"))?;
            }
            "--sessions" => {
                let v = value()?;
                options.sessions = v.parse().map_err(|_| format!("not a count: {v}"))?;
            }
            "--tasks" => {
                let v = value()?;
                options.tasks = v.parse().map_err(|_| format!("not a count: {v}"))?;
            }
            "--row" => {
                let v = value()?;
                let observed = OBSERVED_ROWS.iter().any(|(name, ..)| name == v);
                if !ROWS.contains(&v.as_str()) && !CLUSTER_ROWS.contains(&v.as_str()) && !observed {
                    return Err(format!("unknown row {v:?}"));
                }
                options.row = Some(v.clone());
            }
            "--no-build" => options.build = false,
            "--cluster" => options.cluster = true,
            "--no-pin" => options.pin = false,
            other => return Err(format!("unknown option {other:?}")),
        }
    }
    if let Some(row) = &options.row
        && options.cluster != CLUSTER_ROWS.contains(&row.as_str())
    {
        return Err(format!(
            "row {row:?} {} --cluster",
            if options.cluster {
                "is not run with"
            } else {
                "needs"
            }
        ));
    }
    Ok(options)
}

/// Runs `cargo xtask bench`.
pub(crate) fn run(args: &[String]) -> ExitCode {
    match try_run(args) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("xtask bench: {error}");
            ExitCode::FAILURE
        }
    }
}

fn try_run(args: &[String]) -> Result<ExitCode, String> {
    let options = parse(args)?;
    // the outer run builds, then re-executes the release driver (pinned to CPU 1 when it can)
    let Some(cpus) = std::env::var(DRIVER)
        .ok()
        .and_then(|n| n.parse::<usize>().ok())
    else {
        if options.build {
            build(options.cluster)?;
        }
        let available = std::thread::available_parallelism().map_or(1, usize::from);
        let pin = options.pin && available >= 2;
        if !pin {
            eprintln!("xtask bench: not pinning (one CPU, or --no-pin): numbers are noisier");
        }
        let cpus = if pin { available } else { 0 };
        return Ok(
            if release_driver("bench", args, pin, (DRIVER, &cpus.to_string()))? {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            },
        );
    };
    let pinned_cpus = (cpus > 0).then_some(cpus);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let bench = Bench {
        examples: examples_dir(),
        server_cpus: pinned_cpus.map(|_| "0".to_owned()),
        all_cpus: pinned_cpus.map(|n| format!("0-{}", n.saturating_sub(1))),
        ticks: process::clock_ticks(),
        options,
    };
    let rows = if bench.options.cluster {
        runtime.block_on(bench.cluster_rows())?
    } else {
        runtime.block_on(bench.rows())?
    };
    print_table(&rows);
    Ok(ExitCode::SUCCESS)
}

/// Runs `task` with `args` again in the release build of xtask (pinned to CPU 1 when `pin`),
/// with `env` set so that it knows it is the driver; whether it succeeded.
pub(super) fn release_driver(
    task: &str,
    args: &[String],
    pin: bool,
    env: (&str, &str),
) -> Result<bool, String> {
    let driver = examples_dir()
        .parent()
        .map(|release| release.join("xtask"))
        .ok_or("no release directory")?;
    let mut command = if pin {
        let mut command = Command::new("taskset");
        command.args(["-c", "1"]).arg(driver);
        command
    } else {
        Command::new(driver)
    };
    let status = command
        .arg(task)
        .args(args)
        .env(env.0, env.1)
        .status()
        .map_err(|e| format!("cannot run the release driver: {e}"))?;
    Ok(status.success())
}

/// `cargo build --release -p presa --examples -p xtask --bins`: the servers, and the driver
/// itself optimized (`cargo xtask` runs a debug build); for the scale-out rows, the examples
/// with the `redis` feature; then `bench_observed` with `otel`.
fn build(cluster: bool) -> Result<(), String> {
    let mut args = vec!["build", "--release", "-p", "presa", "--examples"];
    if cluster {
        args.extend(["--features", "redis"]);
    }
    args.extend(["-p", "xtask", "--bins"]);
    cargo_build(&args)?;
    // apart, so that `otel` reaches bench_observed and not the examples it is compared with
    cargo_build(&[
        "build",
        "--release",
        "-p",
        "presa",
        "--example",
        "bench_observed",
        "--features",
        "otel",
    ])
}

fn cargo_build(args: &[&str]) -> Result<(), String> {
    eprintln!("xtask bench: cargo {}", args.join(" "));
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let status = Command::new(cargo)
        .args(args)
        .current_dir(workspace_root())
        .stdin(Stdio::null())
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err("the release build failed".to_owned())
    }
}

fn examples_dir() -> PathBuf {
    crate::target_dir().join("release").join("examples")
}

/// One measured run of one side.
#[derive(Debug, Clone, Default)]
struct Run {
    /// Requests (or calls) per second over the measured window.
    throughput: f64,
    p50_us: u32,
    p99_us: u32,
    /// Server CPU time per request, in microseconds.
    cpu_us: Option<f64>,
    /// Server peak RSS, in KiB.
    peak_rss_kib: Option<u64>,
}

/// A row of the table.
#[derive(Debug)]
struct Row {
    name: &'static str,
    presa: Run,
    baseline: Option<Run>,
    /// The target, as text, and whether it is met.
    target: String,
    met: bool,
}

/// The medians of `runs` (the peak RSS is the maximum).
fn median(runs: &[Run]) -> Run {
    let mid = |mut values: Vec<f64>| {
        values.sort_by(f64::total_cmp);
        values.get(values.len() / 2).copied().unwrap_or(0.0)
    };
    let cpu: Vec<f64> = runs.iter().filter_map(|r| r.cpu_us).collect();
    Run {
        throughput: mid(runs.iter().map(|r| r.throughput).collect()),
        p50_us: mid(runs.iter().map(|r| f64::from(r.p50_us)).collect()) as u32,
        p99_us: mid(runs.iter().map(|r| f64::from(r.p99_us)).collect()) as u32,
        cpu_us: (!cpu.is_empty()).then(|| mid(cpu)),
        peak_rss_kib: runs.iter().filter_map(|r| r.peak_rss_kib).max(),
    }
}

/// Sorts `latencies` and summarizes them with the server's CPU ticks over the window.
fn summarize(mut latencies: Vec<u32>, seconds: f64, cpu: Option<(f64, u64)>) -> Run {
    latencies.sort_unstable();
    let at = |q: f64| {
        let last = latencies.len().saturating_sub(1);
        latencies
            .get((last as f64 * q) as usize)
            .copied()
            .unwrap_or(0)
    };
    let requests = latencies.len() as f64;
    Run {
        throughput: requests / seconds,
        p50_us: at(0.50),
        p99_us: at(0.99),
        cpu_us: cpu
            .map(|(ticks_per_s, ticks)| ticks as f64 / ticks_per_s * 1e6 / requests.max(1.0)),
        peak_rss_kib: None,
    }
}

/// Reads the server's CPU ticks at `warm` and at `stop`; returns the ticks in between and the
/// peak RSS (KiB) at `stop`, while the server surely runs.
async fn cpu_window(pid: u32, warm: Instant, stop: Instant) -> Result<(u64, u64), String> {
    tokio::time::sleep_until(warm.into()).await;
    let before = process::cpu_ticks(pid)?;
    tokio::time::sleep_until(stop.into()).await;
    let ticks = process::cpu_ticks(pid)?.saturating_sub(before);
    Ok((ticks, process::status_kib(pid, "VmHWM")?))
}

#[derive(Debug)]
struct Bench {
    examples: PathBuf,
    /// `taskset -c` list for servers, when pinning.
    server_cpus: Option<String>,
    /// `taskset -c` list of every CPU, when pinning (the driver itself is on CPU 1).
    all_cpus: Option<String>,
    ticks: f64,
    options: Options,
}

impl Bench {
    fn wanted(&self, row: &str) -> bool {
        self.options.row.as_deref().is_none_or(|r| r == row)
    }

    fn window(&self) -> (Instant, Instant) {
        let warm = Instant::now() + self.options.warmup;
        (warm, warm + self.options.duration)
    }

    async fn rows(&self) -> Result<Vec<Row>, String> {
        let library = self.examples.join("library");
        let axum = self.examples.join("bench_axum_baseline");
        let raw = self.examples.join("bench_stdio_baseline");
        let mut rows = Vec::new();
        let http_rows = [
            ("http-64", 64, Era::Stateless),
            ("http-1", 1, Era::Stateless),
            ("http-session-64", 64, Era::Session),
        ];
        for (name, connections, era) in http_rows {
            if !self.wanted(name) {
                continue;
            }
            let (mut presa, mut base) = (Vec::new(), Vec::new());
            for repeat in 1..=self.options.repeats {
                eprintln!("{name}: run {repeat}/{}", self.options.repeats);
                presa.push(
                    self.http(&library, &["--http", "127.0.0.1:0"], connections, era)
                        .await?,
                );
                base.push(self.http(&axum, &["127.0.0.1:0"], connections, era).await?);
            }
            let (presa, base) = (median(&presa), median(&base));
            let ratio = presa.throughput / base.throughput;
            let (target, met) = match name {
                "http-64" => {
                    let cpu =
                        presa.cpu_us.unwrap_or(f64::MAX) / base.cpu_us.unwrap_or(f64::MIN_POSITIVE);
                    let rss = presa.peak_rss_kib.unwrap_or(u64::MAX);
                    rows.push(Row {
                        name: "http-64 peak RSS",
                        presa: presa.clone(),
                        baseline: None,
                        target: format!("≤ 8 MiB (got {:.1})", rss as f64 / 1024.0),
                        met: rss <= 8 * 1024,
                    });
                    (
                        format!("≥ 0.70×; CPU/req ≤ 2× (got {cpu:.2}×)"),
                        ratio >= 0.70 && cpu <= 2.0,
                    )
                }
                "http-1" => {
                    let p99 = f64::from(presa.p99_us) / f64::from(base.p99_us.max(1));
                    (
                        format!("≥ 0.85×; p99 ≤ 1.5× (got {p99:.2}×)"),
                        ratio >= 0.85 && p99 <= 1.5,
                    )
                }
                _ => ("≥ 0.60×".to_owned(), ratio >= 0.60),
            };
            rows.insert(
                rows.len().saturating_sub(usize::from(name == "http-64")),
                Row {
                    name,
                    presa,
                    baseline: Some(base),
                    target,
                    met,
                },
            );
        }
        for (name, window) in [("stdio-seq", 1), ("stdio-64", 64)] {
            if !self.wanted(name) {
                continue;
            }
            let (mut presa, mut base) = (Vec::new(), Vec::new());
            for repeat in 1..=self.options.repeats {
                eprintln!("{name}: run {repeat}/{}", self.options.repeats);
                presa.push(self.stdio(&library, &[], window).await?);
                base.push(self.stdio(&raw, &[], window).await?);
            }
            let (presa, base) = (median(&presa), median(&base));
            let ratio = presa.throughput / base.throughput;
            let (target, met) = if window == 1 {
                ("≥ 0.90×".to_owned(), ratio >= 0.90)
            } else {
                let cpu = presa.cpu_us.unwrap_or(f64::MAX);
                (
                    "≥ 0.35×; CPU/call ≤ 4 µs".to_owned(),
                    ratio >= 0.35 && cpu <= 4.0,
                )
            };
            rows.push(Row {
                name,
                presa,
                baseline: Some(base),
                target,
                met,
            });
        }
        if self.wanted("in-process") {
            let mut runs = Vec::new();
            for repeat in 1..=self.options.repeats {
                eprintln!("in-process: run {repeat}/{}", self.options.repeats);
                runs.push(self.in_process().await?);
            }
            let presa = median(&runs);
            let met = presa.throughput >= 150_000.0;
            rows.push(Row {
                name: "in-process",
                presa,
                baseline: None,
                target: "≥ 150,000 calls/s".to_owned(),
                met,
            });
        }
        if self.wanted("idle-sessions") {
            eprintln!("idle-sessions: {} sessions", self.options.sessions);
            let (presa, above_mib) = self.idle_sessions(&library).await?;
            rows.push(Row {
                name: "idle-sessions",
                presa,
                baseline: None,
                target: format!("≤ 40 MiB above idle (got {above_mib:.1})"),
                met: above_mib <= 40.0,
            });
        }
        if self.wanted("tasks") {
            eprintln!("tasks: {} tasks", self.options.tasks);
            let (presa, start_mib, expired_mib) = self.tasks().await?;
            let peak = presa.peak_rss_kib.unwrap_or(0) as f64 / 1024.0;
            rows.push(Row {
                name: "tasks",
                presa,
                baseline: None,
                target: format!(
                    "RSS after expiry ≤ 1.10× start (got {expired_mib:.1} vs {start_mib:.1}; peak {peak:.1})"
                ),
                met: expired_mib <= start_mib * 1.10,
            });
        }
        let observed = self.examples.join("bench_observed");
        for (name, http, flags, most) in OBSERVED_ROWS {
            if !self.wanted(name) {
                continue;
            }
            let (mut presa, mut base) = (Vec::new(), Vec::new());
            for repeat in 1..=self.options.repeats {
                eprintln!("{name}: run {repeat}/{}", self.options.repeats);
                if http {
                    let mut args = vec!["--http", "127.0.0.1:0"];
                    args.extend(flags);
                    presa.push(self.http(&observed, &args, 64, Era::Stateless).await?);
                    base.push(
                        self.http(&library, &["--http", "127.0.0.1:0"], 64, Era::Stateless)
                            .await?,
                    );
                } else {
                    presa.push(self.stdio(&observed, flags, 64).await?);
                    base.push(self.stdio(&library, &[], 64).await?);
                }
            }
            let (presa, base) = (median(&presa), median(&base));
            let cost = presa.cpu_us.unwrap_or(f64::MAX) / base.cpu_us.unwrap_or(f64::MIN_POSITIVE);
            let (target, met) = match most {
                Some(most) => (
                    format!("CPU/req ≤ {most:.2}× library (got {cost:.2}×)"),
                    cost <= most,
                ),
                None => (format!("none (CPU/req {cost:.2}× library)"), true),
            };
            rows.push(Row {
                name,
                presa,
                baseline: Some(base),
                target,
                met,
            });
        }
        Ok(rows)
    }

    /// One HTTP run against a fresh server.
    async fn http(
        &self,
        program: &Path,
        args: &[&str],
        connections: usize,
        era: Era,
    ) -> Result<Run, String> {
        let mut server = process::start_http(program, args, self.server_cpus.as_deref()).await?;
        let (warm, stop) = self.window();
        let tasks: Vec<_> = (0..connections)
            .map(|_| {
                tokio::spawn(http::connection(
                    server.address.clone(),
                    server.path.clone(),
                    era,
                    warm,
                    stop,
                ))
            })
            .collect();
        let (cpu, peak) = cpu_window(server.pid, warm, stop).await?;
        let mut latencies = Vec::new();
        for task in tasks {
            latencies.extend(task.await.map_err(|e| e.to_string())??);
        }
        server.stop().await;
        let mut run = summarize(
            latencies,
            self.options.duration.as_secs_f64(),
            Some((self.ticks, cpu)),
        );
        run.peak_rss_kib = Some(peak);
        Ok(run)
    }

    /// One stdio run against a fresh server.
    async fn stdio(&self, program: &Path, args: &[&str], window: usize) -> Result<Run, String> {
        let mut child = process::command(program, self.server_cpus.as_deref())
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", program.display()))?;
        let pid = child.id().ok_or("the server exited at once")?;
        // kept open until the measurement is read: the server exits on end of input
        let mut stdin = child.stdin.take().ok_or("no stdin")?;
        let mut stdout = child.stdout.take().ok_or("no stdout")?;
        let (warm, stop) = self.window();
        let (latencies, cpu) = tokio::join!(
            stdio::load(&mut stdin, &mut stdout, window, warm, stop),
            cpu_window(pid, warm, stop)
        );
        let _ = child.kill().await;
        let (cpu, peak) = cpu?;
        let mut run = summarize(
            latencies?,
            self.options.duration.as_secs_f64(),
            Some((self.ticks, cpu)),
        );
        run.peak_rss_kib = Some(peak);
        Ok(run)
    }

    /// One run of the `bench_in_process` example, on every CPU.
    async fn in_process(&self) -> Result<Run, String> {
        let program = self.examples.join("bench_in_process");
        let output = process::command(&program, self.all_cpus.as_deref())
            .args(["--callers", "64"])
            .arg("--warmup")
            .arg(self.options.warmup.as_secs_f64().to_string())
            .arg("--duration")
            .arg(self.options.duration.as_secs_f64().to_string())
            .stdin(Stdio::null())
            .output()
            .await
            .map_err(|e| format!("cannot run {}: {e}", program.display()))?;
        if !output.status.success() {
            return Err(format!("{} failed", program.display()));
        }
        let report: serde_json::Value = serde_json::from_slice(&output.stdout)
            .map_err(|e| format!("bench_in_process printed no report: {e}"))?;
        let number = |key: &str| report[key].as_f64().unwrap_or(0.0);
        Ok(Run {
            throughput: number("calls") / number("seconds").max(f64::MIN_POSITIVE),
            p50_us: number("p50_us") as u32,
            p99_us: number("p99_us") as u32,
            cpu_us: None,
            peak_rss_kib: None,
        })
    }

    /// Opens `sessions` initialize-era sessions one after another and leaves them idle;
    /// returns the run (peak RSS) and the RSS growth over the idle server, in MiB.
    async fn idle_sessions(&self, library: &Path) -> Result<(Run, f64), String> {
        let mut server = process::start_http(
            library,
            &["--http", "127.0.0.1:0"],
            self.server_cpus.as_deref(),
        )
        .await?;
        tokio::time::sleep(Duration::from_millis(200)).await;
        let idle = process::status_kib(server.pid, "VmRSS")?;
        let mut stream = TcpStream::connect(&server.address)
            .await
            .map_err(|e| format!("connect {}: {e}", server.address))?;
        stream.set_nodelay(true).map_err(|e| e.to_string())?;
        let mut buf = Vec::new();
        let start = Instant::now();
        for _ in 0..self.options.sessions {
            let session =
                http::open_session(&mut stream, &mut buf, &server.address, &server.path).await?;
            if session.is_none() {
                return Err("the server gave no Mcp-Session-Id".to_owned());
            }
        }
        let seconds = start.elapsed().as_secs_f64();
        tokio::time::sleep(Duration::from_millis(500)).await;
        let after = process::status_kib(server.pid, "VmRSS")?;
        let peak = process::status_kib(server.pid, "VmHWM")?;
        let above = after.saturating_sub(idle) as f64 / 1024.0;
        server.stop().await;
        let run = Run {
            throughput: self.options.sessions as f64 / seconds,
            peak_rss_kib: Some(peak),
            ..Run::default()
        };
        Ok((run, above))
    }
}

fn print_table(rows: &[Row]) {
    println!();
    println!(
        "| row | presa /s | baseline /s | ratio | target | p50/p99 µs presa (baseline) | server CPU µs/req presa (baseline) | peak RSS MiB presa (baseline) | met |"
    );
    println!("|---|---:|---:|---:|---|---|---|---|---|");
    let mib = |run: &Run| {
        run.peak_rss_kib
            .map_or("-".to_owned(), |k| format!("{:.1}", k as f64 / 1024.0))
    };
    let cpu = |run: &Run| run.cpu_us.map_or("-".to_owned(), |c| format!("{c:.1}"));
    for row in rows {
        let p = &row.presa;
        let (base, ratio, lat, cpus, rss) = match &row.baseline {
            Some(b) => (
                format!("{:.0}", b.throughput),
                format!("{:.2}×", p.throughput / b.throughput),
                format!("{}/{} ({}/{})", p.p50_us, p.p99_us, b.p50_us, b.p99_us),
                format!("{} ({})", cpu(p), cpu(b)),
                format!("{} ({})", mib(p), mib(b)),
            ),
            None => (
                "-".to_owned(),
                "-".to_owned(),
                format!("{}/{}", p.p50_us, p.p99_us),
                cpu(p),
                mib(p),
            ),
        };
        println!(
            "| {} | {:.0} | {base} | {ratio} | {} | {lat} | {cpus} | {rss} | {} |",
            row.name,
            p.throughput,
            row.target,
            if row.met { "yes" } else { "NO" }
        );
    }
}
