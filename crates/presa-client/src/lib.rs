//! MCP clients for presa: discover or initialize, list, call, read, get, complete and listen,
//! whichever protocol era the server speaks.
//!
//! **Architecture invariant:** presa-client depends on presa-core and never on presa-server; it
//! opens no sockets or pipes itself.
//!
//! The client arrives with the server/client issue; this crate currently carries only the protocol
//! model it builds on, re-exported from presa-core.

pub use presa_core as core;
