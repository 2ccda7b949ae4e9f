//! The OAuth client's token requests against a mock authorization server: token endpoint
//! authentication, pre-registration and client ID metadata documents, refresh, concurrent
//! refusals, the client credentials, JWT bearer and identity assertion grants, DPoP, the
//! 2025-03-26 fallback.

use base64::Engine as _;
use presa_http::{AuthRequest, Credential, Refusal, TokenProvider};
use presa_oauth::{
    ClientCredentials, FileTokenStore, Grant, IdentityAssertion, MemoryTokenStore, OAuthClient,
    OAuthError, OAuthOptions, StoredTokens, TokenEndpointAuth, TokenStore,
};
use presa_test::oauth::{AuthServer, Mock, jwt_claims, jwt_header};
use serde_json::json;
use sha2::Digest as _;

use crate::client_oauth_support::{PRM_PATH, bearer, oauth_error, options, refuse, standard};

#[tokio::test]
async fn token_endpoint_authentication_follows_the_registration() {
    for (method, secret) in [
        ("client_secret_basic", Some("sec")),
        ("client_secret_post", Some("sec")),
        ("none", None),
    ] {
        let mock = standard().await;
        let url = mock.server_url();
        let mut server = AuthServer::new("");
        server.dcr_secret = secret.map(str::to_owned);
        server.dcr_method = Some(method.to_owned());
        mock.auth_server(
            server,
            None,
            json!({"token_endpoint_auth_methods_supported": [method]}),
        );
        let client = OAuthClient::new(&url, options()).unwrap();
        refuse(&client, &url, 401, None, 0).await.unwrap();
        assert_eq!(
            mock.hits_at("/register")[0].json.as_ref().unwrap()["token_endpoint_auth_method"],
            method
        );
        let token = &mock.hits_at("/token")[0];
        let id = mock.hits_at("/authorize")[0].query["client_id"].clone();
        match method {
            "client_secret_basic" => {
                let encoded = base64::engine::general_purpose::STANDARD.encode(format!("{id}:sec"));
                assert_eq!(
                    token.header("authorization"),
                    Some(&*format!("Basic {encoded}"))
                );
                assert!(!token.form.contains_key("client_secret"));
            }
            "client_secret_post" => {
                assert_eq!(token.header("authorization"), None);
                assert_eq!(token.form["client_id"], id);
                assert_eq!(token.form["client_secret"], "sec");
            }
            _ => {
                assert_eq!(token.header("authorization"), None);
                assert_eq!(token.form["client_id"], id);
                assert!(!token.form.contains_key("client_secret"));
            }
        }
    }
}

#[tokio::test]
async fn pre_registered_credentials_and_the_client_id_metadata_document() {
    let mock = standard().await;
    let url = mock.server_url();
    mock.auth_server(
        AuthServer::new(""),
        None,
        json!({"token_endpoint_auth_methods_supported": ["client_secret_basic"],
               "client_id_metadata_document_supported": true}),
    );
    let credentials = ClientCredentials::new("pre")
        .client_secret("sec")
        .issuer(mock.issuer(""));
    let client = OAuthClient::new(
        &url,
        options()
            .credentials(credentials)
            .client_metadata_url("https://app.example/client.json"),
    )
    .unwrap();
    refuse(&client, &url, 401, None, 0).await.unwrap();
    // pre-registration first, no registration
    assert!(mock.hits_at("/register").is_empty());
    assert_eq!(mock.hits_at("/authorize")[0].query["client_id"], "pre");
    assert!(
        mock.hits_at("/token")[0]
            .header("authorization")
            .unwrap()
            .starts_with("Basic ")
    );

    // then the metadata document where supported
    let mock = standard().await;
    let url = mock.server_url();
    mock.auth_server(
        AuthServer::new(""),
        None,
        json!({"client_id_metadata_document_supported": true}),
    );
    let client = OAuthClient::new(
        &url,
        options().client_metadata_url("https://app.example/client.json"),
    )
    .unwrap();
    refuse(&client, &url, 401, None, 0).await.unwrap();
    assert!(mock.hits_at("/register").is_empty());
    assert_eq!(
        mock.hits_at("/authorize")[0].query["client_id"],
        "https://app.example/client.json"
    );
}

#[tokio::test]
async fn a_rejected_token_is_refreshed_first_and_an_expiring_one_before_use() {
    let mock = standard().await;
    let url = mock.server_url();
    let mut server = AuthServer::new("");
    server.issue_refresh_tokens = true;
    mock.auth_server(server, None, json!({}));
    let client = OAuthClient::new(&url, options()).unwrap();
    refuse(&client, &url, 401, None, 0).await.unwrap();
    let first = bearer(&client, &url).await.unwrap();
    // the token is rejected: refresh, no new authorization
    refuse(
        &client,
        &url,
        401,
        Some(r#"Bearer error="invalid_token""#),
        0,
    )
    .await
    .unwrap();
    let refresh = mock.hits_at("/token").pop().unwrap();
    assert_eq!(refresh.form["grant_type"], "refresh_token");
    assert_eq!(refresh.form["refresh_token"], "ref-3");
    assert_eq!(refresh.form["resource"], url);
    assert_eq!(mock.hits_at("/authorize").len(), 1);
    assert_ne!(bearer(&client, &url).await.unwrap(), first);

    // a failing refresh falls back to authorizing again
    mock.update("", |s| s.refresh_fails = true);
    refuse(&client, &url, 401, None, 0).await.unwrap();
    assert_eq!(mock.hits_at("/authorize").len(), 2);

    // an expiring token is refreshed before it is sent
    mock.update("", |s| s.refresh_fails = false);
    let store = MemoryTokenStore::new();
    let expiring = StoredTokens::new(mock.issuer(""), "old")
        .with_refresh_token(Some("ref-old".into()))
        .with_expires_at(Some(1));
    store.save_tokens(&url, Some(expiring)).await.unwrap();
    store
        .save_client(
            &mock.issuer(""),
            Some(presa_oauth::StoredClient::new(
                mock.issuer(""),
                "stored-client",
            )),
        )
        .await
        .unwrap();
    let client = OAuthClient::new(&url, options().token_store(store)).unwrap();
    let token = bearer(&client, &url).await.unwrap();
    assert_ne!(token, "old");
    let refresh = mock.hits_at("/token").pop().unwrap();
    assert_eq!(refresh.form["refresh_token"], "ref-old");
    assert_eq!(refresh.form["client_id"], "stored-client");
}

#[tokio::test]
async fn concurrent_refusals_share_one_flow() {
    let mock = standard().await;
    let url = mock.server_url();
    let client = OAuthClient::new(&url, options()).unwrap();
    let (a, b) = tokio::join!(
        refuse(&client, &url, 401, None, 0),
        refuse(&client, &url, 401, None, 0)
    );
    assert!(a.unwrap() && b.unwrap());
    assert_eq!(mock.hits_at("/authorize").len(), 1);
}

#[tokio::test]
async fn the_client_credentials_grant_with_a_secret_or_a_signed_assertion() {
    let mock = standard().await;
    let url = mock.server_url();
    mock.auth_server(
        AuthServer::new(""),
        None,
        json!({"grant_types_supported": ["client_credentials"],
               "token_endpoint_auth_methods_supported": ["client_secret_basic"]}),
    );
    let client = OAuthClient::new(
        &url,
        options()
            .grant(Grant::ClientCredentials)
            .credentials(ClientCredentials::new("machine").client_secret("sec")),
    )
    .unwrap();
    refuse(&client, &url, 401, None, 0).await.unwrap();
    let token = &mock.hits_at("/token")[0];
    assert_eq!(token.form["grant_type"], "client_credentials");
    assert_eq!(token.form["resource"], url);
    assert!(token.header("authorization").unwrap().starts_with("Basic "));
    assert!(mock.hits_at("/authorize").is_empty() && mock.hits_at("/register").is_empty());

    // private_key_jwt: an ES256 assertion about the client, for the issuer
    let mock = standard().await;
    let url = mock.server_url();
    let pem = "-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg4dtGx11Kp67e8TP7
GfTfypsFd3FL9hNK0FN+2wiPmGuhRANCAARLeCFQmoyzAExy3SkwkQ3AH+zE7yiZ
8COP7P5EA0hKx17SfBA3r6qJYZzGX2Tlg5v7gb1ENKQ+WgjKjQAOMrzB
-----END PRIVATE KEY-----";
    let client = OAuthClient::new(
        &url,
        options()
            .grant(Grant::ClientCredentials)
            .credentials(ClientCredentials::new("machine").private_key_pem(pem)),
    )
    .unwrap();
    refuse(&client, &url, 401, None, 0).await.unwrap();
    let token = &mock.hits_at("/token")[0];
    assert_eq!(
        token.form["client_assertion_type"],
        "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
    );
    let assertion = &token.form["client_assertion"];
    assert_eq!(jwt_header(assertion)["alg"], "ES256");
    let claims = jwt_claims(assertion);
    assert_eq!(claims["iss"], "machine");
    assert_eq!(claims["sub"], "machine");
    assert_eq!(claims["aud"], mock.issuer(""));
    assert!(claims["exp"].as_u64() > claims["iat"].as_u64());

    // without credentials the grant cannot run
    let client = OAuthClient::new(&url, options().grant(Grant::ClientCredentials)).unwrap();
    let error = oauth_error(refuse(&client, &url, 401, None, 0).await.unwrap_err());
    assert!(matches!(error, OAuthError::MissingCredentials(_)));
}

#[tokio::test]
async fn jwt_bearer_and_identity_assertion_grants() {
    let mock = standard().await;
    let url = mock.server_url();
    let client = OAuthClient::new(
        &url,
        options()
            .grant(Grant::jwt_bearer("workload.jwt".to_owned()))
            .credentials(ClientCredentials::new("workload")),
    )
    .unwrap();
    refuse(&client, &url, 401, None, 0).await.unwrap();
    let token = &mock.hits_at("/token")[0];
    assert_eq!(
        token.form["grant_type"],
        "urn:ietf:params:oauth:grant-type:jwt-bearer"
    );
    assert_eq!(token.form["assertion"], "workload.jwt");
    assert_eq!(token.form["client_id"], "workload");

    // SEP-990: token exchange at the identity provider, then the JWT bearer grant
    let mock = standard().await;
    let url = mock.server_url();
    mock.auth_server(AuthServer::new("/idp"), None, json!({}));
    mock.auth_server(
        AuthServer::new(""),
        None,
        json!({"token_endpoint_auth_methods_supported": ["client_secret_basic"]}),
    );
    let grant = IdentityAssertion::new(
        format!("{}/idp/token", mock.base),
        "idp-client",
        "id.token".to_owned(),
    );
    let client = OAuthClient::new(
        &url,
        options()
            .grant(Grant::IdentityAssertion(grant))
            .credentials(ClientCredentials::new("xaa").client_secret("sec")),
    )
    .unwrap();
    refuse(&client, &url, 401, None, 0).await.unwrap();
    let exchange = &mock.hits_at("/idp/token")[0];
    assert_eq!(
        exchange.form["grant_type"],
        "urn:ietf:params:oauth:grant-type:token-exchange"
    );
    assert_eq!(
        exchange.form["requested_token_type"],
        "urn:ietf:params:oauth:token-type:id-jag"
    );
    assert_eq!(exchange.form["audience"], mock.issuer(""));
    assert_eq!(exchange.form["resource"], url);
    assert_eq!(exchange.form["subject_token"], "id.token");
    assert_eq!(
        exchange.form["subject_token_type"],
        "urn:ietf:params:oauth:token-type:id_token"
    );
    assert_eq!(exchange.form["client_id"], "idp-client");
    let grant = &mock.hits_at("/token")[0];
    assert_eq!(
        grant.form["grant_type"],
        "urn:ietf:params:oauth:grant-type:jwt-bearer"
    );
    assert!(grant.form["assertion"].starts_with("tok-idp-"));
    assert!(grant.header("authorization").unwrap().starts_with("Basic "));
}

#[tokio::test]
async fn dpop_bound_tokens_with_fresh_proofs_and_server_nonces() {
    let mock = standard().await;
    let url = mock.server_url();
    let mut server = AuthServer::new("");
    server.dpop_nonce = Some("as-nonce".into());
    mock.auth_server(
        server,
        None,
        json!({"dpop_signing_alg_values_supported": ["ES256"]}),
    );
    let client = OAuthClient::new(&url, options()).unwrap();
    let challenge = format!(r#"DPoP resource_metadata="{}{PRM_PATH}""#, mock.base);
    refuse(&client, &url, 401, Some(&challenge), 0)
        .await
        .unwrap();
    // the token request: a proof, refused for its nonce, then again with the nonce
    let tokens = mock.hits_at("/token");
    assert_eq!(tokens.len(), 2);
    let first = jwt_claims(tokens[0].header("dpop").unwrap());
    let second = jwt_claims(tokens[1].header("dpop").unwrap());
    assert_eq!(first["htm"], "POST");
    assert_eq!(first["htu"], format!("{}/token", mock.base));
    assert!(first.get("nonce").is_none());
    assert_eq!(second["nonce"], "as-nonce");
    assert_ne!(first["jti"], second["jti"]);
    assert_eq!(
        jwt_header(tokens[0].header("dpop").unwrap())["typ"],
        "dpop+jwt"
    );

    // each request: the DPoP scheme and a fresh proof with ath
    let request = AuthRequest::new("POST", &url);
    let Some(Credential::Dpop { token, proof }) = client.credential(request).await.unwrap() else {
        panic!("not a DPoP credential");
    };
    let claims = jwt_claims(&proof);
    assert_eq!(claims["htu"], url);
    let ath = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .encode(sha2::Sha256::digest(token.as_bytes()));
    assert_eq!(claims["ath"], ath);
    // the resource server asks for a nonce: retried without re-authorizing, nonce in the proof
    let sent = Credential::Dpop {
        token: token.clone(),
        proof,
    };
    let refusal = Refusal::new(request, 401)
        .with_challenge(Some(r#"DPoP error="use_dpop_nonce""#))
        .with_dpop_nonce(Some("rs-nonce"))
        .with_sent(Some(&sent));
    assert!(client.refused(refusal).await.unwrap());
    let Some(Credential::Dpop { proof, .. }) = client.credential(request).await.unwrap() else {
        panic!("not a DPoP credential");
    };
    assert_eq!(jwt_claims(&proof)["nonce"], "rs-nonce");
    assert_ne!(jwt_claims(&proof)["jti"], claims["jti"]);
    assert_eq!(mock.hits_at("/authorize").len(), 1);
}

/// A token store shared with another process, which refreshed the tokens after this one's
/// first read: the first load gives the expiring tokens, every later one the fresh ones.
struct RefreshedElsewhere {
    loads: std::sync::atomic::AtomicUsize,
    expiring: StoredTokens,
    fresh: StoredTokens,
}

impl TokenStore for RefreshedElsewhere {
    fn load_tokens<'a>(
        &'a self,
        _resource: &'a str,
    ) -> presa_client::BoxFuture<'a, Result<Option<StoredTokens>, presa_http::TokenError>> {
        let first = self.loads.fetch_add(1, std::sync::atomic::Ordering::SeqCst) == 0;
        let tokens = if first { &self.expiring } else { &self.fresh };
        Box::pin(std::future::ready(Ok(Some(tokens.clone()))))
    }

    fn save_tokens<'a>(
        &'a self,
        _resource: &'a str,
        _tokens: Option<StoredTokens>,
    ) -> presa_client::BoxFuture<'a, Result<(), presa_http::TokenError>> {
        panic!("nothing to save: the store already had fresh tokens");
    }

    fn load_client<'a>(
        &'a self,
        _issuer: &'a str,
    ) -> presa_client::BoxFuture<
        'a,
        Result<Option<presa_oauth::StoredClient>, presa_http::TokenError>,
    > {
        Box::pin(std::future::ready(Ok(None)))
    }

    fn save_client<'a>(
        &'a self,
        _issuer: &'a str,
        _client: Option<presa_oauth::StoredClient>,
    ) -> presa_client::BoxFuture<'a, Result<(), presa_http::TokenError>> {
        Box::pin(std::future::ready(Ok(())))
    }
}

#[tokio::test]
async fn tokens_another_process_refreshed_are_taken_from_the_store_not_refreshed_again() {
    let mock = standard().await;
    let url = mock.server_url();
    let store = RefreshedElsewhere {
        loads: Default::default(),
        expiring: StoredTokens::new(mock.issuer(""), "old")
            .with_refresh_token(Some("ref-old".into()))
            .with_expires_at(Some(1)),
        fresh: StoredTokens::new(mock.issuer(""), "new").with_refresh_token(Some("ref-new".into())),
    };
    let client = OAuthClient::new(&url, options().token_store(store)).unwrap();
    // with a rotating server, refreshing "ref-old" again would fail and log the user out
    assert_eq!(bearer(&client, &url).await.as_deref(), Some("new"));
    assert!(mock.hits_at("/token").is_empty());
}

#[tokio::test]
async fn tokens_kept_in_a_file_stay_usable_in_another_run_dpop_bound_ones_too() {
    let mock = standard().await;
    let url = mock.server_url();
    mock.auth_server(
        AuthServer::new(""),
        None,
        json!({"dpop_signing_alg_values_supported": ["ES256"]}),
    );
    let dir = std::env::temp_dir().join(format!("presa-oauth-file-{}", std::process::id()));
    let file = dir.join("tokens.json");
    let kept = || options().token_store(FileTokenStore::at(&file));
    let first = OAuthClient::new(&url, kept()).unwrap();
    let challenge = format!(r#"DPoP resource_metadata="{}{PRM_PATH}""#, mock.base);
    refuse(&first, &url, 401, Some(&challenge), 0)
        .await
        .unwrap();
    let request = AuthRequest::new("POST", &url);
    let Some(Credential::Dpop { token, proof }) = first.credential(request).await.unwrap() else {
        panic!("not a DPoP credential");
    };

    // another run: the same token, proved with the same key, and no new authorization
    let second = OAuthClient::new(&url, kept()).unwrap();
    let Some(Credential::Dpop {
        token: again,
        proof: proved,
    }) = second.credential(request).await.unwrap()
    else {
        panic!("the kept DPoP-bound token is not used");
    };
    assert_eq!(again, token);
    assert_eq!(jwt_header(&proved)["jwk"], jwt_header(&proof)["jwk"]);
    assert_eq!(mock.hits_at("/authorize").len(), 1);
    assert_eq!(mock.hits_at("/register").len(), 1);
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn the_legacy_fallback_uses_the_servers_origin() {
    let mock = Mock::start().await;
    let url = mock.server_url();
    // no protected resource metadata, no authorization server metadata: default endpoints
    mock.auth_server(AuthServer::new(""), Some("/unused"), json!({}));
    let client = OAuthClient::new(&url, options()).unwrap();
    refuse(&client, &url, 401, None, 0).await.unwrap();
    let paths = mock.paths();
    assert_eq!(
        paths,
        [
            PRM_PATH,
            "/.well-known/oauth-protected-resource",
            "/.well-known/oauth-authorization-server",
            "/register",
            "/authorize",
            "/token"
        ]
    );
    assert_eq!(mock.hits_at("/authorize")[0].query["resource"], url);
}

#[tokio::test]
async fn without_a_handler_the_code_flow_cannot_run() {
    let mock = standard().await;
    let url = mock.server_url();
    let client = OAuthClient::new(&url, OAuthOptions::default()).unwrap();
    let error = oauth_error(refuse(&client, &url, 401, None, 0).await.unwrap_err());
    assert_eq!(error, OAuthError::NoAuthorizationHandler);
    assert_eq!(
        OAuthClient::new("ftp://x/mcp", OAuthOptions::default()).unwrap_err(),
        OAuthError::InvalidUrl {
            url: "ftp://x/mcp".into(),
            reason: "the scheme must be http or https".into()
        }
    );
    // a method name round trip
    for method in [
        TokenEndpointAuth::ClientSecretBasic,
        TokenEndpointAuth::ClientSecretPost,
        TokenEndpointAuth::None,
        TokenEndpointAuth::PrivateKeyJwt,
    ] {
        assert_eq!(TokenEndpointAuth::from_name(method.as_str()), Some(method));
    }
}
