//! Tasks: a long tool call answered at once with a task that runs on; the client checks its
//! status, then waits for its result (polling `tasks/get`, or `tasks/result` on 2025-11-25).
//!
//! ```sh
//! cargo run -p presa --example task_calls
//! ```
//!
//! Prints:
//!
//! ```text
//! export runs as a task
//! status: Working
//! result: exported 3 reports
//! ```

use std::sync::Mutex;

use presa::client::{Client, ClientOptions, ResultText, ToolCall};
use presa::prelude::*;
use tokio::sync::oneshot;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // the job waits for this before it finishes, so that its status can be seen while it runs
    let (finish, finished) = oneshot::channel::<()>();
    let finished = Mutex::new(Some(finished));
    let server = Server::builder("reports", "1.0.0")
        .typed_tool(
            Tool::named("export")
                .description("Export the reports.")
                .task_support(TaskSupport::Optional),
            move |(), cx: Context| {
                let finished = finished.lock().ok().and_then(|mut f| f.take());
                async move {
                    // a task from here on, when the client allows one
                    cx.run_as_task().await;
                    if let Some(finished) = finished {
                        let _ = finished.await;
                    }
                    "exported 3 reports"
                }
            },
        )
        .build()?;
    // a client allows tasks explicitly
    let client = Client::connect(
        presa::in_process(server),
        ClientOptions::default().tasks(true),
    )
    .await?;

    // a server may answer at once (ToolCall::Complete); this job waits, so it becomes a task
    let ToolCall::Task(task) = client.start_tool("export", ()).await? else {
        return Err("the export was answered at once".into());
    };
    // task.id() can be saved: client.resume_task(id) takes it up again later
    println!("export runs as a task");
    println!("status: {:?}", task.status().await?.status);
    let _ = finish.send(());
    println!("result: {}", task.wait().await?.text());
    client.close().await;
    Ok(())
}
