//! The OAuth client's readers of peer input (presa-oauth): `WWW-Authenticate`, authorization
//! server and protected resource metadata, token responses, and the rule for URLs a peer
//! names. Nothing panics; challenges written back in canonical form parse to the same
//! challenges; an accepted peer URL is https (or loopback http for a loopback server), and
//! for a server on a public name never an internal address; a token's expiry never lies
//! before the time it was received.
//!
//! Input: a selector byte, then the text.
#![no_main]

use libfuzzer_sys::fuzz_target;
use presa_http::ProtectedResourceMetadata;
use presa_oauth::__fuzz;
use serde_json::Value;

const SERVERS: [&str; 4] = [
    "http://127.0.0.1:3000/mcp",
    PUBLIC_SERVER,
    "http://10.0.0.5/mcp",
    "https://[fd00::1]:8443/",
];

fn quote(value: &str) -> String {
    let mut out = String::from("\"");
    for c in value.chars() {
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

fn challenges(header: &str) {
    let parsed = __fuzz::challenges(header);
    let _ = __fuzz::read_challenge(header);
    let canonical = parsed
        .iter()
        .map(|(scheme, params)| {
            let params: Vec<String> = params
                .iter()
                .map(|(n, v)| format!("{n}={}", quote(v)))
                .collect();
            if params.is_empty() {
                scheme.clone()
            } else {
                format!("{scheme} {}", params.join(", "))
            }
        })
        .collect::<Vec<_>>()
        .join(", ");
    assert_eq!(
        __fuzz::challenges(&canonical),
        parsed,
        "{header:?} written as {canonical:?}"
    );
}

fn json(text: &str) {
    let value = serde_json::from_str::<Value>(text).ok();
    for server in SERVERS {
        let _ = __fuzz::server_metadata(
            "https://as.example.com/.well-known/oauth-authorization-server",
            value.clone(),
            "https://as.example.com",
            server,
        );
        if let Some(Ok(metadata)) = value
            .clone()
            .map(serde_json::from_value::<ProtectedResourceMetadata>)
        {
            let _ = __fuzz::resource(&metadata.resource, server);
        }
    }
    let now = 1_800_000_000;
    if let Ok((token, expires)) = __fuzz::token_response(value, now) {
        assert!(!token.is_empty());
        assert!(expires.is_none_or(|at| at >= now));
    }
}

fn url(text: &str) {
    for server in SERVERS {
        if let Ok(accepted) = __fuzz::peer_named_url(text, server) {
            let host = accepted.host_str().unwrap_or_default();
            assert!(!host.is_empty(), "{text:?} accepted without a host");
            let same_origin = url_origin(&accepted) == url_origin_str(server);
            assert!(
                accepted.scheme() == "https" || same_origin || server.starts_with("http://127."),
                "{text:?} accepted over {} for {server}",
                accepted.scheme()
            );
            // a server on a public name never sends the client to an internal address
            if server == PUBLIC_SERVER && !same_origin {
                assert!(
                    !is_internal(host),
                    "{text:?} accepted ({host}) for {server}"
                );
            }
        }
    }
}

/// The server of [`SERVERS`] on a public name.
const PUBLIC_SERVER: &str = "https://mcp.example.com/mcp";

/// Whether `host` (as the URL parser writes it) is loopback, private, link-local, shared or
/// unspecified, by the standard library's reading of the address: an oracle independent of
/// presa-oauth's own classes (which hold more, such as site-local IPv6).
fn is_internal(host: &str) -> bool {
    use std::net::{Ipv4Addr, Ipv6Addr};
    let v4 = |ip: Ipv4Addr| {
        let [a, b, ..] = ip.octets();
        ip.is_loopback()
            || ip.is_private()
            || ip.is_link_local()
            || ip.is_unspecified()
            || a == 0
            || (a == 100 && (b & 0xc0) == 64)
    };
    if let Some(ip) = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
        return ip.parse::<Ipv6Addr>().is_ok_and(|ip| {
            let first = ip.segments()[0];
            ip.is_loopback()
                || ip.is_unspecified()
                || (first & 0xfe00) == 0xfc00
                || (first & 0xffc0) == 0xfe80
                || ip.to_ipv4_mapped().is_some_and(v4)
        });
    }
    if let Ok(ip) = host.parse::<Ipv4Addr>() {
        return v4(ip);
    }
    let name = host.strip_suffix('.').unwrap_or(host);
    name == "localhost" || name.ends_with(".localhost")
}

fn url_origin(url: &presa_oauth::__fuzz::Url) -> String {
    url.origin().ascii_serialization()
}

fn url_origin_str(url: &str) -> String {
    presa_oauth::__fuzz::Url::parse(url)
        .map(|u| url_origin(&u))
        .unwrap_or_default()
}

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    match selector % 3 {
        0 => challenges(&text),
        1 => json(&text),
        _ => url(&text),
    }
});
