//! What the client loads share (`in_process`, `http_client`): callers of `tools/call add`
//! sharing one presa [`Client`], their window, and the one-line report the driver reads.

use std::time::{Duration, Instant};

use presa::client::Client;
use presa::core::ErrorReport;
use serde_json::json;

/// How a load runs: callers, and the warm-up and measured window of each.
#[derive(Debug, Clone, Copy)]
pub struct LoadOptions {
    /// Concurrent callers.
    pub callers: usize,
    /// The warm-up, not counted.
    pub warmup: Duration,
    /// The measured window.
    pub duration: Duration,
}

impl LoadOptions {
    /// Reads `--callers N`, `--warmup SECS` and `--duration SECS` (defaults 64, 2 and 5).
    pub fn from_args(args: &[String]) -> Result<Self, String> {
        let callers = number(args, "--callers", 64.0)?;
        if callers < 1.0 || callers.fract() != 0.0 {
            return Err(format!("--callers takes a positive count, not {callers}"));
        }
        Ok(LoadOptions {
            callers: callers as usize,
            warmup: seconds(args, "--warmup", 2.0)?,
            duration: seconds(args, "--duration", 5.0)?,
        })
    }
}

/// The value after `name`, if given.
pub fn flag<'a>(args: &'a [String], name: &str) -> Option<&'a str> {
    let at = args.iter().position(|a| a == name)?;
    args.get(at + 1).map(String::as_str)
}

/// The number after `name`, or `default`.
pub fn number(args: &[String], name: &str, default: f64) -> Result<f64, String> {
    match flag(args, name) {
        None if args.iter().any(|a| a == name) => Err(format!("{name} needs a value")),
        None => Ok(default),
        Some(text) => text
            .parse::<f64>()
            .ok()
            .filter(|n| n.is_finite())
            .ok_or_else(|| format!("{name} takes a number, not {text:?}")),
    }
}

/// The seconds after `name`, or `default`: not negative, finite.
fn seconds(args: &[String], name: &str, default: f64) -> Result<Duration, String> {
    let value = number(args, name, default)?;
    Duration::try_from_secs_f64(value).map_err(|_| format!("{name} takes seconds, not {value}"))
}

/// One caller: calls until `stop`; the latencies (µs) of the calls that started at or after
/// `warm` and ended by `stop`.
async fn caller(client: Client, warm: Instant, stop: Instant) -> Result<Vec<u32>, String> {
    let mut latencies = Vec::new();
    let arguments = json!({"numbers": [1, 2, 3]});
    loop {
        let start = Instant::now();
        if start >= stop {
            return Ok(latencies);
        }
        let result = client
            .call_tool("add", &arguments)
            .await
            .map_err(|e| ErrorReport(&e).to_string())?;
        if result.is_error == Some(true) {
            return Err(format!("add failed: {:?}", result.content));
        }
        let end = Instant::now();
        if start >= warm && end <= stop {
            latencies
                .push(u32::try_from(end.duration_since(start).as_micros()).unwrap_or(u32::MAX));
        }
    }
}

/// Runs `options.callers` callers on `client`; returns the report line the driver reads:
/// `{"calls", "seconds", "p50_us", "p99_us"}`.
pub async fn run(client: &Client, options: LoadOptions) -> Result<String, String> {
    let warm = Instant::now() + options.warmup;
    let stop = warm + options.duration;
    let tasks: Vec<_> = (0..options.callers)
        .map(|_| tokio::spawn(caller(client.clone(), warm, stop)))
        .collect();
    let mut latencies = Vec::new();
    for task in tasks {
        latencies.extend(task.await.map_err(|e| ErrorReport(&e).to_string())??);
    }
    latencies.sort_unstable();
    let at = |q: f64| {
        let last = latencies.len().saturating_sub(1);
        latencies.get((last as f64 * q) as usize).copied()
    };
    let report = json!({
        "calls": latencies.len(),
        "seconds": options.duration.as_secs_f64(),
        "p50_us": at(0.50),
        "p99_us": at(0.99),
    });
    Ok(report.to_string())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn args(text: &str) -> Vec<String> {
        text.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn options_have_defaults_and_refuse_what_is_not_a_count_or_seconds() {
        let options = LoadOptions::from_args(&args("--callers 8")).unwrap();
        assert_eq!(options.callers, 8);
        assert_eq!(options.duration, Duration::from_secs(5));
        for bad in [
            "--warmup -1",
            "--duration nan",
            "--callers 0",
            "--callers 1.5",
            "--warmup",
        ] {
            assert!(LoadOptions::from_args(&args(bad)).is_err(), "{bad}");
        }
    }
}
