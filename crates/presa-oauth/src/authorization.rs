//! The authorization request (RFC 6749 §4.1 with PKCE, RFC 7636, and the resource indicator,
//! RFC 8707), the [`AuthorizationHandler`] that takes the user there, and the checks on the
//! response (`state`, and `iss` per RFC 9207) before the code is redeemed.

use std::fmt;
use std::future::Future;
use std::time::Duration;

use presa_client::BoxFuture;
use reqwest::Url;
use reqwest::header::LOCATION;

use crate::error::OAuthError;
use crate::jwt::{random, sha256_b64};
use presa_http::TokenError;

/// Takes the user to the authorization page and returns where the authorization server sent
/// them back.
///
/// Given the authorization URL, an interactive app opens a browser there and listens on its
/// [redirect URI](crate::OAuthOptions::redirect_uri); it returns the full URL the browser was
/// redirected to (with its `code`, `state` and `iss` parameters). Tests and servers that
/// approve without a user can use [`HeadlessAuthorization`].
///
/// Closures `Fn(String) -> impl Future<Output = Result<String, TokenError>>` are handlers:
///
/// ```
/// use presa_http::TokenError;
/// use presa_oauth::OAuthOptions;
///
/// let options = OAuthOptions::default()
///     .redirect_uri("http://127.0.0.1:33418/callback")
///     .authorization_handler(|url: String| async move {
///         println!("open {url} in your browser, then paste the address you land on:");
///         let mut line = String::new();
///         std::io::stdin().read_line(&mut line)?;
///         Ok::<_, TokenError>(line.trim().to_owned())
///     });
/// # drop(options);
/// ```
pub trait AuthorizationHandler: Send + Sync {
    /// Sends the user to `url`; returns the redirect URL they came back with.
    fn authorize<'a>(&'a self, url: &'a str) -> BoxFuture<'a, Result<String, TokenError>>;
}

impl<F, Fut> AuthorizationHandler for F
where
    F: Fn(String) -> Fut + Send + Sync,
    Fut: Future<Output = Result<String, TokenError>> + Send + 'static,
{
    fn authorize<'a>(&'a self, url: &'a str) -> BoxFuture<'a, Result<String, TokenError>> {
        Box::pin(self(url.to_owned()))
    }
}

/// An [`AuthorizationHandler`] without a user: it GETs the authorization URL, does not follow
/// the redirect, and returns its `Location`. For tests, and for authorization servers that
/// approve without interaction.
#[derive(Clone)]
pub struct HeadlessAuthorization {
    http: reqwest::Client,
}

impl HeadlessAuthorization {
    /// A headless handler; each GET may take 30 s.
    pub fn new() -> Self {
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(Duration::from_secs(30))
            .build()
            .unwrap_or_default();
        Self { http }
    }
}

impl Default for HeadlessAuthorization {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for HeadlessAuthorization {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("HeadlessAuthorization")
    }
}

impl AuthorizationHandler for HeadlessAuthorization {
    fn authorize<'a>(&'a self, url: &'a str) -> BoxFuture<'a, Result<String, TokenError>> {
        Box::pin(async move {
            let response = self.http.get(url).send().await?;
            let status = response.status();
            let location = response
                .headers()
                .get(LOCATION)
                .and_then(|l| l.to_str().ok())
                .filter(|_| status.is_redirection())
                .ok_or_else(|| {
                    format!("the authorization endpoint answered HTTP {status}, not a redirect")
                })?;
            let base = Url::parse(url).map_err(|e| e.to_string())?;
            Ok(base.join(location).map_err(|e| e.to_string())?.to_string())
        })
    }
}

/// An authorization request on its way: what the response is checked against, and the PKCE
/// verifier the code is redeemed with.
#[derive(Clone, Debug)]
pub(crate) struct Pending {
    pub(crate) state: String,
    pub(crate) verifier: String,
    /// The issuer recorded from the validated metadata.
    pub(crate) issuer: String,
    /// The metadata advertised `authorization_response_iss_parameter_supported`.
    pub(crate) iss_advertised: bool,
}

impl Pending {
    /// A fresh `state` and PKCE verifier for the authorization server `issuer`.
    pub(crate) fn new(issuer: &str, iss_advertised: bool) -> Result<Self, OAuthError> {
        Ok(Self {
            state: random(24)?,
            // 32 random bytes: 43 characters, the RFC 7636 minimum
            verifier: random(32)?,
            issuer: issuer.to_owned(),
            iss_advertised,
        })
    }
}

/// What goes into the authorization request besides PKCE and `state`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct AuthorizationParams<'a> {
    pub(crate) client_id: &'a str,
    pub(crate) redirect_uri: &'a str,
    pub(crate) scope: Option<&'a str>,
    pub(crate) resource: &'a str,
}

/// The authorization URL: the endpoint with `response_type=code`, `client_id`,
/// `redirect_uri`, `scope` (when any), `state`, the S256 `code_challenge` and `resource`.
pub(crate) fn authorization_url(
    endpoint: &Url,
    params: AuthorizationParams<'_>,
    pending: &Pending,
) -> Url {
    let mut url = endpoint.clone();
    {
        let mut query = url.query_pairs_mut();
        query
            .append_pair("response_type", "code")
            .append_pair("client_id", params.client_id)
            .append_pair("redirect_uri", params.redirect_uri);
        if let Some(scope) = params.scope {
            query.append_pair("scope", scope);
        }
        query
            .append_pair("state", &pending.state)
            .append_pair("code_challenge", &sha256_b64(&pending.verifier))
            .append_pair("code_challenge_method", "S256")
            .append_pair("resource", params.resource);
    }
    url
}

/// Checks the authorization response (the redirect URL) and returns its code: `iss` first
/// (RFC 9207 §2.4: present → equal to the recorded issuer as a plain string; absent → only if
/// the server did not advertise it), then `state`, then an `error`, then the `code`.
pub(crate) fn read_response(redirect: &str, pending: &Pending) -> Result<String, OAuthError> {
    let url = Url::parse(redirect).map_err(|e| OAuthError::InvalidResponse {
        what: "authorization response".to_owned(),
        reason: format!("the redirect is not a URL: {e}"),
    })?;
    let param = |name: &str| {
        url.query_pairs()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.into_owned())
    };
    match param("iss") {
        Some(iss) if iss != pending.issuer => {
            return Err(OAuthError::IssMismatch {
                expected: pending.issuer.clone(),
                found: Some(iss),
            });
        }
        None if pending.iss_advertised => {
            return Err(OAuthError::IssMismatch {
                expected: pending.issuer.clone(),
                found: None,
            });
        }
        _ => {}
    }
    if param("state").as_deref() != Some(pending.state.as_str()) {
        return Err(OAuthError::StateMismatch);
    }
    if let Some(error) = param("error") {
        return Err(OAuthError::AuthorizationDenied {
            error,
            description: param("error_description"),
        });
    }
    param("code")
        .filter(|c| !c.is_empty())
        .ok_or(OAuthError::MissingCode)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn pending(advertised: bool) -> Pending {
        Pending {
            state: "st".into(),
            verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk".into(),
            issuer: "http://localhost:9000".into(),
            iss_advertised: advertised,
        }
    }

    #[test]
    fn the_authorization_url_carries_pkce_state_and_the_resource_verbatim() {
        let endpoint = Url::parse("http://localhost:9000/tenant1/authorize?x=1").unwrap();
        let params = AuthorizationParams {
            client_id: "https://app.example/client.json",
            redirect_uri: "http://localhost:3000/callback",
            scope: Some("mcp:basic mcp:write"),
            resource: "http://localhost:1234",
        };
        let url = authorization_url(&endpoint, params, &pending(true));
        let pairs: Vec<(String, String)> = url.query_pairs().into_owned().collect();
        let get = |n: &str| pairs.iter().find(|(k, _)| k == n).map(|(_, v)| v.as_str());
        assert_eq!(get("x"), Some("1"));
        assert_eq!(get("response_type"), Some("code"));
        assert_eq!(get("client_id"), Some("https://app.example/client.json"));
        assert_eq!(get("redirect_uri"), Some("http://localhost:3000/callback"));
        assert_eq!(get("scope"), Some("mcp:basic mcp:write"));
        assert_eq!(get("state"), Some("st"));
        assert_eq!(
            get("code_challenge"),
            Some("E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
        );
        assert_eq!(get("code_challenge_method"), Some("S256"));
        // no trailing slash added
        assert_eq!(get("resource"), Some("http://localhost:1234"));

        let no_scope = AuthorizationParams {
            scope: None,
            ..params
        };
        let url = authorization_url(&endpoint, no_scope, &pending(true));
        assert!(!url.query_pairs().any(|(n, _)| n == "scope"));
    }

    #[test]
    fn iss_is_compared_exactly_before_anything_else() {
        let redirect = |query: &str| format!("http://localhost:3000/callback?{query}");
        let ok = "code=c1&state=st&iss=http%3A%2F%2Flocalhost%3A9000";
        assert_eq!(read_response(&redirect(ok), &pending(true)).unwrap(), "c1");
        assert_eq!(read_response(&redirect(ok), &pending(false)).unwrap(), "c1");
        // advertised but missing
        assert_eq!(
            read_response(&redirect("code=c1&state=st"), &pending(true)),
            Err(OAuthError::IssMismatch {
                expected: "http://localhost:9000".into(),
                found: None
            })
        );
        // not advertised and missing: fine
        assert_eq!(
            read_response(&redirect("code=c1&state=st"), &pending(false)).unwrap(),
            "c1"
        );
        // present and different, advertised or not; no normalization
        for iss in [
            "https://evil.example.com",
            "http://localhost:9000/",
            "HTTP://localhost:9000",
            "http://localhost:9000:80",
        ] {
            for advertised in [true, false] {
                let query = format!("code=c1&state=st&iss={}", urlencode(iss));
                assert!(
                    matches!(
                        read_response(&redirect(&query), &pending(advertised)),
                        Err(OAuthError::IssMismatch { found: Some(_), .. })
                    ),
                    "{iss}"
                );
            }
        }
        // a wrong iss hides the error fields
        let query = "error=access_denied&state=st&iss=https%3A%2F%2Fevil";
        assert!(matches!(
            read_response(&redirect(query), &pending(true)),
            Err(OAuthError::IssMismatch { .. })
        ));
    }

    #[test]
    fn state_error_and_code() {
        let redirect = |query: &str| format!("http://localhost:3000/callback?{query}");
        assert_eq!(
            read_response(&redirect("code=c1&state=other"), &pending(false)),
            Err(OAuthError::StateMismatch)
        );
        assert_eq!(
            read_response(
                &redirect("error=access_denied&error_description=no&state=st"),
                &pending(false)
            ),
            Err(OAuthError::AuthorizationDenied {
                error: "access_denied".into(),
                description: Some("no".into())
            })
        );
        assert_eq!(
            read_response(&redirect("state=st"), &pending(false)),
            Err(OAuthError::MissingCode)
        );
    }

    fn urlencode(s: &str) -> String {
        url_encode_component(s)
    }

    fn url_encode_component(s: &str) -> String {
        let mut url = Url::parse("http://x/").unwrap();
        url.query_pairs_mut().append_pair("v", s);
        url.query().unwrap()[2..].to_owned()
    }
}
