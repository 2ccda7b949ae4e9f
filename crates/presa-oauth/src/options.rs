//! What an [`OAuthClient`](crate::OAuthClient) is configured with: [`OAuthOptions`], the
//! client's identity ([`ClientCredentials`]) and the grant it uses ([`Grant`]).

use std::fmt;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use presa_client::BoxFuture;

use crate::authorization::AuthorizationHandler;
use crate::storage::{MemoryTokenStore, TokenStore};
use presa_http::TokenError;

/// How the client authenticates at the token endpoint (RFC 6749 §2.3, OpenID Connect Core
/// §9).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum TokenEndpointAuth {
    /// `client_secret_basic`: `Authorization: Basic base64(id:secret)`.
    ClientSecretBasic,
    /// `client_secret_post`: `client_id` and `client_secret` in the form.
    ClientSecretPost,
    /// `none`: a public client; only `client_id` in the form.
    None,
    /// `private_key_jwt`: a client assertion signed with the client's ES256 key.
    PrivateKeyJwt,
}

impl TokenEndpointAuth {
    /// The method's registered name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::ClientSecretBasic => "client_secret_basic",
            Self::ClientSecretPost => "client_secret_post",
            Self::None => "none",
            Self::PrivateKeyJwt => "private_key_jwt",
        }
    }

    /// The method with this registered name, if presa knows it.
    pub fn from_name(name: &str) -> Option<Self> {
        [
            Self::ClientSecretBasic,
            Self::ClientSecretPost,
            Self::None,
            Self::PrivateKeyJwt,
        ]
        .into_iter()
        .find(|m| m.as_str() == name)
    }
}

/// Client credentials registered with an authorization server beforehand.
///
/// They are bound to one authorization server: set its [`issuer`](Self::issuer) and they are
/// used there only. Without one they bind to the first authorization server they are used
/// with, and are never presented to another.
///
/// ```
/// use presa_oauth::{ClientCredentials, TokenEndpointAuth};
///
/// let credentials = ClientCredentials::new("my-client")
///     .issuer("https://auth.example.com")
///     .client_secret("s3cr3t")
///     .token_endpoint_auth(TokenEndpointAuth::ClientSecretBasic);
/// # drop(credentials);
/// ```
#[derive(Clone)]
pub struct ClientCredentials {
    pub(crate) issuer: Option<String>,
    pub(crate) client_id: String,
    pub(crate) client_secret: Option<String>,
    pub(crate) private_key_pem: Option<String>,
    pub(crate) auth: Option<TokenEndpointAuth>,
}

impl ClientCredentials {
    /// Credentials for `client_id`: a public client until a secret or key is set.
    pub fn new(client_id: impl Into<String>) -> Self {
        Self {
            issuer: None,
            client_id: client_id.into(),
            client_secret: None,
            private_key_pem: None,
            auth: None,
        }
    }

    /// The authorization server (its issuer identifier, compared exactly) that issued them.
    #[must_use]
    pub fn issuer(mut self, issuer: impl Into<String>) -> Self {
        self.issuer = Some(issuer.into());
        self
    }

    /// The client secret.
    #[must_use]
    pub fn client_secret(mut self, secret: impl Into<String>) -> Self {
        self.client_secret = Some(secret.into());
        self
    }

    /// The client's P-256 private key (PKCS#8 or SEC1 PEM), for `private_key_jwt` (ES256).
    #[must_use]
    pub fn private_key_pem(mut self, pem: impl Into<String>) -> Self {
        self.private_key_pem = Some(pem.into());
        self
    }

    /// The token endpoint authentication method to use. Without one it is chosen from what
    /// the server supports and what is configured: `private_key_jwt` with a key,
    /// `client_secret_basic` (else `_post`) with a secret, `none` otherwise.
    #[must_use]
    pub fn token_endpoint_auth(mut self, auth: TokenEndpointAuth) -> Self {
        self.auth = Some(auth);
        self
    }
}

impl fmt::Debug for ClientCredentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientCredentials")
            .field("issuer", &self.issuer)
            .field("client_id", &self.client_id)
            .field("client_secret", &self.client_secret.as_ref().map(|_| ".."))
            .field(
                "private_key_pem",
                &self.private_key_pem.as_ref().map(|_| ".."),
            )
            .field("auth", &self.auth)
            .finish()
    }
}

/// Supplies a signed JWT on demand: a workload identity token, an identity provider's ID
/// token. Strings and closures returning `Result<String, TokenError>` futures are sources.
pub trait AssertionSource: Send + Sync {
    /// The current JWT.
    fn assertion(&self) -> BoxFuture<'_, Result<String, TokenError>>;
}

impl AssertionSource for String {
    fn assertion(&self) -> BoxFuture<'_, Result<String, TokenError>> {
        Box::pin(std::future::ready(Ok(self.clone())))
    }
}

impl<F, Fut> AssertionSource for F
where
    F: Fn() -> Fut + Send + Sync,
    Fut: Future<Output = Result<String, TokenError>> + Send + 'static,
{
    fn assertion(&self) -> BoxFuture<'_, Result<String, TokenError>> {
        Box::pin(self())
    }
}

/// Enterprise-managed authorization (SEP-990): the user's ID token is exchanged at the
/// enterprise identity provider for an identity assertion grant (ID-JAG, RFC 8693 token
/// exchange), which the MCP authorization server takes as a JWT bearer grant (RFC 7523).
#[derive(Clone)]
pub struct IdentityAssertion {
    pub(crate) idp_token_endpoint: String,
    pub(crate) idp_client_id: String,
    pub(crate) idp_client_secret: Option<String>,
    pub(crate) id_token: Arc<dyn AssertionSource>,
}

impl IdentityAssertion {
    /// Exchanges `id_token` at the identity provider's `token_endpoint`, as `client_id` there.
    pub fn new(
        token_endpoint: impl Into<String>,
        client_id: impl Into<String>,
        id_token: impl AssertionSource + 'static,
    ) -> Self {
        Self {
            idp_token_endpoint: token_endpoint.into(),
            idp_client_id: client_id.into(),
            idp_client_secret: None,
            id_token: Arc::new(id_token),
        }
    }

    /// The client secret at the identity provider (sent with `client_secret_post`).
    #[must_use]
    pub fn client_secret(mut self, secret: impl Into<String>) -> Self {
        self.idp_client_secret = Some(secret.into());
        self
    }
}

impl fmt::Debug for IdentityAssertion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("IdentityAssertion")
            .field("idp_token_endpoint", &self.idp_token_endpoint)
            .field("idp_client_id", &self.idp_client_id)
            .finish_non_exhaustive()
    }
}

/// How the client gets its tokens.
#[derive(Clone, Default)]
#[non_exhaustive]
pub enum Grant {
    /// The authorization code grant with PKCE: the user approves in a browser, through the
    /// [`AuthorizationHandler`]. The default.
    #[default]
    AuthorizationCode,
    /// The client credentials grant: the client acts on its own behalf, with the
    /// pre-registered [`ClientCredentials`] (a secret or a key).
    ClientCredentials,
    /// The JWT bearer grant (RFC 7523 §2.1) with a workload identity token (SEP-1933).
    JwtBearer(Arc<dyn AssertionSource>),
    /// Enterprise-managed authorization (SEP-990).
    IdentityAssertion(IdentityAssertion),
}

impl Grant {
    /// The JWT bearer grant with assertions from `source`.
    pub fn jwt_bearer(source: impl AssertionSource + 'static) -> Self {
        Self::JwtBearer(Arc::new(source))
    }
}

impl fmt::Debug for Grant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::AuthorizationCode => f.write_str("AuthorizationCode"),
            Self::ClientCredentials => f.write_str("ClientCredentials"),
            Self::JwtBearer(_) => f.write_str("JwtBearer(..)"),
            Self::IdentityAssertion(grant) => {
                f.debug_tuple("IdentityAssertion").field(grant).finish()
            }
        }
    }
}

/// The `application_type` sent in dynamic client registration (OpenID Connect Dynamic
/// Client Registration §2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum ApplicationType {
    /// Desktop, mobile, command-line and localhost web apps. The default.
    #[default]
    Native,
    /// Apps running in a browser, served remotely.
    Web,
}

impl ApplicationType {
    /// The registered name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Native => "native",
            Self::Web => "web",
        }
    }
}

/// Tunables of an [`OAuthClient`](crate::OAuthClient).
///
/// | Option | Default | Meaning |
/// |---|---|---|
/// | [`client_name`](Self::client_name) | `presa` | the name registered and shown to the user |
/// | [`redirect_uri`](Self::redirect_uri) | `http://localhost:8765/callback` | where the authorization server sends the user back |
/// | [`client_metadata_url`](Self::client_metadata_url) | none | the client ID metadata document URL, used as `client_id` where supported |
/// | [`credentials`](Self::credentials) | none | pre-registered client credentials |
/// | [`application_type`](Self::application_type) | native | `application_type` in dynamic registration |
/// | [`grant`](Self::grant) | authorization code | how tokens are obtained |
/// | [`scopes`](Self::scopes) | discovered | the scopes requested |
/// | [`offline_access`](Self::offline_access) | on | ask for `offline_access` where the server lists it |
/// | [`retry_limit`](Self::retry_limit) | 3 | how often one request may be sent again after a 401/403 |
/// | [`dpop`](Self::dpop) | on | DPoP-bound tokens when the server challenges with `DPoP` |
/// | [`authorization_handler`](Self::authorization_handler) | none | shows the user the authorization page |
/// | [`token_store`](Self::token_store) | in memory | where tokens and registrations are kept |
/// | [`timeout`](Self::timeout) | 30 s | each exchange with a metadata, registration or token endpoint |
#[derive(Clone)]
pub struct OAuthOptions {
    pub(crate) client_name: String,
    pub(crate) redirect_uri: String,
    pub(crate) client_metadata_url: Option<String>,
    pub(crate) credentials: Vec<ClientCredentials>,
    pub(crate) application_type: ApplicationType,
    pub(crate) grant: Grant,
    pub(crate) scopes: Option<Vec<String>>,
    pub(crate) offline_access: bool,
    pub(crate) retry_limit: u32,
    pub(crate) dpop: bool,
    pub(crate) handler: Option<Arc<dyn AuthorizationHandler>>,
    pub(crate) store: Arc<dyn TokenStore>,
    pub(crate) timeout: Duration,
}

impl Default for OAuthOptions {
    fn default() -> Self {
        Self {
            client_name: "presa".to_owned(),
            redirect_uri: "http://localhost:8765/callback".to_owned(),
            client_metadata_url: None,
            credentials: Vec::new(),
            application_type: ApplicationType::Native,
            grant: Grant::AuthorizationCode,
            scopes: None,
            offline_access: true,
            retry_limit: 3,
            dpop: true,
            handler: None,
            store: Arc::new(MemoryTokenStore::new()),
            timeout: Duration::from_secs(30),
        }
    }
}

impl fmt::Debug for OAuthOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OAuthOptions")
            .field("client_name", &self.client_name)
            .field("redirect_uri", &self.redirect_uri)
            .field("client_metadata_url", &self.client_metadata_url)
            .field("credentials", &self.credentials)
            .field("application_type", &self.application_type)
            .field("grant", &self.grant)
            .field("scopes", &self.scopes)
            .field("offline_access", &self.offline_access)
            .field("retry_limit", &self.retry_limit)
            .field("dpop", &self.dpop)
            .field(
                "authorization_handler",
                &self.handler.as_ref().map(|_| ".."),
            )
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

impl OAuthOptions {
    /// The client's name, sent in dynamic registration (`client_name`).
    #[must_use]
    pub fn client_name(mut self, name: impl Into<String>) -> Self {
        self.client_name = name.into();
        self
    }

    /// The redirect URI: where the authorization server sends the user back with the code.
    /// Must be `localhost` (or a loopback address) or HTTPS, and be where the
    /// [`AuthorizationHandler`] listens.
    #[must_use]
    pub fn redirect_uri(mut self, uri: impl Into<String>) -> Self {
        self.redirect_uri = uri.into();
        self
    }

    /// The HTTPS URL of the client's ID metadata document: used as the `client_id` at
    /// authorization servers that advertise `client_id_metadata_document_supported`. The
    /// document itself must be served there, naming this URL as its `client_id`.
    #[must_use]
    pub fn client_metadata_url(mut self, url: impl Into<String>) -> Self {
        self.client_metadata_url = Some(url.into());
        self
    }

    /// Adds pre-registered client credentials; they take precedence over client ID metadata
    /// documents and dynamic registration at their authorization server.
    #[must_use]
    pub fn credentials(mut self, credentials: ClientCredentials) -> Self {
        self.credentials.push(credentials);
        self
    }

    /// The `application_type` sent in dynamic client registration (default native).
    #[must_use]
    pub fn application_type(mut self, application_type: ApplicationType) -> Self {
        self.application_type = application_type;
        self
    }

    /// How tokens are obtained (default: the authorization code grant).
    #[must_use]
    pub fn grant(mut self, grant: Grant) -> Self {
        self.grant = grant;
        self
    }

    /// Requests these scopes instead of the discovered ones (the challenge's `scope`, else the
    /// resource's `scopes_supported`, else none). Step-up still adds the challenged scopes.
    #[must_use]
    pub fn scopes<I, S>(mut self, scopes: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.scopes = Some(scopes.into_iter().map(Into::into).collect());
        self
    }

    /// Whether to ask for `offline_access` (refresh tokens) when the authorization server
    /// lists it in `scopes_supported` (default on; never asked otherwise).
    #[must_use]
    pub fn offline_access(mut self, on: bool) -> Self {
        self.offline_access = on;
        self
    }

    /// How many times one request may be sent again after a `401` or `403`, whatever the
    /// reason (authorizing, stepping up scopes, a DPoP nonce); default 3. Past it the request
    /// fails with [`OAuthError::RetryLimit`](crate::OAuthError::RetryLimit).
    #[must_use]
    pub fn retry_limit(mut self, limit: u32) -> Self {
        self.retry_limit = limit;
        self
    }

    /// Whether to obtain DPoP-bound tokens (RFC 9449, ES256) when the server challenges with
    /// the `DPoP` scheme (default on).
    #[must_use]
    pub fn dpop(mut self, on: bool) -> Self {
        self.dpop = on;
        self
    }

    /// What shows the user the authorization page and returns where they were sent back;
    /// required for the authorization code grant.
    #[must_use]
    pub fn authorization_handler(mut self, handler: impl AuthorizationHandler + 'static) -> Self {
        self.handler = Some(Arc::new(handler));
        self
    }

    /// Where tokens and client registrations are kept (default: in memory).
    #[must_use]
    pub fn token_store(mut self, store: impl TokenStore + 'static) -> Self {
        self.store = Arc::new(store);
        self
    }

    /// How long each exchange with a metadata, registration or token endpoint may take
    /// (default 30 s).
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }
}
