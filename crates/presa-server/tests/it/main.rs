//! presa-server's integration tests, one binary: dispatch, the connection layer and its driven
//! form, input requests, and authorization.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod auth;
mod connection;
mod dispatch;
mod driven;
mod input;
mod tasks;
#[cfg(feature = "schemars")]
mod typed_schemas;
