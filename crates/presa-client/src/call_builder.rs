//! A call to make: its options set one by one, sent when it is awaited.

use std::fmt;
use std::future::IntoFuture;
use std::time::Duration;

use presa_core::{LoggingLevel, ProgressNotificationParams};

use crate::call::CallOptions;
use crate::{BoxFuture, Client, ClientError};

/// The future of a call.
pub type CallFuture<T> = BoxFuture<'static, Result<T, ClientError>>;

type Run<T> = Box<dyn FnOnce(Client, CallOptions) -> CallFuture<T> + Send>;

/// A call to make: set its options, then `.await` it.
///
/// Every request method of [`Client`] returns one. Nothing is sent until it is awaited;
/// dropping the future before it finishes cancels the request (the server is told with
/// `notifications/cancelled`, or as the transport expresses cancellation).
///
/// ```no_run
/// # async fn demo(client: presa_client::Client) -> Result<(), presa_client::ClientError> {
/// use std::time::Duration;
/// use presa_client::ResultText;
///
/// let result = client
///     .call_tool("index", serde_json::json!({"path": "/src"}))
///     .timeout(Duration::from_secs(120))
///     .on_progress(|p| eprintln!("indexed {} of {:?}", p.progress, p.total))
///     .await?;
/// println!("{}", result.text());
/// # Ok(()) }
/// ```
#[must_use = "a call does nothing unless awaited"]
pub struct CallBuilder<T> {
    client: Client,
    options: CallOptions,
    run: Run<T>,
}

impl<T> fmt::Debug for CallBuilder<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CallBuilder")
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

impl<T> CallBuilder<T> {
    pub(crate) fn new(
        client: &Client,
        run: impl FnOnce(Client, CallOptions) -> CallFuture<T> + Send + 'static,
    ) -> Self {
        Self {
            client: client.clone(),
            options: CallOptions::default(),
            run: Box::new(run),
        }
    }

    /// Replaces all options of this call.
    pub fn options(mut self, options: CallOptions) -> Self {
        self.options = options;
        self
    }

    /// See [`CallOptions::timeout`].
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.options = self.options.timeout(timeout);
        self
    }

    /// Calls `callback` with each progress notification of this call; an `Fn` shared by every
    /// round or page (see [`CallOptions::on_progress`]).
    pub fn on_progress(
        mut self,
        callback: impl Fn(ProgressNotificationParams) + Send + Sync + 'static,
    ) -> Self {
        self.options = self.options.on_progress(callback);
        self
    }

    /// See [`CallOptions::reset_timeout_on_progress`].
    pub fn reset_timeout_on_progress(mut self, reset: bool) -> Self {
        self.options = self.options.reset_timeout_on_progress(reset);
        self
    }

    /// See [`CallOptions::max_total_timeout`].
    pub fn max_total_timeout(mut self, limit: Duration) -> Self {
        self.options = self.options.max_total_timeout(limit);
        self
    }

    /// See [`CallOptions::log_level`].
    pub fn log_level(mut self, level: LoggingLevel) -> Self {
        self.options = self.options.log_level(level);
        self
    }

    /// See [`CallOptions::use_cache`].
    pub fn use_cache(mut self, use_cache: bool) -> Self {
        self.options = self.options.use_cache(use_cache);
        self
    }
}

impl<T: Send + 'static> IntoFuture for CallBuilder<T> {
    type Output = Result<T, ClientError>;
    type IntoFuture = CallFuture<T>;

    fn into_future(self) -> Self::IntoFuture {
        (self.run)(self.client, self.options)
    }
}
