//! The stdio transport for presa: newline-delimited JSON-RPC over a child process's stdin and
//! stdout, for servers and clients.
//!
//! **Architecture invariant:** presa-stdio adapts bytes to messages and holds no protocol logic;
//! the protocol lives in presa-core and the connection layer in presa-server / presa-client.
//!
//! The transport arrives with the stdio issue.

pub use presa_core as core;
