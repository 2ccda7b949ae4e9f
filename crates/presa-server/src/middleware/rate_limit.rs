//! A rate limit per caller and tool: a token bucket for each pair.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use presa_core::{ErrorCode, ErrorObject};
use tokio::time::Instant;

use super::{McpRequest, McpResponse, Middleware, Next};
use crate::BoxFuture;

type KeyFn = Arc<dyn Fn(&McpRequest) -> Option<String> + Send + Sync>;

/// Limits how often each caller may call each tool: every (caller, tool) pair has a bucket of
/// `calls` tokens that refills evenly over `per`, and each `tools/call` takes one. A call that
/// finds its bucket empty is refused with a JSON-RPC error, code `-32000`, whose data says
/// `"error": "rate_limited"` and how long to wait (`retryAfterMs`); the handler does not run.
/// Other methods pass.
///
/// The caller is the verified identity's subject (else its client id). Callers without one
/// share one bucket per tool, unless [`caller`](Self::caller) names them otherwise (by an HTTP
/// header, a session). The tool is the definition the call names, so made-up names cannot
/// grow the table; it holds at most [`max_buckets`](Self::max_buckets) pairs (10,000 by
/// default), dropping the fullest bucket (the one idle longest) past that.
///
/// ```
/// use std::time::Duration;
/// use presa_server::{RateLimit, Server};
///
/// // 10 calls a minute per caller and tool, in bursts of up to 10
/// let server = Server::builder("limited", "1.0.0")
///     .middleware(RateLimit::new(10, Duration::from_secs(60)))
///     .build()
///     .unwrap();
/// # let _ = server;
/// ```
#[derive(Clone)]
pub struct RateLimit {
    inner: Arc<Inner>,
}

struct Inner {
    capacity: f64,
    /// Tokens per second.
    rate: f64,
    max_buckets: usize,
    caller: Option<KeyFn>,
    buckets: Mutex<HashMap<(String, String), Bucket>>,
}

#[derive(Clone, Copy, Debug)]
struct Bucket {
    tokens: f64,
    at: Instant,
}

impl fmt::Debug for RateLimit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RateLimit")
            .field("capacity", &self.inner.capacity)
            .field("per_second", &self.inner.rate)
            .field("max_buckets", &self.inner.max_buckets)
            .finish_non_exhaustive()
    }
}

impl RateLimit {
    /// The code of the error a refused call gets: `-32000`, the first of the codes JSON-RPC
    /// leaves to servers (no MCP revision names one for rate limits).
    pub const ERROR_CODE: ErrorCode = ErrorCode(-32000);

    /// `calls` calls per `per` for each caller and tool, in bursts of up to `calls` (at least
    /// one call; a zero `per` counts as one millisecond).
    pub fn new(calls: u32, per: Duration) -> Self {
        let capacity = f64::from(calls.max(1));
        let per = per.max(Duration::from_millis(1)).as_secs_f64();
        Self {
            inner: Arc::new(Inner {
                capacity,
                rate: capacity / per,
                max_buckets: 10_000,
                caller: None,
                buckets: Mutex::new(HashMap::new()),
            }),
        }
    }

    fn with(self, edit: impl FnOnce(&mut Inner)) -> Self {
        let mut inner = Arc::try_unwrap(self.inner).unwrap_or_else(|shared| Inner {
            capacity: shared.capacity,
            rate: shared.rate,
            max_buckets: shared.max_buckets,
            caller: shared.caller.clone(),
            buckets: Mutex::new(HashMap::new()),
        });
        edit(&mut inner);
        Self {
            inner: Arc::new(inner),
        }
    }

    /// Who the caller is, for requests `key` names; for the others the verified identity (or
    /// the shared anonymous bucket) counts.
    ///
    /// ```
    /// use std::time::Duration;
    /// use presa_server::{McpRequest, RateLimit};
    ///
    /// // anonymous HTTP callers by the address a proxy in front reports
    /// let limit = RateLimit::new(5, Duration::from_secs(1)).caller(|request: &McpRequest| {
    ///     let http = request.context().http()?;
    ///     Some(http.headers().get("x-forwarded-for")?.to_str().ok()?.to_owned())
    /// });
    /// # let _ = limit;
    /// ```
    #[must_use]
    pub fn caller(
        self,
        key: impl Fn(&McpRequest) -> Option<String> + Send + Sync + 'static,
    ) -> Self {
        self.with(|inner| inner.caller = Some(Arc::new(key)))
    }

    /// How many (caller, tool) buckets are kept at most (at least 1).
    #[must_use]
    pub fn max_buckets(self, max: usize) -> Self {
        self.with(|inner| inner.max_buckets = max.max(1))
    }

    fn caller_of(&self, request: &McpRequest) -> String {
        let named = self.inner.caller.as_ref().and_then(|key| key(request));
        named
            .or_else(|| {
                let auth = request.caller()?;
                auth.subject().or(auth.client_id()).map(str::to_owned)
            })
            .unwrap_or_default()
    }

    fn buckets(&self) -> MutexGuard<'_, HashMap<(String, String), Bucket>> {
        self.inner
            .buckets
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Takes a token for `key` at `now`; `Err` with the wait until one is there.
    fn take(&self, key: (String, String), now: Instant) -> Result<(), Duration> {
        let inner = &self.inner;
        let mut buckets = self.buckets();
        if !buckets.contains_key(&key) && buckets.len() >= inner.max_buckets {
            // the fullest bucket has been idle longest: forgetting it costs its owner nothing
            let fullest = buckets
                .iter()
                .map(|(key, bucket)| (key, refilled(inner, *bucket, now)))
                .max_by(|a, b| a.1.total_cmp(&b.1))
                .map(|(key, _)| key.clone());
            if let Some(fullest) = fullest {
                buckets.remove(&fullest);
            }
        }
        let bucket = buckets.entry(key).or_insert(Bucket {
            tokens: inner.capacity,
            at: now,
        });
        let tokens = refilled(inner, *bucket, now);
        if tokens >= 1.0 {
            *bucket = Bucket {
                tokens: tokens - 1.0,
                at: now,
            };
            return Ok(());
        }
        *bucket = Bucket { tokens, at: now };
        Err(Duration::from_secs_f64((1.0 - tokens) / inner.rate))
    }
}

/// A bucket's tokens at `now`.
fn refilled(inner: &Inner, bucket: Bucket, now: Instant) -> f64 {
    let elapsed = now.saturating_duration_since(bucket.at).as_secs_f64();
    (bucket.tokens + elapsed * inner.rate).min(inner.capacity)
}

impl Middleware for RateLimit {
    fn call(&self, request: McpRequest, next: Next) -> BoxFuture<'static, McpResponse> {
        let tool = match request.target() {
            Some(target) if request.method() == "tools/call" => target.name().to_owned(),
            // other methods, and unknown tools (whose call fails anyway), pass
            _ => return Box::pin(next.run(request)),
        };
        let caller = self.caller_of(&request);
        match self.take((caller, tool.clone()), Instant::now()) {
            Ok(()) => Box::pin(next.run(request)),
            Err(wait) => {
                // whole milliseconds, rounded up: waiting that long is enough
                let retry_after_ms = wait.as_nanos().div_ceil(1_000_000);
                let error = ErrorObject::new(
                    Self::ERROR_CODE,
                    format!("Rate limit exceeded for tool {tool:?}: retry in {retry_after_ms} ms"),
                )
                .with_data(serde_json::json!({
                    "error": "rate_limited",
                    "retryAfterMs": retry_after_ms,
                }));
                Box::pin(async move { McpResponse::error(error) })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn key(caller: &str, tool: &str) -> (String, String) {
        (caller.to_owned(), tool.to_owned())
    }

    #[test]
    fn a_bucket_refills_evenly_and_says_how_long_to_wait() {
        let limit = RateLimit::new(2, Duration::from_secs(1));
        let start = Instant::now();
        assert!(limit.take(key("a", "t"), start).is_ok());
        assert!(limit.take(key("a", "t"), start).is_ok());
        let wait = limit.take(key("a", "t"), start).unwrap_err();
        assert_eq!(wait, Duration::from_millis(500));
        // other callers and other tools have buckets of their own
        assert!(limit.take(key("b", "t"), start).is_ok());
        assert!(limit.take(key("a", "u"), start).is_ok());
        let later = start + Duration::from_millis(250);
        assert_eq!(
            limit.take(key("a", "t"), later).unwrap_err(),
            Duration::from_millis(250)
        );
        assert!(
            limit
                .take(key("a", "t"), start + Duration::from_millis(500))
                .is_ok()
        );
    }

    #[test]
    fn the_table_stays_within_its_bound() {
        let limit = RateLimit::new(1, Duration::from_secs(60)).max_buckets(2);
        let now = Instant::now();
        for caller in ["a", "b", "c", "d"] {
            assert!(limit.take(key(caller, "t"), now).is_ok());
        }
        assert_eq!(limit.buckets().len(), 2);
    }
}
