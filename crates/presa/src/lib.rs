//! presa is a Rust SDK for the [Model Context Protocol](https://modelcontextprotocol.io) (MCP):
//! the library you pick to write an MCP server (tools, resources, prompts) or an MCP client,
//! served over stdio, Streamable HTTP (axum/tower) or in-process. It speaks the stateless
//! revision 2026-07-28 and the initialize-era revisions 2025-11-25, 2025-06-18, 2025-03-26 and
//! 2024-11-05 through one API: a handler written once is served in both eras.
//!
//! This crate is the facade: depend on it with the features of the roles and transports you
//! need, and `use presa::prelude::*`. The [`guide`] module holds the guides, one per topic.
//!
//! # Quickstart
//!
//! In your crate's `Cargo.toml`:
//!
//! ```toml
//! [dependencies]
//! presa = "0.1"
//! tokio = { version = "1", features = ["macros", "rt-multi-thread"] }
//! serde = { version = "1", features = ["derive"] }
//! schemars = "1"
//! ```
//!
//! and in `src/main.rs`, a server with one typed tool, served on stdio:
//!
#![cfg_attr(
    all(feature = "server", feature = "stdio", feature = "schemars"),
    doc = include_str!("quickstart.md")
)]
//!
//! `cargo run` starts it; point any MCP client at that command. The tool's input and output
//! schemas come from `Add` and `Sum`, its description from `Add`'s doc comment.
//! [`guide::tools_resources_prompts`] goes on from there, and [`guide::transports`] serves the
//! same server over Streamable HTTP.
//!
//! # The guides
//!
//! | guide | what it covers |
//! |---|---|
//! | [`tools_resources_prompts`](guide::tools_resources_prompts) | writing a server: typed tools, results, validation, state, cancellation, resources, prompts |
//! | [`client`](guide::client) | connecting, calling, errors, the cache |
//! | [`transports`](guide::transports) | stdio, Streamable HTTP (server and client), in-process |
//! | [`input_requests`](guide::input_requests) | asking the client for input (elicitation, sampling, roots) in both eras |
//! | [`tasks`](guide::tasks) | tool calls that run on as tasks, polled by the client |
//! | [`subscriptions`](guide::subscriptions) | list changes, resource updates, `subscriptions/listen` |
//! | [`authorization`](guide::authorization) | OAuth: protecting an HTTP endpoint, scopes, the client's token flow |
//! | [`middleware`](guide::middleware) | one middleware stack over MCP requests on every transport |
//! | [`extensions`](guide::extensions) | declaring an extension; Agent Skills; MCP Apps |
//! | [`initialize_era`](guide::initialize_era) | serving and reaching peers of the older revisions |
//! | [`scale_out`](guide::scale_out) | several instances behind a load balancer, sharing state on Redis |
//! | [`observability`](guide::observability) | spans, metrics, trace context, OTLP and Prometheus |
//! | [`cli`](guide::cli) | the `presa` command |
//! | [`architecture`](guide::architecture) | the layering, each crate's rules, the request path |
//! | [`performance`](guide::performance), [`reliability`](guide::reliability) | how speed, memory and robustness are measured, and the figures |
//!
//! # The crates
//!
//! Each layer is a crate of its own; this facade re-exports them by feature.
//!
//! | module | crate | what it holds |
//! |---|---|---|
//! | [`crate::core`] | `presa-core` | the wire model of every revision, the JSON-RPC envelope, negotiation, and sans-IO session state machines; no tokio, no I/O |
//! | [`schema`] | `presa-schema` | JSON Schema validation: a dependency-light subset, full 2020-12 with `full-schema` |
//! | [`server`] | `presa-server` | server definitions as data plus closures or derived from types, dispatch, middleware |
//! | [`client`] | `presa-client` | the client: discover or initialize, list, call, read, get, complete, listen |
//! | [`stdio`] | `presa-stdio` | the stdio transport: servers, and clients of a subprocess |
//! | [`http`] | `presa-http` | Streamable HTTP: an axum router, tower layers (Origin, Host, body size, bearer auth), a client |
//! | [`oauth`] | `presa-oauth` | the MCP authorization client, and a JWT access-token verifier |
//! | [`redis`] | `presa-redis` | the session store, event bus and task store on Redis, for scale-out |
//! | [`prelude`] | – | what a server needs in scope |
//!
//! # Features
//!
//! | feature | default | what it turns on |
//! |---|---|---|
//! | `server` | yes | servers, and the server side of each transport turned on |
//! | `client` | yes | clients, and the client side of each transport turned on |
//! | `in-process` | yes | a client connected to a server in the same process ([`in_process`]) |
//! | `stdio`, `http` | yes | the transports |
//! | `oauth` | yes | the OAuth client for HTTP clients of protected servers |
//! | `schemars` | yes | schemas derived from Rust types (`typed_tool` and its kin) |
//! | `jwt` | no | the JWT verifier for protected HTTP servers |
//! | `full-schema` | no | full JSON Schema 2020-12 validation of tool schemas |
//! | `otel` | no | OpenTelemetry trace context through `_meta` |
//! | `prometheus` | no | a Prometheus scrape endpoint beside `/mcp` |
//! | `redis` | no | several instances sharing state on Redis |

// the guides name items as a user's crate sees them (`presa::server::Context`), in rustdoc too
extern crate self as presa;

pub use presa_core as core;
pub use presa_schema as schema;

#[cfg(feature = "client")]
pub use presa_client as client;
#[cfg(feature = "http")]
pub use presa_http as http;
#[cfg(any(feature = "oauth", feature = "jwt"))]
pub use presa_oauth as oauth;
#[cfg(feature = "redis")]
pub use presa_redis as redis;
#[cfg(feature = "server")]
pub use presa_server as server;
#[cfg(feature = "stdio")]
pub use presa_stdio as stdio;

/// schemars, the crate presa derives schemas with, at the version presa uses. A user's own
/// crate still lists `schemars` among its dependencies: `#[derive(JsonSchema)]` names it.
#[cfg(feature = "schemars")]
pub use schemars;

#[cfg(feature = "server")]
pub mod prelude;

#[cfg(feature = "in-process")]
mod in_process;
#[cfg(feature = "in-process")]
pub use in_process::*;

pub mod guide;
