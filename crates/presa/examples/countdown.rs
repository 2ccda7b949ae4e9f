//! A stdio server with one slow tool, `countdown`: it counts down from `seconds`, reporting
//! progress and logging each step, and stops at once when the client cancels.
//!
//! ```sh
//! cargo run -p presa --example countdown
//! ```

use std::process::ExitCode;
use std::time::Duration;

use presa::core::{LoggingLevel, Tool};
use presa::server::{Context, Server};
use presa::stdio::ServeOptions;
use serde_json::{Value, json};

/// Says on stderr that the countdown stopped early, whenever its future is dropped unfinished
/// (a cancelled request's handler is dropped at its next await point).
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

async fn countdown(args: Value, cx: Context) -> String {
    let seconds = args["seconds"].as_u64().unwrap_or(3);
    let mut notice = StopNotice { finished: false };
    for left in (1..=seconds).rev() {
        let done = (seconds - left) as f64;
        cx.progress(done, Some(seconds as f64), Some(&format!("{left} to go")))
            .await;
        cx.log(LoggingLevel::Info, json!({ "left": left })).await;
        tokio::select! {
            () = tokio::time::sleep(Duration::from_millis(100)) => {}
            () = cx.cancelled() => return "cancelled".into(),
        }
    }
    notice.finished = true;
    "liftoff".into()
}

#[tokio::main]
async fn main() -> ExitCode {
    let schema =
        json!({"type": "object", "properties": {"seconds": {"type": "integer", "minimum": 0}}});
    let server = Server::builder("countdown", "1.0.0")
        .logging(true)
        .tool(
            Tool::new("countdown", schema.as_object().cloned().unwrap_or_default())
                .description("Counts down, reporting progress; stops when cancelled."),
            countdown,
        )
        .build();
    let result = match server {
        Ok(server) => presa::stdio::serve(server, ServeOptions::default())
            .await
            .map_err(|e| e.to_string()),
        Err(error) => Err(error.to_string()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("countdown: {error}");
            ExitCode::FAILURE
        }
    }
}
