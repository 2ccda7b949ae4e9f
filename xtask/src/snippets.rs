//! `cargo xtask snippets`: every Rust snippet of README.md and docs/ compiled and run as a new
//! user meets it, in a fresh crate whose dependencies are exactly the README's Quickstart
//! `[dependencies]` block (with `presa` pointed at this checkout).
//!
//! presa's own doc tests of the guides build with presa's dev-dependencies (serde_json, tokio
//! with every feature, presa-server, presa-client…), which hides a snippet that needs a crate
//! the README does not list, or that names `presa_server::…` where a user only has `presa`.
//! This task generates `target/snippets/` (its own workspace, with the workspace's Cargo.lock
//! copied in so versions match), includes README.md and every docs page with Rust code blocks
//! as module docs, and runs `cargo test --doc` there with the workspace's target directory and
//! debug profile, so the dependencies the workspace's tests built are not built again.

use std::fmt::{self, Write as _};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::workspace_root;

pub(crate) const USAGE: &str = "usage: cargo xtask snippets

Generates target/snippets/, a crate whose [dependencies] are the ```toml block of README.md's
Quickstart (presa by path to this checkout, plus the features listed for the pages that need
them), and runs `cargo test --doc` there: every Rust snippet of README.md and docs/*.md is
compiled and run against only what the README tells a new user to depend on. Fails with
cargo's output when a snippet does.";

/// Pages that need presa features beyond its default set, and those features. Each page says
/// so near its top, as its reader has to be told: `check_stated` holds the page to that.
const PAGE_FEATURES: [(&str, &[&str]); 3] = [
    ("docs/authorization.md", &["jwt"]),
    ("docs/observability.md", &["prometheus"]),
    ("docs/scale-out.md", &["redis"]),
];

pub(crate) fn run(args: &[String]) -> ExitCode {
    if let Some(other) = args.first() {
        eprintln!("xtask snippets: unknown option `{other}`\n\n{USAGE}");
        return ExitCode::from(2);
    }
    match snippets() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => {
            eprintln!(
                "xtask snippets: a snippet failed (above); the crate is target/snippets, \
                 its dependencies README.md's Quickstart block"
            );
            ExitCode::FAILURE
        }
        Err(error) => {
            eprintln!("xtask snippets: {error}");
            ExitCode::FAILURE
        }
    }
}

fn snippets() -> Result<bool, String> {
    let root = workspace_root();
    let readme = crate::read(&root.join("README.md"))?;
    let dependencies = parse_dependencies(&quickstart_toml(&readme)?)
        .map_err(|e| format!("README.md's Quickstart ```toml block: {e}"))?;

    let mut pages = vec![root.join("README.md")];
    let mut docs: Vec<PathBuf> = fs::read_dir(root.join("docs"))
        .map_err(|e| format!("docs/: {e}"))?
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    for page in docs {
        if has_rust_blocks(&crate::read(&page)?) {
            pages.push(page);
        }
    }

    let mut features = Vec::new();
    for (page, needed) in PAGE_FEATURES {
        check_stated(&root, page, needed)?;
        features.extend(needed.iter().map(|f| Value::String((*f).to_owned())));
    }

    let dir = root.join("target").join("snippets");
    let presa = root.join("crates").join("presa");
    write_if_changed(
        &dir.join("Cargo.toml"),
        &manifest(&dependencies, &presa, features)?,
    )?;
    write_if_changed(&dir.join("src").join("lib.rs"), &lib_rs(&root, &pages)?)?;
    // the workspace's resolution, so the snippets build against the versions presa is tested
    // with; cargo adds the generated crate itself and drops what it does not use
    fs::copy(root.join("Cargo.lock"), dir.join("Cargo.lock"))
        .map_err(|e| format!("copying Cargo.lock: {e}"))?;

    println!(
        "snippets of {} pages, against README.md's dependencies ({}):",
        pages.len(),
        dependencies
            .iter()
            .map(|(name, _)| name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    );
    let status = crate::cargo()
        .args(["test", "--doc"])
        .current_dir(&dir)
        .env("CARGO_TARGET_DIR", crate::target_dir())
        .status()
        .map_err(|e| format!("could not run cargo: {e}"))?;
    Ok(status.success())
}

/// The ```toml block of README.md's `## Quickstart` section.
fn quickstart_toml(readme: &str) -> Result<String, String> {
    let mut lines = readme
        .lines()
        .skip_while(|line| line.trim_end() != "## Quickstart")
        .skip(1)
        .take_while(|line| !line.starts_with("## "));
    if !lines.any(|line| line.trim() == "```toml") {
        return Err("README.md has no ```toml block under `## Quickstart`".to_owned());
    }
    let mut block = String::new();
    for line in lines {
        if line.trim() == "```" {
            return Ok(block);
        }
        block.push_str(line);
        block.push('\n');
    }
    Err("README.md's Quickstart ```toml block is not closed".to_owned())
}

/// Whether rustdoc would test any fenced block of the page: one whose info string is empty or
/// names `rust`, or holds only rustdoc's own attributes (`no_run`, `ignore`, …).
fn has_rust_blocks(page: &str) -> bool {
    // the open fence: its character and length, which the closing fence must match or exceed
    let mut open: Option<(char, usize)> = None;
    for line in page.lines() {
        let line = line.trim();
        let Some(mark) = line.chars().next().filter(|c| *c == '`' || *c == '~') else {
            continue;
        };
        let length = line.chars().take_while(|c| *c == mark).count();
        if length < 3 {
            continue;
        }
        match open {
            Some((c, n)) => {
                if c == mark && length >= n && line.len() == length {
                    open = None;
                }
            }
            None => {
                if is_rust(&line[length..]) {
                    return true;
                }
                open = Some((mark, length));
            }
        }
    }
    false
}

/// rustdoc's reading of an info string: Rust unless it names something else without `rust`.
fn is_rust(info: &str) -> bool {
    let tokens: Vec<&str> = info
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|t| !t.is_empty())
        .collect();
    tokens.contains(&"rust")
        || tokens.iter().all(|token| {
            matches!(
                *token,
                "no_run"
                    | "ignore"
                    | "should_panic"
                    | "compile_fail"
                    | "test_harness"
                    | "standalone_crate"
            ) || token.starts_with("edition")
                || token.starts_with("ignore-")
        })
}

/// A page listed in `PAGE_FEATURES` must tell its reader how to turn each of its features on
/// (a line with `features = [` and `"jwt"`) before its first code block: the check builds the
/// page with them, a reader has only what the page says.
fn check_stated(root: &Path, page: &str, features: &[&str]) -> Result<(), String> {
    let text = crate::read(&root.join(page))?;
    let top: Vec<&str> = text
        .lines()
        .take_while(|line| {
            let line = line.trim_start();
            !line.starts_with("```") && !line.starts_with("~~~")
        })
        .collect();
    for feature in features {
        let quoted = format!("\"{feature}\"");
        if !top
            .iter()
            .any(|line| line.contains("features = [") && line.contains(&quoted))
        {
            return Err(format!(
                "{page} needs presa's `{feature}` feature: say so before its first code \
                 block, as `features = [\"{feature}\"]`"
            ));
        }
    }
    Ok(())
}

/// The generated crate's Cargo.toml: the README's dependencies, `presa` by path with the
/// pages' extra features. The README's `version` stays on `presa`, so a README that asks for
/// a version the checkout is not fails here too.
fn manifest(
    dependencies: &[(String, Value)],
    presa: &Path,
    extra_features: Vec<Value>,
) -> Result<String, String> {
    let mut out = String::from(
        "# Generated by `cargo xtask snippets` from README.md's Quickstart; do not edit.\n\
         [package]\n\
         name = \"presa-snippets\"\n\
         version = \"0.0.0\"\n\
         edition = \"2024\"\n\
         publish = false\n\n\
         # its own workspace, not a member of presa's\n\
         [workspace]\n\n\
         # presa's own debug profile, so that the dependencies built for the workspace's tests\n\
         # are reused from its target directory, and what is built anew carries no debug info\n\
         [profile.dev]\n\
         debug = \"line-tables-only\"\n\n\
         [profile.dev.package.\"*\"]\n\
         debug = false\n\n\
         [dependencies]\n",
    );
    let mut found = false;
    for (name, value) in dependencies {
        let value = if name == "presa" {
            found = true;
            presa_from_checkout(value, presa, extra_features.clone())?
        } else {
            value.clone()
        };
        let _ = writeln!(out, "{} = {value}", Key(name));
    }
    if !found {
        return Err("README.md's Quickstart block does not depend on presa".to_owned());
    }
    Ok(out)
}

fn presa_from_checkout(value: &Value, path: &Path, extra: Vec<Value>) -> Result<Value, String> {
    let mut table = match value {
        Value::String(version) => vec![("version".to_owned(), Value::String(version.clone()))],
        Value::Table(table) => table.clone(),
        other => return Err(format!("presa = {other} is neither a version nor a table")),
    };
    if let Some((key, _)) = table
        .iter()
        .find(|(key, _)| matches!(key.as_str(), "path" | "git" | "registry"))
    {
        return Err(format!(
            "README.md's presa has `{key}`; a reader's has a version"
        ));
    }
    table.push((
        "path".to_owned(),
        Value::String(path.to_string_lossy().into_owned()),
    ));
    if !extra.is_empty() {
        match table.iter_mut().find(|(key, _)| key == "features") {
            Some((_, Value::Array(features))) => {
                for feature in extra {
                    if !features.contains(&feature) {
                        features.push(feature);
                    }
                }
            }
            Some(_) => return Err("presa's `features` is not an array".to_owned()),
            None => table.push(("features".to_owned(), Value::Array(extra))),
        }
    }
    Ok(Value::Table(table))
}

/// src/lib.rs: each page as the docs of a module of its own, so rustdoc tests its blocks as it
/// does the guides in presa.
fn lib_rs(root: &Path, pages: &[PathBuf]) -> Result<String, String> {
    let mut out = String::from(
        "//! Generated by `cargo xtask snippets`: README.md and the docs pages with Rust code, \
         as module docs.\n",
    );
    for page in pages {
        let relative = page.strip_prefix(root).unwrap_or(page);
        let stem = page
            .file_stem()
            .and_then(|s| s.to_str())
            .ok_or_else(|| format!("{}: not a UTF-8 name", page.display()))?;
        let module = stem.to_lowercase().replace(['-', '.'], "_");
        let absolute = page
            .to_str()
            .ok_or_else(|| format!("{}: not a UTF-8 path", page.display()))?;
        let _ = write!(
            out,
            "\n// {}\n#[doc = include_str!({absolute:?})]\npub mod {module} {{}}\n",
            relative.display()
        );
    }
    Ok(out)
}

/// Writes `contents` unless the file already holds them, so that a warm run rebuilds nothing.
fn write_if_changed(path: &Path, contents: &str) -> Result<(), String> {
    if fs::read_to_string(path).is_ok_and(|old| old == contents) {
        return Ok(());
    }
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    fs::write(path, contents).map_err(|e| format!("{}: {e}", path.display()))
}

/// A TOML value of the kinds a `[dependencies]` table holds.
#[derive(Clone, Debug, PartialEq)]
enum Value {
    String(String),
    Bool(bool),
    Array(Vec<Value>),
    /// An inline table, its keys in the order written.
    Table(Vec<(String, Value)>),
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::String(s) => write_string(f, s),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Array(items) => {
                f.write_str("[")?;
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{item}")?;
                }
                f.write_str("]")
            }
            Value::Table(entries) => {
                f.write_str("{ ")?;
                for (i, (key, value)) in entries.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{} = {value}", Key(key))?;
                }
                f.write_str(" }")
            }
        }
    }
}

/// A key, bare when TOML allows it.
struct Key<'a>(&'a str);

impl fmt::Display for Key<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.0.is_empty() && self.0.chars().all(is_bare_key_char) {
            f.write_str(self.0)
        } else {
            write_string(f, self.0)
        }
    }
}

fn write_string(f: &mut fmt::Formatter<'_>, s: &str) -> fmt::Result {
    f.write_str("\"")?;
    for c in s.chars() {
        match c {
            '"' => f.write_str("\\\"")?,
            '\\' => f.write_str("\\\\")?,
            '\n' => f.write_str("\\n")?,
            '\t' => f.write_str("\\t")?,
            c if c.is_control() => write!(f, "\\u{:04X}", u32::from(c))?,
            c => f.write_char(c)?,
        }
    }
    f.write_str("\"")
}

fn is_bare_key_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '-' || c == '_'
}

/// Parses a `[dependencies]` table: the subset of TOML a Cargo.toml snippet uses (bare or
/// quoted keys; strings, booleans, arrays and inline tables), refusing anything else rather
/// than reading it wrong.
fn parse_dependencies(text: &str) -> Result<Vec<(String, Value)>, String> {
    let mut parser = Parser {
        rest: text,
        line: 1,
    };
    parser.skip_blank_lines();
    if !parser.eat("[dependencies]") {
        return Err("it does not start with `[dependencies]`".to_owned());
    }
    parser.end_of_line()?;
    let mut entries: Vec<(String, Value)> = Vec::new();
    loop {
        parser.skip_blank_lines();
        if parser.rest.is_empty() {
            return Ok(entries);
        }
        if parser.rest.starts_with('[') {
            return Err(parser.error("a second table; only `[dependencies]` is read"));
        }
        let key = parser.key()?;
        if entries.iter().any(|(k, _)| *k == key) {
            return Err(parser.error(&format!("`{key}` twice")));
        }
        parser.skip_spaces();
        if !parser.eat("=") {
            return Err(parser.error("`=` expected (dotted keys are not read)"));
        }
        let value = parser.value()?;
        parser.end_of_line()?;
        entries.push((key, value));
    }
}

struct Parser<'a> {
    rest: &'a str,
    /// The line `rest` starts on, for errors.
    line: usize,
}

impl Parser<'_> {
    fn error(&self, what: &str) -> String {
        format!("line {}: {what}", self.line)
    }

    fn eat(&mut self, token: &str) -> bool {
        match self.rest.strip_prefix(token) {
            Some(rest) => {
                self.rest = rest;
                true
            }
            None => false,
        }
    }

    fn skip_spaces(&mut self) {
        self.rest = self.rest.trim_start_matches([' ', '\t']);
    }

    /// Skips spaces, comments and line ends (inside arrays and between entries).
    fn skip_blank_lines(&mut self) {
        loop {
            self.skip_spaces();
            if self.rest.starts_with('#') {
                let end = self.rest.find('\n').unwrap_or(self.rest.len());
                self.rest = &self.rest[end..];
            } else if self.eat("\r\n") || self.eat("\n") {
                self.line += 1;
            } else {
                return;
            }
        }
    }

    fn end_of_line(&mut self) -> Result<(), String> {
        self.skip_spaces();
        if self.rest.starts_with('#') || self.rest.is_empty() {
            return Ok(());
        }
        if self.rest.starts_with('\n') || self.rest.starts_with("\r\n") {
            return Ok(());
        }
        Err(self.error("more after the value"))
    }

    fn key(&mut self) -> Result<String, String> {
        if self.rest.starts_with('"') {
            return self.string();
        }
        let end = self
            .rest
            .find(|c: char| !is_bare_key_char(c))
            .unwrap_or(self.rest.len());
        if end == 0 {
            return Err(self.error("a key expected"));
        }
        let key = self.rest[..end].to_owned();
        self.rest = &self.rest[end..];
        Ok(key)
    }

    fn value(&mut self) -> Result<Value, String> {
        self.skip_spaces();
        if self.rest.starts_with('"') {
            self.string().map(Value::String)
        } else if self.rest.starts_with('\'') {
            let rest = &self.rest[1..];
            let end = rest
                .find(['\'', '\n'])
                .filter(|&end| rest[end..].starts_with('\''))
                .ok_or_else(|| self.error("unterminated string"))?;
            self.rest = &rest[end + 1..];
            Ok(Value::String(rest[..end].to_owned()))
        } else if self.eat("true") {
            Ok(Value::Bool(true))
        } else if self.eat("false") {
            Ok(Value::Bool(false))
        } else if self.eat("[") {
            let mut items = Vec::new();
            loop {
                self.skip_blank_lines();
                if self.eat("]") {
                    return Ok(Value::Array(items));
                }
                items.push(self.value()?);
                self.skip_blank_lines();
                if !self.eat(",") && !self.rest.starts_with(']') {
                    return Err(self.error("`,` or `]` expected in an array"));
                }
            }
        } else if self.eat("{") {
            let mut entries: Vec<(String, Value)> = Vec::new();
            self.skip_spaces();
            if self.eat("}") {
                return Ok(Value::Table(entries));
            }
            loop {
                self.skip_spaces();
                let key = self.key()?;
                self.skip_spaces();
                if !self.eat("=") {
                    return Err(self.error("`=` expected in an inline table"));
                }
                let value = self.value()?;
                entries.push((key, value));
                self.skip_spaces();
                if self.eat("}") {
                    return Ok(Value::Table(entries));
                }
                if !self.eat(",") {
                    return Err(self.error("`,` or `}` expected in an inline table"));
                }
            }
        } else {
            Err(self.error("a string, boolean, array or inline table expected"))
        }
    }

    /// A basic (double-quoted) string, with TOML's escapes.
    fn string(&mut self) -> Result<String, String> {
        let unterminated = self.error("unterminated string");
        let mut chars = self.rest.char_indices().skip(1);
        let mut out = String::new();
        while let Some((i, c)) = chars.next() {
            match c {
                '"' => {
                    self.rest = &self.rest[i + 1..];
                    return Ok(out);
                }
                '\n' => break,
                '\\' => {
                    let escaped = match chars.next().map(|(_, c)| c) {
                        Some('"') => '"',
                        Some('\\') => '\\',
                        Some('n') => '\n',
                        Some('t') => '\t',
                        Some('r') => '\r',
                        Some(u @ ('u' | 'U')) => {
                            let digits = if u == 'u' { 4 } else { 8 };
                            let hex: String = chars.by_ref().take(digits).map(|(_, c)| c).collect();
                            u32::from_str_radix(&hex, 16)
                                .ok()
                                .filter(|_| hex.len() == digits)
                                .and_then(char::from_u32)
                                .ok_or_else(|| self.error("a bad \\u escape"))?
                        }
                        _ => return Err(self.error("an escape TOML does not have")),
                    };
                    out.push(escaped);
                }
                c => out.push(c),
            }
        }
        Err(unterminated)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_quickstart_shape() {
        let deps = parse_dependencies(
            "[dependencies]\npresa = \"0.1\"\n# a comment\ntokio = { version = \"1\", features = [\"macros\",\n  \"signal\"] } # why\n\"serde\" = { version = '1', default-features = false }\n",
        );
        assert_eq!(
            deps,
            Ok(vec![
                ("presa".to_owned(), Value::String("0.1".to_owned())),
                (
                    "tokio".to_owned(),
                    Value::Table(vec![
                        ("version".to_owned(), Value::String("1".to_owned())),
                        (
                            "features".to_owned(),
                            Value::Array(vec![
                                Value::String("macros".to_owned()),
                                Value::String("signal".to_owned())
                            ])
                        ),
                    ])
                ),
                (
                    "serde".to_owned(),
                    Value::Table(vec![
                        ("version".to_owned(), Value::String("1".to_owned())),
                        ("default-features".to_owned(), Value::Bool(false)),
                    ])
                ),
            ])
        );
    }

    #[test]
    fn refuses_what_it_does_not_read() {
        for text in [
            "presa = \"0.1\"\n",
            "[dependencies]\npresa.version = \"0.1\"\n",
            "[dependencies]\npresa = 1\n",
            "[dependencies]\npresa = \"0.1\" x\n",
            "[dependencies]\npresa = \"0.1\n",
            "[dependencies]\na = \"1\"\na = \"2\"\n",
            "[dependencies]\n[dev-dependencies]\n",
        ] {
            assert!(parse_dependencies(text).is_err(), "{text:?}");
        }
    }

    #[test]
    fn presa_points_at_the_checkout_with_the_pages_features() {
        let presa = presa_from_checkout(
            &Value::Table(vec![
                ("version".to_owned(), Value::String("0.1".to_owned())),
                (
                    "features".to_owned(),
                    Value::Array(vec![Value::String("jwt".to_owned())]),
                ),
            ]),
            Path::new("/w/crates/presa"),
            vec![
                Value::String("jwt".to_owned()),
                Value::String("redis".to_owned()),
            ],
        );
        assert_eq!(
            presa.map(|v| v.to_string()),
            Ok(
                r#"{ version = "0.1", features = ["jwt", "redis"], path = "/w/crates/presa" }"#
                    .to_owned()
            )
        );
    }

    #[test]
    fn finds_the_blocks_rustdoc_tests() {
        assert!(has_rust_blocks("a\n```\nfn main() {}\n```\n"));
        assert!(has_rust_blocks("```rust,no_run\nx\n```\n"));
        assert!(has_rust_blocks("  ```ignore\nx\n  ```\n"));
        assert!(!has_rust_blocks("```text\n```\n\n```sh\nls\n```\n"));
        // a fence's body is not a fence
        assert!(!has_rust_blocks("````md\n```\nx\n```\n````\n"));
    }
}
