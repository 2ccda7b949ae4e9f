//! Cancellation: a call that takes too long times out on the client, which tells the server to
//! cancel; the server drops the handler at its next await, and a `Drop` guard cleans up.
//!
//! ```sh
//! cargo run -p presa --example cancellation
//! ```
//!
//! Prints:
//!
//! ```text
//! waiting for an approval that never comes
//! the call failed: request timed out
//! the handler was dropped; its guard released the lock
//! ```

use std::sync::Mutex;
use std::time::Duration;

use presa::client::{Client, ClientOptions};
use presa::prelude::*;
use tokio::sync::oneshot;

/// Runs when the handler ends, whether it finished or was dropped.
struct ReleaseLock(Option<oneshot::Sender<()>>);

impl Drop for ReleaseLock {
    fn drop(&mut self) {
        if let Some(released) = self.0.take() {
            let _ = released.send(());
        }
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (released, on_release) = oneshot::channel();
    let released = Mutex::new(Some(released));
    let server = Server::builder("deployer", "1.0.0")
        .typed_tool(
            Tool::named("deploy").description("Deploy once approved."),
            move |(), _cx: Context| {
                let guard = ReleaseLock(released.lock().ok().and_then(|mut r| r.take()));
                async move {
                    let _guard = guard;
                    println!("waiting for an approval that never comes");
                    // the handler is dropped at this await once the client cancels
                    std::future::pending::<()>().await;
                    "deployed"
                }
            },
        )
        .build()?;
    let client = Client::connect(presa::in_process(server), ClientOptions::default()).await?;

    // on timeout the client fails the call and sends notifications/cancelled; dropping the
    // call's future would cancel it the same way
    match client
        .call_tool("deploy", ())
        .timeout(Duration::from_millis(200))
        .await
    {
        Ok(_) => println!("the call finished"),
        Err(error) => println!("the call failed: {error}"),
    }
    on_release.await?;
    println!("the handler was dropped; its guard released the lock");
    client.close().await;
    Ok(())
}
