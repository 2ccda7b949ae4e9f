//! The server: its definitions, its options, and how it is built and changed while serving.

use std::fmt;
use std::future::Future;
use std::sync::{Arc, Mutex};

use arc_swap::ArcSwap;
use std::time::Duration;

use presa_core::{
    CacheScope, DiscoverResult, Implementation, Prompt, ProtocolVersion, Resource,
    ResourceTemplate, ServerCapabilities, ServerSessionConfig, SupportedVersions, Tool,
};
use presa_core::{RequestStateCodec, RequestStateKey};
use tokio::sync::broadcast;

use crate::events::{Change, EventBus, InMemoryBus, ListKind};
use crate::middleware::{Middleware, Stack};

use crate::context::Context;
use crate::definitions::{
    CompletionTarget, Definitions, SchemaCompiler, prompt_entry, resource_entry, template_entry,
    tool_entry,
};
use crate::error::BuildError;
use crate::prompt::{
    Completer, CompleterFn, CompletionInput, IntoCompletion, IntoPromptResult, PromptArgs,
    PromptFn, PromptHandler,
};
use crate::resource::{
    IntoResourceContents, ResourceFn, ResourceHandler, ResourceTemplateHandler, TemplateFn,
    Variables,
};
use crate::scopes::Scoped;
use crate::tool::{AsyncTool, FromArguments, IntoToolResult, SyncTool, ToolHandler};

/// The server's tunables, with the defaults of the original design.
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
            request_state_ttl: Duration::from_secs(600),
            middleware: Vec::new(),
        }
    }
}

pub(crate) struct Inner {
    pub(crate) info: Implementation,
    /// `info` as JSON, made once: every 2026-07-28 result carries it in `_meta`.
    pub(crate) info_value: serde_json::Value,
    /// `"_meta":{"io.modelcontextprotocol/serverInfo":<info>}`, the member a 2026-07-28 result
    /// without `_meta` of its own gets, made once.
    pub(crate) info_meta_member: String,
    pub(crate) instructions: Option<String>,
    pub(crate) options: Options,
    /// The current snapshot, read without a lock by every request.
    definitions: ArcSwap<Definitions>,
    /// Held while a change builds the next snapshot, so that two changes never race.
    changing: Mutex<()>,
    bus: Arc<dyn EventBus>,
    /// [`Options::middleware`], shared by every request; empty when there is none.
    pub(crate) stack: Stack,
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
        ServerBuilder {
            info: Implementation::new(name, version),
            instructions: None,
            options: Options::default(),
            definitions: Definitions::default(),
            error: None,
            bus: None,
        }
    }

    /// The server's identity.
    pub fn info(&self) -> &Implementation {
        &self.inner.info
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

/// Builds a [`Server`]: options, then definitions, then [`build`](Self::build).
///
/// Definitions are checked as they are added; the first problem is reported by `build`.
#[must_use]
pub struct ServerBuilder {
    info: Implementation,
    instructions: Option<String>,
    options: Options,
    definitions: Definitions,
    error: Option<BuildError>,
    bus: Option<Arc<dyn EventBus>>,
}

impl fmt::Debug for ServerBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServerBuilder")
            .field("info", &self.info)
            .field("definitions", &self.definitions)
            .finish_non_exhaustive()
    }
}

impl ServerBuilder {
    fn record(mut self, result: Result<(), BuildError>) -> Self {
        if let (Err(error), None) = (result, &self.error) {
            self.error = Some(error);
        }
        self
    }

    // ----- identity and options -----

    /// A display name for the server.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.info.title = Some(title.into());
        self
    }

    /// Usage hints for the model, sent at `initialize` and `server/discover`.
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(instructions.into());
        self
    }

    /// The revisions to speak (default: all).
    pub fn versions(mut self, versions: SupportedVersions) -> Self {
        self.options.versions = versions;
        self
    }

    /// Speaks only `version` and the revisions of its era older than it.
    pub fn only_version(self, version: ProtocolVersion) -> Self {
        let era = version.era();
        let versions = ProtocolVersion::ALL
            .into_iter()
            .filter(|v| v.era() == era && *v <= version);
        match SupportedVersions::new(versions) {
            Ok(versions) => self.versions(versions),
            Err(_) => self,
        }
    }

    /// How many items a list page holds (default 100; 0 counts as 1).
    pub fn page_size(mut self, page_size: usize) -> Self {
        self.options.page_size = page_size.max(1);
        self
    }

    /// Whether tool arguments and structured results are validated against their schemas
    /// (default true). Turning validation off also skips compiling the schemas.
    pub fn validate(mut self, validate: bool) -> Self {
        self.options.compiler = if validate {
            Some(Options::default().compiler).flatten()
        } else {
            None
        };
        self
    }

    /// Replaces the schema compiler, e.g. to always use presa-schema's full validator. Applies to
    /// tools added after this call.
    pub fn schema_compiler(
        mut self,
        compile: impl Fn(
            &serde_json::Value,
        ) -> Result<Box<dyn presa_schema::Validator>, presa_schema::SchemaError>
        + Send
        + Sync
        + 'static,
    ) -> Self {
        self.options.compiler = Some(Arc::new(compile));
        self
    }

    /// The caching hints on 2026-07-28 discover, list and read results (default 0 ms, private).
    pub fn cache(mut self, ttl_ms: u64, scope: CacheScope) -> Self {
        self.options.cache_ttl_ms = ttl_ms;
        self.options.cache_scope = scope;
        self
    }

    /// Whether the server announces list changes (`listChanged` in its capabilities) and sends
    /// list-changed notifications to listening clients (default false).
    pub fn list_changed(mut self, list_changed: bool) -> Self {
        self.options.list_changed = list_changed;
        self
    }

    /// Whether the server supports resource subscriptions (default false).
    pub fn subscribe(mut self, subscribe: bool) -> Self {
        self.options.subscribe = subscribe;
        self
    }

    /// Whether the server sends log messages (the `logging` capability; default false).
    pub fn logging(mut self, logging: bool) -> Self {
        self.options.logging = logging;
        self
    }

    /// The bus that fans changes out to listening clients (default: in this process).
    pub fn event_bus(mut self, bus: Arc<dyn EventBus>) -> Self {
        self.bus = Some(bus);
        self
    }

    /// The key that seals the `requestState` of 2026-07-28 input rounds (at least 32 bytes).
    ///
    /// Every instance behind a load balancer needs the same key, so that any of them can serve
    /// a client's retry. Without one, the server draws a random key at `build()`, which serves a
    /// single instance.
    pub fn request_state_key(mut self, key: impl AsRef<[u8]>) -> Self {
        match RequestStateKey::new(key) {
            Ok(key) => self.options.request_state = Some(Arc::new(RequestStateCodec::new(key))),
            Err(error) => {
                if self.error.is_none() {
                    self.error = Some(BuildError::RequestStateKey(error));
                }
            }
        }
        self
    }

    /// How long a sealed `requestState` stays valid (default 10 minutes).
    pub fn request_state_ttl(mut self, ttl: Duration) -> Self {
        self.options.request_state_ttl = ttl;
        self
    }

    /// Adds a layer to the middleware stack every request of every transport goes through (see
    /// [`Middleware`]): the first added sees each request first and its answer last.
    pub fn middleware(mut self, middleware: impl Middleware) -> Self {
        self.options.middleware.push(Arc::new(middleware));
        self
    }

    /// Whether 2026-07-28 results carry the server's identity in `_meta` (default true).
    pub fn server_info_in_results(mut self, include: bool) -> Self {
        self.options.server_info_in_meta = include;
        self
    }

    // ----- definitions -----

    /// Adds a tool whose handler is an async closure of the input and the context.
    pub fn tool<F, A, Fut, R>(self, tool: impl Into<Scoped<Tool>>, handler: F) -> Self
    where
        F: Fn(A, Context) -> Fut + Send + Sync + 'static,
        A: FromArguments,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoToolResult,
    {
        self.tool_handler(tool, Arc::new(AsyncTool::new(handler)))
    }

    /// Adds a tool whose handler is a plain (blocking-free, quick) closure. It runs where the
    /// request is read (no task of its own), which is what makes it cheap; long or blocking
    /// work belongs in [`tool`](Self::tool) with `tokio::task::spawn_blocking`.
    pub fn tool_sync<F, A, R>(self, tool: impl Into<Scoped<Tool>>, handler: F) -> Self
    where
        F: Fn(A, Context) -> R + Send + Sync + 'static,
        A: FromArguments,
        R: IntoToolResult,
    {
        self.tool_handler(tool, Arc::new(SyncTool::new(handler)))
    }

    /// Adds a tool with an object-safe handler.
    pub fn tool_handler(
        mut self,
        tool: impl Into<Scoped<Tool>>,
        handler: Arc<dyn ToolHandler>,
    ) -> Self {
        let result = tool_entry(tool.into(), handler, self.options.compiler.as_ref())
            .and_then(|e| self.definitions.add_tool(e));
        self.record(result)
    }

    /// Adds a resource whose handler is an async closure of the context.
    pub fn resource<F, Fut, R>(self, resource: impl Into<Scoped<Resource>>, handler: F) -> Self
    where
        F: Fn(Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoResourceContents,
    {
        self.resource_handler(resource, Arc::new(ResourceFn(handler)))
    }

    /// Adds a resource with an object-safe handler.
    pub fn resource_handler(
        mut self,
        resource: impl Into<Scoped<Resource>>,
        handler: Arc<dyn ResourceHandler>,
    ) -> Self {
        let result = self
            .definitions
            .add_resource(resource_entry(resource.into(), handler));
        self.record(result)
    }

    /// Adds a resource template whose handler is an async closure of the variables and the
    /// context; returning `None` means there is no such resource.
    pub fn resource_template<F, Fut, R>(
        self,
        template: impl Into<Scoped<ResourceTemplate>>,
        handler: F,
    ) -> Self
    where
        F: Fn(Variables, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoResourceContents,
    {
        self.resource_template_handler(template, Arc::new(TemplateFn(handler)))
    }

    /// Adds a resource template with an object-safe handler.
    pub fn resource_template_handler(
        mut self,
        template: impl Into<Scoped<ResourceTemplate>>,
        handler: Arc<dyn ResourceTemplateHandler>,
    ) -> Self {
        let result =
            template_entry(template.into(), handler).and_then(|e| self.definitions.add_template(e));
        self.record(result)
    }

    /// Adds a prompt whose handler is an async closure of the arguments and the context.
    /// Required arguments are checked before it runs.
    pub fn prompt<F, Fut, R>(self, prompt: impl Into<Scoped<Prompt>>, handler: F) -> Self
    where
        F: Fn(PromptArgs, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoPromptResult,
    {
        self.prompt_handler(prompt, Arc::new(PromptFn(handler)))
    }

    /// Adds a prompt with an object-safe handler.
    pub fn prompt_handler(
        mut self,
        prompt: impl Into<Scoped<Prompt>>,
        handler: Arc<dyn PromptHandler>,
    ) -> Self {
        let result = self
            .definitions
            .add_prompt(prompt_entry(prompt.into(), handler));
        self.record(result)
    }

    /// Completes an argument of a prompt added before.
    pub fn complete_prompt_argument<F, Fut, R>(
        self,
        prompt: &str,
        argument: &str,
        complete: F,
    ) -> Self
    where
        F: Fn(CompletionInput, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoCompletion,
    {
        self.completer(
            CompletionTarget::Prompt(prompt.to_owned()),
            argument,
            Arc::new(CompleterFn(complete)),
        )
    }

    /// Completes a variable of a resource template added before.
    pub fn complete_template_variable<F, Fut, R>(
        self,
        uri_template: &str,
        variable: &str,
        complete: F,
    ) -> Self
    where
        F: Fn(CompletionInput, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoCompletion,
    {
        self.completer(
            CompletionTarget::Template(uri_template.to_owned()),
            variable,
            Arc::new(CompleterFn(complete)),
        )
    }

    fn completer(
        mut self,
        target: CompletionTarget,
        argument: &str,
        completer: Arc<dyn Completer>,
    ) -> Self {
        let result = self.definitions.add_completion(target, argument, completer);
        self.record(result)
    }

    /// The server, or the first definition that was refused.
    pub fn build(mut self) -> Result<Server, BuildError> {
        if let Some(error) = self.error {
            return Err(error);
        }
        if self.options.request_state.is_none() {
            let mut key = [0u8; 32];
            getrandom::fill(&mut key).map_err(BuildError::Randomness)?;
            let key = RequestStateKey::new(key).map_err(BuildError::RequestStateKey)?;
            self.options.request_state = Some(Arc::new(RequestStateCodec::new(key)));
        }
        let stack: Stack = self.options.middleware.clone().into();
        Ok(Server {
            inner: Arc::new(Inner {
                info_value: serde_json::to_value(&self.info).unwrap_or(serde_json::Value::Null),
                info_meta_member: format!(
                    r#""_meta":{{{}:{}}}"#,
                    serde_json::Value::from(presa_core::META_SERVER_INFO),
                    serde_json::to_string(&self.info).unwrap_or_else(|_| "null".to_owned())
                ),
                info: self.info,
                instructions: self.instructions,
                options: self.options,
                definitions: ArcSwap::from_pointee(self.definitions),
                changing: Mutex::new(()),
                stack,
                bus: self.bus.unwrap_or_else(|| Arc::new(InMemoryBus::default())),
            }),
        })
    }
}
