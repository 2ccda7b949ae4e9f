//! Per-call options, and the builder every call returns.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use presa_core::{LoggingLevel, ProgressNotificationParams, RequestOptions};

/// The longest timeout presa hands the session; longer ones are cut to this (a deadline must
/// stay representable as an `Instant`).
pub(crate) const MAX_TIMEOUT: Duration = Duration::from_secs(60 * 60 * 24 * 30);

/// A progress callback, shared by every round or page of one call.
pub(crate) type ProgressFn = Arc<dyn Fn(ProgressNotificationParams) + Send + Sync>;

/// Options of one call: timeout, progress, log level, cache use.
///
/// Set them on the call itself (`client.call_tool(..).timeout(..)`), or build a `CallOptions`
/// once and pass it with [`CallBuilder::options`](crate::CallBuilder::options).
///
/// ```
/// use std::time::Duration;
/// use presa_client::CallOptions;
/// use presa_core::LoggingLevel;
///
/// let options = CallOptions::new()
///     .timeout(Duration::from_secs(5))
///     .on_progress(|p| println!("{}/{:?}", p.progress, p.total))
///     .log_level(LoggingLevel::Info);
/// assert_eq!(options.get_timeout(), Some(Duration::from_secs(5)));
/// ```
#[derive(Clone, Default)]
pub struct CallOptions {
    timeout: Option<Duration>,
    max_total_timeout: Option<Duration>,
    reset_timeout_on_progress: bool,
    progress: Option<ProgressFn>,
    log_level: Option<LoggingLevel>,
    no_cache: bool,
}

impl fmt::Debug for CallOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CallOptions")
            .field("timeout", &self.timeout)
            .field("max_total_timeout", &self.max_total_timeout)
            .field("reset_timeout_on_progress", &self.reset_timeout_on_progress)
            .field("progress", &self.progress.is_some())
            .field("log_level", &self.log_level)
            .field("use_cache", &!self.no_cache)
            .finish()
    }
}

impl CallOptions {
    /// The defaults: the client's request timeout, no progress, no log messages, the cache
    /// used when enabled.
    pub fn new() -> Self {
        Self::default()
    }

    /// How long to wait for the response (each page of a listing, each round of an
    /// input-required exchange, waits this long). On expiry the call fails with
    /// [`ClientError::TimedOut`](crate::ClientError::TimedOut) and the server is told to cancel.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout.min(MAX_TIMEOUT));
        self
    }

    /// Calls `callback` with each progress notification the server sends for this call (the
    /// request then carries a `progressToken`).
    ///
    /// The callback is an `Fn`, not an `FnMut`: it is shared by every round or page of the call
    /// and may run from the client's connection task, so it cannot borrow the caller's
    /// variables mutably. Collect into something shared (an `Arc<Mutex<..>>`, an atomic) or
    /// send to a channel. It runs on the client's connection task: keep it short, and hand
    /// anything slow to a channel.
    ///
    /// ```
    /// use std::sync::{Arc, Mutex};
    /// use presa_client::CallOptions;
    ///
    /// let seen = Arc::new(Mutex::new(Vec::new()));
    /// let sink = Arc::clone(&seen);
    /// let options = CallOptions::new().on_progress(move |p| {
    ///     if let Ok(mut seen) = sink.lock() {
    ///         seen.push(p.progress);
    ///     }
    /// });
    /// # let _ = options;
    /// ```
    pub fn on_progress(
        mut self,
        callback: impl Fn(ProgressNotificationParams) + Send + Sync + 'static,
    ) -> Self {
        self.progress = Some(Arc::new(callback));
        self
    }

    /// Whether each progress notification restarts the timeout, up to
    /// [`max_total_timeout`](Self::max_total_timeout).
    pub fn reset_timeout_on_progress(mut self, reset: bool) -> Self {
        self.reset_timeout_on_progress = reset;
        self
    }

    /// The hard limit when progress restarts the timeout (default: ten times the timeout).
    pub fn max_total_timeout(mut self, limit: Duration) -> Self {
        self.max_total_timeout = Some(limit.min(MAX_TIMEOUT));
        self
    }

    /// Asks for log messages (`notifications/message`) of `level` and above about this call
    /// (2026-07-28 `_meta` `io.modelcontextprotocol/logLevel`; the initialize era sets the
    /// level per session with `logging/setLevel` instead). They arrive on
    /// [`Client::notifications`](crate::Client::notifications).
    pub fn log_level(mut self, level: LoggingLevel) -> Self {
        self.log_level = Some(level);
        self
    }

    /// Whether the call may be answered from the cache (default `true`; only matters when
    /// [`ClientOptions::cache`](crate::ClientOptions::cache) is on). A fresh answer is still
    /// stored.
    pub fn use_cache(mut self, use_cache: bool) -> Self {
        self.no_cache = !use_cache;
        self
    }

    /// The timeout set, if any.
    pub fn get_timeout(&self) -> Option<Duration> {
        self.timeout
    }

    pub(crate) fn cache_allowed(&self) -> bool {
        !self.no_cache
    }

    pub(crate) fn progress_callback(&self) -> Option<ProgressFn> {
        self.progress.clone()
    }

    pub(crate) fn get_log_level(&self) -> Option<LoggingLevel> {
        self.log_level
    }

    pub(crate) fn request_options(&self) -> RequestOptions {
        RequestOptions::default()
            .timeout(self.timeout)
            .max_total_timeout(self.max_total_timeout)
            .progress(self.progress.is_some())
            .reset_timeout_on_progress(self.reset_timeout_on_progress)
    }
}
