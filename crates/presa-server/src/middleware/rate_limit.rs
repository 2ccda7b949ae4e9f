//! A rate limit per caller and tool: a token bucket for each pair, one token per call however
//! many rounds it takes.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use presa_core::{ErrorCode, ErrorObject};
use tokio::time::Instant;

use super::{CallInfo, McpRequest, McpResponse, Middleware, Next};
use crate::BoxFuture;

/// Limits how often each caller may call each tool: every (caller, tool) pair has a bucket of
/// `calls` tokens that refills evenly over `per`, and each call takes one. A call that finds
/// its bucket empty is refused with a JSON-RPC error, code `-32000`, whose data says
/// `"error": "rate_limited"` and how long to wait (`retryAfterMs`); the handler does not run.
/// Other methods pass.
///
/// A call costs one token however many rounds it takes, in both eras: on 2026-07-28 a call
/// that asks the client for input is made again with the answers (see
/// [`CallInfo`](super::CallInfo)), and the round that follows one this limit let through and
/// saw answered `input_required` is free. Any other request costs a token, a round sent twice
/// included, so a sealed state replayed cannot run a handler for nothing. (The limit keeps what
/// it saw in this process, as it does its buckets: a round served by another instance of a
/// scaled-out server costs a token there. It remembers at most
/// [`max_buckets`](Self::max_buckets) calls awaiting their next round, forgetting the oldest.)
///
/// The caller is [`McpRequest::caller_key`]: the server's
/// [`caller_key`](crate::ServerBuilder::caller_key) resolver (an HTTP header, a session), else
/// the verified identity's subject, else its client id. Callers without one share one bucket
/// per tool. The tool is the definition the call names, so made-up names cannot grow the table;
/// it holds at most [`max_buckets`](Self::max_buckets) pairs (10,000 by default), dropping the
/// fullest bucket (the one idle longest) past that.
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
    buckets: Mutex<HashMap<(String, String), Bucket>>,
    /// The calls answered `input_required`, by id: the round answered, and when.
    awaiting: Mutex<HashMap<Arc<str>, (u32, Instant)>>,
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
                buckets: Mutex::new(HashMap::new()),
                awaiting: Mutex::new(HashMap::new()),
            }),
        }
    }

    fn with(self, edit: impl FnOnce(&mut Inner)) -> Self {
        let mut inner = Arc::try_unwrap(self.inner).unwrap_or_else(|shared| Inner {
            capacity: shared.capacity,
            rate: shared.rate,
            max_buckets: shared.max_buckets,
            buckets: Mutex::new(HashMap::new()),
            awaiting: Mutex::new(HashMap::new()),
        });
        edit(&mut inner);
        Self {
            inner: Arc::new(inner),
        }
    }

    /// How many (caller, tool) buckets are kept at most (at least 1).
    #[must_use]
    pub fn max_buckets(self, max: usize) -> Self {
        self.with(|inner| inner.max_buckets = max.max(1))
    }

    fn buckets(&self) -> MutexGuard<'_, HashMap<(String, String), Bucket>> {
        lock(&self.inner.buckets)
    }

    fn awaiting(&self) -> MutexGuard<'_, HashMap<Arc<str>, (u32, Instant)>> {
        lock(&self.inner.awaiting)
    }

    /// Whether `call` is the next round of a call this limit saw answered `input_required`
    /// (which it then no longer awaits: the same round again is not free).
    fn continues(&self, call: &CallInfo) -> bool {
        let mut awaiting = self.awaiting();
        match awaiting.get(call.id()) {
            Some(&(round, _)) if round.checked_add(1) == Some(call.round()) => {
                awaiting.remove(call.id());
                true
            }
            _ => false,
        }
    }

    /// Remembers that `call` was answered `input_required` at `now`: its next round is free.
    fn await_next_round(&self, call: &CallInfo, now: Instant) {
        let mut awaiting = self.awaiting();
        if !awaiting.contains_key(call.id()) && awaiting.len() >= self.inner.max_buckets {
            let oldest = awaiting
                .iter()
                .min_by_key(|(_, (_, at))| *at)
                .map(|(id, _)| Arc::clone(id));
            if let Some(oldest) = oldest {
                awaiting.remove(&oldest);
            }
        }
        awaiting.insert(Arc::from(call.id()), (call.round(), now));
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

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
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
        let call = request.call().clone();
        let taken = if call.is_continuation() && self.continues(&call) {
            Ok(())
        } else {
            let caller = request.caller_key().unwrap_or_default().to_owned();
            self.take((caller, tool.clone()), Instant::now())
        };
        match taken {
            Ok(()) => {
                let limit = self.clone();
                Box::pin(async move {
                    let response = next.run(request).await;
                    if response.is_input_required() {
                        limit.await_next_round(&call, Instant::now());
                    }
                    response
                })
            }
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
    fn only_the_next_round_of_an_awaited_call_is_free() {
        let limit = RateLimit::new(1, Duration::from_secs(60)).max_buckets(2);
        let first = CallInfo::fresh();
        let state = serde_json::json!({ super::super::call::STATE_MEMBER: first.sealed() });
        let second = CallInfo::continued_from(&state).unwrap();
        assert!(!limit.continues(&second), "a round no answer announced");
        limit.await_next_round(&first, Instant::now());
        assert!(limit.continues(&second));
        assert!(!limit.continues(&second), "the same round again");
        // the calls awaited stay within the bound, the oldest forgotten
        let now = Instant::now();
        let calls: Vec<CallInfo> = (0..3).map(|_| CallInfo::fresh()).collect();
        for (n, call) in calls.iter().enumerate() {
            limit.await_next_round(call, now + Duration::from_millis(n as u64));
        }
        assert_eq!(limit.awaiting().len(), 2);
        assert!(!limit.awaiting().contains_key(calls[0].id()));
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
