//! A protected HTTP server with per-tool scopes: every request carries a bearer token, the
//! server's verifier says whose it is and what it may do, and a tool that needs more scopes than
//! the caller holds is refused with a `403` naming them.
//!
//! ```sh
//! cargo run -p presa --example scopes
//! ```
//!
//! Prints:
//!
//! ```text
//! alice closes a ticket: server error -32600: Insufficient scope: tool "close_ticket" requires tickets:write
//! bob closes a ticket: closed by bob
//! no token: transport failed: HTTP 401 Unauthorized: Unauthorized: a bearer token is required (-32600)
//! ```

use presa::client::{Client, ClientOptions, ResultText};
use presa::http::{AuthOptions, HttpClientOptions, HttpOptions, TokenError, VerifyError};
use presa::prelude::*;
use presa::server::RequireScopes;

/// A client sending `token` (none when empty) on every request.
async fn client_with(url: &str, token: &'static str) -> Result<Client, Box<dyn std::error::Error>> {
    let provider =
        move || async move { Ok::<_, TokenError>((!token.is_empty()).then(|| token.to_owned())) };
    let channel = presa::http::client(url, HttpClientOptions::default().token_provider(provider))?;
    Ok(Client::connect(channel, ClientOptions::default()).await?)
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = Server::builder("tickets", "1.0.0")
        // this tool needs a scope beyond the server-wide one
        .typed_tool(
            Tool::named("close_ticket").requires_scopes(["tickets:write"]),
            |(), cx: Context| async move {
                format!(
                    "closed by {}",
                    cx.auth()
                        .and_then(|auth| auth.subject())
                        .unwrap_or("nobody")
                )
            },
        )
        .build()?;
    // any async function from the token to an identity verifies (presa::oauth::JwtVerifier
    // checks JWTs); here, two known tokens
    let verify = |token: String| async move {
        match token.as_str() {
            "alice-token" => Ok(AuthInfo::new()
                .with_subject("alice")
                .with_scopes(["tickets:read"])),
            "bob-token" => Ok(AuthInfo::new()
                .with_subject("bob")
                .with_scopes(["tickets:read", "tickets:write"])),
            _ => Err(VerifyError::Invalid("unknown token".into())),
        }
    };
    let auth =
        AuthOptions::new("https://login.example.net", verify).required_scopes(["tickets:read"]);
    let running = presa::http::serve(server, HttpOptions::default().auth(auth)).await?;

    let alice = client_with(running.url(), "alice-token").await?;
    match alice.call_tool("close_ticket", ()).await {
        Ok(result) => println!("alice closes a ticket: {}", result.text()),
        Err(error) => println!(
            "alice closes a ticket: {}",
            presa::core::ErrorReport(&error)
        ),
    }
    let bob = client_with(running.url(), "bob-token").await?;
    println!(
        "bob closes a ticket: {}",
        bob.call_tool("close_ticket", ()).await?.text()
    );
    match client_with(running.url(), "").await {
        Ok(_) => println!("no token: connected"),
        Err(error) => println!("no token: {}", presa::core::ErrorReport(&*error)),
    }
    for client in [alice, bob] {
        client.close().await;
    }
    running.stop().await?;
    Ok(())
}
