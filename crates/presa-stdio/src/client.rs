//! The client side: start a server process and speak to it over its stdin and stdout.

use std::ffi::{OsStr, OsString};
use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use presa_client::ClientChannel;
use tokio::sync::mpsc;

use crate::StdioError;
use crate::process::{self, Stderr};

/// How many messages may wait in each direction between the client and the pipes.
const QUEUE: usize = 64;

/// Tunables of [`command`].
///
/// ```
/// use std::time::Duration;
/// use presa_stdio::CommandOptions;
///
/// let options = CommandOptions::default()
///     .dir("/srv/weather")
///     .env("RUST_LOG", "debug")
///     .close_timeout(Duration::from_millis(500));
/// # drop(options);
/// ```
#[derive(Clone, Debug)]
pub struct CommandOptions {
    env: Vec<(OsString, OsString)>,
    dir: Option<PathBuf>,
    stderr: Stderr,
    close_timeout: Duration,
    max_line_bytes: usize,
}

impl Default for CommandOptions {
    /// This process's environment and working directory, stderr inherited, a 2 s close timeout,
    /// lines up to 64 MiB.
    fn default() -> Self {
        Self {
            env: Vec::new(),
            dir: None,
            stderr: Stderr::Inherit,
            close_timeout: Duration::from_secs(2),
            max_line_bytes: 64 * 1024 * 1024,
        }
    }
}

impl CommandOptions {
    /// Sets an environment variable for the server, on top of this process's environment
    /// (adds it, or overrides the inherited value).
    #[must_use]
    pub fn env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> Self {
        self.env.push((key.into(), value.into()));
        self
    }

    /// The server's working directory (default: this process's).
    #[must_use]
    pub fn dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.dir = Some(dir.into());
        self
    }

    /// What becomes of the server's stderr (default [`Stderr::Inherit`]).
    #[must_use]
    pub fn stderr(mut self, stderr: Stderr) -> Self {
        self.stderr = stderr;
        self
    }

    /// How long each step of closing may take (default 2 s). When the client closes, the
    /// server's stdin is closed and it gets this long to exit; then it is sent SIGTERM (with its
    /// process group) and gets this long again; then SIGKILL. The same applies when the server
    /// closes its stdout but stays alive.
    #[must_use]
    pub fn close_timeout(mut self, timeout: Duration) -> Self {
        self.close_timeout = timeout;
        self
    }

    /// The longest line accepted from the server, in bytes (default 64 MiB: results carry whole
    /// files). A longer line is logged and skipped without being stored; the session goes on,
    /// and the request it answered is left to its timeout. The messages waiting for the client
    /// hold at most twice this: past it the transport stops reading the server's stdout.
    #[must_use]
    pub fn max_line_bytes(mut self, max: usize) -> Self {
        self.max_line_bytes = max;
        self
    }
}

/// Starts a server process and returns the channel a presa client connects over.
///
/// `argv[0]` is the program (looked up on `PATH`), the rest its arguments. The server runs in a
/// process group of its own (Unix), with stdin and stdout piped; stderr follows
/// [`CommandOptions::stderr`]. Must be called inside a tokio runtime with I/O and time enabled;
/// the pipes are served by tasks on it.
///
/// - Lines from the server that are not JSON-RPC messages are logged and skipped: like every
///   diagnostic here, as a `tracing` event with target `presa_stdio`.
/// - If the server exits while the client is connected (a crash, or an exit on its own), the
///   client gets [`TransportEvent::Closed`](presa_client::TransportEvent::Closed) with a
///   [`TransportErrorKind::Closed`](presa_client::TransportErrorKind::Closed) error such as
///   `server exited with status 1; last stderr: ...`, right after the messages the server wrote
///   before exiting: every pending request fails at once.
/// - Dropping the channel's `outgoing` (closing the client) closes the server's stdin; a server
///   that does not exit in time is terminated (see [`CommandOptions::close_timeout`]). The
///   process is always reaped. The client then gets `Closed(None)`.
///
/// # Errors
///
/// [`StdioError::EmptyCommand`], [`StdioError::NoRuntime`], or [`StdioError::Spawn`] if the
/// program could not be started.
///
/// ```no_run
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// use presa_stdio::{command, CommandOptions};
///
/// let channel = command(["my-mcp-server", "--verbose"], CommandOptions::default().dir("/srv"))?;
/// // hand `channel` to `presa_client::Client::connect`
/// # drop(channel);
/// # Ok(())
/// # }
/// ```
pub fn command<I, S>(argv: I, options: CommandOptions) -> Result<ClientChannel, StdioError>
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let runtime = tokio::runtime::Handle::try_current().map_err(|_| StdioError::NoRuntime)?;
    let mut argv = argv.into_iter();
    let program = argv.next().ok_or(StdioError::EmptyCommand)?;
    let program = program.as_ref();
    let spawn_error = |source| StdioError::Spawn {
        program: program.to_string_lossy().into_owned(),
        source,
    };

    let mut cmd = tokio::process::Command::new(program);
    cmd.args(argv)
        .envs(options.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(match options.stderr {
            Stderr::Inherit => Stdio::inherit(),
            Stderr::Null => Stdio::null(),
            Stderr::Lines(_) => Stdio::piped(),
        })
        // a backstop if the runtime shuts down with the server still running
        .kill_on_drop(true);
    if let Some(dir) = &options.dir {
        cmd.current_dir(dir);
    }
    #[cfg(unix)]
    cmd.process_group(0);
    let child = {
        let _guard = runtime.enter();
        cmd.spawn().map_err(spawn_error)?
    };

    let (outgoing, outgoing_rx) = mpsc::channel(QUEUE);
    // the server's messages waiting for the client: at most QUEUE of them, and two of the
    // longest lines in bytes, whatever the client's pace
    let (events, incoming) =
        presa_client::incoming(QUEUE, options.max_line_bytes.saturating_mul(2));
    let pipes = process::Pipes {
        child,
        outgoing: outgoing_rx,
        client_handle: outgoing.downgrade(),
        events,
        stderr: options.stderr,
        close_timeout: options.close_timeout,
        max_line_bytes: options.max_line_bytes,
    };
    process::start(&runtime, pipes).map_err(spawn_error)?;
    Ok(ClientChannel::new(outgoing, incoming).with_network("pipe", None))
}
