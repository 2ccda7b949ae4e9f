//! The initialize-era sessions this process holds the live parts of, and the admission of new
//! ones under the session limits: when the total is reached, the least recently used quiet
//! session makes room, so that a flood of sessions pushes out its own and not everyone else's.

use std::collections::{BTreeMap, HashMap};
use std::ops::Deref;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, MutexGuard};

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
    /// The count of uses so far, the clock of `recency`.
    uses: u64,
}

/// A kept session, and its place in [`Live::recency`].
#[derive(Debug)]
struct Kept {
    session: Arc<HttpSession>,
    used: Used,
}

/// When a session was last used, as the count of uses then: unique and growing, so that each
/// session has its own place in the order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Used(u64);

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
        Used(self.uses)
    }

    /// Moves session `id` to the end of the order, as used now.
    fn reorder(&mut self, id: &str) {
        let used = self.used_now();
        if let Some(kept) = self.sessions.get_mut(id) {
            let before = std::mem::replace(&mut kept.used, used);
            let id = Arc::clone(kept.session.shared_id());
            self.recency.remove(&before);
            self.recency.insert(used, id);
        }
    }

    fn take(&mut self, id: &str) -> Option<Arc<HttpSession>> {
        let removed = self.sessions.remove(id)?;
        self.recency.remove(&removed.used);
        self.count(removed.session.owner(), false);
        Some(removed.session)
    }

    /// Takes out the least recently used quiet session, if one is among the
    /// [`MAX_EVICTION_SCAN`] least recently used. The busy ones looked at move to the end of
    /// the order (they are in use), so that the next look starts past them.
    fn evict_one(&mut self) -> Option<Arc<HttpSession>> {
        let mut busy = Vec::new();
        let mut quiet = None;
        for id in self.recency.values().take(MAX_EVICTION_SCAN) {
            match self.sessions.get(id) {
                Some(kept) if kept.session.is_quiet() => {
                    quiet = Some(Arc::clone(id));
                    break;
                }
                _ => busy.push(Arc::clone(id)),
            }
        }
        for id in busy {
            self.reorder(&id);
        }
        self.take(&quiet?)
    }
}

/// A session a request is using, from when the request finds it until the request is done: it
/// is not ended to make room meanwhile (see [`HttpSession::is_quiet`]).
pub(crate) struct InUse(Arc<HttpSession>);

impl InUse {
    /// Marks `session` in use; called with the sessions' lock held, so that a session found is
    /// never evicted before it is marked.
    fn new(session: Arc<HttpSession>) -> Self {
        session.users().fetch_add(1, Ordering::AcqRel);
        Self(session)
    }
}

impl Deref for InUse {
    type Target = Arc<HttpSession>;

    fn deref(&self) -> &Arc<HttpSession> {
        &self.0
    }
}

impl Drop for InUse {
    fn drop(&mut self) {
        self.0.users().fetch_sub(1, Ordering::AcqRel);
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

    /// Session `id` for a request to use (see [`InUse`]), marked used now: its place among the
    /// sessions a full endpoint may end moves to the end, and its idle timeout starts again.
    pub(crate) fn use_session(&self, id: &str) -> Option<InUse> {
        let mut live = self.map();
        let session = Arc::clone(&live.sessions.get(id)?.session);
        live.reorder(id);
        session.touch();
        Some(InUse::new(session))
    }

    /// Keeps `session`, unless an open one of its id is kept already: the session kept is
    /// returned, in use.
    pub(crate) fn insert(&self, session: Arc<HttpSession>) -> InUse {
        let mut live = self.map();
        if let Some(kept) = live.sessions.get(session.id())
            && kept.session.is_open()
        {
            return InUse::new(Arc::clone(&kept.session));
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
        InUse::new(session)
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::server::session::EventBuffer;

    fn session(id: &str) -> Arc<HttpSession> {
        let server = presa_server::Server::builder("live", "1").build().unwrap();
        let limits = EventBuffer {
            events: 16,
            bytes: 1 << 16,
        };
        HttpSession::start(Arc::from(id), server, limits, None, None)
    }

    /// Keeps `session` through an admission, as an `initialize` does.
    fn keep(live: &Arc<LiveSessions>, id: &str) -> InUse {
        let admission = live.admit(None, 2, 2).unwrap();
        assert!(admission.evicted.is_none());
        live.insert(session(id))
    }

    #[tokio::test]
    async fn a_session_in_use_is_not_evicted_and_the_least_recently_used_quiet_one_is() {
        let live = Arc::new(LiveSessions::default());
        drop(keep(&live, "a"));
        drop(keep(&live, "b"));
        // "a" is used again, and is still in use: "b" is the one that goes
        let a = live.use_session("a").unwrap();
        let admission = live.admit(None, 2, 2).unwrap();
        assert_eq!(admission.evicted.as_ref().map(|s| s.id()), Some("b"));
        drop(admission);
        // only "a" is left, in use: the table of one is full and nothing can go
        assert!(matches!(
            live.admit(None, 1, 1),
            Err(SessionsFull::Total(1))
        ));
        drop(a);
        let admission = live.admit(None, 1, 1).unwrap();
        assert_eq!(admission.evicted.as_ref().map(|s| s.id()), Some("a"));
    }
}
