//! The command line, as clap reads it.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use presa::core::{LoggingLevel, ProtocolVersion};

/// Inspect and call any MCP server, over stdio or Streamable HTTP.
///
/// The server comes last, after `--`: a command to start over stdio, or an http(s):// URL.
///
///   presa tools -- npx -y @modelcontextprotocol/server-everything
///
///   presa call add a=1 b=2 -- https://example.com/mcp
#[derive(Debug, Parser)]
#[command(name = "presa", version, verbatim_doc_comment)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// The server's identity, capabilities and negotiated revision.
    Info(Plain),
    /// The server's tools: name, title and description.
    Tools {
        /// Show each tool's input and output schemas too.
        #[arg(long)]
        schema: bool,
        #[command(flatten)]
        plain: Plain,
    },
    /// Calls a tool with arguments `name=value` (a value that reads as JSON is JSON, else
    /// text). Exits with 1 when the tool answers with an error result.
    Call {
        /// The tool.
        tool: String,
        /// Its arguments, `name=value`.
        #[arg(value_name = "NAME=VALUE")]
        arguments: Vec<String>,
        /// Print exact JSON. With a value, the arguments as one JSON object (`-` reads it from
        /// stdin). It takes the next word as that value: for JSON output with NAME=VALUE
        /// arguments, put it last.
        #[arg(long, value_name = "ARGUMENTS", num_args = 0..=1, default_missing_value = "")]
        json: Option<String>,
        #[command(flatten)]
        save: Save,
        #[command(flatten)]
        connect: Connect,
    },
    /// The server's resources.
    Resources(Plain),
    /// The server's resource templates.
    Templates(Plain),
    /// Reads a resource: its text, or a summary of its bytes (`--save DIR` writes them out).
    Read {
        /// The resource's URI.
        uri: String,
        #[command(flatten)]
        save: Save,
        #[command(flatten)]
        plain: Plain,
    },
    /// The server's prompts.
    Prompts(Plain),
    /// Gets a prompt with arguments `name=value`.
    Prompt {
        /// The prompt.
        name: String,
        /// Its arguments, `name=value`.
        #[arg(value_name = "NAME=VALUE")]
        arguments: Vec<String>,
        #[command(flatten)]
        plain: Plain,
    },
    /// Completions for a prompt's argument or a resource template's variable, given the value
    /// typed so far.
    Complete {
        /// What the argument belongs to.
        kind: Completing,
        /// The prompt's name, or the template's URI template.
        reference: String,
        /// The argument (or variable).
        argument: String,
        /// The value typed so far.
        #[arg(default_value = "")]
        value: String,
        /// The values of arguments already chosen, `name=value` (repeatable).
        #[arg(long = "context", value_name = "NAME=VALUE", value_parser = name_value)]
        context: Vec<(String, String)>,
        #[command(flatten)]
        plain: Plain,
    },
    /// Prints list changes (and updates of the resources named with `--resource`) until
    /// interrupted.
    Listen {
        /// A resource to watch for updates (repeatable).
        #[arg(long = "resource", value_name = "URI")]
        resources: Vec<String>,
        #[command(flatten)]
        plain: Plain,
    },
    /// Checks that the server answers, and how fast: `ping` in the initialize era, a
    /// `server/discover` round trip on 2026-07-28 (which has no ping).
    Ping(Plain),
    /// Serves one server in another transport, both eras on each side: a stdio server as
    /// Streamable HTTP (`--listen HOST:PORT -- CMD…`), or a remote HTTP server to a local stdio
    /// host (`--stdio URL`, with the kept OAuth tokens).
    Proxy(Proxy),
    /// Logs in to protected servers with OAuth, and keeps the tokens for every command.
    Auth {
        #[command(subcommand)]
        command: AuthCommand,
    },
}

/// `presa auth …`.
#[derive(Debug, Subcommand)]
pub(crate) enum AuthCommand {
    /// Logs in to the MCP server at URL: the authorization code flow with PKCE, the page opened
    /// in a browser, the answer taken on a loopback port of 127.0.0.1. The tokens are kept
    /// (and refreshed) for every later command on that URL.
    Login {
        /// The MCP server's URL.
        url: String,
        /// Print the page to open instead of opening a browser.
        #[arg(long)]
        no_browser: bool,
        /// A scope to ask for (repeatable; default: the ones the server names).
        #[arg(long = "scope", value_name = "SCOPE")]
        scopes: Vec<String>,
        /// A client id registered at the authorization server beforehand (default: a client
        /// ID metadata document with --client-metadata-url, else dynamic registration).
        #[arg(long, value_name = "ID")]
        client_id: Option<String>,
        /// The secret of --client-id, for a confidential client.
        #[arg(
            long,
            value_name = "SECRET",
            requires = "client_id",
            env = "PRESA_CLIENT_SECRET"
        )]
        client_secret: Option<String>,
        /// The HTTPS URL of a client ID metadata document naming this URL as its client_id
        /// and http://127.0.0.1 as a redirect URI.
        #[arg(long, value_name = "URL")]
        client_metadata_url: Option<String>,
        /// Seconds to wait for the login to finish.
        #[arg(long, value_name = "SECONDS", default_value_t = 300)]
        timeout: u64,
    },
    /// The servers with kept tokens: who issued them, until when, with which scopes.
    Status {
        /// Only this server.
        url: Option<String>,
        /// Print exact JSON.
        #[arg(long)]
        json: bool,
    },
    /// Forgets the tokens kept for the server at URL (its client registration stays).
    Logout {
        /// The MCP server's URL.
        #[arg(required_unless_present = "all")]
        url: Option<String>,
        /// Forget the tokens of every server.
        #[arg(long, conflicts_with = "url")]
        all: bool,
    },
}

/// `presa proxy`.
#[derive(Debug, Args)]
pub(crate) struct Proxy {
    /// Serve the command after `--` as Streamable HTTP at this address (`/mcp`), with the Host
    /// and Origin guards on; prints `listening URL`.
    #[arg(long, value_name = "HOST:PORT", required_unless_present = "stdio")]
    pub(crate) listen: Option<String>,
    /// Serve the Streamable HTTP server at this URL on stdio.
    #[arg(long, value_name = "URL", conflicts_with = "listen")]
    pub(crate) stdio: Option<String>,
    /// The server to serve with --listen, after `--`.
    #[arg(last = true, value_name = "SERVER", required_unless_present = "stdio")]
    pub(crate) server: Vec<String>,
    /// An environment variable of the started server, `K=V` (repeatable).
    #[arg(long = "env", value_name = "K=V", value_parser = name_value)]
    pub(crate) env: Vec<(String, String)>,
    /// The started server's working directory.
    #[arg(long, value_name = "DIR")]
    pub(crate) cwd: Option<PathBuf>,
    /// A header of every HTTP request to the URL, `K:V` (repeatable).
    #[arg(long = "header", value_name = "K:V", value_parser = header)]
    pub(crate) headers: Vec<(String, String)>,
    /// The revision spoken to the proxied server (the proxy's own side speaks every one).
    #[arg(long, value_name = "ERA", default_value = "auto", value_parser = era)]
    pub(crate) era: Era,
    /// Seconds to wait for each answer of the proxied server (0: no limit).
    #[arg(long, value_name = "SECONDS", default_value_t = 0)]
    pub(crate) timeout: u64,
}

impl Proxy {
    /// The proxied server, as the other subcommands name theirs.
    pub(crate) fn upstream(&self) -> Connect {
        Connect {
            server: match &self.stdio {
                Some(url) => vec![url.clone()],
                None => self.server.clone(),
            },
            env: self.env.clone(),
            cwd: self.cwd.clone(),
            headers: self.headers.clone(),
            era: self.era,
            timeout: self.timeout,
            log_level: LoggingLevel::Debug,
            input: InputOptions::default(),
        }
    }
}

/// What to complete.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub(crate) enum Completing {
    /// A prompt's argument.
    Prompt,
    /// A resource template's variable.
    Template,
}

/// The options of a subcommand that prints a result: the connection, and JSON or words.
#[derive(Debug, Args)]
pub(crate) struct Plain {
    /// Print exact JSON, one result per line, for scripts.
    #[arg(long)]
    pub(crate) json: bool,
    #[command(flatten)]
    pub(crate) connect: Connect,
}

/// Where the bytes of images, audio and blobs go.
#[derive(Debug, Args)]
pub(crate) struct Save {
    /// Write images, audio and blobs to this folder (by default they are only summarized).
    #[arg(long, value_name = "DIR")]
    pub(crate) save: Option<PathBuf>,
}

/// The server, and how to talk to it.
#[derive(Debug, Args)]
pub(crate) struct Connect {
    /// The server, after `--`: a command to start over stdio, or an http(s):// URL.
    #[arg(last = true, required = true, value_name = "SERVER")]
    pub(crate) server: Vec<String>,
    /// An environment variable of the started server, `K=V` (repeatable).
    #[arg(long = "env", value_name = "K=V", value_parser = name_value)]
    pub(crate) env: Vec<(String, String)>,
    /// The started server's working directory.
    #[arg(long, value_name = "DIR")]
    pub(crate) cwd: Option<PathBuf>,
    /// A header of every HTTP request to a URL, `K:V` (repeatable).
    #[arg(long = "header", value_name = "K:V", value_parser = header)]
    pub(crate) headers: Vec<(String, String)>,
    /// The protocol revision: `auto` (the newest both speak), `2026-07-28`, `legacy` (the
    /// newest initialize-era one), or any revision.
    #[arg(long, value_name = "ERA", default_value = "auto", value_parser = era)]
    pub(crate) era: Era,
    /// Seconds to wait for each answer (0: no limit).
    #[arg(long, value_name = "SECONDS", default_value_t = 60)]
    pub(crate) timeout: u64,
    /// The server's log messages shown on stderr: this level and above (debug, info, notice,
    /// warning, error, critical, alert, emergency).
    #[arg(long, value_name = "LEVEL", default_value = "info", value_parser = log_level)]
    pub(crate) log_level: LoggingLevel,
    #[command(flatten)]
    pub(crate) input: InputOptions,
}

/// How the server's requests for input are answered.
#[derive(Clone, Debug, Default, Args)]
pub(crate) struct InputOptions {
    /// Answer the server's elicitation with this field, `field=value` (repeatable), instead of
    /// asking on the terminal.
    #[arg(long = "answer", value_name = "FIELD=VALUE", value_parser = name_value)]
    pub(crate) answers: Vec<(String, String)>,
    /// Decline every elicitation.
    #[arg(long, conflicts_with = "answers")]
    pub(crate) decline: bool,
    /// Answer sampling with this command: it reads the request as JSON on stdin and prints
    /// the result as JSON (sampling is refused without it).
    #[arg(long, value_name = "CMD")]
    pub(crate) sampling_cmd: Option<String>,
    /// A root the server may work in (repeatable).
    #[arg(long = "root", value_name = "DIR")]
    pub(crate) roots: Vec<PathBuf>,
}

/// The revision asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Era {
    /// The newest revision both sides speak.
    Auto,
    /// This revision.
    Pinned(ProtocolVersion),
}

fn era(text: &str) -> Result<Era, String> {
    match text {
        "auto" => Ok(Era::Auto),
        "legacy" => Ok(Era::Pinned(ProtocolVersion::LATEST_INITIALIZE_ERA)),
        _ => text.parse().map(Era::Pinned).map_err(|_| {
            let known: Vec<&str> = ProtocolVersion::ALL.iter().map(|v| v.as_str()).collect();
            format!("not auto, legacy or a revision ({})", known.join(", "))
        }),
    }
}

fn log_level(text: &str) -> Result<LoggingLevel, String> {
    serde_json::from_value(serde_json::Value::String(text.to_owned()))
        .map_err(|_| format!("{text:?} is not a log level"))
}

/// `name=value`, split at the first `=`.
pub(crate) fn name_value(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((name, value)) if !name.is_empty() => Ok((name.to_owned(), value.to_owned())),
        _ => Err(format!("{text:?} is not NAME=VALUE")),
    }
}

/// `K:V`, split at the first `:`, the value trimmed.
fn header(text: &str) -> Result<(String, String), String> {
    match text.split_once(':') {
        Some((name, value)) if !name.trim().is_empty() => {
            Ok((name.trim().to_owned(), value.trim().to_owned()))
        }
        _ => Err(format!("{text:?} is not NAME:VALUE")),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use clap::CommandFactory as _;

    use super::*;

    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn eras_names_and_headers_read_as_documented() {
        assert_eq!(era("auto"), Ok(Era::Auto));
        assert_eq!(
            era("legacy"),
            Ok(Era::Pinned(ProtocolVersion::LATEST_INITIALIZE_ERA))
        );
        assert_eq!(
            era("2025-03-26"),
            Ok(Era::Pinned(ProtocolVersion::V2025_03_26))
        );
        assert!(era("2020-01-01").unwrap_err().contains("2026-07-28"));
        assert_eq!(name_value("a=b=c"), Ok(("a".into(), "b=c".into())));
        assert!(name_value("=b").is_err());
        assert_eq!(
            header("Authorization: Bearer x"),
            Ok(("Authorization".into(), "Bearer x".into()))
        );
        assert!(header("nocolon").is_err());
    }

    #[test]
    fn a_server_comes_after_the_double_dash_and_json_takes_an_optional_value() {
        let cli =
            Cli::try_parse_from(["presa", "call", "add", "a=1", "--", "srv", "--flag"]).unwrap();
        let Command::Call {
            tool,
            arguments,
            json,
            connect,
            ..
        } = cli.command
        else {
            panic!("not call");
        };
        assert_eq!(
            (tool.as_str(), arguments, json),
            ("add", vec!["a=1".into()], None)
        );
        assert_eq!(connect.server, ["srv", "--flag"]);

        let cli = Cli::try_parse_from(["presa", "call", "add", "--json", "{\"a\":1}", "--", "srv"])
            .unwrap();
        let Command::Call { json, .. } = cli.command else {
            panic!("not call");
        };
        assert_eq!(json.as_deref(), Some("{\"a\":1}"));
        let cli = Cli::try_parse_from(["presa", "call", "add", "--json", "--", "srv"]).unwrap();
        let Command::Call { json, .. } = cli.command else {
            panic!("not call");
        };
        assert_eq!(json.as_deref(), Some(""));
        assert!(Cli::try_parse_from(["presa", "tools"]).is_err());
    }
}
