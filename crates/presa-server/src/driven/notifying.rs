//! The notification handlers a driven connection runs: how many may wait at once, and the
//! signal that ends them with their session.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use tokio::sync::OwnedSemaphorePermit;

use super::Driven;
use crate::context::Cancellation;

/// One connection's notification handlers that wait past their first poll.
///
/// A session's handlers count against the session alone, as many as it may have requests in
/// flight, so one client cannot crowd out another's; they end with the session. A notification
/// posted on its own (2026-07-28 over HTTP) has no session to end with: its handler outlives
/// the connection that took it and counts against one bound across the server instead.
#[derive(Debug, Default)]
pub(super) struct Notifying {
    /// Handlers of this session waiting now.
    running: AtomicUsize,
    /// Fires when the session ends (closed, aborted or dropped): every handler's context is
    /// cancelled and the handler dropped. Made for the first notification a handler takes, or
    /// at the end.
    ended: OnceLock<Cancellation>,
    /// Whether the connection carries one notification posted on its own.
    sessionless: AtomicBool,
}

/// A waiting handler's place, given back when it ends.
pub(super) enum Slot {
    /// One of its session's (the connection, to count it back).
    Session(Arc<Driven>),
    /// One of the server's, for a notification posted on its own: held, given back when
    /// dropped.
    Server { _permit: OwnedSemaphorePermit },
}

impl Drop for Slot {
    fn drop(&mut self) {
        if let Self::Session(driven) = self {
            driven.notifying.running.fetch_sub(1, Ordering::AcqRel);
        }
    }
}

impl Notifying {
    /// Marks the connection as carrying one notification posted on its own.
    pub(super) fn set_sessionless(&self) {
        self.sessionless.store(true, Ordering::Release);
    }

    /// The cancellation of a handler's context: the session's end, or for a notification
    /// posted on its own a signal that never fires (nothing ends it but the handler).
    pub(super) fn cancellation(&self) -> Cancellation {
        if self.sessionless.load(Ordering::Acquire) {
            return Cancellation::new();
        }
        self.ended.get_or_init(Cancellation::new).clone()
    }

    /// The session ended: its handlers are cancelled and dropped. A sessionless connection's
    /// handler is not: it outlives the connection.
    pub(super) fn end(&self) {
        if !self.sessionless.load(Ordering::Acquire) {
            self.ended.get_or_init(Cancellation::new).cancel();
        }
    }

    /// A place for one more handler of `driven` to wait in, if there is one.
    pub(super) fn slot(driven: &Arc<Driven>) -> Option<Slot> {
        let server = &driven.server.inner;
        if driven.notifying.sessionless.load(Ordering::Acquire) {
            let permits = Arc::clone(&server.notification_permits);
            return permits
                .try_acquire_owned()
                .ok()
                .map(|permit| Slot::Server { _permit: permit });
        }
        let most = server.options.limits.in_flight_requests();
        let running = &driven.notifying.running;
        running
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |now| {
                (now < most).then_some(now + 1)
            })
            .ok()
            .map(|_| Slot::Session(Arc::clone(driven)))
    }
}
