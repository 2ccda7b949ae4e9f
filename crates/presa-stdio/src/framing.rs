//! Newline-delimited framing, shared by both sides: a line reader that never holds more than a
//! bounded line, and a writer that batches flushes.

use std::io;

use presa_core::Message;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, BufWriter};
use tokio::sync::mpsc;

/// How much is read from, or buffered for, a pipe at a time.
const CHUNK: usize = 64 * 1024;

/// What [`LineReader::next_line`] read.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Line {
    /// A whole line, without its `\n` or `\r\n`.
    Full(Vec<u8>),
    /// A line longer than the limit, reported as soon as it passes the limit; the rest of it is
    /// skipped without being stored. `head` holds its first bytes when the reader keeps them.
    TooLong { head: Vec<u8> },
}

/// Reads lines of at most `max` bytes, in chunks.
#[derive(Debug)]
pub(crate) struct LineReader<R> {
    inner: BufReader<R>,
    max: usize,
    keep_head: bool,
    /// Inside an over-long line already reported: skip to its end.
    skipping: bool,
}

impl<R: AsyncRead + Unpin> LineReader<R> {
    /// A reader of lines up to `max` bytes; with `keep_head`, an over-long line's first `max`
    /// bytes are returned in [`Line::TooLong`], otherwise nothing of it is kept.
    pub(crate) fn new(input: R, max: usize, keep_head: bool) -> Self {
        Self {
            inner: BufReader::with_capacity(CHUNK, input),
            max,
            keep_head,
            skipping: false,
        }
    }

    /// The next line, or `None` at the end of the input. A last line without a final newline is
    /// returned like any other.
    pub(crate) async fn next_line(&mut self) -> io::Result<Option<Line>> {
        let mut line = Vec::new();
        loop {
            let chunk = self.inner.fill_buf().await?;
            if chunk.is_empty() {
                self.skipping = false;
                return Ok((!line.is_empty()).then(|| Line::Full(strip_cr(line))));
            }
            let (part, used, ends) = match chunk.iter().position(|&b| b == b'\n') {
                Some(i) => (&chunk[..i], i + 1, true),
                None => (chunk, chunk.len(), false),
            };
            if self.skipping {
                self.skipping = !ends;
                self.inner.consume(used);
                continue;
            }
            // a `\r` before the newline is not part of the line
            let len = if ends && part.last() == Some(&b'\r') {
                part.len() - 1
            } else {
                part.len()
            };
            let room = self.max.saturating_sub(line.len());
            if len > room {
                let head = if self.keep_head {
                    line.extend_from_slice(&part[..room]);
                    line
                } else {
                    Vec::new()
                };
                self.skipping = !ends;
                self.inner.consume(used);
                return Ok(Some(Line::TooLong { head }));
            }
            line.extend_from_slice(part);
            self.inner.consume(used);
            if ends {
                return Ok(Some(Line::Full(strip_cr(line))));
            }
        }
    }
}

fn strip_cr(mut line: Vec<u8>) -> Vec<u8> {
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    line
}

/// Whether a line holds nothing but whitespace (skipped, not answered).
pub(crate) fn is_blank(line: &[u8]) -> bool {
    line.iter().all(u8::is_ascii_whitespace)
}

/// The start of a line, for a diagnostic.
#[cfg_attr(not(feature = "client"), allow(dead_code))]
pub(crate) fn excerpt(line: &[u8]) -> String {
    const MAX: usize = 80;
    let text = String::from_utf8_lossy(&line[..line.len().min(MAX)]);
    if line.len() > MAX {
        format!("{text}…")
    } else {
        text.into_owned()
    }
}

/// Something queued for writing that is, or carries, a message.
pub(crate) trait Outgoing: Send + 'static {
    fn message(&self) -> &Message;
}

impl Outgoing for Message {
    fn message(&self) -> &Message {
        self
    }
}

impl Outgoing for presa_core::Transmit {
    fn message(&self) -> &Message {
        &self.message
    }
}

/// Writes messages one per line through a buffer.
#[derive(Debug)]
pub(crate) struct LineWriter<W> {
    out: BufWriter<W>,
    line: Vec<u8>,
}

impl<W: AsyncWrite + Unpin> LineWriter<W> {
    pub(crate) fn new(output: W) -> Self {
        Self {
            out: BufWriter::with_capacity(CHUNK, output),
            line: Vec::with_capacity(1024),
        }
    }

    /// Writes `first` and whatever else is queued right now, then flushes: a burst costs one
    /// flush, and nothing stays unflushed while the queue is idle.
    pub(crate) async fn write_burst<T: Outgoing>(
        &mut self,
        first: T,
        queue: &mut mpsc::Receiver<T>,
    ) -> io::Result<()> {
        self.write(first.message()).await?;
        while let Ok(next) = queue.try_recv() {
            self.write(next.message()).await?;
        }
        self.out.flush().await
    }

    async fn write(&mut self, message: &Message) -> io::Result<()> {
        self.line.clear();
        message.write_to(&mut self.line);
        // JSON strings cannot hold a raw CR or LF, so any here is whitespace inside raw
        // `params` or `result` text; it must not split the line.
        for byte in &mut self.line {
            if matches!(*byte, b'\n' | b'\r') {
                *byte = b' ';
            }
        }
        self.line.push(b'\n');
        self.out.write_all(&self.line).await
    }

    /// Flushes and shuts the output down.
    #[cfg_attr(not(feature = "server"), allow(dead_code))]
    pub(crate) async fn shutdown(&mut self) -> io::Result<()> {
        self.out.shutdown().await
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    async fn lines(input: &[u8], max: usize, keep_head: bool) -> Vec<Line> {
        let mut reader = LineReader::new(input, max, keep_head);
        let mut out = Vec::new();
        while let Some(line) = reader.next_line().await.unwrap() {
            out.push(line);
        }
        out
    }

    fn full(s: &str) -> Line {
        Line::Full(s.as_bytes().to_vec())
    }

    #[tokio::test]
    async fn lines_split_on_lf_and_crlf() {
        assert_eq!(
            lines(b"a\nbc\r\n\nd", 10, false).await,
            [full("a"), full("bc"), full(""), full("d")]
        );
        assert_eq!(lines(b"", 10, false).await, []);
        assert_eq!(lines(b"\r\n", 10, false).await, [full("")]);
    }

    #[tokio::test]
    async fn long_lines_are_reported_once_and_skipped() {
        let long = format!("{}\nok\n{}", "x".repeat(25), "y".repeat(11));
        let got = lines(long.as_bytes(), 10, false).await;
        assert_eq!(
            got,
            [
                Line::TooLong { head: vec![] },
                full("ok"),
                Line::TooLong { head: vec![] }
            ]
        );
        let got = lines(long.as_bytes(), 10, true).await;
        assert_eq!(
            got[0],
            Line::TooLong {
                head: b"xxxxxxxxxx".to_vec()
            }
        );
        assert_eq!(got[1], full("ok"));
        // exactly at the limit is fine, with either line ending
        assert_eq!(
            lines(b"0123456789\n", 10, false).await,
            [full("0123456789")]
        );
        assert_eq!(
            lines(b"0123456789\r\n", 10, false).await,
            [full("0123456789")]
        );
    }

    #[tokio::test]
    async fn a_long_line_spanning_chunks_is_skipped() {
        let mut input = vec![b'z'; 3 * CHUNK + 17];
        input.extend_from_slice(b"\nafter\n");
        let got = lines(&input, 100, false).await;
        assert_eq!(got, [Line::TooLong { head: vec![] }, full("after")]);
    }

    #[test]
    fn blank_and_excerpt() {
        assert!(is_blank(b" \t "));
        assert!(!is_blank(b" x"));
        assert_eq!(excerpt(b"short"), "short");
        assert_eq!(excerpt(&[b'a'; 100]).chars().count(), 81);
    }

    #[tokio::test]
    async fn raw_newlines_never_split_a_message() {
        let params =
            serde_json::value::RawValue::from_string("{\n  \"a\": \"x\\ny\"\r\n}".into()).unwrap();
        let message = Message::Notification(presa_core::Notification {
            method: "m".into(),
            params: Some(params),
        });
        let (tx, mut rx) = mpsc::channel::<Message>(1);
        drop(tx);
        let mut out = Vec::new();
        let mut writer = LineWriter::new(&mut out);
        writer.write_burst(message, &mut rx).await.unwrap();
        drop(writer);
        let text = String::from_utf8(out).unwrap();
        assert_eq!(text.matches('\n').count(), 1, "{text}");
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(value["params"]["a"], "x\ny");
    }
}
