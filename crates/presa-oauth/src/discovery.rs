//! Discovery: the protected resource metadata (RFC 9728) from the challenge or the well-known
//! paths, then the authorization server metadata (RFC 8414, then OpenID Connect Discovery), in
//! the order the MCP specification gives; the issuer compared as an exact string.

use presa_http::ProtectedResourceMetadata;
use reqwest::Url;
use serde::Deserialize;
use serde_json::Value;

use crate::error::OAuthError;
use crate::http::{self, NamedBy, get_json, origin, parse_url, peer_url};

/// The authorization server metadata (RFC 8414 §2), the fields the client uses.
#[derive(Clone, Debug, Default, Deserialize)]
pub(crate) struct ServerMetadata {
    pub(crate) issuer: String,
    pub(crate) authorization_endpoint: Option<String>,
    pub(crate) token_endpoint: Option<String>,
    pub(crate) registration_endpoint: Option<String>,
    pub(crate) scopes_supported: Option<Vec<String>>,
    pub(crate) code_challenge_methods_supported: Option<Vec<String>>,
    pub(crate) token_endpoint_auth_methods_supported: Option<Vec<String>>,
    #[serde(default)]
    pub(crate) authorization_response_iss_parameter_supported: bool,
    #[serde(default)]
    pub(crate) client_id_metadata_document_supported: bool,
    pub(crate) dpop_signing_alg_values_supported: Option<Vec<String>>,
}

impl ServerMetadata {
    /// PKCE with `S256` is advertised (the MCP client must refuse to go on otherwise).
    pub(crate) fn supports_s256(&self) -> bool {
        self.code_challenge_methods_supported
            .as_ref()
            .is_some_and(|m| m.iter().any(|m| m == "S256"))
    }

    /// DPoP with ES256 is possible: the server lists ES256, or lists no algorithms.
    pub(crate) fn allows_dpop_es256(&self) -> bool {
        self.dpop_signing_alg_values_supported
            .as_ref()
            .is_none_or(|algs| algs.iter().any(|a| a == "ES256"))
    }

    /// The scope `offline_access` is listed.
    pub(crate) fn offers_offline_access(&self) -> bool {
        self.scopes_supported
            .as_ref()
            .is_some_and(|s| s.iter().any(|s| s == "offline_access"))
    }

    /// The token endpoint, parsed.
    pub(crate) fn token_endpoint(&self) -> Result<Url, OAuthError> {
        let endpoint =
            self.token_endpoint
                .as_deref()
                .ok_or_else(|| OAuthError::InvalidResponse {
                    what: "authorization server metadata".to_owned(),
                    reason: "it has no token_endpoint".to_owned(),
                })?;
        parse_url(endpoint)
    }

    /// Every endpoint the metadata names passes [`peer_url`]'s rule for the MCP server at
    /// `server` (the client requests them, and sends credentials to some); else the refusal.
    fn checked(self, server: &Url) -> Result<Self, OAuthError> {
        [
            &self.authorization_endpoint,
            &self.token_endpoint,
            &self.registration_endpoint,
        ]
        .into_iter()
        .flatten()
        .try_for_each(|endpoint| peer_url(endpoint, server, NamedBy::ServerMetadata).map(drop))?;
        Ok(self)
    }
}

/// What discovery found for one MCP server.
#[derive(Clone, Debug)]
pub(crate) struct Discovered {
    /// The value of the `resource` parameter: the metadata's `resource`, verbatim, or the
    /// server URL when the server publishes no metadata.
    pub(crate) resource: String,
    /// The metadata's `scopes_supported`.
    pub(crate) resource_scopes: Option<Vec<String>>,
    /// The authorization server, its issuer checked.
    pub(crate) server: ServerMetadata,
}

/// Runs discovery for the MCP server at `server`: the protected resource metadata at
/// `resource_metadata` (from the challenge) or the well-known paths; its `resource` checked
/// against the server; then its first authorization server's metadata. Without protected
/// resource metadata, the 2025-03-26 rules: the server's origin is the authorization server.
pub(crate) async fn discover(
    http: &reqwest::Client,
    server: &Url,
    resource_metadata: Option<&str>,
) -> Result<Discovered, OAuthError> {
    let Some((metadata_url, metadata)) =
        resource_metadata_of(http, server, resource_metadata).await?
    else {
        return Ok(Discovered {
            resource: resource_of(server),
            resource_scopes: None,
            server: legacy_server(http, server).await?,
        });
    };
    let resource = match metadata.resource.as_str() {
        "" => resource_of(server),
        named => named.to_owned(),
    };
    check_resource(&resource, server)?;
    let issuer = metadata.authorization_servers.first().ok_or_else(|| {
        OAuthError::NoAuthorizationServer {
            metadata_url: metadata_url.to_string(),
        }
    })?;
    Ok(Discovered {
        resource,
        resource_scopes: metadata.scopes_supported,
        server: server_metadata(http, issuer, server).await?,
    })
}

/// The server URL as a resource indicator: without its fragment.
pub(crate) fn resource_of(server: &Url) -> String {
    let mut url = server.clone();
    url.set_fragment(None);
    url.to_string()
}

/// The protected resource metadata URLs to try, in order: the challenge's (if [`peer_url`]
/// accepts it), else the path-inserted well-known URL, then the root one.
pub(crate) fn resource_metadata_urls(
    server: &Url,
    from_challenge: Option<&str>,
) -> Result<Vec<Url>, OAuthError> {
    if let Some(url) = from_challenge {
        return Ok(vec![peer_url(url, server, NamedBy::Challenge)?]);
    }
    let base = origin(server);
    let mut urls = Vec::new();
    let path = server.path();
    if !path.is_empty() && path != "/" {
        urls.push(parse_url(&format!(
            "{base}/.well-known/oauth-protected-resource{path}"
        ))?);
    }
    urls.push(parse_url(&format!(
        "{base}/.well-known/oauth-protected-resource"
    ))?);
    Ok(urls)
}

async fn resource_metadata_of(
    http: &reqwest::Client,
    server: &Url,
    from_challenge: Option<&str>,
) -> Result<Option<(Url, ProtectedResourceMetadata)>, OAuthError> {
    let mut candidates = resource_metadata_urls(server, from_challenge)?;
    if from_challenge.is_some() {
        // the challenge's URL first; the well-known ones only if it yields nothing
        candidates.extend(resource_metadata_urls(server, None)?);
    }
    for url in candidates {
        let answer = get_json(http, &url).await?;
        if !answer.status.is_success() {
            continue;
        }
        let Some(json) = answer.json else { continue };
        let metadata = serde_json::from_value::<ProtectedResourceMetadata>(json).map_err(|e| {
            OAuthError::InvalidResponse {
                what: format!("protected resource metadata at {url}"),
                reason: e.to_string(),
            }
        })?;
        return Ok(Some((url, metadata)));
    }
    Ok(None)
}

/// The metadata's `resource` must identify the server being called: same origin, and a path
/// that is the server's or a prefix of it (segment-wise).
pub(crate) fn check_resource(resource: &str, server: &Url) -> Result<(), OAuthError> {
    let mismatch = || OAuthError::ResourceMismatch {
        resource: resource.to_owned(),
        server: server.to_string(),
    };
    let parsed = Url::parse(resource).map_err(|_| mismatch())?;
    if parsed.origin() != server.origin() || parsed.fragment().is_some() {
        return Err(mismatch());
    }
    let prefix = parsed.path().trim_end_matches('/');
    let path = server.path();
    let covers = prefix.is_empty()
        || path == prefix
        || path
            .strip_prefix(prefix)
            .is_some_and(|rest| rest.starts_with('/'));
    if covers { Ok(()) } else { Err(mismatch()) }
}

/// The authorization server metadata URLs for `issuer` (which must pass [`peer_url`]'s rule
/// for the MCP server at `server`), in the order the MCP specification gives (2025-11-25,
/// "Authorization Server Metadata Discovery").
pub(crate) fn server_metadata_urls(issuer: &str, server: &Url) -> Result<Vec<Url>, OAuthError> {
    let parsed = peer_url(issuer, server, NamedBy::ResourceMetadata)?;
    let base = origin(&parsed);
    let path = parsed.path().trim_end_matches('/');
    let urls = if path.is_empty() {
        vec![
            format!("{base}/.well-known/oauth-authorization-server"),
            format!("{base}/.well-known/openid-configuration"),
        ]
    } else {
        vec![
            format!("{base}/.well-known/oauth-authorization-server{path}"),
            format!("{base}/.well-known/openid-configuration{path}"),
            format!("{base}{path}/.well-known/openid-configuration"),
        ]
    };
    urls.iter().map(|u| parse_url(u)).collect()
}

/// Fetches `issuer`'s metadata for the MCP server at `server`: the first candidate URL that
/// answers with a JSON document whose `issuer` is exactly `issuer` (any other is discarded).
pub(crate) async fn server_metadata(
    http: &reqwest::Client,
    issuer: &str,
    server: &Url,
) -> Result<ServerMetadata, OAuthError> {
    let mut last = OAuthError::NoServerMetadata {
        issuer: issuer.to_owned(),
        reason: "no metadata document found".to_owned(),
    };
    for url in server_metadata_urls(issuer, server)? {
        let answer = http::get_json(http, &url).await?;
        match read_server_metadata(
            &url,
            answer.status.is_success(),
            answer.json,
            issuer,
            server,
        ) {
            Ok(Some(metadata)) => return Ok(metadata),
            Ok(None) => {}
            Err(error) => last = error,
        }
    }
    Err(last)
}

/// One candidate's answer: `Ok(None)` to try the next candidate; the issuer and then the
/// endpoints checked.
pub(crate) fn read_server_metadata(
    url: &Url,
    success: bool,
    json: Option<Value>,
    issuer: &str,
    server: &Url,
) -> Result<Option<ServerMetadata>, OAuthError> {
    let (true, Some(json)) = (success, json) else {
        return Ok(None);
    };
    let metadata = serde_json::from_value::<ServerMetadata>(json).map_err(|e| {
        OAuthError::InvalidResponse {
            what: format!("authorization server metadata at {url}"),
            reason: e.to_string(),
        }
    })?;
    if metadata.issuer != issuer {
        return Err(OAuthError::IssuerMismatch {
            expected: issuer.to_owned(),
            found: metadata.issuer,
        });
    }
    metadata.checked(server).map(Some)
}

/// The 2025-03-26 rules, for servers without protected resource metadata: the authorization
/// server is the MCP server's origin; its RFC 8414 metadata, else `/authorize`, `/token` and
/// `/register` there.
async fn legacy_server(http: &reqwest::Client, server: &Url) -> Result<ServerMetadata, OAuthError> {
    let issuer = origin(server);
    let url = parse_url(&format!("{issuer}/.well-known/oauth-authorization-server"))?;
    let answer = get_json(http, &url).await?;
    if let Some(metadata) = read_server_metadata(
        &url,
        answer.status.is_success(),
        answer.json,
        &issuer,
        server,
    )? {
        return Ok(metadata);
    }
    Ok(ServerMetadata {
        authorization_endpoint: Some(format!("{issuer}/authorize")),
        token_endpoint: Some(format!("{issuer}/token")),
        registration_endpoint: Some(format!("{issuer}/register")),
        code_challenge_methods_supported: Some(vec!["S256".to_owned()]),
        issuer,
        ..ServerMetadata::default()
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn urls(list: Vec<Url>) -> Vec<String> {
        list.into_iter().map(|u| u.to_string()).collect()
    }

    #[test]
    fn resource_metadata_order() {
        let server = Url::parse("https://api.example.net/public/mcp").unwrap();
        assert_eq!(
            urls(resource_metadata_urls(&server, None).unwrap()),
            [
                "https://api.example.net/.well-known/oauth-protected-resource/public/mcp",
                "https://api.example.net/.well-known/oauth-protected-resource",
            ]
        );
        // the challenge's URL alone
        assert_eq!(
            urls(
                resource_metadata_urls(&server, Some("https://api.example.net/custom.json"))
                    .unwrap()
            ),
            ["https://api.example.net/custom.json"]
        );
        // a server at the root has only the root document
        let root = Url::parse("http://localhost:3000").unwrap();
        assert_eq!(
            urls(resource_metadata_urls(&root, None).unwrap()),
            ["http://localhost:3000/.well-known/oauth-protected-resource"]
        );
    }

    #[test]
    fn server_metadata_order_with_and_without_a_path() {
        let public = Url::parse("https://mcp.example.com/mcp").unwrap();
        assert_eq!(
            urls(server_metadata_urls("https://as.example.com", &public).unwrap()),
            [
                "https://as.example.com/.well-known/oauth-authorization-server",
                "https://as.example.com/.well-known/openid-configuration",
            ]
        );
        assert_eq!(
            urls(server_metadata_urls("https://as.example.com/tenant1", &public).unwrap()),
            [
                "https://as.example.com/.well-known/oauth-authorization-server/tenant1",
                "https://as.example.com/.well-known/openid-configuration/tenant1",
                "https://as.example.com/tenant1/.well-known/openid-configuration",
            ]
        );
        // a terminating slash is removed before inserting (RFC 8414 §3.1)
        assert_eq!(
            urls(server_metadata_urls("https://as.example.com/tenant1/", &public).unwrap())[0],
            "https://as.example.com/.well-known/oauth-authorization-server/tenant1"
        );
    }

    #[test]
    fn the_resource_must_identify_the_server() {
        let server = Url::parse("http://localhost:1234/mcp").unwrap();
        for ok in [
            "http://localhost:1234/mcp",
            "http://localhost:1234",
            "http://localhost:1234/",
            "http://LOCALHOST:1234/mcp",
        ] {
            assert_eq!(check_resource(ok, &server), Ok(()), "{ok}");
        }
        for bad in [
            "https://evil.example.com/mcp",
            "https://localhost:1234/mcp",
            "http://localhost:1235/mcp",
            "http://localhost:1234/mc",
            "http://localhost:1234/mcp/tools",
            "http://localhost:1234/mcp#frag",
            "not a url",
        ] {
            assert!(check_resource(bad, &server).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_issuer_is_compared_as_an_exact_string() {
        let url = Url::parse("https://as/.well-known/oauth-authorization-server").unwrap();
        let doc = |issuer: &str| Some(serde_json::json!({"issuer": issuer}));
        let mcp = Url::parse("https://mcp.example.com/mcp").unwrap();
        assert!(
            read_server_metadata(&url, true, doc("https://as"), "https://as", &mcp)
                .unwrap()
                .is_some()
        );
        for other in [
            "https://as/",
            "https://AS",
            "https://as:443",
            "https://attacker.example.com",
        ] {
            assert_eq!(
                read_server_metadata(&url, true, doc(other), "https://as", &mcp).unwrap_err(),
                OAuthError::IssuerMismatch {
                    expected: "https://as".into(),
                    found: other.into()
                }
            );
        }
        // a 404 or a body that is not JSON: the next candidate
        assert!(
            read_server_metadata(&url, false, doc("https://as"), "https://as", &mcp)
                .unwrap()
                .is_none()
        );
        assert!(
            read_server_metadata(&url, true, None, "https://as", &mcp)
                .unwrap()
                .is_none()
        );
    }

    #[test]
    fn every_endpoint_the_metadata_names_passes_the_peer_url_rule() {
        let url = Url::parse("https://as/.well-known/oauth-authorization-server").unwrap();
        let mcp = Url::parse("https://mcp.example.com/mcp").unwrap();
        let doc = |name: &str, endpoint: &str| {
            Some(serde_json::json!({"issuer": "https://as", name: endpoint}))
        };
        for name in [
            "authorization_endpoint",
            "token_endpoint",
            "registration_endpoint",
        ] {
            let good =
                read_server_metadata(&url, true, doc(name, "https://as/x"), "https://as", &mcp);
            assert!(matches!(good, Ok(Some(_))), "{name}: {good:?}");
            for bad in [
                "http://as/x",
                "https://169.254.169.254/latest/meta-data/",
                "https://127.0.0.1:6379/",
                "file:///etc/passwd",
            ] {
                let refused = read_server_metadata(&url, true, doc(name, bad), "https://as", &mcp);
                assert!(
                    matches!(&refused, Err(OAuthError::InvalidUrl { url, .. }) if url == bad),
                    "{name} = {bad}: {refused:?}"
                );
            }
        }
        // the fields the client does not request are not its concern
        let other =
            Some(serde_json::json!({"issuer": "https://as", "jwks_uri": "http://10.0.0.1/"}));
        assert!(matches!(
            read_server_metadata(&url, true, other, "https://as", &mcp),
            Ok(Some(_))
        ));
    }

    #[test]
    fn a_challenge_and_an_issuer_pass_the_peer_url_rule() {
        let server = Url::parse("https://mcp.example.com/mcp").unwrap();
        assert!(matches!(
            resource_metadata_urls(&server, Some("https://10.0.0.1/prm")),
            Err(OAuthError::InvalidUrl { .. })
        ));
        assert!(matches!(
            server_metadata_urls("http://as.example.com", &server),
            Err(OAuthError::InvalidUrl { .. })
        ));
        assert!(matches!(
            server_metadata_urls("https://[::1]", &server),
            Err(OAuthError::InvalidUrl { .. })
        ));
    }

    #[test]
    fn the_resource_keeps_the_server_url_without_fragment() {
        let server = Url::parse("http://localhost:1234/mcp#x").unwrap();
        assert_eq!(resource_of(&server), "http://localhost:1234/mcp");
    }
}
