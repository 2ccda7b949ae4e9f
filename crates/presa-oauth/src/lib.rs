//! OAuth for presa: the client of the MCP authorization specification and, behind the `jwt`
//! feature, a verifier of JWT access tokens for protected servers.
//!
//! Depend on it, or on the facade `presa` with `oauth` (client) or `jwt` (server), when a client
//! must log in to a protected server or a server must verify access tokens.
//!
//! - [`OAuthClient`] is a [`TokenProvider`](presa_http::TokenProvider) for presa-http's client
//!   transport: it discovers the authorization server, registers, obtains and refreshes tokens
//!   (PKCE, DPoP, client credentials, JWT bearer, enterprise identity assertions), and steps up
//!   scopes when the server asks.
//! - [`JwtVerifier`] (feature `jwt`) is a [`TokenVerifier`](presa_http::TokenVerifier) for
//!   presa-http's auth layer: signatures with keys from a JWKS (fetched and cached), issuer,
//!   audience, expiry.
//!
//! presa-http holds the hooks both plug into (`TokenProvider`, `TokenVerifier`, `AuthLayer`)
//! and needs no crypto of its own; this crate brings reqwest, p256, sha2 and (with `jwt`)
//! jsonwebtoken.
//!
//! One concern per module: `challenge` reads `WWW-Authenticate`; `discovery` finds the
//! protected resource and authorization server metadata; `registration` the client's identity;
//! `authorization` the authorization request and its response checks; `tokens` the token
//! endpoint; `scope` the scope choice; `storage` the [`TokenStore`] and `file_store` the [`FileTokenStore`]; `jwt` ES256 assertions and
//! DPoP proofs; `flow` ties them together for [`OAuthClient`] (`client`).
//!
//! `docs/authorization.md` in the repository describes the client with examples.

mod authorization;
mod challenge;
mod client;
mod discovery;
mod error;
mod file_store;
mod flow;
// Internal: the readers of peer input for presa's fuzz targets; not a public API.
#[cfg(feature = "__fuzz-internals")]
#[doc(hidden)]
#[path = "fuzz_internals.rs"]
pub mod __fuzz;
mod http;
#[cfg(feature = "jwt")]
mod jwks;
mod jwt;
#[cfg(feature = "jwt")]
mod key;
mod options;
mod registration;
mod scope;
mod storage;
mod tokens;
#[cfg(feature = "jwt")]
mod verifier;

pub use authorization::{AuthorizationHandler, HeadlessAuthorization};
pub use client::OAuthClient;
pub use error::{HttpFailure, OAuthError};
pub use file_store::{FileStoreError, FileTokenStore};
#[cfg(feature = "jwt")]
pub use key::{JwtKey, JwtKeyError};
pub use options::{
    ApplicationType, AssertionSource, ClientCredentials, Grant, IdentityAssertion, OAuthOptions,
    TokenEndpointAuth,
};
pub use storage::{MemoryTokenStore, StoredClient, StoredTokens, TokenStore};
#[cfg(feature = "jwt")]
pub use verifier::JwtVerifier;
