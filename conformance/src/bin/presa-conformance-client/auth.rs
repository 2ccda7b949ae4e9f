//! The authorization scenarios (`auth/*`): one [`OAuthClient`] configured from the scenario's
//! context, answering the authorization page headlessly (the runner's authorization servers
//! approve at once and redirect; the `Location` is read, nothing listens on the redirect URI).
//!
//! Every scenario then plays the same session: connect, list the tools, call each with `{}`
//! (two authenticated requests at least, so that step-up and authorization server migration
//! are seen). Where the client is expected to refuse (a foreign resource, a wrong `iss`, a
//! foreign issuer, the retry limit), the session fails and the fixture exits 1, which those
//! scenarios allow.

use presa_client::Client;
use presa_http::HttpClientOptions;
use presa_oauth::{
    ClientCredentials, Grant, HeadlessAuthorization, IdentityAssertion, OAuthClient, OAuthOptions,
};
use serde_json::json;

use crate::{Failure, Scenario, close};

/// The client ID metadata document URL the runner expects (`auth/basic-cimd`).
const CLIENT_METADATA_URL: &str = "https://conformance-test.local/client-metadata.json";

/// Where the runner's authorization servers redirect to; nothing listens there.
const REDIRECT_URI: &str = "http://localhost:3000/callback";

/// Plays an `auth/*` scenario.
pub(crate) async fn run(scenario: &Scenario) -> Result<(), Failure> {
    let oauth = OAuthClient::new(&scenario.url, options(scenario)?)?;
    let http = HttpClientOptions::default().token_provider(oauth.clone());
    let channel = presa_http::client(&scenario.url, http)?;
    let outcome = match Client::connect(channel, scenario.options()).await {
        Ok(client) => {
            let outcome = session(&client).await;
            close(client).await;
            outcome
        }
        Err(error) => Err(error.into()),
    };
    // the failed request quotes the OAuth error; say it when it does not
    outcome.map_err(|error| match oauth.last_error() {
        Some(oauth) if !error.to_string().contains(&oauth.to_string()) => {
            format!("{error} (oauth: {oauth})").into()
        }
        _ => error,
    })
}

/// Lists the tools and calls each.
async fn session(client: &Client) -> Result<(), Failure> {
    for tool in client.list_tools().await? {
        client.call_tool(&tool.name, json!({})).await?;
    }
    Ok(())
}

/// The OAuth options for the scenario: the headless handler and CIMD URL for all, plus what
/// `MCP_CONFORMANCE_CONTEXT` brings (pre-registered credentials, keys, assertions).
fn options(scenario: &Scenario) -> Result<OAuthOptions, Failure> {
    let context = &scenario.context;
    let text = |name: &str| -> Result<String, Failure> {
        context[name]
            .as_str()
            .map(str::to_owned)
            .ok_or_else(|| format!("MCP_CONFORMANCE_CONTEXT has no {name}").into())
    };
    let options = OAuthOptions::default()
        .client_name("presa-conformance-client")
        .redirect_uri(REDIRECT_URI)
        .client_metadata_url(CLIENT_METADATA_URL)
        .authorization_handler(HeadlessAuthorization::new());
    let options = match scenario.name.as_str() {
        "auth/pre-registration" => options.credentials(
            ClientCredentials::new(text("client_id")?)
                .client_secret(text("client_secret")?)
                .issuer(text("issuer")?),
        ),
        "auth/client-credentials-basic" => options.grant(Grant::ClientCredentials).credentials(
            ClientCredentials::new(text("client_id")?).client_secret(text("client_secret")?),
        ),
        "auth/client-credentials-jwt" => options.grant(Grant::ClientCredentials).credentials(
            ClientCredentials::new(text("client_id")?).private_key_pem(text("private_key_pem")?),
        ),
        "auth/enterprise-managed-authorization" => options
            .grant(Grant::IdentityAssertion(IdentityAssertion::new(
                text("idp_token_endpoint")?,
                text("idp_client_id")?,
                text("idp_id_token")?,
            )))
            .credentials(
                ClientCredentials::new(text("client_id")?).client_secret(text("client_secret")?),
            ),
        "auth/wif-jwt-bearer" => options
            .grant(Grant::jwt_bearer(text("valid_jwt")?))
            .credentials(ClientCredentials::new(text("client_id")?)),
        _ => options,
    };
    Ok(options)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use serde_json::Value;

    use super::*;

    fn scenario(name: &str, context: Value) -> Scenario {
        Scenario {
            name: name.to_owned(),
            url: "http://localhost:1/mcp".to_owned(),
            version: "2025-11-25".parse().unwrap(),
            context,
        }
    }

    #[test]
    fn context_data_is_required_where_the_scenario_has_it() {
        let missing = options(&scenario("auth/pre-registration", json!({})));
        assert!(missing.is_err());
        let ok = options(&scenario(
            "auth/pre-registration",
            json!({"client_id": "a", "client_secret": "b", "issuer": "http://localhost:2"}),
        ));
        assert!(ok.is_ok());
        assert!(options(&scenario("auth/metadata-default", Value::Null)).is_ok());
    }
}
