//! RFC 3986 URI references, which `$id` and `$ref` must be.

use std::net::Ipv6Addr;

/// Whether `text` is an RFC 3986 URI reference: a URI (`https://example.com/s.json`,
/// `urn:x:y`) or a relative reference (`a.json#x`, `#/$defs/a%20b`, the empty string).
///
/// A scheme is a letter, then letters, digits, `+`, `-` and `.`; a relative reference's first
/// segment has no `:`. An authority is `[userinfo@]host[:port]`, the host a name or a bracketed
/// IPv6 (or `vX.…`) literal and the port digits. Everything else is made of the characters
/// each part allows and `%XX` escapes: spaces, quotes, braces, a second `#` and anything beyond
/// ASCII must be escaped.
pub(crate) fn is_uri_reference(text: &str) -> bool {
    let (rest, fragment) = match text.split_once('#') {
        Some((rest, fragment)) => (rest, Some(fragment)),
        None => (text, None),
    };
    let (rest, query) = match rest.split_once('?') {
        Some((rest, query)) => (rest, Some(query)),
        None => (rest, None),
    };
    let in_query = |b: u8| is_pchar(b) || b == b'/' || b == b'?';
    if [fragment, query]
        .into_iter()
        .flatten()
        .any(|part| !made_of(part, in_query))
    {
        return false;
    }
    // a `:` before any `/` ends the scheme
    let rest = match rest.find([':', '/']) {
        Some(colon) if rest.as_bytes()[colon] == b':' => {
            if !is_scheme(&rest[..colon]) {
                return false;
            }
            &rest[colon + 1..]
        }
        _ => rest,
    };
    let path = match rest.strip_prefix("//") {
        Some(after) => {
            let end = after.find('/').unwrap_or(after.len());
            if !is_authority(&after[..end]) {
                return false;
            }
            &after[end..]
        }
        None => rest,
    };
    made_of(path, |b| is_pchar(b) || b == b'/')
}

/// `ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )`.
fn is_scheme(scheme: &str) -> bool {
    let mut bytes = scheme.bytes();
    bytes.next().is_some_and(|b| b.is_ascii_alphabetic())
        && bytes.all(|b| b.is_ascii_alphanumeric() || b"+-.".contains(&b))
}

/// `[ userinfo "@" ] host [ ":" port ]`.
fn is_authority(authority: &str) -> bool {
    let host_port = match authority.split_once('@') {
        Some((userinfo, host_port)) => {
            if !made_of(userinfo, |b| is_unreserved_or_sub_delim(b) || b == b':') {
                return false;
            }
            host_port
        }
        None => authority,
    };
    let (host, port) = match host_port.strip_prefix('[') {
        Some(literal) => {
            let Some((inside, after)) = literal.split_once(']') else {
                return false;
            };
            if !is_ip_literal(inside) {
                return false;
            }
            match after {
                "" => ("", None),
                after => match after.strip_prefix(':') {
                    Some(port) => ("", Some(port)),
                    None => return false,
                },
            }
        }
        None => match host_port.split_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (host_port, None),
        },
    };
    made_of(host, is_unreserved_or_sub_delim)
        && port.is_none_or(|port| port.bytes().all(|b| b.is_ascii_digit()))
}

/// What is between the brackets of an IP-literal: an IPv6 address, or
/// `"v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" )`.
fn is_ip_literal(inside: &str) -> bool {
    match inside.strip_prefix(['v', 'V']) {
        Some(future) => future.split_once('.').is_some_and(|(version, address)| {
            !version.is_empty()
                && version.bytes().all(|b| b.is_ascii_hexdigit())
                && !address.is_empty()
                && address
                    .bytes()
                    .all(|b| is_unreserved_or_sub_delim(b) || b == b':')
        }),
        None => inside.parse::<Ipv6Addr>().is_ok(),
    }
}

/// Whether `part` is made of `%XX` escapes and bytes `allowed` accepts.
fn made_of(part: &str, allowed: impl Fn(u8) -> bool) -> bool {
    let bytes = part.as_bytes();
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if b == b'%' {
            if escape_at(bytes, i).is_none() {
                return false;
            }
            i += 3;
        } else if allowed(b) {
            i += 1;
        } else {
            return false;
        }
    }
    true
}

/// Decodes the `%XX` escapes of `text`; `None` for a `%` without two hex digits after it, or
/// bytes that are not UTF-8.
pub(crate) fn percent_decode(text: &str) -> Option<String> {
    if !text.contains('%') {
        return Some(text.to_owned());
    }
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if b == b'%' {
            out.push(escape_at(bytes, i)?);
            i += 3;
        } else {
            out.push(b);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// The byte the `%XX` escape at `i` stands for: two hex digits after the `%`
/// (`from_str_radix` alone would take a sign, `%+f`).
fn escape_at(bytes: &[u8], i: usize) -> Option<u8> {
    let hex = bytes.get(i + 1..i + 3)?;
    if bytes.get(i) != Some(&b'%') || !hex.iter().all(u8::is_ascii_hexdigit) {
        return None;
    }
    u8::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()
}

/// `pchar` without its escapes: unreserved, sub-delims, `:` and `@`.
fn is_pchar(b: u8) -> bool {
    is_unreserved_or_sub_delim(b) || b == b':' || b == b'@'
}

fn is_unreserved_or_sub_delim(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=".contains(&b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uri_references_follow_rfc_3986() {
        for ok in [
            "https://example.com/a.json",
            "https://user:pw@example.com:8080/a/b?q=1&r=/x?#frag/x?",
            "http://[::1]:80/",
            "http://[2001:db8::7]/c=GB?objectClass?one",
            "http://[v1.fe80::a+en1]/",
            "file:///etc/x",
            "urn:x:y",
            "urn:example:weather?=op=map&lat=19.56&lon=-104.85",
            "tag:a@b.c,2001:x",
            "#/$defs/a%20b",
            "a.json#x",
            "./a:b",
            "//example.com",
            "/a//b",
            "?q",
            "",
            "#",
        ] {
            assert!(is_uri_reference(ok), "{ok}");
        }
        for bad in [
            // found by the schema fuzz target: `ur;` is no scheme, and a relative
            // reference's first segment cannot hold a `:`
            "ur;:example:weather",
            ":a",
            "1a:b",
            "https://ex ample.com/",
            "#/$defs/a b",
            "é",
            "a#b#c",
            "%zz",
            "%4",
            "a\"b",
            "a[b",
            "https://ex]ample.com/",
            "https://[::1/",
            "https://[::1]x/",
            "https://[zz]/",
            "https://[v.x]/",
            "https://example.com:8o/",
            "https://a@b@c/",
            "https://a:b:c/",
            "http://example.com/{x}",
        ] {
            assert!(!is_uri_reference(bad), "{bad}");
        }
    }
}
