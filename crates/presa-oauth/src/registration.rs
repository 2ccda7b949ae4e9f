//! The client's identity at an authorization server, in the MCP specification's order:
//! pre-registered credentials, a client ID metadata document, dynamic client registration
//! (RFC 7591, with `application_type`). Registrations are keyed by issuer and never presented
//! to another authorization server.

use serde_json::{Value, json};

use crate::discovery::ServerMetadata;
use crate::error::OAuthError;
use crate::http::{parse_url, post_json};
use crate::jwt::Es256Key;
use crate::options::{ClientCredentials, OAuthOptions, TokenEndpointAuth};
use crate::storage::{StoredClient, TokenStore};
use crate::tokens::ClientAuth;

/// Where a client identity came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Source {
    PreRegistered,
    Stored,
    MetadataDocument,
    Dynamic,
}

/// Finds the client's identity at the authorization server `server` (see the module doc).
/// `bound` is asked whether issuer-less pre-registered credentials may be used there (they
/// bind to the first issuer). With `interactive` false (grants without a user), only
/// pre-registered and stored identities are used.
pub(crate) async fn identity(
    http: &reqwest::Client,
    server: &ServerMetadata,
    options: &OAuthOptions,
    bound: impl Fn(&ClientCredentials) -> Option<String>,
    interactive: bool,
) -> Result<Option<(ClientAuth, Source)>, OAuthError> {
    let issuer = server.issuer.as_str();
    let supported = server.token_endpoint_auth_methods_supported.as_deref();
    let store = options.store.as_ref();
    if let Some(credentials) = options
        .credentials
        .iter()
        .find(|c| c.issuer.as_deref() == Some(issuer))
    {
        return Ok(Some((
            pre_registered(credentials, supported)?,
            Source::PreRegistered,
        )));
    }
    if let Some(client) = load(store, issuer).await? {
        let auth = ClientAuth {
            method: ClientAuth::choose(
                client
                    .token_endpoint_auth_method
                    .as_deref()
                    .and_then(TokenEndpointAuth::from_name),
                client.client_secret.is_some(),
                false,
                supported,
            ),
            client_id: client.client_id,
            secret: client.client_secret,
            key: None,
        };
        return Ok(Some((auth, Source::Stored)));
    }
    if let Some(credentials) = options
        .credentials
        .iter()
        .find(|c| c.issuer.is_none() && bound(c).is_none_or(|b| b == issuer))
    {
        return Ok(Some((
            pre_registered(credentials, supported)?,
            Source::PreRegistered,
        )));
    }
    if !interactive {
        return Ok(None);
    }
    if let Some(url) = &options.client_metadata_url
        && server.client_id_metadata_document_supported
    {
        // kept so that refreshing (which registers nothing) finds it
        let client = StoredClient::new(issuer, url.clone())
            .with_token_endpoint_auth_method(Some("none".to_owned()));
        save(store, issuer, client).await?;
        let auth = ClientAuth {
            client_id: url.clone(),
            secret: None,
            key: None,
            method: TokenEndpointAuth::None,
        };
        return Ok(Some((auth, Source::MetadataDocument)));
    }
    if let Some(endpoint) = &server.registration_endpoint {
        let client = register(http, endpoint, server, options).await?;
        save(store, issuer, client.clone()).await?;
        let auth = ClientAuth {
            method: ClientAuth::choose(
                client
                    .token_endpoint_auth_method
                    .as_deref()
                    .and_then(TokenEndpointAuth::from_name),
                client.client_secret.is_some(),
                false,
                supported,
            ),
            client_id: client.client_id,
            secret: client.client_secret,
            key: None,
        };
        return Ok(Some((auth, Source::Dynamic)));
    }
    Err(OAuthError::NoClientRegistration {
        issuer: issuer.to_owned(),
    })
}

async fn load(store: &dyn TokenStore, issuer: &str) -> Result<Option<StoredClient>, OAuthError> {
    let client = store
        .load_client(issuer)
        .await
        .map_err(|e| OAuthError::Store(e.to_string()))?;
    // a registration stored under another issuer's name is not this server's
    Ok(client.filter(|c| c.issuer == issuer))
}

async fn save(
    store: &dyn TokenStore,
    issuer: &str,
    client: StoredClient,
) -> Result<(), OAuthError> {
    store
        .save_client(issuer, Some(client))
        .await
        .map_err(|e| OAuthError::Store(e.to_string()))
}

fn pre_registered(
    credentials: &ClientCredentials,
    supported: Option<&[String]>,
) -> Result<ClientAuth, OAuthError> {
    let key = credentials
        .private_key_pem
        .as_deref()
        .map(Es256Key::from_pem)
        .transpose()?;
    Ok(ClientAuth {
        method: ClientAuth::choose(
            credentials.auth,
            credentials.client_secret.is_some(),
            key.is_some(),
            supported,
        ),
        client_id: credentials.client_id.clone(),
        secret: credentials.client_secret.clone(),
        key,
    })
}

/// The token endpoint authentication method asked for in registration: `none` (a public
/// client, PKCE protects the code) where the server supports it, else `client_secret_basic`,
/// else `client_secret_post`, else the server's first.
pub(crate) fn registration_method(supported: Option<&[String]>) -> String {
    let Some(supported) = supported else {
        return "client_secret_basic".to_owned();
    };
    ["none", "client_secret_basic", "client_secret_post"]
        .into_iter()
        .find(|m| supported.iter().any(|s| s == m))
        .map(str::to_owned)
        .or_else(|| supported.first().cloned())
        .unwrap_or_else(|| "client_secret_basic".to_owned())
}

/// The client metadata sent in dynamic registration.
pub(crate) fn registration_request(options: &OAuthOptions, method: &str) -> Value {
    json!({
        "client_name": options.client_name,
        "redirect_uris": [options.redirect_uri],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": method,
        "application_type": options.application_type.as_str(),
    })
}

async fn register(
    http: &reqwest::Client,
    endpoint: &str,
    server: &ServerMetadata,
    options: &OAuthOptions,
) -> Result<StoredClient, OAuthError> {
    let method = registration_method(server.token_endpoint_auth_methods_supported.as_deref());
    let body = registration_request(options, &method);
    let answer = post_json(http, &parse_url(endpoint)?, &body).await?;
    if !answer.status.is_success() {
        let (error, description) = answer.oauth_error();
        return Err(OAuthError::Registration {
            status: answer.status.as_u16(),
            error: match description {
                Some(description) => format!("{error}: {description}"),
                None => error,
            },
        });
    }
    let json = answer.json.unwrap_or_default();
    let text = |name: &str| json.get(name).and_then(Value::as_str).map(str::to_owned);
    let client_id = text("client_id").ok_or_else(|| OAuthError::InvalidResponse {
        what: "client registration response".to_owned(),
        reason: "no client_id".to_owned(),
    })?;
    Ok(StoredClient::new(server.issuer.clone(), client_id)
        .with_client_secret(text("client_secret"))
        // what the server registered, else what was asked
        .with_token_endpoint_auth_method(text("token_endpoint_auth_method").or(Some(method))))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(methods: &[&str]) -> Vec<String> {
        methods.iter().map(|m| (*m).to_owned()).collect()
    }

    #[test]
    fn the_registration_asks_for_a_supported_method() {
        assert_eq!(registration_method(None), "client_secret_basic");
        assert_eq!(registration_method(Some(&list(&["none"]))), "none");
        assert_eq!(
            registration_method(Some(&list(&["client_secret_post", "client_secret_basic"]))),
            "client_secret_basic"
        );
        assert_eq!(
            registration_method(Some(&list(&["client_secret_post"]))),
            "client_secret_post"
        );
        assert_eq!(
            registration_method(Some(&list(&["private_key_jwt"]))),
            "private_key_jwt"
        );
    }

    #[test]
    fn the_registration_request_names_the_application_type_and_refresh_tokens() {
        let options = OAuthOptions::default()
            .client_name("app")
            .redirect_uri("http://localhost:1/cb");
        assert_eq!(
            registration_request(&options, "none"),
            json!({
                "client_name": "app",
                "redirect_uris": ["http://localhost:1/cb"],
                "grant_types": ["authorization_code", "refresh_token"],
                "response_types": ["code"],
                "token_endpoint_auth_method": "none",
                "application_type": "native",
            })
        );
    }
}
