//! The server: its definitions, its options, and how it is built and changed while serving.

use std::fmt;
use std::future::Future;
use std::sync::{Arc, Mutex};

use arc_swap::ArcSwap;
use std::time::Duration;

use presa_core::RequestStateCodec;
use presa_core::{
    CacheScope, DiscoverResult, Implementation, Prompt, Resource, ResourceTemplate,
    ServerCapabilities, ServerSessionConfig, SupportedVersions, Tool,
};
use tokio::sync::broadcast;

use crate::events::{Change, EventBus, ListKind};
use crate::middleware::{CallerKeyFn, Middleware, Stack};

use crate::builder::ServerBuilder;
use crate::context::Context;
use crate::definitions::{
    Definitions, SchemaCompiler, prompt_entry, resource_entry, template_entry, tool_entry,
};
use crate::error::BuildError;
use crate::prompt::{IntoPromptResult, PromptArgs, PromptFn, PromptHandler};
use crate::resource::{
    IntoResourceContents, ResourceFn, ResourceHandler, ResourceTemplateHandler, TemplateFn,
    Variables,
};
use crate::scopes::Scoped;
use crate::state::StateMap;
use crate::tool::{AsyncTool, FromArguments, IntoToolResult, ToolHandler};

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
    /// The tasks, and those running here.
    pub(crate) tasks: Arc<crate::tasks::Tasks>,
    /// What [`ServerBuilder::elicitation_form`] was given.
    #[cfg(feature = "schemars")]
    pub(crate) forms: crate::typed::Forms,
    /// The instruments the server's metrics are recorded with.
    #[cfg(feature = "otel")]
    pub(crate) metrics: Arc<crate::metrics::ServerMetrics>,
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
    /// Starts building a server with this name and version.
    pub fn builder(name: impl Into<String>, version: impl Into<String>) -> ServerBuilder {
        ServerBuilder::new(Implementation::new(name, version))
    }

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
        definitions.capabilities(o.list_changed, o.subscribe, o.logging)
    }

    /// The names of the current tools, in listing order.
    pub fn tool_names(&self) -> Vec<String> {
        self.snapshot()
            .tools
            .iter()
            .map(|t| t.tool.name.clone())
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

    /// Whether list-changed notifications are sent when definitions change.
    pub fn notifies_list_changes(&self) -> bool {
        self.inner.options.list_changed
    }

    /// Receives every change from now on: lists changing (whether or not the server announces
    /// list changes to clients) and resources updated.
    pub fn changes(&self) -> broadcast::Receiver<Change> {
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

    fn change(
        &self,
        kind: ListKind,
        edit: impl FnOnce(&mut Definitions) -> Result<bool, BuildError>,
    ) -> Result<bool, BuildError> {
        let changed = {
            let _changing = self
                .inner
                .changing
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            let current = self.snapshot();
            let mut next = Definitions::clone(&current);
            let changed = edit(&mut next)?;
            if changed {
                next.generation = current.generation + 1;
                self.inner.definitions.store(Arc::new(next));
            }
            changed
        };
        if changed {
            // nobody listening is fine
            self.inner.bus.publish(Change::ListChanged(kind));
        }
        Ok(changed)
    }

    // ----- changing a running server -----

    /// Adds a tool with an async handler while serving.
    pub fn add_tool<F, A, Fut, R>(
        &self,
        tool: impl Into<Scoped<Tool>>,
        handler: F,
    ) -> Result<(), BuildError>
    where
        F: Fn(A, Context) -> Fut + Send + Sync + 'static,
        A: FromArguments,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoToolResult,
    {
        self.add_tool_handler(tool, Arc::new(AsyncTool::new(handler)))
    }

    /// Adds a tool whose schemas are derived from its handler's types while serving (see
    /// [`ServerBuilder::typed_tool`]).
    #[cfg(feature = "schemars")]
    pub fn add_typed_tool<F, A, Fut, R>(
        &self,
        tool: impl Into<Scoped<Tool>>,
        handler: F,
    ) -> Result<(), BuildError>
    where
        F: Fn(A, Context) -> Fut + Send + Sync + 'static,
        A: crate::ToolInput,
        Fut: Future<Output = R> + Send + 'static,
        R: crate::ToolOutput,
    {
        let (tool, wrapped) = crate::typed::typed_definition::<A, R>(tool.into());
        self.add_tool_handler(tool, crate::typed::typed_handler(handler, wrapped))
    }

    /// [`add_typed_tool`](Self::add_typed_tool) with a plain closure (see
    /// [`ServerBuilder::typed_tool_sync`]).
    #[cfg(feature = "schemars")]
    pub fn add_typed_tool_sync<F, A, R>(
        &self,
        tool: impl Into<Scoped<Tool>>,
        handler: F,
    ) -> Result<(), BuildError>
    where
        F: Fn(A, Context) -> R + Send + Sync + 'static,
        A: crate::ToolInput,
        R: crate::ToolOutput,
    {
        let (tool, wrapped) = crate::typed::typed_definition::<A, R>(tool.into());
        self.add_tool_handler(tool, crate::typed::typed_sync_handler(handler, wrapped))
    }

    /// Adds a prompt whose arguments are the fields of a `T` while serving (see
    /// [`ServerBuilder::typed_prompt`]).
    #[cfg(feature = "schemars")]
    pub fn add_typed_prompt<F, T, Fut, R>(
        &self,
        prompt: impl Into<Scoped<Prompt>>,
        handler: F,
    ) -> Result<(), BuildError>
    where
        F: Fn(crate::Args<T>, Context) -> Fut + Send + Sync + 'static,
        T: serde::de::DeserializeOwned + schemars::JsonSchema + Send + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoPromptResult,
    {
        let compiler = self.inner.options.compiler.as_ref();
        let (prompt, handler) =
            crate::typed::typed_prompt::<T, F>(prompt.into(), handler, compiler)?;
        self.add_prompt_handler(prompt, Arc::new(handler))
    }

    /// Adds a resource template whose variables are read into a `T` while serving (see
    /// [`ServerBuilder::typed_resource_template`]).
    #[cfg(feature = "schemars")]
    pub fn add_typed_resource_template<F, T, Fut, R>(
        &self,
        template: impl Into<Scoped<ResourceTemplate>>,
        handler: F,
    ) -> Result<(), BuildError>
    where
        F: Fn(crate::Args<T>, Context) -> Fut + Send + Sync + 'static,
        T: serde::de::DeserializeOwned + schemars::JsonSchema + Send + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoResourceContents,
    {
        let template = template.into();
        let compiler = self.inner.options.compiler.as_ref();
        let handler = crate::typed::typed_template::<T, F>(&template, handler, compiler)?;
        self.add_resource_template_handler(template, Arc::new(handler))
    }

    /// Adds a tool with an object-safe handler while serving.
    pub fn add_tool_handler(
        &self,
        tool: impl Into<Scoped<Tool>>,
        handler: Arc<dyn ToolHandler>,
    ) -> Result<(), BuildError> {
        let entry = tool_entry(tool.into(), handler, self.inner.options.compiler.as_ref())?;
        self.change(ListKind::Tools, |d| d.add_tool(entry).map(|()| true))
            .map(drop)
    }

    /// Removes a tool; `false` when there was none of that name.
    pub fn remove_tool(&self, name: &str) -> bool {
        self.change(ListKind::Tools, |d| Ok(d.remove_tool(name)))
            .unwrap_or(false)
    }

    /// Adds a resource while serving.
    pub fn add_resource<F, Fut, R>(
        &self,
        resource: impl Into<Scoped<Resource>>,
        handler: F,
    ) -> Result<(), BuildError>
    where
        F: Fn(Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoResourceContents,
    {
        self.add_resource_handler(resource, Arc::new(ResourceFn(handler)))
    }

    /// Adds a resource with an object-safe handler while serving.
    pub fn add_resource_handler(
        &self,
        resource: impl Into<Scoped<Resource>>,
        handler: Arc<dyn ResourceHandler>,
    ) -> Result<(), BuildError> {
        let entry = resource_entry(resource.into(), handler);
        self.change(ListKind::Resources, |d| {
            d.add_resource(entry).map(|()| true)
        })
        .map(drop)
    }

    /// Removes a resource; `false` when there was none with that URI.
    pub fn remove_resource(&self, uri: &str) -> bool {
        self.change(ListKind::Resources, |d| Ok(d.remove_resource(uri)))
            .unwrap_or(false)
    }

    /// Adds a resource template while serving.
    pub fn add_resource_template<F, Fut, R>(
        &self,
        template: impl Into<Scoped<ResourceTemplate>>,
        handler: F,
    ) -> Result<(), BuildError>
    where
        F: Fn(Variables, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoResourceContents,
    {
        self.add_resource_template_handler(template, Arc::new(TemplateFn(handler)))
    }

    /// Adds a resource template with an object-safe handler while serving.
    pub fn add_resource_template_handler(
        &self,
        template: impl Into<Scoped<ResourceTemplate>>,
        handler: Arc<dyn ResourceTemplateHandler>,
    ) -> Result<(), BuildError> {
        let entry = template_entry(template.into(), handler)?;
        self.change(ListKind::Resources, |d| {
            d.add_template(entry).map(|()| true)
        })
        .map(drop)
    }

    /// Removes a resource template (and its completions); `false` when there was none.
    pub fn remove_resource_template(&self, uri_template: &str) -> bool {
        self.change(ListKind::Resources, |d| Ok(d.remove_template(uri_template)))
            .unwrap_or(false)
    }

    /// Adds a prompt while serving.
    pub fn add_prompt<F, Fut, R>(
        &self,
        prompt: impl Into<Scoped<Prompt>>,
        handler: F,
    ) -> Result<(), BuildError>
    where
        F: Fn(PromptArgs, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoPromptResult,
    {
        self.add_prompt_handler(prompt, Arc::new(PromptFn(handler)))
    }

    /// Adds a prompt with an object-safe handler while serving.
    pub fn add_prompt_handler(
        &self,
        prompt: impl Into<Scoped<Prompt>>,
        handler: Arc<dyn PromptHandler>,
    ) -> Result<(), BuildError> {
        let entry = prompt_entry(prompt.into(), handler);
        self.change(ListKind::Prompts, |d| d.add_prompt(entry).map(|()| true))
            .map(drop)
    }

    /// Removes a prompt (and its completions); `false` when there was none of that name.
    pub fn remove_prompt(&self, name: &str) -> bool {
        self.change(ListKind::Prompts, |d| Ok(d.remove_prompt(name)))
            .unwrap_or(false)
    }
}
