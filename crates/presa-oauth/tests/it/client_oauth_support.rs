//! Driving an `OAuthClient` the way presa-http's client transport does, against presa-test's
//! mock protected resource and authorization servers.

use presa_http::{AuthRequest, Credential, Refusal, TokenError, TokenProvider};
use presa_oauth::{HeadlessAuthorization, OAuthClient, OAuthError, OAuthOptions};
use presa_test::oauth::{AuthServer, Mock};
use serde_json::json;

pub(crate) const PRM_PATH: &str = "/.well-known/oauth-protected-resource/mcp";
pub(crate) const REDIRECT: &str = "http://localhost:3000/callback";

pub(crate) fn options() -> OAuthOptions {
    OAuthOptions::default()
        .redirect_uri(REDIRECT)
        .authorization_handler(HeadlessAuthorization::new())
}

/// The resource at the path well-known URL, one authorization server at the origin.
pub(crate) async fn standard() -> Mock {
    let mock = Mock::start().await;
    mock.prm(PRM_PATH, &mock.server_url(), &mock.issuer(""), None);
    mock.auth_server(AuthServer::new(""), None, json!({}));
    mock
}

/// What the transport does on a refusal: asks for the credential it sent, then reports.
pub(crate) async fn refuse(
    client: &OAuthClient,
    url: &str,
    status: u16,
    challenge: Option<&str>,
    attempt: u32,
) -> Result<bool, TokenError> {
    let request = AuthRequest::new("POST", url);
    let sent = client.credential(request).await.unwrap();
    let refusal = Refusal::new(request, status)
        .with_challenge(challenge)
        .with_sent(sent.as_ref())
        .with_attempt(attempt);
    client.refused(refusal).await
}

pub(crate) async fn bearer(client: &OAuthClient, url: &str) -> Option<String> {
    match client
        .credential(AuthRequest::new("POST", url))
        .await
        .unwrap()
    {
        Some(Credential::Bearer(token)) => Some(token),
        None => None,
        other => panic!("{other:?}"),
    }
}

pub(crate) fn oauth_error(error: TokenError) -> OAuthError {
    *error.downcast::<OAuthError>().expect("an OAuthError")
}
