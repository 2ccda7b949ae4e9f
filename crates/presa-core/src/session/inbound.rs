//! Requests the peer sent that this side is still working on.

use std::collections::HashMap;

use crate::{Era, LoggingLevel, ProgressToken, RequestId};

/// What this side remembers about one request it is serving.
#[derive(Debug)]
pub(crate) struct InFlight {
    pub(crate) progress_token: Option<ProgressToken>,
    /// The per-request log level (2026-07-28 `_meta`); `None` leaves the session's level in force.
    pub(crate) log_level: Option<LoggingLevel>,
    /// The era the request was served under.
    pub(crate) era: Era,
    /// A `subscriptions/listen`, counted against the session's listens.
    listen: bool,
    last_progress: Option<f64>,
}

/// The table of the peer's requests in flight on this side.
#[derive(Debug, Default)]
pub(crate) struct Inbound {
    in_flight: HashMap<RequestId, InFlight>,
    /// How many of them are `subscriptions/listen`.
    listens: usize,
}

/// Why a progress report was not sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ProgressRefused {
    /// The request is not in flight (answered, cancelled, or never seen).
    UnknownRequest,
    /// The request carried no progress token.
    NoToken,
    /// `progress` did not grow.
    NotIncreasing,
}

impl Inbound {
    /// Frees the table's memory when nothing is in flight.
    pub(crate) fn shrink_to_fit(&mut self) {
        if self.in_flight.is_empty() {
            self.in_flight = HashMap::new();
        }
    }

    /// Starts tracking a request; `false` when a request with the same id is already in flight.
    pub(crate) fn insert(
        &mut self,
        id: RequestId,
        progress_token: Option<ProgressToken>,
        log_level: Option<LoggingLevel>,
        era: Era,
        listen: bool,
    ) -> bool {
        if self.in_flight.contains_key(&id) {
            return false;
        }
        self.in_flight.insert(
            id,
            InFlight {
                progress_token,
                log_level,
                era,
                listen,
                last_progress: None,
            },
        );
        self.listens += usize::from(listen);
        true
    }

    /// Stops tracking a request (answered or cancelled); `None` when it was not in flight.
    pub(crate) fn remove(&mut self, id: &RequestId) -> Option<InFlight> {
        let removed = self.in_flight.remove(id)?;
        self.listens -= usize::from(removed.listen);
        Some(removed)
    }

    /// A request in flight.
    pub(crate) fn get(&self, id: &RequestId) -> Option<&InFlight> {
        self.in_flight.get(id)
    }

    /// The number of requests in flight.
    pub(crate) fn len(&self) -> usize {
        self.in_flight.len()
    }

    /// The number of `subscriptions/listen` requests in flight.
    pub(crate) fn listens(&self) -> usize {
        self.listens
    }

    /// Checks a progress report for a request in flight and returns the token to report it under.
    pub(crate) fn progress(
        &mut self,
        id: &RequestId,
        progress: f64,
    ) -> Result<ProgressToken, ProgressRefused> {
        let entry = self
            .in_flight
            .get_mut(id)
            .ok_or(ProgressRefused::UnknownRequest)?;
        let token = entry
            .progress_token
            .clone()
            .ok_or(ProgressRefused::NoToken)?;
        if entry.last_progress.is_some_and(|last| progress <= last) || !progress.is_finite() {
            return Err(ProgressRefused::NotIncreasing);
        }
        entry.last_progress = Some(progress);
        Ok(token)
    }

    /// Forgets every request (the session closed).
    pub(crate) fn clear(&mut self) {
        self.in_flight.clear();
        self.listens = 0;
    }
}
