//! Saving a session's state: compare-and-set saves, and taking over what another instance
//! saved meanwhile.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

#[cfg(doc)]
use presa_server::{ConnectionState, DrivenConnection};
use tokio::sync::Notify;

use super::{HttpSession, lock};
use crate::server::store::{SessionState, SessionStore, SessionStoreError};

/// What the store last had of a session, as this process knows it.
#[derive(Debug, Default)]
pub(super) struct Saved {
    /// The state this process last loaded or saved; `None` before the session's first save.
    pub(super) base: Option<Arc<SessionState>>,
    /// The connection's [`DrivenConnection::state_changes`] that `base` includes.
    pub(super) changes: u64,
}

impl Saved {
    pub(super) fn revision(&self) -> Option<u64> {
        self.base.as_ref().map(|base| base.revision)
    }

    pub(super) fn next_stream(&self) -> u64 {
        self.base.as_ref().map_or(1, |base| base.next_stream)
    }
}

/// How many times a save that lost a race with another instance is merged and tried again.
pub(super) const SAVE_ATTEMPTS: usize = 4;

/// Told whenever a save of any session in this process ends. Saves are rare and a save of one
/// session rarely waits for another, so one signal for the process is what a session waiting
/// for its turn listens to, instead of a lock of its own in every idle session.
static SAVE_ENDED: Notify = Notify::const_new();

/// A session's turn to save: [`HttpSession::saving`] set, cleared (and the waiters told) when
/// dropped.
pub(super) struct Saving<'a>(&'a AtomicBool);

impl<'a> Saving<'a> {
    /// The turn, if no save of the session is under way.
    pub(super) fn try_take(flag: &'a AtomicBool) -> Option<Self> {
        (!flag.swap(true, Ordering::AcqRel)).then_some(Self(flag))
    }

    /// The turn, once the save under way (if any) has ended.
    pub(super) async fn take(flag: &'a AtomicBool) -> Self {
        loop {
            // listen before looking, so that a save ending in between is not missed
            let ended = SAVE_ENDED.notified();
            tokio::pin!(ended);
            ended.as_mut().enable();
            if let Some(turn) = Self::try_take(flag) {
                return turn;
            }
            ended.await;
        }
    }
}

impl Drop for Saving<'_> {
    fn drop(&mut self) {
        self.0.store(false, Ordering::Release);
        SAVE_ENDED.notify_waiters();
    }
}

/// A session's state not saved yet, as [`persist`](HttpSession::persist) saves it.
struct Unsaved {
    state: SessionState,
    /// The revision it replaces (none for a session never saved).
    replaces: Option<u64>,
    /// The connection's change count it includes.
    changes: u64,
    /// The end of this process's block of stream numbers it reserves.
    reserved: u64,
}

impl HttpSession {
    /// Takes over the stored state when another instance saved a newer one. Changes of this
    /// process not saved yet are kept, on top of it (see [`ConnectionState::rebased`]). While a
    /// save of this process is under way nothing is taken over: that save decides.
    pub(crate) fn adopt(&self, stored: &Arc<SessionState>) {
        if let Some(_no_save_under_way) = Saving::try_take(&self.saving) {
            self.take_over(stored);
        }
    }

    /// [`adopt`](Self::adopt), for the caller holding `saving`.
    pub(super) fn take_over(&self, stored: &Arc<SessionState>) {
        let mut saved = lock(&self.saved);
        if saved
            .revision()
            .is_some_and(|known| stored.revision <= known)
        {
            return;
        }
        let base = saved.base.as_ref().map(|base| &base.connection);
        let (after, unsaved) = match base {
            Some(base) => self
                .connection
                .take_over_state(saved.changes, base, &stored.connection),
            None => (saved.changes, true),
        };
        if !unsaved {
            saved.changes = after;
        }
        saved.base = Some(Arc::clone(stored));
        // A block this process saved stays its own (other instances reserve past it), so
        // requests spread over instances do not each reserve, and save, a new one. A block
        // not saved yet (its save lost to this newer state) may overlap another instance's:
        // it is dropped, and the next one starts past every number reserved.
        let mut streams = lock(&self.streams);
        let own_block = streams.reserved_until <= streams.confirmed_until;
        if !own_block && streams.next_stream < stored.next_stream {
            streams.next_stream = stored.next_stream;
            streams.reserved_until = stored.next_stream;
        }
    }

    /// What to save when the state changed since the last save.
    fn unsaved(&self) -> Option<Unsaved> {
        let (changes, reserved) = self.has_unsaved()?;
        let saved = lock(&self.saved);
        let connection = self.connection.state()?;
        let replaces = saved.revision();
        let mut state = SessionState::new(Arc::clone(&self.id), self.owner.clone(), connection);
        state.revision = replaces.map_or(1, |known| known.saturating_add(1));
        state.next_stream = reserved.max(saved.next_stream());
        Some(Unsaved {
            state,
            replaces,
            changes,
            reserved,
        })
    }

    /// The connection's change count and the reserved stream numbers, when either moved past
    /// what was saved.
    fn has_unsaved(&self) -> Option<(u64, u64)> {
        let changes = self.connection.state_changes();
        let reserved = lock(&self.streams).reserved_until;
        let saved = lock(&self.saved);
        let moved = changes != saved.changes || reserved > saved.next_stream();
        moved.then_some((changes, reserved))
    }

    /// Saves the session's state in `store` if it changed since the last save. The save
    /// replaces only the revision this process knows: when another instance saved meanwhile,
    /// that state is taken over, this process's changes on top, and saved again. Returns
    /// `false` when the session was removed meanwhile (nothing is saved, and its live parts
    /// here end).
    pub(crate) async fn persist(
        &self,
        store: &dyn SessionStore,
        ttl: Option<Duration>,
    ) -> Result<bool, SessionStoreError> {
        if self.has_unsaved().is_none() {
            return Ok(true);
        }
        // one save of a session at a time in this process: the others wait and find it saved
        let _one_at_a_time = Saving::take(&self.saving).await;
        for _ in 0..SAVE_ATTEMPTS {
            let Some(Unsaved {
                state,
                replaces,
                changes,
                reserved,
            }) = self.unsaved()
            else {
                return Ok(true);
            };
            let state = Arc::new(state);
            if store.save(Arc::clone(&state), replaces, ttl).await? {
                let mut saved = lock(&self.saved);
                saved.base = Some(state);
                saved.changes = changes;
                drop(saved);
                let mut streams = lock(&self.streams);
                streams.confirmed_until = streams.confirmed_until.max(reserved);
                return Ok(true);
            }
            if replaces.is_none() {
                return Err(SessionStoreError::new(format!(
                    "session id {} is taken already",
                    self.id
                )));
            }
            match store.load(&self.id, ttl).await? {
                Some(stored) => self.take_over(&stored),
                None => {
                    self.close();
                    return Ok(false);
                }
            }
        }
        Err(SessionStoreError::new(format!(
            "session {}: its state kept changing while it was saved",
            self.id
        )))
    }
}
