//! A hostile MCP or authorization server naming URLs the client must not request: another
//! scheme, a private or cloud-metadata address, plain http off loopback. Each is refused with
//! `OAuthError::InvalidUrl` before anything is sent there, and nothing after it is requested.

use presa_oauth::{OAuthClient, OAuthError};
use presa_test::oauth::{AuthServer, Mock};
use serde_json::json;

use crate::client_oauth_support::{PRM_PATH, oauth_error, options, refuse, standard};

/// Runs the transport's refusal against `mock` and returns the URL the client refused.
async fn refused_url(mock: &Mock, challenge: Option<&str>) -> String {
    let url = mock.server_url();
    let client = OAuthClient::new(&url, options()).unwrap();
    let error = oauth_error(refuse(&client, &url, 401, challenge, 0).await.unwrap_err());
    assert!(
        matches!(client.last_error(), Some(OAuthError::InvalidUrl { .. })),
        "{:?}",
        client.last_error()
    );
    match error {
        OAuthError::InvalidUrl { url, .. } => url,
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn a_challenge_naming_a_private_address_is_not_followed() {
    for target in [
        "http://169.254.169.254/latest/meta-data/",
        "https://10.0.0.7/prm",
        "https://[fd00::1]/prm",
        "file:///etc/passwd",
    ] {
        let mock = standard().await;
        let challenge = format!(r#"Bearer resource_metadata="{target}""#);
        assert_eq!(refused_url(&mock, Some(&challenge)).await, target);
        assert!(mock.paths().is_empty(), "{target}: {:?}", mock.paths());
    }
}

#[tokio::test]
async fn resource_metadata_naming_a_private_or_plain_http_issuer_is_not_followed() {
    for issuer in [
        "http://192.168.0.1",
        "https://100.64.0.1/tenant",
        "http://as.example.com",
    ] {
        let mock = Mock::start().await;
        mock.prm(PRM_PATH, &mock.server_url(), issuer, None);
        assert_eq!(refused_url(&mock, None).await, issuer);
        assert_eq!(mock.paths(), [PRM_PATH], "{issuer}");
    }
}

#[tokio::test]
async fn server_metadata_naming_a_forbidden_endpoint_is_not_used() {
    for (field, endpoint) in [
        ("token_endpoint", "http://169.254.169.254/token"),
        ("registration_endpoint", "gopher://127.0.0.1:6379/_FLUSHALL"),
        ("authorization_endpoint", "https://10.1.1.1/authorize"),
        ("token_endpoint", "http://as.example.com/token"),
    ] {
        let mock = Mock::start().await;
        mock.prm(PRM_PATH, &mock.server_url(), &mock.issuer(""), None);
        mock.auth_server(AuthServer::new(""), None, json!({ field: endpoint }));
        assert_eq!(refused_url(&mock, None).await, endpoint);
        // the metadata was read (and the next candidate tried, as for a document naming
        // another issuer); no registration, authorization or token request followed
        let paths = mock.paths();
        assert_eq!(
            paths[..2],
            [PRM_PATH, "/.well-known/oauth-authorization-server"]
        );
        assert!(
            paths.iter().all(|p| p.starts_with("/.well-known/")),
            "{field} = {endpoint}: {paths:?}"
        );
    }
}

#[tokio::test]
async fn a_loopback_server_may_name_loopback_endpoints_by_name_or_address() {
    // the MCP server reached as `localhost`, its authorization server named as 127.0.0.1 and
    // its endpoints as `localhost`: all loopback, plain http allowed
    let mock = Mock::start().await;
    let port = mock.base.rsplit(':').next().unwrap().to_owned();
    let url = format!("http://localhost:{port}/mcp");
    mock.prm(PRM_PATH, &url, &mock.issuer(""), None);
    mock.auth_server(
        AuthServer::new(""),
        None,
        json!({"token_endpoint": format!("http://localhost:{port}/token")}),
    );
    let client = OAuthClient::new(&url, options()).unwrap();
    assert!(refuse(&client, &url, 401, None, 0).await.unwrap());
    assert_eq!(mock.hits_at("/token").len(), 1);
}
