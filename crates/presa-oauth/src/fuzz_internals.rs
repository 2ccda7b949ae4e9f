//! Internal: the OAuth client's readers of peer input, for presa's fuzz targets
//! (`crates/presa-fuzz`). Compiled only with the `__fuzz-internals` feature; not a public API,
//! and it may change at any time.

use std::time::{Duration, SystemTime};

use reqwest::StatusCode;
pub use reqwest::Url;
use reqwest::header::HeaderMap;
use serde_json::Value;

use crate::OAuthError;
use crate::challenge::{AuthChallenge, parse};
use crate::discovery::{check_resource, read_server_metadata};
use crate::http::{Answer, NamedBy, parse_url, peer_url};
use crate::tokens::TokenResponse;

/// A `WWW-Authenticate` value's challenges, as `(scheme, [(name, value)])`, lowercased.
pub fn challenges(header: &str) -> Vec<(String, Vec<(String, String)>)> {
    parse(header)
        .into_iter()
        .map(|c| (c.scheme, c.params))
        .collect()
}

/// What the client takes from a `WWW-Authenticate` value: `(dpop, dpop_offered,
/// resource_metadata, scope, error)`.
pub fn read_challenge(
    header: &str,
) -> (
    bool,
    bool,
    Option<String>,
    Option<Vec<String>>,
    Option<String>,
) {
    let read = AuthChallenge::read(Some(header));
    (
        read.dpop,
        read.dpop_offered,
        read.resource_metadata,
        read.scope,
        read.error,
    )
}

/// Reads an authorization server metadata document found at `url` for `issuer`, as discovery
/// does for the MCP server at `server`: `Ok(None)` means "try the next candidate".
pub fn server_metadata(
    url: &str,
    json: Option<Value>,
    issuer: &str,
    server: &str,
) -> Result<Option<String>, OAuthError> {
    let url = parse_url(url)?;
    let server = parse_url(server)?;
    read_server_metadata(&url, true, json, issuer, &server).map(|m| m.map(|m| m.issuer))
}

/// Checks a protected resource metadata `resource` against the MCP server at `server`.
pub fn resource(resource: &str, server: &str) -> Result<(), OAuthError> {
    check_resource(resource, &parse_url(server)?)
}

/// Reads a token response body received at Unix second `now`: the access token and its
/// expiry.
pub fn token_response(json: Option<Value>, now: u64) -> Result<(String, Option<u64>), OAuthError> {
    let answer = Answer {
        status: StatusCode::OK,
        headers: HeaderMap::new(),
        json,
    };
    let read = TokenResponse::read(&answer)?;
    let at = SystemTime::UNIX_EPOCH + Duration::from_secs(now);
    let expires = read.expires_at(at);
    Ok((read.access_token, expires))
}

/// The client's rule for a URL a peer names, for the MCP server at `server`.
pub fn peer_named_url(url: &str, server: &str) -> Result<Url, OAuthError> {
    peer_url(url, &parse_url(server)?, NamedBy::ServerMetadata)
}
