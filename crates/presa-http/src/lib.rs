//! The Streamable HTTP transport for presa, on axum and tower: a router to mount in an existing
//! app, one tower layer per concern (Origin, Host, body size, auth, protocol headers), and a client.
//!
//! **Architecture invariant:** presa-http adapts HTTP to messages and holds no protocol logic; the
//! header rules it enforces come from presa-core.
//!
//! The transport arrives with the Streamable HTTP issue.

pub use presa_core as core;
