//! Streamable HTTP with JWT access tokens: the server checks every request's bearer token with
//! presa's `JwtVerifier` (signature, issuer, audience, expiry) and hands handlers the caller;
//! tokens minted here stand in for an authorization server's.
//!
//! ```sh
//! cargo run -p presa --features jwt --example http_jwt
//! ```
//!
//! Prints:
//!
//! ```text
//! a valid token: you are alice (notes:read)
//! another server's token: transport failed: HTTP 401 Unauthorized: Unauthorized: the token was not issued for this resource (-32600)
//! an expired token: transport failed: HTTP 401 Unauthorized: Unauthorized: the token expired (-32600)
//! ```

use std::time::{SystemTime, UNIX_EPOCH};

use jsonwebtoken::{Algorithm, EncodingKey, Header};
use presa::client::{Client, ClientOptions, ResultText};
use presa::core::ErrorReport;
use presa::http::{AuthOptions, HttpClientOptions, HttpOptions, TokenError};
use presa::oauth::{JwtKey, JwtVerifier};
use presa::prelude::*;
use serde_json::json;

const ISSUER: &str = "https://login.example.net";
const RESOURCE: &str = "https://notes.example.net/mcp";
const OTHER_RESOURCE: &str = "https://other.example.net/mcp";
/// The secret the issuer and this server share (a real deployment fetches the issuer's public
/// keys instead: `JwtVerifier::jwks`).
const SECRET: &[u8] = b"a secret shared with the issuer, 32+ bytes";

/// A token for `audience`, valid for `seconds` (negative: expired).
fn token(audience: &str, seconds: i64) -> Result<String, jsonwebtoken::errors::Error> {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    let claims = json!({"iss": ISSUER, "aud": audience, "sub": "alice", "scope": "notes:read", "exp": now + seconds});
    jsonwebtoken::encode(
        &Header::new(Algorithm::HS256),
        &claims,
        &EncodingKey::from_secret(SECRET)?,
    )
}

async fn whoami(url: &str, token: String) -> Result<String, Box<dyn std::error::Error>> {
    let provider = move || std::future::ready(Ok::<_, TokenError>(Some(token.clone())));
    let channel = presa::http::client(url, HttpClientOptions::default().token_provider(provider))?;
    let client = Client::connect(channel, ClientOptions::default()).await?;
    let text = client.call_tool("whoami", ()).await?.text();
    client.close().await;
    Ok(text)
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = Server::builder("notes", "1.0.0")
        .typed_tool(
            Tool::named("whoami").description("Who is calling."),
            |(), cx: Context| async move {
                let auth = cx.auth();
                let who = auth.and_then(|a| a.subject()).unwrap_or("nobody");
                let scopes = auth.map(|a| a.scopes().iter().cloned().collect::<Vec<_>>().join(" "));
                format!("you are {who} ({})", scopes.unwrap_or_default())
            },
        )
        .build()?;
    let verifier = JwtVerifier::new(ISSUER, RESOURCE, [JwtKey::hmac(SECRET)?]);
    let auth = AuthOptions::new(ISSUER, verifier).resource(RESOURCE);
    let running = presa::http::serve(server, HttpOptions::default().auth(auth)).await?;

    for (label, token) in [
        ("a valid token", token(RESOURCE, 300)?),
        ("another server's token", token(OTHER_RESOURCE, 300)?),
        ("an expired token", token(RESOURCE, -3600)?),
    ] {
        match whoami(running.url(), token).await {
            Ok(text) => println!("{label}: {text}"),
            Err(error) => println!("{label}: {}", ErrorReport(&*error)),
        }
    }
    running.stop().await?;
    Ok(())
}
