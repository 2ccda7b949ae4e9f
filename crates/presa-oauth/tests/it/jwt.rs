//! The JWT verifier: signatures (RS256, ES256), issuer, audience, expiry with and without clock
//! skew, and keys from a JWKS served by a mock authorization server (caching, rotation, rate
//! limit). The keys in tests/keys are test-only keys made with openssl.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::Router;
use axum::extract::State;
use axum::routing::get;
use jsonwebtoken::jwk::Jwk;
use jsonwebtoken::{Algorithm, EncodingKey, Header, encode};
use presa_core::Tool;
use presa_http::{AuthOptions, HttpOptions, VerifyError, router};
use presa_oauth::{JwtKey, JwtVerifier};
use presa_server::{Context, Server};
use presa_test::message::request;
use serde_json::{Value, json};
use tokio::net::TcpListener;

const ISSUER: &str = "https://login.example.net";
const AUDIENCE: &str = "https://api.example.net/mcp";

const RSA: &[u8] = include_bytes!("../keys/rsa.pem");
const RSA_PUBLIC: &[u8] = include_bytes!("../keys/rsa.pub.pem");
const RSA2: &[u8] = include_bytes!("../keys/rsa2.pem");
const EC: &[u8] = include_bytes!("../keys/ec.pem");
const EC_PUBLIC: &[u8] = include_bytes!("../keys/ec.pub.pem");

fn now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

fn encoding_key(alg: Algorithm, pem: &[u8]) -> EncodingKey {
    match alg {
        Algorithm::ES256 => EncodingKey::from_ec_pem(pem).unwrap(),
        _ => EncodingKey::from_rsa_pem(pem).unwrap(),
    }
}

fn sign(alg: Algorithm, pem: &[u8], kid: Option<&str>, claims: &Value) -> String {
    let mut header = Header::new(alg);
    header.kid = kid.map(str::to_owned);
    encode(&header, claims, &encoding_key(alg, pem)).unwrap()
}

/// Claims of a good token, valid for an hour.
fn claims() -> Value {
    json!({
        "iss": ISSUER,
        "aud": AUDIENCE,
        "sub": "alice",
        "client_id": "app",
        "scope": "mcp files:read",
        "iat": now(),
        "exp": now() + 3600,
    })
}

fn with(mut claims: Value, changes: Value) -> Value {
    for (key, value) in changes.as_object().unwrap() {
        if value.is_null() {
            claims.as_object_mut().unwrap().remove(key);
        } else {
            claims[key] = value.clone();
        }
    }
    claims
}

fn static_verifier() -> JwtVerifier {
    JwtVerifier::new(
        ISSUER,
        AUDIENCE,
        [
            JwtKey::rsa_pem(RSA_PUBLIC).unwrap().kid("rsa"),
            JwtKey::ec_pem(EC_PUBLIC).unwrap().kid("ec"),
        ],
    )
}

fn invalid(result: Result<presa_server::AuthInfo, VerifyError>) -> String {
    match result {
        Err(VerifyError::Invalid(why)) => why,
        other => panic!("expected an invalid token, got {other:?}"),
    }
}

#[tokio::test]
async fn rs256_and_es256_tokens_verify() {
    let verifier = static_verifier();
    for (alg, pem, kid) in [(Algorithm::RS256, RSA, "rsa"), (Algorithm::ES256, EC, "ec")] {
        let token = sign(alg, pem, Some(kid), &claims());
        let info = verifier.verify_token(&token).await.unwrap();
        assert_eq!(info.subject(), Some("alice"));
        assert_eq!(info.client_id(), Some("app"));
        assert!(info.has_scopes(["mcp", "files:read"]));
        assert_eq!(info.token(), Some(token.as_str()));
        assert_eq!(info.claim("iss"), Some(&json!(ISSUER)));
    }
    // without a kid, the key is found by algorithm
    let token = sign(Algorithm::ES256, EC, None, &claims());
    assert!(verifier.verify_token(&token).await.is_ok());
}

#[tokio::test]
async fn forged_and_confused_tokens_are_rejected() {
    let verifier = static_verifier();
    let forged = sign(Algorithm::RS256, RSA2, Some("rsa"), &claims());
    assert_eq!(
        invalid(verifier.verify_token(&forged).await),
        "the token's signature does not verify"
    );
    let unknown = sign(Algorithm::RS256, RSA, Some("other"), &claims());
    assert_eq!(
        invalid(verifier.verify_token(&unknown).await),
        "the token's signing key is unknown"
    );
    // HS256 "signed" with the public RSA key as the secret: no key takes HS256
    let confused = encode(
        &Header::new(Algorithm::HS256),
        &claims(),
        &EncodingKey::from_secret(RSA_PUBLIC).unwrap(),
    )
    .unwrap();
    assert_eq!(
        invalid(verifier.verify_token(&confused).await),
        "the token's signing key is unknown"
    );
    assert_eq!(
        invalid(verifier.verify_token("not.a.jwt").await),
        "the token is not a JWT"
    );
}

#[tokio::test]
async fn issuer_and_audience_must_match() {
    let verifier = static_verifier();
    let cases = [
        (
            json!({"iss": "https://evil.example.com"}),
            "the token's issuer is not trusted",
        ),
        (
            json!({"aud": "https://other.example.net/mcp"}),
            "the token was not issued for this resource",
        ),
        (json!({"aud": null}), "the token has no aud claim"),
        (json!({"iss": null}), "the token has no iss claim"),
        (json!({"exp": null}), "the token has no exp claim"),
        (json!({"exp": "never"}), "the token has no exp claim"),
        // a malformed nbf must not pass for an absent one (CVE-2026-25537)
        (
            json!({"nbf": "99999999999"}),
            "the token's nbf claim is malformed",
        ),
    ];
    for (changes, why) in cases {
        let token = sign(Algorithm::RS256, RSA, Some("rsa"), &with(claims(), changes));
        assert_eq!(invalid(verifier.verify_token(&token).await), why);
    }
    // an audience list naming this resource is fine, and so is an extra accepted audience
    let token = sign(
        Algorithm::RS256,
        RSA,
        Some("rsa"),
        &with(claims(), json!({"aud": ["https://other", AUDIENCE]})),
    );
    assert!(verifier.verify_token(&token).await.is_ok());
    let token = sign(
        Algorithm::RS256,
        RSA,
        Some("rsa"),
        &with(claims(), json!({"aud": "https://api.example.net/mcp/"})),
    );
    assert!(verifier.verify_token(&token).await.is_err());
    let verifier = static_verifier().audience("https://api.example.net/mcp/");
    assert!(verifier.verify_token(&token).await.is_ok());
}

#[tokio::test]
async fn expiry_and_not_before_allow_for_clock_skew() {
    let expired = sign(
        Algorithm::ES256,
        EC,
        Some("ec"),
        &with(claims(), json!({"exp": now() - 30})),
    );
    let early = sign(
        Algorithm::ES256,
        EC,
        Some("ec"),
        &with(claims(), json!({"nbf": now() + 30})),
    );
    let lenient = static_verifier().leeway(Duration::from_secs(60));
    assert!(lenient.verify_token(&expired).await.is_ok());
    assert!(lenient.verify_token(&early).await.is_ok());
    let strict = static_verifier().leeway(Duration::ZERO);
    assert_eq!(
        invalid(strict.verify_token(&expired).await),
        "the token expired"
    );
    assert_eq!(
        invalid(strict.verify_token(&early).await),
        "the token is not valid yet"
    );
    let long_expired = sign(
        Algorithm::ES256,
        EC,
        Some("ec"),
        &with(claims(), json!({"exp": now() - 3600})),
    );
    assert_eq!(
        invalid(lenient.verify_token(&long_expired).await),
        "the token expired"
    );
}

/// A mock authorization server's JWKS endpoint that counts its fetches.
#[derive(Clone, Default)]
struct Jwks {
    keys: Arc<Mutex<Vec<Value>>>,
    fetches: Arc<AtomicUsize>,
    failing: Arc<std::sync::atomic::AtomicBool>,
}

impl Jwks {
    async fn start(&self) -> String {
        async fn serve_jwks(State(jwks): State<Jwks>) -> axum::response::Response {
            use axum::response::IntoResponse;
            jwks.fetches.fetch_add(1, Ordering::SeqCst);
            if jwks.failing.load(Ordering::SeqCst) {
                return (axum::http::StatusCode::INTERNAL_SERVER_ERROR, "down").into_response();
            }
            let keys = jwks.keys.lock().unwrap().clone();
            let body = json!({"keys": keys}).to_string();
            ([("content-type", "application/json")], body).into_response()
        }
        let app = Router::new()
            .route("/jwks.json", get(serve_jwks))
            .with_state(self.clone());
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/jwks.json", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await });
        url
    }

    fn publish(&self, keys: &[(Algorithm, &[u8], &str)]) {
        let jwks = keys
            .iter()
            .map(|(alg, pem, kid)| {
                let mut jwk = Jwk::from_encoding_key(&encoding_key(*alg, pem), *alg).unwrap();
                jwk.common.key_id = Some((*kid).to_owned());
                serde_json::to_value(jwk).unwrap()
            })
            .collect();
        *self.keys.lock().unwrap() = jwks;
    }

    fn fetches(&self) -> usize {
        self.fetches.load(Ordering::SeqCst)
    }
}

#[tokio::test]
async fn jwks_keys_are_fetched_once_and_cached() {
    let jwks = Jwks::default();
    jwks.publish(&[(Algorithm::RS256, RSA, "k1")]);
    let url = jwks.start().await;
    let verifier = JwtVerifier::jwks(ISSUER, AUDIENCE, url);
    assert_eq!(
        jwks.fetches(),
        0,
        "nothing is fetched before the first token"
    );
    for _ in 0..3 {
        let token = sign(Algorithm::RS256, RSA, Some("k1"), &claims());
        assert!(verifier.verify_token(&token).await.is_ok());
    }
    assert_eq!(jwks.fetches(), 1);
    // a clone shares the cache
    let token = sign(Algorithm::RS256, RSA, Some("k1"), &claims());
    assert!(verifier.clone().verify_token(&token).await.is_ok());
    assert_eq!(jwks.fetches(), 1);
}

#[tokio::test]
async fn a_new_kid_fetches_the_rotated_keys() {
    let jwks = Jwks::default();
    jwks.publish(&[(Algorithm::RS256, RSA, "k1")]);
    let url = jwks.start().await;
    let verifier = JwtVerifier::jwks(ISSUER, AUDIENCE, url).jwks_min_refresh(Duration::ZERO);
    let old = sign(Algorithm::RS256, RSA, Some("k1"), &claims());
    assert!(verifier.verify_token(&old).await.is_ok());
    // the authorization server rotates to an EC key
    jwks.publish(&[(Algorithm::ES256, EC, "k2")]);
    let new = sign(Algorithm::ES256, EC, Some("k2"), &claims());
    let info = verifier.verify_token(&new).await.unwrap();
    assert_eq!(info.subject(), Some("alice"));
    assert_eq!(jwks.fetches(), 2);
    // the retired key is gone
    assert!(verifier.verify_token(&old).await.is_err());
}

#[tokio::test]
async fn unknown_kids_cannot_make_the_server_hammer_the_jwks() {
    let jwks = Jwks::default();
    jwks.publish(&[(Algorithm::RS256, RSA, "k1")]);
    let url = jwks.start().await;
    let verifier =
        JwtVerifier::jwks(ISSUER, AUDIENCE, url).jwks_min_refresh(Duration::from_secs(3600));
    let good = sign(Algorithm::RS256, RSA, Some("k1"), &claims());
    assert!(verifier.verify_token(&good).await.is_ok());
    for i in 0..5 {
        let kid = format!("made-up-{i}");
        let token = sign(Algorithm::RS256, RSA, Some(&kid), &claims());
        assert_eq!(
            invalid(verifier.verify_token(&token).await),
            "the token's signing key is unknown"
        );
    }
    assert_eq!(jwks.fetches(), 1);
}

#[tokio::test]
async fn an_unreachable_jwks_makes_tokens_uncheckable() {
    let jwks = Jwks::default();
    jwks.failing.store(true, Ordering::SeqCst);
    let url = jwks.start().await;
    let verifier = JwtVerifier::jwks(ISSUER, AUDIENCE, url);
    let token = sign(Algorithm::RS256, RSA, Some("k1"), &claims());
    assert!(matches!(
        verifier.verify_token(&token).await,
        Err(VerifyError::Unavailable(_))
    ));
    // a failed fetch is not retried at once
    assert!(verifier.verify_token(&token).await.is_err());
    assert_eq!(jwks.fetches(), 1);
}

#[tokio::test]
async fn a_jwt_protected_server_end_to_end() {
    let jwks = Jwks::default();
    jwks.publish(&[(Algorithm::ES256, EC, "k1")]);
    let jwks_url = jwks.start().await;

    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let resource = format!("http://{}/mcp", listener.local_addr().unwrap());
    let verifier = JwtVerifier::jwks(ISSUER, &resource, jwks_url);
    let server = Server::builder("jwt-test", "1.0.0")
        .tool(
            Tool::without_params("whoami"),
            |_: Value, cx: Context| async move {
                json!({"subject": cx.auth().and_then(|auth| auth.subject())})
            },
        )
        .build()
        .unwrap();
    let options = HttpOptions::default().auth(
        AuthOptions::new(ISSUER, verifier)
            .resource(&resource)
            .required_scopes(["mcp"]),
    );
    let app: Router = router(server, options);
    tokio::spawn(async move { axum::serve(listener, app).await });

    let http = reqwest::Client::new();
    let call = |token: String| {
        let body = request(1, "tools/call", json!({"name": "whoami"}));
        http.post(&resource)
            .bearer_auth(token)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", "tools/call")
            .header("mcp-name", "whoami")
            .body(body.to_string())
            .send()
    };
    let good = with(claims(), json!({"aud": resource}));
    let response = call(sign(Algorithm::ES256, EC, Some("k1"), &good))
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let body: Value = serde_json::from_str(&response.text().await.unwrap()).unwrap();
    assert_eq!(body["result"]["structuredContent"]["subject"], "alice");

    // a token for another resource
    let response = call(sign(Algorithm::ES256, EC, Some("k1"), &claims()))
        .await
        .unwrap();
    assert_eq!(response.status(), 401);
    let challenge = response.headers()["www-authenticate"].to_str().unwrap();
    assert!(challenge.contains("error=\"invalid_token\""), "{challenge}");
    assert!(
        challenge.contains("error_description=\"the token was not issued for this resource\""),
        "{challenge}"
    );
}
