//! Roots (`roots/list`): the filesystem roots a client exposes. A server→client request in the
//! initialize era; an embedded input request (MRTR) in 2026-07-28, where the feature is
//! deprecated.

use serde::{Deserialize, Serialize};

use crate::Meta;

/// A root: a `file://` URI the server may work under.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Root {
    /// The root URI (`file://`).
    pub uri: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Metadata. Since 2025-06-18.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl Root {
    /// A root with a URI and a name.
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> Self {
        Self {
            uri: uri.into(),
            name: Some(name.into()),
            meta: None,
        }
    }
}

/// Result of `roots/list` (in 2026-07-28: an input response).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ListRootsResult {
    /// The roots.
    pub roots: Vec<Root>,
    /// Result metadata (initialize era).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl ListRootsResult {
    /// A result with these roots.
    pub fn new(roots: Vec<Root>) -> Self {
        Self { roots, meta: None }
    }
}

impl_has_meta!(Root, ListRootsResult);
