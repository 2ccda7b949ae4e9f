//! presa's integration tests, one binary: the design document's `library` examples, the client and
//! server patterns and the middleware over every transport, stdio with real processes, and
//! interoperability with MCP implementations presa did not write (`interop`).

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[cfg(all(
    feature = "server",
    feature = "client",
    feature = "stdio",
    feature = "http"
))]
mod interop;
#[cfg(all(
    feature = "server",
    feature = "client",
    feature = "stdio",
    feature = "http"
))]
mod interop_http;
#[cfg(all(
    feature = "server",
    feature = "client",
    feature = "stdio",
    feature = "http"
))]
mod interop_stdio;
mod cancellation;
mod library;
mod middleware;
mod notes;
mod patterns;
mod quickstart;
mod typed;
mod stdio_processes;
