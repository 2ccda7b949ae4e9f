//! The strict stdio baseline of `cargo xtask bench`: reads newline-delimited JSON-RPC requests,
//! each only as far as its `id` and `method`, and writes a result serialized at start with the
//! id spliced in, flushing once the input read so far is answered. No MCP: the floor a stdio
//! server is measured against.
//!
//! ```sh
//! echo '{"jsonrpc":"2.0","id":1,"method":"tools/call"}' | cargo run -p presa-bench --bin stdio_baseline
//! ```

use std::io::{BufRead, BufReader, BufWriter, Write};
use std::process::ExitCode;

use presa_bench::canned::{Envelope, Replies};

fn run() -> Result<(), String> {
    let (replies, _) = Replies::from_args(std::env::args().skip(1))?;
    let mut input = BufReader::with_capacity(64 * 1024, std::io::stdin().lock());
    let mut output = BufWriter::with_capacity(64 * 1024, std::io::stdout().lock());
    let (mut line, mut reply) = (Vec::new(), Vec::new());
    let io = |e: std::io::Error| e.to_string();
    loop {
        line.clear();
        if input.read_until(b'\n', &mut line).map_err(io)? == 0 {
            return output.flush().map_err(io);
        }
        reply.clear();
        if let Some(request) = Envelope::read(&line)
            && replies.answer(&request, &mut reply).is_some()
        {
            reply.push(b'\n');
            output.write_all(&reply).map_err(io)?;
        }
        // a batch is answered: flush before blocking on the next read
        if input.buffer().is_empty() {
            output.flush().map_err(io)?;
        }
    }
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("stdio_baseline: {error}");
            ExitCode::FAILURE
        }
    }
}
