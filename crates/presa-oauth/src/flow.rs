//! Obtaining tokens: discovery, then the configured grant (authorization code, client
//! credentials, JWT bearer, enterprise identity assertion), or a refresh.

use std::time::SystemTime;

use crate::authorization::{AuthorizationParams, Pending, authorization_url, read_response};
use crate::challenge::AuthChallenge;
use crate::client::Inner;
use crate::discovery::{Discovered, ServerMetadata, discover, resource_of, server_metadata};
use crate::error::OAuthError;
use crate::http::parse_url;
use crate::jwt::Es256Key;
use crate::options::{Grant, IdentityAssertion};
use crate::registration::{Source, identity};
use crate::scope::{ScopeInputs, select};
use crate::storage::StoredTokens;
use crate::tokens::{self, ClientAuth, DpopContext, TokenResponse};

const JWT_BEARER: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";
const TOKEN_EXCHANGE: &str = "urn:ietf:params:oauth:grant-type:token-exchange";
const ID_JAG: &str = "urn:ietf:params:oauth:token-type:id-jag";
const ID_TOKEN: &str = "urn:ietf:params:oauth:token-type:id_token";

impl Inner {
    /// Discovery, then a token: a refresh when the rejected token (`current`) came from the
    /// same authorization server and can be refreshed, else the configured grant. `step_up`:
    /// the server wants more scopes than the token has.
    pub(crate) async fn obtain(
        &self,
        challenge: &AuthChallenge,
        step_up: bool,
        current: Option<&StoredTokens>,
    ) -> Result<(), OAuthError> {
        let discovered = discover(
            &self.http,
            &self.server,
            challenge.resource_metadata.as_deref(),
        )
        .await?;
        self.state().discovered = Some(discovered.clone());
        let server = &discovered.server;
        if !step_up
            && let Some(tokens) = current
            && tokens.issuer == server.issuer
            && tokens.refresh_token.is_some()
            && self.refresh_with(&discovered, tokens).await.is_ok()
        {
            return Ok(());
        }
        let interactive = matches!(self.options.grant, Grant::AuthorizationCode);
        let previous = self.state().requested.clone();
        let scopes = select(ScopeInputs {
            configured: self.options.scopes.as_deref(),
            challenged: challenge.scope.as_deref(),
            resource_supported: discovered.resource_scopes.as_deref(),
            previous: &previous,
            offline_access: interactive
                && self.options.offline_access
                && server.offers_offline_access(),
        });
        let scope = (!scopes.is_empty()).then(|| scopes.join(" "));
        let dpop = self.options.dpop && challenge.dpop_offered && server.allows_dpop_es256();
        let resource = discovered.resource.as_str();
        let issued = match &self.options.grant {
            Grant::AuthorizationCode => {
                self.authorization_code(server, resource, scope, dpop)
                    .await?
            }
            Grant::ClientCredentials => {
                let auth = self.identity(server, false).await?.ok_or_else(|| {
                    OAuthError::MissingCredentials(format!(
                        "the client credentials grant needs credentials for {}",
                        server.issuer
                    ))
                })?;
                let mut form = vec![
                    ("grant_type", "client_credentials".to_owned()),
                    ("resource", resource.to_owned()),
                ];
                form.extend(scope.map(|s| ("scope", s)));
                self.token_request(server, form, Some(&auth), dpop).await?
            }
            Grant::JwtBearer(source) => {
                let assertion = source
                    .assertion()
                    .await
                    .map_err(|e| OAuthError::Assertion(e.to_string()))?;
                let auth = self.identity(server, false).await?;
                let mut form = vec![
                    ("grant_type", JWT_BEARER.to_owned()),
                    ("assertion", assertion),
                    ("resource", resource.to_owned()),
                ];
                form.extend(scope.map(|s| ("scope", s)));
                self.token_request(server, form, auth.as_ref(), dpop)
                    .await?
            }
            Grant::IdentityAssertion(grant) => {
                self.identity_assertion(grant, server, resource, scope, dpop)
                    .await?
            }
        };
        let mut requested = scopes.clone();
        requested.retain(|s| s != "offline_access");
        self.state().requested = requested;
        self.save(&server.issuer, issued, &scopes, None).await
    }

    /// Refreshes `tokens` (a token about to expire): the authorization server is the one
    /// discovery last found, else rediscovered.
    pub(crate) async fn refresh(&self, tokens: &StoredTokens) -> Result<(), OAuthError> {
        let known = self.state().discovered.clone();
        let discovered = match known {
            Some(discovered) if discovered.server.issuer == tokens.issuer => discovered,
            _ => match discover(&self.http, &self.server, None).await {
                Ok(discovered) if discovered.server.issuer == tokens.issuer => discovered,
                _ => Discovered {
                    resource: resource_of(&self.server),
                    resource_scopes: None,
                    server: server_metadata(&self.http, &tokens.issuer, &self.server).await?,
                },
            },
        };
        self.refresh_with(&discovered, tokens).await
    }

    async fn refresh_with(
        &self,
        discovered: &Discovered,
        tokens: &StoredTokens,
    ) -> Result<(), OAuthError> {
        let Some(refresh_token) = tokens.refresh_token.clone() else {
            return Err(OAuthError::MissingCredentials(
                "no refresh token".to_owned(),
            ));
        };
        let server = &discovered.server;
        let auth = self.identity(server, false).await?;
        let form = vec![
            ("grant_type", "refresh_token".to_owned()),
            ("refresh_token", refresh_token.clone()),
            ("resource", discovered.resource.clone()),
        ];
        let issued = self
            .token_request(server, form, auth.as_ref(), tokens.is_dpop())
            .await?;
        self.save(&server.issuer, issued, &tokens.scopes, Some(refresh_token))
            .await
    }

    /// The authorization code grant: the user approves through the handler; the response's
    /// `iss` and `state` are checked before the code is redeemed with the PKCE verifier.
    async fn authorization_code(
        &self,
        server: &ServerMetadata,
        resource: &str,
        scope: Option<String>,
        dpop: bool,
    ) -> Result<TokenResponse, OAuthError> {
        if !server.supports_s256() {
            return Err(OAuthError::PkceUnsupported {
                issuer: server.issuer.clone(),
            });
        }
        let handler = self
            .options
            .handler
            .clone()
            .ok_or(OAuthError::NoAuthorizationHandler)?;
        let endpoint = server
            .authorization_endpoint
            .as_deref()
            .ok_or_else(|| OAuthError::InvalidResponse {
                what: "authorization server metadata".to_owned(),
                reason: "it has no authorization_endpoint".to_owned(),
            })
            .and_then(parse_url)?;
        let auth =
            self.identity(server, true)
                .await?
                .ok_or_else(|| OAuthError::NoClientRegistration {
                    issuer: server.issuer.clone(),
                })?;
        let pending = Pending::new(
            &server.issuer,
            server.authorization_response_iss_parameter_supported,
        )?;
        let params = AuthorizationParams {
            client_id: &auth.client_id,
            redirect_uri: &self.options.redirect_uri,
            scope: scope.as_deref(),
            resource,
        };
        let url = authorization_url(&endpoint, params, &pending);
        let redirect = handler
            .authorize(url.as_str())
            .await
            .map_err(|e| OAuthError::Handler(e.to_string()))?;
        let code = read_response(&redirect, &pending)?;
        let form = vec![
            ("grant_type", "authorization_code".to_owned()),
            ("code", code),
            ("redirect_uri", self.options.redirect_uri.clone()),
            ("code_verifier", pending.verifier),
            ("resource", resource.to_owned()),
        ];
        self.token_request(server, form, Some(&auth), dpop).await
    }

    /// Enterprise-managed authorization (SEP-990): the ID token is exchanged at the identity
    /// provider for an ID-JAG, which the authorization server takes as a JWT bearer grant.
    async fn identity_assertion(
        &self,
        grant: &IdentityAssertion,
        server: &ServerMetadata,
        resource: &str,
        scope: Option<String>,
        dpop: bool,
    ) -> Result<TokenResponse, OAuthError> {
        let id_token = grant
            .id_token
            .assertion()
            .await
            .map_err(|e| OAuthError::Assertion(e.to_string()))?;
        let mut form = vec![
            ("grant_type", TOKEN_EXCHANGE.to_owned()),
            ("requested_token_type", ID_JAG.to_owned()),
            ("audience", server.issuer.clone()),
            ("resource", resource.to_owned()),
            ("subject_token", id_token),
            ("subject_token_type", ID_TOKEN.to_owned()),
            ("client_id", grant.idp_client_id.clone()),
        ];
        form.extend(
            grant
                .idp_client_secret
                .clone()
                .map(|s| ("client_secret", s)),
        );
        form.extend(scope.clone().map(|s| ("scope", s)));
        let endpoint = parse_url(&grant.idp_token_endpoint)?;
        let jag = tokens::request(&self.http, &endpoint, form, None, "", None)
            .await?
            .tokens
            .access_token;
        let auth = self.identity(server, false).await?.ok_or_else(|| {
            OAuthError::MissingCredentials(format!(
                "the identity assertion grant needs credentials for {}",
                server.issuer
            ))
        })?;
        let mut form = vec![
            ("grant_type", JWT_BEARER.to_owned()),
            ("assertion", jag),
            ("resource", resource.to_owned()),
        ];
        form.extend(scope.map(|s| ("scope", s)));
        self.token_request(server, form, Some(&auth), dpop).await
    }

    /// The client's identity at `server`; issuer-less pre-registered credentials get bound
    /// to it.
    async fn identity(
        &self,
        server: &ServerMetadata,
        interactive: bool,
    ) -> Result<Option<ClientAuth>, OAuthError> {
        let bound = self.state().bound.clone();
        let found = identity(
            &self.http,
            server,
            &self.options,
            |c| bound.get(&c.client_id).cloned(),
            interactive,
        )
        .await?;
        let Some((auth, source)) = found else {
            return Ok(None);
        };
        if source == Source::PreRegistered {
            self.state()
                .bound
                .entry(auth.client_id.clone())
                .or_insert_with(|| server.issuer.clone());
        }
        Ok(Some(auth))
    }

    /// A token request at `server`'s token endpoint, with a DPoP proof when `dpop` (and the
    /// server's last nonce).
    async fn token_request(
        &self,
        server: &ServerMetadata,
        form: Vec<(&'static str, String)>,
        auth: Option<&ClientAuth>,
        dpop: bool,
    ) -> Result<TokenResponse, OAuthError> {
        let endpoint = server.token_endpoint()?;
        let key = if dpop { Some(self.dpop_key()?) } else { None };
        let context = key.as_ref().map(|key| DpopContext {
            key,
            nonce: self.state().server_nonces.get(&server.issuer).cloned(),
        });
        let issued =
            tokens::request(&self.http, &endpoint, form, auth, &server.issuer, context).await?;
        if let Some(nonce) = issued.dpop_nonce {
            self.state()
                .server_nonces
                .insert(server.issuer.clone(), nonce);
        }
        Ok(issued.tokens)
    }

    /// Keeps the issued tokens: the scopes granted (else `requested`), the refresh token
    /// (else `old_refresh`), the expiry.
    async fn save(
        &self,
        issuer: &str,
        issued: TokenResponse,
        requested: &[String],
        old_refresh: Option<String>,
    ) -> Result<(), OAuthError> {
        let now = SystemTime::now();
        let scopes = match &issued.scope {
            Some(scope) => scope.split_ascii_whitespace().map(str::to_owned).collect(),
            None => requested.to_vec(),
        };
        let expires_at = issued.expires_at(now);
        // the key the request's DPoP proof used: the tokens may be bound to it
        let dpop_key = self.state().dpop_key.as_ref().map(Es256Key::secret);
        let tokens = StoredTokens::new(issuer, issued.access_token)
            .with_token_type(issued.token_type)
            .with_refresh_token(issued.refresh_token.or(old_refresh))
            .with_expires_at(expires_at)
            .with_scopes(scopes)
            .with_dpop_key(dpop_key);
        self.set_tokens(Some(tokens)).await
    }
}
