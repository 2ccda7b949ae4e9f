//! Starting a real server process for a test: waiting until it is ready, or saying why not.

use std::path::Path;
use std::process::Child;
use std::time::{Duration, Instant};

/// Starts a server with `start`, given a free 127.0.0.1 port, and returns what it returns: a
/// port found free can be taken by another process before the server binds it, so five ports
/// are tried before the last failure (naming `name`) fails the test.
pub(crate) fn on_free_port<T>(name: &str, mut start: impl FnMut(u16) -> Result<T, String>) -> T {
    let mut last = String::new();
    for _ in 0..5 {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .map(|address| address.port());
        match port.map_err(|e| e.to_string()).and_then(&mut start) {
            Ok(started) => return started,
            Err(why) => last = why,
        }
    }
    panic!("could not start {name}: {last}");
}

/// How long a started server has to become ready.
pub(crate) const STARTUP: Duration = Duration::from_secs(20);

/// Waits until `ready(pid)` says the started `child` (named `name`) serves, and returns it.
/// If it exits first, the error holds its log (`log`); if it is not ready within [`STARTUP`],
/// it is killed and reaped.
pub(crate) fn ready(
    mut child: Child,
    name: &str,
    log: &Path,
    ready: impl Fn(u32) -> bool,
) -> Result<Child, String> {
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
            let log = std::fs::read_to_string(log).unwrap_or_default();
            return Err(format!("{name} exited ({status}):\n{log}"));
        }
        if ready(child.id()) {
            return Ok(child);
        }
        if started.elapsed() > STARTUP {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("{name} was not ready within {STARTUP:?}"));
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}
