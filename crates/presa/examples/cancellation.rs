//! Cancellation: a client gives up on a call (drops it, or lets its `.timeout(..)` expire) and
//! tells the server; the server drops the handler at its next await, and a `Drop` guard cleans
//! up whatever the handler held.
//!
//! ```sh
//! cargo run -p presa --example cancellation
//! ```
//!
//! Prints:
//!
//! ```text
//! deploy: waiting for an approval that never comes
//! the client gives up on the call
//! the server dropped the handler, and its guard cleaned up
//! ```

use std::future::IntoFuture;
use std::sync::Mutex;

use presa::client::{Client, ClientOptions};
use presa::prelude::*;
use tokio::sync::oneshot;

/// Says when the handler ends, whether it finished or was dropped.
struct Cleanup(Option<oneshot::Sender<()>>);

impl Drop for Cleanup {
    fn drop(&mut self) {
        if let Some(done) = self.0.take() {
            let _ = done.send(());
        }
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (started, on_start) = oneshot::channel();
    let (cleaned_up, on_cleanup) = oneshot::channel();
    let signals = Mutex::new(Some((started, cleaned_up)));
    let server = Server::builder("deployer", "1.0.0")
        .typed_tool("deploy", move |(), _cx: Context| {
            let signals = signals.lock().ok().and_then(|mut s| s.take());
            async move {
                let Some((started, cleaned_up)) = signals else {
                    return "deployed twice?";
                };
                let _cleanup = Cleanup(Some(cleaned_up));
                println!("deploy: waiting for an approval that never comes");
                let _ = started.send(());
                // the handler is dropped at this await once the client cancels
                std::future::pending::<()>().await;
                "deployed"
            }
        })
        .build()?;
    let client = Client::connect(presa::in_process(server), ClientOptions::default()).await?;

    // once the handler runs, the client drops the call: that sends notifications/cancelled
    tokio::select! {
        _ = client.call_tool("deploy", ()).into_future() => println!("the call finished"),
        _ = on_start => println!("the client gives up on the call"),
    }
    on_cleanup.await?;
    println!("the server dropped the handler, and its guard cleaned up");
    client.close().await;
    Ok(())
}
