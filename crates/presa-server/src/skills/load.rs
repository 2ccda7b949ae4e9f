//! Reading skills from a directory: every folder with a `SKILL.md` is a skill; no file is taken
//! from outside its skill's folder.

use std::collections::BTreeMap;
use std::fs;
use std::io::Read as _;
use std::path::{Path, PathBuf};

use presa_core::skills::{MAX_SKILL_BYTES, SKILL_MD};

use super::SkillError;

/// How deep folders may nest below the skills directory.
const MAX_DEPTH: usize = 32;

/// A file of a skill: its path within the skill and its bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SkillFile {
    pub(crate) path: String,
    pub(crate) bytes: Vec<u8>,
}

impl SkillFile {
    pub(crate) fn new(path: impl Into<String>, bytes: impl Into<Vec<u8>>) -> Self {
        Self {
            path: path.into(),
            bytes: bytes.into(),
        }
    }
}

/// A file found below the skills directory.
struct Found {
    /// Where it is.
    path: PathBuf,
    /// What it is, when it is a symbolic link.
    link: Link,
}

/// A symbolic link, judged only if a skill holds it.
enum Link {
    /// Not a link.
    None,
    /// A link to this regular file.
    To(PathBuf),
    /// A link to a folder, to something other than a file, or to nothing.
    Unusable,
}

/// The skills below `root`, each its skill path and files, in path order.
pub(crate) fn walk(root: &Path) -> Result<Vec<(String, Vec<SkillFile>)>, SkillError> {
    let mut found = BTreeMap::new();
    visit(root, "", 0, &mut found)?;
    if found.contains_key(SKILL_MD) {
        return Err(SkillError::InvalidPath {
            path: root.join(SKILL_MD).display().to_string(),
            reason: "the skills directory is itself a skill: give the folder that holds the \
                     skill folders",
        });
    }
    let skill_dirs: Vec<&str> = found
        .keys()
        .filter_map(|relative| relative.strip_suffix(SKILL_MD)?.strip_suffix('/'))
        .collect();
    let mut skills = Vec::with_capacity(skill_dirs.len());
    for dir in skill_dirs {
        let folder = root.join(dir);
        let canonical = fs::canonicalize(&folder).map_err(|source| SkillError::Io {
            path: folder.clone(),
            source,
        })?;
        let prefix = format!("{dir}/");
        let mut files = Vec::new();
        let mut bytes = 0u64;
        for (relative, file) in found.range(prefix.clone()..) {
            let Some(within) = relative.strip_prefix(&prefix) else {
                break;
            };
            let escapes = match &file.link {
                Link::None => false,
                Link::To(target) => !target.starts_with(&canonical),
                Link::Unusable => true,
            };
            if escapes {
                return Err(SkillError::Escapes {
                    path: file.path.clone(),
                });
            }
            let io = |source| SkillError::Io {
                path: file.path.clone(),
                source,
            };
            let too_large = |bytes| SkillError::TooLarge {
                skill: dir.to_owned(),
                bytes,
            };
            // the size first, so that the error names it without reading; then the reading
            // itself stops past the limit (the file may have grown since)
            let listed = bytes.saturating_add(fs::metadata(&file.path).map_err(io)?.len());
            if listed > MAX_SKILL_BYTES {
                return Err(too_large(listed));
            }
            let read = read_at_most(&file.path, MAX_SKILL_BYTES - bytes).map_err(io)?;
            bytes += read.len() as u64;
            if bytes > MAX_SKILL_BYTES {
                return Err(too_large(bytes));
            }
            files.push(SkillFile::new(within, read));
        }
        skills.push((dir.to_owned(), files));
    }
    Ok(skills)
}

/// The bytes of the file at `path`, up to one past `most`: enough to tell that it holds more.
fn read_at_most(path: &Path, most: u64) -> std::io::Result<Vec<u8>> {
    let mut read = Vec::new();
    fs::File::open(path)?
        .take(most.saturating_add(1))
        .read_to_end(&mut read)?;
    Ok(read)
}

/// Records every file below `dir` (at `relative` below the skills directory) in `found`.
fn visit(
    dir: &Path,
    relative: &str,
    depth: usize,
    found: &mut BTreeMap<String, Found>,
) -> Result<(), SkillError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| SkillError::Io { path, source }
    };
    if depth > MAX_DEPTH {
        return Err(SkillError::InvalidPath {
            path: dir.display().to_string(),
            reason: "folders nest more than 32 levels deep",
        });
    }
    let mut entries = fs::read_dir(dir)
        .map_err(io(dir))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(io(dir))?;
    entries.sort_by_key(fs::DirEntry::file_name);
    for entry in entries {
        let path = entry.path();
        let Ok(name) = entry.file_name().into_string() else {
            return Err(SkillError::InvalidPath {
                path: path.display().to_string(),
                reason: "a file name must be UTF-8",
            });
        };
        if name.starts_with('.') {
            continue;
        }
        let below = if relative.is_empty() {
            name
        } else {
            format!("{relative}/{name}")
        };
        let kind = fs::symlink_metadata(&path).map_err(io(&path))?;
        if kind.is_dir() {
            visit(&path, &below, depth + 1, found)?;
        } else if kind.is_symlink() {
            // judged later, and only if a skill holds it
            let link = match fs::canonicalize(&path) {
                Ok(target) if target.is_file() => Link::To(target),
                _ => Link::Unusable,
            };
            found.insert(below, Found { path, link });
        } else if kind.is_file() {
            let link = Link::None;
            found.insert(below, Found { path, link });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn a_file_is_read_no_further_than_one_byte_past_the_limit() {
        let path = std::env::temp_dir().join(format!("presa-read-at-most-{}", std::process::id()));
        fs::write(&path, b"0123456789").unwrap();
        assert_eq!(read_at_most(&path, 3).unwrap(), b"0123");
        assert_eq!(read_at_most(&path, 10).unwrap(), b"0123456789");
        assert_eq!(read_at_most(&path, u64::MAX).unwrap(), b"0123456789");
        fs::remove_file(&path).unwrap();
    }
}
