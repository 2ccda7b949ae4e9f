//! A rate limit per caller and tool: a token bucket for each pair, one token per call however
//! many rounds it takes.

use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use presa_core::{ErrorCode, ErrorObject};
use tokio::time::Instant;

use super::{CallInfo, McpRequest, McpResponse, Middleware, Next};
use crate::BoxFuture;
use crate::server::Server;

/// Limits how often each caller may call each tool: every (caller, tool) pair has a bucket of
/// `calls` tokens that refills evenly over `per`, and each call takes one. A call that finds
/// its bucket empty is refused with a JSON-RPC error, code `-32000`, whose data says
/// `"error": "rate_limited"` and how long to wait (`retryAfterMs`); the handler does not run.
/// Other methods pass.
///
/// A call costs one token however many rounds it takes, in both eras: on 2026-07-28 a call
/// that asks the client for input is made again with the answers (see
/// [`CallInfo`](crate::CallInfo)), and the round that follows one this limit let through and
/// saw answered `input_required` is free when it answers every input request that round asked
/// for. Any other request costs a token, so a client cannot run a handler for nothing: a round
/// sent twice (a sealed state replayed) costs one, and so does a round that answers nothing
/// and only asks to be asked again. (The limit keeps what it saw in this process, as it does
/// its buckets: a round served by another instance of a scaled-out server costs a token there.
/// It awaits at most [`max_buckets`](Self::max_buckets) calls' next rounds, each while its
/// sealed state can be opened, forgetting the oldest first.)
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
    awaiting: Mutex<Awaiting>,
}

/// The calls this limit let through and saw answered `input_required`: their next round is
/// free. Kept while their sealed state can still be opened, at most `max_buckets` of them,
/// the oldest forgotten first.
#[derive(Default)]
struct Awaiting {
    /// By call id: the round answered, and when.
    rounds: HashMap<Arc<str>, AwaitedRound>,
    /// The ids in the order they came; an entry whose round was taken or replaced since is
    /// stale (the map no longer holds that id from that time) and skipped.
    order: VecDeque<(Arc<str>, Instant)>,
}

#[derive(Clone, Copy)]
struct AwaitedRound {
    round: u32,
    since: Instant,
}

impl Awaiting {
    /// Whether `call` is the next round of a call awaited; it then is no longer awaited (the
    /// same round again is not free).
    fn take_next(&mut self, call: &CallInfo) -> bool {
        match self.rounds.get(call.id()) {
            Some(awaited) if awaited.round.checked_add(1) == Some(call.round()) => {
                self.rounds.remove(call.id());
                true
            }
            _ => false,
        }
    }

    /// Awaits `call`'s next round from `now`, forgetting first the calls awaited longer than
    /// `kept_for` and, past `most`, the oldest.
    fn insert(&mut self, call: &CallInfo, now: Instant, most: usize, kept_for: Duration) {
        while let Some(&(ref id, since)) = self.order.front() {
            let expired = now.saturating_duration_since(since) > kept_for;
            if !expired && self.rounds.len() < most {
                break;
            }
            let live = self.rounds.get(id).is_some_and(|a| a.since == since);
            if live {
                self.rounds.remove(id);
            }
            self.order.pop_front();
        }
        let id: Arc<str> = Arc::from(call.id());
        let awaited = AwaitedRound {
            round: call.round(),
            since: now,
        };
        self.rounds.insert(Arc::clone(&id), awaited);
        self.order.push_back((id, now));
        // rounds taken leave stale entries behind: dropped once they outnumber the live ones
        if self.order.len() > 2 * self.rounds.len() + 16 {
            let rounds = &self.rounds;
            self.order
                .retain(|(id, since)| rounds.get(id).is_some_and(|a| a.since == *since));
        }
    }
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
                awaiting: Mutex::default(),
            }),
        }
    }

    fn with(self, edit: impl FnOnce(&mut Inner)) -> Self {
        let mut inner = Arc::try_unwrap(self.inner).unwrap_or_else(|shared| Inner {
            capacity: shared.capacity,
            rate: shared.rate,
            max_buckets: shared.max_buckets,
            buckets: Mutex::new(HashMap::new()),
            awaiting: Mutex::default(),
        });
        edit(&mut inner);
        Self {
            inner: Arc::new(inner),
        }
    }

    /// How many (caller, tool) buckets are kept at most (at least 1); also how many calls at
    /// most have their next round awaited.
    #[must_use]
    pub fn max_buckets(self, max: usize) -> Self {
        self.with(|inner| inner.max_buckets = max.max(1))
    }

    fn buckets(&self) -> MutexGuard<'_, HashMap<(String, String), Bucket>> {
        lock(&self.inner.buckets)
    }

    fn awaiting(&self) -> MutexGuard<'_, Awaiting> {
        lock(&self.inner.awaiting)
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
        // free: the next round of a call this limit awaits, answering what it was asked
        let taken = if call.is_continuation()
            && request.answers_previous_round()
            && self.awaiting().take_next(&call)
        {
            Ok(())
        } else {
            let caller = request.caller_key().unwrap_or_default().to_owned();
            self.take((caller, tool.clone()), Instant::now())
        };
        match taken {
            Ok(()) => {
                let limit = self.clone();
                // the round's sealed state opens for this long: its next round comes within it
                let kept_for = request.context().server().map_or(
                    crate::server::DEFAULT_REQUEST_STATE_TTL,
                    Server::request_state_ttl,
                );
                Box::pin(async move {
                    let response = next.run(request).await;
                    if response.is_input_required() {
                        let most = limit.inner.max_buckets;
                        limit
                            .awaiting()
                            .insert(&call, Instant::now(), most, kept_for);
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
        let hour = Duration::from_secs(3600);
        let mut awaiting = Awaiting::default();
        let first = CallInfo::fresh();
        let state = serde_json::json!({ crate::call::STATE_MEMBER: first.sealed(&[]) });
        let second = CallInfo::continued_from(&state).unwrap();
        assert!(!awaiting.take_next(&second), "a round no answer announced");
        let now = Instant::now();
        awaiting.insert(&first, now, 2, hour);
        assert!(!awaiting.take_next(&first), "the answered round again");
        assert!(awaiting.take_next(&second));
        assert!(!awaiting.take_next(&second), "the same round again");
        // at most two awaited, the oldest forgotten
        let calls: Vec<CallInfo> = (0..3).map(|_| CallInfo::fresh()).collect();
        for (n, call) in calls.iter().enumerate() {
            awaiting.insert(call, now + Duration::from_millis(n as u64), 2, hour);
        }
        assert_eq!(awaiting.rounds.len(), 2);
        assert!(!awaiting.rounds.contains_key(calls[0].id()));
        // a call awaited past its state's life is forgotten at the next insert
        let late = now + hour + Duration::from_secs(1);
        awaiting.insert(&first, late, 2, hour);
        assert_eq!(awaiting.rounds.len(), 1);
        // taken rounds leave no unbounded queue behind
        for _ in 0..100 {
            let call = CallInfo::fresh();
            awaiting.insert(&call, late, 2, hour);
            let state = serde_json::json!({ crate::call::STATE_MEMBER: call.sealed(&[]) });
            assert!(awaiting.take_next(&CallInfo::continued_from(&state).unwrap()));
        }
        assert!(awaiting.order.len() <= 2 * awaiting.rounds.len() + 17);
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
