//! What can go wrong before presa's Redis is in use.

use std::error::Error;
use std::fmt;

/// Why a [`Redis`](crate::Redis) could not be set up.
#[derive(Debug)]
#[non_exhaustive]
pub enum RedisError {
    /// The options cannot be used (no URL, a key prefix with a hash tag).
    InvalidOptions(String),
    /// A URL the Redis client cannot use (shown without its password).
    InvalidUrl {
        /// The URL.
        url: String,
        /// What the Redis client reported.
        source: Box<dyn Error + Send + Sync>,
    },
    /// Redis did not answer at `url` (shown without its password).
    Unreachable {
        /// Where Redis was looked for.
        url: String,
        /// What the Redis client reported.
        source: Box<dyn Error + Send + Sync>,
    },
}

impl fmt::Display for RedisError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::InvalidOptions(why) => write!(f, "invalid Redis options: {why}"),
            Self::InvalidUrl { url, .. } => write!(f, "invalid Redis URL {url}"),
            Self::Unreachable { url, .. } => write!(f, "could not connect to Redis at {url}"),
        }
    }
}

impl Error for RedisError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        match self {
            Self::InvalidOptions(_) => None,
            Self::InvalidUrl { source, .. } | Self::Unreachable { source, .. } => Some(&**source),
        }
    }
}
