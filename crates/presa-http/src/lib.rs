//! The Streamable HTTP transport for presa, on axum and tower: a router to mount in an existing
//! app, one tower layer per concern (Origin, Host, body size, auth), and a client.
//!
//! Depend on it, or on the facade `presa` with its `http` feature (as `presa::http`), to serve or
//! reach MCP over Streamable HTTP.
//!
//! Feature `server` (default) gives the server side; feature `client` (default) the client
//! transport. A server-only build compiles no reqwest.
//!
//! Diagnostics are `tracing` events with target `presa_http`: warnings for what went wrong
//! (a message that does not decode, a refused notification, a failed `DELETE`), `debug` for
//! routine steps (a session started or deleted).
//!
//! **Architecture invariant:** presa-http adapts HTTP to messages and holds no protocol logic; the
//! header rules it enforces come from presa-core.

#[cfg(feature = "client")]
mod client;
mod resource;
#[cfg(feature = "server")]
mod server;

// Internal: the SSE parser for presa-http's own benchmarks; not a public API.
#[cfg(feature = "__bench-internals")]
#[doc(hidden)]
#[path = "bench_internals.rs"]
pub mod __bench;

pub use resource::ProtectedResourceMetadata;

#[cfg(feature = "client")]
pub use client::*;
#[cfg(feature = "server")]
pub use server::*;
