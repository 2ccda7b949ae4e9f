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
mod apps;
#[cfg(feature = "schemars")]
mod cancellation;
mod extensions;
#[cfg(feature = "schemars")]
mod first_hour;
#[cfg(all(feature = "in-process", feature = "stdio"))]
mod flow;
mod harness;
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
mod library;
mod middleware;
#[cfg(feature = "schemars")]
mod notes;
#[cfg(feature = "prometheus")]
mod observed;
mod patterns;
#[cfg(feature = "schemars")]
mod quickstart;
#[cfg(all(feature = "redis", feature = "client", feature = "stdio"))]
mod scale_out;
mod skills;
mod stdio_processes;
#[cfg(feature = "schemars")]
mod tasks;
mod telemetry;
#[cfg(feature = "schemars")]
mod typed;
