//! A real Prometheus for tests: Debian's `prometheus`, installed with `apt-get` on first use
//! when the machine lacks it, scraping one target every second, on a free 127.0.0.1 port, with
//! its data in a directory of its own, stopped by its PID when the test drops it.
//!
//! ```no_run
//! let prometheus = presa_test::prometheus::Prometheus::scraping("127.0.0.1:8080".parse().unwrap(), "/metrics");
//! let calls = prometheus.query("sum(mcp_server_operation_duration_seconds_count)");
//! # let _ = calls;
//! ```

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;

use serde_json::Value;

/// One Prometheus process of this test.
#[derive(Debug)]
pub struct Prometheus {
    port: u16,
    dir: PathBuf,
    child: Option<Child>,
}

/// Scrapes `target`'s `path` every second, keeping nothing between runs.
fn config(target: SocketAddr, path: &str) -> String {
    format!(
        "global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: presa
    metrics_path: {path}
    static_configs:
      - targets: ['{target}']
"
    )
}

impl Prometheus {
    /// Starts Prometheus on a free port, scraping `target` at `path` every second, and waits
    /// until it is ready.
    pub fn scraping(target: SocketAddr, path: &str) -> Self {
        ensure_installed();
        crate::process::on_free_port("prometheus", |port| {
            let dir = std::env::temp_dir()
                .join(format!("presa-prometheus-{}-{port}", std::process::id()));
            std::fs::create_dir_all(&dir).unwrap();
            let conf = dir.join("prometheus.yml");
            std::fs::write(&conf, config(target, path)).unwrap();
            let mut prometheus = Self {
                port,
                dir,
                child: None,
            };
            prometheus.spawn(&conf).map(|()| prometheus)
        })
    }

    fn spawn(&mut self, conf: &std::path::Path) -> Result<(), String> {
        let log = self.dir.join("prometheus.log");
        let child = Command::new("prometheus")
            .arg(format!("--config.file={}", conf.display()))
            .arg(format!("--web.listen-address=127.0.0.1:{}", self.port))
            .arg(format!(
                "--storage.tsdb.path={}",
                self.dir.join("data").display()
            ))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).map_err(|e| e.to_string())?)
            .spawn()
            .map_err(|e| format!("could not run prometheus: {e}"))?;
        let port = self.port;
        let child = crate::process::ready(child, "prometheus", &log, |_| {
            get(port, "/-/ready").is_some_and(|(status, _)| status == 200)
        })?;
        self.child = Some(child);
        Ok(())
    }

    /// The value of the instant query `expr` now (the first sample of its vector), if it has
    /// one.
    pub fn query(&self, expr: &str) -> Option<f64> {
        let (status, body) = get(self.port, &format!("/api/v1/query?query={}", encode(expr)))?;
        if status != 200 {
            return None;
        }
        let answer: Value = serde_json::from_str(&body).ok()?;
        answer["data"]["result"][0]["value"][1]
            .as_str()?
            .parse()
            .ok()
    }
}

impl Drop for Prometheus {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// `GET path` on 127.0.0.1:`port` with HTTP/1.0: the status and the body, if it answered.
fn get(port: u16, path: &str) -> Option<(u16, String)> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).ok()?;
    write!(
        stream,
        "GET {path} HTTP/1.0\r\nHost: 127.0.0.1:{port}\r\n\r\n"
    )
    .ok()?;
    let mut answer = String::new();
    stream.read_to_string(&mut answer).ok()?;
    let (head, body) = answer.split_once("\r\n\r\n")?;
    let status = head.split(' ').nth(1)?.parse().ok()?;
    Some((status, body.to_owned()))
}

/// `text` percent-encoded for a query string.
fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                char::from(b).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// Installs Debian's `prometheus` once per test process when the machine lacks it.
pub fn ensure_installed() {
    static INSTALLED: OnceLock<()> = OnceLock::new();
    INSTALLED.get_or_init(|| crate::debian::ensure("prometheus", "--version", "prometheus"));
}
