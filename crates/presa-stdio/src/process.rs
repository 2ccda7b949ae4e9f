//! The tasks around a server process: stdin writer, stdout reader, stderr reader, and the
//! supervisor that notices the end, shuts the process down and reaps it.

use std::collections::VecDeque;
use std::fmt;
use std::io;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::process::ExitStatus;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use presa_client::{IncomingSender, TransportError, TransportErrorKind, TransportEvent};
use presa_core::{Message, Packet, Transmit, decode_packet};
use tokio::process::{Child, ChildStderr, ChildStdin, ChildStdout};
use tokio::runtime::Handle;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio::time::{self, Instant};

use crate::framing::{Line, LineReader, LineWriter, excerpt, is_blank};

/// What becomes of the server's stderr.
///
/// A stdio server logs there; the client does not read it as an error signal. When it is
/// captured ([`Stderr::Lines`]) the last lines are kept and quoted in the error the client gets
/// if the server exits unexpectedly.
#[derive(Clone, Default)]
#[non_exhaustive]
pub enum Stderr {
    /// The server writes to this process's stderr directly (the default).
    #[default]
    Inherit,
    /// Discarded.
    Null,
    /// Captured: the function is called with each line (without its line ending; lines longer
    /// than 16 KiB are cut), on a task of its own, and the last 20 lines are kept for error
    /// messages. It runs on the runtime: keep it quick (log, send on a channel). If it panics,
    /// it is not called again (stderr is still drained, so the server never blocks on it).
    Lines(Arc<dyn Fn(&str) + Send + Sync>),
}

impl Stderr {
    /// [`Stderr::Lines`] with `f`.
    ///
    /// ```
    /// use presa_stdio::{CommandOptions, Stderr};
    ///
    /// let options = CommandOptions::default().stderr(Stderr::lines(|line| eprintln!("[server] {line}")));
    /// # drop(options);
    /// ```
    pub fn lines(f: impl Fn(&str) + Send + Sync + 'static) -> Self {
        Self::Lines(Arc::new(f))
    }
}

impl fmt::Debug for Stderr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Inherit => f.write_str("Inherit"),
            Self::Null => f.write_str("Null"),
            Self::Lines(_) => f.write_str("Lines(..)"),
        }
    }
}

/// After the server exits, how long its stdout and stderr may take to reach their end (a child
/// of the server may hold them open).
const DRAIN: Duration = Duration::from_millis(500);
/// How often a writer stuck on a server that does not read checks whether the client closed.
const STUCK_CHECK: Duration = Duration::from_millis(100);
/// Stderr lines longer than this are cut.
const STDERR_LINE_MAX: usize = 16 * 1024;
/// How many stderr lines are kept for error messages, and how long each may be there.
const TAIL_LINES: usize = 20;
const TAIL_LINE_MAX: usize = 1024;

/// Everything [`start`] needs: the spawned process and both ends of the client's channel.
pub(crate) struct Pipes {
    pub(crate) child: Child,
    pub(crate) outgoing: mpsc::Receiver<Transmit>,
    /// Tells whether the client still holds its sender, without keeping it open.
    pub(crate) client_handle: mpsc::WeakSender<Transmit>,
    pub(crate) events: IncomingSender,
    pub(crate) stderr: Stderr,
    pub(crate) close_timeout: Duration,
    pub(crate) max_line_bytes: usize,
}

/// Spawns the tasks serving the pipes of `pipes.child`.
pub(crate) fn start(runtime: &Handle, pipes: Pipes) -> io::Result<()> {
    let Pipes {
        mut child,
        outgoing,
        client_handle,
        events,
        stderr,
        close_timeout,
        max_line_bytes,
    } = pipes;
    let missing = |name: &str| io::Error::other(format!("the server's {name} is not piped"));
    let stdin = child.stdin.take().ok_or_else(|| missing("stdin"))?;
    let stdout = child.stdout.take().ok_or_else(|| missing("stdout"))?;
    let tail = StderrTail::default();
    let stderr = match (stderr, child.stderr.take()) {
        (Stderr::Lines(f), Some(pipe)) => Some(runtime.spawn(read_stderr(pipe, f, tail.clone()))),
        _ => None,
    };
    let writer = runtime.spawn(write_stdin(stdin, outgoing, client_handle));
    let reader = runtime.spawn(read_stdout(stdout, events.clone(), max_line_bytes));
    runtime.spawn(supervise(Supervised {
        child,
        writer,
        reader,
        stderr,
        tail,
        events,
        close_timeout,
    }));
    Ok(())
}

/// How the stdin writer ended.
enum WriterEnd {
    /// The client dropped its sender: everything queued was written (or the server stopped
    /// reading), and the server's stdin is now closed.
    ClientClosed,
    /// Writing failed.
    Failed(io::Error),
}

async fn write_stdin(
    stdin: ChildStdin,
    mut queue: mpsc::Receiver<Transmit>,
    client: mpsc::WeakSender<Transmit>,
) -> WriterEnd {
    let mut writer = LineWriter::new(stdin);
    while let Some(first) = queue.recv().await {
        tokio::select! {
            biased;
            written = writer.write_burst(first, &mut queue) => {
                if let Err(error) = written {
                    return WriterEnd::Failed(error);
                }
            }
            // a server that does not read its stdin must not keep a closing client waiting
            () = client_gone(&client) => break,
        }
    }
    WriterEnd::ClientClosed
}

async fn client_gone(client: &mpsc::WeakSender<Transmit>) {
    loop {
        time::sleep(STUCK_CHECK).await;
        if client.strong_count() == 0 {
            return;
        }
    }
}

/// Delivers the server's messages to the client until its stdout ends.
async fn read_stdout(stdout: ChildStdout, events: IncomingSender, max: usize) {
    let mut lines = LineReader::new(stdout, max, false);
    // once the client stops listening, keep draining so that the server never blocks on us
    let mut listening = true;
    let mut deliver = async |message: Message, bytes: usize| {
        if listening
            && events
                .send(TransportEvent::Message(message), bytes)
                .await
                .is_err()
        {
            listening = false;
        }
    };
    loop {
        match lines.next_line().await {
            Ok(None) => return,
            Err(error) => {
                tracing::warn!(target: "presa_stdio", %error, "reading the server's stdout failed");
                return;
            }
            Ok(Some(Line::TooLong { .. })) => {
                tracing::warn!(
                    target: "presa_stdio",
                    max,
                    "skipping a line from the server longer than the limit"
                );
            }
            Ok(Some(Line::Full(bytes))) if is_blank(&bytes) => {}
            Ok(Some(Line::Full(bytes))) => match decode_packet(&bytes, true) {
                Ok(Packet::Single(message)) => deliver(message, bytes.len()).await,
                Ok(Packet::Batch(members)) => {
                    let share = bytes.len() / members.len().max(1);
                    for member in members {
                        match member {
                            Ok(message) => deliver(message, share).await,
                            Err(error) => tracing::warn!(
                                target: "presa_stdio",
                                %error,
                                "skipping a batch member from the server"
                            ),
                        }
                    }
                }
                Err(error) => {
                    tracing::warn!(
                        target: "presa_stdio",
                        %error,
                        line = %excerpt(&bytes),
                        "skipping a line from the server that is not a message"
                    );
                }
            },
        }
    }
}

/// The last lines the server wrote on stderr.
#[derive(Clone, Debug, Default)]
struct StderrTail(Arc<Mutex<VecDeque<String>>>);

impl StderrTail {
    fn push(&self, line: &str) {
        if line.trim().is_empty() {
            return;
        }
        let mut lines = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if lines.len() == TAIL_LINES {
            lines.pop_front();
        }
        lines.push_back(truncate(line, TAIL_LINE_MAX));
    }

    fn text(&self) -> Option<String> {
        let lines = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        (!lines.is_empty()).then(|| {
            lines
                .iter()
                .map(String::as_str)
                .collect::<Vec<_>>()
                .join("\n")
        })
    }
}

fn truncate(line: &str, max: usize) -> String {
    if line.len() <= max {
        return line.to_owned();
    }
    let mut end = max;
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &line[..end])
}

async fn read_stderr(pipe: ChildStderr, each: Arc<dyn Fn(&str) + Send + Sync>, tail: StderrTail) {
    let mut lines = LineReader::new(pipe, STDERR_LINE_MAX, true);
    let mut calling = true;
    while let Ok(Some(line)) = lines.next_line().await {
        let text = match line {
            Line::Full(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Line::TooLong { head } => format!("{}…", String::from_utf8_lossy(&head)),
        };
        tail.push(&text);
        // a panicking callback must not stop the draining: the server would block on stderr
        if calling && catch_unwind(AssertUnwindSafe(|| each(&text))).is_err() {
            calling = false;
            tracing::warn!(
                target: "presa_stdio",
                "the stderr callback panicked; the server's stderr is no longer passed on"
            );
        }
    }
}

struct Supervised {
    child: Child,
    writer: JoinHandle<WriterEnd>,
    reader: JoinHandle<()>,
    stderr: Option<JoinHandle<()>>,
    tail: StderrTail,
    events: IncomingSender,
    close_timeout: Duration,
}

/// What ended the session.
enum Trigger {
    Exited,
    ClientClosed,
    WriteFailed(io::Error),
    OutputClosed,
}

/// How far [`stop`] had to go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stopped {
    /// The server exited after its stdin was closed.
    Exited,
    /// It exited after SIGTERM.
    Terminated,
    /// It was killed.
    Killed,
}

async fn supervise(supervised: Supervised) {
    let Supervised {
        mut child,
        mut writer,
        mut reader,
        stderr,
        tail,
        events,
        close_timeout,
    } = supervised;
    let mut reader_done = false;
    let mut exit = None;
    let trigger = tokio::select! {
        status = child.wait() => {
            exit = Some(status);
            Trigger::Exited
        }
        end = &mut writer => match end {
            Ok(WriterEnd::ClientClosed) => Trigger::ClientClosed,
            Ok(WriterEnd::Failed(error)) => Trigger::WriteFailed(error),
            Err(join) => Trigger::WriteFailed(io::Error::other(join.to_string())),
        },
        _ = &mut reader => {
            reader_done = true;
            Trigger::OutputClosed
        }
    };
    // whatever happened, the server gets no more input: this closes its stdin
    writer.abort();
    let (status, stopped) = match exit {
        Some(status) => (status, Stopped::Exited),
        None => stop(&mut child, close_timeout).await,
    };
    // what the server wrote before it exited reaches the client before the end does
    let deadline = Instant::now() + DRAIN;
    if !reader_done && time::timeout_at(deadline, &mut reader).await.is_err() {
        reader.abort();
        tracing::warn!(
            target: "presa_stdio",
            "the server's stdout is still open after it exited (held by a child process?); \
             closing anyway"
        );
    }
    if let Some(mut stderr) = stderr
        && time::timeout_at(deadline, &mut stderr).await.is_err()
    {
        stderr.abort();
    }
    let closed = closed_error(trigger, &status, stopped, &tail);
    let _ = events.send(TransportEvent::Closed(closed), 0).await;
}

/// Closes in steps: wait for the server to exit after its stdin closed, then SIGTERM its
/// process group and wait again, then SIGKILL. Always reaps.
async fn stop(child: &mut Child, timeout: Duration) -> (io::Result<ExitStatus>, Stopped) {
    if let Ok(status) = time::timeout(timeout, child.wait()).await {
        return (status, Stopped::Exited);
    }
    // the step the spec names after closing stdin: routine, not yet a fault
    tracing::info!(
        target: "presa_stdio",
        ?timeout,
        "the server did not exit in time after its stdin was closed; sending SIGTERM"
    );
    terminate(child).await;
    if let Ok(status) = time::timeout(timeout, child.wait()).await {
        return (status, Stopped::Terminated);
    }
    tracing::warn!(
        target: "presa_stdio",
        ?timeout,
        "the server did not exit in time after SIGTERM; sending SIGKILL"
    );
    kill(child).await;
    (child.wait().await, Stopped::Killed)
}

/// SIGTERM to the server's process group (it leads one of its own), through `kill(1)`; where
/// that cannot run, the server alone is killed.
#[cfg(unix)]
async fn terminate(child: &mut Child) {
    if let Err(error) = signal_group(child, "TERM").await {
        tracing::warn!(
            target: "presa_stdio",
            %error,
            "could not run `kill` to send SIGTERM; killing the server instead"
        );
        let _ = child.start_kill();
    }
}

#[cfg(not(unix))]
async fn terminate(child: &mut Child) {
    let _ = child.start_kill();
}

/// SIGKILL to the server's process group, and to the server itself in any case.
async fn kill(child: &mut Child) {
    #[cfg(unix)]
    let _ = signal_group(child, "KILL").await;
    let _ = child.start_kill();
}

/// Sends `signal` to the process group the (not yet reaped) server leads. A group already gone
/// is not an error; only failing to run `kill` is.
#[cfg(unix)]
async fn signal_group(child: &Child, signal: &str) -> io::Result<()> {
    use std::process::Stdio;

    let Some(pid) = child.id() else {
        return Ok(());
    };
    tokio::process::Command::new("kill")
        .args(["-s", signal, "--", &format!("-{pid}")])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .await
        .map(drop)
}

/// The error the client gets, if any: none when it closed the session itself.
fn closed_error(
    trigger: Trigger,
    status: &io::Result<ExitStatus>,
    stopped: Stopped,
    tail: &StderrTail,
) -> Option<TransportError> {
    let (kind, mut message, source) = match (trigger, stopped) {
        (Trigger::ClientClosed, _) => return None,
        (_, Stopped::Exited) => match status {
            Ok(status) => (TransportErrorKind::Closed, describe_exit(*status), None),
            Err(error) => (
                TransportErrorKind::Io,
                "server exited; waiting for it failed".to_owned(),
                Some(io::Error::new(error.kind(), error.to_string())),
            ),
        },
        (Trigger::WriteFailed(error), _) => (
            TransportErrorKind::Io,
            format!("writing to the server failed; {}", describe_stop(stopped)),
            Some(error),
        ),
        (_, _) => (
            TransportErrorKind::Closed,
            format!("server closed its stdout; {}", describe_stop(stopped)),
            None,
        ),
    };
    if let Some(lines) = tail.text() {
        message.push_str("; last stderr: ");
        message.push_str(&lines);
    }
    Some(match source {
        Some(source) => TransportError::with_source(kind, message, source),
        None => TransportError::new(kind, message),
    })
}

fn describe_exit(status: ExitStatus) -> String {
    if let Some(code) = status.code() {
        return format!("server exited with status {code}");
    }
    #[cfg(unix)]
    if let Some(signal) = std::os::unix::process::ExitStatusExt::signal(&status) {
        return format!("server was killed by signal {signal}");
    }
    format!("server exited ({status})")
}

fn describe_stop(stopped: Stopped) -> &'static str {
    match stopped {
        Stopped::Exited => "it exited",
        Stopped::Terminated => "it was terminated",
        Stopped::Killed => "it was killed",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tail_keeps_the_last_lines() {
        let tail = StderrTail::default();
        assert_eq!(tail.text(), None);
        for i in 0..30 {
            tail.push(&format!("line {i}"));
        }
        tail.push("   ");
        let text = tail.text().unwrap_or_default();
        assert_eq!(text.lines().count(), TAIL_LINES);
        assert!(
            text.starts_with("line 10\n") && text.ends_with("line 29"),
            "{text}"
        );
    }

    #[test]
    fn long_tail_lines_are_cut_on_a_char_boundary() {
        let line = "é".repeat(TAIL_LINE_MAX);
        let cut = truncate(&line, TAIL_LINE_MAX + 1);
        assert!(cut.ends_with('…'));
        assert!(cut.len() <= TAIL_LINE_MAX + 4);
        assert_eq!(truncate("short", 10), "short");
    }

    #[test]
    fn errors_name_the_exit_and_the_last_stderr() {
        let tail = StderrTail::default();
        tail.push("boom");
        let status = std::process::Command::new("sh")
            .args(["-c", "exit 4"])
            .status();
        let error = closed_error(Trigger::OutputClosed, &status, Stopped::Exited, &tail);
        let error = error.map(|e| (e.kind(), e.message().to_owned()));
        assert_eq!(
            error,
            Some((
                TransportErrorKind::Closed,
                "server exited with status 4; last stderr: boom".into()
            ))
        );
        assert!(closed_error(Trigger::ClientClosed, &status, Stopped::Killed, &tail).is_none());
        let Some(error) = closed_error(
            Trigger::WriteFailed(io::Error::new(io::ErrorKind::BrokenPipe, "pipe")),
            &status,
            Stopped::Terminated,
            &tail,
        ) else {
            panic!("a failed write is an error");
        };
        assert_eq!(error.kind(), TransportErrorKind::Io);
        let cause = std::error::Error::source(&error)
            .and_then(|e| e.downcast_ref::<io::Error>())
            .map(io::Error::kind);
        assert_eq!(
            cause,
            Some(io::ErrorKind::BrokenPipe),
            "the I/O error is the source"
        );
    }
}
