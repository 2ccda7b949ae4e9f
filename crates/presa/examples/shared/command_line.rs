//! The command line the `library`, `notes`, `skills` and `apps` examples share: stdio by
//! default, Streamable HTTP with `--http HOST:PORT` (port 0 picks a free one; the URL is
//! printed on the first line), and, built with the `redis` feature, several instances behind a
//! load balancer sharing their state on Redis with `--redis URL` (or `--redis-cluster
//! URL,URL,…`). The key
//! that seals 2026-07-28 input rounds comes from the environment variable
//! `PRESA_REQUEST_STATE_KEY` (at least 32 bytes), the same for every instance.
//! `--max-connections N` raises the HTTP connection cap (default 512; raise the process's file
//! descriptor limit with it).

use std::process::ExitCode;

use presa::core::ErrorReport;
use presa::http::{HttpOptions, SessionStorage, serve_with_store};
use presa::server::{BuildError, Server, ServerBuilder, SharedBus};
use presa::stdio::ServeOptions;

/// What the command line asked for.
#[derive(Default)]
struct Args {
    http: Option<String>,
    redis: Option<Redis>,
    max_connections: Option<usize>,
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

fn usage(name: &str) -> String {
    format!(
        "usage: {name} [--http HOST:PORT [--max-connections N] \
         [--redis URL | --redis-cluster URL,URL,...]]"
    )
}

fn parse(name: &str, args: impl IntoIterator<Item = String>) -> Result<Args, String> {
    let mut parsed = Args::default();
    let mut args = args.into_iter();
    while let Some(flag) = args.next() {
        let mut value = || {
            args.next()
                .ok_or_else(|| format!("{flag} takes a value; {}", usage(name)))
        };
        match flag.as_str() {
            "--http" => parsed.http = Some(value()?),
            "--max-connections" => {
                let max = value()?;
                let max = max
                    .parse()
                    .map_err(|_| format!("--max-connections takes a number, not {max:?}"))?;
                parsed.max_connections = Some(max);
            }
            "--redis" => parsed.redis = Some(Redis::Standalone(value()?)),
            "--redis-cluster" => {
                let nodes = value()?.split(',').map(str::to_owned).collect();
                parsed.redis = Some(Redis::Cluster(nodes));
            }
            _ => return Err(usage(name)),
        }
    }
    if (parsed.redis.is_some() || parsed.max_connections.is_some()) && parsed.http.is_none() {
        return Err(format!(
            "--redis and --max-connections need --http; {}",
            usage(name)
        ));
    }
    Ok(parsed)
}

/// Runs the example `name` whose server `build` makes, given the builder's last settings (the
/// request-state key, the event bus), as the command line asks; errors go to stderr.
pub(crate) async fn run(
    name: &str,
    build: impl FnOnce(&dyn Fn(ServerBuilder) -> ServerBuilder) -> Result<Server, BuildError>,
) -> ExitCode {
    match serve(name, build).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("{name}: {error}");
            ExitCode::FAILURE
        }
    }
}

async fn serve(
    name: &str,
    build: impl FnOnce(&dyn Fn(ServerBuilder) -> ServerBuilder) -> Result<Server, BuildError>,
) -> Result<(), String> {
    let args = parse(name, std::env::args().skip(1))?;
    let key = std::env::var("PRESA_REQUEST_STATE_KEY").ok();
    let shared = match &args.redis {
        Some(redis) => Some(connect(name, redis).await?),
        None => None,
    };
    let configure = |mut builder: ServerBuilder| {
        if let Some(key) = &key {
            builder = builder.request_state_key(key);
        }
        if let Some((bus, _)) = &shared {
            builder = builder.shared_bus(bus.clone());
        }
        builder
    };
    let server = build(&configure).map_err(|e| ErrorReport(&e).to_string())?;
    match args.http {
        None => presa::stdio::serve(server, ServeOptions::default())
            .await
            .map_err(|e| ErrorReport(&e).to_string()),
        Some(address) => {
            let sessions = shared.map_or_else(SessionStorage::default, |(_, sessions)| sessions);
            let mut options = HttpOptions::default();
            if let Some(max) = args.max_connections {
                options = options.max_connections(max);
            }
            serve_http(server, &address, options, sessions).await
        }
    }
}

/// The event bus and the session store on Redis.
#[cfg(feature = "redis")]
async fn connect(_name: &str, redis: &Redis) -> Result<(SharedBus, SessionStorage), String> {
    use presa::redis::RedisOptions;
    let options = match redis {
        Redis::Standalone(url) => RedisOptions::new(url),
        Redis::Cluster(nodes) => RedisOptions::cluster(nodes),
    };
    let redis = presa::redis::Redis::connect(options)
        .await
        .map_err(|e| ErrorReport(&e).to_string())?;
    let bus = redis
        .event_bus()
        .await
        .map_err(|e| ErrorReport(&e).to_string())?;
    let sessions = redis
        .session_store()
        .await
        .map_err(|e| ErrorReport(&e).to_string())?;
    Ok((
        SharedBus::from(std::sync::Arc::new(bus)),
        SessionStorage::shared(std::sync::Arc::new(sessions)),
    ))
}

#[cfg(not(feature = "redis"))]
async fn connect(name: &str, _: &Redis) -> Result<(SharedBus, SessionStorage), String> {
    Err(format!(
        "built without the `redis` feature: \
         cargo run -p presa --features redis --example {name} -- …"
    ))
}

async fn serve_http(
    server: Server,
    address: &str,
    options: HttpOptions,
    sessions: SessionStorage,
) -> Result<(), String> {
    let (host, port) = address.rsplit_once(':').ok_or("--http takes HOST:PORT")?;
    let port: u16 = port.parse().map_err(|_| format!("not a port: {port}"))?;
    let options = options.host(host).port(port);
    let running = serve_with_store(server, options, sessions)
        .await
        .map_err(|e| ErrorReport(&e).to_string())?;
    println!("listening {}", running.url());
    let _ = tokio::signal::ctrl_c().await;
    running
        .stop()
        .await
        .map_err(|e| ErrorReport(&e).to_string())
}
