//! The OAuth client against a mock protected resource and authorization servers: discovery
//! order, issuer and `iss` checks, the authorization request, scopes and step-up, the retry
//! limit, registrations per issuer.

use base64::Engine as _;
use presa_oauth::{ClientCredentials, MemoryTokenStore, OAuthClient, OAuthError, TokenStore};
use presa_test::oauth::{AuthServer, Iss, Mock};
use serde_json::json;
use sha2::Digest as _;

use crate::client_oauth_support::{
    PRM_PATH, REDIRECT, bearer, oauth_error, options, refuse, standard,
};

#[tokio::test]
async fn the_first_401_runs_discovery_registration_and_the_code_flow() {
    let mock = standard().await;
    let url = mock.server_url();
    let client = OAuthClient::new(&url, options()).unwrap();
    assert_eq!(bearer(&client, &url).await, None);

    let challenge = format!(
        r#"Bearer error="invalid_token", resource_metadata="{}{PRM_PATH}""#,
        mock.base
    );
    assert!(
        refuse(&client, &url, 401, Some(&challenge), 0)
            .await
            .unwrap()
    );
    assert_eq!(
        mock.paths(),
        [
            PRM_PATH,
            "/.well-known/oauth-authorization-server",
            "/register",
            "/authorize",
            "/token"
        ]
    );
    let register = &mock.hits_at("/register")[0];
    let body = register.json.clone().unwrap();
    assert_eq!(body["application_type"], "native");
    assert_eq!(body["redirect_uris"], json!([REDIRECT]));
    assert_eq!(
        body["grant_types"],
        json!(["authorization_code", "refresh_token"])
    );
    assert_eq!(body["token_endpoint_auth_method"], "none");

    let authorize = &mock.hits_at("/authorize")[0];
    let token = &mock.hits_at("/token")[0];
    assert_eq!(authorize.query["client_id"], "-client-1");
    assert_eq!(authorize.query["code_challenge_method"], "S256");
    assert_eq!(authorize.query["resource"], url);
    assert!(!authorize.query.contains_key("scope"));
    // PKCE: S256 of the verifier is the challenge
    let verifier = &token.form["code_verifier"];
    let challenge = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .encode(sha2::Sha256::digest(verifier.as_bytes()));
    assert_eq!(authorize.query["code_challenge"], challenge);
    assert_eq!(token.form["grant_type"], "authorization_code");
    assert_eq!(token.form["code"], "code-2");
    assert_eq!(token.form["redirect_uri"], REDIRECT);
    assert_eq!(token.form["resource"], url);
    assert_eq!(token.form["client_id"], "-client-1");
    assert_eq!(bearer(&client, &url).await.as_deref(), Some("tok--3"));
    assert_eq!(client.last_error(), None);
}

#[tokio::test]
async fn without_a_challenge_url_the_path_then_the_root_then_a_path_issuer_in_spec_order() {
    let mock = Mock::start().await;
    let url = mock.server_url();
    // the root document only; the resource is the bare origin, to be sent verbatim
    mock.prm(
        "/.well-known/oauth-protected-resource",
        &mock.base,
        &mock.issuer("/tenant1"),
        None,
    );
    mock.auth_server(
        AuthServer::new("/tenant1"),
        Some("/tenant1/.well-known/openid-configuration"),
        json!({}),
    );
    let client = OAuthClient::new(&url, options()).unwrap();
    assert!(
        refuse(
            &client,
            &url,
            401,
            Some(r#"Bearer error="invalid_token""#),
            0
        )
        .await
        .unwrap()
    );
    let paths = mock.paths();
    assert_eq!(
        paths[..5],
        [
            PRM_PATH,
            "/.well-known/oauth-protected-resource",
            "/.well-known/oauth-authorization-server/tenant1",
            "/.well-known/openid-configuration/tenant1",
            "/tenant1/.well-known/openid-configuration",
        ]
    );
    // never the root authorization server metadata for a path issuer
    assert!(!paths.contains(&"/.well-known/oauth-authorization-server".to_owned()));
    assert_eq!(
        mock.hits_at("/tenant1/authorize")[0].query["resource"],
        mock.base
    );
    assert_eq!(
        mock.hits_at("/tenant1/token")[0].form["resource"],
        mock.base
    );
}

#[tokio::test]
async fn the_challenge_url_is_used_alone() {
    let mock = Mock::start().await;
    let url = mock.server_url();
    mock.prm("/custom/metadata.json", &url, &mock.issuer(""), None);
    mock.auth_server(AuthServer::new(""), None, json!({}));
    let client = OAuthClient::new(&url, options()).unwrap();
    let challenge = format!(
        r#"Bearer resource_metadata="{}/custom/metadata.json""#,
        mock.base
    );
    assert!(
        refuse(&client, &url, 401, Some(&challenge), 0)
            .await
            .unwrap()
    );
    assert_eq!(mock.paths()[0], "/custom/metadata.json");
    assert!(
        !mock
            .paths()
            .iter()
            .any(|p| p.starts_with("/.well-known/oauth-protected-resource"))
    );
}

#[tokio::test]
async fn a_foreign_resource_is_refused_before_authorizing() {
    let mock = Mock::start().await;
    let url = mock.server_url();
    mock.prm(
        PRM_PATH,
        "https://evil.example.com/mcp",
        &mock.issuer(""),
        None,
    );
    mock.auth_server(AuthServer::new(""), None, json!({}));
    let client = OAuthClient::new(&url, options()).unwrap();
    let error = refuse(&client, &url, 401, None, 0).await.unwrap_err();
    assert!(matches!(
        oauth_error(error),
        OAuthError::ResourceMismatch { .. }
    ));
    assert_eq!(mock.paths(), [PRM_PATH]);
    assert!(matches!(
        client.last_error(),
        Some(OAuthError::ResourceMismatch { .. })
    ));
}

#[tokio::test]
async fn metadata_naming_another_issuer_is_not_used() {
    let mock = standard().await;
    let url = mock.server_url();
    mock.auth_server(
        AuthServer::new(""),
        None,
        json!({"issuer": "https://attacker.example.com"}),
    );
    let client = OAuthClient::new(&url, options()).unwrap();
    let error = oauth_error(refuse(&client, &url, 401, None, 0).await.unwrap_err());
    assert_eq!(
        error,
        OAuthError::IssuerMismatch {
            expected: mock.issuer(""),
            found: "https://attacker.example.com".into()
        }
    );
    assert!(mock.hits_at("/register").is_empty() && mock.hits_at("/authorize").is_empty());
}

#[tokio::test]
async fn a_server_without_pkce_s256_is_refused() {
    let mock = standard().await;
    let url = mock.server_url();
    mock.auth_server(
        AuthServer::new(""),
        None,
        json!({"code_challenge_methods_supported": null}),
    );
    let client = OAuthClient::new(&url, options()).unwrap();
    let error = oauth_error(refuse(&client, &url, 401, None, 0).await.unwrap_err());
    assert!(matches!(error, OAuthError::PkceUnsupported { .. }));
    assert!(mock.hits_at("/authorize").is_empty());
}

#[tokio::test]
async fn iss_is_checked_before_the_code_is_redeemed() {
    for (iss, advertised, accepted) in [
        (Iss::Correct, true, true),
        (Iss::Omit, false, true),
        (Iss::Omit, true, false),
        (Iss::Wrong, true, false),
        (Iss::Wrong, false, false),
        (Iss::TrailingSlash, true, false),
    ] {
        let mock = standard().await;
        let url = mock.server_url();
        let mut server = AuthServer::new("");
        server.iss = iss;
        let advertisement = if advertised { json!(true) } else { json!(null) };
        mock.auth_server(
            server,
            None,
            json!({"authorization_response_iss_parameter_supported": advertisement}),
        );
        let client = OAuthClient::new(&url, options()).unwrap();
        let outcome = refuse(&client, &url, 401, None, 0).await;
        assert_eq!(outcome.is_ok(), accepted, "{iss:?} advertised={advertised}");
        assert_eq!(mock.hits_at("/authorize").len(), 1);
        assert_eq!(mock.hits_at("/token").len(), usize::from(accepted));
        if !accepted {
            assert!(matches!(
                oauth_error(outcome.unwrap_err()),
                OAuthError::IssMismatch { .. }
            ));
        }
    }
}

#[tokio::test]
async fn scopes_come_from_the_challenge_and_step_up_asks_for_the_union() {
    let mock = Mock::start().await;
    let url = mock.server_url();
    mock.prm(PRM_PATH, &url, &mock.issuer(""), Some(&["mcp:profile"]));
    mock.auth_server(AuthServer::new(""), None, json!({}));
    let client = OAuthClient::new(&url, options()).unwrap();
    assert!(
        refuse(&client, &url, 401, Some(r#"Bearer scope="mcp:basic""#), 0)
            .await
            .unwrap()
    );
    let challenge = r#"Bearer error="insufficient_scope", scope="mcp:write""#;
    assert!(
        refuse(&client, &url, 403, Some(challenge), 1)
            .await
            .unwrap()
    );
    let scopes: Vec<String> = mock
        .hits_at("/authorize")
        .iter()
        .map(|h| h.query["scope"].clone())
        .collect();
    assert_eq!(scopes, ["mcp:basic", "mcp:basic mcp:write"]);
    // a 403 that is not about scopes is not retried
    assert!(!refuse(&client, &url, 403, Some("Bearer"), 0).await.unwrap());
    assert_eq!(mock.hits_at("/authorize").len(), 2);
}

#[tokio::test]
async fn scopes_supported_without_a_challenge_scope_and_offline_access_only_where_listed() {
    let mock = Mock::start().await;
    let url = mock.server_url();
    mock.prm(
        PRM_PATH,
        &url,
        &mock.issuer(""),
        Some(&["mcp:basic", "mcp:read"]),
    );
    mock.auth_server(
        AuthServer::new(""),
        None,
        json!({"scopes_supported": ["mcp:basic"]}),
    );
    let client = OAuthClient::new(&url, options()).unwrap();
    refuse(&client, &url, 401, None, 0).await.unwrap();
    assert_eq!(
        mock.hits_at("/authorize")[0].query["scope"],
        "mcp:basic mcp:read"
    );

    let mock = Mock::start().await;
    let url = mock.server_url();
    mock.prm(PRM_PATH, &url, &mock.issuer(""), Some(&["mcp:basic"]));
    mock.auth_server(
        AuthServer::new(""),
        None,
        json!({"scopes_supported": ["mcp:basic", "offline_access"]}),
    );
    let client = OAuthClient::new(&url, options()).unwrap();
    refuse(&client, &url, 401, None, 0).await.unwrap();
    assert_eq!(
        mock.hits_at("/authorize")[0].query["scope"],
        "mcp:basic offline_access"
    );
}

#[tokio::test]
async fn the_retry_limit_stops_authorizing() {
    let mock = standard().await;
    let url = mock.server_url();
    let client = OAuthClient::new(&url, options().retry_limit(2)).unwrap();
    let challenge = r#"Bearer error="insufficient_scope", scope="mcp:admin""#;
    assert!(refuse(&client, &url, 401, None, 0).await.unwrap());
    assert!(
        refuse(&client, &url, 403, Some(challenge), 1)
            .await
            .unwrap()
    );
    let error = oauth_error(
        refuse(&client, &url, 403, Some(challenge), 2)
            .await
            .unwrap_err(),
    );
    assert_eq!(error, OAuthError::RetryLimit { limit: 2 });
    assert_eq!(mock.hits_at("/authorize").len(), 2);
}

#[tokio::test]
async fn registrations_are_keyed_by_issuer_and_redone_when_the_server_moves() {
    let mock = Mock::start().await;
    let url = mock.server_url();
    mock.prm(PRM_PATH, &url, &mock.issuer("/as1"), None);
    let mut as1 = AuthServer::new("/as1");
    as1.dcr_secret = Some("secret-1".into());
    mock.auth_server(as1, None, json!({}));
    mock.auth_server(AuthServer::new("/as2"), None, json!({}));
    let store = std::sync::Arc::new(MemoryTokenStore::new());
    let client = OAuthClient::new(&url, options().token_store(store.clone())).unwrap();
    refuse(&client, &url, 401, None, 0).await.unwrap();
    let as1_client = mock.hits_at("/as1/authorize")[0].query["client_id"].clone();

    // the resource moves to another authorization server; the as1 token is rejected
    mock.prm(PRM_PATH, &url, &mock.issuer("/as2"), None);
    refuse(&client, &url, 401, None, 0).await.unwrap();
    assert_eq!(mock.hits_at("/as2/register").len(), 1);
    let as2_client = mock.hits_at("/as2/authorize")[0].query["client_id"].clone();
    assert_ne!(as1_client, as2_client);
    for hit in mock
        .hits_at("/as2/authorize")
        .iter()
        .chain(&mock.hits_at("/as2/token"))
    {
        assert!(!format!("{:?}", hit.query).contains(&as1_client));
        assert!(!format!("{:?}", hit.form).contains(&as1_client));
        assert_eq!(hit.header("authorization"), None);
    }
    let tokens = client.tokens().unwrap();
    assert_eq!(tokens.issuer, mock.issuer("/as2"));
    let stored1 = store
        .load_client(&mock.issuer("/as1"))
        .await
        .unwrap()
        .unwrap();
    let stored2 = store
        .load_client(&mock.issuer("/as2"))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(stored1.client_id, as1_client);
    assert_eq!(stored2.client_id, as2_client);

    // back at as1: its registration is reused, not redone
    mock.prm(PRM_PATH, &url, &mock.issuer("/as1"), None);
    refuse(&client, &url, 401, None, 0).await.unwrap();
    assert_eq!(mock.hits_at("/as1/register").len(), 1);
    assert_eq!(
        mock.hits_at("/as1/authorize")[1].query["client_id"],
        as1_client
    );
}

#[tokio::test]
async fn pre_registered_credentials_stay_with_their_issuer() {
    let mock = standard().await;
    let url = mock.server_url();
    // credentials of another server: dynamic registration instead
    let elsewhere = ClientCredentials::new("pre-registered")
        .client_secret("s")
        .issuer("https://other.example.com");
    let client = OAuthClient::new(&url, options().credentials(elsewhere.clone())).unwrap();
    refuse(&client, &url, 401, None, 0).await.unwrap();
    assert_eq!(mock.hits_at("/register").len(), 1);
    assert!(!format!("{:?}", mock.hits()).contains("pre-registered"));

    // without dynamic registration there is no way in
    let mock = standard().await;
    let url = mock.server_url();
    mock.auth_server(
        AuthServer::new(""),
        None,
        json!({"registration_endpoint": null}),
    );
    let client = OAuthClient::new(&url, options().credentials(elsewhere)).unwrap();
    let error = oauth_error(refuse(&client, &url, 401, None, 0).await.unwrap_err());
    assert_eq!(
        error,
        OAuthError::NoClientRegistration {
            issuer: mock.issuer("")
        }
    );

    // issuer-less credentials bind to the first server and are not shown to another
    let mock = Mock::start().await;
    let url = mock.server_url();
    mock.prm(PRM_PATH, &url, &mock.issuer("/as1"), None);
    mock.auth_server(AuthServer::new("/as1"), None, json!({}));
    mock.auth_server(AuthServer::new("/as2"), None, json!({}));
    let unbound = ClientCredentials::new("portable").client_secret("s");
    let client = OAuthClient::new(&url, options().credentials(unbound)).unwrap();
    refuse(&client, &url, 401, None, 0).await.unwrap();
    assert_eq!(
        mock.hits_at("/as1/authorize")[0].query["client_id"],
        "portable"
    );
    mock.prm(PRM_PATH, &url, &mock.issuer("/as2"), None);
    refuse(&client, &url, 401, None, 0).await.unwrap();
    assert_ne!(
        mock.hits_at("/as2/authorize")[0].query["client_id"],
        "portable"
    );
    assert_eq!(mock.hits_at("/as2/register").len(), 1);
}
