//! In-process hot paths: envelope decoding, tools/call dispatch with schema validation, result
//! encoding, paged tools/list, and a 1 MiB blob read.
//!
//! ```sh
//! cargo bench -p presa --bench paths
//! ```

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use presa::core::{
    ClientCapabilities, ClientContext, Message, ProtocolVersion, RequestId, Resource, Tool,
    decode_message,
};
use presa::server::{Context, Server};
use serde_json::{Value, json};

fn cx() -> Context {
    let client = ClientContext {
        protocol_version: ProtocolVersion::V2026_07_28,
        capabilities: ClientCapabilities::default(),
        client_info: None,
    };
    Context::for_client(client)
}

fn add_schema() -> serde_json::Map<String, Value> {
    json!({
        "type": "object",
        "properties": {"numbers": {"type": "array", "items": {"type": "number"}}, "label": {"type": "string"}},
        "required": ["numbers"]
    })
    .as_object()
    .cloned()
    .unwrap_or_default()
}

fn server(tools: usize) -> Server {
    let mut builder = Server::builder("bench", "1")
        .page_size(100)
        .tool_sync(Tool::new("add", add_schema()), |args: Value, _: Context| {
            let sum: f64 = args["numbers"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_f64)
                .sum();
            json!({ "sum": sum })
        })
        .resource(Resource::new("mem://blob", "blob"), |_: Context| async {
            vec![7u8; 1 << 20]
        });
    for i in 0..tools {
        builder = builder.tool_sync(
            Tool::without_params(format!("tool_{i:04}")).description("A tool of the long list."),
            |_: Value, _: Context| "",
        );
    }
    builder
        .build()
        .unwrap_or_else(|e| panic!("bench server: {e}"))
}

fn decode(c: &mut Criterion) {
    let line = json!({"jsonrpc": "2.0", "id": 42, "method": "tools/call", "params": {
        "name": "add", "arguments": {"numbers": [1, 2, 3]},
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}
    }})
    .to_string();
    let mut group = c.benchmark_group("envelope");
    group.throughput(Throughput::Bytes(line.len() as u64));
    group.bench_function("decode tools/call", |b| {
        b.iter(|| decode_message(line.as_bytes()))
    });
    group.finish();
}

fn dispatch(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap_or_else(|e| panic!("{e}"));
    let server = server(0);
    let small = serde_json::value::to_raw_value(
        &json!({"name": "add", "arguments": {"numbers": [1, 2, 3]}}),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let numbers: Vec<f64> = (0..100).map(f64::from).collect();
    let kilobyte = serde_json::value::to_raw_value(
        &json!({"name": "add", "arguments": {"numbers": numbers, "label": "x".repeat(500)}}),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let mut group = c.benchmark_group("tools/call");
    group.bench_function("dispatch, small arguments", |b| {
        b.iter(|| runtime.block_on(server.handle("tools/call", Some(&small), cx())))
    });
    group.bench_function("dispatch, 1 KB arguments", |b| {
        b.iter(|| runtime.block_on(server.handle("tools/call", Some(&kilobyte), cx())))
    });
    group.finish();
}

fn encode(c: &mut Criterion) {
    let result = json!({"resultType": "complete", "content": [{"type": "text", "text": "{\"sum\":6}"}], "structuredContent": {"sum": 6}});
    let raw = presa::core::to_raw(&result).unwrap_or_else(|e| panic!("{e}"));
    c.bench_function("encode a structured result response", |b| {
        b.iter_batched(
            || presa::core::Response {
                id: Some(RequestId::from(9)),
                payload: presa::core::ResponsePayload::Result(raw.clone()),
            },
            |response| Message::Response(response).to_json(),
            BatchSize::SmallInput,
        )
    });
}

fn lists_and_blobs(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap_or_else(|e| panic!("{e}"));
    let server = server(1000);
    let first_page = serde_json::value::to_raw_value(&json!({})).unwrap_or_else(|e| panic!("{e}"));
    c.bench_function("tools/list of 1,000 tools, first page of 100", |b| {
        b.iter(|| runtime.block_on(server.handle("tools/list", Some(&first_page), cx())))
    });
    let read = serde_json::value::to_raw_value(&json!({"uri": "mem://blob"}))
        .unwrap_or_else(|e| panic!("{e}"));
    let mut group = c.benchmark_group("resources/read");
    group.throughput(Throughput::Bytes(1 << 20));
    group.bench_function("1 MiB blob", |b| {
        b.iter(|| runtime.block_on(server.handle("resources/read", Some(&read), cx())))
    });
    group.finish();
}

criterion_group!(benches, decode, dispatch, encode, lists_and_blobs);
criterion_main!(benches);
