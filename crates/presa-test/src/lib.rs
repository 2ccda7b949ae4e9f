//! presa-test: the test support shared by presa's crates.
//!
//! What more than one test file needs lives here once instead of being copied between them:
//!
//! - [`message`]: JSON-RPC messages as tests write them: the 2026-07-28 `_meta`, requests and
//!   notifications of both eras, an `initialize` request.
//! - [`examples`] (feature `examples`): presa's examples built for a test, the same build
//!   whichever crate asks, and the cargo command of any build nested in a cargo command.
//! - [`interop`] (feature `interop`): the independent MCP implementations (npm, PyPI), installed
//!   on first use.
//! - [`fake`] (feature `fake`): a fake MCP server on presa-core's `ServerSession`, at the other
//!   end of a presa-client `ClientChannel`.
//! - [`http`] (feature `http`): a scripted Streamable HTTP endpoint on 127.0.0.1 that hands each
//!   request to the test to answer.
//! - [`oauth`] (feature `oauth`): a mock protected resource and authorization servers on
//!   127.0.0.1 (metadata documents, `/authorize`, `/token`, `/register`).
//! - [`trace`] (feature `trace`): records the `tracing` events emitted on the test's thread, for
//!   tests of what presa-http and presa-stdio report as diagnostics.
//! - [`redis`] (feature `redis`): a real `redis-server` on a free 127.0.0.1 port, installed
//!   from Debian's packages on first use ([`debian`]).
//! - [`nginx`] (feature `nginx`): a real nginx balancing round-robin over upstreams, installed
//!   the same way.
//! - [`prometheus`] (feature `prometheus`): a real Prometheus scraping one target, installed the
//!   same way.
//!
//! It is **not** published and not a public API: it is a dev-dependency of presa's own crates,
//! and it changes with their tests. It depends on presa-core and presa-client only, never on
//! the crates whose tests use its HTTP and OAuth mocks (presa-http, presa-oauth), so no test sees
//! two copies of a type. Helpers that need those crates stay in their tests.
//!
//! Everything here panics on the unexpected (a test's failure), so `unwrap` and `expect` are
//! allowed throughout.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[cfg(any(
    feature = "debian",
    feature = "redis",
    feature = "nginx",
    feature = "prometheus"
))]
pub mod debian;
#[cfg(feature = "examples")]
pub mod examples;
#[cfg(feature = "fake")]
pub mod fake;
#[cfg(feature = "http")]
pub mod http;
#[cfg(feature = "interop")]
pub mod interop;
#[cfg(feature = "message")]
pub mod message;
#[cfg(feature = "nginx")]
pub mod nginx;
#[cfg(feature = "oauth")]
pub mod oauth;
#[cfg(any(feature = "redis", feature = "nginx", feature = "prometheus"))]
mod process;
#[cfg(feature = "prometheus")]
pub mod prometheus;
#[cfg(feature = "redis")]
pub mod redis;
#[cfg(feature = "trace")]
pub mod trace;
