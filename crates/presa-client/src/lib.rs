//! MCP clients for presa: discover or initialize, list, call, read, get, complete and listen,
//! whichever protocol era the server speaks.
//!
//! Depend on it, or on the facade `presa` with its `client` feature (as `presa::client`), to call
//! MCP servers from Rust.
//!
//! [`Client::connect`] takes the [`ClientChannel`] of a transport (stdio, Streamable HTTP,
//! in-process), finds out which revision the server speaks — `server/discover` for
//! 2026-07-28, falling back to the `initialize` handshake — and returns a [`Client`] whose
//! methods are typed calls: [`list_tools`](Client::list_tools) (every page),
//! [`call_tool`](Client::call_tool), [`read_resource`](Client::read_resource),
//! [`get_prompt`](Client::get_prompt), [`complete`](Client::complete), and
//! [`request`](Client::request) for anything else. Each call takes per-call options (timeout,
//! progress, log level) before it is awaited. Input the server needs (sampling, elicitation,
//! roots) is answered by handlers registered in [`ClientOptions`], in both eras.
//! [`subscribe`](Client::subscribe) opens a [`Subscription`] to list changes and resource
//! updates, also in both eras.
//!
//! This crate is **not** a transport: it opens no sockets or pipes (presa-stdio and presa-http
//! do, and hand over a [`ClientChannel`]), and it knows the protocol only through presa-core's
//! sans-IO [`ClientSession`](presa_core::ClientSession), which it drives on one tokio task per
//! connection. Use presa-core directly to drive a session on another runtime.
//!
//! The guide, with examples: `docs/client.md`.
//!
//! **Architecture invariant:** presa-client depends on presa-core and never on presa-server; it
//! opens no sockets or pipes itself.

mod cache;
mod call;
mod call_builder;
mod calls;
mod client;
mod connect;
mod driver;
mod error;
mod handle;
mod handler;
mod info;
#[cfg(feature = "otel")]
mod metrics;
mod mrtr;
mod notifications;
mod options;
mod output;
mod params;
mod skills;
mod subscription;
mod tasks;
mod telemetry;
mod text;
mod transport;

pub use call::CallOptions;
pub use call_builder::{CallBuilder, CallFuture};
pub use client::Client;
pub use error::ClientError;
pub use handler::{BoxFuture, InputContext, InputHandler};
pub use info::ServerInfo;
pub use notifications::Notifications;
pub use options::ClientOptions;
pub use skills::{LoadedSkill, SkillFile, SkillLoadError};
pub use subscription::{ChangeEvent, Subscription, SubscriptionOptions};
pub use tasks::{TaskHandle, TaskState, ToolCall};
pub use text::{ResultText, StructuredContent};
pub use transport::*;
