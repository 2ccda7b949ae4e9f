//! What can go wrong on stdio.

use std::{fmt, io};

/// Why serving on stdio, or starting a server process, failed.
///
/// What the peer sends never shows up here: bad lines are answered (server) or skipped
/// (client) and the session goes on. These are failures of the pipes and the process.
///
/// ```
/// let error = presa_stdio::StdioError::EmptyCommand;
/// assert_eq!(error.to_string(), "no program to run: the command is empty");
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub enum StdioError {
    /// [`command`](crate::command) was given an empty argv.
    EmptyCommand,
    /// [`command`](crate::command) was called outside a tokio runtime.
    NoRuntime,
    /// The server process could not be started.
    Spawn {
        /// The program, as given.
        program: String,
        /// Why it could not be started.
        source: io::Error,
    },
    /// Reading the input failed; the requests in flight were still answered.
    Read(io::Error),
    /// Writing the output failed ([`io::ErrorKind::BrokenPipe`]: the peer closed it); the
    /// requests in flight were abandoned.
    Write(io::Error),
}

impl fmt::Display for StdioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::EmptyCommand => f.write_str("no program to run: the command is empty"),
            Self::NoRuntime => {
                f.write_str("no tokio runtime: start the server process from within one")
            }
            Self::Spawn { program, .. } => write!(f, "failed to start `{program}`"),
            Self::Read(_) => f.write_str("reading input failed"),
            Self::Write(_) => f.write_str("writing output failed"),
        }
    }
}

impl std::error::Error for StdioError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Spawn { source, .. } | Self::Read(source) | Self::Write(source) => Some(source),
            Self::EmptyCommand | Self::NoRuntime => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_are_send_sync_and_lowercase() {
        fn assert_error<E: std::error::Error + Send + Sync + 'static>() {}
        assert_error::<StdioError>();
        let spawn = StdioError::Spawn {
            program: "nope".into(),
            source: io::Error::from(io::ErrorKind::NotFound),
        };
        assert_eq!(spawn.to_string(), "failed to start `nope`");
        assert!(std::error::Error::source(&spawn).is_some());
        for error in [
            StdioError::EmptyCommand,
            StdioError::NoRuntime,
            StdioError::Read(io::Error::other("x")),
            spawn,
        ] {
            let text = error.to_string();
            assert!(text.starts_with(|c: char| c.is_lowercase()), "{text}");
            assert!(!text.ends_with('.'), "{text}");
        }
    }
}
