//! How a client connects and behaves: [`ClientOptions`].

use std::fmt;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use presa_core::{
    ClientCapabilities, ClientSessionConfig, CreateMessage, CreateMessageRequestParams,
    CreateMessageResult, Elicit, ElicitRequestParams, ElicitResult, ElicitationCapability,
    ErrorObject, Implementation, JsonObject, ListRoots, ListRootsResult, ProtocolVersion,
    RequestParams, RootsCapability, SamplingCapability, SupportedVersions,
};

use crate::call::MAX_TIMEOUT;
use crate::handler::{InputContext, InputHandler, InputHandlers};

/// How [`Client::connect`](crate::Client::connect) connects, and how the client behaves.
///
/// Every setter consumes and returns the options; the defaults suit most clients.
///
/// | Option | Default | Meaning |
/// |---|---|---|
/// | [`client_info`](Self::client_info) | `presa-client` and its version | who the client says it is |
/// | [`protocol_version`](Self::protocol_version) | `None`: probe with `server/discover`, fall back to `initialize` | pin one revision |
/// | [`request_timeout`](Self::request_timeout) | 60 s | default timeout of every call |
/// | [`probe_timeout`](Self::probe_timeout) | 10 s | how long `server/discover` may take while connecting |
/// | [`cache`](Self::cache) | off | keep discover, list and read results for their `ttlMs` |
/// | [`notification_capacity`](Self::notification_capacity) | 256 | notifications buffered per [`Notifications`](crate::Notifications) receiver |
/// | [`max_input_rounds`](Self::max_input_rounds) | 8 | 2026-07-28 retries of one call answering `input_required` |
/// | [`tasks`](Self::tasks) | off | let the server answer tool calls with tasks |
/// | [`capabilities`](Self::capabilities) | derived from the handlers | the capabilities to declare |
/// | [`sampling`](Self::sampling), [`elicitation`](Self::elicitation), [`roots`](Self::roots) | none | input handlers |
/// | [`url_elicitation`](Self::url_elicitation) | off | declare URL-mode elicitation beside form mode |
///
/// ```
/// use std::time::Duration;
/// use presa_client::ClientOptions;
/// use presa_core::{ElicitResult, Implementation, ProtocolVersion};
///
/// let options = ClientOptions::new(Implementation::new("my-app", "1.0.0"))
///     .request_timeout(Some(Duration::from_secs(30)))
///     .protocol_version(Some(ProtocolVersion::V2025_11_25))
///     .cache(true)
///     .elicitation(|_params, _cx| async { Ok(ElicitResult::decline()) });
/// assert!(options.get_capabilities().elicitation.is_some());
/// ```
#[derive(Clone)]
pub struct ClientOptions {
    client_info: Implementation,
    protocol_version: Option<ProtocolVersion>,
    capabilities: Option<ClientCapabilities>,
    /// Extensions declared with [`ClientOptions::extension`].
    extensions: JsonObject,
    request_timeout: Option<Duration>,
    probe_timeout: Duration,
    tasks: bool,
    url_elicitation: bool,
    cache: bool,
    notification_capacity: usize,
    max_input_rounds: usize,
    pub(crate) handlers: InputHandlers,
    #[cfg(feature = "otel")]
    meter: Option<opentelemetry::metrics::Meter>,
}

impl Default for ClientOptions {
    fn default() -> Self {
        Self::new(Implementation::new(
            env!("CARGO_PKG_NAME"),
            env!("CARGO_PKG_VERSION"),
        ))
    }
}

impl fmt::Debug for ClientOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientOptions")
            .field("client_info", &self.client_info)
            .field("protocol_version", &self.protocol_version)
            .field("capabilities", &self.capabilities)
            .field("extensions", &self.extensions)
            .field("request_timeout", &self.request_timeout)
            .field("probe_timeout", &self.probe_timeout)
            .field("tasks", &self.tasks)
            .field("url_elicitation", &self.url_elicitation)
            .field("cache", &self.cache)
            .field("notification_capacity", &self.notification_capacity)
            .field("max_input_rounds", &self.max_input_rounds)
            .field("handlers", &self.handlers)
            .finish()
    }
}

impl ClientOptions {
    /// Defaults for the client `client_info`.
    pub fn new(client_info: Implementation) -> Self {
        Self {
            client_info,
            protocol_version: None,
            capabilities: None,
            extensions: JsonObject::new(),
            request_timeout: Some(Duration::from_secs(60)),
            probe_timeout: Duration::from_secs(10),
            tasks: false,
            url_elicitation: false,
            cache: false,
            notification_capacity: 256,
            max_input_rounds: 8,
            handlers: InputHandlers::default(),
            #[cfg(feature = "otel")]
            meter: None,
        }
    }

    /// The OpenTelemetry meter the client records its metrics with (feature `otel`):
    /// `mcp.client.operation.duration`, a histogram of every request's duration in seconds.
    /// Without it, the meter of the global meter provider as it is when the client connects
    /// (`opentelemetry::global::meter("presa")`).
    #[cfg(feature = "otel")]
    pub fn meter(mut self, meter: opentelemetry::metrics::Meter) -> Self {
        self.meter = Some(meter);
        self
    }

    /// The client's instruments, from its meter.
    #[cfg(feature = "otel")]
    pub(crate) fn client_metrics(&self) -> crate::metrics::ClientMetrics {
        let global;
        let meter = match &self.meter {
            Some(meter) => meter,
            None => {
                global = opentelemetry::global::meter("presa");
                &global
            }
        };
        crate::metrics::ClientMetrics::new(meter)
    }

    /// Who the client says it is (`clientInfo`).
    pub fn client_info(mut self, client_info: Implementation) -> Self {
        self.client_info = client_info;
        self
    }

    /// Pins the revision to speak. `None` (the default) sends `server/discover` for 2026-07-28
    /// and falls back to the `initialize` handshake when the server does not speak it.
    /// `Some(2026-07-28)` speaks it without fallback (still calling `server/discover` for the
    /// server's identity); `Some` of an initialize-era revision runs the handshake proposing
    /// exactly that revision.
    pub fn protocol_version(mut self, version: Option<ProtocolVersion>) -> Self {
        self.protocol_version = version;
        self
    }

    /// The capabilities to declare. By default they follow from the registered handlers:
    /// `sampling`, `elicitation` (form mode, and URL mode with
    /// [`url_elicitation`](Self::url_elicitation)) and `roots` for each handler present. The tasks
    /// extension is declared by [`tasks`](Self::tasks) alone, before or after this call: it is
    /// added to these capabilities when tasks are allowed and taken out of them when not.
    pub fn capabilities(mut self, capabilities: ClientCapabilities) -> Self {
        self.capabilities = Some(capabilities);
        self
    }

    /// Declares extension `id` with its `settings` (a JSON object; `json!({})` for none) in the
    /// capabilities the client sends: at `initialize`, or with every 2026-07-28 request. Added
    /// to the capabilities set with [`capabilities`](Self::capabilities) or implied by the
    /// handlers, whichever applies; the last declaration of an id wins.
    ///
    /// ```
    /// use presa_client::ClientOptions;
    ///
    /// let options = ClientOptions::default()
    ///     .extension("io.modelcontextprotocol/ui", serde_json::json!({"mimeTypes": ["text/html;profile=mcp-app"]}));
    /// assert!(options.get_capabilities().has_extension("io.modelcontextprotocol/ui"));
    /// ```
    pub fn extension(mut self, id: impl Into<String>, settings: serde_json::Value) -> Self {
        self.extensions.insert(id.into(), settings);
        self
    }

    /// The default timeout of every call; `None` waits forever. A call may set its own with
    /// [`CallOptions::timeout`](crate::CallOptions::timeout).
    pub fn request_timeout(mut self, timeout: Option<Duration>) -> Self {
        self.request_timeout = timeout.map(|t| t.min(MAX_TIMEOUT));
        self
    }

    /// How long connecting waits for the `server/discover` answer before concluding that the
    /// server only speaks the initialize era (some legacy servers never answer unknown
    /// requests).
    pub fn probe_timeout(mut self, timeout: Duration) -> Self {
        self.probe_timeout = timeout;
        self
    }

    /// Keeps `server/discover`, list and `resources/read` results for as long as their `ttlMs`
    /// says, and drops them on the matching change notification. See the crate documentation.
    pub fn cache(mut self, cache: bool) -> Self {
        self.cache = cache;
        self
    }

    /// How many notifications each [`Notifications`](crate::Notifications) receiver may fall
    /// behind before the oldest are skipped. Between 1 and 65536.
    pub fn notification_capacity(mut self, capacity: usize) -> Self {
        self.notification_capacity = capacity.clamp(1, 1 << 16);
        self
    }

    /// How many times one call answering `input_required` (2026-07-28) is retried with the
    /// handlers' answers before failing with
    /// [`ClientError::InputRequired`](crate::ClientError::InputRequired).
    pub fn max_input_rounds(mut self, rounds: usize) -> Self {
        self.max_input_rounds = rounds;
        self
    }

    /// Answers `sampling/createMessage` with a closure.
    pub fn sampling<F, Fut>(self, handler: F) -> Self
    where
        F: Fn(CreateMessageRequestParams, InputContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<CreateMessageResult, ErrorObject>> + Send + 'static,
    {
        self.sampling_handler(Arc::new(handler))
    }

    /// Answers `sampling/createMessage` with a shared handler.
    pub fn sampling_handler(mut self, handler: Arc<dyn InputHandler<CreateMessage>>) -> Self {
        self.handlers.sampling = Some(handler);
        self
    }

    /// Answers `elicitation/create` with a closure.
    pub fn elicitation<F, Fut>(self, handler: F) -> Self
    where
        F: Fn(ElicitRequestParams, InputContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ElicitResult, ErrorObject>> + Send + 'static,
    {
        self.elicitation_handler(Arc::new(handler))
    }

    /// Declares URL-mode elicitation beside form mode (default: form mode only), so that the
    /// server may ask the elicitation handler to send the user to a URL
    /// ([`ElicitRequestParams::Url`]): a sign-in, a payment, anything the user should not type
    /// into the client. Applies to the capabilities the handlers imply: it declares nothing
    /// without an [`elicitation`](Self::elicitation) handler, nor when
    /// [`capabilities`](Self::capabilities) sets them.
    ///
    /// ```
    /// use presa_client::ClientOptions;
    /// use presa_core::{ClientCapabilities, ElicitResult};
    ///
    /// let options = ClientOptions::default()
    ///     .url_elicitation(true)
    ///     .elicitation(|_params, _cx| async { Ok(ElicitResult::decline()) });
    /// let modes = options.get_capabilities().elicitation.unwrap();
    /// assert!(modes.form.is_some() && modes.url.is_some());
    /// // set capabilities are declared as they are
    /// let set = options.capabilities(ClientCapabilities::default());
    /// assert!(set.get_capabilities().elicitation.is_none());
    /// ```
    pub fn url_elicitation(mut self, declare: bool) -> Self {
        self.url_elicitation = declare;
        self
    }

    /// Answers `elicitation/create` with a shared handler.
    pub fn elicitation_handler(mut self, handler: Arc<dyn InputHandler<Elicit>>) -> Self {
        self.handlers.elicitation = Some(handler);
        self
    }

    /// Answers `roots/list` with a closure.
    pub fn roots<F, Fut>(self, handler: F) -> Self
    where
        F: Fn(RequestParams, InputContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ListRootsResult, ErrorObject>> + Send + 'static,
    {
        self.roots_handler(Arc::new(handler))
    }

    /// Answers `roots/list` with a shared handler.
    pub fn roots_handler(mut self, handler: Arc<dyn InputHandler<ListRoots>>) -> Self {
        self.handlers.roots = Some(handler);
        self
    }

    /// The pinned revision, if any.
    pub fn get_protocol_version(&self) -> Option<ProtocolVersion> {
        self.protocol_version
    }

    /// The capabilities the client declares: the ones set, or those the handlers imply; with
    /// the tasks extension exactly when [`tasks`](Self::tasks) allows tasks, whichever was set
    /// first.
    pub fn get_capabilities(&self) -> ClientCapabilities {
        let mut capabilities = self
            .capabilities
            .clone()
            .unwrap_or_else(|| self.handler_capabilities());
        // the opt-in is the one rule for the tasks declaration, set capabilities or not
        let extensions = capabilities.extensions.get_or_insert_with(Default::default);
        extensions.extend(self.extensions.clone());
        if self.tasks {
            extensions
                .entry(presa_core::TASKS_EXTENSION)
                .or_insert_with(|| serde_json::json!({}));
        } else {
            extensions.remove(presa_core::TASKS_EXTENSION);
        }
        if extensions.is_empty() {
            capabilities.extensions = None;
        }
        capabilities
    }

    /// The capabilities the registered handlers imply.
    fn handler_capabilities(&self) -> ClientCapabilities {
        ClientCapabilities {
            sampling: self
                .handlers
                .sampling
                .as_ref()
                .map(|_| SamplingCapability::default()),
            elicitation: self.handlers.elicitation.as_ref().map(|_| {
                if self.url_elicitation {
                    // naming form mode too: an object with only `url` would declare URL alone
                    ElicitationCapability {
                        form: Some(JsonObject::new()),
                        url: Some(JsonObject::new()),
                        ..ElicitationCapability::default()
                    }
                } else {
                    ElicitationCapability::default()
                }
            }),
            roots: self
                .handlers
                .roots
                .as_ref()
                .map(|_| RootsCapability::default()),
            ..ClientCapabilities::default()
        }
    }

    /// Allows the server to answer tool calls with tasks (default: no). On 2026-07-28 the
    /// client then declares the `io.modelcontextprotocol/tasks` extension with every request;
    /// on 2025-11-25 it calls a tool the server lists as task-capable with a task.
    /// [`Client::call_tool`](crate::Client::call_tool) waits for a task's end either way;
    /// [`Client::start_tool`](crate::Client::start_tool) hands the task over.
    ///
    /// ```
    /// use presa_client::ClientOptions;
    /// use presa_core::{ClientCapabilities, TASKS_EXTENSION};
    ///
    /// let options = ClientOptions::default().tasks(true);
    /// assert!(options.get_tasks());
    /// assert!(options.get_capabilities().has_extension(TASKS_EXTENSION));
    /// // set capabilities keep the opt-in, in either order
    /// let custom = ClientOptions::default().tasks(true).capabilities(ClientCapabilities::default());
    /// assert!(custom.get_capabilities().has_extension(TASKS_EXTENSION));
    /// ```
    pub fn tasks(mut self, allow: bool) -> Self {
        self.tasks = allow;
        self
    }

    /// Whether the server may answer tool calls with tasks.
    pub fn get_tasks(&self) -> bool {
        self.tasks
    }

    pub(crate) fn default_timeout(&self) -> Option<Duration> {
        self.request_timeout
    }

    pub(crate) fn probe(&self) -> Duration {
        self.probe_timeout
    }

    pub(crate) fn caching(&self) -> bool {
        self.cache
    }

    pub(crate) fn notifications_capacity(&self) -> usize {
        self.notification_capacity
    }

    pub(crate) fn input_rounds(&self) -> usize {
        self.max_input_rounds
    }

    /// The session configuration these options describe.
    pub(crate) fn session_config(&self) -> ClientSessionConfig {
        let versions = self
            .protocol_version
            .and_then(|v| SupportedVersions::new([v]).ok())
            .unwrap_or_default();
        ClientSessionConfig::new(self.client_info.clone())
            .versions(versions)
            .capabilities(self.get_capabilities())
            .request_timeout(self.request_timeout)
    }
}
