//! An incremental `text/event-stream` parser with a size cap.
//!
//! Follows the WHATWG "event stream interpretation" rules: lines end in CRLF, LF or CR; a
//! leading BOM is skipped; `:` starts a comment; `data` lines accumulate (joined by LF); `id`
//! sets the last event id (unless it holds NUL), even for events without data; `retry` takes
//! ASCII digits only; a blank line dispatches. Each byte is looked at once, and the current
//! line plus the current event's data never grow past the cap, so a hostile server cannot make
//! the client buffer without bound.

use std::time::Duration;

/// One dispatched event that carried data.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SseEvent {
    /// The event type; `message` when the event named none.
    pub(crate) event: String,
    /// The data lines, joined by LF (empty for a priming event such as `id: 7` + `data:`).
    pub(crate) data: String,
}

/// An event (or a line) grew past the cap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TooLarge {
    pub(crate) max: usize,
}

const BOM: &[u8] = "\u{feff}".as_bytes();

#[derive(Debug)]
pub(crate) struct SseParser {
    max: usize,
    line: Vec<u8>,
    data: Vec<u8>,
    has_data: bool,
    event: String,
    /// Whether the current block had any field (so a blank line ends an event, not nothing).
    in_block: bool,
    id_buffer: String,
    last_event_id: String,
    retry: Option<Duration>,
    after_cr: bool,
    first_line: bool,
    blocks: u64,
}

impl SseParser {
    pub(crate) fn new(max: usize) -> Self {
        Self {
            max,
            line: Vec::new(),
            data: Vec::new(),
            has_data: false,
            event: String::new(),
            in_block: false,
            id_buffer: String::new(),
            last_event_id: String::new(),
            retry: None,
            after_cr: false,
            first_line: true,
            blocks: 0,
        }
    }

    /// Starts reading a new connection of the same stream: the partial line and event of the
    /// old connection are dropped; the last event id, `retry` and the event count stay.
    pub(crate) fn reconnect(&mut self) {
        self.line.clear();
        self.data.clear();
        self.has_data = false;
        self.event.clear();
        self.in_block = false;
        self.after_cr = false;
        self.first_line = true;
        self.id_buffer.clone_from(&self.last_event_id);
    }

    /// The id of the last dispatched event (`id:` persists across events), if not empty.
    pub(crate) fn last_event_id(&self) -> Option<&str> {
        Some(self.last_event_id.as_str()).filter(|id| !id.is_empty())
    }

    /// The reconnection delay the server asked for with `retry:`, if it did.
    pub(crate) fn retry(&self) -> Option<Duration> {
        self.retry
    }

    /// How many events (with or without data) the stream has ended so far.
    pub(crate) fn blocks(&self) -> u64 {
        self.blocks
    }

    /// Feeds bytes; dispatched events with data are appended to `out`.
    pub(crate) fn push(
        &mut self,
        mut chunk: &[u8],
        out: &mut Vec<SseEvent>,
    ) -> Result<(), TooLarge> {
        while !chunk.is_empty() {
            if self.after_cr {
                self.after_cr = false;
                if chunk[0] == b'\n' {
                    chunk = &chunk[1..];
                    continue;
                }
            }
            match chunk.iter().position(|&b| b == b'\n' || b == b'\r') {
                Some(end) => {
                    self.extend_line(&chunk[..end])?;
                    self.after_cr = chunk[end] == b'\r';
                    chunk = &chunk[end + 1..];
                    self.end_line(out);
                }
                None => {
                    self.extend_line(chunk)?;
                    break;
                }
            }
        }
        Ok(())
    }

    fn extend_line(&mut self, bytes: &[u8]) -> Result<(), TooLarge> {
        if self.line.len() + self.data.len() + bytes.len() > self.max {
            return Err(TooLarge { max: self.max });
        }
        self.line.extend_from_slice(bytes);
        Ok(())
    }

    fn end_line(&mut self, out: &mut Vec<SseEvent>) {
        let mut line = std::mem::take(&mut self.line);
        if self.first_line {
            self.first_line = false;
            if line.starts_with(BOM) {
                line.drain(..BOM.len());
            }
        }
        if line.is_empty() {
            self.dispatch(out);
        } else if line[0] != b':' {
            self.field(&line);
        }
        // keep the allocation for the next line
        line.clear();
        self.line = line;
    }

    fn field(&mut self, line: &[u8]) {
        self.in_block = true;
        let (name, value) = match line.iter().position(|&b| b == b':') {
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &[][..]),
        };
        match name {
            b"data" => {
                self.data.extend_from_slice(value);
                self.data.push(b'\n');
                self.has_data = true;
            }
            b"event" => self.event = String::from_utf8_lossy(value).into_owned(),
            b"id" if !value.contains(&0) => {
                self.id_buffer = String::from_utf8_lossy(value).into_owned();
            }
            b"retry" if !value.is_empty() && value.iter().all(u8::is_ascii_digit) => {
                // all digits, so only an overflow can fail: ignore such a value
                if let Some(ms) = std::str::from_utf8(value)
                    .ok()
                    .and_then(|v| v.parse::<u64>().ok())
                {
                    self.retry = Some(Duration::from_millis(ms));
                }
            }
            _ => {}
        }
    }

    fn dispatch(&mut self, out: &mut Vec<SseEvent>) {
        self.last_event_id.clone_from(&self.id_buffer);
        if std::mem::take(&mut self.in_block) {
            self.blocks += 1;
        }
        let event = std::mem::take(&mut self.event);
        if !std::mem::take(&mut self.has_data) {
            return;
        }
        if self.data.last() == Some(&b'\n') {
            self.data.pop();
        }
        let data = String::from_utf8_lossy(&self.data).into_owned();
        self.data.clear();
        out.push(SseEvent {
            event: if event.is_empty() {
                "message".to_owned()
            } else {
                event
            },
            data,
        });
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn parse(chunks: &[&[u8]]) -> (Vec<SseEvent>, SseParser) {
        let mut parser = SseParser::new(1024);
        let mut out = Vec::new();
        for chunk in chunks {
            parser.push(chunk, &mut out).unwrap();
        }
        (out, parser)
    }

    fn message(data: &str) -> SseEvent {
        SseEvent {
            event: "message".into(),
            data: data.into(),
        }
    }

    #[test]
    fn events_are_dispatched_on_blank_lines() {
        let (events, _) = parse(&[b"data: {\"a\":1}\n\ndata: two\n\n"]);
        assert_eq!(events, [message("{\"a\":1}"), message("two")]);
    }

    #[test]
    fn an_event_without_its_blank_line_is_not_dispatched() {
        let (events, _) = parse(&[b"data: one\n\ndata: partial\n"]);
        assert_eq!(events, [message("one")]);
    }

    #[test]
    fn crlf_cr_and_lf_end_lines_even_split_across_chunks() {
        let (events, _) = parse(&[b"data: a\r", b"\n\r", b"\ndata: b\r\rdata: c\n", b"\n"]);
        assert_eq!(events, [message("a"), message("b"), message("c")]);
    }

    #[test]
    fn data_lines_join_with_lf_and_one_leading_space_is_dropped() {
        let (events, _) = parse(&[b"data:x\ndata:  y\ndata\n\n"]);
        assert_eq!(events, [message("x\n y\n")]);
    }

    #[test]
    fn comments_unknown_fields_and_a_bom_are_ignored() {
        let (events, _) = parse(&["\u{feff}: keep-alive\nfoo: bar\ndata: z\n\n".as_bytes()]);
        assert_eq!(events, [message("z")]);
    }

    #[test]
    fn event_types_are_kept() {
        let (events, _) = parse(&[b"event: endpoint\ndata: /messages\n\n"]);
        assert_eq!(
            events,
            [SseEvent {
                event: "endpoint".into(),
                data: "/messages".into()
            }]
        );
    }

    #[test]
    fn a_priming_event_has_empty_data_and_sets_id_and_retry() {
        let (events, parser) = parse(&[b"id: event-1\nretry: 500\ndata:\n\n"]);
        assert_eq!(events, [message("")]);
        assert_eq!(parser.last_event_id(), Some("event-1"));
        assert_eq!(parser.retry(), Some(Duration::from_millis(500)));
        assert_eq!(parser.blocks(), 1);
    }

    #[test]
    fn ids_persist_and_update_even_without_data() {
        let (events, parser) = parse(&[b"id: 1\ndata: a\n\ndata: b\n\nid: 3\n\n"]);
        assert_eq!(events, [message("a"), message("b")]);
        assert_eq!(parser.last_event_id(), Some("3"));
        assert_eq!(parser.blocks(), 3);
        // an id with NUL is ignored; an empty id clears it
        let (_, parser) = parse(&[b"id: 1\n\nid: a\0b\n\n"]);
        assert_eq!(parser.last_event_id(), Some("1"));
        let (_, parser) = parse(&[b"id: 1\n\nid\n\n"]);
        assert_eq!(parser.last_event_id(), None);
    }

    #[test]
    fn an_id_only_counts_once_its_event_ends() {
        let (_, parser) = parse(&[b"id: 9\n"]);
        assert_eq!(parser.last_event_id(), None);
    }

    #[test]
    fn retry_takes_only_digits() {
        let (_, parser) =
            parse(&[b"retry: 1.5\n\nretry: -1\n\nretry: 99999999999999999999999\n\n"]);
        assert_eq!(parser.retry(), None);
        let (_, parser) = parse(&[b"retry: 20\n\n"]);
        assert_eq!(parser.retry(), Some(Duration::from_millis(20)));
    }

    #[test]
    fn a_reconnection_drops_the_partial_event_and_keeps_the_last_id() {
        let mut parser = SseParser::new(64);
        let mut out = Vec::new();
        parser
            .push(
                b"retry: 7\nid: s-4\ndata: x\n\nid: s-5\ndata: cut",
                &mut out,
            )
            .unwrap();
        parser.reconnect();
        parser.push(b"data: y\n\n", &mut out).unwrap();
        assert_eq!(out, [message("x"), message("y")]);
        assert_eq!(parser.last_event_id(), Some("s-4"));
        assert_eq!(parser.retry(), Some(Duration::from_millis(7)));
        assert_eq!(parser.blocks(), 2);
    }

    #[test]
    fn lines_and_events_past_the_cap_fail() {
        let mut parser = SseParser::new(16);
        let mut out = Vec::new();
        assert_eq!(
            parser.push(&[b'a'; 17], &mut out),
            Err(TooLarge { max: 16 })
        );
        // many short data lines add up
        let mut parser = SseParser::new(16);
        parser.push(b"data: 12345\n", &mut out).unwrap();
        assert!(parser.push(b"data: 12345\n", &mut out).is_err());
        // the cap is per event: many small events are fine
        let mut parser = SseParser::new(16);
        for _ in 0..100 {
            parser.push(b"data: 12345\n\n", &mut out).unwrap();
        }
        assert_eq!(out.len(), 100);
    }

    #[test]
    fn invalid_utf8_is_replaced_not_fatal() {
        let (events, _) = parse(&[b"data: \xff\n\n"]);
        assert_eq!(events, [message("\u{fffd}")]);
    }
}
