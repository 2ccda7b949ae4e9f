//! The client's `text/event-stream` parser (presa-http): whatever the stream and however it
//! is cut into chunks, it yields the same events (or hits its size cap at the same point)
//! as when fed in one piece, and never panics.
//!
//! Input: one byte naming where to cut, then the stream.
#![no_main]

use libfuzzer_sys::fuzz_target;
use presa_http::__bench::SseParser;

const MAX: usize = 4096;

fn feed(chunks: &[&[u8]]) -> (Vec<String>, Result<(), usize>) {
    let mut parser = SseParser::new(MAX);
    let mut events = Vec::new();
    for chunk in chunks {
        if let Err(cap) = parser.push(chunk, &mut events) {
            return (events, Err(cap));
        }
    }
    (events, Ok(()))
}

fuzz_target!(|data: &[u8]| {
    let Some((&cut, stream)) = data.split_first() else {
        return;
    };
    let whole = feed(&[stream]);
    // cut every `step` bytes, and byte by byte
    let step = usize::from(cut).max(1);
    let chunks: Vec<&[u8]> = stream.chunks(step).collect();
    let bytes: Vec<&[u8]> = stream.chunks(1).collect();
    for (name, cut) in [("chunks", feed(&chunks)), ("bytes", feed(&bytes))] {
        match (&whole.1, &cut.1) {
            (Ok(()), Ok(())) => assert_eq!(cut.0, whole.0, "fed in {name} of {step}"),
            (Err(_), Err(_)) => {}
            (a, b) => panic!("fed whole: {a:?}, in {name} of {step}: {b:?}"),
        }
    }
    for event in &whole.0 {
        assert!(event.len() <= MAX, "an event past the cap");
    }
});
