//! Starting a real server process for a test: waiting until it is ready, or saying why not.

use std::path::Path;
use std::process::Child;
use std::time::{Duration, Instant};

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
