//! The OAuth client's HTTP exchanges: JSON documents in, forms and JSON out, bodies bounded.

use std::net::{Ipv4Addr, Ipv6Addr};

use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap};
use reqwest::{StatusCode, Url};
use serde_json::Value;

use crate::error::{HttpFailure, OAuthError};

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
    let failed = |reason: &str, source: Option<reqwest::Error>| OAuthError::Http {
        url: url.to_string(),
        reason: reason.to_owned(),
        source: source.map(HttpFailure::new),
    };
    let mut response = request
        .send()
        .await
        .map_err(|e| failed("sending the request failed", Some(e)))?;
    let status = response.status();
    let headers = response.headers().clone();
    let mut body = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|e| failed("reading the response failed", Some(e)))?
    {
        if body.len() + chunk.len() > MAX_BODY {
            return Err(failed(&format!("the body exceeds {MAX_BODY} bytes"), None));
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

/// Who named a URL the client is about to request (for the refusal's reason).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NamedBy {
    /// `resource_metadata` in the MCP server's `WWW-Authenticate` challenge.
    Challenge,
    /// The protected resource metadata's `authorization_servers` (an issuer).
    ResourceMetadata,
    /// An endpoint in the authorization server metadata.
    ServerMetadata,
}

impl NamedBy {
    fn as_str(self) -> &'static str {
        match self {
            Self::Challenge => "the MCP server's challenge",
            Self::ResourceMetadata => "the protected resource metadata",
            Self::ServerMetadata => "the authorization server metadata",
        }
    }
}

/// Where a host is, as far as the URL tells: names are not resolved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum HostClass {
    /// `localhost` (and `*.localhost`, RFC 6761), `127.0.0.0/8`, `::1`.
    Loopback,
    /// An IP literal in a private, link-local, unique-local, shared (CGNAT) or unspecified
    /// range: `10/8`, `172.16/12`, `192.168/16`, `169.254/16`, `100.64/10`, `0/8`, `fc00::/7`,
    /// `fe80::/10`, `fec0::/10`, `::`.
    Local,
    /// Every other IP literal, and every other DNS name.
    Public,
}

/// The class of `url`'s host; a URL without a host (never an `http`/`https` one) is public,
/// the most restricted reference.
pub(crate) fn host_class(url: &Url) -> HostClass {
    // the URL parser has lowercased the name, turned every IPv4 spelling (`127.1`,
    // `0x7f000001`, `2130706433`) into dotted form and put an IPv6 address in brackets
    let Some(host) = url.host_str() else {
        return HostClass::Public;
    };
    if let Some(ip) = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
        return ip.parse().map_or(HostClass::Public, ipv6_class);
    }
    if let Ok(ip) = host.parse() {
        return ipv4_class(ip);
    }
    let name = host.strip_suffix('.').unwrap_or(host);
    if name == "localhost" || name.ends_with(".localhost") {
        HostClass::Loopback
    } else {
        HostClass::Public
    }
}

fn ipv4_class(ip: Ipv4Addr) -> HostClass {
    let [a, b, ..] = ip.octets();
    if ip.is_loopback() {
        HostClass::Loopback
    } else if ip.is_private() || ip.is_link_local() || a == 0 || (a == 100 && (b & 0xc0) == 64) {
        HostClass::Local
    } else {
        HostClass::Public
    }
}

fn ipv6_class(ip: Ipv6Addr) -> HostClass {
    let first = ip.segments()[0];
    if ip.is_loopback() {
        HostClass::Loopback
    } else if ip.is_unspecified()
        || (first & 0xfe00) == 0xfc00
        || (first & 0xffc0) == 0xfe80
        || (first & 0xffc0) == 0xfec0
    {
        HostClass::Local
    } else if let Some(v4) = ip.to_ipv4() {
        // IPv4-mapped (`::ffff:a.b.c.d`) and IPv4-compatible (`::a.b.c.d`): the IPv4 address's
        ipv4_class(v4)
    } else {
        HostClass::Public
    }
}

/// Parses a URL that a peer named (the MCP server's challenge, the protected resource
/// metadata, the authorization server metadata), for a client of the MCP server at `server`
/// (the URL the user gave, the trusted reference). The one rule for every such URL:
///
/// - a URL on `server`'s own origin is the user's choice, and accepted as it is;
/// - else the scheme is `https`, or `http` when both the URL and `server` are loopback;
/// - the host is public, or of the same class as `server`'s: a loopback server may name
///   loopback hosts, a server on a private address private addresses, a public server
///   neither.
///
/// A DNS name other than `localhost` counts as public: it is not resolved here, so a public
/// name that resolves to a private address is not caught.
pub(crate) fn peer_url(url: &str, server: &Url, named_by: NamedBy) -> Result<Url, OAuthError> {
    let parsed = parse_url(url)?;
    let refuse = |reason: String| {
        Err(OAuthError::InvalidUrl {
            url: url.to_owned(),
            reason,
        })
    };
    let who = named_by.as_str();
    if parsed.host().is_none() {
        return refuse(format!("{who} names a URL without a host"));
    }
    if parsed.origin() == server.origin() {
        return Ok(parsed);
    }
    let class = host_class(&parsed);
    let home = host_class(server);
    let loopback = class == HostClass::Loopback && home == HostClass::Loopback;
    if parsed.scheme() != "https" && !loopback {
        return refuse(format!(
            "{who} names a plain-http URL; only https is accepted \
             (http only on loopback, for an MCP server on loopback)"
        ));
    }
    if class != HostClass::Public && class != home {
        let what = match class {
            HostClass::Loopback => "a loopback address",
            _ => "a private address",
        };
        return refuse(format!("{who} names {what}; the MCP server is not on one"));
    }
    Ok(parsed)
}

/// `scheme://host[:port]`, no trailing slash.
pub(crate) fn origin(url: &Url) -> String {
    url.origin().ascii_serialization()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn class(url: &str) -> HostClass {
        host_class(&Url::parse(url).unwrap())
    }

    #[test]
    fn hosts_are_classified_by_their_name_or_address() {
        use HostClass::{Local, Loopback, Public};
        for (url, expected) in [
            ("http://localhost:8080/x", Loopback),
            ("http://LOCALHOST/", Loopback),
            ("http://localhost./", Loopback),
            ("http://app.localhost/", Loopback),
            ("http://127.0.0.1/", Loopback),
            ("http://127.255.0.9:1/", Loopback),
            // other IPv4 spellings, normalized by the URL parser
            ("http://127.1/", Loopback),
            ("http://0x7f000001/", Loopback),
            ("http://2130706433/", Loopback),
            ("http://[::1]:3000/", Loopback),
            ("http://[::ffff:127.0.0.1]/", Loopback),
            ("http://10.0.0.1/", Local),
            ("http://012.0.0.1/", Local),
            ("http://172.16.0.1/", Local),
            ("http://172.31.255.255/", Local),
            ("http://192.168.1.1/", Local),
            ("http://169.254.169.254/", Local),
            ("http://100.64.0.1/", Local),
            ("http://100.127.255.255/", Local),
            ("http://0.0.0.0/", Local),
            ("http://0/", Local),
            ("http://[::]/", Local),
            ("http://[fc00::1]/", Local),
            ("http://[fd12:3456::1]/", Local),
            ("http://[fe80::1]/", Local),
            ("http://[febf::1]/", Local),
            ("http://[fec0::1]/", Local),
            ("http://[::ffff:10.0.0.1]/", Local),
            ("http://[::ffff:a9fe:a9fe]/", Local),
            ("http://[::ffff:192.168.0.1]/", Local),
            ("http://[::10.0.0.1]/", Local),
            ("http://172.15.255.255/", Public),
            ("http://172.32.0.1/", Public),
            ("http://100.63.255.255/", Public),
            ("http://100.128.0.1/", Public),
            ("http://11.0.0.1/", Public),
            ("http://8.8.8.8/", Public),
            ("http://[2001:db8::1]/", Public),
            ("http://[fe00::1]/", Public),
            ("http://[::ffff:8.8.8.8]/", Public),
            ("https://as.example.com/", Public),
            // a name is not resolved: whatever it points at, it counts as public
            ("https://10.0.0.1.nip.io/", Public),
            ("https://localhost.example.com/", Public),
            ("https://mylocalhost/", Public),
        ] {
            assert_eq!(class(url), expected, "{url}");
        }
    }

    fn check(url: &str, server: &str) -> Result<Url, OAuthError> {
        peer_url(url, &Url::parse(server).unwrap(), NamedBy::ServerMetadata)
    }

    fn reason(url: &str, server: &str) -> String {
        match check(url, server) {
            Err(OAuthError::InvalidUrl { url: found, reason }) => {
                assert_eq!(found, url);
                reason
            }
            other => panic!("{url} from {server}: {other:?}"),
        }
    }

    #[test]
    fn a_loopback_server_may_name_loopback_over_http_and_public_over_https() {
        for server in [
            "http://127.0.0.1:3000/mcp",
            "http://localhost/mcp",
            "https://[::1]/",
        ] {
            for ok in [
                "http://127.0.0.1:9000/token",
                "http://localhost:1/register",
                "https://localhost/x",
                "http://[::1]:8080/",
                "http://[::ffff:127.0.0.1]/",
                "https://as.example.com/token",
                "https://8.8.8.8:8443/token",
            ] {
                assert!(check(ok, server).is_ok(), "{ok} from {server}");
            }
            let http = reason("http://as.example.com/token", server);
            assert!(http.contains("plain-http"), "{http}");
            for private in [
                "http://10.0.0.1/token",
                "https://10.0.0.1/token",
                "https://169.254.169.254/latest/meta-data",
                "https://[fd00::1]/",
                "https://[::ffff:10.0.0.1]/",
            ] {
                let text = reason(private, server);
                assert!(
                    text.contains("plain-http") || text.contains("names a private address"),
                    "{private}: {text}"
                );
            }
            assert_eq!(
                reason("https://169.254.169.254/", server),
                "the authorization server metadata names a private address; \
                 the MCP server is not on one"
            );
        }
    }

    #[test]
    fn a_public_server_may_name_only_public_https_urls() {
        let server = "https://mcp.example.com/mcp";
        assert!(check("https://as.example.com/token", server).is_ok());
        assert!(check("https://as.example.com:8443/token", server).is_ok());
        assert!(check("https://203.0.113.7/token", server).is_ok());
        assert_eq!(
            reason("http://as.example.com/token", server),
            "the authorization server metadata names a plain-http URL; only https is accepted \
             (http only on loopback, for an MCP server on loopback)"
        );
        assert!(reason("http://mcp.example.com/token", server).contains("plain-http"));
        for loopback in [
            "https://localhost/token",
            "https://127.0.0.1:8443/token",
            "https://[::1]/token",
            "https://[::ffff:7f00:1]/token",
            "https://app.localhost/token",
        ] {
            assert_eq!(
                reason(loopback, server),
                "the authorization server metadata names a loopback address; \
                 the MCP server is not on one",
                "{loopback}"
            );
        }
        // plain http on loopback is not enough: the server is not on loopback
        assert!(reason("http://127.0.0.1/token", server).contains("plain-http"));
        for private in [
            "https://10.0.0.1/",
            "https://192.168.0.1:8443/",
            "https://172.16.5.4/",
            "https://169.254.169.254/latest/meta-data/",
            "https://100.64.1.1/",
            "https://0.0.0.0/",
            "https://[fe80::1]/",
            "https://[fc00::1]/",
            "https://[::]/",
            "https://[::ffff:169.254.169.254]/",
        ] {
            assert!(
                reason(private, server)
                    .ends_with("names a private address; the MCP server is not on one"),
                "{private}"
            );
        }
        // a public server on plain http (the user's choice) still gets https only, except on
        // its own origin
        assert!(reason("http://as.example.com/", "http://mcp.example.com/").contains("plain-http"));
        assert!(check("https://as.example.com/", "http://mcp.example.com/").is_ok());
        assert!(
            check(
                "http://mcp.example.com/.well-known/x",
                "http://mcp.example.com/mcp"
            )
            .is_ok()
        );
        assert!(check("http://10.0.0.1:8080/token", "http://10.0.0.1:8080/mcp").is_ok());
        // the same host on another port or scheme is another origin
        assert!(
            reason("http://mcp.example.com:81/", "http://mcp.example.com/").contains("plain-http")
        );
    }

    #[test]
    fn a_server_on_a_private_address_may_name_private_addresses_over_https() {
        for server in [
            "https://10.1.2.3/mcp",
            "http://192.168.1.10:8080/mcp",
            "https://[fd00::5]/",
        ] {
            assert!(check("https://10.0.0.1/token", server).is_ok());
            assert!(check("https://[fe80::1]:8443/token", server).is_ok());
            assert!(check("https://as.example.com/token", server).is_ok());
            assert!(reason("http://10.0.0.1/token", server).contains("plain-http"));
            assert!(reason("https://127.0.0.1/token", server).contains("names a loopback address"));
            assert!(reason("https://localhost/token", server).contains("names a loopback address"));
        }
        // a server named by DNS is public, whatever it resolves to
        assert!(
            reason("https://10.0.0.1/", "https://mcp.internal.example/")
                .contains("names a private address")
        );
    }

    #[test]
    fn other_schemes_and_garbage_are_refused_without_panicking() {
        let server = "http://127.0.0.1:3000/mcp";
        for bad in [
            "file:///etc/passwd",
            "ftp://127.0.0.1/",
            "gopher://127.0.0.1:6379/_FLUSHALL",
            "javascript:alert(1)",
            "/relative/path",
            "",
            "http://",
            "https://[::1/",
            "http://300.0.0.1/",
        ] {
            assert!(
                matches!(check(bad, server), Err(OAuthError::InvalidUrl { .. })),
                "{bad}"
            );
        }
        let challenge = peer_url(
            "http://10.0.0.1/prm",
            &Url::parse(server).unwrap(),
            NamedBy::Challenge,
        );
        assert!(matches!(
            challenge,
            Err(OAuthError::InvalidUrl { reason, .. }) if reason.starts_with("the MCP server's challenge names")
        ));
    }

    #[tokio::test]
    async fn a_refused_connection_is_an_http_error_whose_source_says_so() {
        use std::error::Error as _;
        let closed = {
            let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            listener.local_addr().unwrap()
        };
        let url = Url::parse(&format!("http://{closed}/token")).unwrap();
        let error = post_json(&reqwest::Client::new(), &url, &Value::Null)
            .await
            .err()
            .unwrap();
        let OAuthError::Http {
            source: Some(failure),
            ..
        } = &error
        else {
            panic!("expected an HTTP error with a source, got {error:?}");
        };
        assert!(failure.is_connect(), "{failure}");
        assert!(!failure.is_timeout(), "{failure}");
        let source = error.source().unwrap().to_string();
        assert!(
            !error.to_string().contains(&source),
            "{error} repeats {source}"
        );
    }

    #[tokio::test]
    async fn a_server_that_never_answers_is_a_timeout() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = Url::parse(&format!("http://{}/token", listener.local_addr().unwrap())).unwrap();
        // accepted by the kernel's backlog, never read: the request waits for its timeout
        let http = reqwest::Client::builder()
            .timeout(std::time::Duration::from_millis(200))
            .build()
            .unwrap();
        let error = post_json(&http, &url, &Value::Null).await.err().unwrap();
        let OAuthError::Http {
            source: Some(failure),
            ..
        } = &error
        else {
            panic!("expected an HTTP error with a source, got {error:?}");
        };
        assert!(failure.is_timeout(), "{failure}");
        drop(listener);
    }
}
