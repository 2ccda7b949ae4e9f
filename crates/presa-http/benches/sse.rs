//! The client's SSE parser against eventsource-stream on the same 1 MiB stream of MCP-like
//! events, fed in 1 B, 1 KiB and 64 KiB chunks (the chunk sizes a socket read can hand over).
//! Group `sse-scaling` shows how each parser's cost grows with the line length (1 B chunks,
//! events 8 times longer) and with the chunk size (256 KiB chunks).
//!
//! ```sh
//! cargo bench -p presa-http --features __bench-internals --bench sse
//! ```

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use eventsource_stream::Eventsource;
use futures_util::StreamExt;
use presa_http::__bench::SseParser;
use serde_json::json;
use tokio::runtime::Runtime;

/// The size of the generated stream.
const STREAM_BYTES: usize = 1 << 20;

/// The chunk sizes, with a name for each.
const CHUNKS: [(usize, &str); 3] = [(1, "1 B"), (1 << 10, "1 KiB"), (64 << 10, "64 KiB")];

/// The client's default cap (`HttpClientOptions::max_message_bytes`).
const CAP: usize = 16 << 20;

/// `id: N` + `data: {json-rpc message}` events of 200 to 500 bytes (with `scale` 1; the
/// padding inside each message is multiplied by `scale`), every 25th spread over several
/// `data:` lines (pretty-printed), until the stream holds `bytes` bytes.
fn stream(bytes: usize, scale: usize) -> (Vec<u8>, Vec<String>) {
    let mut out = Vec::with_capacity(bytes + 1024);
    let mut data = Vec::new();
    let mut seed: u32 = 0x9e37_79b9;
    let mut id = 0u64;
    while out.len() < bytes {
        id += 1;
        // a small LCG, so the stream is the same on every run
        seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        let pad = scale * (120 + (seed >> 8) as usize % 300);
        let message = if id.is_multiple_of(3) {
            json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {
                "progressToken": format!("tok-{id}"), "progress": id, "total": 1000,
                "message": "x".repeat(pad)
            }})
        } else {
            json!({"jsonrpc": "2.0", "id": id, "result": {
                "content": [{"type": "text", "text": "y".repeat(pad)}],
                "isError": false
            }})
        };
        let text = if id.is_multiple_of(25) {
            serde_json::to_string_pretty(&message)
        } else {
            serde_json::to_string(&message)
        }
        .unwrap_or_else(|e| panic!("bench message: {e}"));
        out.extend_from_slice(format!("id: {id}\n").as_bytes());
        for line in text.lines() {
            out.extend_from_slice(b"data: ");
            out.extend_from_slice(line.as_bytes());
            out.push(b'\n');
        }
        out.push(b'\n');
        data.push(text);
    }
    (out, data)
}

fn presa(stream: &[u8], chunk: usize) -> Vec<String> {
    let mut parser = SseParser::new(CAP);
    let mut events = Vec::new();
    for bytes in stream.chunks(chunk) {
        parser
            .push(bytes, &mut events)
            .unwrap_or_else(|max| panic!("event over {max} bytes"));
    }
    events
}

fn eventsource_stream(runtime: &Runtime, stream: &[u8], chunk: usize) -> Vec<String> {
    runtime.block_on(async {
        let chunks = futures_util::stream::iter(stream.chunks(chunk).map(Ok::<_, ()>));
        let mut events = chunks.eventsource();
        let mut out = Vec::new();
        while let Some(event) = events.next().await {
            match event {
                Ok(event) => out.push(event.data),
                Err(e) => panic!("eventsource-stream: {e:?}"),
            }
        }
        out
    })
}

fn runtime() -> Runtime {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap_or_else(|e| panic!("{e}"))
}

/// Checks (once, untimed) that both parsers read every event of `stream` in `chunk`-byte
/// chunks, then measures each.
fn compare(
    c: &mut Criterion,
    group: &str,
    runtime: &Runtime,
    (stream, expected): &(Vec<u8>, Vec<String>),
    cases: &[(usize, &str)],
) {
    for &(chunk, name) in cases {
        assert_eq!(&presa(stream, chunk), expected, "presa, {name}");
        assert_eq!(
            &eventsource_stream(runtime, stream, chunk),
            expected,
            "eventsource-stream, {name}"
        );
    }
    let mut group = c.benchmark_group(group);
    group.throughput(Throughput::Bytes(stream.len() as u64));
    group.sample_size(10);
    for &(chunk, name) in cases {
        group.bench_with_input(BenchmarkId::new("presa", name), &chunk, |b, &chunk| {
            b.iter(|| presa(black_box(stream), chunk).len())
        });
        group.bench_with_input(
            BenchmarkId::new("eventsource-stream", name),
            &chunk,
            |b, &chunk| b.iter(|| eventsource_stream(runtime, black_box(stream), chunk).len()),
        );
    }
    group.finish();
}

fn parse(c: &mut Criterion) {
    let runtime = runtime();
    compare(c, "sse", &runtime, &stream(STREAM_BYTES, 1), &CHUNKS);
}

fn scaling(c: &mut Criterion) {
    let runtime = runtime();
    // 1 B chunks: the same bytes per event line read, lines 8 times longer (on 256 KiB)
    let short = stream(256 << 10, 1);
    compare(c, "sse-scaling", &runtime, &short, &[(1, "1 B, 256 KiB")]);
    let long = stream(256 << 10, 8);
    compare(
        c,
        "sse-scaling",
        &runtime,
        &long,
        &[(1, "1 B, 256 KiB, long lines")],
    );
    // chunks 4 times larger than the largest in `sse`
    let stream = stream(STREAM_BYTES, 1);
    compare(
        c,
        "sse-scaling",
        &runtime,
        &stream,
        &[(256 << 10, "256 KiB")],
    );
}

criterion_group!(benches, parse, scaling);
criterion_main!(benches);
