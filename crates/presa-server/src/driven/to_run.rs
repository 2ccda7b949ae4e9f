//! What one input to a driven connection set going, kept until the connection's lock is
//! released: the requests it started, and the requests the session answered by itself.

use presa_core::{ErrorObject, RequestId};

use crate::server::Server;
use crate::start::Handling;
use crate::transport::Arrival;

/// What one input set going, acted on once the connection's lock is released: the requests it
/// started, those the session answered by itself, to observe, and the notifications handlers
/// take.
#[derive(Default)]
pub(super) struct ToRun {
    pub(super) requests: Started,
    pub(super) answered: Vec<Answered>,
    /// Notifications an extension's handler takes: their handling, not yet polled.
    pub(super) notifications: Vec<crate::BoxFuture<'static, ()>>,
}

impl ToRun {
    pub(super) fn push(&mut self, request: Handling) {
        self.requests.push(request);
    }
}

/// A request the session answered by itself (or the connection refused), observed after the
/// fact: a span and a duration that end as they begin.
pub(super) struct Answered {
    pub(super) id: RequestId,
    pub(super) method: String,
    pub(super) params: Option<presa_core::RawJson>,
    pub(super) version: Option<presa_core::ProtocolVersion>,
    pub(super) error: Option<ErrorObject>,
    pub(super) arrival: Arrival,
}

impl Answered {
    pub(super) fn observe(self, server: &Server) {
        // with `otel` the span is parented on the trace context of `_meta` (read here, out of
        // the connection's lock)
        let meta = if cfg!(feature = "otel") {
            presa_core::params_meta(self.params.as_deref())
        } else {
            None
        };
        crate::observe::Observed::answered(
            server,
            &crate::telemetry::Spanned {
                method: &self.method,
                id: Some(&self.id),
                version: self.version,
                params: self.params.as_deref(),
                meta: meta.as_ref(),
                arrival: &self.arrival,
            },
            self.error.as_ref(),
        );
    }
}

/// The requests one input started, in order: almost always none or one, so one is kept without
/// an allocation.
#[derive(Default)]
pub(super) enum Started {
    #[default]
    None,
    One(Handling),
    Many(Vec<Handling>),
}

impl Started {
    fn push(&mut self, request: Handling) {
        *self = match std::mem::take(self) {
            Self::None => Self::One(request),
            Self::One(first) => Self::Many(vec![first, request]),
            Self::Many(mut all) => {
                all.push(request);
                Self::Many(all)
            }
        };
    }

    pub(super) fn is_empty(&self) -> bool {
        matches!(self, Self::None)
    }
}

impl IntoIterator for Started {
    type Item = Handling;
    type IntoIter = std::iter::Chain<std::option::IntoIter<Handling>, std::vec::IntoIter<Handling>>;

    fn into_iter(self) -> Self::IntoIter {
        let (one, many) = match self {
            Self::None => (None, Vec::new()),
            Self::One(request) => (Some(request), Vec::new()),
            Self::Many(all) => (None, all),
        };
        one.into_iter().chain(many)
    }
}
