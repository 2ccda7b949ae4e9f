//! `cargo xtask soak`: a long run against one server process (`bench_soak`, release build,
//! pinned as in `cargo xtask bench`) that looks for memory that does not come back.
//!
//! In rounds, each a twentieth of the whole: initialize-era HTTP sessions opened and ended
//! (`initialize`, `notifications/initialized`, `DELETE`); 2026-07-28 calls, a tenth of them
//! streamed (`chatty`) and abandoned after the first event; listens opened, acknowledged and
//! dropped; GET streams of fresh sessions opened and dropped (the session then ended). The
//! server's RSS is sampled after a warm-up round and after every round. It passes when the RSS
//! at the end is within 10% of the RSS after warm-up and grew by less than 5% of it over the
//! last half of the rounds (least squares).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::http::{self, find, post};
use super::process;
use super::{build, examples_dir, release_driver};

pub(crate) const USAGE: &str = "usage: cargo xtask soak [options]

options:
  --scale X     the share of the full run (default 1: 1,000,000 sessions, 1,000,000 calls,
                100,000 listens, 100,000 GET streams); CI runs --scale 0.01
  --debug       use the debug build of bench_soak already built (by cargo test), not a release
                build, and drive from this process (for CI: no second build)
  --no-pin      do not pin server and driver to different CPUs";

/// Set in the re-executed release driver: pin the server to CPU 0 (`1`) or not (`0`).
const DRIVER: &str = "PRESA_SOAK_PIN";

const ROUNDS: usize = 20;
/// Connections working at once in each kind of work.
const WORKERS: usize = 8;

const SESSIONS: f64 = 1_000_000.0;
const CALLS: f64 = 1_000_000.0;
const LISTENS: f64 = 100_000.0;
const GETS: f64 = 100_000.0;

#[derive(Debug, Clone)]
struct Options {
    scale: f64,
    debug: bool,
    pin: bool,
}

fn parse(args: &[String]) -> Result<Options, String> {
    let mut options = Options {
        scale: 1.0,
        debug: false,
        pin: true,
    };
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--scale" => {
                let v = args.next().ok_or("--scale needs a value")?;
                options.scale = v
                    .parse::<f64>()
                    .ok()
                    .filter(|s| *s > 0.0 && *s <= 100.0)
                    .ok_or_else(|| format!("--scale takes a number in (0, 100], not {v:?}"))?;
            }
            "--debug" => options.debug = true,
            "--no-pin" => options.pin = false,
            other => return Err(format!("unknown option {other:?}")),
        }
    }
    Ok(options)
}

/// Runs `cargo xtask soak`.
pub(crate) fn run(args: &[String]) -> ExitCode {
    match try_run(args) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(error) => {
            eprintln!("xtask soak: {error}");
            ExitCode::FAILURE
        }
    }
}

fn try_run(args: &[String]) -> Result<bool, String> {
    let options = parse(args)?;
    let pin = options.pin && std::thread::available_parallelism().map_or(1, usize::from) >= 2;
    let program = if options.debug {
        examples_dir()
            .parent()
            .and_then(|release| release.parent())
            .map(|target| target.join("debug").join("examples").join("bench_soak"))
            .ok_or("no target directory")?
    } else {
        examples_dir().join("bench_soak")
    };
    // the release run builds, then re-executes the release driver pinned to CPU 1
    if !options.debug && std::env::var_os(DRIVER).is_none() {
        build(false, false)?;
        return release_driver("soak", args, pin, (DRIVER, if pin { "1" } else { "0" }));
    }
    if !program.exists() {
        return Err(format!(
            "{} is not built (cargo build -p presa --example bench_soak --features server,http)",
            program.display()
        ));
    }
    let pin = pin && std::env::var(DRIVER).map_or(options.debug, |v| v == "1");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    runtime.block_on(soak(&options, program, pin))
}

/// How much of each kind of work one round does.
#[derive(Debug, Clone, Copy, Default)]
struct Work {
    sessions: usize,
    calls: usize,
    listens: usize,
    gets: usize,
}

impl Work {
    fn round(scale: f64) -> Self {
        let each = |total: f64| ((total * scale / ROUNDS as f64).round() as usize).max(WORKERS);
        Self {
            sessions: each(SESSIONS),
            calls: each(CALLS),
            listens: each(LISTENS),
            gets: each(GETS),
        }
    }

    fn add(&mut self, other: Work) {
        self.sessions += other.sessions;
        self.calls += other.calls;
        self.listens += other.listens;
        self.gets += other.gets;
    }
}

/// One RSS sample.
struct Sample {
    round: usize,
    seconds: f64,
    done: Work,
    rss_kib: u64,
}

async fn soak(options: &Options, program: PathBuf, pin: bool) -> Result<bool, String> {
    let cpus = pin.then_some("0");
    let mut server = process::start_http(&program, &["127.0.0.1:0"], cpus).await?;
    let address = server.address.clone();
    let path = server.path.clone();
    let round = Work::round(options.scale);
    eprintln!(
        "xtask soak: {} ({}), each round {} sessions, {} calls, {} listens, {} GET streams",
        program.display(),
        if options.debug { "debug" } else { "release" },
        round.sessions,
        round.calls,
        round.listens,
        round.gets
    );
    let start = Instant::now();
    let outcome = async {
        // the warm-up round: every kind of work once, not counted
        run_round(&address, &path, round).await?;
        let mut samples = vec![Sample {
            round: 0,
            seconds: start.elapsed().as_secs_f64(),
            done: Work::default(),
            rss_kib: process::status_kib(server.pid, "VmRSS")?,
        }];
        let mut done = Work::default();
        for n in 1..=ROUNDS {
            run_round(&address, &path, round).await?;
            done.add(round);
            samples.push(Sample {
                round: n,
                seconds: start.elapsed().as_secs_f64(),
                done,
                rss_kib: process::status_kib(server.pid, "VmRSS")?,
            });
        }
        Ok::<_, String>(samples)
    }
    .await;
    let peak = process::status_kib(server.pid, "VmHWM").unwrap_or_default();
    server.stop().await;
    let samples = outcome?;
    Ok(report(&samples, peak))
}

/// Prints the RSS curve and the verdict.
fn report(samples: &[Sample], peak_kib: u64) -> bool {
    let mib = |kib: u64| kib as f64 / 1024.0;
    println!(
        "\n{:>5} {:>8} {:>10} {:>10} {:>8} {:>8} {:>9}",
        "round", "seconds", "sessions", "calls", "listens", "GETs", "RSS MiB"
    );
    for s in samples {
        println!(
            "{:>5} {:>8.1} {:>10} {:>10} {:>8} {:>8} {:>9.1}",
            if s.round == 0 {
                "warm".to_owned()
            } else {
                s.round.to_string()
            },
            s.seconds,
            s.done.sessions,
            s.done.calls,
            s.done.listens,
            s.done.gets,
            mib(s.rss_kib)
        );
    }
    let (Some(warm), Some(end)) = (samples.first(), samples.last()) else {
        return false;
    };
    let warm_kib = warm.rss_kib as f64;
    let end_ratio = end.rss_kib as f64 / warm_kib;
    let half = &samples[samples.len() / 2..];
    let growth = slope(half) * (half.len().saturating_sub(1)) as f64;
    let growth_ratio = growth / warm_kib;
    let passed = end_ratio <= 1.10 && growth_ratio < 0.05;
    println!(
        "\nRSS after warm-up {:.1} MiB, at the end {:.1} MiB ({:+.1}%), peak {:.1} MiB; \
         trend over the last half {:+.2} MiB ({:+.1}%): {}",
        mib(warm.rss_kib),
        mib(end.rss_kib),
        (end_ratio - 1.0) * 100.0,
        mib(peak_kib),
        growth / 1024.0,
        growth_ratio * 100.0,
        if passed {
            "pass"
        } else {
            "FAIL (memory does not come back)"
        }
    );
    passed
}

/// The least-squares slope of RSS (KiB) per round over `samples`.
fn slope(samples: &[Sample]) -> f64 {
    let n = samples.len() as f64;
    if n < 2.0 {
        return 0.0;
    }
    let mean_x = samples.iter().map(|s| s.round as f64).sum::<f64>() / n;
    let mean_y = samples.iter().map(|s| s.rss_kib as f64).sum::<f64>() / n;
    let (mut num, mut den) = (0.0, 0.0);
    for s in samples {
        let dx = s.round as f64 - mean_x;
        num += dx * (s.rss_kib as f64 - mean_y);
        den += dx * dx;
    }
    if den == 0.0 { 0.0 } else { num / den }
}

/// One round: each kind of work by `WORKERS` connections at once, one kind after the other.
async fn run_round(address: &str, path: &str, work: Work) -> Result<(), String> {
    let share =
        |total: usize, worker: usize| total / WORKERS + usize::from(worker < total % WORKERS);
    let kinds: [(usize, Kind); 4] = [
        (work.sessions, Kind::Session),
        (work.calls, Kind::Call),
        (work.listens, Kind::Listen),
        (work.gets, Kind::Get),
    ];
    for (total, kind) in kinds {
        let mut tasks = tokio::task::JoinSet::new();
        for worker in 0..WORKERS {
            let (address, path) = (address.to_owned(), path.to_owned());
            let count = share(total, worker);
            tasks.spawn(async move { worker_run(&address, &path, kind, count, worker).await });
        }
        while let Some(joined) = tasks.join_next().await {
            joined.map_err(|e| e.to_string())??;
        }
    }
    Ok(())
}

#[derive(Debug, Clone, Copy)]
enum Kind {
    Session,
    Call,
    Listen,
    Get,
}

/// A keep-alive connection that is opened again after each abandoned response.
struct Connection {
    address: String,
    stream: Option<TcpStream>,
    buf: Vec<u8>,
}

impl Connection {
    /// The connection (opened again if it was closed) and its read buffer.
    async fn parts(&mut self) -> Result<(&mut TcpStream, &mut Vec<u8>), String> {
        if self.stream.is_none() {
            let stream = TcpStream::connect(&self.address)
                .await
                .map_err(|e| format!("connect {}: {e}", self.address))?;
            stream.set_nodelay(true).map_err(|e| e.to_string())?;
            self.buf.clear();
            self.stream = Some(stream);
        }
        match &mut self.stream {
            Some(stream) => Ok((stream, &mut self.buf)),
            None => Err("no connection".to_owned()),
        }
    }

    /// Sends `request` and reads its whole reply: the status and body.
    async fn exchange(&mut self, request: &[u8]) -> Result<(u16, String), String> {
        let (stream, buf) = self.parts().await?;
        http::exchange_body(stream, buf, request).await
    }

    /// Sends `request`, reads the reply's head and its first bytes of body, then closes the
    /// connection: a client walking away from a stream. Returns the status.
    async fn abandon(&mut self, request: &[u8]) -> Result<u16, String> {
        let (stream, _) = self.parts().await?;
        stream
            .write_all(request)
            .await
            .map_err(|e| format!("write: {e}"))?;
        let mut buf = Vec::with_capacity(1024);
        let head = loop {
            if let Some(end) = find(&buf, b"\r\n\r\n") {
                break end;
            }
            read_more(stream, &mut buf).await?;
        };
        if buf.len() == head + 4 {
            read_more(stream, &mut buf).await?;
        }
        self.stream = None;
        let status = String::from_utf8_lossy(&buf[..head])
            .split(' ')
            .nth(1)
            .and_then(|code| code.parse().ok())
            .ok_or("a reply without a status")?;
        Ok(status)
    }
}

async fn read_more(stream: &mut TcpStream, buf: &mut Vec<u8>) -> Result<(), String> {
    buf.reserve(1024);
    match tokio::time::timeout(Duration::from_secs(30), stream.read_buf(buf)).await {
        Ok(Ok(0)) => Err("the server closed the connection".to_owned()),
        Ok(Ok(_)) => Ok(()),
        Ok(Err(e)) => Err(format!("read: {e}")),
        Err(_) => Err("no reply within 30 s".to_owned()),
    }
}

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
const CHATTY_META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"info"}"#;

fn modern(address: &str, path: &str, method: &str, name: Option<&str>, params: &str) -> Vec<u8> {
    let body = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"{method}","params":{params}}}"#);
    let mut headers = format!("MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: {method}\r\n");
    if let Some(name) = name {
        headers.push_str(&format!("Mcp-Name: {name}\r\n"));
    }
    post(address, path, &headers, &body)
}

fn delete(address: &str, path: &str, session: &str) -> Vec<u8> {
    format!(
        "DELETE {path} HTTP/1.1\r\nHost: {address}\r\nMCP-Protocol-Version: 2025-11-25\r\n\
         Mcp-Session-Id: {session}\r\nContent-Length: 0\r\n\r\n"
    )
    .into_bytes()
}

fn get(address: &str, path: &str, session: &str) -> Vec<u8> {
    format!(
        "GET {path} HTTP/1.1\r\nHost: {address}\r\nAccept: text/event-stream\r\n\
         MCP-Protocol-Version: 2025-11-25\r\nMcp-Session-Id: {session}\r\n\r\n"
    )
    .into_bytes()
}

async fn worker_run(
    address: &str,
    path: &str,
    kind: Kind,
    count: usize,
    worker: usize,
) -> Result<(), String> {
    let mut connection = Connection {
        address: address.to_owned(),
        stream: None,
        buf: Vec::with_capacity(8192),
    };
    let add = modern(
        address,
        path,
        "tools/call",
        Some("add"),
        &format!(r#"{{"name":"add","arguments":{{}},{META}}}"#),
    );
    let chatty = modern(
        address,
        path,
        "tools/call",
        Some("chatty"),
        &format!(r#"{{"name":"chatty","arguments":{{}},{CHATTY_META}}}"#),
    );
    let listen = modern(
        address,
        path,
        "subscriptions/listen",
        None,
        &format!(r#"{{"notifications":{{"resourceSubscriptions":["soak://watched"]}},{META}}}"#),
    );
    for i in 0..count {
        match kind {
            Kind::Session => {
                let session = open_session(&mut connection, address, path).await?;
                expect(
                    connection
                        .exchange(&delete(address, path, &session))
                        .await?,
                    200,
                    "DELETE",
                )?;
            }
            // one call in ten is streamed and abandoned after its first event
            Kind::Call if (i + worker).is_multiple_of(10) => {
                let status = connection.abandon(&chatty).await?;
                expect((status, String::new()), 200, "tools/call chatty")?;
            }
            Kind::Call => {
                let reply = connection.exchange(&add).await?;
                if !reply.1.contains("\"result\"") {
                    return Err(format!("tools/call add answered {}: {}", reply.0, reply.1));
                }
            }
            Kind::Listen => {
                let status = connection.abandon(&listen).await?;
                expect((status, String::new()), 200, "subscriptions/listen")?;
            }
            Kind::Get => {
                let session = open_session(&mut connection, address, path).await?;
                let status = connection.abandon(&get(address, path, &session)).await?;
                expect((status, String::new()), 200, "GET")?;
                expect(
                    connection
                        .exchange(&delete(address, path, &session))
                        .await?,
                    200,
                    "DELETE",
                )?;
            }
        }
    }
    Ok(())
}

async fn open_session(
    connection: &mut Connection,
    address: &str,
    path: &str,
) -> Result<String, String> {
    let (stream, buf) = connection.parts().await?;
    http::open_session(stream, buf, address, path)
        .await?
        .ok_or_else(|| "the server gave no Mcp-Session-Id".to_owned())
}

fn expect(reply: (u16, String), status: u16, what: &str) -> Result<(), String> {
    if reply.0 == status {
        Ok(())
    } else {
        Err(format!("{what} answered {}: {}", reply.0, reply.1))
    }
}
