//! presa-redis: presa's shared state on Redis, so that several instances of one server behind a
//! plain round-robin load balancer serve the same clients.
//!
//! Depend on it, or on the facade `presa` with its `redis` feature, when you run more than one
//! instance of a server.
//!
//! 2026-07-28 requests need none of this (give every instance the same
//! `request_state_key`). What the initialize era and listening clients keep between requests is
//! what this crate puts on Redis 7, standalone or a Redis Cluster:
//!
//! - [`RedisSessionStore`]: initialize-era session state (a presa-http [`SessionStore`]), kept
//!   for the session idle timeout after its last request, saved with compare-and-set.
//! - [`RedisBus`]: an [`EventBus`] over Redis pub/sub, so that a list change or a
//!   `resources/updated` published on one instance reaches the listening clients of every
//!   instance.
//! - [`RedisTaskStore`]: tasks (a presa-server [`TaskStore`]), so that any instance answers
//!   `tasks/get` and `tasks/list` for any task while its handler runs where it started (what
//!   is not across instances yet is in docs/scale-out.md).
//!
//! They share one [`Redis`] connection for their commands (the bus opens one more for its
//! subscription); connections reconnect by themselves when Redis comes back.
//!
//! ```no_run
//! use std::sync::Arc;
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let redis = presa_redis::Redis::connect(presa_redis::RedisOptions::new(
//!     "redis://127.0.0.1:6379/",
//! ))
//! .await?;
//! let server = presa_server::Server::builder("app", "1.0.0")
//!     .shared_bus(Arc::new(redis.event_bus().await?))
//!     .build()?;
//! let app = presa_http::router_with_store::<()>(
//!     server,
//!     presa_http::HttpOptions::default(),
//!     presa_http::SessionStorage::shared(Arc::new(redis.session_store().await?)),
//! );
//! # drop(app);
//! # Ok(())
//! # }
//! ```
//!
//! [`SessionStore`]: presa_http::SessionStore
//! [`EventBus`]: presa_server::EventBus
//! [`TaskStore`]: presa_server::TaskStore

mod bus;
mod channel;
mod connection;
mod error;
mod session;
mod tasks;

pub use bus::RedisBus;
pub use connection::{Redis, RedisOptions};
pub use error::RedisError;
pub use session::RedisSessionStore;
pub use tasks::RedisTaskStore;
