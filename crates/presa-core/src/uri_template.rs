//! RFC 6570 URI templates, the subset resource templates use: see [`UriTemplate`].

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

/// A parsed RFC 6570 URI template, in the subset resource templates use: `{var}` and `{+var}`.
///
/// A server registers resource templates such as `people://{id}` or `file:///{+path}`; a
/// `resources/read` whose URI is no fixed resource is matched against the templates, in
/// registration order, and the first match's variables go to that template's handler (no
/// match: `-32602` "Resource not found" with the URI in `data`). The variable names are what
/// `completion/complete` completes for a `ref/resource`.
///
/// | Expression | Matches | Expands |
/// |---|---|---|
/// | `{var}` | one or more characters other than `/`, `?` and `#`; percent-decoded | percent-encodes everything but unreserved characters (`A–Z a–z 0–9 - . _ ~`) |
/// | `{+var}` | one or more characters, `/` included; returned as written (not decoded) | also keeps reserved characters (`:/?#[]@!$&'()*+,;=`) and `%XX` triplets |
///
/// Other operators (`#`, `.`, `/`, `;`, `?`, `&`), variable lists (`{a,b}`) and modifiers
/// (`{var:3}`, `{var*}`) are refused when parsing.
///
/// Matching is anchored at both ends. A variable matches at least one character: `people://`
/// does not match `people://{id}` (although expanding an empty `id` gives it). When several
/// splits of a URI fit, each variable takes the shortest value that lets the rest match, left
/// to right: `{a}-{b}` on `x-y-z` gives `a = x`, `b = y-z`. Matching takes time linear in the
/// URI's length times the template's number of parts, whatever the URI.
///
/// `{+var}` values are not decoded because reserved expansion cannot tell `%2F` from `/`;
/// decode them with [`percent_decode`] if the handler wants to.
///
/// ```
/// use presa_core::UriTemplate;
///
/// let template = UriTemplate::parse("test://template/{id}/data").unwrap();
/// assert_eq!(template.variables().collect::<Vec<_>>(), ["id"]);
///
/// let vars = template.match_uri("test://template/123/data").unwrap();
/// assert_eq!(vars["id"], "123");
/// assert_eq!(template.match_uri("test://template/1/2/data"), None);
///
/// assert_eq!(template.expand([("id", "a b")]), "test://template/a%20b/data");
///
/// let files = UriTemplate::parse("file:///{+path}").unwrap();
/// assert_eq!(files.match_uri("file:///src/main.rs").unwrap()["path"], "src/main.rs");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct UriTemplate {
    source: String,
    parts: Vec<Part>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Part {
    Literal(String),
    Variable { name: String, reserved: bool },
}

impl UriTemplate {
    /// Parses a template.
    pub fn parse(template: &str) -> Result<Self, UriTemplateError> {
        let mut parts: Vec<Part> = Vec::new();
        let mut literal = String::new();
        let mut rest = template;
        let mut offset = 0;
        while let Some(c) = rest.chars().next() {
            match c {
                '{' => {
                    let close = rest
                        .find('}')
                        .ok_or(UriTemplateError::UnclosedBrace { position: offset })?;
                    let body = rest.get(1..close).unwrap_or_default();
                    if body.contains('{') {
                        // `{a{b}`: the first brace is not closed before the next opens.
                        return Err(UriTemplateError::UnclosedBrace { position: offset });
                    }
                    if !literal.is_empty() {
                        parts.push(Part::Literal(std::mem::take(&mut literal)));
                    }
                    let variable = parse_expression(body, offset)?;
                    if let Part::Variable { name, .. } = &variable {
                        let duplicate = parts.iter().any(
                            |p| matches!(p, Part::Variable { name: other, .. } if other == name),
                        );
                        if duplicate {
                            return Err(UriTemplateError::DuplicateVariable { name: name.clone() });
                        }
                    }
                    parts.push(variable);
                    rest = rest.get(close + 1..).unwrap_or_default();
                    offset += close + 1;
                }
                '}' => return Err(UriTemplateError::UnexpectedClosingBrace { position: offset }),
                '%' if escape_at(rest.as_bytes(), 0).is_none() => {
                    return Err(UriTemplateError::InvalidEscape { position: offset });
                }
                c => {
                    literal.push(c);
                    rest = rest.get(c.len_utf8()..).unwrap_or_default();
                    offset += c.len_utf8();
                }
            }
        }
        if !literal.is_empty() {
            parts.push(Part::Literal(literal));
        }
        Ok(Self {
            source: template.to_owned(),
            parts,
        })
    }

    /// The template as written.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// The variable names, in order of appearance (each appears once).
    pub fn variables(&self) -> impl Iterator<Item = &str> + '_ {
        self.parts.iter().filter_map(|part| match part {
            Part::Variable { name, .. } => Some(name.as_str()),
            Part::Literal(_) => None,
        })
    }

    /// Whether `uri` matches the template.
    pub fn is_match(&self, uri: &str) -> bool {
        self.match_uri(uri).is_some()
    }

    /// Matches `uri` against the template; the variables' values by name, or `None`.
    ///
    /// `{var}` values are percent-decoded; a `{var}` holding an invalid `%` escape, or one
    /// that decodes to bytes that are not UTF-8, makes the URI not match.
    pub fn match_uri(&self, uri: &str) -> Option<BTreeMap<String, String>> {
        // Cheap rejections first: servers try many templates per read.
        if let Some(Part::Literal(first)) = self.parts.first()
            && !uri.starts_with(first.as_str())
        {
            return None;
        }
        if let Some(Part::Literal(last)) = self.parts.last()
            && !uri.ends_with(last.as_str())
        {
            return None;
        }
        let table = self.match_table(uri);
        if !table.first()?.get(0) {
            return None;
        }
        let bytes = uri.as_bytes();
        let cuts = CutPoints::of(bytes);
        let mut vars = BTreeMap::new();
        let mut pos = 0;
        for (i, part) in self.parts.iter().enumerate() {
            match part {
                Part::Literal(lit) => pos += lit.len(),
                Part::Variable { name, reserved } => {
                    let next = table.get(i + 1)?;
                    // The table says some end fits; take the smallest.
                    let mut found = None;
                    for end in pos + 1..=bytes.len() {
                        if !*reserved && bytes.get(end - 1).is_some_and(|&b| is_segment_stop(b)) {
                            break;
                        }
                        // the smallest end: if its value cannot decode, no longer one can
                        if cuts.at(end, *reserved) && next.get(end) {
                            found = Some(end).filter(|&end| cuts.fits(pos, end, *reserved));
                            break;
                        }
                    }
                    let end = found?;
                    let raw = uri.get(pos..end)?;
                    let value = if *reserved {
                        raw.to_owned()
                    } else {
                        percent_decode(raw)?
                    };
                    vars.insert(name.clone(), value);
                    pos = end;
                }
            }
        }
        Some(vars)
    }

    /// For each part `i`, the set of positions `p` such that parts `i..` match `uri[p..]`.
    /// Computed right to left, each part in one pass over the URI.
    fn match_table(&self, uri: &str) -> Vec<BitSet> {
        let bytes = uri.as_bytes();
        let n = bytes.len();
        let cuts = CutPoints::of(bytes);
        let mut table = vec![BitSet::new(n + 1); self.parts.len() + 1];
        if let Some(last) = table.last_mut() {
            last.set(n);
        }
        for (i, part) in self.parts.iter().enumerate().rev() {
            let (current, after) = table.split_at_mut(i + 1);
            let (Some(current), Some(next)) = (current.last_mut(), after.first()) else {
                continue;
            };
            match part {
                Part::Literal(lit) => {
                    let lit = lit.as_bytes();
                    for pos in 0..=n.saturating_sub(lit.len()) {
                        if next.get(pos + lit.len()) && bytes.get(pos..pos + lit.len()) == Some(lit)
                        {
                            current.set(pos);
                        }
                    }
                }
                Part::Variable { reserved, .. } => {
                    // Smallest end > pos the rest matches from, and first `/?#` at or after pos.
                    // A value that cannot decode only grows with its end: the smallest decides.
                    let mut next_end: Option<usize> = None;
                    let mut stop = n;
                    for pos in (0..=n).rev() {
                        if !reserved && bytes.get(pos).is_some_and(|&b| is_segment_stop(b)) {
                            stop = pos;
                        }
                        let limit = if *reserved { n } else { stop };
                        let boundary = cuts.at(pos, *reserved);
                        if boundary
                            && next_end
                                .is_some_and(|end| end <= limit && cuts.fits(pos, end, *reserved))
                        {
                            current.set(pos);
                        }
                        if boundary && next.get(pos) {
                            next_end = Some(pos);
                        }
                    }
                }
            }
        }
        table
    }

    /// Expands the template with the given variables (any iterator of name–value pairs, e.g. a
    /// `&HashMap<String, String>` or an array of tuples). A variable without a value expands to
    /// nothing, as RFC 6570 says of undefined variables.
    pub fn expand<I, K, V>(&self, vars: I) -> String
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<str>,
        V: AsRef<str>,
    {
        let vars: Vec<(K, V)> = vars.into_iter().collect();
        let lookup = |name: &str| {
            vars.iter()
                .find(|(k, _)| k.as_ref() == name)
                .map(|(_, v)| v.as_ref())
        };
        let mut out = String::with_capacity(self.source.len());
        for part in &self.parts {
            match part {
                Part::Literal(lit) => out.push_str(lit),
                Part::Variable { name, reserved } => {
                    if let Some(value) = lookup(name) {
                        encode_into(&mut out, value, *reserved);
                    }
                }
            }
        }
        out
    }
}

impl fmt::Display for UriTemplate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.source)
    }
}

impl FromStr for UriTemplate {
    type Err = UriTemplateError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s)
    }
}

/// Parses the inside of `{…}` that starts at byte `open`.
fn parse_expression(body: &str, open: usize) -> Result<Part, UriTemplateError> {
    let (reserved, name) = match body.chars().next() {
        Some('+') => (true, body.get(1..).unwrap_or_default()),
        Some(op @ ('#' | '.' | '/' | ';' | '?' | '&' | '=' | ',' | '!' | '@' | '|')) => {
            return Err(UriTemplateError::UnsupportedOperator {
                operator: op,
                position: open,
            });
        }
        _ => (false, body),
    };
    if name.is_empty() {
        return Err(UriTemplateError::EmptyVariable { position: open });
    }
    if name.contains(',') {
        return Err(UriTemplateError::VariableList { position: open });
    }
    if name.ends_with('*') || name.contains(':') {
        return Err(UriTemplateError::UnsupportedModifier { position: open });
    }
    let valid = name.split('.').all(|piece| {
        !piece.is_empty()
            && piece
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_')
    });
    if !valid {
        return Err(UriTemplateError::InvalidVariableName {
            name: name.to_owned(),
            position: open,
        });
    }
    Ok(Part::Variable {
        name: name.to_owned(),
        reserved,
    })
}

/// Where a variable's value may start or end in a URI, and which `{var}` values decode.
struct CutPoints {
    /// For `{var}`: at a character boundary that splits neither a `%XX` escape nor the escapes
    /// of one UTF-8 character (the continuation escapes, `%80`–`%BF`, a lead escape expects).
    /// So `{a}{b}` matches `%7Dbxx` with `a = "}"`, the shortest value that decodes.
    decoded: BitSet,
    /// For `{+var}`, whose value is kept as written: at a character boundary that splits no
    /// `%XX` escape.
    reserved: BitSet,
    /// For each position, how many escapes that cannot decode start before it: a continuation
    /// no lead expects, a byte UTF-8 never has, a lead its continuations do not all follow, an
    /// overlong or surrogate form. The cuts never split one, so a `{var}` value decodes iff
    /// none starts inside it.
    undecodable_before: Vec<usize>,
}

/// A lead escape whose continuations are still expected.
struct Open {
    start: usize,
    bytes: [u8; 4],
    len: usize,
    expected: u8,
}

impl CutPoints {
    fn of(bytes: &[u8]) -> Self {
        let n = bytes.len();
        let mut decoded = BitSet::new(n + 1);
        let mut reserved = BitSet::new(n + 1);
        let mut undecodable = BitSet::new(n + 1);
        let mut open: Option<Open> = None;
        let mut pos = 0;
        while pos <= n {
            // raw UTF-8: continuation bytes are no boundary
            let boundary = bytes.get(pos).is_none_or(|&b| (b & 0xc0) != 0x80);
            let escape = escape_at(bytes, pos);
            let continues = open.is_some() && escape.is_some_and(|b| (0x80..=0xbf).contains(&b));
            if boundary {
                reserved.set(pos);
                if !continues {
                    decoded.set(pos);
                }
            }
            match (escape, open.as_mut()) {
                (Some(b), Some(sequence)) if continues => {
                    if let Some(slot) = sequence.bytes.get_mut(sequence.len) {
                        *slot = b;
                    }
                    sequence.len += 1;
                    sequence.expected -= 1;
                    if sequence.expected == 0 {
                        let whole = sequence.bytes.get(..sequence.len).unwrap_or_default();
                        if std::str::from_utf8(whole).is_err() {
                            undecodable.set(sequence.start);
                        }
                        open = None;
                    }
                }
                (escape, _) => {
                    // a sequence cut short by anything but its continuation
                    if let Some(sequence) = open.take() {
                        undecodable.set(sequence.start);
                    }
                    match escape.map(|b| (b, continuations_after(b))) {
                        Some((b, 0)) if !b.is_ascii() => undecodable.set(pos),
                        Some((b, expected @ 1..)) => {
                            open = Some(Open {
                                start: pos,
                                bytes: [b, 0, 0, 0],
                                len: 1,
                                expected,
                            });
                        }
                        _ => {}
                    }
                }
            }
            // skip over the inside of an escape
            pos += if escape.is_some() { 3 } else { 1 };
        }
        let mut undecodable_before = Vec::with_capacity(n + 1);
        let mut count = 0;
        for at in 0..=n {
            undecodable_before.push(count);
            if undecodable.get(at) {
                count += 1;
            }
        }
        Self {
            decoded,
            reserved,
            undecodable_before,
        }
    }

    /// Whether a value of a variable (`reserved` for `{+var}`) may start or end at `pos`.
    fn at(&self, pos: usize, reserved: bool) -> bool {
        if reserved {
            self.reserved.get(pos)
        } else {
            self.decoded.get(pos)
        }
    }

    /// Whether the value `start..end` of a variable is one it can take: any for `{+var}`, one
    /// that decodes for `{var}`.
    fn fits(&self, start: usize, end: usize, reserved: bool) -> bool {
        reserved || self.undecodable_before.get(start) == self.undecodable_before.get(end)
    }
}

/// How many continuation bytes UTF-8 puts after `lead` (none for ASCII and bytes that lead
/// nothing valid).
fn continuations_after(lead: u8) -> u8 {
    match lead {
        0xc2..=0xdf => 1,
        0xe0..=0xef => 2,
        0xf0..=0xf4 => 3,
        _ => 0,
    }
}

/// The byte a `%XX` escape at `i` stands for, if there is one.
fn escape_at(bytes: &[u8], i: usize) -> Option<u8> {
    let hex = bytes.get(i + 1..i + 3)?;
    if bytes.get(i) != Some(&b'%') || !hex.iter().all(u8::is_ascii_hexdigit) {
        return None;
    }
    u8::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()
}

/// What a `{var}` value cannot contain: it is one path segment, before any query or fragment.
fn is_segment_stop(b: u8) -> bool {
    matches!(b, b'/' | b'?' | b'#')
}

fn is_unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~')
}

fn is_reserved(b: u8) -> bool {
    matches!(
        b,
        b':' | b'/'
            | b'?'
            | b'#'
            | b'['
            | b']'
            | b'@'
            | b'!'
            | b'$'
            | b'&'
            | b'\''
            | b'('
            | b')'
            | b'*'
            | b'+'
            | b','
            | b';'
            | b'='
    )
}

fn encode_into(out: &mut String, value: &str, reserved: bool) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let bytes = value.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        let keep = is_unreserved(b)
            || (reserved
                && (is_reserved(b)
                    || (b == b'%'
                        && bytes.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
                        && bytes.get(i + 2).is_some_and(u8::is_ascii_hexdigit))));
        if keep {
            out.push(char::from(b));
        } else {
            out.push('%');
            out.push(char::from(HEX[usize::from(b >> 4)]));
            out.push(char::from(HEX[usize::from(b & 0xf)]));
        }
    }
}

/// Percent-encodes every byte of `value` but RFC 3986's unreserved characters (letters, digits,
/// `-`, `.`, `_`, `~`): what a path segment of a URI can carry whatever the text.
///
/// ```
/// assert_eq!(presa_core::percent_encode("W 9/ä.md"), "W%209%2F%C3%A4.md");
/// ```
pub fn percent_encode(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    encode_into(&mut out, value, false);
    out
}

/// Decodes `%XX` escapes; `None` for a malformed escape or a result that is not UTF-8.
///
/// ```
/// use presa_core::percent_decode;
///
/// assert_eq!(percent_decode("a%20b%2Fc").as_deref(), Some("a b/c"));
/// assert_eq!(percent_decode("caf%C3%A9").as_deref(), Some("café"));
/// assert_eq!(percent_decode("100%"), None);
/// assert_eq!(percent_decode("%FF"), None);
/// ```
pub fn percent_decode(text: &str) -> Option<String> {
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

/// A fixed-size set of positions.
#[derive(Clone)]
struct BitSet(Vec<u64>);

impl BitSet {
    fn new(len: usize) -> Self {
        Self(vec![0; len.div_ceil(64)])
    }

    fn set(&mut self, i: usize) {
        if let Some(word) = self.0.get_mut(i / 64) {
            *word |= 1 << (i % 64);
        }
    }

    fn get(&self, i: usize) -> bool {
        self.0
            .get(i / 64)
            .is_some_and(|word| word & (1 << (i % 64)) != 0)
    }
}

/// Why a URI template was refused. Positions are byte offsets into the template: of the
/// offending brace, the expression's `{`, or the lone `%`.
///
/// A template is written by the server's author, so this is a build-time error with no
/// JSON-RPC counterpart.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum UriTemplateError {
    /// A `{` without its `}`, or a `{` inside an expression.
    UnclosedBrace {
        /// Where the `{` is.
        position: usize,
    },
    /// A `}` outside an expression.
    UnexpectedClosingBrace {
        /// Where the `}` is.
        position: usize,
    },
    /// `{}` or `{+}`.
    EmptyVariable {
        /// Where the expression starts.
        position: usize,
    },
    /// A name with characters other than ASCII letters, digits, `_` and inner single dots.
    InvalidVariableName {
        /// The name as written.
        name: String,
        /// Where the expression starts.
        position: usize,
    },
    /// An operator other than `+` (`#`, `.`, `/`, `;`, `?`, `&`, or a reserved one).
    UnsupportedOperator {
        /// The operator.
        operator: char,
        /// Where the expression starts.
        position: usize,
    },
    /// Several variables in one expression, `{a,b}`.
    VariableList {
        /// Where the expression starts.
        position: usize,
    },
    /// A prefix (`{var:3}`) or explode (`{var*}`) modifier.
    UnsupportedModifier {
        /// Where the expression starts.
        position: usize,
    },
    /// The same variable twice, which matching could not honour.
    DuplicateVariable {
        /// The name.
        name: String,
    },
    /// A `%` in the literal text that does not start a `%XX` escape (two hex digits).
    InvalidEscape {
        /// Where the `%` is.
        position: usize,
    },
}

impl fmt::Display for UriTemplateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::UnclosedBrace { position } => write!(f, "unclosed '{{' at byte {position}"),
            Self::UnexpectedClosingBrace { position } => {
                write!(f, "unexpected '}}' at byte {position}")
            }
            Self::EmptyVariable { position } => write!(f, "empty expression at byte {position}"),
            Self::InvalidVariableName { name, position } => {
                write!(f, "invalid variable name {name:?} at byte {position}")
            }
            Self::UnsupportedOperator { operator, position } => write!(
                f,
                "unsupported operator '{operator}' at byte {position} (only {{var}} and {{+var}})"
            ),
            Self::VariableList { position } => {
                write!(
                    f,
                    "unsupported variable list at byte {position} (one variable per expression)"
                )
            }
            Self::UnsupportedModifier { position } => {
                write!(
                    f,
                    "unsupported prefix or explode modifier at byte {position}"
                )
            }
            Self::DuplicateVariable { name } => write!(f, "variable {name:?} appears twice"),
            Self::InvalidEscape { position } => write!(
                f,
                "'%' at byte {position} starts no %XX escape (write a literal '%' as %25)"
            ),
        }
    }
}

impl std::error::Error for UriTemplateError {}

#[cfg(test)]
mod tests;
