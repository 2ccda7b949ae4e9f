//! presa-oauth's integration tests, one binary: the OAuth client against presa-test's mock
//! authorization servers, and the JWT verifier (feature `jwt`) behind presa-http's auth layer.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod client_oauth;
mod client_oauth_grants;
mod client_oauth_support;
mod client_oauth_urls;
#[cfg(feature = "jwt")]
mod jwt;
