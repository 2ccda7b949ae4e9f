//! [`FileTokenStore`]: tokens, client registrations and DPoP keys kept in one file of the user's
//! config directory across runs.

use std::collections::BTreeMap;
use std::fmt;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use presa_client::BoxFuture;
use presa_http::TokenError;
use serde::{Deserialize, Serialize};

use crate::storage::{StoredClient, StoredTokens, TokenStore};

/// The file's name in the config directory.
const FILE_NAME: &str = "tokens.json";
/// The version of the file's layout this store reads and writes.
const VERSION: u32 = 1;

/// A [`TokenStore`] in one JSON file, shared by every process of the user: the tokens per MCP
/// server URL (each naming the authorization server that issued it, and the DPoP key it is
/// bound to), and the client registrations per authorization server.
///
/// - The file is written whole to a new file beside it, then renamed over it: a reader never
///   sees half a file, and a crash leaves the old one.
/// - On Unix the file is created with mode `0600` in a folder created with `0700`; a file that
///   others can read is refused, not read (tokens are secrets).
/// - Each change reads the file, edits it and writes it back while holding a lock on a
///   `tokens.json.lock` beside it, so two processes do not lose each other's changes.
///
/// ```no_run
/// use presa_oauth::{FileTokenStore, OAuthOptions};
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let store = FileTokenStore::in_config_dir()?;
/// println!("tokens are kept in {}", store.path().display());
/// let options = OAuthOptions::default().token_store(store);
/// # drop(options);
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct FileTokenStore {
    path: Arc<Path>,
}

impl fmt::Debug for FileTokenStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("FileTokenStore").field(&self.path).finish()
    }
}

/// The file's contents.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Contents {
    version: u32,
    /// Per MCP server URL.
    #[serde(default)]
    tokens: BTreeMap<String, StoredTokens>,
    /// Per authorization server issuer.
    #[serde(default)]
    clients: BTreeMap<String, StoredClient>,
}

impl FileTokenStore {
    /// The store at `tokens.json` in presa's folder of the user's config directory:
    /// `$XDG_CONFIG_HOME/presa` (or `~/.config/presa`) on Linux, `~/Library/Application
    /// Support/dev.presa.presa` on macOS, `%APPDATA%\presa\presa\config` on Windows.
    ///
    /// # Errors
    ///
    /// [`FileStoreError::NoConfigDir`] when the system names no home directory.
    pub fn in_config_dir() -> Result<Self, FileStoreError> {
        let dirs = directories::ProjectDirs::from("dev", "presa", "presa")
            .ok_or(FileStoreError::NoConfigDir)?;
        Ok(Self::at(dirs.config_dir().join(FILE_NAME)))
    }

    /// The store in the file at `path` (created, with its folder, on the first change).
    pub fn at(path: impl Into<PathBuf>) -> Self {
        Self {
            path: path.into().into(),
        }
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Every MCP server URL with tokens kept, and its tokens.
    ///
    /// # Errors
    ///
    /// Why the file could not be read.
    pub async fn all_tokens(&self) -> Result<BTreeMap<String, StoredTokens>, FileStoreError> {
        self.reading(|contents| contents.tokens).await
    }

    /// Every authorization server with a client registration kept, and its registration.
    ///
    /// # Errors
    ///
    /// Why the file could not be read.
    pub async fn all_clients(&self) -> Result<BTreeMap<String, StoredClient>, FileStoreError> {
        self.reading(|contents| contents.clients).await
    }

    /// Runs `read` on the file's contents, off the async runtime's threads.
    async fn reading<T: Send + 'static>(
        &self,
        read: impl FnOnce(Contents) -> T + Send + 'static,
    ) -> Result<T, FileStoreError> {
        let path = Arc::clone(&self.path);
        blocking(move || load(&path).map(read)).await
    }

    /// Edits the file's contents with `edit` under the lock, off the async runtime's threads.
    async fn editing(
        &self,
        edit: impl FnOnce(&mut Contents) + Send + 'static,
    ) -> Result<(), FileStoreError> {
        let path = Arc::clone(&self.path);
        blocking(move || {
            let _lock = lock(&path)?;
            let mut contents = load(&path)?;
            edit(&mut contents);
            save(&path, &contents)
        })
        .await
    }
}

/// Runs `work` where it may block.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, FileStoreError> + Send + 'static,
) -> Result<T, FileStoreError> {
    tokio::task::spawn_blocking(work)
        .await
        .unwrap_or_else(|_| Err(FileStoreError::Interrupted))
}

/// The contents of the file at `path`; empty when there is none.
fn load(path: &Path) -> Result<Contents, FileStoreError> {
    let io = |source| FileStoreError::Io {
        path: path.to_owned(),
        source,
    };
    let file = match File::open(path) {
        Ok(file) => file,
        Err(error) if error.kind() == io::ErrorKind::NotFound => {
            return Ok(Contents {
                version: VERSION,
                ..Contents::default()
            });
        }
        Err(error) => return Err(io(error)),
    };
    refuse_exposed(path, &file)?;
    let contents: Contents =
        serde_json::from_reader(io::BufReader::new(file)).map_err(|source| {
            FileStoreError::Unreadable {
                path: path.to_owned(),
                source,
            }
        })?;
    if contents.version != VERSION {
        return Err(FileStoreError::UnknownVersion {
            path: path.to_owned(),
            version: contents.version,
        });
    }
    Ok(contents)
}

/// Refuses a file that others than its owner can read or write.
#[cfg(unix)]
fn refuse_exposed(path: &Path, file: &File) -> Result<(), FileStoreError> {
    use std::os::unix::fs::PermissionsExt as _;
    let mode = file
        .metadata()
        .map_err(|source| FileStoreError::Io {
            path: path.to_owned(),
            source,
        })?
        .permissions()
        .mode();
    if mode & 0o077 != 0 {
        return Err(FileStoreError::Exposed {
            path: path.to_owned(),
            mode: mode & 0o777,
        });
    }
    Ok(())
}

#[cfg(not(unix))]
fn refuse_exposed(_: &Path, _: &File) -> Result<(), FileStoreError> {
    // the user's profile folder is private by default
    Ok(())
}

/// Writes `contents` to a new file beside `path`, then renames it over `path`.
fn save(path: &Path, contents: &Contents) -> Result<(), FileStoreError> {
    let io = |source| FileStoreError::Io {
        path: path.to_owned(),
        source,
    };
    let json = serde_json::to_vec_pretty(contents).map_err(|e| io(io::Error::other(e)))?;
    let fresh = sibling(path, "new");
    // a file left by a writer that died: never read, replaced
    let _ = fs::remove_file(&fresh);
    let mut file = private_file(&fresh).map_err(io)?;
    file.write_all(&json)
        .and_then(|()| file.sync_all())
        .map_err(io)?;
    drop(file);
    fs::rename(&fresh, path).map_err(io)
}

/// Takes the lock beside `path` (creating it, and the folder), held until dropped.
fn lock(path: &Path) -> Result<File, FileStoreError> {
    let io = |source| FileStoreError::Io {
        path: path.to_owned(),
        source,
    };
    if let Some(folder) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        private_folder(folder).map_err(io)?;
    }
    let lock = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(sibling(path, "lock"))
        .map_err(io)?;
    lock.lock().map_err(io)?;
    Ok(lock)
}

/// `path` with `.suffix` added to its name.
fn sibling(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".");
    name.push(suffix);
    PathBuf::from(name)
}

#[cfg(unix)]
fn private_folder(folder: &Path) -> io::Result<()> {
    use std::os::unix::fs::DirBuilderExt as _;
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(folder)
}

#[cfg(not(unix))]
fn private_folder(folder: &Path) -> io::Result<()> {
    fs::create_dir_all(folder)
}

#[cfg(unix)]
fn private_file(path: &Path) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt as _;
    OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
}

#[cfg(not(unix))]
fn private_file(path: &Path) -> io::Result<File> {
    OpenOptions::new().write(true).create_new(true).open(path)
}

impl TokenStore for FileTokenStore {
    fn load_tokens<'a>(
        &'a self,
        resource: &'a str,
    ) -> BoxFuture<'a, Result<Option<StoredTokens>, TokenError>> {
        let resource = resource.to_owned();
        Box::pin(async move {
            Ok(self
                .reading(move |mut contents| contents.tokens.remove(&resource))
                .await?)
        })
    }

    fn save_tokens<'a>(
        &'a self,
        resource: &'a str,
        tokens: Option<StoredTokens>,
    ) -> BoxFuture<'a, Result<(), TokenError>> {
        let resource = resource.to_owned();
        Box::pin(async move {
            Ok(self
                .editing(move |contents| match tokens {
                    Some(tokens) => {
                        contents.tokens.insert(resource, tokens);
                    }
                    None => {
                        contents.tokens.remove(&resource);
                    }
                })
                .await?)
        })
    }

    fn load_client<'a>(
        &'a self,
        issuer: &'a str,
    ) -> BoxFuture<'a, Result<Option<StoredClient>, TokenError>> {
        let issuer = issuer.to_owned();
        Box::pin(async move {
            Ok(self
                .reading(move |mut contents| contents.clients.remove(&issuer))
                .await?)
        })
    }

    fn save_client<'a>(
        &'a self,
        issuer: &'a str,
        client: Option<StoredClient>,
    ) -> BoxFuture<'a, Result<(), TokenError>> {
        let issuer = issuer.to_owned();
        Box::pin(async move {
            Ok(self
                .editing(move |contents| match client {
                    Some(client) => {
                        contents.clients.insert(issuer, client);
                    }
                    None => {
                        contents.clients.remove(&issuer);
                    }
                })
                .await?)
        })
    }
}

/// Why a [`FileTokenStore`] could not read or write its file.
#[derive(Debug)]
#[non_exhaustive]
pub enum FileStoreError {
    /// The system names no home directory, so there is no config directory.
    NoConfigDir,
    /// The file (or its folder, or its lock) could not be read or written.
    Io {
        /// The store's file.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// Others than its owner can read or write the file: it is not read.
    Exposed {
        /// The file.
        path: PathBuf,
        /// Its permission bits.
        mode: u32,
    },
    /// The file is not a token store's JSON.
    Unreadable {
        /// The file.
        path: PathBuf,
        /// Why.
        source: serde_json::Error,
    },
    /// The file was written by a version of presa with another layout.
    UnknownVersion {
        /// The file.
        path: PathBuf,
        /// The layout version it says.
        version: u32,
    },
    /// The blocking task reading or writing the file ended before it finished (the runtime
    /// is shutting down).
    Interrupted,
}

impl fmt::Display for FileStoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NoConfigDir => f.write_str("no home directory, so no config directory"),
            Self::Io { path, .. } => write!(f, "{}: could not be read or written", path.display()),
            Self::Exposed { path, mode } => write!(
                f,
                "{}: others can read it (mode {mode:o}); not read: make it private with \
                 `chmod 600` if it is yours",
                path.display()
            ),
            Self::Unreadable { path, .. } => {
                write!(f, "{}: not a presa token store", path.display())
            }
            Self::UnknownVersion { path, version } => write!(
                f,
                "{}: layout version {version}, this presa reads version {VERSION}",
                path.display()
            ),
            Self::Interrupted => f.write_str("the token store's file work was interrupted"),
        }
    }
}

impl std::error::Error for FileStoreError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Io { source, .. } => Some(source),
            Self::Unreadable { source, .. } => Some(source),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    /// A fresh folder under the system's temporary folder, removed when dropped.
    struct Scratch(PathBuf);

    impl Scratch {
        fn new(name: &str) -> Self {
            let path = std::env::temp_dir()
                .join(format!("presa-file-store-{name}-{}", std::process::id()));
            let _ = fs::remove_dir_all(&path);
            Self(path)
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    #[tokio::test]
    async fn what_one_store_saves_another_reads_and_the_file_is_private() {
        let scratch = Scratch::new("roundtrip");
        let path = scratch.0.join("nested/tokens.json");
        let first = FileTokenStore::at(&path);
        assert_eq!(first.load_tokens("https://rs/mcp").await.unwrap(), None);
        let tokens = StoredTokens::new("https://as", "t1")
            .with_token_type("DPoP")
            .with_refresh_token(Some("r1".into()))
            .with_dpop_key(Some("c2VjcmV0".into()));
        first
            .save_tokens("https://rs/mcp", Some(tokens.clone()))
            .await
            .unwrap();
        let client = StoredClient::new("https://as", "id1").with_client_secret(Some("s".into()));
        first
            .save_client("https://as", Some(client.clone()))
            .await
            .unwrap();

        let second = FileTokenStore::at(&path);
        assert_eq!(
            second.load_tokens("https://rs/mcp").await.unwrap(),
            Some(tokens)
        );
        assert_eq!(
            second.load_client("https://as").await.unwrap(),
            Some(client)
        );
        assert_eq!(second.all_tokens().await.unwrap().len(), 1);
        second.save_tokens("https://rs/mcp", None).await.unwrap();
        assert_eq!(first.load_tokens("https://rs/mcp").await.unwrap(), None);
        assert_eq!(first.all_clients().await.unwrap().len(), 1);

        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode(&path), 0o600);
            assert_eq!(mode(path.parent().unwrap()), 0o700);
        }
    }

    #[cfg(unix)]
    #[tokio::test]
    async fn a_file_others_can_read_is_refused_and_left_as_it_is() {
        use std::os::unix::fs::PermissionsExt as _;
        let scratch = Scratch::new("exposed");
        let path = scratch.0.join("tokens.json");
        let store = FileTokenStore::at(&path);
        store
            .save_client("https://as", Some(StoredClient::new("https://as", "id")))
            .await
            .unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o644)).unwrap();
        let before = fs::read(&path).unwrap();
        let refused = store.all_clients().await.unwrap_err();
        assert!(
            matches!(refused, FileStoreError::Exposed { mode: 0o644, .. }),
            "{refused}"
        );
        // a change is refused too, and the file is not rewritten
        assert!(store.save_client("https://as", None).await.is_err());
        assert_eq!(fs::read(&path).unwrap(), before);
    }

    #[tokio::test]
    async fn a_file_that_is_not_a_store_is_refused_with_the_reason() {
        let scratch = Scratch::new("corrupt");
        fs::create_dir_all(&scratch.0).unwrap();
        let path = scratch.0.join("tokens.json");
        let store = FileTokenStore::at(&path);
        for (text, expected) in [
            ("{\"version\": 2}", "layout version 2"),
            ("not json", "not a presa token store"),
        ] {
            private_file(&path)
                .and_then(|mut f| f.write_all(text.as_bytes()))
                .unwrap();
            let refused = store.load_tokens("https://rs").await.unwrap_err();
            assert!(refused.to_string().contains(expected), "{refused}");
            fs::remove_file(&path).unwrap();
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn changes_from_many_writers_at_once_are_all_kept() {
        let scratch = Scratch::new("writers");
        let path = scratch.0.join("tokens.json");
        let writers: Vec<_> = (0..16)
            .map(|i| {
                // a store each, as separate processes have
                let store = FileTokenStore::at(&path);
                tokio::spawn(async move {
                    let resource = format!("https://rs/{i}");
                    let tokens = StoredTokens::new("https://as", format!("t{i}"));
                    store.save_tokens(&resource, Some(tokens)).await.unwrap();
                })
            })
            .collect();
        for writer in writers {
            writer.await.unwrap();
        }
        let kept = FileTokenStore::at(&path).all_tokens().await.unwrap();
        assert_eq!(kept.len(), 16);
    }
}
