//! `cargo xtask cluster`: presa on several instances behind a plain round-robin load balancer.
//!
//! Runs the scale-out scenarios of `crates/presa/tests/it/scale_out.rs`: each starts Redis
//! (Debian's `redis-server`) on a free loopback port, three replicas of the `library` example
//! sharing it (`--redis URL`), and Debian's `nginx` in front of them with plain round-robin,
//! then stops everything it started by PID. `redis-server` and `nginx` are installed with
//! `apt-get` when the machine lacks them. The scenarios build with the workspace's test
//! features, so after `cargo test --workspace --all-features` nothing is built again.

use std::io::{BufRead, BufReader};
use std::process::{ExitCode, Stdio};

use crate::workspace_root;

pub(crate) const USAGE: &str = "usage: cargo xtask cluster [--redis-cluster]

Runs the scale-out scenarios: three replicas of the library example sharing Redis, behind
nginx with plain round-robin (interop clients of the TypeScript and Python SDKs in every
negotiation mode, an initialize-era session spread over the replicas, an unreachable Redis).
Prints a line per scenario and `N passed, M failed` last.

  --redis-cluster   run them against a Redis Cluster of three masters (redis-cli --cluster
                    create) instead of a standalone Redis";

pub(crate) fn run(args: &[String]) -> ExitCode {
    let mut cluster = false;
    for arg in args {
        match arg.as_str() {
            "--redis-cluster" => cluster = true,
            other => {
                eprintln!("xtask cluster: unknown option `{other}`\n\n{USAGE}");
                return ExitCode::from(2);
            }
        }
    }
    let mut cargo = crate::cargo();
    cargo
        .args([
            "test",
            "--workspace",
            "--all-features",
            "--test",
            "it",
            "scale_out::",
        ])
        .current_dir(workspace_root())
        .stdout(Stdio::piped());
    if cluster {
        cargo.env("PRESA_SCALE_OUT_REDIS", "cluster");
    }
    let redis = if cluster {
        "a Redis Cluster"
    } else {
        "standalone Redis"
    };
    println!("scale-out scenarios on {redis}:");
    let mut child = match cargo.spawn() {
        Ok(child) => child,
        Err(error) => {
            eprintln!("xtask cluster: could not run cargo: {error}");
            return ExitCode::FAILURE;
        }
    };
    let (mut passed, mut failed) = (0, 0);
    if let Some(stdout) = child.stdout.take() {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let Some(rest) = line.strip_prefix("test scale_out::") else {
                // the failures' details, as the test harness prints them
                let noise = line.starts_with("test result")
                    || line.starts_with("running ")
                    || line.trim().is_empty();
                if !noise {
                    println!("  {line}");
                }
                continue;
            };
            match rest.rsplit_once(" ... ") {
                Some((name, "ok")) => {
                    passed += 1;
                    println!("passed  {name}");
                }
                Some((name, outcome)) => {
                    failed += 1;
                    println!("FAILED  {name} ({outcome})");
                }
                None => println!("  {line}"),
            }
        }
    }
    let status = child.wait();
    println!("{passed} passed, {failed} failed");
    match status {
        Ok(status) if status.success() && failed == 0 && passed > 0 => ExitCode::SUCCESS,
        _ => ExitCode::FAILURE,
    }
}
