//! The server side: a presa server on stdin and stdout.

use std::fmt;
use std::io;

use presa_core::{ErrorObject, Response, Transmit};
use presa_server::{
    ConnectionOptions, Incoming, Server, ServerChannel, Transport, serve_connection,
};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::mpsc;

use crate::StdioError;
use crate::framing::{Line, LineReader, LineWriter, is_blank};

/// How many messages may wait in each direction between the pipes and the connection.
const QUEUE: usize = 64;

/// Tunables of [`serve`].
///
/// ```
/// use presa_stdio::ServeOptions;
///
/// let options = ServeOptions::default()
///     .max_line_bytes(1_000_000);
/// # drop(options);
/// ```
pub struct ServeOptions {
    input: Option<Box<dyn AsyncRead + Unpin + Send>>,
    output: Option<Box<dyn AsyncWrite + Unpin + Send>>,
    max_line_bytes: usize,
    connection: ConnectionOptions,
}

impl Default for ServeOptions {
    /// stdin and stdout, lines up to 2,000,000 bytes, default connection options.
    fn default() -> Self {
        Self {
            input: None,
            output: None,
            max_line_bytes: 2_000_000,
            connection: ConnectionOptions::default(),
        }
    }
}

impl fmt::Debug for ServeOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServeOptions")
            .field(
                "input",
                &if self.input.is_some() {
                    "custom"
                } else {
                    "stdin"
                },
            )
            .field(
                "output",
                &if self.output.is_some() {
                    "custom"
                } else {
                    "stdout"
                },
            )
            .field("max_line_bytes", &self.max_line_bytes)
            .field("connection", &self.connection)
            .finish_non_exhaustive()
    }
}

impl ServeOptions {
    /// Reads requests from `input` instead of stdin (for tests, or another byte stream).
    #[must_use]
    pub fn input(mut self, input: impl AsyncRead + Unpin + Send + 'static) -> Self {
        self.input = Some(Box::new(input));
        self
    }

    /// Writes messages to `output` instead of stdout. It is flushed whenever no message is
    /// waiting, and shut down when [`serve`] returns.
    #[must_use]
    pub fn output(mut self, output: impl AsyncWrite + Unpin + Send + 'static) -> Self {
        self.output = Some(Box::new(output));
        self
    }

    /// The longest line accepted, in bytes, without its line ending (default 2,000,000). A
    /// longer line is answered with `-32600` (no id: it was not read) as soon as it passes the
    /// limit, and skipped up to its newline without being stored; the session goes on. Each one
    /// is also reported as a `tracing` warning (target `presa_stdio`, field `max`).
    #[must_use]
    pub fn max_line_bytes(mut self, max: usize) -> Self {
        self.max_line_bytes = max;
        self
    }

    /// Options of the connection layer (requests served at once).
    #[must_use]
    pub fn connection(mut self, connection: ConnectionOptions) -> Self {
        self.connection = connection;
        self
    }
}

/// Serves `server` on stdin and stdout (or the streams in `options`) until the input ends, then
/// waits for the requests in flight, writes their responses, flushes, and returns.
///
/// One message per line; an empty line is skipped; `\r\n` works as a line ending; a last line
/// without a newline before the end of the input is read as a message. A line that is not JSON
/// gets `-32700`, one that is not a valid message `-32600`, and the session goes on.
///
/// Only protocol messages are written to the output: a stdio server must not print to stdout.
/// Log to stderr instead (a `tracing` subscriber writing to stderr, or `eprintln!`). `serve`'s
/// own diagnostics (an over-long line skipped) are `tracing` events with target `presa_stdio`,
/// which such a subscriber shows.
///
/// # Errors
///
/// [`StdioError::Read`] if reading the input failed (the requests in flight are answered
/// first), [`StdioError::Write`] if writing the output failed (e.g. the client went away;
/// requests in flight are abandoned).
///
/// ```no_run
/// use presa_core::Tool;
/// use presa_server::{Context, Server};
/// use serde_json::Value;
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let server = Server::builder("demo", "1.0.0")
///     .tool_sync(Tool::without_params("ping"), |_: Value, _: Context| "pong")
///     .build()?;
/// presa_stdio::serve(server, presa_stdio::ServeOptions::default()).await?;
/// # Ok(())
/// # }
/// ```
pub async fn serve(server: Server, options: ServeOptions) -> Result<(), StdioError> {
    // On a task of its own: in a multi-thread runtime it then runs on the worker that polls the
    // I/O driver, not on the thread awaiting `serve` (which a `block_on` main would be, with a
    // thread hand-off per message). Dropping `serve` still stops it.
    let mut task = AbortOnDrop(tokio::spawn(serve_here(server, options)));
    match (&mut task.0).await {
        Ok(served) => served,
        Err(join) if join.is_panic() => std::panic::resume_unwind(join.into_panic()),
        Err(join) => Err(StdioError::Write(io::Error::other(format!(
            "the server stopped with its runtime: {join}"
        )))),
    }
}

/// A task that ends when its handle is dropped.
struct AbortOnDrop<T>(tokio::task::JoinHandle<T>);

impl<T> Drop for AbortOnDrop<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}

async fn serve_here(server: Server, options: ServeOptions) -> Result<(), StdioError> {
    let ServeOptions {
        input,
        output,
        max_line_bytes,
        connection,
    } = options;
    let input = input.unwrap_or_else(stdin);
    let output = output.unwrap_or_else(stdout);

    let (incoming_tx, incoming) = mpsc::channel(QUEUE);
    let (outgoing, outgoing_rx) = mpsc::channel(QUEUE);
    // Reading, the connection and writing share this one task: a message goes in and its
    // answer out without waking another thread.
    let writer = write_output(outgoing_rx, output);
    let reader = read_input(input, max_line_bytes, incoming_tx, outgoing.clone());
    // requests see the transport they came by, unless the caller named another
    let connection = match connection.get_transport() {
        Transport::Unspecified => connection.transport(Transport::Stdio),
        _ => connection,
    };
    let session = serve_connection(
        server,
        ServerChannel {
            incoming: incoming.into(),
            outgoing,
        },
        connection,
    );
    let serving = async move {
        tokio::pin!(session);
        // Read until the input ends (the connection then drains) or the connection stops early
        // (the output failed); then let the connection finish. Its end closes the writer's queue.
        tokio::select! {
            read = reader => {
                session.await;
                read
            }
            () = &mut session => Ok(()),
        }
    };
    let (read, written) = tokio::join!(serving, writer);
    written.map_err(StdioError::Write)?;
    read.map_err(StdioError::Read)
}

/// Feeds input lines to the connection; answers over-long lines itself.
/// The process's stdin: read as an event-driven pipe when it is one (no thread hand-off per
/// read, as tokio's blocking `stdin` needs), else through tokio's `stdin`. The pipe is in
/// non-blocking mode while `serve` runs, and back in blocking mode after.
fn stdin() -> Box<dyn AsyncRead + Unpin + Send> {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        if let Ok(fd) = std::io::stdin().as_fd().try_clone_to_owned()
            && let Ok(pipe) = tokio::net::unix::pipe::Receiver::from_owned_fd(fd)
        {
            return Box::new(pipes::Input(Some(pipe)));
        }
    }
    Box::new(tokio::io::stdin())
}

/// The process's stdout, as [`stdin`] does it. While `serve` runs, the process's other writers
/// to stdout would see the non-blocking mode too; a stdio server's stdout carries only protocol
/// messages anyway.
fn stdout() -> Box<dyn AsyncWrite + Unpin + Send> {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        if let Ok(fd) = std::io::stdout().as_fd().try_clone_to_owned()
            && let Ok(pipe) = tokio::net::unix::pipe::Sender::from_owned_fd(fd)
        {
            return Box::new(pipes::Output(Some(pipe)));
        }
    }
    Box::new(tokio::io::stdout())
}

/// stdin and stdout pipes in non-blocking mode for as long as `serve` uses them: the mode
/// belongs to the pipe (shared with the process's own fds 0 and 1, and with children), so it is
/// set back to blocking when they are dropped.
#[cfg(unix)]
mod pipes {
    use std::io;
    use std::pin::Pin;
    use std::task::{Context, Poll};

    use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
    use tokio::net::unix::pipe::{Receiver, Sender};

    pub(super) struct Input(pub(super) Option<Receiver>);

    impl AsyncRead for Input {
        fn poll_read(
            self: Pin<&mut Self>,
            cx: &mut Context<'_>,
            buf: &mut ReadBuf<'_>,
        ) -> Poll<io::Result<()>> {
            match self.get_mut().0.as_mut() {
                Some(pipe) => Pin::new(pipe).poll_read(cx, buf),
                None => Poll::Ready(Ok(())),
            }
        }
    }

    impl Drop for Input {
        fn drop(&mut self) {
            if let Some(pipe) = self.0.take() {
                // back to blocking mode; the duplicate descriptor it returns is closed
                let _ = pipe.into_blocking_fd();
            }
        }
    }

    pub(super) struct Output(pub(super) Option<Sender>);

    impl Output {
        fn pipe(self: Pin<&mut Self>) -> io::Result<Pin<&mut Sender>> {
            match self.get_mut().0.as_mut() {
                Some(pipe) => Ok(Pin::new(pipe)),
                None => Err(io::ErrorKind::BrokenPipe.into()),
            }
        }
    }

    impl AsyncWrite for Output {
        fn poll_write(
            self: Pin<&mut Self>,
            cx: &mut Context<'_>,
            buf: &[u8],
        ) -> Poll<io::Result<usize>> {
            match self.pipe() {
                Ok(pipe) => pipe.poll_write(cx, buf),
                Err(e) => Poll::Ready(Err(e)),
            }
        }

        fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
            match self.pipe() {
                Ok(pipe) => pipe.poll_flush(cx),
                Err(e) => Poll::Ready(Err(e)),
            }
        }

        fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
            match self.pipe() {
                Ok(pipe) => pipe.poll_shutdown(cx),
                Err(e) => Poll::Ready(Err(e)),
            }
        }

        fn poll_write_vectored(
            self: Pin<&mut Self>,
            cx: &mut Context<'_>,
            bufs: &[io::IoSlice<'_>],
        ) -> Poll<io::Result<usize>> {
            match self.pipe() {
                Ok(pipe) => pipe.poll_write_vectored(cx, bufs),
                Err(e) => Poll::Ready(Err(e)),
            }
        }

        fn is_write_vectored(&self) -> bool {
            self.0.as_ref().is_some_and(AsyncWrite::is_write_vectored)
        }
    }

    impl Drop for Output {
        fn drop(&mut self) {
            if let Some(pipe) = self.0.take() {
                let _ = pipe.into_blocking_fd();
            }
        }
    }

    #[cfg(test)]
    mod tests {
        #![allow(clippy::unwrap_used, clippy::expect_used)]

        use std::io::{Read, Write};
        use std::os::fd::AsFd;
        use std::sync::mpsc;
        use std::time::Duration;

        use super::*;

        #[tokio::test]
        async fn a_pipe_is_back_in_blocking_mode_once_serve_lets_go_of_it() {
            let (mut reader, mut writer) = std::io::pipe().unwrap();
            let input = Input(Some(
                Receiver::from_owned_fd(reader.as_fd().try_clone_to_owned().unwrap()).unwrap(),
            ));
            let mut byte = [0u8; 1];
            assert_eq!(
                reader.read(&mut byte).unwrap_err().kind(),
                io::ErrorKind::WouldBlock,
                "non-blocking while in use"
            );
            drop(input);
            // a blocking read waits for data instead of failing at once
            let (done_tx, done) = mpsc::channel();
            let blocked = std::thread::spawn(move || {
                let mut byte = [0u8; 1];
                done_tx
                    .send(reader.read(&mut byte).map(|n| (n, byte[0])))
                    .unwrap();
            });
            assert!(
                done.recv_timeout(Duration::from_secs(2)).is_err(),
                "the read returned without data: the pipe is still non-blocking"
            );
            writer.write_all(b"x").unwrap();
            assert_eq!(done.recv().unwrap().unwrap(), (1, b'x'));
            blocked.join().unwrap();
        }
    }
}

async fn read_input(
    input: impl AsyncRead + Unpin,
    max: usize,
    incoming: mpsc::Sender<Incoming>,
    outgoing: mpsc::Sender<Transmit>,
) -> io::Result<()> {
    let mut lines = LineReader::new(input, max, false);
    while let Some(line) = lines.next_line().await? {
        let delivered = match line {
            Line::Full(bytes) if is_blank(&bytes) => continue,
            Line::Full(bytes) => incoming.send(Incoming::Frame(bytes)).await.is_ok(),
            Line::TooLong { .. } => {
                tracing::warn!(
                    target: "presa_stdio",
                    max,
                    "skipping an input line longer than the limit"
                );
                let error = ErrorObject::invalid_request(format!(
                    "Invalid request: line longer than {max} bytes"
                ));
                let message = Response::error(None, error);
                outgoing.send(Transmit::new(message, None)).await.is_ok()
            }
        };
        if !delivered {
            // the connection is gone (its output failed)
            break;
        }
    }
    Ok(())
}

/// Drains the connection's messages into the output, one line each.
async fn write_output(
    mut queue: mpsc::Receiver<Transmit>,
    output: impl AsyncWrite + Unpin,
) -> io::Result<()> {
    let mut writer = LineWriter::new(output);
    while let Some(first) = queue.recv().await {
        writer.write_burst(first, &mut queue).await?;
    }
    writer.shutdown().await
}
