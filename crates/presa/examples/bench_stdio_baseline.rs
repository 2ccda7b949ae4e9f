//! The raw stdio baseline of `cargo xtask bench`: reads newline-delimited JSON-RPC requests,
//! parses each with serde_json and writes a fixed `tools/call` result with the same id, flushing
//! once the input read so far is answered. No MCP: the floor a stdio server is measured against.
//!
//! ```sh
//! echo '{"jsonrpc":"2.0","id":1,"method":"tools/call"}' | cargo run -p presa --example bench_stdio_baseline
//! ```

use std::io::{BufRead, BufReader, BufWriter, Write};

use serde_json::{Value, json};

fn main() -> std::io::Result<()> {
    let mut input = BufReader::with_capacity(64 * 1024, std::io::stdin().lock());
    let mut output = BufWriter::new(std::io::stdout().lock());
    let mut line = Vec::new();
    loop {
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            return output.flush();
        }
        let id = match serde_json::from_slice::<Value>(&line) {
            Ok(mut request) => request["id"].take(),
            Err(_) => continue,
        };
        let reply = json!({
            "jsonrpc": "2.0",
            "id": id,
            "result": {
                "content": [{"type": "text", "text": "{\"sum\":6}"}],
                "structuredContent": {"sum": 6}
            }
        });
        serde_json::to_writer(&mut output, &reply)?;
        output.write_all(b"\n")?;
        // a batch is answered: flush before blocking on the next read
        if input.buffer().is_empty() {
            output.flush()?;
        }
    }
}
