//! Internal: the client's SSE parser, for presa-http's benchmarks (`benches/sse.rs`). Compiled
//! only with the `__bench-internals` feature; not a public API, and it may change at any time.

use crate::client::sse;

/// The client's incremental `text/event-stream` parser, as the transport drives it.
#[derive(Debug)]
pub struct SseParser {
    inner: sse::SseParser,
    events: Vec<sse::SseEvent>,
}

impl SseParser {
    /// A parser whose lines and events may not grow past `max` bytes.
    pub fn new(max: usize) -> Self {
        Self {
            inner: sse::SseParser::new(max),
            events: Vec::new(),
        }
    }

    /// Feeds `chunk`, moving the data of each event it completes into `out`. Fails with the
    /// cap when a line or an event grows past it.
    pub fn push(&mut self, chunk: &[u8], out: &mut Vec<String>) -> Result<(), usize> {
        let result = self.inner.push(chunk, &mut self.events);
        out.extend(self.events.drain(..).map(|event| event.data));
        result.map_err(|too_large| too_large.max)
    }
}
