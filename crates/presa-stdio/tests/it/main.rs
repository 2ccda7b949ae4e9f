//! presa-stdio's integration tests, one binary: serving a presa server on byte streams, and
//! spawning a server process as a client (Linux).

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[cfg(all(target_os = "linux", feature = "client"))]
mod command;
#[cfg(feature = "server")]
mod serve;
