//! presa-client against a fake server built on presa-core's `ServerSession` (presa-test's
//! `fake`).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod cache;
mod calls;
mod connect;
mod flow;
mod headers;
mod input;
mod lifecycle;
mod subscriptions;
mod tasks;

use presa_client::{Client, ClientOptions};
use presa_test::fake::{self, Fake, FakeConfig};

/// A client connected to a fresh fake server.
async fn connect_with(config: FakeConfig, options: ClientOptions) -> (Client, Fake) {
    let (channel, fake) = fake::spawn(config);
    let client = Client::connect(channel, options).await.unwrap();
    (client, fake)
}

async fn modern() -> (Client, Fake) {
    connect_with(FakeConfig::default(), ClientOptions::default()).await
}

async fn legacy() -> (Client, Fake) {
    connect_with(FakeConfig::legacy(), ClientOptions::default()).await
}

fn methods(messages: &[serde_json::Value]) -> Vec<String> {
    messages
        .iter()
        .filter_map(|m| m["method"].as_str().map(str::to_owned))
        .collect()
}
