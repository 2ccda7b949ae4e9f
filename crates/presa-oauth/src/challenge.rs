//! Reading `WWW-Authenticate` (RFC 9110 §11.6.1, RFC 6750 §3, RFC 9728 §5.1, RFC 9449 §7.1).

/// One challenge: its scheme, lowercased, and its parameters (names lowercased).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Challenge {
    pub(crate) scheme: String,
    pub(crate) params: Vec<(String, String)>,
}

impl Challenge {
    fn param(&self, name: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// What the OAuth client takes from a refusal's challenges: the first `Bearer` or `DPoP`
/// challenge's parameters.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct AuthChallenge {
    /// The challenge used the `DPoP` scheme.
    pub(crate) dpop: bool,
    /// A `DPoP` challenge was among the challenges (even after a `Bearer` one).
    pub(crate) dpop_offered: bool,
    pub(crate) resource_metadata: Option<String>,
    /// The scopes of `scope`, split on spaces.
    pub(crate) scope: Option<Vec<String>>,
    pub(crate) error: Option<String>,
}

impl AuthChallenge {
    /// Reads a `WWW-Authenticate` header (several fields joined with `, `).
    pub(crate) fn read(header: Option<&str>) -> Self {
        let challenges = header.map(parse).unwrap_or_default();
        let dpop_offered = challenges.iter().any(|c| c.scheme == "dpop");
        let Some(challenge) = challenges
            .iter()
            .find(|c| c.scheme == "bearer" || c.scheme == "dpop")
        else {
            return Self {
                dpop_offered,
                ..Self::default()
            };
        };
        let scope = challenge.param("scope").map(|s| {
            s.split_ascii_whitespace()
                .map(str::to_owned)
                .collect::<Vec<_>>()
        });
        Self {
            dpop: challenge.scheme == "dpop",
            dpop_offered,
            resource_metadata: challenge.param("resource_metadata").map(str::to_owned),
            scope: scope.filter(|s| !s.is_empty()),
            error: challenge.param("error").map(str::to_owned),
        }
    }
}

/// Parses a `WWW-Authenticate` value into its challenges. Lenient: what does not parse ends
/// the current parameter list, nothing fails.
pub(crate) fn parse(header: &str) -> Vec<Challenge> {
    let mut lexer = Lexer {
        bytes: header.as_bytes(),
        at: 0,
    };
    let mut challenges = Vec::new();
    loop {
        lexer.skip(|b| b == b',' || is_space(b));
        let Some(scheme) = lexer.token() else {
            // not a token: skip one byte and look again
            if lexer.at >= lexer.bytes.len() {
                break;
            }
            lexer.at += 1;
            continue;
        };
        let mut challenge = Challenge {
            scheme: scheme.to_ascii_lowercase(),
            params: Vec::new(),
        };
        // parameters: `name = value`, separated by commas
        loop {
            let mark = lexer.at;
            lexer.skip(|b| b == b',' || is_space(b));
            let Some(name) = lexer.token() else {
                lexer.at = mark;
                break;
            };
            lexer.skip(is_space);
            if lexer.peek() != Some(b'=') {
                // the next challenge's scheme
                lexer.at = mark;
                break;
            }
            lexer.at += 1;
            lexer.skip(is_space);
            let value = if lexer.peek() == Some(b'"') {
                lexer.quoted()
            } else {
                lexer.token().unwrap_or_default()
            };
            challenge.params.push((name.to_ascii_lowercase(), value));
        }
        challenges.push(challenge);
    }
    challenges
}

struct Lexer<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Lexer<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn skip(&mut self, what: impl Fn(u8) -> bool) {
        while self.peek().is_some_and(&what) {
            self.at += 1;
        }
    }

    /// An RFC 9110 token (also accepts the `/` and `=`-free token68 characters).
    fn token(&mut self) -> Option<String> {
        let start = self.at;
        self.skip(is_tchar);
        (self.at > start).then(|| String::from_utf8_lossy(&self.bytes[start..self.at]).into_owned())
    }

    /// A quoted string, unescaped; the lexer is on its opening quote.
    fn quoted(&mut self) -> String {
        let mut out = Vec::new();
        self.at += 1;
        while let Some(b) = self.peek() {
            self.at += 1;
            match b {
                b'"' => break,
                b'\\' => {
                    if let Some(escaped) = self.peek() {
                        out.push(escaped);
                        self.at += 1;
                    }
                }
                _ => out.push(b),
            }
        }
        String::from_utf8_lossy(&out).into_owned()
    }
}

fn is_space(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

fn is_tchar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~/:".contains(&b)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(header: &str, expect: &[(&str, &[(&str, &str)])]) {
        let parsed = parse(header);
        let got: Vec<(&str, Vec<(&str, &str)>)> = parsed
            .iter()
            .map(|c| {
                (
                    c.scheme.as_str(),
                    c.params
                        .iter()
                        .map(|(n, v)| (n.as_str(), v.as_str()))
                        .collect(),
                )
            })
            .collect();
        let expect: Vec<(&str, Vec<(&str, &str)>)> =
            expect.iter().map(|(s, p)| (*s, p.to_vec())).collect();
        assert_eq!(got, expect, "{header}");
    }

    #[test]
    fn bearer_with_resource_metadata_and_scope() {
        check(
            r#"Bearer resource_metadata="https://api.example.net/.well-known/oauth-protected-resource/mcp", scope="tickets:read""#,
            &[(
                "bearer",
                &[
                    (
                        "resource_metadata",
                        "https://api.example.net/.well-known/oauth-protected-resource/mcp",
                    ),
                    ("scope", "tickets:read"),
                ],
            )],
        );
    }

    #[test]
    fn several_challenges_tokens_and_escapes() {
        check(
            r#"Basic realm="x", DPoP error=use_dpop_nonce, algs="ES256 PS256", Bearer error_description="a \"b\"""#,
            &[
                ("basic", &[("realm", "x")]),
                (
                    "dpop",
                    &[("error", "use_dpop_nonce"), ("algs", "ES256 PS256")],
                ),
                ("bearer", &[("error_description", "a \"b\"")]),
            ],
        );
        check("Bearer", &[("bearer", &[])]);
        check("", &[]);
        check(
            "  bearer   SCOPE = \"a  b\" ,,",
            &[("bearer", &[("scope", "a  b")])],
        );
    }

    #[test]
    fn the_auth_challenge_prefers_the_first_bearer_or_dpop() {
        let challenge = AuthChallenge::read(Some(
            r#"Basic realm="r", Bearer error="insufficient_scope", scope="mcp:basic  mcp:write", resource_metadata="https://rs/prm""#,
        ));
        assert_eq!(
            challenge,
            AuthChallenge {
                dpop: false,
                dpop_offered: false,
                resource_metadata: Some("https://rs/prm".into()),
                scope: Some(vec!["mcp:basic".into(), "mcp:write".into()]),
                error: Some("insufficient_scope".into()),
            }
        );
        let dpop = AuthChallenge::read(Some(r#"DPoP resource_metadata="https://rs/prm""#));
        assert!(dpop.dpop && dpop.dpop_offered);
        assert_eq!(AuthChallenge::read(None), AuthChallenge::default());
        // an empty scope is no scope
        assert_eq!(AuthChallenge::read(Some(r#"Bearer scope="""#)).scope, None);
    }
}
