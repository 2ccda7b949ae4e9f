//! `cargo xtask docs`: the documentation site, an mdBook built from `docs/`, with a page per
//! example (its source and the output a run just printed) and the API reference beside it,
//! then every internal link and anchor of the built HTML checked.
//!
//! The guides link each other and API items the way rustdoc reads them (`presa::guide::tools_resources_prompts`,
//! `presa::server::Context`); the book's copies get those links rewritten to its own pages and
//! to the rustdoc pages under `api/`, each resolved against the files rustdoc wrote, so a link
//! that rustdoc would resolve but the site could not is an error here too.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use crate::tools::{MDBOOK, MDBOOK_MERMAID};

pub(crate) const USAGE: &str = "usage: cargo xtask docs

Builds the documentation site into target/book/html: the guides of docs/, a page per example
of crates/presa/examples (built and run first, as cargo xtask examples does), and the API
reference (cargo doc) under api/. Installs the pinned mdbook and mdbook-mermaid with cargo
install --locked when they are missing, and fails on any internal link or anchor of the site
that does not resolve.";

/// The facade's modules that are other crates, by the crate's name as rustdoc writes it.
const FACADE: [(&str, &str); 8] = [
    ("core", "presa_core"),
    ("schema", "presa_schema"),
    ("server", "presa_server"),
    ("client", "presa_client"),
    ("stdio", "presa_stdio"),
    ("http", "presa_http"),
    ("oauth", "presa_oauth"),
    ("redis", "presa_redis"),
];

/// The guides in the book's order; every page of docs/ must be here.
const GUIDES: [&str; 16] = [
    "tools-resources-prompts",
    "client",
    "transports",
    "input-requests",
    "tasks",
    "subscriptions",
    "authorization",
    "middleware",
    "extensions",
    "initialize-era",
    "scale-out",
    "observability",
    "cli",
    "architecture",
    "performance",
    "reliability",
];

pub(crate) fn run(args: &[String]) -> ExitCode {
    if let Some(arg) = args.first() {
        eprintln!("xtask docs: unknown argument {arg}\n\n{USAGE}");
        return ExitCode::from(2);
    }
    match docs() {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("xtask docs: {error}");
            ExitCode::FAILURE
        }
    }
}

fn docs() -> Result<(), String> {
    let root = crate::workspace_root();
    let target = crate::target_dir();
    for tool in [MDBOOK, MDBOOK_MERMAID] {
        crate::tools::ensure(&tool)?;
    }
    let examples = crate::examples::capture()?;
    api_docs(&root)?;
    for guide in GUIDES {
        let module = guide.replace('-', "_");
        if !target
            .join(format!("doc/presa/guide/{module}/index.html"))
            .is_file()
        {
            return Err(format!(
                "docs/{guide}.md is not rendered as presa::guide::{module} (crates/presa/src/guide.rs)"
            ));
        }
    }

    let book = target.join("book");
    let src = book.join("src");
    let _ = fs::remove_dir_all(&book);
    fs::create_dir_all(src.join("guides"))
        .map_err(|e| format!("cannot create {}: {e}", src.display()))?;
    fs::create_dir_all(src.join("examples"))
        .map_err(|e| format!("cannot create {}: {e}", src.display()))?;
    let api = Api::new(target.join("doc"));

    let mut summary = String::from("# Summary\n\n[presa](index.md)\n\n# Guides\n\n");
    let pages: BTreeSet<String> = docs_pages(&root.join("docs"))?;
    let listed: BTreeSet<String> = GUIDES.iter().map(|g| (*g).to_owned()).collect();
    if pages != listed {
        return Err(format!(
            "the book's guides ({listed:?}) are not docs/'s pages ({pages:?}): add the page to GUIDES in xtask/src/docs.rs"
        ));
    }
    for guide in GUIDES {
        let text = crate::read(&root.join("docs").join(format!("{guide}.md")))?;
        let page = links(&text, "../", &api).map_err(|e| format!("docs/{guide}.md: {e}"))?;
        write(&src.join("guides").join(format!("{guide}.md")), &page)?;
        summary += &format!("- [{}](guides/{guide}.md)\n", title(&text, guide));
    }
    copy(
        &root.join("docs/performance.svg"),
        &src.join("guides/performance.svg"),
    )?;

    summary += "\n# Examples\n\n";
    for example in &examples {
        let page = example_page(example, &api)?;
        write(
            &src.join("examples").join(format!("{}.md", example.name)),
            &page,
        )?;
        summary += &format!("- [{}](examples/{}.md)\n", example.name, example.name);
    }
    let index = landing(&crate::read(&root.join("README.md"))?, &api)?;
    write(&src.join("index.md"), &index)?;
    write(&src.join("SUMMARY.md"), &summary)?;
    write(&book.join("book.toml"), BOOK_TOML)?;

    crate::run_command(Command::new(MDBOOK_MERMAID.name).arg("install").arg(&book))?;
    crate::run_command(Command::new(MDBOOK.name).arg("build").arg(&book))?;
    let html = book.join("html");
    copy_dir(&target.join("doc"), &html.join("api"))?;
    let checked = check_links(&html)?;
    println!(
        "xtask docs: {} built, {checked} internal links checked",
        html.join("index.html").display()
    );
    Ok(())
}

const BOOK_TOML: &str = r#"[book]
title = "presa"
description = "A Rust SDK for the Model Context Protocol"
language = "en"
src = "src"

[build]
build-dir = "html"
create-missing = false

[preprocessor.mermaid]
command = "mdbook-mermaid"

[output.html]
additional-js = ["mermaid.min.js", "mermaid-init.js"]
"#;

/// The API reference as docs.rs builds it, into target/doc: with the flags of .ci/run's own
/// `cargo doc`, so that after it this finds everything up to date.
fn api_docs(root: &Path) -> Result<(), String> {
    crate::run_command(
        crate::cargo()
            .current_dir(root)
            .env("RUSTDOCFLAGS", "--cfg docsrs -D warnings")
            .args(["doc", "--workspace", "--all-features", "--no-deps"]),
    )
}

/// The names of docs/'s pages.
fn docs_pages(dir: &Path) -> Result<BTreeSet<String>, String> {
    let mut pages = BTreeSet::new();
    for path in crate::entries(dir)? {
        if path.extension().is_some_and(|ext| ext == "md")
            && let Some(stem) = path.file_stem().and_then(|s| s.to_str())
        {
            pages.insert(stem.to_owned());
        }
    }
    Ok(pages)
}

/// A page's first heading, else its name.
fn title(text: &str, name: &str) -> String {
    text.lines()
        .find_map(|line| line.strip_prefix("# "))
        .map_or_else(|| name.to_owned(), |t| t.replace('`', ""))
}

/// The README as the book's landing page: links into docs/ become the book's guide pages.
fn landing(readme: &str, api: &Api) -> Result<String, String> {
    let mut page = String::new();
    for line in readme.lines() {
        let mut line = line.to_owned();
        for guide in GUIDES {
            let mention = format!("`docs/{guide}.md`");
            line = line.replace(&mention, &format!("[{guide}](guides/{guide}.md)"));
        }
        page += &line;
        page.push('\n');
    }
    links(&page, "", api).map_err(|e| format!("README.md: {e}"))
}

/// One example's page: what it shows (its doc comment, without the output it states: the page
/// shows what it printed instead), its source (every file of a folder example), and what it
/// printed.
fn example_page(example: &crate::examples::Captured, api: &Api) -> Result<String, String> {
    let about = links(&without_stated_output(&example.doc), "../", api)
        .map_err(|e| format!("example {}: {e}", example.name))?;
    let mut sources = String::new();
    for (index, (path, source)) in example.sources.iter().enumerate() {
        // the main file's doc comment is the text above; other files keep theirs
        let body: Vec<&str> = source
            .lines()
            .skip_while(|line| index == 0 && line.starts_with("//!"))
            .collect();
        sources += &format!(
            "`crates/presa/examples/{path}`\n\n```rust,ignore\n{}\n```\n\n",
            body.join("\n").trim()
        );
    }
    Ok(format!(
        "# The `{name}` example\n\n{about}\n\n## Source\n\n{sources}## What it printed\n\nCaptured by running it while this site was built:\n\n```text\n{printed}\n```\n",
        name = example.name,
        about = about.trim(),
        printed = example.printed.trim_end(),
    ))
}

/// A doc comment without its `Prints:` line and the block after it.
fn without_stated_output(doc: &str) -> String {
    let stated = crate::examples::stated_output_lines(doc).map_or(0..0, |(stated, _)| stated);
    let kept: Vec<&str> = doc
        .lines()
        .enumerate()
        .filter(|(number, _)| !stated.contains(number))
        .map(|(_, line)| line)
        .collect();
    let mut text = kept.join("\n");
    while text.contains("\n\n\n") {
        text = text.replace("\n\n\n", "\n\n");
    }
    text
}

/// Rewrites a page's rustdoc-style links for the book: `presa::guide::x` to the guide's page,
/// other `presa::…` paths to their rustdoc page under `api/`. `up` leads from the page to the
/// book's root.
fn links(text: &str, up: &str, api: &Api) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    // inline links `](target)` and reference definitions `]: target`
    let next = |text: &str| {
        [text.find("](presa::"), text.find("]: presa::")]
            .into_iter()
            .flatten()
            .min()
    };
    while let Some(at) = next(rest) {
        let start = at + if rest[at..].starts_with("](") { 2 } else { 3 };
        out.push_str(&rest[..start]);
        let tail = &rest[start..];
        let end = tail
            .find(|c: char| c == ')' || c.is_whitespace())
            .unwrap_or(tail.len());
        let (path, anchor) = match tail[..end].split_once('#') {
            Some((path, anchor)) => (path, Some(anchor)),
            None => (&tail[..end], None),
        };
        let href = match path.strip_prefix("presa::guide::") {
            Some(guide) => {
                let page = guide.replace('_', "-");
                format!(
                    "{up}guides/{page}.md{}",
                    anchor.map(|a| format!("#{a}")).unwrap_or_default()
                )
            }
            None => format!("{up}api/{}", api.resolve(path)?),
        };
        out.push_str(&href);
        rest = &tail[end..];
    }
    out.push_str(rest);
    Ok(out)
}

/// The rustdoc output, to find the page (and anchor) of an item path.
struct Api {
    dir: PathBuf,
}

impl Api {
    fn new(dir: PathBuf) -> Self {
        Self { dir }
    }

    /// `presa::server::Context::auth` -> `presa_server/struct.Context.html#method.auth`.
    fn resolve(&self, path: &str) -> Result<String, String> {
        let segments: Vec<&str> = path.split("::").collect();
        let (krate, rest) = match segments.as_slice() {
            ["presa", module, rest @ ..] if FACADE.iter().any(|(m, _)| m == module) => {
                let krate = FACADE.iter().find(|(m, _)| m == module).map(|(_, c)| *c);
                (krate.unwrap_or("presa"), rest)
            }
            ["presa", rest @ ..] => ("presa", rest),
            _ => return Err(format!("{path}: not a presa:: path")),
        };
        if let Some(page) = self.item(krate, rest) {
            return Ok(page);
        }
        if let Some((member, owner)) = rest.split_last()
            && let Some(page) = self.item(krate, owner)
        {
            let html = fs::read_to_string(self.dir.join(&page)).unwrap_or_default();
            let kinds = [
                "method",
                "tymethod",
                "variant",
                "structfield",
                "associatedconstant",
                "associatedtype",
            ];
            for kind in kinds {
                let id = format!("{kind}.{member}");
                if html.contains(&format!("id=\"{id}\"")) {
                    return Ok(format!("{page}#{id}"));
                }
            }
        }
        Err(format!("{path}: no page in the API reference"))
    }

    /// The page of the item at `path` in `krate`, relative to the rustdoc root.
    fn item(&self, krate: &str, path: &[&str]) -> Option<String> {
        let (name, modules) = path.split_last()?;
        let mut dir = PathBuf::from(krate);
        modules.iter().for_each(|m| dir.push(m));
        let module = dir.join(name).join("index.html");
        if self.dir.join(&module).is_file() {
            return Some(module.to_string_lossy().into_owned());
        }
        [
            "struct", "enum", "trait", "fn", "type", "macro", "constant", "static", "derive",
            "attr",
        ]
        .iter()
        .map(|kind| dir.join(format!("{kind}.{name}.html")))
        .find(|page| self.dir.join(page).is_file())
        .map(|page| page.to_string_lossy().into_owned())
    }
}

/// Checks every `href` and `src` of the book's own pages (the API pages are rustdoc's): a link
/// inside the site must name a file that exists and, with a `#fragment`, an element with that
/// id. Returns how many links it checked.
fn check_links(html: &Path) -> Result<usize, String> {
    let mut pages = Vec::new();
    collect_pages(html, &html.join("api"), &mut pages)?;
    let mut ids: BTreeMap<PathBuf, BTreeSet<String>> = BTreeMap::new();
    let mut broken = Vec::new();
    let mut checked = 0;
    for page in &pages {
        let text = crate::read(page)?;
        for target in attribute_values(&text, "href")
            .into_iter()
            .chain(attribute_values(&text, "src"))
        {
            if target.is_empty()
                || target.contains("://")
                || target.starts_with("mailto:")
                || target.starts_with("javascript:")
            {
                continue;
            }
            checked += 1;
            let (file, fragment) = target.split_once('#').unwrap_or((target.as_str(), ""));
            let file = file.split('?').next().unwrap_or(file);
            let dir = page.parent().unwrap_or(html);
            // a path from the site's root (mdBook's 404 page links "/")
            let mut resolved = match file.strip_prefix('/') {
                _ if file.is_empty() => page.clone(),
                Some(from_root) => html.join(from_root),
                None => dir.join(file),
            };
            if resolved.is_dir() {
                resolved = resolved.join("index.html");
            }
            if !resolved.is_file() {
                broken.push(format!("{}: {target} (no such file)", page.display()));
                continue;
            }
            if fragment.is_empty() || resolved.extension().is_none_or(|ext| ext != "html") {
                continue;
            }
            let known = match ids.get(&resolved) {
                Some(known) => known,
                None => {
                    let text = crate::read(&resolved)?;
                    let found: BTreeSet<String> =
                        attribute_values(&text, "id").into_iter().collect();
                    ids.entry(resolved.clone()).or_insert(found)
                }
            };
            if !known.contains(fragment) {
                broken.push(format!(
                    "{}: {target} (no element with id {fragment:?})",
                    page.display()
                ));
            }
        }
    }
    if broken.is_empty() {
        Ok(checked)
    } else {
        Err(format!(
            "{} broken links:\n{}",
            broken.len(),
            broken.join("\n")
        ))
    }
}

/// The HTML files under `dir`, leaving out `skip`.
fn collect_pages(dir: &Path, skip: &Path, pages: &mut Vec<PathBuf>) -> Result<(), String> {
    for path in crate::entries(dir)? {
        if path == skip {
            continue;
        }
        if path.is_dir() {
            collect_pages(&path, skip, pages)?;
        } else if path.extension().is_some_and(|ext| ext == "html") {
            pages.push(path);
        }
    }
    Ok(())
}

/// The values of every `name="…"` attribute in an HTML text, entities `&amp;` decoded.
fn attribute_values(html: &str, name: &str) -> Vec<String> {
    let pattern = format!(" {name}=\"");
    let mut values = Vec::new();
    let mut rest = html;
    while let Some(at) = rest.find(&pattern) {
        let tail = &rest[at + pattern.len()..];
        let end = tail.find('"').unwrap_or(tail.len());
        values.push(tail[..end].replace("&amp;", "&"));
        rest = &tail[end..];
    }
    values
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

fn copy(from: &Path, to: &Path) -> Result<(), String> {
    fs::copy(from, to)
        .map(|_| ())
        .map_err(|e| format!("cannot copy {}: {e}", from.display()))
}

fn copy_dir(from: &Path, to: &Path) -> Result<(), String> {
    fs::create_dir_all(to).map_err(|e| format!("cannot create {}: {e}", to.display()))?;
    for path in crate::entries(from)? {
        let Some(name) = path.file_name() else {
            continue;
        };
        if path.is_dir() {
            copy_dir(&path, &to.join(name))?;
        } else {
            copy(&path, &to.join(name))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn an_example_page_keeps_its_doc_but_the_stated_output() {
        let doc = "A server.\n\n```sh\ncargo run\n```\n\nA session:\n\nPrints:\n\n```text\n$ presa tools -- x\nNAME\n```\n\nWith Redis: `--redis URL`.";
        assert_eq!(
            without_stated_output(doc),
            "A server.\n\n```sh\ncargo run\n```\n\nA session:\n\nWith Redis: `--redis URL`."
        );
    }

    #[test]
    fn guide_links_become_book_pages() {
        let api = Api::new(PathBuf::from("/nonexistent"));
        let text =
            "see [input requests](presa::guide::input_requests#keys) and [x](presa::guide::tasks).";
        assert_eq!(
            links(text, "../", &api).unwrap(),
            "see [input requests](../guides/input-requests.md#keys) and [x](../guides/tasks.md)."
        );
    }

    #[test]
    fn an_item_rustdoc_did_not_write_is_an_error() {
        let api = Api::new(PathBuf::from("/nonexistent"));
        assert!(links("[`Nope`]: presa::server::Nope\n", "", &api).is_err());
    }

    #[test]
    fn attribute_values_are_read_with_entities_decoded() {
        let html = r#"<a href="a.html#x">a</a><img src="b.svg"><h2 id="x">"#;
        assert_eq!(attribute_values(html, "href"), ["a.html#x"]);
        assert_eq!(attribute_values(html, "src"), ["b.svg"]);
        assert_eq!(attribute_values(html, "id"), ["x"]);
        assert_eq!(
            attribute_values(r#"<a href="?a=1&amp;b=2">"#, "href"),
            ["?a=1&b=2"]
        );
    }
}
