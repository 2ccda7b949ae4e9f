//! Requests this side sent and waits on: ids, the pending table, progress tokens and deadlines.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::{ProgressToken, RequestId};

/// Per-request options for a request this side sends.
///
/// ```
/// use std::time::Duration;
/// use presa_core::RequestOptions;
///
/// let options = RequestOptions::default()
///     .timeout(Some(Duration::from_secs(5)))
///     .progress(true)
///     .reset_timeout_on_progress(true);
/// assert_eq!(options.get_timeout(), Some(Duration::from_secs(5)));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct RequestOptions {
    timeout: Option<Duration>,
    max_total_timeout: Option<Duration>,
    progress: bool,
    reset_timeout_on_progress: bool,
    no_timeout: bool,
}

impl Default for RequestOptions {
    /// No timeout of its own (the session's default applies), no progress token.
    fn default() -> Self {
        Self {
            timeout: None,
            max_total_timeout: None,
            progress: false,
            reset_timeout_on_progress: false,
            no_timeout: false,
        }
    }
}

impl RequestOptions {
    /// How long to wait for the response; `None` uses the session's default request timeout.
    /// Undoes [`without_timeout`](Self::without_timeout).
    pub fn timeout(mut self, timeout: Option<Duration>) -> Self {
        self.timeout = timeout;
        self.no_timeout = false;
        self
    }

    /// Waits for the response however long it takes, whatever the session's default timeout:
    /// for long-lived requests such as `subscriptions/listen`, which end when either side ends
    /// them.
    pub fn without_timeout(mut self) -> Self {
        self.timeout = None;
        self.no_timeout = true;
        self
    }

    /// The hard limit when progress resets the timeout (default: ten times the timeout).
    pub fn max_total_timeout(mut self, limit: Option<Duration>) -> Self {
        self.max_total_timeout = limit;
        self
    }

    /// Whether to ask the peer for progress notifications (adds `_meta.progressToken`).
    pub fn progress(mut self, progress: bool) -> Self {
        self.progress = progress;
        self
    }

    /// Whether each progress notification restarts the timeout (up to the total limit).
    pub fn reset_timeout_on_progress(mut self, reset: bool) -> Self {
        self.reset_timeout_on_progress = reset;
        self
    }

    /// The timeout set on these options, if any.
    pub fn get_timeout(&self) -> Option<Duration> {
        self.timeout
    }

    /// Whether the request waits without a timeout ([`without_timeout`](Self::without_timeout)).
    pub fn is_without_timeout(&self) -> bool {
        self.no_timeout
    }

    /// Whether a progress token will be attached.
    pub fn wants_progress(&self) -> bool {
        self.progress
    }
}

/// One request waiting for its response.
#[derive(Debug)]
pub(crate) struct Pending {
    pub(crate) method: String,
    pub(crate) progress_token: Option<ProgressToken>,
    timeout: Option<Duration>,
    deadline: Option<Instant>,
    hard_deadline: Option<Instant>,
    reset_on_progress: bool,
}

/// The table of requests in flight from this side, with id allocation and deadlines.
#[derive(Debug, Default)]
pub(crate) struct Outbound {
    next_id: i64,
    /// What every id starts with, when set: ids are then strings, `<prefix><n>`.
    id_prefix: Option<Arc<str>>,
    /// Made for the first request: a server session that never asks its client anything (most
    /// idle sessions) holds a pointer, not three empty tables.
    tables: Option<Box<Tables>>,
}

#[derive(Debug, Default)]
struct Tables {
    pending: HashMap<RequestId, Pending>,
    by_token: HashMap<ProgressToken, RequestId>,
    /// Deadlines, earliest first; entries whose request finished or whose deadline moved are
    /// skipped when they surface.
    deadlines: BinaryHeap<Reverse<(Instant, RequestId)>>,
}

impl Outbound {
    /// Frees the tables' memory when nothing waits for a response.
    pub(crate) fn shrink_to_fit(&mut self) {
        if self.len() == 0 {
            self.tables = None;
        }
    }

    /// A fresh id, never equal to one this table handed out before.
    pub(crate) fn allocate_id(&mut self) -> RequestId {
        let n = self.next_id;
        self.next_id += 1;
        match &self.id_prefix {
            Some(prefix) => RequestId::String(format!("{prefix}{n}")),
            None => RequestId::Number(n),
        }
    }

    /// Makes every id allocated from now on a string starting with `prefix`.
    pub(crate) fn set_id_prefix(&mut self, prefix: Arc<str>) {
        self.id_prefix = Some(prefix);
    }

    /// Records a sent request; returns the progress token to attach, if one was asked for.
    pub(crate) fn insert(
        &mut self,
        now: Instant,
        id: RequestId,
        method: &str,
        options: &RequestOptions,
        default_timeout: Option<Duration>,
    ) -> Option<ProgressToken> {
        let timeout = if options.no_timeout {
            None
        } else {
            options.timeout.or(default_timeout)
        };
        // a deadline past what Instant can represent means no deadline
        let deadline = timeout.and_then(|t| now.checked_add(t));
        let hard_deadline = match (options.reset_timeout_on_progress, timeout) {
            (true, Some(t)) => options
                .max_total_timeout
                .or_else(|| t.checked_mul(10))
                .and_then(|limit| now.checked_add(limit)),
            _ => deadline,
        };
        let progress_token = options.progress.then(|| ProgressToken::from(id.clone()));
        let tables = self.tables.get_or_insert_default();
        if let Some(token) = &progress_token {
            tables.by_token.insert(token.clone(), id.clone());
        }
        if let Some(deadline) = deadline {
            tables.deadlines.push(Reverse((deadline, id.clone())));
        }
        tables.pending.insert(
            id,
            Pending {
                method: method.to_owned(),
                progress_token: progress_token.clone(),
                timeout,
                deadline,
                hard_deadline,
                reset_on_progress: options.reset_timeout_on_progress,
            },
        );
        progress_token
    }

    /// The number of requests waiting.
    pub(crate) fn len(&self) -> usize {
        self.tables
            .as_ref()
            .map_or(0, |tables| tables.pending.len())
    }

    pub(crate) fn contains(&self, id: &RequestId) -> bool {
        self.tables
            .as_ref()
            .is_some_and(|tables| tables.pending.contains_key(id))
    }

    /// Removes a request (answered or cancelled).
    pub(crate) fn remove(&mut self, id: &RequestId) -> Option<Pending> {
        self.tables.as_mut()?.remove(id)
    }

    /// The request a progress token belongs to; restarts its timeout when it asked for that.
    pub(crate) fn progress(&mut self, now: Instant, token: &ProgressToken) -> Option<&RequestId> {
        let tables = self.tables.as_mut()?;
        let id = tables.by_token.get(token)?;
        let pending = tables.pending.get_mut(id)?;
        if let (true, Some(timeout)) = (pending.reset_on_progress, pending.timeout)
            && let Some(mut deadline) = now.checked_add(timeout)
        {
            if let Some(hard) = pending.hard_deadline {
                deadline = deadline.min(hard);
            }
            // a deadline only moves later (`now` grows; the hard deadline bounded the old one
            // too): the request's one heap entry, earlier, is moved when it surfaces, so a
            // flood of progress adds nothing to the heap
            pending.deadline = Some(deadline);
        }
        Some(id)
    }

    /// The earliest deadline of a waiting request.
    pub(crate) fn next_deadline(&mut self) -> Option<Instant> {
        self.tables.as_mut()?.next_deadline()
    }

    /// Removes and returns every request whose deadline is at or before `now`.
    pub(crate) fn expire(&mut self, now: Instant) -> Vec<(RequestId, Pending)> {
        let Some(tables) = self.tables.as_mut() else {
            return Vec::new();
        };
        let mut expired = Vec::new();
        while let Some(deadline) = tables.next_deadline() {
            if deadline > now {
                break;
            }
            if let Some(Reverse((_, id))) = tables.deadlines.pop()
                && let Some(pending) = tables.remove(&id)
            {
                expired.push((id, pending));
            }
        }
        expired
    }

    /// Removes every waiting request (the session closed).
    pub(crate) fn drain(&mut self) -> Vec<(RequestId, Pending)> {
        match self.tables.as_mut() {
            Some(tables) => {
                tables.by_token.clear();
                tables.deadlines.clear();
                tables.pending.drain().collect()
            }
            None => Vec::new(),
        }
    }
}

impl Tables {
    fn remove(&mut self, id: &RequestId) -> Option<Pending> {
        let pending = self.pending.remove(id)?;
        if let Some(token) = &pending.progress_token {
            self.by_token.remove(token);
        }
        Some(pending)
    }

    fn next_deadline(&mut self) -> Option<Instant> {
        while let Some(Reverse((deadline, id))) = self.deadlines.peek() {
            match self.pending.get(id).and_then(|p| p.deadline) {
                Some(current) if current == *deadline => return Some(current),
                Some(later) => {
                    let id = id.clone();
                    self.deadlines.pop();
                    self.deadlines.push(Reverse((later, id)));
                }
                None => {
                    self.deadlines.pop();
                }
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn ids_are_fresh_and_deadlines_expire_in_order() {
        let t0 = Instant::now();
        let mut out = Outbound::default();
        let a = out.allocate_id();
        let b = out.allocate_id();
        assert_ne!(a, b);
        let mut prefixed = Outbound::default();
        prefixed.set_id_prefix(Arc::from("b7:"));
        assert_eq!(prefixed.allocate_id(), RequestId::String("b7:0".into()));
        assert_eq!(prefixed.allocate_id(), RequestId::String("b7:1".into()));
        out.insert(
            t0,
            a.clone(),
            "a",
            &RequestOptions::default().timeout(Some(Duration::from_secs(2))),
            None,
        );
        out.insert(
            t0,
            b.clone(),
            "b",
            &RequestOptions::default(),
            Some(Duration::from_secs(1)),
        );
        assert_eq!(out.next_deadline(), Some(t0 + Duration::from_secs(1)));
        let expired = out.expire(t0 + Duration::from_millis(1500));
        assert_eq!(expired.len(), 1);
        assert_eq!(expired[0].0, b);
        assert_eq!(out.next_deadline(), Some(t0 + Duration::from_secs(2)));
        assert!(out.remove(&a).is_some());
        assert_eq!(out.next_deadline(), None);
    }

    #[test]
    fn the_tables_are_made_for_the_first_request_and_freed_when_none_waits() {
        let mut out = Outbound::default();
        out.shrink_to_fit();
        assert!(out.tables.is_none());
        assert!(out.expire(Instant::now()).is_empty());
        let id = out.allocate_id();
        out.insert(
            Instant::now(),
            id.clone(),
            "m",
            &RequestOptions::default(),
            None,
        );
        out.shrink_to_fit();
        assert!(out.contains(&id), "kept while a response is awaited");
        assert!(out.remove(&id).is_some());
        out.shrink_to_fit();
        assert!(out.tables.is_none());
        assert_eq!(out.len(), 0);
        assert!(out.drain().is_empty());
    }

    #[test]
    fn without_timeout_overrides_the_session_default() {
        let t0 = Instant::now();
        let mut out = Outbound::default();
        let id = out.allocate_id();
        let forever = RequestOptions::default()
            .progress(true)
            .reset_timeout_on_progress(true)
            .without_timeout();
        assert!(forever.is_without_timeout());
        let token = out
            .insert(t0, id.clone(), "m", &forever, Some(Duration::from_secs(1)))
            .unwrap();
        assert_eq!(out.next_deadline(), None);
        assert_eq!(
            out.progress(t0, &token),
            Some(&id),
            "progress sets no deadline"
        );
        assert_eq!(out.next_deadline(), None);
        assert!(out.expire(t0 + Duration::from_secs(3600)).is_empty());
        // a timeout set afterwards wins again
        let bounded = forever.timeout(Some(Duration::from_secs(2)));
        assert!(!bounded.is_without_timeout());
        let other = out.allocate_id();
        out.insert(t0, other, "m", &bounded, Some(Duration::from_secs(1)));
        assert_eq!(out.next_deadline(), Some(t0 + Duration::from_secs(2)));
    }

    #[test]
    fn a_flood_of_progress_keeps_one_deadline_per_request() {
        let t0 = Instant::now();
        let s = Duration::from_secs(1);
        let mut out = Outbound::default();
        // an earlier deadline that stays on top of the heap meanwhile
        let early = out.allocate_id();
        out.insert(
            t0,
            early,
            "e",
            &RequestOptions::default().timeout(Some(s)),
            None,
        );
        let id = out.allocate_id();
        let options = RequestOptions::default()
            .timeout(Some(10 * s))
            .progress(true)
            .reset_timeout_on_progress(true);
        let token = out.insert(t0, id.clone(), "m", &options, None).unwrap();
        for step in 0..10_000u32 {
            let now = t0 + Duration::from_millis(u64::from(step) / 100);
            assert_eq!(out.progress(now, &token), Some(&id));
            assert!(out.next_deadline().is_some());
        }
        assert_eq!(out.tables.as_ref().unwrap().deadlines.len(), 2);
        // the moved deadline is the one kept: the request expires at its last progress + 10 s
        let expired = out.expire(t0 + 2 * s);
        assert_eq!(expired.len(), 1, "only the early request");
        let last = t0 + Duration::from_millis(99) + 10 * s;
        assert_eq!(out.next_deadline(), Some(last));
        assert!(out.expire(last - Duration::from_millis(1)).is_empty());
        assert_eq!(out.expire(last).len(), 1);
    }

    #[test]
    fn progress_restarts_the_timeout_up_to_the_hard_limit() {
        let t0 = Instant::now();
        let s = Duration::from_secs(1);
        let mut out = Outbound::default();
        let id = out.allocate_id();
        let options = RequestOptions::default()
            .timeout(Some(s))
            .progress(true)
            .reset_timeout_on_progress(true)
            .max_total_timeout(Some(3 * s));
        let token = out.insert(t0, id.clone(), "m", &options, None).unwrap();
        assert_eq!(out.progress(t0 + s / 2, &token), Some(&id));
        assert_eq!(out.next_deadline(), Some(t0 + s / 2 + s));
        out.progress(t0 + 2 * s + s / 2, &token);
        assert_eq!(
            out.next_deadline(),
            Some(t0 + 3 * s),
            "capped by the hard limit"
        );
        assert!(out.expire(t0 + 3 * s).len() == 1);
        assert_eq!(
            out.progress(t0 + 3 * s, &token),
            None,
            "token forgotten once the request ends"
        );
    }
}
