//! presa-http's integration tests, one binary: the Streamable HTTP server (sessions, the session
//! store, authorization) on 127.0.0.1, and the client transport against a scripted endpoint
//! (presa-test's `http::Mock`) and against presa's own server.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[cfg(feature = "client")]
mod client_end_to_end;
#[cfg(feature = "client")]
mod client_headers;
#[cfg(feature = "client")]
mod client_hostile_server;
#[cfg(feature = "client")]
mod client_oauth_transport;
#[cfg(feature = "client")]
mod client_responses;
#[cfg(feature = "client")]
mod client_session;
#[cfg(feature = "client")]
mod client_support;
#[cfg(all(feature = "client", feature = "server"))]
mod client_with_server;
#[cfg(feature = "server")]
mod drain;
#[cfg(all(feature = "prometheus", feature = "client"))]
mod metrics;
#[cfg(feature = "server")]
mod server_auth;
#[cfg(feature = "server")]
mod server_http;
#[cfg(feature = "server")]
mod server_tasks;
#[cfg(feature = "server")]
mod session_store;
#[cfg(feature = "server")]
mod slow_peers;
