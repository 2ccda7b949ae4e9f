//! What a handler knows about the request it serves, and how it talks back while working.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use presa_core::{
    ClientCapabilities, ClientContext, Implementation, LoggingLevel, Meta, ProtocolVersion,
    RequestId,
};
use serde_json::Value;
use tokio::sync::Notify;

/// A boxed, sendable future: what the object-safe handler traits return.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Where a handler's progress and log messages go: the connection serving the request.
///
/// Transports implement it (the stdio and in-process connection, an HTTP response stream); a
/// handler only sees [`Context`]. Implementations decide whether a message is allowed (the
/// request asked for progress, the log level admits the message) and drop it otherwise.
pub trait Peer: Send + Sync + fmt::Debug {
    /// Sends `notifications/progress` for `request`, if it asked for progress.
    fn progress(
        &self,
        request: &RequestId,
        progress: f64,
        total: Option<f64>,
        message: Option<String>,
    ) -> BoxFuture<'static, ()>;

    /// Sends `notifications/message` for `request`, if its log level admits `level`.
    fn log(
        &self,
        request: &RequestId,
        level: LoggingLevel,
        logger: Option<String>,
        data: Value,
    ) -> BoxFuture<'static, ()>;
}

/// A peer that drops everything (for direct dispatch in tests and tools).
#[derive(Debug, Default)]
pub struct NoPeer;

impl Peer for NoPeer {
    fn progress(
        &self,
        _: &RequestId,
        _: f64,
        _: Option<f64>,
        _: Option<String>,
    ) -> BoxFuture<'static, ()> {
        Box::pin(async {})
    }

    fn log(
        &self,
        _: &RequestId,
        _: LoggingLevel,
        _: Option<String>,
        _: Value,
    ) -> BoxFuture<'static, ()> {
        Box::pin(async {})
    }
}

/// A request's cancellation signal: set once, observed by polling or awaiting.
#[derive(Clone, Debug, Default)]
pub struct Cancellation {
    inner: Arc<CancellationInner>,
}

#[derive(Debug, Default)]
struct CancellationInner {
    cancelled: AtomicBool,
    notify: Notify,
}

impl Cancellation {
    /// A signal that has not fired.
    pub fn new() -> Self {
        Self::default()
    }

    /// Fires the signal; every waiter wakes.
    pub fn cancel(&self) {
        self.inner.cancelled.store(true, Ordering::Release);
        self.inner.notify.notify_waiters();
    }

    /// Whether the signal fired.
    pub fn is_cancelled(&self) -> bool {
        self.inner.cancelled.load(Ordering::Acquire)
    }

    /// Completes once the signal fires.
    pub async fn cancelled(&self) {
        loop {
            let notified = self.inner.notify.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if self.is_cancelled() {
                return;
            }
            notified.await;
        }
    }
}

/// What a handler knows about the request it serves, and its way to talk back.
///
/// The same in both protocol eras: on 2026-07-28 the client's version, capabilities and identity
/// come from the request's own `_meta`; in the initialize era, from the session's handshake.
/// Cheap to clone.
#[derive(Clone)]
pub struct Context {
    inner: Arc<ContextInner>,
}

struct ContextInner {
    request_id: RequestId,
    client: ClientContext,
    meta: Option<Meta>,
    peer: Arc<dyn Peer>,
    cancellation: Cancellation,
}

impl fmt::Debug for Context {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Context")
            .field("request_id", &self.inner.request_id)
            .field("protocol_version", &self.inner.client.protocol_version)
            .field("cancelled", &self.inner.cancellation.is_cancelled())
            .finish_non_exhaustive()
    }
}

impl Context {
    /// A context for one request. Transports build these; handlers receive them.
    pub fn new(
        request_id: RequestId,
        client: ClientContext,
        meta: Option<Meta>,
        peer: Arc<dyn Peer>,
        cancellation: Cancellation,
    ) -> Self {
        Self {
            inner: Arc::new(ContextInner {
                request_id,
                client,
                meta,
                peer,
                cancellation,
            }),
        }
    }

    /// A context for calling a server directly, without a connection: the newest revision, no
    /// client capabilities, progress and log messages dropped.
    ///
    /// ```
    /// let cx = presa_server::Context::detached();
    /// assert!(!cx.is_cancelled());
    /// ```
    pub fn detached() -> Self {
        let client = ClientContext {
            protocol_version: ProtocolVersion::LATEST,
            capabilities: ClientCapabilities::default(),
            client_info: None,
        };
        Self::new(
            RequestId::Number(0),
            client,
            None,
            Arc::new(NoPeer),
            Cancellation::new(),
        )
    }

    /// The id of the request being served.
    pub fn request_id(&self) -> &RequestId {
        &self.inner.request_id
    }

    /// The revision the request is served under.
    pub fn protocol_version(&self) -> ProtocolVersion {
        self.inner.client.protocol_version
    }

    /// The client's capabilities for this request.
    pub fn client_capabilities(&self) -> &ClientCapabilities {
        &self.inner.client.capabilities
    }

    /// The client's identity, when it gave one. Self-asserted: for display and logs, not for
    /// security decisions.
    pub fn client_info(&self) -> Option<&Implementation> {
        self.inner.client.client_info.as_ref()
    }

    /// The request's `_meta`, as sent (trace context and extension keys live here).
    pub fn meta(&self) -> Option<&Meta> {
        self.inner.meta.as_ref()
    }

    /// Reports progress, if the client asked for it (its request carried a `progressToken`);
    /// otherwise does nothing. `progress` must grow with every report.
    pub async fn progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        let message = message.map(str::to_owned);
        self.inner
            .peer
            .progress(&self.inner.request_id, progress, total, message)
            .await;
    }

    /// Sends a log message, if the client asked for messages of this level (2026-07-28: the
    /// request's `_meta` log level, nothing without one; initialize era: `logging/setLevel`,
    /// and only when the server enables logging).
    pub async fn log(&self, level: LoggingLevel, data: impl Into<Value>) {
        self.inner
            .peer
            .log(&self.inner.request_id, level, None, data.into())
            .await;
    }

    /// Like [`log`](Self::log), naming the logger.
    pub async fn log_as(&self, level: LoggingLevel, logger: &str, data: impl Into<Value>) {
        self.inner
            .peer
            .log(
                &self.inner.request_id,
                level,
                Some(logger.to_owned()),
                data.into(),
            )
            .await;
    }

    /// Whether the client cancelled the request. A handler that computes without awaiting
    /// should check this now and then; one that awaits is stopped at its next await point.
    pub fn is_cancelled(&self) -> bool {
        self.inner.cancellation.is_cancelled()
    }

    /// Completes when the client cancels the request.
    pub async fn cancelled(&self) {
        self.inner.cancellation.cancelled().await;
    }

    /// The request's cancellation signal.
    pub fn cancellation(&self) -> &Cancellation {
        &self.inner.cancellation
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn cancellation_wakes_waiters_and_stays_set() {
        let c = Cancellation::new();
        let waiter = tokio::spawn({
            let c = c.clone();
            async move { c.cancelled().await }
        });
        tokio::task::yield_now().await;
        assert!(!c.is_cancelled());
        c.cancel();
        waiter.await.unwrap_or(());
        assert!(c.is_cancelled());
        c.cancelled().await; // already set: returns at once
    }
}
