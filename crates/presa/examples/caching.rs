//! Caching hints: a server says how long its lists and reads stay fresh (`ttlMs`) and who may
//! share them (`cacheScope`); a client with a cache reuses them that long.
//!
//! ```sh
//! cargo run -p presa --example caching
//! ```
//!
//! Prints:
//!
//! ```text
//! read 1: ttlMs Some(60000), cacheScope Some(Public), served 1 time(s)
//! read 2 (from the cache): served 1 time(s)
//! read 3 (cache skipped): served 2 time(s)
//! ```

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use presa::client::{Client, ClientOptions};
use presa::core::CacheScope;
use presa::prelude::*;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // how many times the server read the price list
    let reads = Arc::new(AtomicUsize::new(0));
    let counter = reads.clone();
    let server = Server::builder("prices", "1.0.0")
        // every discover, list and read result: fresh for a minute, the same for every user
        .cache(60_000, CacheScope::Public)
        .resource(
            Resource::new("prices://today", "prices"),
            move |_cx: Context| {
                counter.fetch_add(1, Ordering::SeqCst);
                async { "coffee 2.10, tea 1.80" }
            },
        )
        .build()?;
    let client = Client::connect(
        presa::in_process(server),
        ClientOptions::default().cache(true),
    )
    .await?;
    let served = || reads.load(Ordering::SeqCst);

    let first = client.read_resource("prices://today").await?;
    println!(
        "read 1: ttlMs {:?}, cacheScope {:?}, served {} time(s)",
        first.ttl_ms,
        first.cache_scope,
        served()
    );
    client.read_resource("prices://today").await?;
    println!("read 2 (from the cache): served {} time(s)", served());
    client
        .read_resource("prices://today")
        .use_cache(false)
        .await?;
    println!("read 3 (cache skipped): served {} time(s)", served());
    client.close().await;
    Ok(())
}
