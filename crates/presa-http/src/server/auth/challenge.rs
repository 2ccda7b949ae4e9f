//! Reading the bearer token, and the `WWW-Authenticate` challenges of RFC 6750 and RFC 9728.

use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;
use presa_core::ErrorCode;

use super::super::reject::reject;
use super::options::Target;

/// What a request's `Authorization` header holds.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Bearer<'a> {
    /// No bearer token (no header, or another scheme).
    Missing,
    /// A bearer token.
    Token(&'a str),
    /// Several `Authorization` headers, or a bearer token that is not one.
    Malformed(&'static str),
}

/// The bearer token of a request (RFC 6750 §2.1; the scheme is case-insensitive). Tokens in the
/// query string or the body are never looked at.
pub(crate) fn bearer(headers: &HeaderMap) -> Bearer<'_> {
    let mut values = headers.get_all(header::AUTHORIZATION).iter();
    let Some(value) = values.next() else {
        return Bearer::Missing;
    };
    if values.next().is_some() {
        return Bearer::Malformed("several Authorization headers");
    }
    let Ok(value) = value.to_str() else {
        return Bearer::Malformed("the Authorization header is not ASCII");
    };
    let (scheme, token) = value.trim().split_once(' ').unwrap_or((value.trim(), ""));
    if !scheme.eq_ignore_ascii_case("bearer") {
        return Bearer::Missing;
    }
    let token = token.trim();
    let b64token = |b: u8| b.is_ascii_alphanumeric() || b"-._~+/=".contains(&b);
    if token.is_empty() || !token.bytes().all(b64token) {
        return Bearer::Malformed("the bearer token is empty or not a token");
    }
    Bearer::Token(token)
}

/// Keeps only what a quoted challenge parameter may hold (RFC 6750 §3: printable ASCII without
/// `"` and `\`).
fn quotable(value: &str) -> String {
    value
        .chars()
        .filter(|c| matches!(c, ' '..='~') && *c != '"' && *c != '\\')
        .collect()
}

/// A `WWW-Authenticate: Bearer` challenge.
#[derive(Debug, Default)]
pub(crate) struct Challenge<'a> {
    pub(crate) error: Option<&'static str>,
    pub(crate) scope: Vec<String>,
    pub(crate) description: Option<&'a str>,
}

impl Challenge<'_> {
    fn header(&self, target: &Target) -> HeaderValue {
        let mut params = Vec::new();
        if let Some(error) = self.error {
            params.push(format!("error=\"{error}\""));
        }
        if !self.scope.is_empty() {
            params.push(format!("scope=\"{}\"", quotable(&self.scope.join(" "))));
        }
        params.push(format!(
            "resource_metadata=\"{}\"",
            quotable(&target.metadata_url)
        ));
        if let Some(description) = self.description {
            params.push(format!("error_description=\"{}\"", quotable(description)));
        }
        HeaderValue::from_str(&format!("Bearer {}", params.join(", ")))
            .unwrap_or_else(|_| HeaderValue::from_static("Bearer"))
    }

    /// Sets the challenge on `response`.
    pub(crate) fn apply(&self, target: &Target, response: &mut Response) {
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, self.header(target));
    }

    /// A rejection with `status`, `message` and this challenge.
    pub(crate) fn reject(&self, target: &Target, status: StatusCode, message: &str) -> Response {
        let mut response = reject(status, ErrorCode::INVALID_REQUEST, message);
        self.apply(target, &mut response);
        response
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn headers(values: &[&str]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for value in values {
            headers.append(header::AUTHORIZATION, value.parse().unwrap());
        }
        headers
    }

    #[test]
    fn bearer_tokens_are_read_from_one_header() {
        assert_eq!(bearer(&headers(&[])), Bearer::Missing);
        assert_eq!(bearer(&headers(&["Basic dXNlcjpwYXNz"])), Bearer::Missing);
        assert_eq!(
            bearer(&headers(&["Bearer abc.def-ghi_~+/=="])),
            Bearer::Token("abc.def-ghi_~+/==")
        );
        assert_eq!(bearer(&headers(&["bearer  tok "])), Bearer::Token("tok"));
        assert!(matches!(
            bearer(&headers(&["Bearer"])),
            Bearer::Malformed(_)
        ));
        assert!(matches!(
            bearer(&headers(&["Bearer a b"])),
            Bearer::Malformed(_)
        ));
        assert!(matches!(
            bearer(&headers(&["Bearer a", "Bearer b"])),
            Bearer::Malformed(_)
        ));
    }

    #[test]
    fn challenges_quote_safely() {
        let target = Target {
            uri: "http://h/mcp".into(),
            metadata_url: "http://h/.well-known/oauth-protected-resource/mcp".into(),
        };
        let challenge = Challenge {
            error: Some("invalid_token"),
            scope: vec!["a".into(), "b".into()],
            description: Some("bad \"token\"\r\n\\"),
        };
        assert_eq!(
            challenge.header(&target),
            "Bearer error=\"invalid_token\", scope=\"a b\", resource_metadata=\"http://h/.well-known/oauth-protected-resource/mcp\", error_description=\"bad token\""
        );
        assert_eq!(
            Challenge::default().header(&target),
            "Bearer resource_metadata=\"http://h/.well-known/oauth-protected-resource/mcp\""
        );
    }
}
