//! The `patterns` server on stdio: tools that ask the client for input (elicitation, sampling,
//! roots, several rounds), report progress and log, and change the server while it serves
//! (`set_status` updates `file:///status.txt`, `add_tool` adds a tool) for subscriptions.
//!
//! ```sh
//! cargo run -p presa --example patterns
//! ```
//!
//! The session below asks it with the [`presa` command](presa::guide::cli) (`cargo install
//! --path crates/presa-cli`).
//!
//! Prints:
//!
//! ```text
//! $ presa tools -- cargo run -q -p presa --example patterns
//! NAME            DESCRIPTION
//! confirm_delete  Delete a file, once the user confirms (elicitation).
//! summarize       Summarize a text with the client's model (sampling).
//! workspace       Name the client's roots.
//! onboard         Ask for a name, then greet with the client's model and count its roots: three rounds.
//! count           Count to `to`, reporting progress and logging each step.
//! set_status      Set the status resource, telling its subscribers.
//! add_tool        Add a tool named `name` to the running server.
//! $ presa call count to=3 -- cargo run -q -p presa --example patterns
//! counted to 3
//! $ presa call confirm_delete path=draft.txt --answer sure=yes -- cargo run -q -p presa --example patterns
//! deleted draft.txt
//! $ presa call workspace --root crates --root docs -- cargo run -q -p presa --example patterns
//! crates, docs
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
