//! The Skills extension (SEP-2640), served: Agent Skills from a directory of skill folders or
//! from memory, each file a `skill://` resource, listed with `skills/list`, described with
//! `skills/get`, and browsed with `resources/directory/read`.
//!
//! Built on the public extension API alone ([`ServerBuilder::extension`],
//! [`ServerBuilder::method`], [`ServerBuilder::resource`], [`Server::add_resource`]).

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use arc_swap::ArcSwap;
use presa_core::skills::{FrontmatterError, SKILLS_EXTENSION, Skill};
use serde_json::json;

use crate::builder::ServerBuilder;
use crate::extend::Extension;
use crate::server::Server;

mod catalog;
mod load;
mod methods;

use catalog::Catalog;
use load::SkillFile;

/// Agent Skills to serve: the Skills extension (SEP-2640).
///
/// Each skill is a folder with a `SKILL.md` at its root that opens with YAML frontmatter (at
/// least `name` and `description`; the name is the folder's name). Its path below the skills
/// directory is its *skill path*: `pdf-processing`, or `acme/billing/refunds` with an
/// organizing prefix. Every file becomes a resource `skill://<skill-path>/<file-path>`; the
/// listing gives each skill's frontmatter as written and every file with its SHA-256 digest
/// and size, so that a client can verify what it reads.
///
/// Everything is checked when the skills are loaded, and refused with the reason: a missing or
/// unreadable frontmatter, a name that breaks the naming rules or differs from its folder's, a
/// skill past 512 files or 16 MiB, a symbolic link that leaves its skill's folder. Files are
/// read once, at load: what is listed is what is served.
///
/// ```
/// use presa_server::{Server, Skills};
///
/// let skills = Skills::new()
///     .skill("git-workflow", [
///         ("SKILL.md", "---\nname: git-workflow\ndescription: Team Git conventions\n---\n\nRebase, then merge.\n"),
///         ("references/BRANCHES.md", "main, release/*, feature/*\n"),
///     ])
///     .unwrap();
/// let server = Server::builder("skills", "1.0.0").with(skills).build().unwrap();
/// assert!(server.capabilities().has_extension(presa_core::skills::SKILLS_EXTENSION));
/// ```
#[derive(Clone, Debug)]
pub struct Skills {
    catalog: Catalog,
    directory_read: bool,
    page_size: usize,
    handle: SkillsHandle,
}

impl Default for Skills {
    fn default() -> Self {
        Self::new()
    }
}

impl Skills {
    /// No skills yet; `resources/directory/read` served, 50 entries a page.
    pub fn new() -> Self {
        Self {
            catalog: Catalog::default(),
            directory_read: true,
            page_size: 50,
            handle: SkillsHandle::default(),
        }
    }

    /// The skills under `root`: every folder below it with a `SKILL.md` is a skill, its path
    /// relative to `root` its skill path (a skill may hold others; their files are its files
    /// too). Names that start with a dot are skipped, and so are files outside every skill.
    pub fn from_dir(root: impl Into<PathBuf>) -> Result<Self, SkillError> {
        let mut skills = Self::new();
        for (path, files) in load::walk(&root.into())? {
            skills.catalog.add(&path, files)?;
        }
        Ok(skills)
    }

    /// This set with one more skill, at skill path `path`, made of `files`: each a path within
    /// the skill (`SKILL.md`, `references/FORMS.md`) and its bytes.
    pub fn skill<P, B>(
        mut self,
        path: &str,
        files: impl IntoIterator<Item = (P, B)>,
    ) -> Result<Self, SkillError>
    where
        P: Into<String>,
        B: Into<Vec<u8>>,
    {
        let files = files
            .into_iter()
            .map(|(path, bytes)| SkillFile::new(path, bytes))
            .collect();
        self.catalog.add(path, files)?;
        Ok(self)
    }

    /// Whether `resources/directory/read` is served (and `directoryRead` declared): on by
    /// default.
    pub fn directory_read(mut self, serve: bool) -> Self {
        self.directory_read = serve;
        self
    }

    /// How many entries a page holds (at least 1): skills in a `skills/list` page, children in a
    /// `resources/directory/read` page.
    pub fn page_size(mut self, page_size: usize) -> Self {
        self.page_size = page_size.max(1);
        self
    }

    /// The skills, in listing order, as `skills/list` describes them.
    pub fn entries(&self) -> impl Iterator<Item = &Skill> {
        self.catalog.entries()
    }

    /// A handle to change the served skills later ([`SkillsHandle::replace`]); take it before
    /// handing the skills to the builder.
    pub fn handle(&self) -> SkillsHandle {
        self.handle.clone()
    }
}

impl Extension for Skills {
    fn register(self, builder: ServerBuilder) -> ServerBuilder {
        let settings = if self.directory_read {
            json!({"directoryRead": true})
        } else {
            json!({})
        };
        let mut builder = builder.extension(SKILLS_EXTENSION, settings);
        for (resource, contents) in self.catalog.resources() {
            builder = builder.resource(resource, serve(contents));
        }
        self.handle.current.store(Arc::new(self.catalog));
        methods::register(builder, &self.handle, self.page_size, self.directory_read)
    }
}

/// Changes the skills a server serves: the resources of new skills are added and changed files
/// served anew before the listing names them, and those of skills that went away are removed
/// after; clients are told that the resource list changed (once for what was added or changed,
/// once for what was removed). The new set's page size and `directory_read` are those of the
/// set first served.
#[derive(Clone, Debug, Default)]
pub struct SkillsHandle {
    current: Arc<ArcSwap<Catalog>>,
    /// Held by a replacement, so that two never interleave.
    replacing: Arc<Mutex<()>>,
}

impl SkillsHandle {
    /// Serves `skills` on `server` from now on, in place of what it served. On an error (a
    /// file URI the server already serves otherwise) nothing changes.
    ///
    /// The listing never names a file that cannot be read. A file whose bytes changed is
    /// served anew a moment before the listing carries its new digest: a client that read it
    /// against the old listing in that moment sees a digest mismatch, and lists again.
    pub fn replace(&self, server: &Server, skills: Skills) -> Result<(), crate::BuildError> {
        let _replacing = self
            .replacing
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let previous = self.current.load_full();
        let mut next = skills.catalog;
        // a cursor of an earlier listing is refused, not read against this one
        next.generation += previous.generation + 1;
        let kept = next.unchanged_since(&previous);
        let served_before: HashSet<&str> = previous.file_uris().map(String::as_str).collect();
        let fresh: Vec<_> = next
            .resources()
            .into_iter()
            .filter(|(resource, _)| !kept.contains(&resource.uri))
            .collect();
        // a changed file is one served before: replaced; a new one must not be served yet
        let changed: Vec<&str> = fresh
            .iter()
            .map(|(resource, _)| resource.uri.as_str())
            .filter(|uri| served_before.contains(uri))
            .collect();
        let add = fresh
            .iter()
            .map(|(resource, contents)| (resource.clone(), handler(contents.clone())))
            .collect();
        if !fresh.is_empty() {
            server.edit_resources(&changed, add)?;
        }
        self.current.store(Arc::new(next.clone()));
        let listed: HashSet<&String> = next.file_uris().collect();
        let gone: Vec<&str> = previous
            .file_uris()
            .filter(|uri| !listed.contains(uri))
            .map(String::as_str)
            .collect();
        if !gone.is_empty() {
            server.edit_resources(&gone, Vec::new())?;
        }
        Ok(())
    }

    /// The skills served now.
    pub fn entries(&self) -> Vec<Skill> {
        self.current.load().entries().cloned().collect()
    }

    pub(crate) fn catalog(&self) -> Arc<Catalog> {
        self.current.load_full()
    }
}

/// [`serve`] as an object-safe handler.
fn handler(contents: presa_core::ResourceContents) -> Arc<dyn crate::ResourceHandler> {
    Arc::new(crate::resource::ResourceFn(serve(contents)))
}

/// A resource handler answering `contents`.
fn serve(
    contents: presa_core::ResourceContents,
) -> impl Fn(crate::Context) -> std::future::Ready<presa_core::ResourceContents> + Send + Sync + 'static
{
    move |_cx| std::future::ready(contents.clone())
}

/// Why skills could not be loaded.
#[derive(Debug)]
#[non_exhaustive]
pub enum SkillError {
    /// A file or folder could not be read.
    Io {
        /// Its path.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A path cannot be a skill path or a file path: empty, `.` or `..` segments, not UTF-8.
    InvalidPath {
        /// The path.
        path: String,
        /// Why.
        reason: &'static str,
    },
    /// A skill has no `SKILL.md` at its root.
    NoSkillMd {
        /// The skill path.
        skill: String,
    },
    /// The `SKILL.md` is not text, or its frontmatter cannot be read.
    Frontmatter {
        /// The skill path.
        skill: String,
        /// Why.
        source: FrontmatterError,
    },
    /// The frontmatter breaks a rule of the Agent Skills format.
    InvalidFrontmatter {
        /// The skill path.
        skill: String,
        /// Which rule.
        reason: String,
    },
    /// A skill has more than 512 files.
    TooManyFiles {
        /// The skill path.
        skill: String,
        /// How many it has.
        files: usize,
    },
    /// A skill's files add up to more than 16 MiB.
    TooLarge {
        /// The skill path.
        skill: String,
        /// How many bytes they add up to, at least (the reading stops past the limit).
        bytes: u64,
    },
    /// A symbolic link in a skill leads out of its skill's folder, to a folder, to something
    /// other than a file, or nowhere.
    Escapes {
        /// The link.
        path: PathBuf,
    },
    /// Two skills, or two files of one skill, have the same path.
    Duplicate {
        /// The path.
        path: String,
    },
}

impl std::fmt::Display for SkillError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Io { path, .. } => write!(f, "{} cannot be read", path.display()),
            Self::InvalidPath { path, reason } => write!(f, "path {path:?}: {reason}"),
            Self::NoSkillMd { skill } => write!(f, "skill {skill:?} has no SKILL.md at its root"),
            Self::Frontmatter { skill, .. } => {
                write!(
                    f,
                    "skill {skill:?}: its SKILL.md has no frontmatter that can be read"
                )
            }
            Self::InvalidFrontmatter { skill, reason } => write!(f, "skill {skill:?}: {reason}"),
            Self::TooManyFiles { skill, files } => write!(
                f,
                "skill {skill:?} has {files} files, more than the {} a host must take",
                presa_core::skills::MAX_SKILL_FILES
            ),
            Self::TooLarge { skill, bytes } => write!(
                f,
                "skill {skill:?} holds {bytes} bytes, more than the {} a host must take",
                presa_core::skills::MAX_SKILL_BYTES
            ),
            Self::Escapes { path } => write!(
                f,
                "{} is a symbolic link out of its skill's folder, to a folder, or to no file: \
                 not served",
                path.display()
            ),
            Self::Duplicate { path } => write!(f, "{path:?} is given twice"),
        }
    }
}

impl std::error::Error for SkillError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Io { source, .. } => Some(source),
            Self::Frontmatter { source, .. } => Some(source),
            _ => None,
        }
    }
}
