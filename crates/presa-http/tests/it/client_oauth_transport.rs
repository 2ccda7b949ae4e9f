//! The transport's side of authorization: what a [`TokenProvider`] is told on `401` and `403`,
//! the headers of a DPoP credential, the cap on resends, and a provider's error.

use std::sync::Mutex;

use presa_client::{BoxFuture, TransportErrorKind, TransportEvent};
use presa_http::{AuthRequest, Credential, HttpClientOptions, Refusal, TokenError, TokenProvider};
use presa_test::http::Mock;
use serde_json::json;

use crate::client_support::{Transport, modern};

/// What a provider was told about one refusal.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Told {
    status: u16,
    challenge: Option<String>,
    nonce: Option<String>,
    sent: Option<String>,
    attempt: u32,
    method: String,
}

/// Hands out DPoP credentials `token-<n>` / `proof-<n>` and answers refusals as scripted.
struct Scripted {
    issued: Mutex<u32>,
    told: Mutex<Vec<Told>>,
    answer: fn(&Told) -> Result<bool, TokenError>,
}

impl Scripted {
    fn new(answer: fn(&Told) -> Result<bool, TokenError>) -> std::sync::Arc<Self> {
        std::sync::Arc::new(Self {
            issued: Mutex::new(0),
            told: Mutex::new(Vec::new()),
            answer,
        })
    }
}

/// The provider handed to the transport; the test keeps another handle.
struct Shared(std::sync::Arc<Scripted>);

impl TokenProvider for Shared {
    fn token(&self) -> BoxFuture<'_, Result<Option<String>, TokenError>> {
        Box::pin(async { Ok(None) })
    }

    fn credential<'a>(
        &'a self,
        request: AuthRequest<'a>,
    ) -> BoxFuture<'a, Result<Option<Credential>, TokenError>> {
        let mut issued = self.0.issued.lock().unwrap();
        *issued += 1;
        let n = *issued;
        let credential = Credential::Dpop {
            token: format!("token-{n}"),
            proof: format!("proof-{n}-{}", request.method()),
        };
        Box::pin(async move { Ok(Some(credential)) })
    }

    fn refused<'a>(&'a self, refusal: Refusal<'a>) -> BoxFuture<'a, Result<bool, TokenError>> {
        let told = Told {
            status: refusal.status(),
            challenge: refusal.challenge().map(str::to_owned),
            nonce: refusal.dpop_nonce().map(str::to_owned),
            sent: refusal.sent().map(|c| c.token().to_owned()),
            attempt: refusal.attempt(),
            method: refusal.request().method().to_owned(),
        };
        let answer = (self.0.answer)(&told);
        self.0.told.lock().unwrap().push(told);
        Box::pin(async move { answer })
    }
}

#[tokio::test]
async fn dpop_credentials_and_refusals_reach_the_provider() {
    let mut mock = Mock::start().await;
    let provider = Scripted::new(|told| Ok(told.attempt < 2));
    let options = HttpClientOptions::default().token_provider(Shared(provider.clone()));
    let mut transport = Transport::with(&mock.url, options);
    transport.send(modern(1, "tools/list", json!({}))).await;

    let first = mock.next().await;
    assert_eq!(first.header("authorization"), Some("DPoP token-1"));
    assert_eq!(first.header("dpop"), Some("proof-1-POST"));
    first.respond(
        401,
        &[
            (
                "www-authenticate",
                r#"DPoP error="use_dpop_nonce", Bearer realm="x""#,
            ),
            ("dpop-nonce", "n1"),
        ],
        "",
    );
    let second = mock.next().await;
    assert_eq!(second.header("authorization"), Some("DPoP token-2"));
    second.respond(
        403,
        &[(
            "www-authenticate",
            r#"Bearer error="insufficient_scope", scope="b""#,
        )],
        "",
    );
    let third = mock.next().await;
    assert_eq!(third.rpc_id(), 1);
    third.respond(403, &[], "");
    // the provider declined the third: the status is reported
    match transport.event().await {
        TransportEvent::RequestFailed { error, .. } => {
            assert_eq!(error.kind(), TransportErrorKind::Protocol);
            assert!(error.message().contains("403"), "{error}");
        }
        other => panic!("{other:?}"),
    }
    let told = provider.told.lock().unwrap().clone();
    assert_eq!(
        told,
        [
            Told {
                status: 401,
                challenge: Some(r#"DPoP error="use_dpop_nonce", Bearer realm="x""#.into()),
                nonce: Some("n1".into()),
                sent: Some("token-1".into()),
                attempt: 0,
                method: "POST".into(),
            },
            Told {
                status: 403,
                challenge: Some(r#"Bearer error="insufficient_scope", scope="b""#.into()),
                nonce: None,
                sent: Some("token-2".into()),
                attempt: 1,
                method: "POST".into(),
            },
            Told {
                status: 403,
                challenge: None,
                nonce: None,
                sent: Some("token-3".into()),
                attempt: 2,
                method: "POST".into(),
            },
        ]
    );
}

#[tokio::test]
async fn a_request_is_sent_eight_times_at_most() {
    let mut mock = Mock::start().await;
    let provider = Scripted::new(|_| Ok(true));
    let options = HttpClientOptions::default().token_provider(Shared(provider.clone()));
    let mut transport = Transport::with(&mock.url, options);
    transport.send(modern(1, "tools/list", json!({}))).await;
    for _ in 0..8 {
        mock.next().await.respond(401, &[], "");
    }
    match transport.event().await {
        TransportEvent::RequestFailed { error, .. } => {
            assert!(error.message().contains("401"), "{error}");
        }
        other => panic!("{other:?}"),
    }
    // the eighth 401 is not even offered to the provider
    assert_eq!(provider.told.lock().unwrap().len(), 7);
}

#[tokio::test]
async fn a_provider_error_on_refusal_fails_the_request_with_it_as_the_source() {
    let mut mock = Mock::start().await;
    let provider =
        Scripted::new(|_| Err(std::io::Error::other("the authorization server is down").into()));
    let options = HttpClientOptions::default().token_provider(Shared(provider));
    let mut transport = Transport::with(&mock.url, options);
    transport.send(modern(1, "tools/list", json!({}))).await;
    mock.next().await.respond(401, &[], "");
    match transport.event().await {
        TransportEvent::RequestFailed { error, .. } => {
            assert_eq!(error.kind(), TransportErrorKind::Connect);
            assert_eq!(
                error.message(),
                "HTTP 401 Unauthorized: the token provider failed"
            );
            let source = std::error::Error::source(&error)
                .and_then(|e| e.downcast_ref::<std::io::Error>())
                .expect("the provider's error, typed");
            assert_eq!(source.to_string(), "the authorization server is down");
        }
        other => panic!("{other:?}"),
    }
}
