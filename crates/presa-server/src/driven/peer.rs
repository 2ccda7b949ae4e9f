//! The peer a driven connection's handlers talk back through.

use std::sync::{Arc, Weak};

use presa_core::{LoggingLevel, Notification, RequestId, RequestOptions, ServerSession};
use serde_json::Value;
use tokio::sync::oneshot;
use tokio::time::Instant;

use super::{Driven, UNKNOWN, now};
use crate::BoxFuture;
use crate::context::Peer;
use crate::input::InputError;

/// The [`Peer`] of a driven connection's handlers: each call acts on the session at once.
#[derive(Debug)]
pub(super) struct DrivenPeer {
    pub(super) driven: Weak<Driven>,
}

impl DrivenPeer {
    fn while_in_flight(
        &self,
        request: &RequestId,
        f: impl FnOnce(&mut ServerSession),
    ) -> BoxFuture<'static, ()> {
        match self.driven.upgrade() {
            Some(driven) => driven.while_in_flight(Some(request), f),
            None => Box::pin(async {}),
        }
    }

    /// Runs `f` on the session for `related` while it is in flight, or for the session as a
    /// whole (`None`) while it is open.
    fn on_session(
        &self,
        related: Option<&RequestId>,
        f: impl FnOnce(&mut ServerSession),
    ) -> BoxFuture<'static, ()> {
        match self.driven.upgrade() {
            Some(driven) => driven.while_in_flight(related, f),
            None => Box::pin(async {}),
        }
    }
}

impl Peer for DrivenPeer {
    fn progress(
        &self,
        request: &RequestId,
        progress: f64,
        total: Option<f64>,
        message: Option<String>,
    ) -> BoxFuture<'static, ()> {
        self.while_in_flight(request, |session| {
            let _ = session.progress(request, progress, total, message);
        })
    }

    fn log(
        &self,
        request: Option<&RequestId>,
        level: LoggingLevel,
        logger: Option<String>,
        data: Value,
    ) -> BoxFuture<'static, ()> {
        self.on_session(request, |session| {
            session.log(request, level, logger.as_deref(), data);
        })
    }

    fn reaches_client(&self) -> bool {
        self.driven
            .upgrade()
            .is_some_and(|driven| driven.outbox.reaches_client())
    }

    fn close_stream(&self, request: &RequestId) -> bool {
        let Some(driven) = self.driven.upgrade() else {
            return false;
        };
        let in_flight = driven.state().in_flight.contains(request);
        in_flight && driven.outbox.close_stream(request)
    }

    fn notify(
        &self,
        related: Option<&RequestId>,
        notification: Notification,
    ) -> BoxFuture<'static, ()> {
        self.on_session(related, |session| {
            session.notify(notification, related.cloned());
        })
    }

    fn request(
        &self,
        related: Option<&RequestId>,
        method: &str,
        params: Value,
    ) -> BoxFuture<'static, Result<Value, InputError>> {
        let ended = || InputError::Unavailable("the session ended".into());
        let Some(driven) = self.driven.upgrade() else {
            return Box::pin(async move { Err(ended()) });
        };
        let params = match params {
            Value::Object(map) => Some(map),
            _ => None,
        };
        let (reply, answer) = oneshot::channel();
        let sent = {
            let mut state = driven.state();
            if driven.is_closed() {
                Err(ended())
            } else {
                match state.session.send_request(
                    now(),
                    method,
                    params,
                    &RequestOptions::default(),
                    related.cloned(),
                ) {
                    Ok(id) => {
                        state.waiting.get_or_insert_default().insert(id, reply);
                        Ok(driven.pump(&mut state, &UNKNOWN))
                    }
                    Err(error) => Err(InputError::Unavailable(error.to_string())),
                }
            }
        };
        let sent = sent.map(|started| driven.run(started));
        let weak = Arc::downgrade(&driven);
        drop(driven);
        Box::pin(async move {
            sent?;
            let mut answer = answer;
            loop {
                // the session's deadline for its own requests, checked while waiting
                let deadline = weak
                    .upgrade()
                    .and_then(|driven| driven.state().session.poll_timeout());
                let Some(deadline) = deadline else {
                    return answer.await.unwrap_or_else(|_| Err(ended()));
                };
                tokio::select! {
                    outcome = &mut answer => return outcome.unwrap_or_else(|_| Err(ended())),
                    () = tokio::time::sleep_until(Instant::from_std(deadline)) => {
                        let Some(driven) = weak.upgrade() else { return Err(ended()) };
                        let started = {
                            let mut state = driven.state();
                            state.session.handle_timeout(now());
                            driven.pump(&mut state, &UNKNOWN)
                        };
                        driven.run(started);
                    }
                }
            }
        })
    }
}
