//! An HTTP client with OAuth: the server answers `401`, and presa's `OAuthClient` finds the
//! server's authorization server (RFC 9728, RFC 8414 metadata), gets a token with the client
//! credentials grant, and retries. The authorization server here is a few axum routes.
//!
//! ```sh
//! cargo run -p presa --example oauth_client
//! ```
//!
//! Prints:
//!
//! ```text
//! token request: grant Some("client_credentials"), client Some("reporting-job")
//! whoami: you are reporting-job
//! ```

use axum::Router;
use axum::http::{StatusCode, header::CONTENT_TYPE};
use axum::response::IntoResponse;
use axum::routing::{get, post};
use presa::client::{Client, ClientOptions, ResultText};
use presa::http::{AuthOptions, HttpClientOptions, HttpOptions, VerifyError};
use presa::oauth::{ClientCredentials, Grant, OAuthClient, OAuthOptions};
use presa::prelude::*;
use serde_json::json;

const JSON: &str = "application/json";

/// The one token this authorization server issues.
const TOKEN: &str = "token-for-reporting-job";

/// The authorization server's token endpoint: a token for the client with the right secret.
async fn token(form: String) -> impl IntoResponse {
    let field = |name: &str| {
        form.split('&')
            .find_map(|p| p.strip_prefix(name)?.strip_prefix('='))
    };
    let (grant, client) = (field("grant_type"), field("client_id"));
    println!("token request: grant {grant:?}, client {client:?}");
    let issued = json!({"access_token": TOKEN, "token_type": "Bearer"});
    let (status, answer) = match field("client_secret") {
        Some("s3cr3t") => (StatusCode::OK, issued),
        _ => (StatusCode::UNAUTHORIZED, json!({"error": "invalid_client"})),
    };
    (status, [(CONTENT_TYPE, JSON)], answer.to_string())
}

/// An authorization server at `issuer`: its metadata (RFC 8414) and its token endpoint.
fn authorization_server(issuer: String) -> Router {
    let metadata = json!({
        "issuer": issuer,
        "token_endpoint": format!("{issuer}/token"),
        "token_endpoint_auth_methods_supported": ["client_secret_post"],
    });
    let metadata = move || async move { ([(CONTENT_TYPE, JSON)], metadata.to_string()) };
    Router::new()
        .route("/.well-known/oauth-authorization-server", get(metadata))
        .route("/token", post(token))
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let issuer = format!("http://{}", listener.local_addr()?);
    tokio::spawn(axum::serve(listener, authorization_server(issuer.clone())).into_future());

    let server = Server::builder("reports", "1.0.0")
        .typed_tool("whoami", |(), cx: Context| async move {
            let who = cx.auth().and_then(|a| a.subject()).unwrap_or_default();
            format!("you are {who}")
        })
        .build()?;
    // the protected resource metadata it serves names `issuer` as its authorization server
    let verify = |token: String| async move {
        (token == TOKEN)
            .then(|| AuthInfo::new().with_subject("reporting-job"))
            .ok_or(VerifyError::Invalid("unknown token".into()))
    };
    let protected = HttpOptions::default().auth(AuthOptions::new(issuer, verify));
    let running = presa::http::serve(server, protected).await?;

    let credentials = ClientCredentials::new("reporting-job").client_secret("s3cr3t");
    let options = OAuthOptions::default()
        .grant(Grant::ClientCredentials)
        .credentials(credentials);
    let oauth = OAuthClient::new(running.url(), options)?;
    let http = HttpClientOptions::default().token_provider(oauth);
    let channel = presa::http::client(running.url(), http)?;
    let client = Client::connect(channel, ClientOptions::default()).await?;
    println!("whoami: {}", client.call_tool("whoami", ()).await?.text());
    client.close().await;
    running.stop().await?;
    Ok(())
}
