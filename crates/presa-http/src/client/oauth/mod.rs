//! The OAuth client of the MCP authorization specification: [`OAuthClient`], a
//! [`TokenProvider`](crate::TokenProvider) that discovers the authorization server, registers,
//! obtains and refreshes tokens, and steps up scopes when the server asks.
//!
//! One concern per module: `challenge` reads `WWW-Authenticate`; `discovery` finds the
//! protected resource and authorization server metadata; `registration` the client's identity;
//! `authorization` the authorization request and its response checks; `tokens` the token
//! endpoint; `scope` the scope choice; `storage` the [`TokenStore`]; `jwt` ES256 assertions and
//! DPoP proofs; `flow` ties them together for [`OAuthClient`] (`client`).
//!
//! `docs/authorization.md` in the repository describes the client with examples.

mod authorization;
mod challenge;
mod client;
mod discovery;
mod error;
mod flow;
mod http;
mod jwt;
mod options;
mod registration;
mod scope;
mod storage;
mod tokens;

pub use authorization::{AuthorizationHandler, HeadlessAuthorization};
pub use client::OAuthClient;
pub use error::OAuthError;
pub use options::{
    ApplicationType, AssertionSource, ClientCredentials, Grant, IdentityAssertion, OAuthOptions,
    TokenEndpointAuth,
};
pub use storage::{MemoryTokenStore, StoredClient, StoredTokens, TokenStore};
