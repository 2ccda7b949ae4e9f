//! Authorization for the MCP endpoint: the resource-server side of MCP authorization (OAuth 2.1
//! bearer tokens, RFC 6750 challenges, RFC 9728 protected resource metadata).
//!
//! - [`AuthLayer`] checks the `Authorization: Bearer` token of every request with a
//!   [`TokenVerifier`] and puts the verified [`AuthInfo`](presa_server::AuthInfo) into the
//!   request's extensions; the MCP endpoint hands it to handlers as
//!   [`Context::auth`](presa_server::Context::auth). Missing or invalid tokens get 401 with a
//!   `WWW-Authenticate` challenge pointing at the metadata.
//! - [`AuthOptions::metadata_router`] serves the [`ProtectedResourceMetadata`](crate::ProtectedResourceMetadata) at
//!   `/.well-known/oauth-protected-resource<path>`, without a token.
//! - [`HttpOptions::auth`](crate::HttpOptions::auth) wires both into [`router`](crate::router)
//!   and [`serve`](crate::serve).
//! - Scopes: server-wide with [`AuthOptions::required_scopes`]; per tool, resource or prompt
//!   on the definition (`Tool::new(..).requires_scopes([..])`), answered with 403
//!   `insufficient_scope`.
//! - presa-oauth's `JwtVerifier` (its feature `jwt`) is a verifier of JWT access tokens
//!   (signature, issuer, audience, expiry) with keys from a cached JWKS.
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! use axum::{Extension, Router, body::Body, http::Request, routing::post};
//! use presa_http::{AuthLayer, AuthOptions, VerifyError};
//! use presa_server::AuthInfo;
//! use tower::ServiceExt;
//!
//! let verify = |token: String| async move {
//!     match token.as_str() {
//!         "alice-token" => Ok(AuthInfo::new().with_subject("alice")),
//!         _ => Err(VerifyError::Invalid("unknown token".into())),
//!     }
//! };
//! let auth = AuthOptions::new("https://login.example.net", verify)
//!     .resource("https://api.example.net/mcp");
//! let app: Router = Router::new()
//!     .route("/mcp", post(|Extension(who): Extension<AuthInfo>| async move {
//!         who.subject().unwrap_or("?").to_owned()
//!     }))
//!     .layer(AuthLayer::new(auth.clone()))
//!     .merge(auth.metadata_router("/mcp"));
//!
//! let anonymous = app.clone().oneshot(Request::post("/mcp").body(Body::empty()).unwrap()).await.unwrap();
//! assert_eq!(anonymous.status(), 401);
//! assert_eq!(
//!     anonymous.headers()["www-authenticate"],
//!     r#"Bearer resource_metadata="https://api.example.net/.well-known/oauth-protected-resource/mcp""#
//! );
//! let alice = Request::post("/mcp").header("authorization", "Bearer alice-token").body(Body::empty()).unwrap();
//! assert_eq!(app.oneshot(alice).await.unwrap().status(), 200);
//! # });
//! ```
//!
//! The MCP endpoint takes the identity from the request's `AuthInfo` extension, whoever put it
//! there: a middleware of your own (client certificates, a gateway's headers) works too.
//!
//! Deployment notes: set [`AuthOptions::resource`] to the URI clients use (behind TLS or a
//! proxy the request's `Host` says too little), and make the verifier check that tokens name
//! that URI as their audience. Mount the router at the root of the host: the metadata lives at
//! a well-known path there. Tokens are read from the `Authorization` header only, never from
//! the query string.

mod challenge;
mod layer;
mod metadata;
mod options;
mod service;
mod verifier;

use axum::http::StatusCode;
use axum::response::Response;
use presa_server::{AuthInfo, InsufficientScope};

pub use layer::AuthLayer;
pub use options::AuthOptions;
pub use service::Auth;
pub use verifier::{TokenVerifier, VerifyError};

use super::sse::json_response;

/// Who a request is, for binding sessions and posted cancellation to it: the subject, else the
/// client the token was issued to.
pub(crate) fn principal(auth: &AuthInfo) -> Option<String> {
    match (auth.subject(), auth.client_id()) {
        (Some(subject), _) => Some(format!("sub:{subject}")),
        (None, Some(client)) => Some(format!("client:{client}")),
        (None, None) => None,
    }
}

/// A 403 carrying a JSON-RPC error `body`; the auth layer adds the `insufficient_scope`
/// challenge for `needed`.
pub(crate) fn insufficient_scope_response(body: String, needed: InsufficientScope) -> Response {
    let mut response = json_response(StatusCode::FORBIDDEN, body);
    response.extensions_mut().insert(needed);
    response
}
