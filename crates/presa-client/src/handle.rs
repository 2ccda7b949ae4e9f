//! The connection handle: what a [`Client`](crate::Client) sends its connection task, and the
//! state they share.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use tracing::Instrument;

use presa_core::{
    InitializeResult, LoggingLevel, Notification, ProtocolVersion, RawJson, RequestId,
    RequestOptions,
};
use serde_json::{Map, Value};
use tokio::sync::{broadcast, mpsc, oneshot};

use crate::ClientError;
use crate::cache::Cache;
use crate::call::{CallOptions, ProgressFn};

/// Identifies one call between a [`Handle`] and the connection task, before and after the
/// session gives it a request id.
pub(crate) type CallKey = u64;

/// What the connection task is asked to do.
pub(crate) enum Command {
    /// Send a request and answer `reply` with its outcome.
    Request(OutgoingCall),
    /// Speak a 2026-07-28-era revision from now on.
    Stateless(ProtocolVersion),
    /// Send a notification.
    Notify(Notification),
    /// Run the initialize handshake.
    Initialize(oneshot::Sender<Result<(ProtocolVersion, InitializeResult), ClientError>>),
    /// Close the session and the transport, then answer once the transport is done.
    Close(oneshot::Sender<()>),
}

pub(crate) struct OutgoingCall {
    pub(crate) key: CallKey,
    pub(crate) method: String,
    pub(crate) params: Option<Map<String, Value>>,
    pub(crate) options: RequestOptions,
    pub(crate) log_level: Option<LoggingLevel>,
    pub(crate) progress: Option<ProgressFn>,
    pub(crate) reply: oneshot::Sender<Result<RawJson, ClientError>>,
    /// Told the request's id once it is sent (for requests whose notifications are matched by
    /// it, such as `subscriptions/listen`).
    pub(crate) sent: Option<oneshot::Sender<RequestId>>,
    /// Sent even though nobody waits for the outcome.
    pub(crate) detached: bool,
    /// Its client span, told the request's id and revision once it is sent.
    pub(crate) span: tracing::Span,
}

/// State the connection task and every handle share.
#[derive(Debug)]
pub(crate) struct Shared {
    pub(crate) cache: Option<Mutex<Cache>>,
    /// The connection task holds the only strong sender, so receivers end with it.
    pub(crate) notifications: broadcast::WeakSender<Notification>,
    /// Why the connection ended, once it has.
    pub(crate) ended: OnceLock<ClientError>,
    /// Initialize-era resource subscriptions: how many [`Subscription`](crate::Subscription)s
    /// watch each URI (the server keeps one set per session, so only the last may unsubscribe).
    pub(crate) watched: Mutex<HashMap<String, usize>>,
    /// The tools as last listed: output schemas for typed calls, task support for 2025-11-25.
    pub(crate) tool_listing: crate::output::ToolListing,
    next_key: AtomicU64,
    /// The transport's network, for the spans.
    pub(crate) network: crate::Network,
    /// The instruments the client's metrics are recorded with.
    #[cfg(feature = "otel")]
    pub(crate) metrics: crate::metrics::ClientMetrics,
}

impl Shared {
    /// Shared state, and the notification sender for the connection task.
    pub(crate) fn new(
        cache: bool,
        notification_capacity: usize,
        network: crate::Network,
        #[cfg(feature = "otel")] metrics: crate::metrics::ClientMetrics,
    ) -> (Self, broadcast::Sender<Notification>) {
        let (notifications, _) = broadcast::channel(notification_capacity);
        let shared = Self {
            cache: cache.then(|| Mutex::new(Cache::default())),
            notifications: notifications.downgrade(),
            ended: OnceLock::new(),
            watched: Mutex::default(),
            tool_listing: crate::output::ToolListing::default(),
            next_key: AtomicU64::new(0),
            network,
            #[cfg(feature = "otel")]
            metrics,
        };
        (shared, notifications)
    }

    /// The URIs initialize-era subscriptions watch; taken over when a panic poisoned the lock
    /// (each change is one step), as every lock in presa is.
    pub(crate) fn watched(&self) -> std::sync::MutexGuard<'_, HashMap<String, usize>> {
        self.watched
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A new receiver of notifications; already ended when the connection has.
    pub(crate) fn subscribe(&self) -> broadcast::Receiver<Notification> {
        match self.notifications.upgrade() {
            Some(sender) => sender.subscribe(),
            None => broadcast::channel(1).1,
        }
    }

    /// The cache, when enabled. A poisoned lock is taken over: the cache holds no invariant a
    /// panic could break.
    pub(crate) fn cache(&self) -> Option<MutexGuard<'_, Cache>> {
        self.cache
            .as_ref()
            .map(|m| m.lock().unwrap_or_else(|poisoned| poisoned.into_inner()))
    }

    /// The error for a call made after the connection ended.
    pub(crate) fn ended_error(&self) -> ClientError {
        self.ended.get().cloned().unwrap_or(ClientError::Closed)
    }
}

/// A sender of commands to the connection task.
#[derive(Debug, Clone)]
pub(crate) struct Handle {
    commands: mpsc::Sender<Command>,
    cancels: mpsc::UnboundedSender<CallKey>,
    pub(crate) shared: Arc<Shared>,
}

impl Handle {
    pub(crate) fn new(
        commands: mpsc::Sender<Command>,
        cancels: mpsc::UnboundedSender<CallKey>,
        shared: Arc<Shared>,
    ) -> Self {
        Self {
            commands,
            cancels,
            shared,
        }
    }

    /// Sends a command; fails when the connection has ended.
    pub(crate) async fn command(&self, command: Command) -> Result<(), ClientError> {
        self.commands
            .send(command)
            .await
            .map_err(|_| self.shared.ended_error())
    }

    /// Sends a request and waits for its result, in the request's client span (see
    /// [`telemetry`](crate::telemetry)). Dropping the future cancels the request.
    pub(crate) async fn send(
        &self,
        method: &str,
        mut params: Option<Map<String, Value>>,
        options: &CallOptions,
    ) -> Result<RawJson, ClientError> {
        #[cfg(feature = "otel")]
        let operation = crate::metrics::Operation::start(method, params.as_ref());
        let span = crate::telemetry::request_span(method, &mut params, self.shared.network);
        let outcome = self
            .send_unobserved(method, params, options, span.clone())
            .instrument(span.clone())
            .await;
        // read from the result once, and only when a span or the metrics record it
        let recorded = !span.is_disabled() || cfg!(feature = "otel");
        let tool_error = recorded && crate::telemetry::is_tool_error(method, &outcome);
        crate::telemetry::record_end(&span, &outcome, tool_error);
        #[cfg(feature = "otel")]
        operation.end(&self.shared.metrics, &outcome, tool_error);
        outcome
    }

    async fn send_unobserved(
        &self,
        method: &str,
        params: Option<Map<String, Value>>,
        options: &CallOptions,
        span: tracing::Span,
    ) -> Result<RawJson, ClientError> {
        let key = self.shared.next_key.fetch_add(1, Ordering::Relaxed);
        let (reply, rx) = oneshot::channel();
        self.command(Command::Request(OutgoingCall {
            key,
            method: method.to_owned(),
            params,
            options: options.request_options(),
            log_level: options.get_log_level(),
            progress: options.progress_callback(),
            reply,
            sent: None,
            detached: false,
            span,
        }))
        .await?;
        // From here on the request is in the task's hands: dropping this future cancels it.
        let mut in_flight = OpenCall {
            key,
            rx: Some(rx),
            cancels: self.cancels.clone(),
            finished: false,
            // `send` records its end, with what only it knows
            span: tracing::Span::none(),
        };
        in_flight.wait(&self.shared).await
    }

    /// Sends a long-lived request (no timeout): returns its id once sent, and the call to
    /// await its outcome on, which cancels the request when dropped unfinished. Its client
    /// span lasts as long as the call.
    pub(crate) async fn open(
        &self,
        method: &str,
        mut params: Option<Map<String, Value>>,
    ) -> Result<(RequestId, OpenCall), ClientError> {
        let span = crate::telemetry::request_span(method, &mut params, self.shared.network);
        let key = self.shared.next_key.fetch_add(1, Ordering::Relaxed);
        let (reply, rx) = oneshot::channel();
        let (sent, id) = oneshot::channel();
        self.command(Command::Request(OutgoingCall {
            key,
            method: method.to_owned(),
            params,
            options: RequestOptions::default().without_timeout(),
            log_level: None,
            progress: None,
            reply,
            sent: Some(sent),
            detached: false,
            span: span.clone(),
        }))
        .await?;
        let call = OpenCall {
            key,
            rx: Some(rx),
            cancels: self.cancels.clone(),
            finished: false,
            span,
        };
        // Not sent (the session refused it): the reply says why.
        let Ok(id) = id.await else {
            let mut call = call;
            let outcome = call.wait(&self.shared).await;
            return Err(outcome.err().unwrap_or(ClientError::Closed));
        };
        Ok((id, call))
    }

    /// Queues a request whose outcome nobody waits for, without waiting (for use in `drop`):
    /// it goes out after every command sent before. Best effort: skipped when the command queue
    /// is full and no tokio runtime is at hand to wait for room, or the connection ended.
    pub(crate) fn send_detached(&self, method: &str, params: Option<Map<String, Value>>) {
        let key = self.shared.next_key.fetch_add(1, Ordering::Relaxed);
        let (reply, _) = oneshot::channel();
        let command = Command::Request(OutgoingCall {
            key,
            method: method.to_owned(),
            params,
            options: RequestOptions::default(),
            log_level: None,
            progress: None,
            reply,
            sent: None,
            detached: true,
            span: tracing::Span::none(),
        });
        match self.commands.try_send(command) {
            Err(mpsc::error::TrySendError::Full(command)) => {
                if let Ok(runtime) = tokio::runtime::Handle::try_current() {
                    let commands = self.commands.clone();
                    runtime.spawn(async move { commands.send(command).await });
                }
            }
            Ok(()) | Err(mpsc::error::TrySendError::Closed(_)) => {}
        }
    }

    /// Closes the connection and waits until the transport is done.
    pub(crate) async fn close(&self) {
        let (done, rx) = oneshot::channel();
        if self.command(Command::Close(done)).await.is_ok() {
            let _ = rx.await;
        }
    }
}

/// A request the connection task holds; cancels it when dropped unfinished.
#[derive(Debug)]
pub(crate) struct OpenCall {
    key: CallKey,
    rx: Option<oneshot::Receiver<Result<RawJson, ClientError>>>,
    cancels: mpsc::UnboundedSender<CallKey>,
    finished: bool,
    /// The request's client span, its end recorded when the outcome comes (none when the
    /// sender records it).
    span: tracing::Span,
}

impl OpenCall {
    /// The request's outcome. Cancel-safe: awaiting it again after a dropped wait goes on
    /// waiting; after it returned once it returns [`ClientError::Closed`].
    pub(crate) async fn wait(&mut self, shared: &Shared) -> Result<RawJson, ClientError> {
        let Some(rx) = self.rx.as_mut().filter(|_| !self.finished) else {
            return Err(ClientError::Closed);
        };
        let outcome = rx.await;
        self.finished = true;
        let outcome = outcome.unwrap_or_else(|_| Err(shared.ended_error()));
        crate::telemetry::record_end(&self.span, &outcome, false);
        outcome
    }

    /// Whether the outcome was taken.
    pub(crate) fn is_finished(&self) -> bool {
        self.finished
    }
}

impl Drop for OpenCall {
    fn drop(&mut self) {
        if !self.finished {
            // Close the reply channel first: the task checks it before sending a request it
            // has not sent yet, so the cancellation cannot overtake the request.
            drop(self.rx.take());
            // Unbounded, but holds at most one key per abandoned call.
            let _ = self.cancels.send(self.key);
        }
    }
}
