//! The `patterns` server on stdio: tools that ask the client for input (elicitation, sampling,
//! roots, several rounds), report progress and log, and change the server while it serves
//! (`set_status` updates `file:///status.txt`, `add_tool` adds a tool) for subscriptions.
//!
//! ```sh
//! cargo run -p presa --example patterns
//! ```

mod definitions;

use std::process::ExitCode;

use presa::core::ErrorReport;
use presa::stdio::ServeOptions;

#[tokio::main]
async fn main() -> ExitCode {
    let result = match definitions::patterns() {
        Ok(server) => presa::stdio::serve(server, ServeOptions::default())
            .await
            .map_err(|e| ErrorReport(&e).to_string()),
        Err(error) => Err(ErrorReport(&error).to_string()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("patterns: {error}");
            ExitCode::FAILURE
        }
    }
}
