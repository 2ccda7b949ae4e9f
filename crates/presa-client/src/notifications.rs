//! Notifications from the server: [`Notifications`].

use presa_core::Notification;
use tokio::sync::broadcast;

/// A receiver of the notifications the server sends: log messages, list changes, resource
/// updates, and anything else that is not progress (which goes to the call's
/// [`on_progress`](crate::CallOptions::on_progress) callback).
///
/// Each receiver gets every notification that arrives after it was created, in order. One
/// that falls more than [`notification_capacity`](crate::ClientOptions::notification_capacity)
/// behind skips the oldest; [`missed`](Self::missed) counts them. With the cache on, a change
/// notification has already dropped the cached results it concerns when a receiver sees it.
#[derive(Debug)]
pub struct Notifications {
    rx: broadcast::Receiver<Notification>,
    missed: u64,
}

impl Notifications {
    pub(crate) fn new(rx: broadcast::Receiver<Notification>) -> Self {
        Self { rx, missed: 0 }
    }

    /// The next notification; `None` once the client is closed (or every
    /// [`Client`](crate::Client) handle dropped) and all received ones were read.
    pub async fn recv(&mut self) -> Option<Notification> {
        loop {
            match self.rx.recv().await {
                Ok(notification) => return Some(notification),
                Err(broadcast::error::RecvError::Lagged(n)) => {
                    tracing::warn!(skipped = n, "notification receiver fell behind");
                    self.missed += n;
                }
                Err(broadcast::error::RecvError::Closed) => return None,
            }
        }
    }

    /// The next notification that has already arrived, without waiting; `None` when none has
    /// (or the client is closed).
    pub fn try_recv(&mut self) -> Option<Notification> {
        loop {
            match self.rx.try_recv() {
                Ok(notification) => return Some(notification),
                Err(broadcast::error::TryRecvError::Lagged(n)) => {
                    tracing::warn!(skipped = n, "notification receiver fell behind");
                    self.missed += n;
                }
                Err(_) => return None,
            }
        }
    }

    /// How many notifications this receiver skipped because it fell behind.
    pub fn missed(&self) -> u64 {
        self.missed
    }
}
