//! MCP servers for presa: definitions (tools, resources, prompts) as plain data plus closures,
//! dispatched the same way under every protocol revision.
//!
//! **Architecture invariant:** presa-server depends on presa-core and presa-schema and never on
//! presa-client, and it opens no sockets or pipes itself; the transports (presa-stdio,
//! presa-http) adapt bytes to the messages this crate handles.
//!
//! The definitions and the dispatcher arrive with the server issue; this crate currently carries
//! only the protocol model it builds on, re-exported from presa-core.

pub use presa_core as core;
