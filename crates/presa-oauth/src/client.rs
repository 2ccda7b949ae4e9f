//! [`OAuthClient`]: the transport's [`TokenProvider`] that runs OAuth when the server asks.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, SystemTime};

use presa_client::BoxFuture;
use reqwest::Url;

use crate::challenge::AuthChallenge;
use crate::discovery::Discovered;
use crate::error::OAuthError;
use crate::http::parse_url;
use crate::jwt::{Es256Key, dpop_proof};
use crate::options::OAuthOptions;
use crate::scope::covers;
use crate::storage::StoredTokens;
use presa_http::{AuthRequest, Credential, Refusal, TokenError, TokenProvider};

/// A token this close to expiry is refreshed before use.
const REFRESH_MARGIN: Duration = Duration::from_secs(30);

/// An OAuth 2.1 client for one MCP server, following the MCP authorization specification
/// (2025-11-25 and 2026-07-28): give it to the transport with
/// [`HttpClientOptions::token_provider`](presa_http::HttpClientOptions::token_provider).
///
/// Nothing happens until the server refuses a request:
///
/// - **`401`**: discovery (the protected resource metadata from the challenge's
///   `resource_metadata`, else the well-known paths; its `resource` must be the server's; then
///   the authorization server's metadata, its `issuer` compared exactly), the client's identity
///   there (pre-registered, client ID metadata document, or dynamic registration, keyed by
///   issuer), then the [grant](crate::Grant): by default the authorization code with PKCE
///   `S256`, `state`, `resource` and the RFC 9207 `iss` check, through the
///   [`AuthorizationHandler`](crate::AuthorizationHandler). A token the server rejects is
///   refreshed first when the authorization server is unchanged; when the protected resource
///   names another authorization server, the client registers there anew.
/// - **`403` with `insufficient_scope`**: step-up, asking for the union of the scopes asked
///   before and the challenged ones.
/// - Every request is sent again at most [`retry_limit`](OAuthOptions::retry_limit) times.
///
/// Tokens go to the [`TokenStore`](crate::TokenStore), keyed by the server URL, and are
/// refreshed shortly before they expire. One flow runs at a time; requests refused meanwhile
/// wait for it and then use its token. Cloning is cheap and shares everything.
///
/// ```no_run
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// use presa_client::{Client, ClientOptions};
/// use presa_http::{HttpClientOptions, TokenError};
/// use presa_oauth::{OAuthClient, OAuthOptions};
///
/// let url = "https://mcp.example.com/mcp";
/// let oauth = OAuthClient::new(
///     url,
///     OAuthOptions::default()
///         .client_name("my app")
///         .redirect_uri("http://127.0.0.1:33418/callback")
///         .authorization_handler(|url: String| async move {
///             // open `url` in a browser, serve the redirect URI, return the URL it received
///             # let _ = url;
///             Ok::<_, TokenError>(String::new())
///         }),
/// )?;
/// let channel = presa_http::client(url, HttpClientOptions::default().token_provider(oauth))?;
/// let client = Client::connect(channel, ClientOptions::default()).await?;
/// # drop(client);
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct OAuthClient {
    pub(crate) inner: Arc<Inner>,
}

pub(crate) struct Inner {
    pub(crate) server: Url,
    /// The token store's key: the server URL as given.
    pub(crate) key: String,
    pub(crate) options: OAuthOptions,
    pub(crate) http: reqwest::Client,
    /// Held while a flow (discovery, authorization, refresh) runs.
    pub(crate) flow: tokio::sync::Mutex<()>,
    state: Mutex<State>,
}

#[derive(Default)]
pub(crate) struct State {
    /// The tokens were read from the store.
    pub(crate) loaded: bool,
    pub(crate) tokens: Option<StoredTokens>,
    pub(crate) discovered: Option<Discovered>,
    /// The scopes the last authorization asked for (without `offline_access`).
    pub(crate) requested: Vec<String>,
    pub(crate) dpop_key: Option<Es256Key>,
    /// The MCP server's last DPoP nonce.
    pub(crate) resource_nonce: Option<String>,
    /// Each authorization server's last DPoP nonce.
    pub(crate) server_nonces: HashMap<String, String>,
    /// Issuer-less pre-registered credentials: the issuer each client id is bound to.
    pub(crate) bound: HashMap<String, String>,
    pub(crate) last_error: Option<OAuthError>,
}

impl fmt::Debug for OAuthClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OAuthClient")
            .field("server", &self.inner.key)
            .field("options", &self.inner.options)
            .finish_non_exhaustive()
    }
}

impl OAuthClient {
    /// An OAuth client for the MCP server at `server_url` (the URL the transport connects to).
    ///
    /// # Errors
    ///
    /// [`OAuthError::InvalidUrl`] unless `server_url` is an absolute `http`/`https` URL;
    /// [`OAuthError::Http`] if the HTTP client cannot be built.
    pub fn new(server_url: impl AsRef<str>, options: OAuthOptions) -> Result<Self, OAuthError> {
        let server_url = server_url.as_ref();
        let server = parse_url(server_url)?;
        let http = reqwest::Client::builder()
            .timeout(options.timeout)
            // metadata, registration and token endpoints answer in place; a redirect is an
            // error status (no body or credentials carried elsewhere)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| OAuthError::Http {
                url: server_url.to_owned(),
                reason: "the HTTP client could not be built".to_owned(),
                source: Some(crate::error::HttpFailure::new(e)),
            })?;
        Ok(Self {
            inner: Arc::new(Inner {
                server,
                key: server_url.to_owned(),
                options,
                http,
                flow: tokio::sync::Mutex::new(()),
                state: Mutex::default(),
            }),
        })
    }

    /// Runs discovery and obtains a token now, without waiting for the server to refuse a
    /// request (the protected resource metadata comes from the well-known paths).
    ///
    /// # Errors
    ///
    /// Why no token could be obtained.
    pub async fn authorize(&self) -> Result<(), OAuthError> {
        let _flow = self.inner.flow.lock().await;
        let outcome = self
            .inner
            .obtain(&AuthChallenge::default(), false, None)
            .await;
        self.inner.record(outcome)
    }

    /// The tokens currently held, if any.
    pub fn tokens(&self) -> Option<StoredTokens> {
        self.inner.state().tokens.clone()
    }

    /// Why the last flow failed, if it did (cleared by the next success).
    pub fn last_error(&self) -> Option<OAuthError> {
        self.inner.state().last_error.clone()
    }

    /// Forgets the tokens (here and in the store); the next request is unauthenticated.
    ///
    /// # Errors
    ///
    /// [`OAuthError::Store`] if the store fails.
    pub async fn sign_out(&self) -> Result<(), OAuthError> {
        let _flow = self.inner.flow.lock().await;
        self.inner.set_tokens(None).await
    }
}

impl Inner {
    pub(crate) fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Keeps a flow's error for [`OAuthClient::last_error`].
    pub(crate) fn record(&self, outcome: Result<(), OAuthError>) -> Result<(), OAuthError> {
        self.state().last_error = outcome.as_ref().err().cloned();
        outcome
    }

    /// The tokens, read from the store the first time.
    pub(crate) async fn tokens(&self) -> Result<Option<StoredTokens>, OAuthError> {
        {
            let state = self.state();
            if state.loaded {
                return Ok(state.tokens.clone());
            }
        }
        self.reload().await
    }

    /// The tokens as the store holds them now (another process may have changed them), kept
    /// here too, with the DPoP key they are bound to.
    pub(crate) async fn reload(&self) -> Result<Option<StoredTokens>, OAuthError> {
        let stored = self
            .options
            .store
            .load_tokens(&self.key)
            .await
            .map_err(|e| OAuthError::Store(e.to_string()))?;
        let mut state = self.state();
        state.loaded = true;
        // the key DPoP-bound tokens of another run need, unless this run made its own
        if state.dpop_key.is_none()
            && let Some(secret) = stored.as_ref().and_then(|t| t.dpop_key.as_deref())
        {
            state.dpop_key = Es256Key::from_secret(secret).ok();
        }
        state.tokens.clone_from(&stored);
        Ok(stored)
    }

    /// Replaces the tokens, here and in the store.
    pub(crate) async fn set_tokens(&self, tokens: Option<StoredTokens>) -> Result<(), OAuthError> {
        {
            let mut state = self.state();
            state.loaded = true;
            state.tokens = tokens.clone();
        }
        self.options
            .store
            .save_tokens(&self.key, tokens)
            .await
            .map_err(|e| OAuthError::Store(e.to_string()))
    }

    /// The DPoP key, made on first use.
    pub(crate) fn dpop_key(&self) -> Result<Es256Key, OAuthError> {
        let mut state = self.state();
        if let Some(key) = &state.dpop_key {
            return Ok(key.clone());
        }
        let key = Es256Key::generate()?;
        state.dpop_key = Some(key.clone());
        Ok(key)
    }

    /// The credential for one request, refreshing a token about to expire.
    async fn credential(&self, request: AuthRequest<'_>) -> Result<Option<Credential>, OAuthError> {
        let Some(mut tokens) = self.tokens().await? else {
            return Ok(None);
        };
        if tokens.refresh_token.is_some()
            && tokens.expires_within(SystemTime::now(), REFRESH_MARGIN)
        {
            let _flow = self.flow.lock().await;
            // another request, or another process sharing the store, may have refreshed
            // meanwhile: the store says
            match self.reload().await? {
                Some(current) if current.access_token != tokens.access_token => tokens = current,
                None => return Ok(None),
                Some(_) => match self.refresh(&tokens).await {
                    Ok(()) => {
                        let Some(current) = self.tokens().await? else {
                            return Ok(None);
                        };
                        tokens = current;
                    }
                    // the grant is gone: forget the tokens, unless the store has others by now
                    Err(OAuthError::TokenRefused { error, .. }) if error == "invalid_grant" => {
                        if self
                            .reload()
                            .await?
                            .is_some_and(|now| now.access_token == tokens.access_token)
                        {
                            self.set_tokens(None).await?;
                        }
                        return Ok(None);
                    }
                    // anything else (the server unreachable, say) keeps them for the next try
                    Err(error) => return Err(error),
                },
            }
        }
        if !tokens.is_dpop() {
            return Ok(Some(Credential::Bearer(tokens.access_token)));
        }
        let key = self.state().dpop_key.clone();
        let Some(key) = key else {
            // a DPoP-bound token whose key is gone (stored by an earlier run): unusable
            return Ok(None);
        };
        let nonce = self.state().resource_nonce.clone();
        let proof = dpop_proof(
            &key,
            request.method(),
            request.url(),
            Some(&tokens.access_token),
            nonce.as_deref(),
            SystemTime::now(),
        )?;
        Ok(Some(Credential::Dpop {
            token: tokens.access_token,
            proof,
        }))
    }

    /// The server refused a request: whether to send it again (see [`OAuthClient`]).
    async fn refused(&self, refusal: Refusal<'_>) -> Result<bool, OAuthError> {
        if let Some(nonce) = refusal.dpop_nonce() {
            self.state().resource_nonce = Some(nonce.to_owned());
        }
        let limit = self.options.retry_limit;
        if refusal.attempt() >= limit {
            return Err(OAuthError::RetryLimit { limit });
        }
        let challenge = AuthChallenge::read(refusal.challenge());
        let sent = refusal.sent().map(Credential::token);
        match refusal.status() {
            401 if challenge.error.as_deref() == Some("use_dpop_nonce") => {
                Ok(refusal.dpop_nonce().is_some())
            }
            401 => {
                let _flow = self.flow.lock().await;
                let current = self.tokens().await?;
                if let Some(current) = &current
                    && Some(current.access_token.as_str()) != sent
                {
                    // another request's flow obtained a token meanwhile
                    return Ok(true);
                }
                let outcome = self.obtain(&challenge, false, current.as_ref()).await;
                self.record(outcome).map(|()| true)
            }
            403 if challenge.error.as_deref() == Some("insufficient_scope") => {
                let _flow = self.flow.lock().await;
                let current = self.tokens().await?;
                let needed = challenge.scope.as_deref().unwrap_or_default();
                if let Some(current) = &current
                    && Some(current.access_token.as_str()) != sent
                    && covers(&current.scopes, needed)
                {
                    return Ok(true);
                }
                let outcome = self.obtain(&challenge, true, current.as_ref()).await;
                self.record(outcome).map(|()| true)
            }
            _ => Ok(false),
        }
    }
}

impl TokenProvider for OAuthClient {
    fn token(&self) -> BoxFuture<'_, Result<Option<String>, TokenError>> {
        Box::pin(async move {
            let tokens = self.inner.tokens().await?;
            Ok(tokens.map(|t| t.access_token))
        })
    }

    fn credential<'a>(
        &'a self,
        request: AuthRequest<'a>,
    ) -> BoxFuture<'a, Result<Option<Credential>, TokenError>> {
        Box::pin(async move { Ok(self.inner.credential(request).await?) })
    }

    fn refused<'a>(&'a self, refusal: Refusal<'a>) -> BoxFuture<'a, Result<bool, TokenError>> {
        Box::pin(async move { Ok(self.inner.refused(refusal).await?) })
    }
}
