//! The skills as served: their listing entries, their files as resources, and the directories
//! those files make.

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

use presa_core::skills::{
    DIRECTORY_MIME_TYPE, MAX_SKILL_BYTES, MAX_SKILL_FILES, SKILL_MD, SKILL_MD_MIME_TYPE, Skill,
    SkillResource, SkillResources, check_path_segment, is_valid_skill_name, parse_frontmatter,
    sha256_digest,
};
use presa_core::{JsonObject, Resource, ResourceContents, percent_decode, percent_encode};

use super::SkillError;
use super::load::SkillFile;

/// The longest description the Agent Skills format allows.
const MAX_DESCRIPTION: usize = 1024;
/// The longest `compatibility` the Agent Skills format allows.
const MAX_COMPATIBILITY: usize = 500;
/// The frontmatter `metadata` prefix reserved for MCP extensions.
const RESERVED_METADATA: &str = "io.modelcontextprotocol/";

#[derive(Clone, Debug, Default)]
pub(crate) struct Catalog {
    /// The skills, in listing order.
    skills: Vec<Skill>,
    /// Every file of every skill, once, by URI.
    files: BTreeMap<String, Arc<ServedFile>>,
    /// Each directory's direct children, by the directory's URI.
    directories: BTreeMap<String, Vec<Resource>>,
    /// Changes with every skill added, so that a cursor of an older listing is refused.
    pub(crate) generation: u64,
}

/// A file as served: its resource and its contents.
#[derive(Debug, PartialEq)]
struct ServedFile {
    resource: Resource,
    contents: ResourceContents,
    /// `sha256:` and the hex SHA-256 of the file's bytes.
    digest: String,
}

impl Catalog {
    /// Adds the skill at `path` made of `files`, checked.
    pub(crate) fn add(&mut self, path: &str, files: Vec<SkillFile>) -> Result<(), SkillError> {
        let skill_segments = segments(path)?;
        let Some(&name_segment) = skill_segments.last() else {
            return Err(invalid(path, "a skill path needs at least one segment"));
        };
        let root = format!(
            "skill://{}",
            skill_segments
                .iter()
                .map(|s| percent_encode(s))
                .collect::<Vec<_>>()
                .join("/")
        );
        let skill_uri = format!("{root}/{SKILL_MD}");
        if self.skills.iter().any(|s| s.uri == skill_uri) {
            return Err(SkillError::Duplicate {
                path: path.to_owned(),
            });
        }
        if files.len() > MAX_SKILL_FILES {
            return Err(SkillError::TooManyFiles {
                skill: path.to_owned(),
                files: files.len(),
            });
        }
        let bytes: u64 = files.iter().map(|f| f.bytes.len() as u64).sum();
        if bytes > MAX_SKILL_BYTES {
            return Err(SkillError::TooLarge {
                skill: path.to_owned(),
                bytes,
            });
        }
        let mut served = BTreeMap::new();
        let mut frontmatter = None;
        for file in files {
            let file_segments = segments(&file.path)?;
            let uri = format!(
                "{root}/{}",
                file_segments
                    .iter()
                    .map(|s| percent_encode(s))
                    .collect::<Vec<_>>()
                    .join("/")
            );
            if file.path == SKILL_MD {
                frontmatter = Some(checked_frontmatter(path, name_segment, &file.bytes)?);
            }
            let file_name = file_segments.last().copied().unwrap_or(SKILL_MD);
            let entry = ServedFile::new(uri.clone(), file_name, &file.bytes);
            if served.insert(uri, entry).is_some() {
                return Err(SkillError::Duplicate { path: file.path });
            }
        }
        let Some(frontmatter) = frontmatter else {
            return Err(SkillError::NoSkillMd {
                skill: path.to_owned(),
            });
        };
        let mut listed = Vec::with_capacity(served.len());
        for (uri, file) in &mut served {
            let size = file.resource.size.unwrap_or(0);
            let digest = file.digest.clone();
            if uri == &skill_uri {
                // the SKILL.md resource carries the skill's name and description
                file.resource.name = name_segment.to_owned();
                file.resource.description = frontmatter
                    .get("description")
                    .and_then(|d| d.as_str())
                    .map(str::to_owned);
            }
            listed.push(SkillResource {
                uri: uri.clone(),
                digest,
                size,
            });
        }
        // a nested skill's files are its enclosing skill's too: served once, if the same
        for (uri, file) in &served {
            if let Some(known) = self.files.get(uri)
                && known.contents != file.contents
            {
                return Err(SkillError::Duplicate { path: uri.clone() });
            }
        }
        for (uri, file) in served {
            if uri == skill_uri {
                // a nested skill's SKILL.md, first served as its enclosing skill's file, now
                // carries its own name and description
                self.files.insert(uri, Arc::new(file));
            } else {
                self.files.entry(uri).or_insert_with(|| Arc::new(file));
            }
        }
        self.skills.push(Skill {
            uri: skill_uri,
            frontmatter,
            resources: SkillResources::Listed(listed),
        });
        self.generation += 1;
        self.directories = directories(&self.files);
        Ok(())
    }

    /// The listing entries, in order.
    pub(crate) fn entries(&self) -> impl Iterator<Item = &Skill> {
        self.skills.iter()
    }

    pub(crate) fn len(&self) -> usize {
        self.skills.len()
    }

    pub(crate) fn page(&self, range: std::ops::Range<usize>) -> Vec<Skill> {
        self.skills.get(range).unwrap_or_default().to_vec()
    }

    /// The skill whose `SKILL.md` is at `uri`.
    pub(crate) fn skill(&self, uri: &str) -> Option<&Skill> {
        self.skills.iter().find(|s| s.uri == uri)
    }

    /// The direct children of the directory at `uri`; `None` when no directory is there.
    pub(crate) fn directory(&self, uri: &str) -> Option<&[Resource]> {
        self.directories.get(uri).map(Vec::as_slice)
    }

    /// Every file as a resource with its contents.
    pub(crate) fn resources(&self) -> Vec<(Resource, ResourceContents)> {
        self.files
            .values()
            .map(|f| (f.resource.clone(), f.contents.clone()))
            .collect()
    }

    pub(crate) fn file_uris(&self) -> impl Iterator<Item = &String> {
        self.files.keys()
    }

    /// The URIs of the files served the same here as in `previous`.
    pub(crate) fn unchanged_since(&self, previous: &Catalog) -> HashSet<String> {
        self.files
            .iter()
            .filter(|(uri, file)| previous.files.get(*uri).is_some_and(|p| p == *file))
            .map(|(uri, _)| uri.clone())
            .collect()
    }
}

impl ServedFile {
    fn new(uri: String, file_name: &str, bytes: &[u8]) -> Self {
        let mime_type = mime_type_of(file_name, bytes);
        let text = textual(mime_type)
            .then(|| std::str::from_utf8(bytes).ok())
            .flatten();
        let contents = match text {
            Some(text) => {
                let mut contents = ResourceContents::text(uri.clone(), text);
                if let ResourceContents::Text(t) = &mut contents {
                    t.mime_type = Some(mime_type.to_owned());
                }
                contents
            }
            None => ResourceContents::blob(uri.clone(), bytes, Some(mime_type.to_owned())),
        };
        Self {
            resource: Resource::new(uri, file_name)
                .mime_type(mime_type)
                .size(bytes.len() as u64),
            contents,
            digest: sha256_digest(bytes),
        }
    }
}

/// The frontmatter of a skill's `SKILL.md`, checked against the Agent Skills format.
fn checked_frontmatter(skill: &str, name: &str, bytes: &[u8]) -> Result<JsonObject, SkillError> {
    let refused = |reason: String| SkillError::InvalidFrontmatter {
        skill: skill.to_owned(),
        reason,
    };
    let text = std::str::from_utf8(bytes)
        .map_err(|_| refused("its SKILL.md is not UTF-8 text".to_owned()))?;
    let frontmatter = parse_frontmatter(text).map_err(|source| SkillError::Frontmatter {
        skill: skill.to_owned(),
        source,
    })?;
    let string = |field: &str| frontmatter.get(field).and_then(|v| v.as_str());
    match string("name") {
        None | Some("") => return Err(refused("the frontmatter needs a `name` string".into())),
        Some(declared) if !is_valid_skill_name(declared) => {
            return Err(refused(format!(
                "name {declared:?} breaks the naming rules: 1 to 64 lowercase letters, digits \
                 and single hyphens, neither first nor last"
            )));
        }
        Some(declared) if declared != name => {
            return Err(refused(format!(
                "name {declared:?} differs from its folder's name {name:?}"
            )));
        }
        Some(_) => {}
    }
    match string("description") {
        None | Some("") => {
            return Err(refused(
                "the frontmatter needs a `description` string".into(),
            ));
        }
        Some(d) if d.chars().count() > MAX_DESCRIPTION => {
            return Err(refused(format!(
                "the description is longer than {MAX_DESCRIPTION} characters"
            )));
        }
        Some(_) => {}
    }
    if let Some(compatibility) = frontmatter.get("compatibility") {
        match compatibility.as_str() {
            Some(c) if c.chars().count() <= MAX_COMPATIBILITY => {}
            _ => {
                return Err(refused(format!(
                    "`compatibility` must be a string of at most {MAX_COMPATIBILITY} characters"
                )));
            }
        }
    }
    if let Some(metadata) = frontmatter.get("metadata") {
        let Some(metadata) = metadata.as_object() else {
            return Err(refused("`metadata` must be a mapping".into()));
        };
        if let Some(key) = metadata.keys().find(|k| k.starts_with(RESERVED_METADATA)) {
            return Err(refused(format!(
                "metadata key {key:?} uses the prefix {RESERVED_METADATA:?}, reserved for MCP \
                 extensions"
            )));
        }
    }
    Ok(frontmatter)
}

/// The `/`-separated segments of a skill path or file path, each one a host can map
/// ([`check_path_segment`]).
fn segments(path: &str) -> Result<Vec<&str>, SkillError> {
    if path.is_empty() {
        return Err(invalid(path, "a path cannot be empty"));
    }
    let segments: Vec<&str> = path.split('/').collect();
    for segment in &segments {
        check_path_segment(segment).map_err(|refused| invalid(path, refused.reason()))?;
    }
    Ok(segments)
}

fn invalid(path: &str, reason: &'static str) -> SkillError {
    SkillError::InvalidPath {
        path: path.to_owned(),
        reason,
    }
}

/// Each directory's direct children: every level between a file's authority and its name.
/// A file is listed by its name, with its MIME type and size.
fn directories(files: &BTreeMap<String, Arc<ServedFile>>) -> BTreeMap<String, Vec<Resource>> {
    let mut children: BTreeMap<String, BTreeMap<String, Resource>> = BTreeMap::new();
    for (uri, file) in files {
        let Some(path) = uri.strip_prefix("skill://") else {
            continue;
        };
        let segments: Vec<&str> = path.split('/').collect();
        for depth in 1..segments.len() {
            let directory = format!("skill://{}", segments[..depth].join("/"));
            let child_uri = format!("{directory}/{}", segments[depth]);
            let name =
                percent_decode(segments[depth]).unwrap_or_else(|| segments[depth].to_owned());
            let mut child = Resource::new(child_uri.clone(), name);
            if depth + 1 == segments.len() {
                child.mime_type = file.resource.mime_type.clone();
                child.size = file.resource.size;
            } else {
                child.mime_type = Some(DIRECTORY_MIME_TYPE.to_owned());
            }
            children
                .entry(directory)
                .or_default()
                .entry(child_uri)
                .or_insert(child);
        }
    }
    children
        .into_iter()
        .map(|(directory, children)| (directory, children.into_values().collect()))
        .collect()
}

/// The MIME type of a file, by its extension; text without a known extension is
/// `text/plain`, anything else `application/octet-stream`.
fn mime_type_of(file_name: &str, bytes: &[u8]) -> &'static str {
    let extension = file_name
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase());
    match extension.as_deref() {
        Some("md" | "markdown") => SKILL_MD_MIME_TYPE,
        Some("txt") => "text/plain",
        Some("py") => "text/x-python",
        Some("js" | "mjs") => "text/javascript",
        Some("ts") => "text/x-typescript",
        Some("sh") => "text/x-shellscript",
        Some("html" | "htm") => "text/html",
        Some("css") => "text/css",
        Some("csv") => "text/csv",
        Some("json") => "application/json",
        Some("yaml" | "yml") => "application/yaml",
        Some("toml") => "application/toml",
        Some("xml") => "application/xml",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("jpg" | "jpeg") => "image/jpeg",
        Some("gif") => "image/gif",
        Some("webp") => "image/webp",
        Some("pdf") => "application/pdf",
        Some("zip") => "application/zip",
        _ if std::str::from_utf8(bytes).is_ok() => "text/plain",
        _ => "application/octet-stream",
    }
}

/// Whether a MIME type is served as text (when the bytes are UTF-8).
fn textual(mime_type: &str) -> bool {
    mime_type.starts_with("text/")
        || matches!(
            mime_type,
            "application/json"
                | "application/yaml"
                | "application/toml"
                | "application/xml"
                | "image/svg+xml"
        )
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn skill_md(name: &str) -> SkillFile {
        SkillFile::new(
            SKILL_MD,
            format!("---\nname: {name}\ndescription: Does {name} things\n---\n\nBody.\n"),
        )
    }

    fn refusal(path: &str, files: Vec<SkillFile>) -> String {
        Catalog::default().add(path, files).unwrap_err().to_string()
    }

    #[test]
    fn a_skill_lists_every_file_with_its_digest_and_size() {
        let mut catalog = Catalog::default();
        catalog
            .add(
                "acme/pdf",
                vec![skill_md("pdf"), SkillFile::new("forms/W 9.md", "fill me\n")],
            )
            .unwrap();
        let skill = catalog.skill("skill://acme/pdf/SKILL.md").unwrap();
        let SkillResources::Listed(files) = &skill.resources else {
            panic!("not listed");
        };
        let uris: Vec<&str> = files.iter().map(|f| f.uri.as_str()).collect();
        assert_eq!(
            uris,
            [
                "skill://acme/pdf/SKILL.md",
                "skill://acme/pdf/forms/W%209.md"
            ]
        );
        assert_eq!(files[1].size, 8);
        assert_eq!(files[1].digest, sha256_digest(b"fill me\n"));
        // directories from the authority down, subdirectories marked
        let acme = catalog.directory("skill://acme").unwrap();
        assert_eq!(acme[0].uri, "skill://acme/pdf");
        assert_eq!(acme[0].mime_type.as_deref(), Some(DIRECTORY_MIME_TYPE));
        let root = catalog.directory("skill://acme/pdf").unwrap();
        let kinds: Vec<(&str, Option<&str>)> = root
            .iter()
            .map(|r| (r.name.as_str(), r.mime_type.as_deref()))
            .collect();
        assert_eq!(
            kinds,
            [
                ("SKILL.md", Some("text/markdown")),
                ("forms", Some(DIRECTORY_MIME_TYPE))
            ]
        );
        assert!(catalog.directory("skill://acme/pdf/SKILL.md").is_none());
        // the SKILL.md resource carries the skill's name and description
        let resources = catalog.resources();
        let skill_md = &resources[0].0;
        assert_eq!(
            (skill_md.name.as_str(), skill_md.description.as_deref()),
            ("pdf", Some("Does pdf things"))
        );
    }

    #[test]
    fn what_breaks_the_format_is_refused_with_the_reason() {
        assert!(refusal("a", vec![SkillFile::new("x.md", "x")]).contains("no SKILL.md"));
        assert!(refusal("b", vec![skill_md("a")]).contains("differs from its folder's name"));
        assert!(refusal("Bad", vec![skill_md("Bad")]).contains("naming rules"));
        assert!(refusal("a", vec![skill_md("a"), SkillFile::new("../x", "x")]).contains("`..`"));
        assert!(refusal("a/../b", vec![skill_md("b")]).contains("`..`"));
        assert!(refusal("a", vec![skill_md("a"), SkillFile::new("/x", "x")]).contains("empty"));
        let no_description = SkillFile::new(SKILL_MD, "---\nname: a\n---\n");
        assert!(refusal("a", vec![no_description]).contains("`description`"));
        let reserved = SkillFile::new(
            SKILL_MD,
            "---\nname: a\ndescription: d\nmetadata:\n  io.modelcontextprotocol/x: y\n---\n",
        );
        assert!(refusal("a", vec![reserved]).contains("reserved"));
        let many: Vec<SkillFile> = std::iter::once(skill_md("a"))
            .chain((0..MAX_SKILL_FILES).map(|i| SkillFile::new(format!("f{i}"), "x")))
            .collect();
        assert!(refusal("a", many).contains("513 files"));
        let large = vec![
            skill_md("a"),
            SkillFile::new("big", vec![0u8; 16 * 1024 * 1024]),
        ];
        assert!(refusal("a", large).contains("more than the 16777216"));
    }

    #[test]
    fn a_nested_skill_md_carries_its_own_skill_s_name() {
        let inner = "---\nname: inner\ndescription: The inner one\n---\n";
        let mut catalog = Catalog::default();
        catalog
            .add(
                "outer",
                vec![skill_md("outer"), SkillFile::new("inner/SKILL.md", inner)],
            )
            .unwrap();
        catalog
            .add("outer/inner", vec![SkillFile::new(SKILL_MD, inner)])
            .unwrap();
        let resources = catalog.resources();
        let nested = resources
            .iter()
            .find(|(r, _)| r.uri == "skill://outer/inner/SKILL.md")
            .unwrap();
        assert_eq!(
            (nested.0.name.as_str(), nested.0.description.as_deref()),
            ("inner", Some("The inner one"))
        );
        // listed in both skills, served once
        assert_eq!(catalog.len(), 2);
        assert_eq!(resources.len(), 2);
    }

    #[test]
    fn binary_files_are_blobs_and_text_is_text() {
        let file = ServedFile::new("skill://a/x.png".into(), "x.png", &[0x89, b'P', b'N', b'G']);
        let ResourceContents::Blob(blob) = &file.contents else {
            panic!("not a blob");
        };
        assert_eq!(blob.decode().unwrap(), [0x89, b'P', b'N', b'G']);
        assert_eq!(file.digest, sha256_digest(&[0x89, b'P', b'N', b'G']));
        let file = ServedFile::new("skill://a/x.py".into(), "x.py", b"print(1)\n");
        assert!(matches!(file.contents, ResourceContents::Text(_)));
        assert_eq!(file.resource.mime_type.as_deref(), Some("text/x-python"));
    }
}
