//! A stdio server with one slow tool, `countdown`: it counts down from `seconds`, reporting
//! progress and logging each step, and stops at once when the client cancels (its handler is
//! dropped at its next await).
//!
//! ```sh
//! cargo run -p presa --example countdown
//! ```
//!
//! The session below asks it with the [`presa` command](presa::guide::cli) (`cargo install
//! --path crates/presa-cli`).
//!
//! Prints:
//!
//! ```text
//! $ presa call countdown seconds=3 -- cargo run -q -p presa --example countdown
//! liftoff
//! ```

use std::process::ExitCode;
use std::time::Duration;

use presa::core::ErrorReport;
use presa::prelude::*;
use presa::stdio::ServeOptions;
use serde::Deserialize;
use serde_json::json;

/// Count down, reporting progress and logging each step.
#[derive(Deserialize, JsonSchema)]
struct Countdown {
    /// How many seconds to count down from (default 3).
    #[serde(default = "three")]
    seconds: u64,
}

fn three() -> u64 {
    3
}

/// Says on stderr that the countdown stopped early. A cancelled request's handler is dropped at
/// its next await, so code after that await never runs: a `Drop` guard is the place for what
/// must happen when a handler stops unfinished.
struct StopNotice {
    finished: bool,
}

impl Drop for StopNotice {
    fn drop(&mut self) {
        if !self.finished {
            eprintln!("countdown stopped before liftoff");
        }
    }
}

async fn countdown(Args(countdown): Args<Countdown>, cx: Context) -> String {
    let seconds = countdown.seconds;
    let mut notice = StopNotice { finished: false };
    for left in (1..=seconds).rev() {
        let done = (seconds - left) as f64;
        cx.progress(done, Some(seconds as f64), Some(&format!("{left} to go")))
            .await;
        cx.log(LoggingLevel::Info, json!({ "left": left })).await;
        // when the client cancels, the handler is dropped here, mid-sleep
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    notice.finished = true;
    "liftoff".into()
}

#[tokio::main]
async fn main() -> ExitCode {
    let server = Server::builder("countdown", "1.0.0")
        .logging(true)
        .typed_tool(
            Tool::named("countdown")
                .description("Counts down, reporting progress; stops when cancelled."),
            countdown,
        )
        .build();
    let result = match server {
        Ok(server) => presa::stdio::serve(server, ServeOptions::default())
            .await
            .map_err(|e| ErrorReport(&e).to_string()),
        Err(error) => Err(ErrorReport(&error).to_string()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("countdown: {error}");
            ExitCode::FAILURE
        }
    }
}
