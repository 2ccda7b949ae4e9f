//! The rows of `cargo xtask bench` (not `--cluster`): what each runs on which side, and the
//! target it is held to (docs/performance.md).

use std::path::PathBuf;

use super::http::Era;
use super::measure::{Run, Side};
use super::table::{Row, Target};
use super::{Bench, OBSERVED_ROWS};

/// The HTTP rows: name, connections, era, and the least share of the baseline's throughput.
const HTTP_ROWS: [(&str, usize, Era, f64); 3] = [
    ("http-64", 64, Era::Stateless, 0.80),
    ("http-1", 1, Era::Stateless, 0.90),
    ("http-session-64", 64, Era::Session, 0.75),
];

/// The stdio rows: name, requests in flight, and the least share of the baseline's throughput.
const STDIO_ROWS: [(&str, usize, f64); 2] = [("stdio-seq", 1, 0.95), ("stdio-64", 64, 0.80)];

/// The most peak RSS of presa's server under http-64, in MiB.
const HTTP_64_PEAK_MIB: f64 = 7.0;

/// How many times rmcp's throughput presa must reach with 64 in flight, on HTTP and stdio.
const PEER_HTTP_64: f64 = 4.0;
const PEER_STDIO_64: f64 = 5.0;

/// What one idle initialize-era session may add to the server's RSS, in KiB.
const IDLE_SESSION_KIB: f64 = 1.0;

/// The least in-process throughput, calls per second.
const IN_PROCESS_CALLS: f64 = 250_000.0;

/// Debian's jemalloc (package libjemalloc2) for this architecture, preloaded into the
/// in-process program for the in-process-jemalloc row: how much of that row is glibc's
/// allocator (the application's choice, not presa's).
fn jemalloc() -> PathBuf {
    PathBuf::from(format!(
        "/usr/lib/{}-linux-gnu/libjemalloc.so.2",
        std::env::consts::ARCH
    ))
}

/// The medians of each side's runs; the third side (rmcp) when it ran.
fn sides(runs: [Vec<Run>; 3]) -> (Side, Side, Option<Side>) {
    let [presa, baseline, rmcp] = runs;
    (
        Side::of(&presa),
        Side::of(&baseline),
        (!rmcp.is_empty()).then(|| Side::of(&rmcp)),
    )
}

impl Bench {
    /// Every row the options ask for, in the table's order.
    pub(super) async fn rows(&self) -> Result<Vec<Row>, String> {
        let mut rows = Vec::new();
        self.http_rows(&mut rows).await?;
        self.stdio_rows(&mut rows).await?;
        self.workload_rows(&mut rows).await?;
        if self.wanted("in-process") {
            let mut runs = Vec::new();
            for repeat in 1..=self.options.repeats {
                eprintln!("in-process: run {repeat}/{}", self.options.repeats);
                runs.push(self.in_process(None).await?);
            }
            rows.push(Row::new(
                "in-process",
                Side::of(&runs),
                Target::Throughput(IN_PROCESS_CALLS, "calls/s"),
            ));
        }
        if self.wanted("in-process-jemalloc") {
            let jemalloc = jemalloc();
            if jemalloc.exists() {
                let mut runs = Vec::new();
                for repeat in 1..=self.options.repeats {
                    eprintln!("in-process-jemalloc: run {repeat}/{}", self.options.repeats);
                    runs.push(self.in_process(Some(&jemalloc)).await?);
                }
                rows.push(Row::new(
                    "in-process-jemalloc",
                    Side::of(&runs),
                    Target::Report(
                        "the same program with Debian's jemalloc preloaded, for the allocator's share"
                            .to_owned(),
                    ),
                ));
            } else {
                eprintln!(
                    "in-process-jemalloc: not run, {} is missing (apt-get install libjemalloc2)",
                    jemalloc.display()
                );
            }
        }
        if self.wanted("idle-sessions") {
            let sessions = self.options.sessions;
            eprintln!("idle-sessions: {sessions} sessions");
            let (run, above_mib) = self.idle_sessions(&self.examples.join("library")).await?;
            let each_kib = above_mib * 1024.0 / sessions.max(1) as f64;
            rows.push(Row::new(
                "idle-sessions",
                Side::of(&[run]),
                Target::AtMost {
                    got: each_kib,
                    limit: IDLE_SESSION_KIB,
                    unit: "KiB above idle per session",
                },
            ));
        }
        if self.wanted("tasks") {
            eprintln!("tasks: {} tasks", self.options.tasks);
            // memory comes back: a second burst, once expired, adds nothing to the first's
            let (run, first_mib, second_mib) = self.tasks().await?;
            let peak = run.peak_rss_kib.unwrap_or(0) as f64 / 1024.0;
            rows.push(Row::new(
                "tasks",
                Side::of(&[run]),
                Target::Check {
                    text: format!(
                        "RSS after the 2nd burst expired ≤ 1.02× after the 1st (got \
                         {second_mib:.1} vs {first_mib:.1} MiB; peak {peak:.1})"
                    ),
                    met: second_mib <= first_mib * 1.02,
                },
            ));
        }
        self.observed_rows(&mut rows).await?;
        Ok(rows)
    }

    async fn http_rows(&self, rows: &mut Vec<Row>) -> Result<(), String> {
        let library = self.examples.join("library");
        let baseline = self.bins.join("axum_baseline");
        let rmcp = self.rmcp_server();
        for (name, connections, era, target) in HTTP_ROWS {
            if !self.wanted(name) {
                continue;
            }
            let mut runs: [Vec<Run>; 3] = Default::default();
            for repeat in 1..=self.options.repeats {
                eprintln!("{name}: run {repeat}/{}", self.options.repeats);
                let http = ["--http", "127.0.0.1:0"];
                runs[0].push(self.http(&library, &http, connections, era).await?);
                let base = self.http(&baseline, &["127.0.0.1:0"], connections, era);
                runs[1].push(base.await?);
                if let Some(rmcp) = &rmcp {
                    // sessions only in rmcp's session mode
                    let args: &[&str] = match era {
                        Era::Session => &["--http", "127.0.0.1:0", "--stateful"],
                        Era::Stateless => &http,
                    };
                    runs[2].push(self.http(rmcp, args, connections, era).await?);
                }
            }
            let (presa, baseline, rmcp) = sides(runs);
            if name == "http-64" {
                let rss = presa.median.peak_rss_kib.unwrap_or(u64::MAX) as f64 / 1024.0;
                let peak = Target::AtMost {
                    got: rss,
                    limit: HTTP_64_PEAK_MIB,
                    unit: "MiB",
                };
                rows.push(Row::new("http-64 peak RSS", presa.clone(), peak));
                if rmcp.is_some() {
                    let peer = Target::PeerRatio(PEER_HTTP_64);
                    let row = Row::new("http-64 vs rmcp", presa.clone(), peer).not_charted();
                    rows.push(row.rmcp(rmcp.clone()));
                }
            }
            let row = Row::new(name, presa, Target::Ratio(target)).baseline(baseline);
            rows.push(row.rmcp(rmcp));
        }
        Ok(())
    }

    async fn stdio_rows(&self, rows: &mut Vec<Row>) -> Result<(), String> {
        let library = self.examples.join("library");
        let baseline = self.bins.join("stdio_baseline");
        let rmcp = self.rmcp_server();
        for (name, window, target) in STDIO_ROWS {
            if !self.wanted(name) {
                continue;
            }
            let mut runs: [Vec<Run>; 3] = Default::default();
            for repeat in 1..=self.options.repeats {
                eprintln!("{name}: run {repeat}/{}", self.options.repeats);
                runs[0].push(self.stdio(&library, &[], window).await?);
                let base = self.stdio(&baseline, &[], window);
                runs[1].push(base.await?);
                if let Some(rmcp) = &rmcp {
                    runs[2].push(self.stdio(rmcp, &[], window).await?);
                }
            }
            let (presa, baseline, rmcp) = sides(runs);
            if name == "stdio-64" && rmcp.is_some() {
                let peer = Target::PeerRatio(PEER_STDIO_64);
                let row = Row::new("stdio-64 vs rmcp", presa.clone(), peer).not_charted();
                rows.push(row.rmcp(rmcp.clone()));
            }
            let row = Row::new(name, presa, Target::Ratio(target)).baseline(baseline);
            rows.push(row.rmcp(rmcp));
        }
        Ok(())
    }

    /// The cost of observing: `bench_observed` in one state against `library` as it ships.
    async fn observed_rows(&self, rows: &mut Vec<Row>) -> Result<(), String> {
        let library = self.examples.join("library");
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
                    let shipped = ["--http", "127.0.0.1:0"];
                    base.push(self.http(&library, &shipped, 64, Era::Stateless).await?);
                } else {
                    presa.push(self.stdio(&observed, flags, 64).await?);
                    base.push(self.stdio(&library, &[], 64).await?);
                }
            }
            let (presa, base) = (Side::of(&presa), Side::of(&base));
            let cpu = |side: &Side| side.median.cpu_us.unwrap_or(f64::NAN);
            let cost = cpu(&presa) / cpu(&base);
            let target = match most {
                Some(most) => Target::Check {
                    text: format!("CPU/req ≤ {most:.2}× library (got {cost:.2}×)"),
                    met: cost <= most,
                },
                None => Target::Report(format!("CPU/req {cost:.2}× library")),
            };
            // presa against itself: the table's, not the chart's
            rows.push(Row::new(name, presa, target).baseline(base).not_charted());
        }
        Ok(())
    }
}
