//! The rows of the newer workloads: presa-bench's `workloads` server against the strict
//! baseline answering the very result presa answered (captured from presa before the runs),
//! one `resources/updated` fanned out to 10,000 listens on one `notes` process, and presa's HTTP
//! client against rmcp's.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use serde_json::value::RawValue;
use tokio::net::TcpStream;

use super::Bench;
use super::cluster::LISTENS;
use super::http::{self, Call, Era};
use super::measure::{Run, Side, cpu_window};
use super::process;
use super::table::{Row, Target};

/// Progress notifications of the progress-sse call (the workloads server's `progress`).
const PROGRESS_STEPS: u32 = 1_000;

/// One row of the workloads server.
struct Workload {
    name: &'static str,
    call: Call,
    connections: usize,
    /// The least share of the baseline's throughput, if the row has a target.
    target: Option<f64>,
    /// Events per call: the row counts SSE events, not calls.
    events: f64,
}

/// About 100 KB of `args`'s arguments: 1,000 items of about 100 bytes.
fn big_arguments() -> String {
    let items: Vec<String> = (0..1_000)
        .map(|i| {
            format!(
                r#"{{"id":{i},"name":"item number {i:05} of the list","tags":["alpha","beta","gamma"],"score":{}.25}}"#,
                i % 97
            )
        })
        .collect();
    format!(r#"{{"items":[{}]}}"#, items.join(","))
}

fn workloads() -> Vec<Workload> {
    let read = |uri: &'static str| Call {
        method: "resources/read",
        name: Some(uri),
        params: format!(r#""uri":"{uri}""#),
        meta: "",
    };
    let arguments = big_arguments();
    vec![
        Workload {
            name: "list-1000",
            call: Call {
                method: "tools/list",
                name: None,
                params: String::new(),
                meta: "",
            },
            connections: 64,
            target: Some(0.80),
            events: 1.0,
        },
        Workload {
            name: "read-1mib-blob",
            call: read("bench://blob"),
            connections: 8,
            target: Some(0.80),
            events: 1.0,
        },
        Workload {
            name: "read-1mib-text",
            call: read("bench://text"),
            connections: 8,
            target: Some(0.80),
            events: 1.0,
        },
        Workload {
            name: "args-100k",
            call: Call::tool("args", arguments.clone()),
            connections: 8,
            target: None,
            events: 1.0,
        },
        Workload {
            name: "args-100k-full",
            call: Call::tool("args_full", arguments),
            connections: 8,
            target: None,
            events: 1.0,
        },
        Workload {
            name: "progress-sse",
            call: Call {
                meta: r#""progressToken":"p""#,
                ..Call::tool("progress", "{}".to_owned())
            },
            connections: 8,
            target: Some(0.70),
            events: f64::from(PROGRESS_STEPS + 1),
        },
    ]
}

/// The names of the rows here, for `--row`.
pub(super) const WORKLOAD_ROWS: [&str; 8] = [
    "list-1000",
    "read-1mib-blob",
    "read-1mib-text",
    "args-100k",
    "args-100k-full",
    "progress-sse",
    "listen-fanout",
    "client-http-64",
];

/// The `result` of the JSON-RPC response in `body`: a JSON body, or SSE events (which start
/// with a field name, never `{`), whose last event holds the response.
fn last_result(body: &str) -> Result<String, String> {
    let body = body.trim();
    let json = if body.starts_with('{') {
        body
    } else {
        let at = body
            .rfind("data: ")
            .ok_or_else(|| format!("neither JSON nor SSE events: {body}"))?;
        body[at + "data: ".len()..].trim()
    };
    let members: HashMap<String, Box<RawValue>> =
        serde_json::from_str(json).map_err(|e| format!("not a JSON-RPC response ({e}): {json}"))?;
    members
        .get("result")
        .map(|result| result.get().to_owned())
        .ok_or_else(|| format!("no result in {json}"))
}

impl Bench {
    /// The workload rows the options ask for.
    pub(super) async fn workload_rows(&self, rows: &mut Vec<Row>) -> Result<(), String> {
        let presa = self.bins.join("workloads");
        let baseline = self.bins.join("axum_baseline");
        let http = ["--http", "127.0.0.1:0"];
        for workload in workloads() {
            if !self.wanted(workload.name) {
                continue;
            }
            let name = workload.name;
            let call = &workload.call;
            // the baseline answers the very result presa answers
            let reply = self.capture(&presa, &http, call, workload.events).await?;
            let file = self.reply_file(name, &reply)?;
            let reply_arg = format!("{}={}", call.method, file.display());
            let mut base_args = vec!["127.0.0.1:0", "--reply", &reply_arg];
            let steps = PROGRESS_STEPS.to_string();
            if workload.events > 1.0 {
                base_args.extend(["--progress", &steps]);
            }
            let (mut presa_runs, mut base_runs) = (Vec::new(), Vec::new());
            for repeat in 1..=self.options.repeats {
                eprintln!("{name}: run {repeat}/{}", self.options.repeats);
                let connections = workload.connections;
                let run = self.http_call(&presa, &http, connections, Era::Stateless, call);
                presa_runs.push(per_event(run.await?, workload.events));
                let run = self.http_call(&baseline, &base_args, connections, Era::Stateless, call);
                base_runs.push(per_event(run.await?, workload.events));
            }
            let target = match workload.target {
                Some(target) => Target::Ratio(target),
                None => Target::Report(
                    "the baseline skims the arguments; presa builds and validates them".into(),
                ),
            };
            let row = Row::new(name, Side::of(&presa_runs), target);
            rows.push(row.baseline(Side::of(&base_runs)));
        }
        if self.wanted("listen-fanout") {
            let notes = self.examples.join("notes");
            let most = (LISTENS + 64).to_string();
            let mut runs = Vec::new();
            for repeat in 1..=self.options.repeats {
                eprintln!("listen-fanout: run {repeat}/{}", self.options.repeats);
                let args = ["--http", "127.0.0.1:0", "--max-connections", &most];
                let mut server =
                    process::start_http(&notes, &args, self.server_cpus.as_deref()).await?;
                let run = self.fanout_over(std::slice::from_ref(&server)).await;
                server.stop().await;
                runs.push(run?);
            }
            let side = Side::of(&runs);
            let last_ms = f64::from(side.median.p99_us) / 1000.0;
            let target = Target::Report(format!(
                "{LISTENS} listens on one process told of one update (last after {last_ms:.1} ms)"
            ));
            rows.push(Row::new("listen-fanout", side, target));
        }
        if self.wanted("client-http-64") {
            let presa = self.bins.join("http_client");
            let rmcp = self.options.peers.then(|| self.bins.join("rmcp_client"));
            let (mut presa_runs, mut rmcp_runs) = (Vec::new(), Vec::new());
            for repeat in 1..=self.options.repeats {
                eprintln!("client-http-64: run {repeat}/{}", self.options.repeats);
                presa_runs.push(self.client_run(&presa, &baseline).await?);
                if let Some(rmcp) = &rmcp {
                    rmcp_runs.push(self.client_run(rmcp, &baseline).await?);
                }
            }
            let target = Target::Report("client CPU per call: the CPU column".into());
            let rmcp = (!rmcp_runs.is_empty()).then(|| Side::of(&rmcp_runs));
            rows.push(Row::new("client-http-64", Side::of(&presa_runs), target).rmcp(rmcp));
        }
        Ok(())
    }

    /// The result `program` answers `call` with, from a fresh server; the answer must hold
    /// `events` SSE events when there are more than one (the row counts them).
    async fn capture(
        &self,
        program: &Path,
        args: &[&str],
        call: &Call,
        events: f64,
    ) -> Result<String, String> {
        let mut server = process::start_http(program, args, self.server_cpus.as_deref()).await?;
        let answer = async {
            let mut stream = TcpStream::connect(&server.address)
                .await
                .map_err(|e| format!("connect {}: {e}", server.address))?;
            let request = call.request(Era::Stateless, &server.address, &server.path, None);
            let (status, body) =
                http::exchange_body(&mut stream, &mut Vec::new(), &request).await?;
            if status != 200 {
                return Err(format!("{} answered {status}: {body}", call.method));
            }
            let sent = body.matches("data: ").count();
            if events > 1.0 && sent as f64 != events {
                return Err(format!("{} sent {sent} events, not {events}", call.method));
            }
            last_result(&body)
        }
        .await;
        server.stop().await;
        answer
    }

    /// Writes `result` where the baseline reads its reply for `row`.
    fn reply_file(&self, row: &str, result: &str) -> Result<PathBuf, String> {
        let dir = self.bins.join("bench-replies");
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let file = dir.join(format!("{row}.json"));
        std::fs::write(&file, result).map_err(|e| format!("{}: {e}", file.display()))?;
        Ok(file)
    }

    /// One run of a client program (`http_client`, `rmcp_client`) with 64 callers against a
    /// fresh strict baseline; the client's CPU per call from `/proc`.
    async fn client_run(&self, client: &Path, baseline: &Path) -> Result<Run, String> {
        let mut server =
            process::start_http(baseline, &["127.0.0.1:0"], self.server_cpus.as_deref()).await?;
        let url = format!("http://{}{}", server.address, server.path);
        // the client's window starts after its connect, a few milliseconds after this one: a
        // share of the CPU window far below its noise
        let (warmup, duration) = (self.options.warmup, self.options.duration);
        // on the driver's CPU: the driver only waits while it runs
        let child = process::command(client, self.driver_cpus.as_deref())
            .args(["--url", &url, "--callers", "64"])
            .arg("--warmup")
            .arg(warmup.as_secs_f64().to_string())
            .arg("--duration")
            .arg(duration.as_secs_f64().to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", client.display()))?;
        let pid = child.id().ok_or("the client exited at once")?;
        let (warm, stop) = self.window();
        let (cpu, output) = tokio::join!(cpu_window(pid, warm, stop), child.wait_with_output());
        server.stop().await;
        let output = output.map_err(|e| format!("{}: {e}", client.display()))?;
        if !output.status.success() {
            return Err(format!("{} failed", client.display()));
        }
        let (ticks, peak) = cpu?;
        let mut run = process::report(&output.stdout, client)?;
        let calls = run.throughput * duration.as_secs_f64();
        run.cpu_us = Some(ticks as f64 / self.ticks * 1e6 / calls.max(1.0));
        run.peak_rss_kib = Some(peak);
        Ok(run)
    }
}

/// `run` counted in events of which each call makes `events`.
fn per_event(mut run: Run, events: f64) -> Run {
    run.throughput *= events;
    run
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn the_result_is_read_from_json_and_from_the_last_sse_event() {
        let json = r#"{"jsonrpc":"2.0","id":1,"result":{"a":[1, 2]}}"#;
        assert_eq!(last_result(json).unwrap(), r#"{"a":[1, 2]}"#);
        let sse =
            "data: {\"jsonrpc\":\"2.0\",\"method\":\"n\"}\n\ndata: {\"id\":1,\"result\":{}}\n\n";
        assert_eq!(last_result(sse).unwrap(), "{}");
        assert!(last_result(r#"{"id":1,"error":{}}"#).is_err());
        // a JSON body that holds the text of an SSE field is still read as JSON
        let quoted = r#"{"id":1,"result":{"text":"data: x"}}"#;
        assert_eq!(last_result(quoted).unwrap(), r#"{"text":"data: x"}"#);
    }

    #[test]
    fn the_arguments_are_about_100_kb() {
        let size = big_arguments().len();
        assert!((90_000..130_000).contains(&size), "{size}");
    }
}
