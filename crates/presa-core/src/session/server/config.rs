//! What a server session knows of the server it speaks for.

use std::time::Duration;

use serde_json::Map;

use super::super::limits::SessionLimits;
use super::clients::ClientDescriptions;
use crate::{CacheScope, DiscoverResult, Implementation, ServerCapabilities, SupportedVersions};

/// What a [`ServerSession`](super::ServerSession) needs to know about the server it speaks for.
///
/// ```
/// use presa_core::{Implementation, ServerCapabilities, ServerSessionConfig};
///
/// let config = ServerSessionConfig::new(Implementation::new("weather", "1.0.0"))
///     .capabilities(ServerCapabilities::default())
///     .instructions(Some("Call forecast with a city name.".into()));
/// assert_eq!(config.server_info().name, "weather");
/// ```
#[derive(Clone, Debug)]
pub struct ServerSessionConfig {
    pub(super) versions: SupportedVersions,
    pub(super) server_info: Implementation,
    pub(super) capabilities: ServerCapabilities,
    pub(super) instructions: Option<String>,
    pub(super) request_timeout: Option<Duration>,
    pub(super) discover_ttl_ms: u64,
    pub(super) discover_cache_scope: CacheScope,
    pub(super) limits: SessionLimits,
    pub(super) keeps_subscriptions: bool,
    /// The descriptions of the clients that opened this configuration's initialize-era
    /// sessions, each kept once (clones of the configuration share them).
    pub(super) clients: ClientDescriptions,
}

impl ServerSessionConfig {
    /// A configuration for the server `server_info`, speaking every revision, with no capabilities,
    /// a 60-second timeout on its own requests, and `server/discover` results that are not cached
    /// (`ttlMs: 0`, `cacheScope: "private"`).
    pub fn new(server_info: Implementation) -> Self {
        Self {
            versions: SupportedVersions::all(),
            server_info,
            capabilities: ServerCapabilities::default(),
            instructions: None,
            request_timeout: Some(Duration::from_secs(60)),
            discover_ttl_ms: 0,
            discover_cache_scope: CacheScope::Private,
            limits: SessionLimits::default(),
            keeps_subscriptions: false,
            clients: ClientDescriptions::default(),
        }
    }

    /// The revisions to speak.
    pub fn versions(mut self, versions: SupportedVersions) -> Self {
        self.versions = versions;
        self
    }

    /// The capabilities to announce.
    pub fn capabilities(mut self, capabilities: ServerCapabilities) -> Self {
        self.capabilities = capabilities;
        self
    }

    /// The table of client descriptions the sessions of this configuration share (see
    /// [`ClientDescriptions`]): by default one of its own; a server that rebuilds its
    /// configuration hands every one the same table, so that sessions opened before and after
    /// share too.
    pub fn client_descriptions(mut self, descriptions: ClientDescriptions) -> Self {
        self.clients = descriptions;
        self
    }

    /// Usage hints for the model, sent in `initialize` and `server/discover` results.
    pub fn instructions(mut self, instructions: Option<String>) -> Self {
        self.instructions = instructions;
        self
    }

    /// The default timeout of requests the server sends (initialize era); `None` waits forever.
    pub fn request_timeout(mut self, timeout: Option<Duration>) -> Self {
        self.request_timeout = timeout;
        self
    }

    /// The caching hints on `server/discover` results.
    pub fn discover_cache(mut self, ttl_ms: u64, scope: CacheScope) -> Self {
        self.discover_ttl_ms = ttl_ms;
        self.discover_cache_scope = scope;
        self
    }

    /// What a session lets its client make it hold ([`SessionLimits::default`] unless set).
    pub fn limits(mut self, limits: SessionLimits) -> Self {
        self.limits = limits;
        self
    }

    /// Whether the session answers initialize-era `resources/subscribe` and `unsubscribe`
    /// itself, keeping the URIs as its own state
    /// ([`ServerSession::is_subscribed`](super::ServerSession::is_subscribed)), at most
    /// [`MAX_WATCHED_RESOURCES`](crate::MAX_WATCHED_RESOURCES) of them. Off by default: the
    /// requests then go to the application, like any other.
    pub fn keep_subscriptions(mut self, keep: bool) -> Self {
        self.keeps_subscriptions = keep;
        self
    }

    /// The limits set with [`limits`](Self::limits).
    pub fn get_limits(&self) -> &SessionLimits {
        &self.limits
    }

    /// The server's identity.
    pub fn server_info(&self) -> &Implementation {
        &self.server_info
    }

    /// The revisions spoken.
    pub fn supported_versions(&self) -> &SupportedVersions {
        &self.versions
    }

    /// The `server/discover` result this configuration describes.
    pub fn discover_result(&self) -> DiscoverResult {
        let mut meta = Map::new();
        meta.insert(
            crate::META_SERVER_INFO.into(),
            serde_json::to_value(&self.server_info).unwrap_or_default(),
        );
        DiscoverResult {
            supported_versions: self.versions.to_strings(),
            capabilities: self
                .capabilities
                .for_version(crate::ProtocolVersion::LATEST),
            instructions: self.instructions.clone(),
            ttl_ms: Some(self.discover_ttl_ms),
            cache_scope: Some(self.discover_cache_scope),
            result_type: Some(crate::ResultType::Complete),
            meta: Some(meta),
        }
    }
}
