//! `cargo xtask bench`: the load driver of presa's performance targets (docs/performance.md).
//!
//! Builds the examples and presa-bench in release, then measures each row against its
//! baseline: the `library` example over HTTP and stdio against the strict baselines of
//! presa-bench (an axum handler and a stdio loop that read each request only as far as its id
//! and answer a result serialized once, the id spliced in), and the in-process client/server
//! (presa-bench's `in_process`). With `--peers`, rmcp's server (bench/rmcp, a crate outside the
//! workspace) runs in the same rows. Each run has a warm-up that is not counted and a bounded
//! measured window; the sides of a row take turns (presa, baseline, rmcp, presa, …), and the
//! table shows each side's median with the spread of its runs. A target met or missed by less
//! than that spread is called "within noise", not met.
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
mod measure;
mod process;
mod rows;
pub(crate) mod soak;
mod stdio;
mod svg;
mod table;
mod tasks;
mod workloads;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::net::TcpStream;

use http::{Call, Era};
use measure::{Run, cpu_window, summarize};

use crate::workspace_root;

pub(crate) const USAGE: &str = "usage: cargo xtask bench [options]

options:
  --warmup SECS      warm-up of each run, not counted (default 2)
  --duration SECS    measured window of each run (default 5)
  --repeats N        runs per row and side; the table shows medians (default 3)
  --row NAME         run one row: http-64, http-1, http-session-64, stdio-seq, stdio-64,
                     list-1000, read-1mib-blob, read-1mib-text, args-100k, args-100k-full,
                     progress-sse, listen-fanout, client-http-64,
                     in-process, in-process-jemalloc, idle-sessions, tasks, observed-http-64-none,
                     observed-http-64-spans, observed-http-64-metrics, observed-stdio-64-none,
                     observed-stdio-64-spans, observed-stdio-64-metrics (default: all), or with --cluster
                     cluster-session-64, cluster-2026-64, fanout-10k
  --cluster          run the scale-out rows instead: library replicas on Redis behind nginx,
                     and 10,000 listens over three notes replicas (installs redis-server and
                     nginx with apt-get when missing)
  --sessions N       sessions of the idle-sessions row (default 10000)
  --tasks N          tasks of the tasks row (default 10000)
  --svg FILE         also draw the table as a chart into FILE (SVG)
  --peers            run rmcp's server (bench/rmcp, rmcp pinned) in the HTTP and stdio rows too
  --no-build         use the release examples already built
  --no-pin           do not pin server and driver to different CPUs";

/// Set in the re-executed release driver: the number of CPUs to pin across, 0 for no pinning.
const DRIVER: &str = "PRESA_BENCH_CPUS";

/// The scale-out rows, run with `--cluster`.
const CLUSTER_ROWS: [&str; 3] = ["cluster-session-64", "cluster-2026-64", "fanout-10k"];

const ROWS: [&str; 9] = [
    "http-64",
    "http-1",
    "http-session-64",
    "stdio-seq",
    "stdio-64",
    "in-process",
    "in-process-jemalloc",
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
    /// rmcp's server in the HTTP and stdio rows.
    peers: bool,
    /// Where to draw the table as a chart.
    svg: Option<PathBuf>,
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
        peers: false,
        svg: None,
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
                let known = [&ROWS[..], &CLUSTER_ROWS, &workloads::WORKLOAD_ROWS]
                    .iter()
                    .any(|rows| rows.contains(&v.as_str()));
                if !known && !observed {
                    return Err(format!("unknown row {v:?}"));
                }
                options.row = Some(v.clone());
            }
            "--no-build" => options.build = false,
            "--cluster" => options.cluster = true,
            "--peers" => options.peers = true,
            "--svg" => options.svg = Some(PathBuf::from(value()?)),
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
            build(options.cluster, options.peers)?;
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
        bins: examples_dir()
            .parent()
            .map(Path::to_path_buf)
            .ok_or("no release directory")?,
        server_cpus: pinned_cpus.map(|_| "0".to_owned()),
        all_cpus: pinned_cpus.map(|n| format!("0-{}", n.saturating_sub(1))),
        driver_cpus: pinned_cpus.map(|_| "1".to_owned()),
        ticks: process::clock_ticks(),
        options,
    };
    let rows = if bench.options.cluster {
        runtime.block_on(bench.cluster_rows())?
    } else {
        runtime.block_on(bench.rows())?
    };
    table::print(&rows);
    if let Some(file) = &bench.options.svg {
        svg::write(&rows, file)?;
        eprintln!("xtask bench: chart written to {}", file.display());
    }
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
/// with the `redis` feature. Then, each in a build of its own so that no feature reaches the
/// examples they are compared with: `bench_observed` with `otel`, and presa-bench (the
/// baselines, and the workloads with `full-schema`). With `--peers`, rmcp's server and client
/// from their own workspace (bench/rmcp) into the same target directory.
pub(super) fn build(cluster: bool, peers: bool) -> Result<(), String> {
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
    ])?;
    cargo_build(&["build", "--release", "-p", "presa-bench", "--bins"])?;
    if peers {
        let manifest = workspace_root().join("bench/rmcp/Cargo.toml");
        let target = crate::target_dir();
        let (manifest, target) = (manifest.to_string_lossy(), target.to_string_lossy());
        cargo_build(&[
            "build",
            "--release",
            "--locked",
            "--manifest-path",
            &manifest,
            "--target-dir",
            &target,
        ])?;
    }
    Ok(())
}

fn cargo_build(args: &[&str]) -> Result<(), String> {
    eprintln!("xtask bench: cargo {}", args.join(" "));
    let status = crate::cargo()
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

#[derive(Debug)]
struct Bench {
    /// presa's release examples.
    examples: PathBuf,
    /// The release binaries: presa-bench's, and rmcp's with `--peers`.
    bins: PathBuf,
    /// `taskset -c` list for servers, when pinning.
    server_cpus: Option<String>,
    /// `taskset -c` list of every CPU, when pinning (the driver itself is on CPU 1).
    all_cpus: Option<String>,
    /// `taskset -c` list of the driver's CPU, when pinning: for a measured client, which has
    /// it to itself while the driver waits for it.
    driver_cpus: Option<String>,
    ticks: f64,
    options: Options,
}

impl Bench {
    fn wanted(&self, row: &str) -> bool {
        self.options.row.as_deref().is_none_or(|r| r == row)
    }

    /// rmcp's server, when the peers run.
    fn rmcp_server(&self) -> Option<PathBuf> {
        self.options.peers.then(|| self.bins.join("rmcp_server"))
    }

    fn window(&self) -> (Instant, Instant) {
        let warm = Instant::now() + self.options.warmup;
        (warm, warm + self.options.duration)
    }

    /// One HTTP run of `tools/call add` against a fresh server.
    async fn http(
        &self,
        program: &Path,
        args: &[&str],
        connections: usize,
        era: Era,
    ) -> Result<Run, String> {
        self.http_call(program, args, connections, era, &Call::add())
            .await
    }

    /// One HTTP run of `call` against a fresh server.
    async fn http_call(
        &self,
        program: &Path,
        args: &[&str],
        connections: usize,
        era: Era,
        call: &Call,
    ) -> Result<Run, String> {
        let mut server = process::start_http(program, args, self.server_cpus.as_deref()).await?;
        let (warm, stop) = self.window();
        let call = Arc::new(call.clone());
        let tasks: Vec<_> = (0..connections)
            .map(|_| {
                tokio::spawn(http::connection(
                    server.address.clone(),
                    server.path.clone(),
                    era,
                    Arc::clone(&call),
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

    /// One run of presa-bench's `in_process`, on every CPU, with `preload` (an allocator) in
    /// `LD_PRELOAD` if given.
    async fn in_process(&self, preload: Option<&Path>) -> Result<Run, String> {
        let program = self.bins.join("in_process");
        let mut command = process::command(&program, self.all_cpus.as_deref());
        if let Some(preload) = preload {
            command.env("LD_PRELOAD", preload);
        }
        let output = command
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
        process::report(&output.stdout, &program)
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
