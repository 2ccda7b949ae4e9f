//! Draining an endpoint before it goes away: no new work, streams ended with the protocol's
//! signals, the work in flight given until a deadline, then stopped.

use std::time::Duration;

use super::shared::Shared;

/// A handle that drains an MCP endpoint: what a router mounted in an app of your own (see
/// [`router_with_drain`](crate::router_with_drain)) uses for a graceful shutdown, and what
/// [`RunningServer::drain`](crate::RunningServer::drain) does for [`serve`](crate::serve).
///
/// [`drain`](Self::drain), in order:
/// 1. refuses new sessions, new requests and new GET streams with 503 and `Retry-After`
///    (notifications and answers to the server's own requests are still taken: the requests
///    in flight may need them);
/// 2. ends each `subscriptions/listen` with its result and each session's GET stream;
/// 3. waits for the requests in flight to be answered, up to the deadline;
/// 4. stops what is still running, unanswered, and ends the live parts of every session
///    (their state stays in the session store, for another instance to continue).
///
/// ```
/// use std::time::Duration;
/// use axum::Router;
/// use presa_http::{HttpOptions, SessionStorage, router_with_drain};
/// use presa_server::Server;
///
/// # async fn run() {
/// let server = Server::builder("app", "1.0.0").build().unwrap();
/// let store = SessionStorage::default();
/// let (mcp, drain) = router_with_drain::<()>(server, HttpOptions::default(), store);
/// let app: Router = Router::new().merge(mcp);
/// // … serve `app`; when told to stop:
/// let report = drain.drain(Duration::from_secs(10)).await;
/// assert_eq!(report.stopped, 0);
/// # drop(app);
/// # }
/// ```
#[derive(Clone)]
pub struct Drain {
    shared: Shared,
}

impl std::fmt::Debug for Drain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Drain")
            .field("draining", &self.shared.is_draining())
            .finish_non_exhaustive()
    }
}

/// What a [`Drain::drain`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct DrainReport {
    /// Whether every request in flight was answered before the deadline.
    pub finished: bool,
    /// The requests (2026-07-28) and sessions with requests (initialize era) still running at
    /// the deadline, stopped unanswered.
    pub stopped: usize,
}

impl Drain {
    pub(crate) fn new(shared: Shared) -> Self {
        Self { shared }
    }

    /// Whether a drain has started.
    pub fn is_draining(&self) -> bool {
        self.shared.is_draining()
    }

    /// Drains the endpoint (see [`Drain`]), giving the requests in flight `deadline` to be
    /// answered. Calling it again drains again (what is left).
    pub async fn drain(&self, deadline: Duration) -> DrainReport {
        self.shared.start_draining();
        self.shared.end_streams();
        let finished = tokio::time::timeout(deadline, self.shared.serving_count().idle())
            .await
            .is_ok();
        let stopped = self.shared.stop_everything();
        DrainReport { finished, stopped }
    }
}
