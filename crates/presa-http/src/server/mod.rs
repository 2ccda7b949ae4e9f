//! The Streamable HTTP server: both protocol eras on one endpoint.
//!
//! - [`serve`] listens on an address and returns a [`RunningServer`] with its URL and a graceful
//!   stop.
//! - [`router`] gives an [`axum::Router`] to mount in an existing app (it is also a tower
//!   `Service`); call it with your app's state type and `nest` or `merge` it.
//! - Each concern is also a tower layer usable on its own: [`OriginLayer`], [`HostLayer`],
//!   [`BodyLimitLayer`], [`AuthLayer`].
//! - [`HttpOptions::auth`] protects the endpoint with OAuth bearer tokens and serves its
//!   protected resource metadata (see [`AuthLayer`]).
//!
//! A 2026-07-28 request is checked (headers, `_meta`, version) and answered on its own POST: one
//! JSON body, or an SSE stream once its handler reports progress or logs; closing that stream
//! cancels the request. An initialize-era client gets a session (`Mcp-Session-Id`), a GET event
//! stream for server-initiated messages, event ids with `Last-Event-ID` resumption, and DELETE.

mod accept;
mod auth;
mod drain;
mod endpoint;
mod headers;
mod host;
mod legacy;
mod limit;
mod live;
#[cfg(feature = "prometheus")]
mod metrics;
mod options;
mod origin;
mod reject;
mod session;
mod shared;
mod sse;
mod stateless;
mod store;

use std::io;
use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::routing::post;
use presa_server::Server;
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

pub use auth::{Auth, AuthLayer, AuthOptions, TokenVerifier, VerifyError};
pub use drain::{Drain, DrainReport};
pub use host::{Host, HostLayer};
pub use limit::{BodyLimit, BodyLimitLayer};
#[cfg(feature = "prometheus")]
pub use metrics::{PrometheusError, PrometheusMetrics};
pub use options::{Allow, CancellationPolicy, HttpOptions, SubjectFn};
pub use origin::{Origin, OriginLayer};
pub use store::{
    EventLog, InMemorySessionStore, LoggedEvent, Relay, Relayed, SessionState, SessionStorage,
    SessionStore, SessionStoreError, SharedSessionStore, StoreFuture,
};

use shared::Shared;

/// The MCP endpoint as an axum router, with the Origin, Host and body-size layers applied (and,
/// with [`HttpOptions::auth`], the auth layer and the protected resource metadata route).
///
/// Generic over the outer app's state, so it can be merged into any router. Accepted sockets
/// should have `TCP_NODELAY` set (see [`serve`]): without it a multi-write SSE reply can stall for
/// tens of milliseconds per request against delayed ACKs.
///
/// ```
/// use axum::{Router, routing::get};
/// use presa_http::{router, HttpOptions};
/// use presa_server::Server;
///
/// let server = Server::builder("app", "1.0.0").build().unwrap();
/// let app: Router = Router::new()
///     .route("/health", get(|| async { "ok" }))
///     .merge(router(server, HttpOptions::default()));
/// ```
pub fn router<S: Clone + Send + Sync + 'static>(server: Server, options: HttpOptions) -> Router<S> {
    router_with_store(server, options, SessionStorage::default())
}

/// [`router`] with a session store of your own ([`SessionStorage::shared`] for one that
/// several instances share).
pub fn router_with_store<S: Clone + Send + Sync + 'static>(
    server: Server,
    options: HttpOptions,
    sessions: SessionStorage,
) -> Router<S> {
    let hosts = options.hosts_allowed_on(options.host.parse().ok());
    build(Shared::new(server, options, sessions), hosts)
}

/// [`router_with_store`], and a [`Drain`] handle for a graceful shutdown of the endpoint in
/// your app: new work refused, streams ended, requests in flight given until a deadline.
pub fn router_with_drain<S: Clone + Send + Sync + 'static>(
    server: Server,
    options: HttpOptions,
    sessions: SessionStorage,
) -> (Router<S>, Drain) {
    let hosts = options.hosts_allowed_on(options.host.parse().ok());
    let shared = Shared::new(server, options, sessions);
    (build(shared.clone(), hosts), Drain::new(shared))
}

/// The endpoint's router; `hosts` is its `Host` allow-list, resolved for the address served on.
fn build<S: Clone + Send + Sync + 'static>(shared: Shared, hosts: Allow) -> Router<S> {
    let options = Arc::clone(&shared.options);
    let endpoint = post(endpoint::post)
        .get(legacy::get)
        .delete(legacy::delete)
        .fallback(endpoint::other);
    let router = match &options.auth {
        Some(auth) => Router::new()
            .route(&options.path, endpoint.layer(AuthLayer::new(auth.clone())))
            .merge(auth.metadata_router(&options.path)),
        None => Router::new().route(&options.path, endpoint),
    };
    // the scrape endpoint, behind the guards below like the MCP endpoint
    #[cfg(feature = "prometheus")]
    let router = match &options.metrics {
        Some(metrics) => {
            let served = metrics.clone();
            let scrape = axum::routing::get(move || {
                let served = served.clone();
                async move { served.response() }
            });
            let scrape = match (&options.auth, metrics.is_authenticated()) {
                (Some(auth), true) => scrape.layer(AuthLayer::new(auth.clone())),
                (None, true) => {
                    // nothing to check a token with: served open, and said so
                    tracing::warn!(
                        target: "presa_http",
                        path = metrics.get_path(),
                        "the metrics endpoint asks for authentication, but the server has no \
                         AuthOptions: it is served without"
                    );
                    scrape
                }
                _ => scrape,
            };
            router.route(metrics.get_path(), scrape)
        }
        None => router,
    };
    // one stack, so that a request clones and boxes one service per route, not one per layer
    let guards = tower::ServiceBuilder::new()
        .layer(OriginLayer::new(options.allowed_origins.clone()))
        .layer(HostLayer::new(hosts))
        .layer(BodyLimitLayer::new(options.max_body_bytes));
    router.layer(guards).with_state(shared)
}

/// Why the server could not start or stopped badly.
#[derive(Debug)]
#[non_exhaustive]
pub enum HttpServeError {
    /// Binding the address failed.
    Bind(io::Error),
    /// The server task failed.
    Serve(io::Error),
}

impl std::fmt::Display for HttpServeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Bind(_) => f.write_str("could not bind the address"),
            Self::Serve(_) => f.write_str("the server failed"),
        }
    }
}

impl std::error::Error for HttpServeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Bind(e) | Self::Serve(e) => Some(e),
        }
    }
}

/// A server started by [`serve`].
#[derive(Debug)]
pub struct RunningServer {
    url: String,
    addr: SocketAddr,
    drain: Drain,
    stop: Option<oneshot::Sender<()>>,
    task: JoinHandle<io::Result<()>>,
}

impl RunningServer {
    /// The endpoint's URL, e.g. `http://127.0.0.1:38211/mcp`.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The address the server listens on.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// Drains the endpoint (see [`Drain`]: new work refused, streams ended, requests in flight
    /// given `deadline`, then stopped), then [`stop`](Self::stop)s the server.
    pub async fn drain(self, deadline: std::time::Duration) -> Result<DrainReport, HttpServeError> {
        let report = self.drain.drain(deadline).await;
        self.stop().await?;
        Ok(report)
    }

    /// A [`Drain`] handle of this server's endpoint, e.g. to drain from a signal handler.
    pub fn drain_handle(&self) -> Drain {
        self.drain.clone()
    }

    /// Stops accepting connections, ends every session and event stream, lets requests in
    /// flight finish, and returns once the server is down.
    pub async fn stop(mut self) -> Result<(), HttpServeError> {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        match (&mut self.task).await {
            Ok(result) => result.map_err(HttpServeError::Serve),
            Err(join) => Err(HttpServeError::Serve(io::Error::other(join.to_string()))),
        }
    }
}

/// Serves `server` over Streamable HTTP at `options`' host, port and path, with `TCP_NODELAY`
/// on every accepted socket.
///
/// ```no_run
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// use presa_http::{serve, HttpOptions};
/// use presa_server::Server;
///
/// let server = Server::builder("app", "1.0.0").build()?;
/// let running = serve(server, HttpOptions::default().port(8080)).await?;
/// println!("serving at {}", running.url());
/// running.stop().await?;
/// # Ok(()) }
/// ```
pub async fn serve(server: Server, options: HttpOptions) -> Result<RunningServer, HttpServeError> {
    serve_with_store(server, options, SessionStorage::default()).await
}

/// [`serve`] with a session store of your own: several instances sharing one store (e.g.
/// presa-redis's) serve each other's initialize-era sessions.
///
/// Stopping an instance ends the live parts it holds (its event streams, its requests in
/// flight), not the sessions' state in the store: their clients go on through another
/// instance.
pub async fn serve_with_store(
    server: Server,
    options: HttpOptions,
    sessions: SessionStorage,
) -> Result<RunningServer, HttpServeError> {
    let listener = TcpListener::bind((options.host.as_str(), options.port))
        .await
        .map_err(HttpServeError::Bind)?;
    let addr = listener.local_addr().map_err(HttpServeError::Bind)?;
    let url = format!("http://{addr}{}", options.path);
    let hosts = options.hosts_allowed_on(Some(addr.ip()));
    let shared = Shared::new(server, options, sessions);
    let app: Router = build(shared.clone(), hosts);
    let drain = Drain::new(shared.clone());
    let (stop, stopped) = oneshot::channel::<()>();
    let task = tokio::spawn(async move {
        let stopped = async move {
            let _ = stopped.await;
        };
        accept::run(listener, app, &shared.options, stopped, || {
            shared.close_sessions();
        })
        .await
    });
    Ok(RunningServer {
        url,
        addr,
        drain,
        stop: Some(stop),
        task,
    })
}
