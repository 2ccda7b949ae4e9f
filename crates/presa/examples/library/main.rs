//! The `library` server: on stdio by default, or on Streamable HTTP at `/mcp` with
//! `--http HOST:PORT` (port 0 picks a free one; the URL is printed on the first line).
//!
//! ```sh
//! cargo run -p presa --example library
//! cargo run -p presa --example library -- --http 127.0.0.1:8080
//! ```
//!
//! Several instances behind a load balancer (built with the `redis` feature) share their state
//! on Redis with `--redis URL` (or `--redis-cluster URL,URL,…` for a Redis Cluster), and the
//! key that seals 2026-07-28 input rounds from the environment variable
//! `PRESA_REQUEST_STATE_KEY` (at least 32 bytes), the same for every instance:
//!
//! ```sh
//! PRESA_REQUEST_STATE_KEY=… cargo run -p presa --features redis --example library -- \
//!     --http 127.0.0.1:8080 --redis redis://127.0.0.1:6379/
//! ```

mod definitions;

use std::process::ExitCode;
use std::sync::Arc;

use presa::http::{HttpOptions, InMemorySessionStore, SessionStore, serve_with_store};
use presa::server::ServerBuilder;
use presa::stdio::ServeOptions;

const USAGE: &str = "usage: library [--http HOST:PORT [--redis URL | --redis-cluster URL,URL,...]]";

/// What the command line asked for.
#[derive(Default)]
struct Args {
    http: Option<String>,
    redis: Option<Redis>,
}

/// Where the shared state lives.
#[cfg_attr(
    not(feature = "redis"),
    allow(dead_code, reason = "read only with `redis`")
)]
enum Redis {
    Standalone(String),
    Cluster(Vec<String>),
}

fn parse(args: impl IntoIterator<Item = String>) -> Result<Args, String> {
    let mut parsed = Args::default();
    let mut args = args.into_iter();
    while let Some(flag) = args.next() {
        let mut value = || args.next().ok_or(format!("{flag} takes a value; {USAGE}"));
        match flag.as_str() {
            "--http" => parsed.http = Some(value()?),
            "--redis" => parsed.redis = Some(Redis::Standalone(value()?)),
            "--redis-cluster" => {
                let nodes = value()?.split(',').map(str::to_owned).collect();
                parsed.redis = Some(Redis::Cluster(nodes));
            }
            _ => return Err(USAGE.to_owned()),
        }
    }
    if parsed.redis.is_some() && parsed.http.is_none() {
        return Err(format!("--redis needs --http; {USAGE}"));
    }
    Ok(parsed)
}

#[tokio::main]
async fn main() -> ExitCode {
    match run().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("library: {error}");
            ExitCode::FAILURE
        }
    }
}

async fn run() -> Result<(), String> {
    let args = parse(std::env::args().skip(1))?;
    let key = std::env::var("PRESA_REQUEST_STATE_KEY").ok();
    let shared = match &args.redis {
        Some(redis) => Some(connect(redis).await?),
        None => None,
    };
    let configure = |mut builder: ServerBuilder| {
        if let Some(key) = &key {
            builder = builder.request_state_key(key);
        }
        if let Some((bus, _)) = &shared {
            builder = builder.event_bus(Arc::clone(bus));
        }
        builder
    };
    let server = definitions::library_with(configure).map_err(|e| e.to_string())?;
    match args.http {
        None => presa::stdio::serve(server, ServeOptions::default())
            .await
            .map_err(|e| e.to_string()),
        Some(address) => {
            let sessions = shared.map_or_else(
                || Arc::new(InMemorySessionStore::default()) as Arc<dyn SessionStore>,
                |(_, sessions)| sessions,
            );
            serve_http(server, &address, sessions).await
        }
    }
}

/// The event bus and the session store on Redis.
#[cfg(feature = "redis")]
async fn connect(
    redis: &Redis,
) -> Result<(Arc<dyn presa::server::EventBus>, Arc<dyn SessionStore>), String> {
    use presa::redis::RedisOptions;
    let options = match redis {
        Redis::Standalone(url) => RedisOptions::new(url),
        Redis::Cluster(nodes) => RedisOptions::cluster(nodes),
    };
    let redis = presa::redis::Redis::connect(options)
        .await
        .map_err(|e| e.to_string())?;
    let bus = redis.event_bus().await.map_err(|e| e.to_string())?;
    let sessions = redis.session_store().await.map_err(|e| e.to_string())?;
    Ok((Arc::new(bus), Arc::new(sessions)))
}

#[cfg(not(feature = "redis"))]
async fn connect(
    _: &Redis,
) -> Result<(Arc<dyn presa::server::EventBus>, Arc<dyn SessionStore>), String> {
    Err("built without the `redis` feature: \
         cargo run -p presa --features redis --example library -- …"
        .to_owned())
}

async fn serve_http(
    server: presa::server::Server,
    address: &str,
    sessions: Arc<dyn SessionStore>,
) -> Result<(), String> {
    let (host, port) = address.rsplit_once(':').ok_or("--http takes HOST:PORT")?;
    let port: u16 = port.parse().map_err(|_| format!("not a port: {port}"))?;
    let options = HttpOptions::default().host(host).port(port);
    let running = serve_with_store(server, options, sessions)
        .await
        .map_err(|e| e.to_string())?;
    println!("listening {}", running.url());
    let _ = tokio::signal::ctrl_c().await;
    running.stop().await.map_err(|e| e.to_string())
}
