//! The scale-out rows (`cargo xtask bench --cluster`): `library` replicas sharing one Redis,
//! behind nginx balancing round-robin, against one replica with the in-memory store in the
//! same run; and one `resources/updated` fanned out to 10,000 listens spread over three `notes`
//! replicas.
//!
//! Redis and nginx come from presa-test (Debian's packages, installed when missing); they are
//! not pinned, and the replicas share the servers' CPU.

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use presa_test::nginx::Nginx;
use presa_test::redis::RedisServer;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::Bench;
use super::http::{self, Call, Era, find, post};
use super::measure::{Run, Side, summarize};
use super::process::{self, HttpServer};
use super::table::{Row, Target};

/// Listens of the fanout rows.
pub(super) const LISTENS: usize = 10_000;

/// What every replica of the rows is started with besides its Redis flag.
const REPLICA: [&str; 2] = ["--http", "127.0.0.1:0"];

impl Bench {
    /// The cluster rows the options ask for.
    pub(super) async fn cluster_rows(&self) -> Result<Vec<Row>, String> {
        let mut rows = Vec::new();
        let library = self.examples.join("library");
        for (name, era) in [
            ("cluster-session-64", Era::Session),
            ("cluster-2026-64", Era::Stateless),
        ] {
            if !self.wanted(name) {
                continue;
            }
            let (mut presa, mut base, mut trips) = (Vec::new(), Vec::new(), Vec::new());
            for repeat in 1..=self.options.repeats {
                eprintln!("{name}: run {repeat}/{}", self.options.repeats);
                let (run, per_request) = self.through_nginx(&library, era).await?;
                presa.push(run);
                trips.push(per_request);
                base.push(self.http(&library, &REPLICA, 64, era).await?);
            }
            trips.sort_by(f64::total_cmp);
            let trips = trips[trips.len() / 2];
            let (presa, base) = (Side::of(&presa), Side::of(&base));
            let ratio = presa.median.throughput / base.median.throughput;
            let (text, met) = if era == Era::Session {
                // one load per call; a save reserving stream numbers once per 1,024 calls
                (
                    format!("≥ 0.50×; 1 Redis round trip per call (got {trips:.3})"),
                    ratio >= 0.50 && trips <= 1.01,
                )
            } else {
                (
                    format!("no Redis on the request path (got {trips:.4} commands per call)"),
                    trips < 0.01,
                )
            };
            let target = Target::Check { text, met };
            rows.push(Row::new(name, presa, target).baseline(base));
        }
        if self.wanted("fanout-10k") {
            let mut runs = Vec::new();
            for repeat in 1..=self.options.repeats {
                eprintln!("fanout-10k: run {repeat}/{}", self.options.repeats);
                runs.push(self.fanout().await?);
            }
            let presa = Side::of(&runs);
            let last_ms = f64::from(presa.median.p99_us) / 1000.0;
            let target = Target::Report(format!(
                "{LISTENS} listens on 3 replicas told of one update (last after {last_ms:.1} ms)"
            ));
            rows.push(Row::new("fanout-10k", presa, target));
        }
        Ok(rows)
    }

    /// Three `program` replicas on a fresh Redis behind nginx, loaded with 64 connections of
    /// `era` through nginx; the run and Redis's round trips per call over the measured window
    /// (the channels' subscription checks left out).
    async fn through_nginx(&self, program: &Path, era: Era) -> Result<(Run, f64), String> {
        let redis = Arc::new(RedisServer::start());
        let mut replicas = self.replicas(program, &redis, &[]).await?;
        let upstreams = replicas
            .iter()
            .map(|replica| replica.address.parse::<SocketAddr>())
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| e.to_string())?;
        let nginx = Nginx::round_robin(&upstreams);
        let address = nginx
            .url("")
            .trim_start_matches("http://")
            .trim_end_matches('/')
            .to_owned();
        let (warm, stop) = self.window();
        let add = Arc::new(Call::add());
        let load: Vec<_> = (0..64)
            .map(|_| {
                tokio::spawn(http::connection(
                    address.clone(),
                    replicas[0].path.clone(),
                    era,
                    Arc::clone(&add),
                    warm,
                    stop,
                ))
            })
            .collect();
        let trips = {
            let redis = Arc::clone(&redis);
            async move {
                tokio::time::sleep_until(warm.into()).await;
                let counted = Arc::clone(&redis);
                let before = tokio::task::spawn_blocking(move || request_path(&counted))
                    .await
                    .map_err(|e| e.to_string())?;
                tokio::time::sleep_until(stop.into()).await;
                let after = tokio::task::spawn_blocking(move || request_path(&redis))
                    .await
                    .map_err(|e| e.to_string())?;
                Ok::<u64, String>(after.saturating_sub(before))
            }
        };
        let trips = trips.await?;
        let mut latencies = Vec::new();
        for connection in load {
            latencies.extend(connection.await.map_err(|e| e.to_string())??);
        }
        for replica in &mut replicas {
            replica.stop().await;
        }
        drop(nginx);
        let calls = latencies.len().max(1) as f64;
        let run = summarize(latencies, self.options.duration.as_secs_f64(), None);
        Ok((run, trips as f64 / calls))
    }

    /// Three replicas of `program` sharing `redis`, each with `extra` flags.
    async fn replicas(
        &self,
        program: &Path,
        redis: &RedisServer,
        extra: &[&str],
    ) -> Result<Vec<HttpServer>, String> {
        let url = redis.url();
        let mut args: Vec<&str> = REPLICA.to_vec();
        args.extend(["--redis", url.as_str()]);
        args.extend(extra);
        let mut replicas = Vec::new();
        for _ in 0..3 {
            replicas.push(process::start_http(program, &args, self.server_cpus.as_deref()).await?);
        }
        Ok(replicas)
    }

    /// [`LISTENS`] 2026-07-28 listens on `notes://index`, spread over three `notes` replicas on
    /// a fresh Redis; then a note added on the first replica. The run's p50 and p99 are the
    /// times from that call until a listen was told, the median's and the last's (its
    /// throughput: listens told per second until the last).
    async fn fanout(&self) -> Result<Run, String> {
        let redis = RedisServer::start();
        let per_replica = (LISTENS / 3 + 64).to_string();
        let notes = self.examples.join("notes");
        let mut replicas = self
            .replicas(&notes, &redis, &["--max-connections", &per_replica])
            .await?;
        let run = self.fanout_over(&replicas).await;
        for replica in &mut replicas {
            replica.stop().await;
        }
        run
    }

    /// [`LISTENS`] listens on `notes://index` spread over `replicas` (which share their
    /// changes), then a note added on the first; the run as [`fanout`](Self::fanout) says.
    pub(super) async fn fanout_over(&self, replicas: &[HttpServer]) -> Result<Run, String> {
        let (ready_tx, mut ready) = tokio::sync::mpsc::channel::<Result<(), String>>(LISTENS);
        let mut listens = Vec::with_capacity(LISTENS);
        let setups = Arc::new(tokio::sync::Semaphore::new(256));
        for i in 0..LISTENS {
            let replica = &replicas[i % replicas.len()];
            let (address, path) = (replica.address.clone(), replica.path.clone());
            let (ready_tx, setups) = (ready_tx.clone(), Arc::clone(&setups));
            listens.push(tokio::spawn(async move {
                let setup = setups.acquire_owned().await.map_err(|e| e.to_string());
                let listening = match setup {
                    Ok(_permit) => listen(&address, &path).await,
                    Err(error) => Err(error),
                };
                let (mut stream, mut seen) = match listening {
                    Ok(listening) => listening,
                    Err(error) => {
                        let _ = ready_tx.send(Err(error.clone())).await;
                        return Err(error);
                    }
                };
                let _ = ready_tx.send(Ok(())).await;
                until(&mut stream, &mut seen, b"notifications/resources/updated").await?;
                Ok::<Instant, String>(Instant::now())
            }));
        }
        drop(ready_tx);
        for _ in 0..LISTENS {
            ready
                .recv()
                .await
                .ok_or("a listen ended before it was acknowledged")??;
        }
        // every listen acknowledged: a note added on the first replica
        let mut caller = TcpStream::connect(&replicas[0].address)
            .await
            .map_err(|e| e.to_string())?;
        caller.set_nodelay(true).map_err(|e| e.to_string())?;
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"add_note","arguments":{{"title":"fanout","body":"b"}},{}}}}}"#,
            http::META
        );
        let headers =
            "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: add_note\r\n";
        let request = post(&replicas[0].address, &replicas[0].path, headers, &body);
        let published = Instant::now();
        let mut buf = Vec::new();
        let (status, text) = http::exchange_body(&mut caller, &mut buf, &request).await?;
        if status != 200 {
            return Err(format!("add_note answered {status}: {text}"));
        }
        let mut told = Vec::with_capacity(LISTENS);
        for listen in listens {
            let at = tokio::time::timeout(Duration::from_secs(60), listen)
                .await
                .map_err(|_| "a listen was not told within a minute")?
                .map_err(|e| e.to_string())??;
            told.push(http::micros(at.duration_since(published)));
        }
        told.sort_unstable();
        let last = told.last().copied().unwrap_or(0);
        Ok(Run {
            throughput: LISTENS as f64 / (f64::from(last.max(1)) / 1e6),
            p50_us: told[told.len() / 2],
            p99_us: last,
            ..Run::default()
        })
    }
}

/// Redis's round trips so far, but the `PING`s each replica's two channels (the bus, the
/// relay) check their subscriptions with once a second: what requests cost.
fn request_path(redis: &RedisServer) -> u64 {
    redis.round_trips().saturating_sub(redis.calls("ping"))
}

/// Opens a listen on `notes://index` and reads until its acknowledgement; the stream and what
/// was read of it.
async fn listen(address: &str, path: &str) -> Result<(TcpStream, Vec<u8>), String> {
    let mut stream = TcpStream::connect(address)
        .await
        .map_err(|e| format!("connect {address}: {e}"))?;
    stream.set_nodelay(true).map_err(|e| e.to_string())?;
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{{"notifications":{{"resourceSubscriptions":["notes://index"]}},{}}}}}"#,
        http::META
    );
    let headers = "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: subscriptions/listen\r\n";
    stream
        .write_all(&post(address, path, headers, &body))
        .await
        .map_err(|e| format!("write: {e}"))?;
    let mut seen = Vec::with_capacity(1024);
    until(
        &mut stream,
        &mut seen,
        b"notifications/subscriptions/acknowledged",
    )
    .await?;
    Ok((stream, seen))
}

/// Reads `stream` until `seen` holds `needle`, then forgets what was read up to it.
async fn until(stream: &mut TcpStream, seen: &mut Vec<u8>, needle: &[u8]) -> Result<(), String> {
    loop {
        if let Some(at) = find(seen, needle) {
            seen.drain(..at + needle.len());
            return Ok(());
        }
        seen.reserve(1024);
        match stream.read_buf(seen).await {
            Ok(0) => return Err("the listen stream ended".to_owned()),
            Ok(_) => {}
            Err(e) => return Err(format!("read: {e}")),
        }
    }
}
