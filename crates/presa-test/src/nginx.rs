//! A real load balancer for tests: Debian's `nginx`, installed with `apt-get` on first use when
//! the machine lacks it, in front of a set of upstreams with plain round-robin (no `ip_hash`,
//! no stickiness), on a free 127.0.0.1 port, stopped by its PID when the test drops it.
//!
//! ```no_run
//! let upstreams = ["127.0.0.1:8001".parse().unwrap(), "127.0.0.1:8002".parse().unwrap()];
//! let nginx = presa_test::nginx::Nginx::round_robin(&upstreams);
//! // point clients at nginx.url("/mcp")
//! ```

use std::fmt::Write as _;
use std::net::{SocketAddr, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;

/// One nginx process of this test.
#[derive(Debug)]
pub struct Nginx {
    port: u16,
    dir: PathBuf,
    child: Option<Child>,
}

/// The configuration: one process (no master and workers, so that stopping it by its PID
/// leaves nothing behind), every request to the next upstream in turn, responses
/// streamed as they come (event streams), the next upstream tried when one refuses the
/// connection (a replica that was killed), and keep-alive connections kept for as many requests
/// as a load sends (nginx closes them after 1,000 by default). Each response names the
/// upstream that served it in `X-Upstream`, for a test to know which replica holds a stream.
fn config(dir: &std::path::Path, port: u16, upstreams: &[SocketAddr]) -> String {
    let dir = dir.display();
    let mut servers = String::new();
    for upstream in upstreams {
        let _ = writeln!(servers, "    server {upstream} max_fails=0;");
    }
    format!(
        "master_process off;
daemon off;
pid {dir}/nginx.pid;
error_log {dir}/error.log warn;
events {{ worker_connections 1024; }}
http {{
  access_log off;
  client_body_temp_path {dir}/body;
  proxy_temp_path {dir}/proxy;
  fastcgi_temp_path {dir}/fastcgi;
  uwsgi_temp_path {dir}/uwsgi;
  scgi_temp_path {dir}/scgi;
  upstream replicas {{
{servers}    keepalive 32;
    keepalive_requests 1000000;
  }}
  server {{
    listen 127.0.0.1:{port};
    keepalive_requests 1000000;
    location / {{
      proxy_pass http://replicas;
      proxy_http_version 1.1;
      proxy_set_header Connection \"\";
      proxy_set_header Host $http_host;
      proxy_buffering off;
      proxy_request_buffering off;
      proxy_cache off;
      proxy_read_timeout 1h;
      proxy_next_upstream error timeout;
      add_header X-Upstream $upstream_addr always;
    }}
  }}
}}
"
    )
}

impl Nginx {
    /// Starts nginx on a free port, balancing over `upstreams` round-robin, and waits until it
    /// accepts connections.
    pub fn round_robin(upstreams: &[SocketAddr]) -> Self {
        ensure_installed();
        crate::process::on_free_port("nginx", |port| {
            let dir =
                std::env::temp_dir().join(format!("presa-nginx-{}-{port}", std::process::id()));
            std::fs::create_dir_all(&dir).unwrap();
            let conf = dir.join("nginx.conf");
            std::fs::write(&conf, config(&dir, port, upstreams)).unwrap();
            let mut nginx = Self {
                port,
                dir,
                child: None,
            };
            nginx.spawn(&conf).map(|()| nginx)
        })
    }

    /// The URL of `path` through the balancer, e.g. `http://127.0.0.1:41234/mcp`.
    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    fn spawn(&mut self, conf: &std::path::Path) -> Result<(), String> {
        let child = Command::new("nginx")
            .arg("-p")
            .arg(&self.dir)
            .arg("-e")
            .arg(self.dir.join("error.log"))
            .arg("-c")
            .arg(conf)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("could not run nginx: {e}"))?;
        // listening, and this process (its pid file says so), not another test's
        let (dir, port) = (self.dir.clone(), self.port);
        let child = crate::process::ready(child, "nginx", &self.dir.join("error.log"), |pid| {
            let written = std::fs::read_to_string(dir.join("nginx.pid")).unwrap_or_default();
            written.trim() == pid.to_string() && TcpStream::connect(("127.0.0.1", port)).is_ok()
        })?;
        self.child = Some(child);
        Ok(())
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Installs Debian's `nginx` unless it runs already, once per process.
pub fn ensure_installed() {
    static INSTALLED: OnceLock<()> = OnceLock::new();
    INSTALLED.get_or_init(|| crate::debian::ensure("nginx", "-v", "nginx"));
}
