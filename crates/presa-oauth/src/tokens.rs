//! The token endpoint: client authentication (`client_secret_basic`, `client_secret_post`,
//! `none`, `private_key_jwt`), DPoP proofs and nonces, and reading the token response.

use std::time::SystemTime;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use reqwest::Url;
use reqwest::header::{AUTHORIZATION, HeaderMap, HeaderName, HeaderValue};
use serde_json::Value;

use crate::error::OAuthError;
use crate::http::{Answer, post_form};
use crate::jwt::{Es256Key, client_assertion, dpop_proof, unix};
use crate::options::TokenEndpointAuth;

const DPOP: HeaderName = HeaderName::from_static("dpop");

/// How the client authenticates at a token endpoint.
#[derive(Clone, Debug)]
pub(crate) struct ClientAuth {
    pub(crate) client_id: String,
    pub(crate) secret: Option<String>,
    pub(crate) key: Option<Es256Key>,
    pub(crate) method: TokenEndpointAuth,
}

impl ClientAuth {
    /// Picks the method: `explicit` if given (configured or registered) and usable with what
    /// the client has, else
    /// `private_key_jwt` with a key, else with a secret `client_secret_basic` or `_post`
    /// (whichever the server lists, basic first; the RFC 8414 default is basic), else `none`.
    pub(crate) fn choose(
        explicit: Option<TokenEndpointAuth>,
        has_secret: bool,
        has_key: bool,
        supported: Option<&[String]>,
    ) -> TokenEndpointAuth {
        let usable = |m: TokenEndpointAuth| match m {
            TokenEndpointAuth::ClientSecretBasic | TokenEndpointAuth::ClientSecretPost => {
                has_secret
            }
            TokenEndpointAuth::PrivateKeyJwt => has_key,
            _ => true,
        };
        if let Some(method) = explicit.filter(|m| usable(*m)) {
            return method;
        }
        let lists = |m: TokenEndpointAuth| {
            supported.map_or(m == TokenEndpointAuth::ClientSecretBasic, |s| {
                s.iter().any(|s| s == m.as_str())
            })
        };
        if has_key {
            return TokenEndpointAuth::PrivateKeyJwt;
        }
        if !has_secret {
            return TokenEndpointAuth::None;
        }
        [
            TokenEndpointAuth::ClientSecretBasic,
            TokenEndpointAuth::ClientSecretPost,
            TokenEndpointAuth::None,
        ]
        .into_iter()
        .find(|m| lists(*m))
        .unwrap_or(TokenEndpointAuth::ClientSecretBasic)
    }

    /// Adds the authentication to a token request: a header or form fields.
    fn apply(
        &self,
        form: &mut Vec<(&'static str, String)>,
        headers: &mut HeaderMap,
        audience: &str,
        now: SystemTime,
    ) -> Result<(), OAuthError> {
        let secret = || {
            self.secret.clone().ok_or_else(|| {
                OAuthError::MissingCredentials(format!(
                    "{} needs a client secret",
                    self.method.as_str()
                ))
            })
        };
        match self.method {
            TokenEndpointAuth::ClientSecretBasic => {
                // RFC 6749 §2.3.1: both form-urlencoded before joining
                let pair = format!(
                    "{}:{}",
                    form_encode(&self.client_id),
                    form_encode(&secret()?)
                );
                let value = HeaderValue::from_str(&format!("Basic {}", STANDARD.encode(pair)))
                    .map_err(|_| {
                        OAuthError::MissingCredentials("unsendable client credentials".to_owned())
                    })?;
                headers.insert(AUTHORIZATION, value);
            }
            TokenEndpointAuth::ClientSecretPost => {
                form.push(("client_id", self.client_id.clone()));
                form.push(("client_secret", secret()?));
            }
            TokenEndpointAuth::None => form.push(("client_id", self.client_id.clone())),
            TokenEndpointAuth::PrivateKeyJwt => {
                let key = self.key.as_ref().ok_or_else(|| {
                    OAuthError::MissingCredentials("private_key_jwt needs a private key".to_owned())
                })?;
                form.push(("client_id", self.client_id.clone()));
                form.push((
                    "client_assertion_type",
                    "urn:ietf:params:oauth:client-assertion-type:jwt-bearer".to_owned(),
                ));
                form.push((
                    "client_assertion",
                    client_assertion(key, &self.client_id, audience, now)?,
                ));
            }
        }
        Ok(())
    }
}

/// `application/x-www-form-urlencoded` encoding of one value (the WHATWG URL standard's
/// byte serializer).
fn form_encode(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for byte in value.bytes() {
        match byte {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'*' | b'-' | b'.' | b'_' => {
                out.push(char::from(byte));
            }
            b' ' => out.push('+'),
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out
}

/// A token response (RFC 6749 §5.1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct TokenResponse {
    pub(crate) access_token: String,
    pub(crate) token_type: String,
    pub(crate) expires_in: Option<u64>,
    pub(crate) refresh_token: Option<String>,
    pub(crate) scope: Option<String>,
}

impl TokenResponse {
    /// When the access token expires, in Unix seconds, for a response received at `now`:
    /// `expires_in` is the server's, so a huge one saturates instead of overflowing.
    pub(crate) fn expires_at(&self, now: SystemTime) -> Option<u64> {
        self.expires_in.map(|s| unix(now).saturating_add(s))
    }

    pub(crate) fn read(answer: &Answer) -> Result<Self, OAuthError> {
        let invalid = |reason: &str| OAuthError::InvalidResponse {
            what: "token response".to_owned(),
            reason: reason.to_owned(),
        };
        let json = answer.json.as_ref().ok_or_else(|| invalid("not JSON"))?;
        let text = |name: &str| json.get(name).and_then(Value::as_str).map(str::to_owned);
        let access_token = text("access_token")
            .filter(|t| !t.is_empty())
            .ok_or_else(|| invalid("no access_token"))?;
        let expires_in = match json.get("expires_in") {
            Some(Value::Number(n)) => n.as_u64(),
            Some(Value::String(s)) => s.parse().ok(),
            _ => None,
        };
        Ok(Self {
            access_token,
            token_type: text("token_type").unwrap_or_else(|| "Bearer".to_owned()),
            expires_in,
            refresh_token: text("refresh_token"),
            scope: text("scope"),
        })
    }
}

/// A DPoP key and the nonce last received from this server, for a token request.
#[derive(Clone, Debug)]
pub(crate) struct DpopContext<'a> {
    pub(crate) key: &'a Es256Key,
    pub(crate) nonce: Option<String>,
}

/// What a token request returns: the tokens, and the DPoP nonce the server last sent.
#[derive(Debug)]
pub(crate) struct Issued {
    pub(crate) tokens: TokenResponse,
    pub(crate) dpop_nonce: Option<String>,
}

/// POSTs a token request with client authentication (`audience` is the issuer a client
/// assertion is for) and, with `dpop`, a proof; a `use_dpop_nonce` error is retried once with
/// the server's nonce (RFC 9449 §8).
pub(crate) async fn request(
    http: &reqwest::Client,
    endpoint: &Url,
    form: Vec<(&'static str, String)>,
    auth: Option<&ClientAuth>,
    audience: &str,
    mut dpop: Option<DpopContext<'_>>,
) -> Result<Issued, OAuthError> {
    let mut nonce_retried = false;
    loop {
        let now = SystemTime::now();
        let mut form = form.clone();
        let mut headers = HeaderMap::new();
        if let Some(auth) = auth {
            auth.apply(&mut form, &mut headers, audience, now)?;
        }
        if let Some(dpop) = &dpop {
            let proof = dpop_proof(
                dpop.key,
                "POST",
                endpoint.as_str(),
                None,
                dpop.nonce.as_deref(),
                now,
            )?;
            let proof = HeaderValue::from_str(&proof)
                .map_err(|_| OAuthError::Key("unsendable DPoP proof".to_owned()))?;
            headers.insert(DPOP, proof);
        }
        let answer = post_form(http, endpoint, &form, headers).await?;
        let server_nonce = answer.header("dpop-nonce").map(str::to_owned);
        if answer.status.is_success() {
            let nonce = server_nonce.or_else(|| dpop.and_then(|d| d.nonce));
            return Ok(Issued {
                tokens: TokenResponse::read(&answer)?,
                dpop_nonce: nonce,
            });
        }
        let (error, description) = answer.oauth_error();
        if let (Some(context), Some(nonce), false) = (&mut dpop, &server_nonce, nonce_retried)
            && error == "use_dpop_nonce"
        {
            context.nonce = Some(nonce.clone());
            nonce_retried = true;
            continue;
        }
        return Err(OAuthError::TokenRefused {
            status: answer.status.as_u16(),
            error,
            description,
        });
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use TokenEndpointAuth::{ClientSecretBasic, ClientSecretPost, None as Public, PrivateKeyJwt};

    fn list(methods: &[&str]) -> Vec<String> {
        methods.iter().map(|m| (*m).to_owned()).collect()
    }

    fn answer(json: Value) -> Answer {
        Answer {
            status: reqwest::StatusCode::OK,
            headers: HeaderMap::new(),
            json: Some(json),
        }
    }

    #[test]
    fn a_huge_expires_in_saturates_instead_of_overflowing() {
        let now = SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_800_000_000);
        for expires_in in [
            serde_json::json!(u64::MAX),
            serde_json::json!("18446744073709551615"),
        ] {
            let read = TokenResponse::read(&answer(serde_json::json!({
                "access_token": "t",
                "expires_in": expires_in,
            })))
            .unwrap();
            assert_eq!(read.expires_at(now), Some(u64::MAX));
        }
        let read = TokenResponse::read(&answer(
            serde_json::json!({"access_token": "t", "expires_in": 60}),
        ))
        .unwrap();
        assert_eq!(read.expires_at(now), Some(1_800_000_060));
        // negative, fractional or absent: no expiry known
        for expires_in in [serde_json::json!(-1), serde_json::json!(1.5), Value::Null] {
            let read = TokenResponse::read(&answer(
                serde_json::json!({"access_token": "t", "expires_in": expires_in}),
            ))
            .unwrap();
            assert_eq!(read.expires_at(now), None);
        }
    }

    #[test]
    fn choosing_the_token_endpoint_auth_method() {
        let basic = list(&["client_secret_basic"]);
        let post = list(&["client_secret_post"]);
        let none = list(&["none"]);
        let both = list(&["client_secret_post", "client_secret_basic"]);
        // explicit (configured or registered) wins, when usable
        assert_eq!(
            ClientAuth::choose(Some(ClientSecretBasic), false, false, Some(&basic)),
            Public
        );
        assert_eq!(
            ClientAuth::choose(Some(ClientSecretPost), true, false, Some(&basic)),
            ClientSecretPost
        );
        // a secret: basic first, then post, whatever the list order
        assert_eq!(
            ClientAuth::choose(None, true, false, Some(&both)),
            ClientSecretBasic
        );
        assert_eq!(
            ClientAuth::choose(None, true, false, Some(&post)),
            ClientSecretPost
        );
        assert_eq!(
            ClientAuth::choose(None, true, false, Some(&basic)),
            ClientSecretBasic
        );
        // a secret the server has no use for
        assert_eq!(ClientAuth::choose(None, true, false, Some(&none)), Public);
        // RFC 8414: an absent list means client_secret_basic
        assert_eq!(
            ClientAuth::choose(None, true, false, None),
            ClientSecretBasic
        );
        // no secret: public
        assert_eq!(ClientAuth::choose(None, false, false, Some(&basic)), Public);
        // a key: private_key_jwt
        assert_eq!(ClientAuth::choose(None, false, true, None), PrivateKeyJwt);
    }

    fn auth(method: TokenEndpointAuth, secret: Option<&str>) -> ClientAuth {
        ClientAuth {
            client_id: "id:1".into(),
            secret: secret.map(str::to_owned),
            key: None,
            method,
        }
    }

    #[test]
    fn client_authentication_goes_in_the_header_or_the_form() {
        let now = SystemTime::now();
        let mut form = Vec::new();
        let mut headers = HeaderMap::new();
        auth(ClientSecretBasic, Some("s e/c"))
            .apply(&mut form, &mut headers, "https://as", now)
            .map_err(|e| e.to_string())
            .ok();
        assert!(form.is_empty());
        let header = headers[AUTHORIZATION].to_str().unwrap_or_default();
        let decoded = STANDARD
            .decode(header.strip_prefix("Basic ").unwrap_or_default())
            .unwrap_or_default();
        assert_eq!(String::from_utf8_lossy(&decoded), "id%3A1:s+e%2Fc");

        let mut form = Vec::new();
        let mut headers = HeaderMap::new();
        auth(ClientSecretPost, Some("sec"))
            .apply(&mut form, &mut headers, "https://as", now)
            .map_err(|e| e.to_string())
            .ok();
        assert!(headers.is_empty());
        assert_eq!(
            form,
            [
                ("client_id", "id:1".to_owned()),
                ("client_secret", "sec".to_owned())
            ]
        );

        let mut form = Vec::new();
        auth(Public, Some("unused"))
            .apply(&mut form, &mut headers, "https://as", now)
            .map_err(|e| e.to_string())
            .ok();
        assert_eq!(form, [("client_id", "id:1".to_owned())]);

        let missing =
            auth(ClientSecretBasic, None).apply(&mut form, &mut headers, "https://as", now);
        assert!(matches!(missing, Err(OAuthError::MissingCredentials(_))));
        let missing = auth(PrivateKeyJwt, None).apply(&mut form, &mut headers, "https://as", now);
        assert!(matches!(missing, Err(OAuthError::MissingCredentials(_))));
    }

    #[test]
    fn form_encoding() {
        assert_eq!(
            form_encode("pre-registered-client"),
            "pre-registered-client"
        );
        assert_eq!(form_encode("a b&c"), "a+b%26c");
    }
}
