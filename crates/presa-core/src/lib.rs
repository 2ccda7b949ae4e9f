//! presa-core: the MCP wire model and sans-IO protocol state machines.
//!
//! Depend on it directly to build a transport or a tool of your own on MCP's messages; servers and
//! clients get it through the facade `presa` (as `presa::core`).
//!
//! This crate is the part of presa that knows the Model Context Protocol on the wire and nothing
//! else: the JSON-RPC envelope, every message of every supported revision as a typed struct, the
//! protocol revisions and their negotiation, error codes and their HTTP statuses, the SEP-2243
//! header rules, pagination cursors, RFC 6570 URI templates, the sealed `requestState` codec, and
//! the session state machines of both sides.
//!
//! It is **not** a runtime: it performs no I/O, spawns nothing and never reads the clock. Time is
//! a parameter of the functions that need it; what to send is returned, never sent. Servers and
//! clients are written with presa-server and presa-client, which drive these types on tokio; the
//! transports live in presa-stdio and presa-http.
//!
//! **Architecture invariant:** presa-core compiles without tokio, axum, hyper or reqwest
//! (`cargo tree -p presa-core -e normal` shows none of them).

mod cursor;
mod headers;
mod jsonrpc;
mod report;
mod request_meta;
mod request_state;
mod scopes;
mod session;
mod status;
mod telemetry;
mod types;
mod uri_template;
mod version;

pub use cursor::*;
pub use headers::*;
pub use jsonrpc::*;
pub use report::ErrorReport;
pub use request_meta::*;
pub use request_state::*;
pub use scopes::*;
pub use session::*;
pub use status::*;
pub use telemetry::*;
pub use types::*;
pub use uri_template::*;
pub use version::*;
