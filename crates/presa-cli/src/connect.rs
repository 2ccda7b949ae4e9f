//! Reaching the server the command line names: a command started over stdio, or a URL.

use std::io::IsTerminal as _;
use std::time::Duration;

use presa::client::{Client, ClientChannel, ClientOptions};
use presa::core::Implementation;
use presa::http::HttpClientOptions;
use presa::stdio::{CommandOptions, Stderr};

use crate::args::{Connect, Era};
use crate::failure::Failure;
use crate::input;

/// The name and version presa tells servers.
pub(crate) fn identity() -> Implementation {
    Implementation::new("presa", env!("CARGO_PKG_VERSION"))
}

/// Whether `server` (what follows `--`) is a URL rather than a command.
pub(crate) fn is_url(server: &[String]) -> bool {
    matches!(server, [one] if one.starts_with("http://") || one.starts_with("https://"))
}

/// Connects to the server `connect` names, with the input handlers its options ask for.
pub(crate) async fn connect(connect: &Connect) -> Result<Client, Failure> {
    connect_with(connect, |options| input::handlers(options, &connect.input)).await
}

/// Connects to the server `connect` names, with client options `finish` completes.
pub(crate) async fn connect_with(
    connect: &Connect,
    finish: impl FnOnce(ClientOptions) -> Result<ClientOptions, Failure>,
) -> Result<Client, Failure> {
    let channel = channel(connect)?;
    let timeout = (connect.timeout > 0).then(|| Duration::from_secs(connect.timeout));
    let version = match connect.era {
        Era::Auto => None,
        Era::Pinned(version) => Some(version),
    };
    let options = ClientOptions::new(identity())
        .protocol_version(version)
        .request_timeout(timeout);
    let options = finish(options)?;
    Client::connect(channel, options).await.map_err(|error| {
        if crate::auth::needs_login(&error) {
            let url = &connect.server[0];
            Failure::Protocol(format!(
                "{url} needs a login: run `presa auth login {url}` first"
            ))
        } else {
            error.into()
        }
    })
}

/// Initialize era: asks the server for its log messages of `level` and above, if it logs
/// (2026-07-28 asks with each request instead). A server that refuses still serves: its
/// messages are only missed.
pub(crate) async fn ask_for_logs(client: &Client, level: presa::core::LoggingLevel) {
    let logs = client.info().capabilities.logging.is_some();
    if logs && client.protocol_version().era() == presa::core::Era::Initialize {
        let level = serde_json::json!({ "level": level });
        let _ = client.request_raw("logging/setLevel", level).await;
    }
}

/// The transport to the server.
fn channel(connect: &Connect) -> Result<ClientChannel, Failure> {
    if is_url(&connect.server) {
        let url = &connect.server[0];
        let mut options = connect
            .headers
            .iter()
            .fold(HttpClientOptions::default(), |options, (name, value)| {
                options.header(name, value)
            });
        // the tokens `presa auth login` kept, unless the command line brings its own
        let authorized = connect
            .headers
            .iter()
            .any(|(name, _)| name.eq_ignore_ascii_case("authorization"));
        if !authorized && let Some(oauth) = crate::auth::kept(url) {
            options = options.token_provider(oauth);
        }
        return presa::http::client(url, options)
            .map_err(|error| Failure::Usage(crate::failure::chain(&error)));
    }
    let mut options = CommandOptions::default().stderr(server_stderr());
    for (name, value) in &connect.env {
        options = options.env(name, value);
    }
    if let Some(dir) = &connect.cwd {
        options = options.dir(dir);
    }
    presa::stdio::command(&connect.server, options)
        .map_err(|error| Failure::Transport(crate::failure::chain(&error)))
}

/// The started server's stderr: shown dimmed on a terminal, as it is elsewhere.
fn server_stderr() -> Stderr {
    if std::io::stderr().is_terminal() {
        Stderr::lines(|line| eprintln!("\x1b[2m{line}\x1b[0m"))
    } else {
        Stderr::lines(|line| eprintln!("{line}"))
    }
}
