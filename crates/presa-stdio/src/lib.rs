//! The stdio transport for presa: newline-delimited JSON-RPC over a process's stdin and stdout,
//! for servers and clients.
//!
//! Depend on it, or on the facade `presa` with its `stdio` feature (as `presa::stdio`), to serve
//! over stdio or to run a server as a subprocess.
//!
//! - [`serve`] (feature `server`) serves a [`presa_server::Server`] on this process's stdin and
//!   stdout until stdin closes, then waits for the requests in flight.
//! - [`command`] (feature `client`) starts a server process and returns the
//!   [`presa_client::ClientChannel`] a presa client connects over; closing the client closes the
//!   server's stdin, then terminates it if it lingers.
//!
//! One JSON-RPC message per line, UTF-8, no embedded newlines, the same in every protocol
//! revision. stdout carries protocol messages and nothing else: a stdio server logs to stderr.
//! Diagnostics (lines skipped, a server that had to be terminated) are `tracing` events with
//! target `presa_stdio`: warnings for what went wrong, `info` for a step of closing.
//! `docs/transports.md` in the repository has the options, the shutdown sequence and examples.
//!
//! This crate is not the protocol: decoding errors, revisions, the handshake and `_meta` are
//! handled by the connection layer ([`presa_server::serve_connection`] and the presa client),
//! which any other byte stream can drive the same way. For a client and a server in one process,
//! use `presa::in_process` instead.
//!
//! **Architecture invariant:** presa-stdio adapts bytes to messages and holds no protocol logic;
//! the protocol lives in presa-core and the connection layer in presa-server / presa-client.

#[cfg(feature = "client")]
mod client;
mod error;
#[cfg(any(feature = "server", feature = "client"))]
mod framing;
#[cfg(feature = "client")]
mod process;
#[cfg(feature = "server")]
mod server;

#[cfg(feature = "client")]
pub use client::*;
pub use error::*;
#[cfg(feature = "client")]
pub use process::Stderr;
#[cfg(feature = "server")]
pub use server::*;

pub use presa_core as core;
