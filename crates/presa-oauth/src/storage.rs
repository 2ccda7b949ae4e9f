//! Where tokens and client registrations live: [`TokenStore`], [`MemoryTokenStore`].

use std::collections::HashMap;
use std::fmt;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use presa_client::BoxFuture;
use serde::{Deserialize, Serialize};

use presa_http::TokenError;

/// The tokens obtained for one MCP server, as a [`TokenStore`] keeps them.
///
/// Serializable, so that a store can keep them in a file or a keychain. The access token is
/// bound to the authorization server that issued it (`issuer`): when the server's protected
/// resource metadata names another one, the tokens are not used there.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct StoredTokens {
    /// The authorization server that issued the tokens.
    pub issuer: String,
    /// The access token.
    pub access_token: String,
    /// `Bearer` or `DPoP`.
    pub token_type: String,
    /// The refresh token, if one was issued.
    pub refresh_token: Option<String>,
    /// When the access token expires, in seconds since the Unix epoch.
    pub expires_at: Option<u64>,
    /// The scopes granted (or, when the server did not say, requested).
    pub scopes: Vec<String>,
    /// The private key of the DPoP proofs the tokens were obtained with (base64url of the P-256
    /// scalar): a DPoP-bound access or refresh token is usable only with it. A secret.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dpop_key: Option<String>,
}

impl StoredTokens {
    /// Tokens issued by `issuer`; the rest is set with the `with_*` methods.
    pub fn new(issuer: impl Into<String>, access_token: impl Into<String>) -> Self {
        Self {
            issuer: issuer.into(),
            access_token: access_token.into(),
            token_type: "Bearer".to_owned(),
            refresh_token: None,
            expires_at: None,
            scopes: Vec::new(),
            dpop_key: None,
        }
    }

    /// With a token type (`Bearer`, `DPoP`).
    #[must_use]
    pub fn with_token_type(mut self, token_type: impl Into<String>) -> Self {
        self.token_type = token_type.into();
        self
    }

    /// With a refresh token.
    #[must_use]
    pub fn with_refresh_token(mut self, refresh_token: Option<String>) -> Self {
        self.refresh_token = refresh_token;
        self
    }

    /// Expiring at this time (seconds since the Unix epoch).
    #[must_use]
    pub fn with_expires_at(mut self, expires_at: Option<u64>) -> Self {
        self.expires_at = expires_at;
        self
    }

    /// With these scopes.
    #[must_use]
    pub fn with_scopes(mut self, scopes: Vec<String>) -> Self {
        self.scopes = scopes;
        self
    }

    /// With the DPoP key the tokens are bound to (see [`dpop_key`](Self::dpop_key)).
    #[must_use]
    pub fn with_dpop_key(mut self, dpop_key: Option<String>) -> Self {
        self.dpop_key = dpop_key;
        self
    }

    /// The access token is DPoP-bound.
    pub fn is_dpop(&self) -> bool {
        self.token_type.eq_ignore_ascii_case("dpop")
    }

    /// The access token expires within `margin` of `now` (or has expired).
    pub fn expires_within(&self, now: SystemTime, margin: Duration) -> bool {
        let Some(expires_at) = self.expires_at else {
            return false;
        };
        let now = now.duration_since(UNIX_EPOCH).unwrap_or_default();
        (now + margin).as_secs() >= expires_at
    }
}

impl fmt::Debug for StoredTokens {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // tokens are secrets
        f.debug_struct("StoredTokens")
            .field("issuer", &self.issuer)
            .field("token_type", &self.token_type)
            .field("refresh_token", &self.refresh_token.as_ref().map(|_| ".."))
            .field("expires_at", &self.expires_at)
            .field("scopes", &self.scopes)
            .field("dpop_key", &self.dpop_key.as_ref().map(|_| ".."))
            .finish_non_exhaustive()
    }
}

/// A client registration at one authorization server (pre-registered, from a client ID
/// metadata document, or dynamically registered), as a [`TokenStore`] keeps it.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct StoredClient {
    /// The authorization server's issuer: the registration is valid there and nowhere else.
    pub issuer: String,
    /// The client id.
    pub client_id: String,
    /// The client secret, for confidential clients.
    pub client_secret: Option<String>,
    /// The token endpoint authentication method registered (`client_secret_basic`,
    /// `client_secret_post`, `none`, `private_key_jwt`), if known.
    pub token_endpoint_auth_method: Option<String>,
}

impl StoredClient {
    /// A registration of `client_id` at `issuer`.
    pub fn new(issuer: impl Into<String>, client_id: impl Into<String>) -> Self {
        Self {
            issuer: issuer.into(),
            client_id: client_id.into(),
            client_secret: None,
            token_endpoint_auth_method: None,
        }
    }

    /// With a client secret.
    #[must_use]
    pub fn with_client_secret(mut self, secret: Option<String>) -> Self {
        self.client_secret = secret;
        self
    }

    /// With a token endpoint authentication method.
    #[must_use]
    pub fn with_token_endpoint_auth_method(mut self, method: Option<String>) -> Self {
        self.token_endpoint_auth_method = method;
        self
    }
}

impl fmt::Debug for StoredClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StoredClient")
            .field("issuer", &self.issuer)
            .field("client_id", &self.client_id)
            .field("client_secret", &self.client_secret.as_ref().map(|_| ".."))
            .field(
                "token_endpoint_auth_method",
                &self.token_endpoint_auth_method,
            )
            .finish()
    }
}

/// Keeps an [`OAuthClient`](crate::OAuthClient)'s tokens, per MCP server URL, and its client
/// registrations, per authorization server issuer.
///
/// Implement it to keep them across runs (a file, the OS keychain); tokens and client secrets
/// are secrets and must be stored securely. `save_*` with `None` deletes the entry. The
/// default, [`MemoryTokenStore`], forgets everything when dropped.
pub trait TokenStore: Send + Sync {
    /// The tokens for the MCP server at `resource`.
    fn load_tokens<'a>(
        &'a self,
        resource: &'a str,
    ) -> BoxFuture<'a, Result<Option<StoredTokens>, TokenError>>;

    /// Replaces (or with `None` deletes) the tokens for `resource`.
    fn save_tokens<'a>(
        &'a self,
        resource: &'a str,
        tokens: Option<StoredTokens>,
    ) -> BoxFuture<'a, Result<(), TokenError>>;

    /// The client registration at the authorization server `issuer`.
    fn load_client<'a>(
        &'a self,
        issuer: &'a str,
    ) -> BoxFuture<'a, Result<Option<StoredClient>, TokenError>>;

    /// Replaces (or with `None` deletes) the client registration at `issuer`.
    fn save_client<'a>(
        &'a self,
        issuer: &'a str,
        client: Option<StoredClient>,
    ) -> BoxFuture<'a, Result<(), TokenError>>;
}

impl<T: TokenStore + ?Sized> TokenStore for std::sync::Arc<T> {
    fn load_tokens<'a>(
        &'a self,
        resource: &'a str,
    ) -> BoxFuture<'a, Result<Option<StoredTokens>, TokenError>> {
        (**self).load_tokens(resource)
    }

    fn save_tokens<'a>(
        &'a self,
        resource: &'a str,
        tokens: Option<StoredTokens>,
    ) -> BoxFuture<'a, Result<(), TokenError>> {
        (**self).save_tokens(resource, tokens)
    }

    fn load_client<'a>(
        &'a self,
        issuer: &'a str,
    ) -> BoxFuture<'a, Result<Option<StoredClient>, TokenError>> {
        (**self).load_client(issuer)
    }

    fn save_client<'a>(
        &'a self,
        issuer: &'a str,
        client: Option<StoredClient>,
    ) -> BoxFuture<'a, Result<(), TokenError>> {
        (**self).save_client(issuer, client)
    }
}

/// A [`TokenStore`] in memory: the default.
#[derive(Default)]
pub struct MemoryTokenStore {
    tokens: Mutex<HashMap<String, StoredTokens>>,
    clients: Mutex<HashMap<String, StoredClient>>,
}

impl MemoryTokenStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }
}

impl fmt::Debug for MemoryTokenStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("MemoryTokenStore(..)")
    }
}

fn put<V>(map: &Mutex<HashMap<String, V>>, key: &str, value: Option<V>) {
    let mut map = map.lock().unwrap_or_else(PoisonError::into_inner);
    match value {
        Some(value) => {
            map.insert(key.to_owned(), value);
        }
        None => {
            map.remove(key);
        }
    }
}

fn get<V: Clone>(map: &Mutex<HashMap<String, V>>, key: &str) -> Option<V> {
    map.lock()
        .unwrap_or_else(PoisonError::into_inner)
        .get(key)
        .cloned()
}

impl TokenStore for MemoryTokenStore {
    fn load_tokens<'a>(
        &'a self,
        resource: &'a str,
    ) -> BoxFuture<'a, Result<Option<StoredTokens>, TokenError>> {
        Box::pin(std::future::ready(Ok(get(&self.tokens, resource))))
    }

    fn save_tokens<'a>(
        &'a self,
        resource: &'a str,
        tokens: Option<StoredTokens>,
    ) -> BoxFuture<'a, Result<(), TokenError>> {
        put(&self.tokens, resource, tokens);
        Box::pin(std::future::ready(Ok(())))
    }

    fn load_client<'a>(
        &'a self,
        issuer: &'a str,
    ) -> BoxFuture<'a, Result<Option<StoredClient>, TokenError>> {
        Box::pin(std::future::ready(Ok(get(&self.clients, issuer))))
    }

    fn save_client<'a>(
        &'a self,
        issuer: &'a str,
        client: Option<StoredClient>,
    ) -> BoxFuture<'a, Result<(), TokenError>> {
        put(&self.clients, issuer, client);
        Box::pin(std::future::ready(Ok(())))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[tokio::test]
    async fn the_memory_store_keys_tokens_by_resource_and_clients_by_issuer() {
        let store = MemoryTokenStore::new();
        let tokens = StoredTokens::new("https://as", "t1").with_scopes(vec!["a".into()]);
        store
            .save_tokens("https://rs/mcp", Some(tokens.clone()))
            .await
            .unwrap();
        assert_eq!(
            store.load_tokens("https://rs/mcp").await.unwrap(),
            Some(tokens)
        );
        assert_eq!(store.load_tokens("https://rs/other").await.unwrap(), None);
        store.save_tokens("https://rs/mcp", None).await.unwrap();
        assert_eq!(store.load_tokens("https://rs/mcp").await.unwrap(), None);

        let client = StoredClient::new("https://as1", "id1");
        store
            .save_client("https://as1", Some(client.clone()))
            .await
            .unwrap();
        assert_eq!(
            store.load_client("https://as1").await.unwrap(),
            Some(client)
        );
        assert_eq!(store.load_client("https://as2").await.unwrap(), None);
    }

    #[test]
    fn expiry_and_debug() {
        let tokens = StoredTokens::new("https://as", "secret-token")
            .with_refresh_token(Some("secret-refresh".into()))
            .with_expires_at(Some(1_000))
            .with_dpop_key(Some("secret-key".into()));
        let at = |s| UNIX_EPOCH + Duration::from_secs(s);
        assert!(!tokens.expires_within(at(900), Duration::from_secs(30)));
        assert!(tokens.expires_within(at(980), Duration::from_secs(30)));
        assert!(tokens.expires_within(at(2_000), Duration::ZERO));
        let debug = format!("{tokens:?}");
        assert!(!debug.contains("secret"), "{debug}");
    }
}
