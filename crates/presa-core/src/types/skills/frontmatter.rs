//! A `SKILL.md`'s frontmatter: the YAML block between its opening `---` lines, read into JSON;
//! and the digests a skill's files are published and verified with.

use std::fmt;

use serde_json::{Map, Number, Value};
use sha2::{Digest, Sha256};
use yaml_rust2::parser::{Event, Parser};
use yaml_rust2::{Yaml, YamlLoader};

use crate::JsonObject;

/// How deep a frontmatter value may nest: far beyond any skill's, and short of what a recursive
/// reader could not take.
const MAX_DEPTH: usize = 64;

/// The longest frontmatter block read: a skill's runs to a few hundred bytes, and a client
/// reads this from a server it may not trust.
pub const MAX_FRONTMATTER_BYTES: usize = 64 * 1024;

/// Why a `SKILL.md` has no frontmatter that can be read.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum FrontmatterError {
    /// The text does not open with a `---` line.
    Missing,
    /// No `---` line closes the block.
    Unclosed,
    /// The block is not valid YAML.
    Yaml(String),
    /// The block is not a mapping.
    NotAMapping,
    /// A key is not a string (`1: x`, `[a]: x`).
    NonStringKey,
    /// The block uses an alias (`*name`): not read, since the node an alias names is copied
    /// wherever it appears, so that a few lines could grow into gigabytes.
    Alias,
    /// A value nests deeper than 64 levels.
    TooDeep,
    /// A number that JSON cannot carry (`.nan`, `.inf`).
    NotANumber(String),
    /// The block is longer than [`MAX_FRONTMATTER_BYTES`].
    TooLarge,
    /// The block holds more than one YAML document (a `--- !tag` line starts another).
    SeveralDocuments,
}

impl fmt::Display for FrontmatterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Missing => f.write_str("the file does not open with a `---` frontmatter line"),
            Self::Unclosed => f.write_str("no `---` line closes the frontmatter"),
            Self::Yaml(error) => write!(f, "the frontmatter is not valid YAML: {error}"),
            Self::NotAMapping => f.write_str("the frontmatter is not a mapping of fields"),
            Self::NonStringKey => f.write_str("a frontmatter key is not a string"),
            Self::Alias => f.write_str("the frontmatter uses a YAML alias, which is not read"),
            Self::TooDeep => write!(f, "the frontmatter nests deeper than {MAX_DEPTH} levels"),
            Self::NotANumber(value) => {
                write!(f, "the frontmatter holds {value}, which JSON cannot carry")
            }
            Self::SeveralDocuments => {
                f.write_str("the frontmatter holds more than one YAML document")
            }
            Self::TooLarge => write!(
                f,
                "the frontmatter is longer than {MAX_FRONTMATTER_BYTES} bytes"
            ),
        }
    }
}

impl std::error::Error for FrontmatterError {}

/// Reads the frontmatter of a `SKILL.md`: the text opens (after an optional byte-order mark)
/// with a line `---`, and the YAML mapping up to the next line `---` is its frontmatter, read
/// as YAML 1.2 (core schema) into JSON.
///
/// ```
/// use presa_core::skills::parse_frontmatter;
///
/// let text = "---\nname: pdf-processing\ndescription: Fill PDF forms\nmetadata:\n  version: \"2.1\"\n---\n\n# PDF\n";
/// let frontmatter = parse_frontmatter(text).unwrap();
/// assert_eq!(frontmatter["name"], "pdf-processing");
/// assert_eq!(frontmatter["metadata"]["version"], "2.1");
/// assert!(parse_frontmatter("# no frontmatter").is_err());
/// ```
pub fn parse_frontmatter(text: &str) -> Result<JsonObject, FrontmatterError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.split_inclusive('\n');
    let opening = lines.next().ok_or(FrontmatterError::Missing)?;
    if !is_fence(opening) {
        return Err(FrontmatterError::Missing);
    }
    let start = opening.len();
    let mut end = start;
    let mut closed = false;
    for line in lines {
        if is_fence(line) {
            closed = true;
            break;
        }
        end += line.len();
    }
    if !closed {
        return Err(FrontmatterError::Unclosed);
    }
    let block = text.get(start..end).ok_or(FrontmatterError::Unclosed)?;
    if block.len() > MAX_FRONTMATTER_BYTES {
        return Err(FrontmatterError::TooLarge);
    }
    // the events first, of every document the block holds: the loader would copy the node an
    // alias names (a few lines of aliases of aliases could grow into gigabytes), and build a
    // tree as deep as the text nests (which dropping it would then recurse through)
    // (one event at a time: the parser's own loader, like the tree's, recurses as deep as the
    // text nests)
    let mut shape = Shape::default();
    let mut parser = Parser::new_from_str(block);
    loop {
        let (event, _) = parser
            .next_token()
            .map_err(|e| FrontmatterError::Yaml(e.to_string()))?;
        if event == Event::StreamEnd {
            break;
        }
        shape.on_event(event);
        if shape.deepest > MAX_DEPTH {
            // nothing deeper is read
            return Err(FrontmatterError::TooDeep);
        }
    }
    if let Some(error) = shape.refusal() {
        return Err(error);
    }
    let documents =
        YamlLoader::load_from_str(block).map_err(|e| FrontmatterError::Yaml(e.to_string()))?;
    match documents.into_iter().next() {
        Some(Yaml::Hash(fields)) => {
            let mut object = Map::new();
            for (key, value) in fields {
                let Yaml::String(key) = key else {
                    return Err(FrontmatterError::NonStringKey);
                };
                object.insert(key, to_json(value, 1)?);
            }
            Ok(object)
        }
        // an empty block
        None | Some(Yaml::Null) => Ok(Map::new()),
        Some(_) => Err(FrontmatterError::NotAMapping),
    }
}

/// What the events of a YAML stream say of its shape, read before anything is built from it.
#[derive(Default)]
struct Shape {
    documents: usize,
    alias: bool,
    depth: usize,
    deepest: usize,
}

impl Shape {
    fn refusal(&self) -> Option<FrontmatterError> {
        if self.alias {
            Some(FrontmatterError::Alias)
        } else if self.documents > 1 {
            Some(FrontmatterError::SeveralDocuments)
        } else if self.deepest > MAX_DEPTH {
            Some(FrontmatterError::TooDeep)
        } else {
            None
        }
    }
}

impl Shape {
    fn on_event(&mut self, event: Event) {
        match event {
            Event::DocumentStart => self.documents += 1,
            Event::Alias(_) => self.alias = true,
            Event::SequenceStart(..) | Event::MappingStart(..) => {
                self.depth += 1;
                self.deepest = self.deepest.max(self.depth);
            }
            Event::SequenceEnd | Event::MappingEnd => self.depth = self.depth.saturating_sub(1),
            _ => {}
        }
    }
}

/// A `---` line: three hyphens, then only spaces or tabs before the line ends.
fn is_fence(line: &str) -> bool {
    let line = line.trim_end_matches(['\n', '\r']);
    line.strip_prefix("---")
        .is_some_and(|rest| rest.chars().all(|c| c == ' ' || c == '\t'))
}

fn to_json(value: Yaml, depth: usize) -> Result<Value, FrontmatterError> {
    if depth > MAX_DEPTH {
        return Err(FrontmatterError::TooDeep);
    }
    Ok(match value {
        Yaml::Null => Value::Null,
        Yaml::Boolean(b) => Value::Bool(b),
        Yaml::Integer(i) => Value::from(i),
        Yaml::Real(text) => {
            let number = text
                .parse::<f64>()
                .ok()
                .and_then(Number::from_f64)
                .ok_or(FrontmatterError::NotANumber(text))?;
            Value::Number(number)
        }
        Yaml::String(s) => Value::String(s),
        Yaml::Array(items) => Value::Array(
            items
                .into_iter()
                .map(|item| to_json(item, depth + 1))
                .collect::<Result<_, _>>()?,
        ),
        Yaml::Hash(fields) => {
            let mut object = Map::new();
            for (key, value) in fields {
                let Yaml::String(key) = key else {
                    return Err(FrontmatterError::NonStringKey);
                };
                object.insert(key, to_json(value, depth + 1)?);
            }
            Value::Object(object)
        }
        Yaml::Alias(_) => return Err(FrontmatterError::Alias),
        Yaml::BadValue => return Err(FrontmatterError::Yaml("a value cannot be read".into())),
    })
}

/// The digest a skill's file is published with: `sha256:` and the SHA-256 of `bytes` as 64
/// lowercase hex digits.
///
/// ```
/// assert_eq!(
///     presa_core::skills::sha256_digest(b"foo"),
///     "sha256:2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae",
/// );
/// ```
pub fn sha256_digest(bytes: &[u8]) -> String {
    let hash = Sha256::digest(bytes);
    let mut digest = String::with_capacity(7 + 64);
    digest.push_str("sha256:");
    for byte in hash {
        use fmt::Write;
        // writing to a String cannot fail
        let _ = write!(digest, "{byte:02x}");
    }
    digest
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use serde_json::json;

    use super::*;

    #[test]
    fn yaml_types_become_json_types_as_yaml_1_2_reads_them() {
        let text = "\u{feff}---\r\nname: a\r\ndescription: 'quoted: yes'\r\ncount: 3\r\nratio: 0.5\r\non: yes\r\nflag: true\r\nnothing: ~\r\nlist: [x, 2]\r\n---   \r\nbody";
        let frontmatter = parse_frontmatter(text).unwrap();
        assert_eq!(
            Value::Object(frontmatter),
            json!({"name": "a", "description": "quoted: yes", "count": 3, "ratio": 0.5,
                   "on": "yes", "flag": true, "nothing": null, "list": ["x", 2]})
        );
    }

    #[test]
    fn what_is_not_frontmatter_is_refused_with_its_reason() {
        for (text, error) in [
            ("", FrontmatterError::Missing),
            ("name: a\n", FrontmatterError::Missing),
            ("----\nname: a\n---\n", FrontmatterError::Missing),
            ("---\nname: a\n", FrontmatterError::Unclosed),
            ("---\n- a\n- b\n---\n", FrontmatterError::NotAMapping),
            ("---\n1: a\n---\n", FrontmatterError::NonStringKey),
            ("---\na: &x [1]\nb: *x\n---\n", FrontmatterError::Alias),
            // a second document, and an alias in it, inside the one block
            (
                "---\na: 1\n--- !!map\nb: &x [1]\nc: *x\n---\n",
                FrontmatterError::Alias,
            ),
            (
                "---\na: 1\n--- !!map\nb: 2\n---\n",
                FrontmatterError::SeveralDocuments,
            ),
            (
                "---\na: .nan\n---\n",
                FrontmatterError::NotANumber(".nan".into()),
            ),
        ] {
            assert_eq!(parse_frontmatter(text), Err(error), "{text:?}");
        }
        assert!(matches!(
            parse_frontmatter("---\na: [\n---\n"),
            Err(FrontmatterError::Yaml(_))
        ));
        assert_eq!(parse_frontmatter("---\n---\nbody").unwrap(), Map::new());
    }

    #[test]
    fn deep_nesting_is_refused_not_followed() {
        let deep = format!("---\na: {}1{}\n---\n", "[".repeat(200), "]".repeat(200));
        assert!(parse_frontmatter(&deep).is_err());
        let nested = format!("---\na: {}1{}\n---\n", "[".repeat(70), "]".repeat(70));
        assert_eq!(parse_frontmatter(&nested), Err(FrontmatterError::TooDeep));
        // block nesting, which the scanner does not cap, refused before any tree is built
        let deep_blocks = format!("---\n{}x\n---\n", "- ".repeat(30_000));
        assert!(deep_blocks.len() < MAX_FRONTMATTER_BYTES);
        assert_eq!(
            parse_frontmatter(&deep_blocks),
            Err(FrontmatterError::TooDeep)
        );
        let long = format!("---\na: {}\n---\n", "x".repeat(MAX_FRONTMATTER_BYTES));
        assert_eq!(parse_frontmatter(&long), Err(FrontmatterError::TooLarge));
    }
}
