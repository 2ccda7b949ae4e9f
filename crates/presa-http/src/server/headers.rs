//! What the endpoint reads from a request's headers: the session id's name, what `Accept`
//! admits, and a header's value as text.

use axum::http::{HeaderMap, header};

pub(crate) const SESSION_HEADER: &str = "mcp-session-id";

/// What a request's `Accept` header admits, of the two answers a POST can get.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Accepted {
    /// `application/json`: one JSON answer.
    pub(crate) json: bool,
    /// `text/event-stream`: an SSE stream.
    pub(crate) sse: bool,
}

impl Accepted {
    /// Both, as a POST must accept.
    pub(crate) fn both(self) -> bool {
        self.json && self.sse
    }
}

/// Parses an `Accept` header into what it admits.
pub(crate) fn accepts(headers: &HeaderMap) -> Accepted {
    let mut json = false;
    let mut sse = false;
    for value in headers.get_all(header::ACCEPT) {
        for item in value.to_str().unwrap_or("").split(',') {
            let media = item.split(';').next().unwrap_or("").trim();
            // compared without case, in place: no lowered copy per media type and request
            let is = |name: &str| media.eq_ignore_ascii_case(name);
            if is("*/*") {
                (json, sse) = (true, true);
            } else if is("application/json") || is("application/*") {
                json = true;
            } else if is("text/event-stream") || is("text/*") {
                sse = true;
            }
        }
    }
    Accepted { json, sse }
}

/// Whether the body is declared `application/json` (parameters aside).
pub(crate) fn is_json_content(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|media| media.trim().eq_ignore_ascii_case("application/json"))
}

/// A header's value as trimmed text, when it is text.
pub(crate) fn header_str<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
}

#[cfg(test)]
mod tests {
    use axum::http::HeaderValue;

    use super::*;

    #[test]
    fn accept_is_parsed_as_a_list() {
        let mut h = HeaderMap::new();
        h.insert(
            header::ACCEPT,
            HeaderValue::from_static("text/event-stream, application/json;q=0.9"),
        );
        assert_eq!(
            accepts(&h),
            Accepted {
                json: true,
                sse: true
            }
        );
        h.insert(header::ACCEPT, HeaderValue::from_static("application/json"));
        assert_eq!(
            accepts(&h),
            Accepted {
                json: true,
                sse: false
            }
        );
        h.insert(header::ACCEPT, HeaderValue::from_static("*/*"));
        assert_eq!(
            accepts(&h),
            Accepted {
                json: true,
                sse: true
            }
        );
        // media types are compared without case
        h.insert(header::ACCEPT, HeaderValue::from_static("Application/JSON"));
        h.append(header::ACCEPT, HeaderValue::from_static("TEXT/*; q=0.1"));
        assert_eq!(
            accepts(&h),
            Accepted {
                json: true,
                sse: true
            }
        );
        h.insert(
            header::ACCEPT,
            HeaderValue::from_static("text/html, image/*"),
        );
        assert_eq!(
            accepts(&h),
            Accepted {
                json: false,
                sse: false
            }
        );
    }
}
