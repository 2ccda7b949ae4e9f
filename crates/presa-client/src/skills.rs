//! The Skills extension (SEP-2640) as a host uses it: list skills without reading any file, and
//! load one by reading its `SKILL.md` first, then its other files, each verified against the
//! listing before it is used.

use std::fmt;

use presa_core::skills::{
    FrontmatterError, GetSkill, GetSkillRequestParams, ListSkills, MAX_SKILL_BYTES,
    MAX_SKILL_FILES, Skill, SkillResource, SkillResources, check_path_segment, parse_frontmatter,
    sha256_digest,
};
use presa_core::{PaginatedRequestParams, RequestMethod, ResourceContents};

use crate::calls::MAX_PAGES;
use crate::client::Client;
use crate::error::ClientError;

impl Client {
    /// Every skill the server lists, across all pages, without reading any of their files.
    /// [`ClientError::NotOffered`] when the server did not declare the Skills extension; a
    /// server that repeats a cursor, or pages on past the limit the other lists have, is
    /// [`ClientError::InvalidResult`].
    pub async fn skills(&self) -> Result<Vec<Skill>, ClientError> {
        let mut skills = Vec::new();
        let mut seen = std::collections::HashSet::new();
        let mut cursor = None;
        for _ in 0..MAX_PAGES {
            let params = PaginatedRequestParams {
                meta: None,
                cursor: cursor.take(),
            };
            let page = self.request::<ListSkills>(&params).await?;
            skills.extend(page.skills);
            let Some(next) = page.next_cursor else {
                return Ok(skills);
            };
            if !seen.insert(next.clone()) {
                return Err(ClientError::InvalidResult(format!(
                    "{} repeated cursor {next:?}",
                    ListSkills::METHOD
                )));
            }
            cursor = Some(next);
        }
        Err(ClientError::InvalidResult(format!(
            "{} returned more than {MAX_PAGES} pages",
            ListSkills::METHOD
        )))
    }

    /// The skill whose `SKILL.md` is at `uri`, as the server describes it now (`skills/get`),
    /// loaded with [`load_skill_entry`](Self::load_skill_entry).
    pub async fn load_skill(&self, uri: &str) -> Result<LoadedSkill, SkillLoadError> {
        let params = GetSkillRequestParams {
            meta: None,
            uri: uri.to_owned(),
        };
        let described = self.request::<GetSkill>(&params).await?;
        if described.skill.uri != uri {
            return Err(SkillLoadError::InvalidListing {
                uri: uri.to_owned(),
                reason: format!("skills/get described {} instead", described.skill.uri),
            });
        }
        self.load_skill_entry(&described.skill).await
    }

    /// Loads the skill `entry` describes (from [`skills`](Self::skills), or held from before):
    /// reads its `SKILL.md` first and checks it against the entry (digest, size, and the
    /// frontmatter field by field), then each other file it lists (digest and size). The first
    /// file that does not match stops the loading with a [`SkillLoadError`]; nothing
    /// unverified is returned. A `"dynamic"` skill, which publishes nothing to verify, is
    /// declined.
    pub async fn load_skill_entry(&self, entry: &Skill) -> Result<LoadedSkill, SkillLoadError> {
        let SkillResources::Listed(listed) = &entry.resources else {
            return Err(SkillLoadError::Dynamic {
                uri: entry.uri.clone(),
            });
        };
        check_listing(entry, listed)?;
        let main = listed
            .iter()
            .find(|file| file.uri == entry.uri)
            .ok_or_else(|| SkillLoadError::Unlisted {
                uri: entry.uri.clone(),
            })?;
        let skill_md = self.read_verified(main).await?;
        let text = std::str::from_utf8(&skill_md.bytes).map_err(|_| SkillLoadError::NotText {
            uri: entry.uri.clone(),
        })?;
        let frontmatter =
            parse_frontmatter(text).map_err(|source| SkillLoadError::Frontmatter {
                uri: entry.uri.clone(),
                source,
            })?;
        let fields = frontmatter.keys().chain(entry.frontmatter.keys());
        if let Some(field) = fields
            .into_iter()
            .find(|field| !same_json(frontmatter.get(*field), entry.frontmatter.get(*field)))
        {
            return Err(SkillLoadError::FrontmatterMismatch {
                uri: entry.uri.clone(),
                field: field.clone(),
            });
        }
        let mut files = vec![skill_md];
        for file in listed.iter().filter(|file| file.uri != entry.uri) {
            files.push(self.read_verified(file).await?);
        }
        Ok(LoadedSkill {
            skill: entry.clone(),
            files,
        })
    }

    /// Reads the file `listed` names and checks its bytes against the listing.
    async fn read_verified(&self, listed: &SkillResource) -> Result<SkillFile, SkillLoadError> {
        let result = self.read_resource(listed.uri.clone()).await?;
        let contents = result
            .contents
            .into_iter()
            .find(|contents| contents.uri() == listed.uri)
            .ok_or_else(|| SkillLoadError::NoContents {
                uri: listed.uri.clone(),
            })?;
        let (bytes, mime_type) = match contents {
            ResourceContents::Text(text) => (text.text.into_bytes(), text.mime_type),
            ResourceContents::Blob(blob) => {
                let bytes = blob.decode().map_err(|_| SkillLoadError::NoContents {
                    uri: listed.uri.clone(),
                })?;
                (bytes, blob.mime_type)
            }
        };
        if bytes.len() as u64 != listed.size {
            return Err(SkillLoadError::SizeMismatch {
                uri: listed.uri.clone(),
                listed: listed.size,
                read: bytes.len() as u64,
            });
        }
        let digest = sha256_digest(&bytes);
        if digest != listed.digest {
            return Err(SkillLoadError::DigestMismatch {
                uri: listed.uri.clone(),
                listed: listed.digest.clone(),
                read: digest,
            });
        }
        Ok(SkillFile {
            uri: listed.uri.clone(),
            mime_type,
            bytes,
        })
    }
}

/// Refuses a listing a host must not act on: a skill URI that is not a `SKILL.md` in a folder
/// of its own, a file outside that folder or listed twice by any spelling (`..`, `%2E%2E`, an
/// encoded `/`, `%78` beside `x`), a query or fragment, more files or bytes than the limits.
fn check_listing(entry: &Skill, listed: &[SkillResource]) -> Result<(), SkillLoadError> {
    let refused = |reason: String| SkillLoadError::InvalidListing {
        uri: entry.uri.clone(),
        reason,
    };
    let root = entry
        .root()
        .ok_or_else(|| refused("the skill's URI does not end in /SKILL.md".to_owned()))?;
    let folder = root
        .split_once("://")
        .filter(|(scheme, _)| !scheme.is_empty())
        .map(|(_, folder)| folder)
        .ok_or_else(|| refused("the skill's URI has no scheme://".to_owned()))?;
    plain_path(folder, &entry.uri).map_err(|why| refused(format!("the skill's folder {why}")))?;
    if listed.len() > MAX_SKILL_FILES {
        return Err(refused(format!(
            "{} files listed, more than {MAX_SKILL_FILES}",
            listed.len()
        )));
    }
    let bytes = listed
        .iter()
        .fold(0u64, |sum, file| sum.saturating_add(file.size));
    if bytes > MAX_SKILL_BYTES {
        return Err(refused(format!(
            "{bytes} bytes listed, more than {MAX_SKILL_BYTES}"
        )));
    }
    // twice by any spelling: the paths a host maps, decoded
    let mut seen = std::collections::HashSet::new();
    for file in listed {
        let Some(within) = file
            .uri
            .strip_prefix(root)
            .and_then(|rest| rest.strip_prefix('/'))
        else {
            return Err(refused(format!(
                "{} is outside the skill's folder",
                file.uri
            )));
        };
        let path =
            plain_path(within, &file.uri).map_err(|why| refused(format!("{}: {why}", file.uri)))?;
        if !seen.insert(path) {
            return Err(refused(format!("{} is listed twice", file.uri)));
        }
    }
    Ok(())
}

/// The path `path` (a part of `uri`) names, decoded, when it is names joined by `/` that a
/// host can map onto its own folders as they read: each segment, percent-decoded, passes
/// [`check_path_segment`]; and `uri` has no query or fragment.
fn plain_path(path: &str, uri: &str) -> Result<Vec<String>, String> {
    if uri.contains(['?', '#']) {
        return Err("has a query or fragment".to_owned());
    }
    path.split('/')
        .map(|segment| {
            let name = presa_core::percent_decode(segment)
                .ok_or_else(|| format!("segment {segment:?} is not valid percent-encoding"))?;
            check_path_segment(&name)
                .map_err(|refused| format!("segment {segment:?}: {refused}"))?;
            Ok(name)
        })
        .collect()
}

/// Whether two frontmatter values say the same, as a JavaScript host compares them: numbers
/// by value (`1` and `1.0` alike), a field set to `null` as one left out, everything else as
/// JSON.
fn same_json(a: Option<&serde_json::Value>, b: Option<&serde_json::Value>) -> bool {
    use serde_json::Value;
    match (a, b) {
        (Some(Value::Number(a)), Some(Value::Number(b))) => a.as_f64() == b.as_f64(),
        (Some(Value::Array(a)), Some(Value::Array(b))) => {
            a.len() == b.len() && a.iter().zip(b).all(|(a, b)| same_json(Some(a), Some(b)))
        }
        // over both sides' keys: a key set to `null` is one left out, on either side
        (Some(Value::Object(a)), Some(Value::Object(b))) => a
            .keys()
            .chain(b.keys())
            .all(|key| same_json(a.get(key), b.get(key))),
        (None | Some(Value::Null), None | Some(Value::Null)) => true,
        (a, b) => a == b,
    }
}

/// A skill whose files were all read and verified.
#[derive(Clone, Debug, PartialEq)]
pub struct LoadedSkill {
    /// The entry it was verified against.
    pub skill: Skill,
    /// Its files, `SKILL.md` first, then in the entry's order.
    pub files: Vec<SkillFile>,
}

impl LoadedSkill {
    /// The `SKILL.md` text.
    pub fn skill_md(&self) -> &str {
        self.files
            .first()
            .and_then(|file| std::str::from_utf8(&file.bytes).ok())
            .unwrap_or_default()
    }

    /// The file at `uri`.
    pub fn file(&self, uri: &str) -> Option<&SkillFile> {
        self.files.iter().find(|file| file.uri == uri)
    }
}

/// One verified file of a skill.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkillFile {
    /// Its URI.
    pub uri: String,
    /// Its MIME type, as the server gave it.
    pub mime_type: Option<String>,
    /// Its bytes (of a text resource, the UTF-8 bytes of its text).
    pub bytes: Vec<u8>,
}

/// Why a skill was not loaded: a call failed, or what was read does not match the listing.
#[derive(Debug)]
#[non_exhaustive]
pub enum SkillLoadError {
    /// A call failed (`skills/get`, `resources/read`), or the server does not serve Skills.
    Client(ClientError),
    /// The skill's files are `"dynamic"`: nothing to verify them against.
    Dynamic {
        /// The skill.
        uri: String,
    },
    /// The listing is one a host must not act on: files outside the skill's folder or listed
    /// twice, more than 512 files or 16 MiB, or another skill than the one asked for.
    InvalidListing {
        /// The skill.
        uri: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The listing does not name the skill's own `SKILL.md`.
    Unlisted {
        /// The skill.
        uri: String,
    },
    /// The read returned no contents for the file.
    NoContents {
        /// The file.
        uri: String,
    },
    /// The file has another size than listed.
    SizeMismatch {
        /// The file.
        uri: String,
        /// The listed size.
        listed: u64,
        /// The size read.
        read: u64,
    },
    /// The file has another digest than listed.
    DigestMismatch {
        /// The file.
        uri: String,
        /// The listed digest.
        listed: String,
        /// The digest of what was read.
        read: String,
    },
    /// The `SKILL.md` is not UTF-8 text.
    NotText {
        /// The skill.
        uri: String,
    },
    /// The `SKILL.md` frontmatter cannot be read.
    Frontmatter {
        /// The skill.
        uri: String,
        /// Why.
        source: FrontmatterError,
    },
    /// A frontmatter field of the `SKILL.md` differs from the listing's.
    FrontmatterMismatch {
        /// The skill.
        uri: String,
        /// The first field that differs.
        field: String,
    },
}

impl From<ClientError> for SkillLoadError {
    fn from(error: ClientError) -> Self {
        Self::Client(error)
    }
}

impl fmt::Display for SkillLoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Client(_) => f.write_str("a call for the skill failed"),
            Self::Dynamic { uri } => {
                write!(
                    f,
                    "{uri}: the skill's files are dynamic, with nothing to verify"
                )
            }
            Self::InvalidListing { uri, reason } => write!(f, "{uri}: {reason}"),
            Self::Unlisted { uri } => write!(f, "{uri}: the listing does not name its SKILL.md"),
            Self::NoContents { uri } => write!(f, "{uri}: the read returned no contents"),
            Self::SizeMismatch { uri, listed, read } => {
                write!(f, "{uri}: {read} bytes read, {listed} listed")
            }
            Self::DigestMismatch { uri, listed, read } => {
                write!(f, "{uri}: digest {read}, {listed} listed")
            }
            Self::NotText { uri } => write!(f, "{uri}: SKILL.md is not UTF-8 text"),
            Self::Frontmatter { uri, .. } => write!(f, "{uri}: the frontmatter cannot be read"),
            Self::FrontmatterMismatch { uri, field } => {
                write!(
                    f,
                    "{uri}: frontmatter field {field:?} differs from the listing's"
                )
            }
        }
    }
}

impl std::error::Error for SkillLoadError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Client(error) => Some(error),
            Self::Frontmatter { source, .. } => Some(source),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use serde_json::json;

    use super::*;

    fn entry(files: &[(&str, u64)]) -> (Skill, Vec<SkillResource>) {
        let listed: Vec<SkillResource> = files
            .iter()
            .map(|(uri, size)| SkillResource {
                uri: (*uri).to_owned(),
                digest: sha256_digest(b""),
                size: *size,
            })
            .collect();
        let skill = Skill {
            uri: "skill://a/SKILL.md".into(),
            frontmatter: json!({"name": "a", "description": "d"})
                .as_object()
                .unwrap()
                .clone(),
            resources: SkillResources::Listed(listed.clone()),
        };
        (skill, listed)
    }

    #[test]
    fn a_listing_a_host_must_not_act_on_is_refused_before_any_read() {
        let (skill, listed) = entry(&[("skill://a/SKILL.md", 3), ("skill://a/x/y.md", 4)]);
        assert!(check_listing(&skill, &listed).is_ok());
        for files in [
            &[("skill://a/SKILL.md", 3), ("skill://b/secret", 4)][..],
            &[("skill://a/SKILL.md", 3), ("skill://a/../b/secret", 4)],
            &[("skill://a/SKILL.md", 3), ("skill://ab/x", 4)],
            &[("skill://a/SKILL.md", 3), ("skill://a/SKILL.md", 3)],
            &[("skill://a/SKILL.md", MAX_SKILL_BYTES), ("skill://a/x", 1)],
            // `..` and `.` by any spelling, empty segments, encoded separators, NUL
            &[("skill://a/SKILL.md", 3), ("skill://a/%2E%2E/b/secret", 4)],
            &[("skill://a/SKILL.md", 3), ("skill://a/%2e%2e/b/secret", 4)],
            &[("skill://a/SKILL.md", 3), ("skill://a/./x", 4)],
            &[("skill://a/SKILL.md", 3), ("skill://a//x", 4)],
            &[("skill://a/SKILL.md", 3), ("skill://a/x/", 4)],
            &[("skill://a/SKILL.md", 3), ("skill://a/%2F..%2Fb", 4)],
            &[("skill://a/SKILL.md", 3), ("skill://a/..%5Cb", 4)],
            &[("skill://a/SKILL.md", 3), ("skill://a/x%00", 4)],
            &[("skill://a/SKILL.md", 3), ("skill://a/x%ZZ", 4)],
            &[("skill://a/SKILL.md", 3), ("skill://a/C:/x", 4)],
            &[("skill://a/SKILL.md", 3), ("skill://a/x%1B", 4)],
            // one file by two spellings
            &[
                ("skill://a/SKILL.md", 3),
                ("skill://a/x", 4),
                ("skill://a/%78", 4),
            ],
            // queries and fragments name something else than the file
            &[("skill://a/SKILL.md", 3), ("skill://a/x?y=/../b", 4)],
            &[("skill://a/SKILL.md", 3), ("skill://a/x#y", 4)],
        ] {
            let (skill, listed) = entry(files);
            let refused = check_listing(&skill, &listed).unwrap_err();
            assert!(
                matches!(refused, SkillLoadError::InvalidListing { .. }),
                "{refused}"
            );
        }
        // a skill URI with no folder of its own
        for uri in [
            "skill://SKILL.md",
            "skill:///SKILL.md",
            "://a/SKILL.md",
            "skill://../SKILL.md",
            "skill://a/%2E/SKILL.md",
            "skill://a/SKILL.md?x",
        ] {
            let (mut skill, listed) = entry(&[]);
            skill.uri = uri.to_owned();
            let refused = check_listing(&skill, &listed).unwrap_err();
            assert!(
                matches!(refused, SkillLoadError::InvalidListing { .. }),
                "{uri}: {refused}"
            );
        }
        // names that only look unusual are files like any other
        let (skill, listed) = entry(&[
            ("skill://a/SKILL.md", 3),
            ("skill://a/..x/y%20z.md", 4),
            ("skill://a/.hidden", 4),
        ]);
        assert!(check_listing(&skill, &listed).is_ok());
        let many: Vec<(String, u64)> = (0..=MAX_SKILL_FILES)
            .map(|i| (format!("skill://a/f{i}"), 0))
            .collect();
        let many: Vec<(&str, u64)> = many.iter().map(|(u, s)| (u.as_str(), *s)).collect();
        let (skill, listed) = entry(&many);
        assert!(check_listing(&skill, &listed).is_err());
    }

    #[test]
    fn numbers_compare_by_value_as_a_javascript_host_compares_them() {
        assert!(same_json(Some(&json!(1)), Some(&json!(1.0))));
        assert!(same_json(
            Some(&json!({"v": [1, "x"]})),
            Some(&json!({"v": [1.0, "x"]}))
        ));
        assert!(!same_json(Some(&json!(1)), Some(&json!("1"))));
        assert!(!same_json(
            Some(&json!({"v": 1})),
            Some(&json!({"v": 1, "w": 2}))
        ));
        // nested objects compare over both sides' keys, `null` as left out
        assert!(!same_json(
            Some(&json!({"m": {"v": null}})),
            Some(&json!({"m": {"w": 5}}))
        ));
        assert!(same_json(
            Some(&json!({"m": {"v": null, "w": 5}})),
            Some(&json!({"m": {"w": 5.0}}))
        ));
        assert!(same_json(None, None));
        assert!(same_json(Some(&json!(null)), None));
        assert!(!same_json(Some(&json!(false)), None));
    }
}
