//! A real Redis for tests: Debian's `redis-server`, installed with `apt-get` on first use when
//! the machine lacks it, started on a free 127.0.0.1 port with nothing persisted, and stopped
//! by its PID when the test drops it.
//!
//! ```no_run
//! let redis = presa_test::redis::RedisServer::start();
//! // point the code under test at redis.url(), then:
//! redis.restart(); // the same port, an empty dataset
//!
//! // or a Redis Cluster of three masters
//! let cluster = presa_test::redis::RedisCluster::start();
//! // point the code under test at cluster.urls()
//! ```

use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use crate::process::STARTUP;

/// One `redis-server` process of this test, on 127.0.0.1.
#[derive(Debug)]
pub struct RedisServer {
    port: u16,
    dir: PathBuf,
    /// Arguments added to every start (a cluster node's).
    extra: Vec<String>,
    child: Mutex<Option<Child>>,
}

impl RedisServer {
    /// Starts a Redis on a free port (installing Debian's `redis-server` first if the machine
    /// has none), and waits until it answers.
    pub fn start() -> Self {
        Self::start_with(&[])
    }

    /// [`start`](Self::start) with more `redis-server` arguments.
    fn start_with(extra: &[&str]) -> Self {
        ensure_installed();
        crate::process::on_free_port("redis-server", |port| {
            let dir =
                std::env::temp_dir().join(format!("presa-redis-{}-{port}", std::process::id()));
            std::fs::create_dir_all(&dir).unwrap();
            let server = Self {
                port,
                dir,
                extra: extra.iter().map(|&arg| arg.to_owned()).collect(),
                child: Mutex::new(None),
            };
            server.spawn().map(|()| server)
        })
    }

    /// The URL to connect to, `redis://127.0.0.1:<port>/`.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    /// The port it listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Stops the server (by its PID) and waits for it to exit; the port stays this server's to
    /// [`resume`](Self::resume) on.
    pub fn stop(&self) {
        if let Some(mut child) = self.child.lock().unwrap().take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Starts the server again on the same port (after [`stop`](Self::stop)), with an empty
    /// dataset, and waits until it answers.
    pub fn resume(&self) {
        self.spawn()
            .unwrap_or_else(|why| panic!("could not start redis-server again: {why}"));
    }

    /// [`stop`](Self::stop), then [`resume`](Self::resume).
    pub fn restart(&self) {
        self.stop();
        self.resume();
    }

    /// Sends one command (its words, as `redis-cli` takes them) and returns the reply's first
    /// line, e.g. `+PONG`, `:3` or `*2` (an array's length), or a bulk string's contents.
    pub fn command(&self, words: &[&str]) -> String {
        reply(self.port, words, STARTUP).unwrap()
    }

    /// How many times this Redis ran `command` so far (`INFO commandstats`; a script's own
    /// commands are counted apart from the script).
    pub fn calls(&self, command: &str) -> u64 {
        let stats = self.command(&["INFO", "commandstats"]);
        let prefix = format!("cmdstat_{command}:calls=");
        stats
            .lines()
            .find_map(|line| line.trim().strip_prefix(prefix.as_str()))
            .and_then(|rest| rest.split(',').next()?.parse().ok())
            .unwrap_or(0)
    }

    /// This Redis's round trips so far: every command a client sent, those that presa's scripts
    /// run inside them left out (`evalsha` is one round trip whatever its script does).
    pub fn round_trips(&self) -> u64 {
        /// What presa-redis's scripts run, and what these counts themselves send.
        const INSIDE_SCRIPTS: [&str; 16] = [
            "hget", "hset", "pexpire", "persist", "zadd", "zrem", "zrange", "zscore", "zcard",
            "hlen", "hdel", "del", "incr", "xrange", "xadd", "info",
        ];
        let stats = self.command(&["INFO", "commandstats"]);
        stats
            .lines()
            .filter_map(|line| line.trim().strip_prefix("cmdstat_"))
            .filter(|line| !INSIDE_SCRIPTS.contains(&line.split(':').next().unwrap_or_default()))
            .filter_map(|line| {
                line.split_once(":calls=")?
                    .1
                    .split(',')
                    .next()?
                    .parse::<u64>()
                    .ok()
            })
            .sum()
    }

    fn spawn(&self) -> Result<(), String> {
        let log = File::create(self.dir.join("redis.log")).map_err(|e| e.to_string())?;
        let child = Command::new("redis-server")
            .args(["--bind", "127.0.0.1", "--port", &self.port.to_string()])
            .args(["--save", "", "--appendonly", "no", "--daemonize", "no"])
            .arg("--dir")
            .arg(&self.dir)
            .args(&self.extra)
            .stdin(Stdio::null())
            .stdout(log.try_clone().map_err(|e| e.to_string())?)
            .stderr(log)
            .spawn()
            .map_err(|e| format!("could not run redis-server: {e}"))?;
        // this process, not another test's that had the port a moment ago
        let port = self.port;
        let child =
            crate::process::ready(child, "redis-server", &self.dir.join("redis.log"), |pid| {
                answers_as(port, pid)
            })?;
        *self.child.lock().unwrap() = Some(child);
        Ok(())
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.stop();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A Redis Cluster of three masters (no replicas), each a [`RedisServer`] on a free port,
/// joined with `redis-cli --cluster create`.
#[derive(Debug)]
pub struct RedisCluster {
    nodes: Vec<RedisServer>,
}

impl RedisCluster {
    /// Starts three cluster nodes, creates the cluster, and waits until every node reports it
    /// ready.
    pub fn start() -> Self {
        let args = [
            "--cluster-enabled",
            "yes",
            "--cluster-config-file",
            "nodes.conf",
            "--cluster-node-timeout",
            "2000",
        ];
        let nodes: Vec<RedisServer> = (0..3).map(|_| RedisServer::start_with(&args)).collect();
        let addresses: Vec<String> = nodes
            .iter()
            .map(|node| format!("127.0.0.1:{}", node.port))
            .collect();
        let output = Command::new("redis-cli")
            .arg("--cluster")
            .arg("create")
            .args(&addresses)
            .args(["--cluster-replicas", "0", "--cluster-yes"])
            .output()
            .unwrap_or_else(|e| panic!("could not run redis-cli: {e}"));
        assert!(
            output.status.success(),
            "redis-cli --cluster create failed:\n{}\n{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        let cluster = Self { nodes };
        let started = Instant::now();
        while !cluster.nodes.iter().all(|node| {
            node.command(&["CLUSTER", "INFO"])
                .contains("cluster_state:ok")
        }) {
            assert!(
                started.elapsed() < STARTUP,
                "the cluster did not become ready"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        cluster
    }

    /// The nodes' URLs.
    pub fn urls(&self) -> Vec<String> {
        self.nodes.iter().map(RedisServer::url).collect()
    }

    /// The nodes.
    pub fn nodes(&self) -> &[RedisServer] {
        &self.nodes
    }
}

/// One command's reply from the Redis on `port` (see [`RedisServer::command`]).
fn reply(port: u16, words: &[&str], patience: Duration) -> std::io::Result<String> {
    let mut stream = TcpStream::connect(("127.0.0.1", port))?;
    stream.set_read_timeout(Some(patience))?;
    let mut request = format!("*{}\r\n", words.len());
    for word in words {
        request.push_str(&format!("${}\r\n{word}\r\n", word.len()));
    }
    stream.write_all(request.as_bytes())?;
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let line = line.trim_end();
    match line
        .strip_prefix('$')
        .and_then(|len| len.parse::<usize>().ok())
    {
        Some(len) => {
            let mut bulk = vec![0; len + 2];
            std::io::Read::read_exact(&mut reader, &mut bulk)?;
            bulk.truncate(len);
            String::from_utf8(bulk).map_err(std::io::Error::other)
        }
        None => Ok(line.to_owned()),
    }
}

/// Whether the Redis on `port` answers, and is process `pid`.
fn answers_as(port: u16, pid: u32) -> bool {
    reply(port, &["INFO", "server"], Duration::from_secs(1)).is_ok_and(|info| {
        info.lines()
            .any(|line| line.trim_end() == format!("process_id:{pid}"))
    })
}

/// Installs Debian's `redis-server` unless it runs already, once per process and under a lock
/// file shared by the test processes of this target directory.
pub fn ensure_installed() {
    static INSTALLED: OnceLock<()> = OnceLock::new();
    INSTALLED.get_or_init(|| crate::debian::ensure("redis-server", "--version", "redis-server"));
}
