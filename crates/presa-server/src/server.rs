//! The server: its definitions, its options and what it says of itself. It is built in
//! builder.rs and changed while serving in changing.rs.

use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use arc_swap::ArcSwap;
use presa_core::{
    CacheScope, DiscoverResult, Implementation, RequestStateCodec, ServerCapabilities,
    ServerSessionConfig, SupportedVersions,
};

use crate::definitions::{Definitions, SchemaCompiler};
use crate::events::{Change, EventBus};
use crate::middleware::{CallerKeyFn, Middleware, Stack};
use crate::state::StateMap;

/// The server's tunables, with the defaults of the original design.
/// How long a sealed `requestState` opens, unless the builder says otherwise.
pub(crate) const DEFAULT_REQUEST_STATE_TTL: Duration = Duration::from_secs(600);

#[derive(Clone)]
pub(crate) struct Options {
    pub(crate) versions: SupportedVersions,
    pub(crate) page_size: usize,
    pub(crate) compiler: Option<SchemaCompiler>,
    pub(crate) cache_ttl_ms: u64,
    pub(crate) cache_scope: CacheScope,
    pub(crate) list_changed: bool,
    pub(crate) subscribe: bool,
    pub(crate) logging: bool,
    pub(crate) server_info_in_meta: bool,
    /// Seals the `requestState` of 2026-07-28 input rounds.
    pub(crate) request_state: Option<Arc<RequestStateCodec>>,
    pub(crate) request_state_ttl: Duration,
    /// The middleware stack, outermost first.
    pub(crate) middleware: Vec<Arc<dyn Middleware>>,
    /// Who a request's caller is, for the middleware (else the verified identity).
    pub(crate) caller_key: Option<CallerKeyFn>,
    /// Where tasks are kept and how.
    pub(crate) tasks: crate::tasks::TaskOptions,
    /// What a client may make a session hold.
    pub(crate) limits: presa_core::SessionLimits,
    /// The extensions declared, and the methods served for them.
    pub(crate) extensions: crate::extension::Extensions,
}

impl Default for Options {
    fn default() -> Self {
        let compile: SchemaCompiler = Arc::new(presa_schema::compile);
        Self {
            versions: SupportedVersions::all(),
            page_size: presa_core::DEFAULT_PAGE_SIZE,
            compiler: Some(compile),
            cache_ttl_ms: 0,
            cache_scope: CacheScope::Private,
            list_changed: false,
            subscribe: false,
            logging: false,
            server_info_in_meta: true,
            request_state: None,
            request_state_ttl: DEFAULT_REQUEST_STATE_TTL,
            middleware: Vec::new(),
            caller_key: None,
            tasks: crate::tasks::TaskOptions::default(),
            limits: presa_core::SessionLimits::default(),
            extensions: crate::extension::Extensions::default(),
        }
    }
}

pub(crate) struct Inner {
    pub(crate) info: Implementation,
    /// `info` as JSON, made once: every 2026-07-28 result carries it in `_meta`.
    pub(crate) info_value: serde_json::Value,
    /// `{"io.modelcontextprotocol/serverInfo":<info>}`, the `_meta` a 2026-07-28 result without
    /// one of its own gets, made once.
    pub(crate) info_meta: Box<serde_json::value::RawValue>,
    pub(crate) instructions: Option<String>,
    pub(crate) options: Options,
    /// The current snapshot, read without a lock by every request.
    pub(crate) definitions: ArcSwap<Definitions>,
    /// Held while a change builds the next snapshot, so that two changes never race.
    pub(crate) changing: Mutex<()>,
    pub(crate) bus: Arc<dyn EventBus>,
    /// [`Options::middleware`], shared by every request; empty when there is none.
    pub(crate) stack: Stack,
    /// What [`ServerBuilder::state`] was given.
    pub(crate) state: StateMap,
    /// One per handler of a notification posted on its own (no session) running past its first
    /// poll, across the server: as many as the session limits let requests be in flight.
    pub(crate) notification_permits: Arc<tokio::sync::Semaphore>,
    /// The descriptions of the clients of this server's initialize-era sessions, each kept
    /// once, across every version of its definitions.
    pub(crate) client_descriptions: presa_core::ClientDescriptions,
    /// The tasks, and those running here.
    pub(crate) tasks: Arc<crate::tasks::Tasks>,
    /// What [`ServerBuilder::elicitation_form`] was given.
    #[cfg(feature = "schemars")]
    pub(crate) forms: crate::form::Forms,
    /// The instruments the server's metrics are recorded with.
    #[cfg(feature = "otel")]
    pub(crate) metrics: Arc<crate::metrics::ServerMetrics>,
}

/// How long a result may be reused, and by whom: `ttlMs` and `cacheScope` of a 2026-07-28
/// result. The default, 0 and private, asks clients not to reuse it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheHints {
    /// Freshness in milliseconds.
    pub ttl_ms: u64,
    /// Who may reuse it.
    pub scope: CacheScope,
}

impl CacheHints {
    /// These hints where a result answering a request of `era` carries them: on 2026-07-28;
    /// the initialize era's results have no such members.
    pub fn for_era(self, era: presa_core::Era) -> Option<Self> {
        (era == presa_core::Era::Stateless).then_some(self)
    }
}

/// An MCP server: definitions (tools, resources, resource templates, prompts) as plain data plus
/// handlers, served the same way under every protocol revision.
///
/// A `Server` is a cheap handle (clone it freely). Definitions can be added and removed while it
/// serves; each request reads one immutable snapshot of them.
///
/// ```
/// use presa_core::{Tool, Resource, Prompt};
/// use presa_server::{Context, Server};
/// use serde_json::{json, Value};
///
/// let schema = json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]});
/// let server = Server::builder("hello", "1.0.0")
///     .tool(
///         Tool::new("greet", schema.as_object().unwrap().clone()).description("Greets someone."),
///         |args: Value, _cx: Context| async move { format!("Hello, {}!", args["name"].as_str().unwrap_or("you")) },
///     )
///     .resource(Resource::new("file:///motd", "motd").mime_type("text/plain"), |_cx| async { "Be kind." })
///     .prompt(Prompt::new("haiku").arg("topic", true), |args, _cx| async move {
///         format!("Write a haiku about {}.", args["topic"])
///     })
///     .build()
///     .unwrap();
/// assert_eq!(server.tool_names(), ["greet"]);
/// ```
#[derive(Clone)]
pub struct Server {
    pub(crate) inner: Arc<Inner>,
}

impl fmt::Debug for Server {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Server")
            .field("info", &self.inner.info)
            .field("definitions", &self.snapshot())
            .finish_non_exhaustive()
    }
}

impl Server {
    /// The server's identity.
    pub fn info(&self) -> &Implementation {
        &self.inner.info
    }

    /// How long a sealed `requestState` stays valid.
    pub(crate) fn request_state_ttl(&self) -> Duration {
        self.inner.options.request_state_ttl
    }

    /// The revisions the server speaks.
    pub fn supported_versions(&self) -> &SupportedVersions {
        &self.inner.options.versions
    }

    pub(crate) fn snapshot(&self) -> Arc<Definitions> {
        self.inner.definitions.load_full()
    }

    /// The capabilities the current definitions call for.
    pub fn capabilities(&self) -> ServerCapabilities {
        self.capabilities_of(&self.snapshot())
    }

    /// What `definitions` declare and serve under this server's options.
    pub(crate) fn declared(&self, definitions: &Definitions) -> crate::definitions::Declared {
        definitions.declared(self.inner.options.list_changed)
    }

    fn capabilities_of(&self, definitions: &Definitions) -> ServerCapabilities {
        let o = &self.inner.options;
        let mut capabilities = definitions.capabilities(o.list_changed, o.subscribe, o.logging);
        if !o.extensions.declared.is_empty() {
            capabilities
                .extensions
                .get_or_insert_with(Default::default)
                .extend(o.extensions.declared.clone());
        }
        capabilities
    }

    /// The names of the current tools, in listing order.
    pub fn tool_names(&self) -> Vec<String> {
        self.snapshot()
            .tools
            .iter()
            .map(|t| t.tool.name.clone())
            .collect()
    }

    /// The names of the current prompts, in listing order.
    pub fn prompt_names(&self) -> Vec<String> {
        self.snapshot()
            .prompts
            .iter()
            .map(|p| p.prompt.name.clone())
            .collect()
    }

    /// The URIs of the current resources, in listing order.
    pub fn resource_uris(&self) -> Vec<String> {
        self.snapshot()
            .resources
            .iter()
            .map(|r| r.resource.uri.clone())
            .collect()
    }

    /// The URI templates of the current resource templates, in listing order.
    pub fn resource_template_uris(&self) -> Vec<String> {
        self.snapshot()
            .templates
            .iter()
            .map(|t| t.template.uri_template.clone())
            .collect()
    }

    /// The `Mcp-Param-*` headers a tool's arguments are mirrored into on Streamable HTTP
    /// (from `x-mcp-header` annotations), or `None` for an unknown tool.
    pub fn tool_param_headers(&self, name: &str) -> Option<presa_core::ParamHeaders> {
        self.snapshot().tool(name).map(|t| t.headers.clone())
    }

    /// The `server/discover` result for the current definitions.
    pub fn discover_result(&self) -> DiscoverResult {
        self.session_config().discover_result()
    }

    /// The configuration of a session (stdio, in-process, an initialize-era HTTP session) that
    /// serves this server.
    pub fn session_config(&self) -> ServerSessionConfig {
        self.session_config_of(&self.snapshot())
    }

    fn session_config_of(&self, definitions: &Definitions) -> ServerSessionConfig {
        let o = &self.inner.options;
        ServerSessionConfig::new(self.inner.info.clone())
            .versions(o.versions.clone())
            .capabilities(self.capabilities_of(definitions))
            .instructions(self.inner.instructions.clone())
            .discover_cache(o.cache_ttl_ms, o.cache_scope)
            .limits(o.limits.clone())
            .keep_subscriptions(o.subscribe)
            .client_descriptions(self.inner.client_descriptions.clone())
    }

    /// [`session_config`](Self::session_config), made once per version of the definitions and
    /// shared: what every session a transport opens starts with.
    pub fn shared_session_config(&self) -> Arc<ServerSessionConfig> {
        let snapshot = self.snapshot();
        let config = snapshot
            .cache
            .session_config
            .get_or_init(|| Arc::new(self.session_config_of(&snapshot)));
        Arc::clone(config)
    }

    /// The caching hints the server's 2026-07-28 lists carry ([`ServerBuilder::cache`]): what an
    /// extension's cacheable results should carry too.
    ///
    /// [`ServerBuilder::cache`]: crate::ServerBuilder::cache
    pub fn cache_hints(&self) -> CacheHints {
        CacheHints {
            ttl_ms: self.inner.options.cache_ttl_ms,
            scope: self.inner.options.cache_scope,
        }
    }

    /// Whether list-changed notifications are sent when definitions change.
    pub fn notifies_list_changes(&self) -> bool {
        self.inner.options.list_changed
    }

    /// Receives every change from now on: lists changing (whether or not the server announces
    /// list changes to clients) and resources updated.
    pub fn changes(&self) -> crate::BusReceiver<Change> {
        self.inner.bus.subscribe()
    }

    /// Tells listening clients that the resource at `uri` changed: 2026-07-28 listen streams
    /// whose filter names it, initialize-era sessions that subscribed to it.
    pub fn resource_updated(&self, uri: impl Into<String>) {
        self.inner.bus.publish(Change::ResourceUpdated(uri.into()));
    }

    /// Whether clients may subscribe to resource updates.
    pub fn supports_subscriptions(&self) -> bool {
        self.inner.options.subscribe
    }
}
