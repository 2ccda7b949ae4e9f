//! Logging: a server built with `.logging(true)` sends log messages about the requests it
//! serves; the client asks for a level per call and receives them as notifications.
//!
//! ```sh
//! cargo run -p presa --example logging
//! ```
//!
//! Prints:
//!
//! ```text
//! [Warning] {"disk":"92% full"}
//! [Error] "backup failed"
//! result: checked
//! ```

use presa::client::{Client, ClientOptions, ResultText};
use presa::core::{LoggingMessageNotificationParams, parse_params};
use presa::prelude::*;
use serde_json::json;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = Server::builder("ops", "1.0.0")
        .logging(true)
        .typed_tool(
            Tool::named("check").description("Check the machine."),
            |(), cx: Context| async move {
                // each message goes out only when the client asked for its level or a lower one
                cx.log(LoggingLevel::Debug, json!("starting the check"))
                    .await;
                cx.log(LoggingLevel::Warning, json!({"disk": "92% full"}))
                    .await;
                cx.log(LoggingLevel::Error, json!("backup failed")).await;
                "checked"
            },
        )
        .build()?;
    let client = Client::connect(presa::in_process(server), ClientOptions::default()).await?;

    // log messages arrive with the other notifications; subscribe before calling
    let mut notifications = client.notifications();
    let result = client
        .call_tool("check", ())
        .log_level(LoggingLevel::Warning)
        .await?;
    // they arrived before the result did
    while let Some(notification) = notifications.try_recv() {
        if notification.method == "notifications/message" {
            let message: LoggingMessageNotificationParams =
                parse_params(notification.params.as_deref())?;
            println!("[{:?}] {}", message.level, message.data);
        }
    }
    println!("result: {}", result.text());
    client.close().await;
    Ok(())
}
