//! The OAuth client's HTTP exchanges: JSON documents in, forms and JSON out, bodies bounded.

use presa_http::describe_error;
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap};
use reqwest::{StatusCode, Url};
use serde_json::Value;

use crate::error::OAuthError;

/// The largest metadata document or token response read.
const MAX_BODY: usize = 1024 * 1024;

/// An answer: status, headers, and the body when it is JSON.
#[derive(Debug)]
pub(crate) struct Answer {
    pub(crate) status: StatusCode,
    pub(crate) headers: HeaderMap,
    /// The body as JSON; `None` when it is empty or not JSON.
    pub(crate) json: Option<Value>,
}

impl Answer {
    /// The OAuth error of an error answer (RFC 6749 §5.2): `error`, `error_description`.
    pub(crate) fn oauth_error(&self) -> (String, Option<String>) {
        let field = |name: &str| {
            self.json
                .as_ref()
                .and_then(|j| j.get(name)?.as_str())
                .map(str::to_owned)
        };
        (
            field("error").unwrap_or_else(|| "no error code".to_owned()),
            field("error_description"),
        )
    }

    /// A header's value, as text.
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name)?.to_str().ok()
    }
}

/// GETs a JSON document.
pub(crate) async fn get_json(http: &reqwest::Client, url: &Url) -> Result<Answer, OAuthError> {
    let request = http.get(url.clone()).header(ACCEPT, "application/json");
    exchange(url, request).await
}

/// POSTs a form (`application/x-www-form-urlencoded`), with extra headers.
pub(crate) async fn post_form(
    http: &reqwest::Client,
    url: &Url,
    form: &[(&str, String)],
    headers: HeaderMap,
) -> Result<Answer, OAuthError> {
    let request = http
        .post(url.clone())
        .header(ACCEPT, "application/json")
        .headers(headers)
        .form(form);
    exchange(url, request).await
}

/// POSTs a JSON document.
pub(crate) async fn post_json(
    http: &reqwest::Client,
    url: &Url,
    body: &Value,
) -> Result<Answer, OAuthError> {
    let request = http
        .post(url.clone())
        .header(ACCEPT, "application/json")
        .header(CONTENT_TYPE, "application/json")
        .body(body.to_string());
    exchange(url, request).await
}

async fn exchange(url: &Url, request: reqwest::RequestBuilder) -> Result<Answer, OAuthError> {
    let failed = |reason: String| OAuthError::Http {
        url: url.to_string(),
        reason,
    };
    let mut response = request
        .send()
        .await
        .map_err(|e| failed(describe_error(&e)))?;
    let status = response.status();
    let headers = response.headers().clone();
    let mut body = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|e| failed(describe_error(&e)))?
    {
        if body.len() + chunk.len() > MAX_BODY {
            return Err(failed(format!("the body exceeds {MAX_BODY} bytes")));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(Answer {
        status,
        headers,
        json: serde_json::from_slice(&body).ok(),
    })
}

/// Parses an absolute `http`/`https` URL.
pub(crate) fn parse_url(url: &str) -> Result<Url, OAuthError> {
    let invalid = |reason: String| OAuthError::InvalidUrl {
        url: url.to_owned(),
        reason,
    };
    let parsed = Url::parse(url).map_err(|e| invalid(e.to_string()))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(invalid("the scheme must be http or https".to_owned()));
    }
    Ok(parsed)
}

/// `scheme://host[:port]`, no trailing slash.
pub(crate) fn origin(url: &Url) -> String {
    url.origin().ascii_serialization()
}
