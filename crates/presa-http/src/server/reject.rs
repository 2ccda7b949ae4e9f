//! Rejections: a status and a one-line JSON-RPC error body without an id.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use presa_core::{ErrorCode, ErrorObject, Message};

/// A response with `status` and an id-less JSON-RPC error carrying `code` and `message`.
pub(crate) fn reject(status: StatusCode, code: ErrorCode, message: &str) -> Response {
    let body = Message::Response(presa_core::Response::error(
        None,
        ErrorObject::new(code, message),
    ))
    .to_json();
    let mut response = (status, body).into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

/// 503 with `Retry-After: 1` and an id-less JSON-RPC error: the server cannot take this now
/// (draining, at a session limit, its store failing); another try, or another instance, may.
pub(crate) fn service_unavailable(message: &str) -> Response {
    let mut response = reject(
        StatusCode::SERVICE_UNAVAILABLE,
        ErrorCode::INTERNAL_ERROR,
        message,
    );
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    response
}

/// Whether `host` (no port) names the loopback interface; names are case-insensitive.
pub(crate) fn is_loopback_host(host: &str) -> bool {
    host.eq_ignore_ascii_case("localhost") || matches!(host, "127.0.0.1" | "[::1]" | "::1")
}

/// The host of a `Host` header value (`host[:port]`, IPv6 in brackets).
pub(crate) fn host_of(authority: &str) -> &str {
    if authority.starts_with('[') {
        return authority
            .find(']')
            .map_or(authority, |end| &authority[..=end]);
    }
    authority
        .rsplit_once(':')
        .map_or(authority, |(host, port)| {
            if port.bytes().all(|b| b.is_ascii_digit()) {
                host
            } else {
                authority
            }
        })
}

/// Whether an `Origin` value is `http(s)://` a loopback host.
pub(crate) fn is_loopback_origin(origin: &str) -> bool {
    let rest = origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"));
    rest.is_some_and(|authority| !authority.contains('/') && is_loopback_host(host_of(authority)))
}

/// 503 with `Retry-After`: the endpoint is draining.
pub(crate) fn draining() -> Response {
    service_unavailable(
        "Service Unavailable: the server is shutting down; retry on another instance",
    )
}

/// Any other method, or GET/DELETE on a server without initialize-era sessions: 405 with `Allow`.
/// `allow` lists the methods the endpoint takes ([`Shared::allowed_methods`]).
///
/// [`Shared::allowed_methods`]: super::shared::Shared::allowed_methods
pub(crate) fn method_not_allowed(allow: &'static str) -> Response {
    let mut response = reject(
        StatusCode::METHOD_NOT_ALLOWED,
        ErrorCode::INVALID_REQUEST,
        "Method Not Allowed",
    );
    response
        .headers_mut()
        .insert(header::ALLOW, HeaderValue::from_static(allow));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_origins_and_hosts() {
        for ok in [
            "http://localhost",
            "http://localhost:3000",
            "https://127.0.0.1:8443",
            "http://[::1]:9",
            "http://LocalHost:3000",
        ] {
            assert!(is_loopback_origin(ok), "{ok}");
        }
        for bad in [
            "http://evil.example.com",
            "http://localhost.evil.com",
            "ftp://localhost",
            "null",
            "http://127.0.0.1.nip.io",
        ] {
            assert!(!is_loopback_origin(bad), "{bad}");
        }
        assert_eq!(host_of("localhost:8080"), "localhost");
        assert_eq!(host_of("[::1]:8080"), "[::1]");
        assert_eq!(host_of("example.com"), "example.com");
    }
}
