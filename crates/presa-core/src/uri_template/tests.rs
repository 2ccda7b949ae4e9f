//! Unit tests of `uri_template`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;

use super::*;

#[track_caller]
fn check(template: &str, uri: &str, expect: Option<&[(&str, &str)]>) {
    let template = UriTemplate::parse(template).unwrap();
    let got = template.match_uri(uri);
    let expect = expect.map(|pairs| {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect::<BTreeMap<_, _>>()
    });
    assert_eq!(got, expect, "{template} ~ {uri}");
    assert_eq!(template.is_match(uri), got.is_some());
}

#[test]
fn simple_variables() {
    check("people://{id}", "people://ada", Some(&[("id", "ada")]));
    check("people://{id}", "people://", None);
    check("people://{id}", "people://ada/x", None);
    check("people://{id}", "people://ada?x=1", None);
    check("people://{id}", "people://ada#top", None);
    check("people://{id}", "persons://ada", None);
    check(
        "test://template/{id}/data",
        "test://template/123/data",
        Some(&[("id", "123")]),
    );
    check(
        "test://template/{id}/data",
        "test://template/123/data/",
        None,
    );
    check("test://template/{id}/data", "test://template//data", None);
    check(
        "db://{schema}/{table}",
        "db://public/orders",
        Some(&[("schema", "public"), ("table", "orders")]),
    );
    check("db://{schema}/{table}", "db://public/orders/x", None);
    check("db://{schema}/{table}", "db://public", None);
}

/// Found by the uri_template fuzz target: the shortest split of `%7Dbxx` gave `a` the
/// lone `%`, which does not decode, and the URI did not match its own expansion.
#[test]
fn variables_never_split_an_escape_or_a_character() {
    check("{a}{b}", "%7Dbxx", Some(&[("a", "}"), ("b", "bxx")]));
    check("{a}{b}", "%C3%A9x", Some(&[("a", "é"), ("b", "x")]));
    check("{a}-{b}", "%2D-x", Some(&[("a", "-"), ("b", "x")]));
    check("x{a}", "x%", None);
    check("{a}{b}", "%FFx", None);
    // a continuation escape after no escape is a literal's (found by the fuzz target)
    check("{a}{b}%BF", "xx%BF", Some(&[("a", "x"), ("b", "x")]));
    // nor after a whole character: `é` is `%C3` and one continuation, the `%80` is the
    // literal's (the cut used to glue any continuation escape to the escape before it)
    check("{a}%80", "%C3%A9%80", Some(&[("a", "é")]));
    check(
        "{a}%BF{b}",
        "%E2%82%AC%BFx",
        Some(&[("a", "€"), ("b", "x")]),
    );
    // a lead escape without its continuation is cut after, and the value fails to decode
    check("{a}{b}", "%C3%41", None);
    // a `{var}` takes the shortest value that decodes, past a `{+var}` that would have
    // left it an undecodable one (found by the fuzz target)
    check(
        "/{+p}{a}",
        "/%EF%BF%BDEF%BF%BfD%25",
        Some(&[("p", "%EF%BF%BDEF%BF%Bf"), ("a", "D%")]),
    );
    check("{+p}{a}", "%BFx", Some(&[("p", "%BF"), ("a", "x")]));
    // overlong, surrogate and out-of-range forms do not decode: a `{+var}` before takes them
    for bad in [
        "%C0%80",
        "%ED%A0%80",
        "%F4%90%80%80",
        "%E0%80%80",
        "%FF",
        "%C3",
    ] {
        check("{a}", &format!("x{bad}"), None);
        check(
            "{+p}{a}",
            &format!("{bad}x"),
            Some(&[("p", bad), ("a", "x")]),
        );
    }
    // `{+var}` keeps escapes as written, but never splits one
    check("{+a}{+b}", "%41x", Some(&[("a", "%41"), ("b", "x")]));
    check("{+a}{+b}", "%C3%A9", Some(&[("a", "%C3"), ("b", "%A9")]));
    // raw UTF-8 is split between characters only
    check("{a}{b}", "éa", Some(&[("a", "é"), ("b", "a")]));
    let template = UriTemplate::parse("{a}{b}").unwrap();
    for (a, b) in [("}bx", "x"), ("é", "ü"), ("%", "%%"), ("a b", "c")] {
        let uri = template.expand([("a", a), ("b", b)]);
        assert!(template.is_match(&uri), "{uri}");
    }
}

#[test]
fn reserved_variables() {
    check(
        "file:///{+path}",
        "file:///a/b/c.txt",
        Some(&[("path", "a/b/c.txt")]),
    );
    check("file:///{+path}", "file:///a/b/", Some(&[("path", "a/b/")]));
    check("file:///{+path}", "file:///", None);
    // Reserved values are not decoded.
    check(
        "file:///{+path}",
        "file:///a%20b/c",
        Some(&[("path", "a%20b/c")]),
    );
    check(
        "file:///{+path}",
        "file:///a?b#c",
        Some(&[("path", "a?b#c")]),
    );
    check(
        "repo://{owner}/{+rest}",
        "repo://me/src/lib.rs",
        Some(&[("owner", "me"), ("rest", "src/lib.rs")]),
    );
}

#[test]
fn adjacent_literal_text() {
    check(
        "doc://{name}.json",
        "doc://report.json",
        Some(&[("name", "report")]),
    );
    // The literal suffix is anchored at the end: a shorter value would leave text over.
    check(
        "doc://{name}.json",
        "doc://a.json.json",
        Some(&[("name", "a.json")]),
    );
    check("doc://{name}.json", "doc://.json", None);
    check(
        "file:///{+path}.txt",
        "file:///a/b.txt.txt",
        Some(&[("path", "a/b.txt")]),
    );
    check(
        "v{major}.{minor}",
        "v1.2.3",
        Some(&[("major", "1"), ("minor", "2.3")]),
    );
    // Shortest first, left to right.
    check(
        "x://{a}-{b}",
        "x://x-y-z",
        Some(&[("a", "x"), ("b", "y-z")]),
    );
    // Backtracking across a reserved variable.
    check(
        "x://{+a}/x/{b}",
        "x://p/x/q/x/r",
        Some(&[("a", "p/x/q"), ("b", "r")]),
    );
    // Adjacent variables: the first takes one character.
    check("x://{a}{b}", "x://xyz", Some(&[("a", "x"), ("b", "yz")]));
    check("x://{a}{b}", "x://é€", Some(&[("a", "é"), ("b", "€")]));
    check("x://{a}{b}", "x://é", None);
}

#[test]
fn trailing_slashes() {
    check("file:///{dir}/", "file:///a/", Some(&[("dir", "a")]));
    check("file:///{dir}/", "file:///a", None);
    check("file:///{dir}", "file:///a/", None);
    check("file:///{+dir}/", "file:///a/b/", Some(&[("dir", "a/b")]));
}

#[test]
fn percent_encoded_input() {
    check("people://{id}", "people://a%20b", Some(&[("id", "a b")]));
    check(
        "people://{id}",
        "people://caf%C3%A9",
        Some(&[("id", "café")]),
    );
    // An encoded slash is data inside one segment.
    check("people://{id}", "people://a%2Fb", Some(&[("id", "a/b")]));
    check("people://{id}", "people://100%", None);
    check("people://{id}", "people://%zz", None);
    check("people://{id}", "people://%FF", None);
    // Raw non-ASCII is accepted as is.
    check("people://{id}", "people://zoë", Some(&[("id", "zoë")]));
}

#[test]
fn literal_only_and_empty() {
    check("file:///readme.txt", "file:///readme.txt", Some(&[]));
    check("file:///readme.txt", "file:///readme.txt/", None);
    check("", "", Some(&[]));
    check("", "x", None);
    check(
        "{+all}",
        "anything/at all",
        Some(&[("all", "anything/at all")]),
    );
}

#[test]
fn long_hostile_uris_are_linear() {
    let template = UriTemplate::parse("x://{+a}x{+b}x{+c}x{+d}y").unwrap();
    let uri = format!("x://{}", "x".repeat(200_000));
    assert_eq!(template.match_uri(&uri), None);
    let uri = format!("{uri}y");
    let vars = template.match_uri(&uri).unwrap();
    assert_eq!(vars["a"], "x");
    assert_eq!(vars["d"].len(), 200_000 - 6);
}

#[test]
fn expand() {
    let template = UriTemplate::parse("db://{schema}/{+path}").unwrap();
    assert_eq!(
        template.expand([("schema", "public"), ("path", "a/b")]),
        "db://public/a/b"
    );
    assert_eq!(
        template.expand([("schema", "a b/c"), ("path", "x y/z")]),
        "db://a%20b%2Fc/x%20y/z"
    );
    assert_eq!(
        template.expand([("schema", "é"), ("path", "é")]),
        "db://%C3%A9/%C3%A9"
    );
    // Reserved expansion keeps valid escapes and reserved characters, encodes a stray %.
    assert_eq!(
        template.expand([("schema", "%20"), ("path", "%20?q=1&r#f")]),
        "db://%2520/%20?q=1&r#f"
    );
    assert_eq!(
        template.expand([("schema", "x"), ("path", "100%")]),
        "db://x/100%25"
    );
    // Missing variables expand to nothing.
    assert_eq!(template.expand([("schema", "x")]), "db://x/");
    let map: HashMap<String, String> = [("schema".to_owned(), "s".to_owned())].into();
    assert_eq!(template.expand(&map), "db://s/");
    let empty: [(&str, &str); 0] = [];
    assert_eq!(template.expand(empty), "db:///");
    // Unreserved characters go out as they are.
    assert_eq!(template.expand([("schema", "A-z_0.9~")]), "db://A-z_0.9~/");
}

#[test]
fn expand_then_match_round_trips() {
    let template = UriTemplate::parse("people://{id}/notes/{+rest}").unwrap();
    for (id, rest) in [
        ("ada", "a/b"),
        ("a b/c?d#e%", "x/y%20z"),
        ("zoë", "ü/ö"),
        ("-._~", "::@"),
    ] {
        let uri = template.expand([("id", id), ("rest", rest)]);
        let vars = template.match_uri(&uri).unwrap();
        assert_eq!(vars["id"], id, "{uri}");
        assert_eq!(template.expand(&vars), uri);
    }
}

#[test]
fn variables_are_listed() {
    let template = UriTemplate::parse("repo://{owner}/{name}/{+path}").unwrap();
    assert_eq!(
        template.variables().collect::<Vec<_>>(),
        ["owner", "name", "path"]
    );
    assert_eq!(template.as_str(), "repo://{owner}/{name}/{+path}");
    assert_eq!(template.to_string(), "repo://{owner}/{name}/{+path}");
    assert_eq!(
        "a{b.c_1}"
            .parse::<UriTemplate>()
            .unwrap()
            .variables()
            .collect::<Vec<_>>(),
        ["b.c_1"]
    );
}

#[test]
fn parse_errors() {
    let err = |t: &str| UriTemplate::parse(t).unwrap_err();
    assert_eq!(
        err("people://{id"),
        UriTemplateError::UnclosedBrace { position: 9 }
    );
    assert_eq!(
        err("people://{a{b}"),
        UriTemplateError::UnclosedBrace { position: 9 }
    );
    assert_eq!(
        err("people://id}"),
        UriTemplateError::UnexpectedClosingBrace { position: 11 }
    );
    assert_eq!(err("x{}"), UriTemplateError::EmptyVariable { position: 1 });
    assert_eq!(err("x{+}"), UriTemplateError::EmptyVariable { position: 1 });
    for op in ['#', '.', '/', ';', '?', '&', '=', ',', '!', '@', '|'] {
        assert_eq!(
            err(&format!("x{{{op}a}}")),
            UriTemplateError::UnsupportedOperator {
                operator: op,
                position: 1
            }
        );
    }
    assert_eq!(
        err("x{a,b}"),
        UriTemplateError::VariableList { position: 1 }
    );
    // RFC 6570 literals hold `%` only as `%XX`: `100%{x}` could not match its expansion
    for (template, position) in [("100%{x}", 3), ("x%4{a}", 1), ("a%20b%", 5), ("%zz", 0)] {
        assert_eq!(err(template), UriTemplateError::InvalidEscape { position });
    }
    assert!(UriTemplate::parse("a%20{b}%2f").is_ok());
    assert_eq!(
        err("x{a:3}"),
        UriTemplateError::UnsupportedModifier { position: 1 }
    );
    assert_eq!(
        err("x{a*}"),
        UriTemplateError::UnsupportedModifier { position: 1 }
    );
    for name in ["a b", "a-b", "é", "a.", "a..b", "a.b.", "a%20"] {
        assert_eq!(
            err(&format!("x{{{name}}}")),
            UriTemplateError::InvalidVariableName {
                name: name.to_owned(),
                position: 1
            }
        );
    }
    assert_eq!(
        err("x{a}/{+a}"),
        UriTemplateError::DuplicateVariable {
            name: "a".to_owned()
        }
    );
    assert_eq!(
        err("é{a b}").to_string(),
        "invalid variable name \"a b\" at byte 2"
    );
    assert_eq!(
        err("x{#a}").to_string(),
        "unsupported operator '#' at byte 1 (only {var} and {+var})"
    );
}
