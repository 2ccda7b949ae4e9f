//! The initialize-era sessions this process holds the live parts of, and the admission of new
//! ones under the session limits: when the total is reached, the least recently used quiet
//! session makes room, so that a flood of sessions pushes out its own and not everyone else's.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, MutexGuard};

use tokio::time::Instant;

use super::session::{HttpSession, lock};

/// The sessions this process holds the live parts of (streams, handlers in flight), by id,
/// with how many each caller holds and how many are being started: what the session limits
/// are checked against.
#[derive(Debug, Default)]
pub(crate) struct LiveSessions {
    inner: Mutex<Live>,
}

#[derive(Debug, Default)]
struct Live {
    sessions: HashMap<Arc<str>, Kept>,
    /// Sessions admitted and still starting (their `initialize` is being served).
    starting: usize,
    /// The sessions kept and starting of each authenticated caller.
    by_owner: HashMap<String, usize>,
    /// The kept sessions by when they were last used, least recently first: where a full
    /// endpoint looks for a session to end.
    recency: BTreeMap<Used, Arc<str>>,
    /// Tells apart sessions used at one instant.
    uses: u64,
}

/// A kept session, and its place in [`Live::recency`].
#[derive(Debug)]
struct Kept {
    session: Arc<HttpSession>,
    used: Used,
}

/// When a session was last used, and the count of uses then (unique, so that each session has
/// its own place in the order).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Used(Instant, u64);

/// The most sessions one admission looks at, least recently used first, for a quiet one
/// before it refuses.
const MAX_EVICTION_SCAN: usize = 1024;

impl Live {
    fn count(&mut self, owner: Option<&str>, up: bool) {
        let Some(owner) = owner else { return };
        if up {
            *self.by_owner.entry(owner.to_owned()).or_default() += 1;
        } else if let Some(count) = self.by_owner.get_mut(owner) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                self.by_owner.remove(owner);
            }
        }
    }

    fn used_now(&mut self) -> Used {
        self.uses += 1;
        Used(Instant::now(), self.uses)
    }

    fn take(&mut self, id: &str) -> Option<Arc<HttpSession>> {
        let removed = self.sessions.remove(id)?;
        self.recency.remove(&removed.used);
        self.count(removed.session.owner(), false);
        Some(removed.session)
    }

    /// Takes out the least recently used quiet session, if one is among the
    /// [`MAX_EVICTION_SCAN`] least recently used.
    fn evict_one(&mut self) -> Option<Arc<HttpSession>> {
        let quiet = self
            .recency
            .values()
            .take(MAX_EVICTION_SCAN)
            .find(|id| {
                self.sessions
                    .get(*id)
                    .is_some_and(|kept| kept.session.is_quiet())
            })
            .cloned()?;
        self.take(&quiet)
    }
}

/// Why a new session was not admitted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SessionsFull {
    /// This process holds as many sessions as it may, and every one is busy (a stream open or
    /// a request in flight).
    Total(usize),
    /// The caller holds as many as one caller may.
    Caller(usize),
}

/// A place for one new session, held while its `initialize` is served; dropped, it is freed
/// (the session, once kept, counts for itself).
pub(crate) struct Admission {
    live: Arc<LiveSessions>,
    owner: Option<String>,
    /// The session ended to make room, for the caller to close and forget.
    pub(crate) evicted: Option<Arc<HttpSession>>,
}

impl Drop for Admission {
    fn drop(&mut self) {
        let mut live = self.live.map();
        live.starting = live.starting.saturating_sub(1);
        live.count(self.owner.as_deref(), false);
    }
}

impl LiveSessions {
    fn map(&self) -> MutexGuard<'_, Live> {
        lock(&self.inner)
    }

    /// A place for a new session of `owner`, unless that would pass `max_per_caller` sessions
    /// of one authenticated caller, or `max_total` sessions in this process while none is
    /// quiet: at the total, the least recently used quiet session is taken out to make room
    /// (see [`Admission::evicted`]).
    pub(crate) fn admit(
        self: &Arc<Self>,
        owner: Option<&str>,
        max_total: usize,
        max_per_caller: usize,
    ) -> Result<Admission, SessionsFull> {
        let mut live = self.map();
        if let Some(owner) = owner
            && live.by_owner.get(owner).copied().unwrap_or(0) >= max_per_caller
        {
            return Err(SessionsFull::Caller(max_per_caller));
        }
        let mut evicted = None;
        if live.sessions.len() + live.starting >= max_total {
            // sessions still starting are not the table's to give up
            evicted = Some(live.evict_one().ok_or(SessionsFull::Total(max_total))?);
        }
        live.starting += 1;
        live.count(owner, true);
        Ok(Admission {
            live: Arc::clone(self),
            owner: owner.map(str::to_owned),
            evicted,
        })
    }

    pub(crate) fn get(&self, id: &str) -> Option<Arc<HttpSession>> {
        self.map()
            .sessions
            .get(id)
            .map(|kept| Arc::clone(&kept.session))
    }

    /// Marks `session` used now: its place among the sessions a full endpoint may end moves
    /// to the end, and its idle timeout starts again.
    pub(crate) fn touch(&self, session: &HttpSession) {
        session.touch();
        let mut live = self.map();
        let used = live.used_now();
        if let Some(kept) = live.sessions.get_mut(session.id()) {
            let before = std::mem::replace(&mut kept.used, used);
            let id = Arc::clone(session.shared_id());
            live.recency.remove(&before);
            live.recency.insert(used, id);
        }
    }

    /// Keeps `session`, unless an open one of its id is kept already: the session kept is
    /// returned.
    pub(crate) fn insert(&self, session: Arc<HttpSession>) -> Arc<HttpSession> {
        let mut live = self.map();
        if let Some(kept) = live.sessions.get(session.id())
            && kept.session.is_open()
        {
            return Arc::clone(&kept.session);
        }
        live.take(session.id());
        live.count(session.owner(), true);
        let id = Arc::clone(session.shared_id());
        let used = live.used_now();
        live.recency.insert(used, Arc::clone(&id));
        live.sessions.insert(
            id,
            Kept {
                session: Arc::clone(&session),
                used,
            },
        );
        session
    }

    /// Forgets `session` if it is the one kept under its id.
    pub(crate) fn remove_this(&self, session: &Arc<HttpSession>) {
        let mut live = self.map();
        if live
            .sessions
            .get(session.id())
            .is_some_and(|kept| Arc::ptr_eq(&kept.session, session))
        {
            live.take(session.id());
        }
    }

    pub(crate) fn remove(&self, id: &str) -> Option<Arc<HttpSession>> {
        self.map().take(id)
    }

    pub(crate) fn all(&self) -> Vec<Arc<HttpSession>> {
        self.map()
            .sessions
            .values()
            .map(|kept| Arc::clone(&kept.session))
            .collect()
    }
}
