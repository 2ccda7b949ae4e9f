//! Building a server: its identity, options and definitions, checked as they are added.

use std::fmt;
use std::future::Future;
use std::sync::{Arc, Mutex};

use arc_swap::ArcSwap;
use std::time::Duration;

use presa_core::{
    CacheScope, Implementation, Prompt, ProtocolVersion, Resource, ResourceTemplate,
    SupportedVersions, Tool,
};
use presa_core::{RequestStateCodec, RequestStateKey};

use crate::events::{EventBus, InMemoryBus, SharedBus, TaskSignals};
use crate::middleware::{McpRequest, Middleware, Stack};

use crate::context::Context;
use crate::definitions::{
    CompletionTarget, Definitions, prompt_entry, resource_entry, template_entry, tool_entry,
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

use crate::server::{Inner, Options, Server};
use crate::state::StateMap;

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
    signals: Option<Arc<dyn TaskSignals>>,
    state: StateMap,
    #[cfg(feature = "schemars")]
    forms: crate::form::Forms,
    #[cfg(feature = "otel")]
    meter: Option<opentelemetry::metrics::Meter>,
}

impl fmt::Debug for ServerBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServerBuilder")
            .field("info", &self.info)
            .field("definitions", &self.definitions)
            .finish_non_exhaustive()
    }
}

impl Server {
    /// Starts building a server with this name and version.
    pub fn builder(name: impl Into<String>, version: impl Into<String>) -> ServerBuilder {
        ServerBuilder::new(Implementation::new(name, version))
    }
}

impl ServerBuilder {
    pub(crate) fn new(info: Implementation) -> Self {
        Self {
            info,
            instructions: None,
            options: Options::default(),
            definitions: Definitions::default(),
            error: None,
            bus: None,
            signals: None,
            #[cfg(feature = "otel")]
            meter: None,
            state: StateMap::default(),
            #[cfg(feature = "schemars")]
            forms: crate::form::Forms::default(),
        }
    }

    /// Keeps the first refusal, for [`build`](Self::build) to report.
    pub(crate) fn record(mut self, result: Result<(), BuildError>) -> Self {
        if let (Err(error), None) = (result, &self.error) {
            self.error = Some(error);
        }
        self
    }

    /// The extensions being declared, and their methods.
    pub(crate) fn extensions_mut(&mut self) -> &mut crate::extension::Extensions {
        &mut self.options.extensions
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

    /// The bus that fans changes out to listening clients (default: in this process). Several
    /// instances sharing a task store need [`shared_bus`](Self::shared_bus) instead.
    pub fn event_bus(mut self, bus: Arc<dyn EventBus>) -> Self {
        self.bus = Some(bus);
        self
    }

    /// A bus shared by several instances, which also carries task signals between them (a
    /// client's `tasks/update` or `tasks/cancel` that reached another instance than the one
    /// running the task), e.g. presa-redis's `RedisBus`.
    pub fn shared_bus(mut self, bus: impl Into<SharedBus>) -> Self {
        let SharedBus { changes, signals } = bus.into();
        self.bus = Some(changes);
        self.signals = Some(signals);
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

    /// Shared state for the handlers, which reach it with
    /// [`Context::state`](crate::Context::state) (one value per type; a second value of a type
    /// replaces the first). Wrap what changes in a `Mutex` or an atomic: handlers get `&T`.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicU64, Ordering};
    /// use presa_server::{Context, Server, ToolError};
    ///
    /// #[derive(Default)]
    /// struct Visits(AtomicU64);
    ///
    /// let server = Server::builder("counter", "1.0.0")
    ///     .state(Visits::default())
    ///     .tool_sync("visit", |_: (), cx: Context| {
    ///         let visits = cx.state::<Visits>()?;
    ///         Ok::<_, ToolError>(format!("visit {}", visits.0.fetch_add(1, Ordering::Relaxed) + 1))
    ///     })
    ///     .build()
    ///     .unwrap();
    /// # let _ = server;
    /// ```
    pub fn state<T: Send + Sync + 'static>(mut self, state: T) -> Self {
        self.state.insert(state);
        self
    }

    /// Registers `T` as an elicitation form (feature `schemars`), which handlers ask for with
    /// [`Context::elicit_as`](crate::Context::elicit_as). Its schema is derived and checked
    /// here: forms are flat objects of strings, numbers, booleans and enums (a list of enum
    /// values is a multi-select), and a `T` with a field outside that set fails `build`, naming
    /// the field.
    ///
    /// ```
    /// use presa_server::{Args, BuildError, Context, Elicitation, InputError, Server};
    ///
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Confirm {
    ///     /// Yes, delete it.
    ///     sure: bool,
    /// }
    ///
    /// let server = Server::builder("files", "1.0.0")
    ///     .elicitation_form::<Confirm>()
    ///     .typed_tool("delete", |(), cx: Context| async move {
    ///         Ok::<_, InputError>(match cx.elicit_as::<Confirm>("Delete it?").await? {
    ///             Elicitation::Accepted(Confirm { sure: true }) => "deleted",
    ///             _ => "kept",
    ///         })
    ///     })
    ///     .build()
    ///     .unwrap();
    /// # let _ = server;
    ///
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Nested { address: Address }
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Address { city: String }
    ///
    /// let refused = Server::builder("forms", "1.0.0").elicitation_form::<Nested>().build();
    /// assert!(matches!(refused, Err(BuildError::ElicitationForm { field: Some(f), .. }) if f == "address"));
    /// ```
    #[cfg(feature = "schemars")]
    pub fn elicitation_form<T: schemars::JsonSchema + 'static>(mut self) -> Self {
        let result = self.forms.insert::<T>();
        self.record(result)
    }

    /// Adds a layer to the middleware stack every request of every transport goes through (see
    /// [`Middleware`]): the first added sees each request first and its answer last.
    pub fn middleware(mut self, middleware: impl Middleware) -> Self {
        self.options.middleware.push(Arc::new(middleware));
        self
    }

    /// Who the caller of a request is, for every middleware that tells callers apart (presa's
    /// [`RateLimit`](crate::RateLimit) counts by it, [`Audit`](crate::Audit) records it, yours
    /// reads [`McpRequest::caller_key`](crate::McpRequest::caller_key)): `key`'s answer where
    /// it gives one, else the identity the transport verified (its subject, else its client
    /// id). Without it, callers without a verified identity are one anonymous caller.
    ///
    /// `key` runs at most once per request, when a middleware first asks (it must not ask
    /// [`caller_key`](crate::McpRequest::caller_key) itself).
    ///
    /// ```
    /// use std::time::Duration;
    /// use presa_server::{Audit, McpRequest, RateLimit, Server};
    ///
    /// // anonymous HTTP callers told apart by the address a proxy in front reports, for the
    /// // rate limit and the audit alike
    /// let server = Server::builder("limited", "1.0.0")
    ///     .caller_key(|request: &McpRequest| {
    ///         let http = request.context().http()?;
    ///         Some(http.headers().get("x-forwarded-for")?.to_str().ok()?.to_owned())
    ///     })
    ///     .middleware(Audit::new(|record| eprintln!("{record:?}")))
    ///     .middleware(RateLimit::new(5, Duration::from_secs(1)))
    ///     .build()
    ///     .unwrap();
    /// # let _ = server;
    /// ```
    pub fn caller_key(
        mut self,
        key: impl Fn(&McpRequest) -> Option<String> + Send + Sync + 'static,
    ) -> Self {
        self.options.caller_key = Some(Arc::new(key));
        self
    }

    /// The OpenTelemetry meter the server records its metrics with (feature `otel`; see
    /// docs/observability.md): `mcp.server.operation.duration`, a histogram of every request's
    /// duration in seconds, and `mcp.server.requests.in_flight`. Without it, the meter of the
    /// global meter provider as it is when the server is built
    /// (`opentelemetry::global::meter("presa")`): set the provider first.
    #[cfg(feature = "otel")]
    pub fn meter(mut self, meter: opentelemetry::metrics::Meter) -> Self {
        self.meter = Some(meter);
        self
    }

    /// Where the server keeps its tasks and how (see [`TaskOptions`]; in memory by default).
    /// Tasks are offered as soon as a tool declares
    /// [`task_support`](presa_core::Tool::task_support).
    ///
    /// ```
    /// use std::time::Duration;
    /// use presa_server::{Server, TaskOptions};
    ///
    /// let server = Server::builder("jobs", "1.0.0")
    ///     .tasks(TaskOptions::default().retention(Some(Duration::from_secs(300))))
    ///     .build()
    ///     .unwrap();
    /// # let _ = server;
    /// ```
    ///
    /// [`TaskOptions`]: crate::TaskOptions
    pub fn tasks(mut self, options: crate::TaskOptions) -> Self {
        self.options.tasks = options;
        self
    }

    /// What a client may make each session hold: requests in flight, the server's own requests
    /// waiting for answers, the size of the description `initialize` leaves behind (see
    /// [`SessionLimits`](presa_core::SessionLimits) for the defaults).
    ///
    /// ```
    /// use presa_core::SessionLimits;
    ///
    /// let server = presa_server::Server::builder("demo", "1")
    ///     .limits(SessionLimits::default().max_in_flight_requests(32))
    ///     .build()
    ///     .unwrap();
    /// # let _ = server;
    /// ```
    pub fn limits(mut self, limits: presa_core::SessionLimits) -> Self {
        self.options.limits = limits;
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

    /// Adds a tool whose schemas are derived from its handler's types (feature `schemars`,
    /// on by default): the input schema from the first argument ([`Args<T>`](crate::Args) with
    /// `T: JsonSchema`, or `()` for no parameters), the output schema from what it returns
    /// ([`Json<T>`](crate::Json) or `Result<Json<T>, E>` with `T: JsonSchema`; none for other
    /// results). The input type's doc comment is the tool's description unless `tool` has one.
    /// `tool` is a name, or a [`Tool`] with a title, annotations or scopes; its input schema is
    /// replaced, its output schema kept if it has one. See [`ToolInput`](crate::ToolInput) and
    /// [`ToolOutput`](crate::ToolOutput).
    ///
    /// ```
    /// use presa_server::{Args, Context, Json, Server};
    /// use schemars::JsonSchema;
    /// use serde::{Deserialize, Serialize};
    ///
    /// /// Add two numbers.
    /// #[derive(Deserialize, JsonSchema)]
    /// struct Add { a: f64, b: f64 }
    ///
    /// #[derive(Serialize, JsonSchema)]
    /// struct Sum { sum: f64 }
    ///
    /// let server = Server::builder("calculator", "1.0.0")
    ///     .typed_tool("add", |Args(add): Args<Add>, _cx: Context| async move {
    ///         Json(Sum { sum: add.a + add.b })
    ///     })
    ///     .build()
    ///     .unwrap();
    /// # let _ = server;
    /// ```
    #[cfg(feature = "schemars")]
    pub fn typed_tool<F, A, Fut, R>(self, tool: impl Into<Scoped<Tool>>, handler: F) -> Self
    where
        F: Fn(A, Context) -> Fut + Send + Sync + 'static,
        A: crate::ToolInput,
        Fut: Future<Output = R> + Send + 'static,
        R: crate::ToolOutput,
    {
        let (tool, wrapped) = crate::typed::typed_definition::<A, R>(tool.into());
        self.tool_handler(tool, crate::typed::typed_handler(handler, wrapped))
    }

    /// [`typed_tool`](Self::typed_tool) with a plain closure, run where the request is read (see
    /// [`tool_sync`](Self::tool_sync)).
    #[cfg(feature = "schemars")]
    pub fn typed_tool_sync<F, A, R>(self, tool: impl Into<Scoped<Tool>>, handler: F) -> Self
    where
        F: Fn(A, Context) -> R + Send + Sync + 'static,
        A: crate::ToolInput,
        R: crate::ToolOutput,
    {
        let (tool, wrapped) = crate::typed::typed_definition::<A, R>(tool.into());
        self.tool_handler(tool, crate::typed::typed_sync_handler(handler, wrapped))
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

    /// Adds a resource template whose variables are read into a `T` (feature `schemars`): each
    /// variable as its field says (a number, a boolean, an enum value, a string). Every required
    /// field of `T` must be a variable of the template, or `build` fails naming it; variables
    /// that do not read as a `T` (`{id}` is `abc` where `id` is a number) name no resource.
    ///
    /// ```
    /// use presa_server::{Args, Context, ResourceTemplate, Server};
    ///
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Page { book: String, number: u32 }
    ///
    /// let server = Server::builder("books", "1.0.0")
    ///     .typed_resource_template(
    ///         ResourceTemplate::new("books://{book}/pages/{number}", "page"),
    ///         |Args(page): Args<Page>, _cx: Context| async move {
    ///             format!("page {} of {}", page.number, page.book)
    ///         },
    ///     )
    ///     .build()
    ///     .unwrap();
    /// # let _ = server;
    /// ```
    #[cfg(feature = "schemars")]
    pub fn typed_resource_template<F, T, Fut, R>(
        self,
        template: impl Into<Scoped<ResourceTemplate>>,
        handler: F,
    ) -> Self
    where
        F: Fn(crate::Args<T>, Context) -> Fut + Send + Sync + 'static,
        T: serde::de::DeserializeOwned + schemars::JsonSchema + Send + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoResourceContents,
    {
        let template = template.into();
        match crate::typed::typed_template::<T, F>(
            &template,
            handler,
            self.options.compiler.as_ref(),
        ) {
            Ok(handler) => self.resource_template_handler(template, Arc::new(handler)),
            Err(error) => self.record(Err(error)),
        }
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

    /// Adds a prompt whose arguments are the fields of a `T` (feature `schemars`): each field
    /// is a [`PromptArgument`](presa_core::PromptArgument), required unless it is an `Option`
    /// (or has a default), described by its doc comment; the handler gets the arguments read
    /// into a `T` (a number, boolean or enum field from its string). `T`'s doc comment is the
    /// prompt's description unless `prompt` has one. A field that is not a single value (a
    /// list, a struct) fails `build`, naming it.
    ///
    /// ```
    /// use presa_server::{Args, Context, Prompt, Server};
    ///
    /// /// Review a note.
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Review {
    ///     /// The note's id.
    ///     id: u64,
    ///     /// Be strict about it.
    ///     strict: Option<bool>,
    /// }
    ///
    /// let server = Server::builder("notes", "1.0.0")
    ///     .typed_prompt("review", |Args(review): Args<Review>, _cx: Context| async move {
    ///         let tone = if review.strict == Some(true) { "strictly" } else { "kindly" };
    ///         format!("Review note {} {tone}.", review.id)
    ///     })
    ///     .build()
    ///     .unwrap();
    /// # let _ = server;
    /// ```
    #[cfg(feature = "schemars")]
    pub fn typed_prompt<F, T, Fut, R>(self, prompt: impl Into<Scoped<Prompt>>, handler: F) -> Self
    where
        F: Fn(crate::Args<T>, Context) -> Fut + Send + Sync + 'static,
        T: serde::de::DeserializeOwned + schemars::JsonSchema + Send + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoPromptResult,
    {
        match crate::typed::typed_prompt::<T, F>(
            prompt.into(),
            handler,
            self.options.compiler.as_ref(),
        ) {
            Ok((prompt, handler)) => self.prompt_handler(prompt, Arc::new(handler)),
            Err(error) => self.record(Err(error)),
        }
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
        let bus: Arc<dyn crate::EventBus> =
            self.bus.unwrap_or_else(|| Arc::new(InMemoryBus::default()));
        let tasks = Arc::new(crate::tasks::Tasks::new(
            self.options.tasks.clone(),
            Arc::clone(&bus),
            self.signals,
        ));
        let info_value = serde_json::to_value(&self.info).unwrap_or(serde_json::Value::Null);
        let notification_permits = Arc::new(tokio::sync::Semaphore::new(
            self.options
                .limits
                .in_flight_requests()
                .min(tokio::sync::Semaphore::MAX_PERMITS),
        ));
        Ok(Server {
            inner: Arc::new(Inner {
                info_meta: info_meta(&info_value),
                info_value,
                info: self.info,
                instructions: self.instructions,
                options: self.options,
                definitions: ArcSwap::from_pointee(self.definitions),
                changing: Mutex::new(()),
                stack,
                tasks,
                bus,
                state: self.state,
                notification_permits,
                client_descriptions: presa_core::ClientDescriptions::default(),
                #[cfg(feature = "schemars")]
                forms: self.forms,
                #[cfg(feature = "otel")]
                metrics: Arc::new(crate::metrics::ServerMetrics::new(
                    &self
                        .meter
                        .unwrap_or_else(|| opentelemetry::global::meter("presa")),
                )),
            }),
        })
    }
}

/// `{"io.modelcontextprotocol/serverInfo":<info>}`, made once per server.
fn info_meta(info: &serde_json::Value) -> Box<serde_json::value::RawValue> {
    let mut meta = serde_json::Map::new();
    meta.insert(presa_core::META_SERVER_INFO.to_owned(), info.clone());
    // a map of JSON values always serializes
    serde_json::value::to_raw_value(&meta).unwrap_or_default()
}
