//! The Skills extension (SEP-2640, `io.modelcontextprotocol/skills`): a server publishes Agent
//! Skills (directories with a `SKILL.md` that opens with YAML frontmatter) as resources, lists
//! them with `skills/list`, describes one with `skills/get`, and, when it declares
//! `directoryRead`, lists a directory's children with `resources/directory/read`.
//!
//! Every file of a skill is a resource, `skill://<skill-path>/<file-path>`; the final segment of
//! `<skill-path>` is the skill's name. A listing entry ([`Skill`]) is a complete manifest: the
//! frontmatter as written and every file with its SHA-256 digest and size, so that a host can
//! verify what it reads.
//!
//! ```
//! use presa_core::skills::{ListSkillsResult, SkillResources};
//!
//! let listed: ListSkillsResult = serde_json::from_value(serde_json::json!({
//!     "skills": [{
//!         "uri": "skill://git-workflow/SKILL.md",
//!         "frontmatter": {"name": "git-workflow", "description": "Team Git conventions"},
//!         "resources": [{"uri": "skill://git-workflow/SKILL.md",
//!                        "digest": "sha256:2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae",
//!                        "size": 3}]
//!     }],
//!     "ttlMs": 300000, "cacheScope": "public"
//! })).unwrap();
//! let skill = &listed.skills[0];
//! assert_eq!(skill.name(), Some("git-workflow"));
//! assert!(matches!(&skill.resources, SkillResources::Listed(files) if files.len() == 1));
//! ```

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::serde_util;

mod frontmatter;

use crate::{
    CacheScope, JsonObject, Meta, PaginatedRequestParams, RequestMethod, Resource, ResultType,
};
pub use frontmatter::{FrontmatterError, MAX_FRONTMATTER_BYTES, parse_frontmatter, sha256_digest};

pub use crate::types::capabilities::SKILLS_EXTENSION;

/// The MIME type of a directory resource (what `resources/directory/read` lists a subdirectory
/// as).
pub const DIRECTORY_MIME_TYPE: &str = "inode/directory";

/// The MIME type of a `SKILL.md`.
pub const SKILL_MD_MIME_TYPE: &str = "text/markdown";

/// The name of the file every skill has at its root.
pub const SKILL_MD: &str = "SKILL.md";

/// The most files a skill should have (its `SKILL.md` included): hosts must support this many.
pub const MAX_SKILL_FILES: usize = 512;

/// The most bytes a skill's files should add up to: hosts must support this much.
pub const MAX_SKILL_BYTES: u64 = 16 * 1024 * 1024;

/// The extension's settings as a server declares them.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SkillsSettings {
    /// The server serves `resources/directory/read`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub directory_read: Option<bool>,
    /// Settings this version of presa does not know.
    #[serde(flatten)]
    pub other: JsonObject,
}

/// One skill: its `SKILL.md`, its frontmatter as written, and its files.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Skill {
    /// The URI of the skill's `SKILL.md`, readable with `resources/read`.
    pub uri: String,
    /// Every field of the `SKILL.md` frontmatter, as JSON: at least `name` and `description`.
    pub frontmatter: JsonObject,
    /// The skill's files, or `"dynamic"` for content generated on the fly.
    pub resources: SkillResources,
}

impl Skill {
    /// The frontmatter's `name`, when it is a string.
    pub fn name(&self) -> Option<&str> {
        self.frontmatter.get("name")?.as_str()
    }

    /// The frontmatter's `description`, when it is a string.
    pub fn description(&self) -> Option<&str> {
        self.frontmatter.get("description")?.as_str()
    }

    /// The skill's root directory: its URI without the final `/SKILL.md` (`None` for a URI that
    /// does not end so).
    pub fn root(&self) -> Option<&str> {
        self.uri.strip_suffix(SKILL_MD)?.strip_suffix('/')
    }
}

/// A skill's files: each listed with its digest and size, or `"dynamic"`.
#[derive(Clone, Debug, PartialEq)]
pub enum SkillResources {
    /// Every file exactly once, `SKILL.md` included.
    Listed(Vec<SkillResource>),
    /// Content generated such that no stable digest can be published: nothing to verify.
    Dynamic,
}

impl Serialize for SkillResources {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Listed(files) => files.serialize(serializer),
            Self::Dynamic => serializer.serialize_str("dynamic"),
        }
    }
}

impl<'de> Deserialize<'de> for SkillResources {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Wire {
            Listed(Vec<SkillResource>),
            Word(String),
        }
        match Wire::deserialize(deserializer)? {
            Wire::Listed(files) => Ok(Self::Listed(files)),
            Wire::Word(word) if word == "dynamic" => Ok(Self::Dynamic),
            Wire::Word(word) => Err(serde::de::Error::custom(format!(
                "resources must be an array or \"dynamic\", not {word:?}"
            ))),
        }
    }
}

/// One file of a skill.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkillResource {
    /// The file's URI.
    pub uri: String,
    /// `sha256:` and 64 lowercase hex digits: the SHA-256 of the file's bytes (of a text
    /// resource, its UTF-8 bytes).
    pub digest: String,
    /// The number of those bytes.
    pub size: u64,
}

/// Result of `skills/list`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListSkillsResult {
    /// The result type (`complete`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// This page of skills.
    pub skills: Vec<Skill>,
    /// Cursor for the next page; absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// Freshness in milliseconds (required on 2026-07-28).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "serde_util::lenient_ttl"
    )]
    pub ttl_ms: Option<u64>,
    /// Who may reuse the result (required on 2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<CacheScope>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// Params of `skills/get`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GetSkillRequestParams {
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// The URI of the skill's `SKILL.md`.
    pub uri: String,
}

/// Result of `skills/get`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetSkillResult {
    /// The result type (`complete`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// The skill.
    pub skill: Skill,
    /// Freshness in milliseconds (required on 2026-07-28).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "serde_util::lenient_ttl"
    )]
    pub ttl_ms: Option<u64>,
    /// Who may reuse the result (required on 2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<CacheScope>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// Params of `resources/directory/read`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ReadResourceDirectoryRequestParams {
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// The directory's URI (no trailing slash).
    pub uri: String,
    /// The `nextCursor` of the previous page; absent for the first page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
}

/// Result of `resources/directory/read`: the directory's direct children, subdirectories with
/// the MIME type [`DIRECTORY_MIME_TYPE`].
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadResourceDirectoryResult {
    /// The result type (`complete`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// This page of children.
    pub resources: Vec<Resource>,
    /// Cursor for the next page; absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// `skills/list`.
#[derive(Clone, Copy, Debug)]
pub enum ListSkills {}

impl RequestMethod for ListSkills {
    const METHOD: &'static str = "skills/list";
    type Params = PaginatedRequestParams;
    type Result = ListSkillsResult;
}

/// `skills/get`.
#[derive(Clone, Copy, Debug)]
pub enum GetSkill {}

impl RequestMethod for GetSkill {
    const METHOD: &'static str = "skills/get";
    type Params = GetSkillRequestParams;
    type Result = GetSkillResult;
}

/// `resources/directory/read`.
#[derive(Clone, Copy, Debug)]
pub enum ReadResourceDirectory {}

impl RequestMethod for ReadResourceDirectory {
    const METHOD: &'static str = "resources/directory/read";
    type Params = ReadResourceDirectoryRequestParams;
    type Result = ReadResourceDirectoryResult;
}

/// Whether `name` is a valid skill name: 1 to 64 lowercase ASCII letters, digits and hyphens,
/// neither starting nor ending with a hyphen, with no two hyphens in a row.
///
/// ```
/// use presa_core::skills::is_valid_skill_name;
///
/// assert!(is_valid_skill_name("pdf-processing"));
/// assert!(!is_valid_skill_name("PDF"));
/// assert!(!is_valid_skill_name("a--b"));
/// assert!(!is_valid_skill_name("-a"));
/// ```
pub fn is_valid_skill_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !name.starts_with('-')
        && !name.ends_with('-')
        && !name.contains("--")
}

/// Why a name cannot be a segment of a skill's path (see [`check_path_segment`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum PathSegmentError {
    /// The name is empty (`//`, or `/` first or last).
    Empty,
    /// The name is `.` or `..`.
    Dot,
    /// The name holds `/`, `\`, `:` or a control character.
    Reserved,
}

impl PathSegmentError {
    /// The reason, in words.
    pub fn reason(self) -> &'static str {
        match self {
            Self::Empty => "a path cannot have an empty segment (`//`, or `/` first or last)",
            Self::Dot => "a path cannot have a `.` or `..` segment",
            Self::Reserved => "a path segment cannot hold `/`, `\\`, `:` or a control character",
        }
    }
}

impl std::fmt::Display for PathSegmentError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.reason())
    }
}

impl std::error::Error for PathSegmentError {}

/// Checks `name` as one segment of a skill's path (a folder or file name, percent-decoded
/// from a URI): not empty, `.` or `..`, and without `/`, `\`, `:` or a control character. The
/// names every host can map onto a folder of its own as they read, on any system; a server
/// serves only such names, and a host takes only such names.
///
/// ```
/// use presa_core::skills::{PathSegmentError, check_path_segment};
///
/// assert_eq!(check_path_segment("FORMS.md"), Ok(()));
/// assert_eq!(check_path_segment(".."), Err(PathSegmentError::Dot));
/// assert_eq!(check_path_segment("C:"), Err(PathSegmentError::Reserved));
/// ```
pub fn check_path_segment(name: &str) -> Result<(), PathSegmentError> {
    match name {
        "" => Err(PathSegmentError::Empty),
        "." | ".." => Err(PathSegmentError::Dot),
        _ if name.contains(['/', '\\', ':']) || name.chars().any(char::is_control) => {
            Err(PathSegmentError::Reserved)
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use serde_json::json;

    use super::*;

    #[test]
    fn resources_are_an_array_or_dynamic_and_nothing_else() {
        let dynamic: SkillResources = serde_json::from_value(json!("dynamic")).unwrap();
        assert_eq!(dynamic, SkillResources::Dynamic);
        assert_eq!(serde_json::to_value(&dynamic).unwrap(), json!("dynamic"));
        let listed: SkillResources = serde_json::from_value(
            json!([{"uri": "skill://a/SKILL.md", "digest": "sha256:00", "size": 0}]),
        )
        .unwrap();
        assert!(matches!(listed, SkillResources::Listed(ref files) if files.len() == 1));
        assert!(serde_json::from_value::<SkillResources>(json!("static")).is_err());
        assert!(serde_json::from_value::<SkillResources>(json!(null)).is_err());
    }

    #[test]
    fn a_skill_knows_its_name_and_root() {
        let skill = Skill {
            uri: "skill://acme/billing/refunds/SKILL.md".into(),
            frontmatter: json!({"name": "refunds", "description": "d"})
                .as_object()
                .unwrap()
                .clone(),
            resources: SkillResources::Dynamic,
        };
        assert_eq!(skill.name(), Some("refunds"));
        assert_eq!(skill.description(), Some("d"));
        assert_eq!(skill.root(), Some("skill://acme/billing/refunds"));
    }
}
