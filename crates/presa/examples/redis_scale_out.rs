//! Scale-out on Redis: two replicas of one server share an event bus and a session store on
//! Redis, so that a change made on one replica reaches a client listening on the other (behind
//! a round-robin load balancer, any request may land on either).
//!
//! Needs a Redis 7 at `REDIS_URL` (`cargo xtask examples` starts one):
//!
//! ```sh
//! REDIS_URL=redis://127.0.0.1:6379/ cargo run -p presa --features redis --example redis_scale_out
//! ```
//!
//! Prints:
//!
//! ```text
//! a client listens on replica b
//! another posts on replica a: posted
//! replica b's client is told board://today changed: standup at ten
//! ```

use std::sync::{Arc, Mutex};

use presa::client::{ChangeEvent, Client, ClientOptions, ResultText, SubscriptionOptions};
use presa::http::{HttpClientOptions, HttpOptions, RunningServer, SessionStorage};
use presa::prelude::*;
use presa::redis::{Redis, RedisOptions};
use serde::Deserialize;

/// Post a message on the board.
#[derive(Deserialize, JsonSchema)]
struct Post {
    text: String,
}

/// The application's own data (its database), one for both replicas here.
static BOARD: Mutex<String> = Mutex::new(String::new());

/// One replica: the same definitions and key as every other, its state shared on Redis.
async fn replica(redis: &Redis) -> Result<RunningServer, Box<dyn std::error::Error>> {
    let server = Server::builder("board", "1.0.0")
        .request_state_key("the same key on every replica, 32+ bytes")
        .shared_bus(Arc::new(redis.event_bus().await?))
        .subscribe(true)
        .resource(
            Resource::new("board://today", "board"),
            |_cx: Context| async { BOARD.lock().map(|text| text.clone()).unwrap_or_default() },
        )
        .typed_tool("post", |Args(post): Args<Post>, cx: Context| async move {
            *BOARD.lock().map_err(|_| ToolError::new("no board"))? = post.text;
            // published on Redis: every replica tells its own listeners
            if let Some(server) = cx.server() {
                server.resource_updated("board://today");
            }
            Ok::<_, ToolError>("posted")
        })
        .build()?;
    let sessions = SessionStorage::shared(Arc::new(redis.session_store().await?));
    Ok(presa::http::serve_with_store(server, HttpOptions::default(), sessions).await?)
}

async fn connect(url: &str) -> Result<Client, Box<dyn std::error::Error>> {
    let channel = presa::http::client(url, HttpClientOptions::default())?;
    Ok(Client::connect(channel, ClientOptions::default()).await?)
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let url =
        std::env::var("REDIS_URL").map_err(|_| "set REDIS_URL, e.g. redis://127.0.0.1:6379/")?;
    let redis = Redis::connect(RedisOptions::new(url)).await?;
    let (a, b) = (replica(&redis).await?, replica(&redis).await?);
    let (on_a, on_b) = (connect(a.url()).await?, connect(b.url()).await?);

    let today = SubscriptionOptions::new().resource("board://today");
    let mut changes = on_b.subscribe(today).await?;
    println!("a client listens on replica b");
    let message = serde_json::json!({"text": "standup at ten"});
    let posted = on_a.call_tool("post", message).await?;
    println!("another posts on replica a: {}", posted.text());
    if let Some(ChangeEvent::ResourceUpdated { uri }) = changes.next().await {
        let text = on_b.read_resource(&uri).await?.text();
        println!("replica b's client is told {uri} changed: {text}");
    }
    for (client, replica) in [(on_a, a), (on_b, b)] {
        client.close().await;
        replica.stop().await?;
    }
    Ok(())
}
