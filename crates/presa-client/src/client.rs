//! The client handle: [`Client`].

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use presa_core::{ClientCapabilities, ClientSession, Notification, ProtocolVersion, RequestTasks};
use tokio::sync::mpsc;

use crate::driver::Driver;
use crate::handle::{Handle, Shared};
use crate::handler::InputHandlers;
use crate::{ClientChannel, ClientError, ClientOptions, Notifications, ServerInfo, connect};

/// Commands waiting for the connection task, per connection.
const COMMAND_CAPACITY: usize = 32;

/// A connection to one MCP server, in whichever era it speaks.
///
/// [`connect`](Self::connect) takes a transport's [`ClientChannel`] and finds out which
/// revision the server speaks; then the methods below make typed calls, each returning a
/// [`CallBuilder`](crate::CallBuilder) to set per-call options on and `.await`.
///
/// `Client` is a cheap handle: clone it to make calls from many tasks at once. One task per
/// connection owns the protocol state and the transport; it ends when the last handle is
/// dropped or [`close`](Self::close) is called, closing the transport.
///
/// ```no_run
/// use presa_client::{Client, ClientChannel, ClientOptions, ResultText};
///
/// async fn run(channel: ClientChannel) -> Result<(), presa_client::ClientError> {
///     let client = Client::connect(channel, ClientOptions::default()).await?;
///     println!("connected to {:?} ({})", client.info().name(), client.protocol_version());
///     for tool in client.list_tools().await? {
///         println!("- {}", tool.name);
///     }
///     let result = client.call_tool("add", serde_json::json!({"numbers": [1, 2, 3]})).await?;
///     println!("{}", result.text());
///     client.close().await;
///     Ok(())
/// }
/// ```
#[derive(Clone)]
pub struct Client {
    inner: Arc<Inner>,
}

struct Inner {
    handle: Handle,
    info: ServerInfo,
    capabilities: ClientCapabilities,
    handlers: InputHandlers,
    max_input_rounds: usize,
    request_timeout: Option<Duration>,
    /// Whether the server may answer tool calls with tasks.
    tasks: bool,
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("info", &self.inner.info)
            .field("capabilities", &self.inner.capabilities)
            .field("handlers", &self.inner.handlers)
            .finish_non_exhaustive()
    }
}

impl Client {
    /// Connects over `channel`: probes with `server/discover` for 2026-07-28 and falls back to
    /// the `initialize` handshake for an initialize-era server (or follows
    /// [`ClientOptions::protocol_version`] when pinned).
    ///
    /// Must be called within a tokio runtime: it spawns the connection task. On failure the
    /// transport is closed.
    pub async fn connect(
        channel: ClientChannel,
        options: ClientOptions,
    ) -> Result<Self, ClientError> {
        let (commands, commands_rx) = mpsc::channel(COMMAND_CAPACITY);
        let (cancels, cancels_rx) = mpsc::unbounded_channel();
        let (shared, notifications) = Shared::new(
            options.caching(),
            options.notifications_capacity(),
            channel.network,
            #[cfg(feature = "otel")]
            options.client_metrics(),
        );
        let shared = Arc::new(shared);
        let driver = Driver::new(
            ClientSession::new(
                options
                    .session_config()
                    .mirror_headers(channel.mirror_headers),
            ),
            channel,
            commands_rx,
            cancels_rx,
            shared.clone(),
            notifications,
            options.handlers.clone(),
        );
        tokio::spawn(driver.run());
        let handle = Handle::new(commands, cancels, shared);
        let info = connect::negotiate(&handle, &options).await?;
        Ok(Self {
            inner: Arc::new(Inner {
                handle,
                info,
                capabilities: options.get_capabilities(),
                handlers: options.handlers.clone(),
                max_input_rounds: options.input_rounds(),
                request_timeout: options.default_timeout(),
                tasks: options.get_tasks(),
            }),
        })
    }

    /// The server, as connecting found it.
    pub fn info(&self) -> &ServerInfo {
        &self.inner.info
    }

    /// The extensions the server declared (`capabilities.extensions`): each id with its
    /// settings. Empty when it declared none.
    pub fn server_extensions(&self) -> &presa_core::JsonObject {
        static NONE: std::sync::OnceLock<presa_core::JsonObject> = std::sync::OnceLock::new();
        match &self.inner.info.capabilities.extensions {
            Some(extensions) => extensions,
            None => NONE.get_or_init(presa_core::JsonObject::new),
        }
    }

    /// Whether the server declared extension `id`; its settings are
    /// [`server_extensions`](Self::server_extensions)`()[id]`.
    pub fn has_extension(&self, id: &str) -> bool {
        self.inner.info.capabilities.has_extension(id)
    }

    /// The revision spoken with the server.
    pub fn protocol_version(&self) -> ProtocolVersion {
        self.inner.info.protocol_version
    }

    /// A receiver of the server's notifications from now on (log messages, list changes,
    /// resource updates). Ends when the client closes.
    pub fn notifications(&self) -> Notifications {
        Notifications::new(self.inner.handle.shared.subscribe())
    }

    /// Sends a notification to the server, e.g. `notifications/roots/list_changed`.
    pub async fn notify(&self, notification: Notification) -> Result<(), ClientError> {
        self.inner
            .handle
            .command(crate::handle::Command::Notify(notification))
            .await
    }

    /// Closes the session and the transport: pending calls fail with
    /// [`ClientError::Closed`], later calls on any clone of this client too. Returns once the
    /// transport reports it is done (e.g. the server process exited); returns at once when the
    /// client was already closed.
    pub async fn close(&self) {
        self.inner.handle.close().await;
    }

    /// Whether the connection has ended (closed, or the transport went away).
    pub fn is_closed(&self) -> bool {
        self.inner.handle.shared.ended.get().is_some()
    }

    pub(crate) fn handle(&self) -> &Handle {
        &self.inner.handle
    }

    /// Whether the server may answer tool calls with tasks ([`ClientOptions::tasks`]).
    pub(crate) fn allows_tasks(&self) -> bool {
        self.inner.tasks
    }

    pub(crate) fn handlers(&self) -> &InputHandlers {
        &self.inner.handlers
    }

    pub(crate) fn capabilities(&self) -> &ClientCapabilities {
        &self.inner.capabilities
    }

    /// Whether this client's requests may use tasks, and which: the core rule the server
    /// applies to them too.
    pub(crate) fn request_tasks(&self) -> RequestTasks {
        self.protocol_version().request_tasks(self.capabilities())
    }

    pub(crate) fn max_input_rounds(&self) -> usize {
        self.inner.max_input_rounds
    }

    pub(crate) fn tool_listing(&self) -> &crate::output::ToolListing {
        &self.inner.handle.shared.tool_listing
    }

    pub(crate) fn request_timeout(&self) -> Option<Duration> {
        self.inner.request_timeout
    }
}
