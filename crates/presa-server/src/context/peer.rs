//! Where what a handler sends goes: the [`Peer`] of its context.

use std::fmt;
use std::sync::Arc;

use presa_core::{LoggingLevel, RequestId};
use serde_json::Value;

use crate::BoxFuture;
use crate::input::InputError;

/// Where a handler's progress and log messages go: the runner serving the request, which hands
/// them to its session (presa-core decides whether a message is allowed: the request asked for
/// progress, the log level admits the message). A handler only sees [`Context`](super::Context).
pub(crate) trait Peer: Send + Sync + fmt::Debug {
    /// Sends `notifications/progress` for `request`, if it asked for progress.
    fn progress(
        &self,
        request: &RequestId,
        progress: f64,
        total: Option<f64>,
        message: Option<String>,
    ) -> BoxFuture<'static, ()>;

    /// Sends `notifications/message` for `request` (or for the session as a whole: `None`), if
    /// the log level admits `level`.
    fn log(
        &self,
        request: Option<&RequestId>,
        level: LoggingLevel,
        logger: Option<String>,
        data: Value,
    ) -> BoxFuture<'static, ()>;

    /// Sends a notification on `related`'s stream while it is in flight (what a
    /// `subscriptions/listen` request delivers), or for the session as a whole (`None`: a task's
    /// status). The default drops it.
    fn notify(
        &self,
        related: Option<&RequestId>,
        notification: presa_core::Notification,
    ) -> BoxFuture<'static, ()> {
        let _ = (related, notification);
        Box::pin(async {})
    }

    /// Ends the response stream carrying `request`'s messages now, where the client can resume
    /// it (Streamable HTTP, an initialize-era session at 2025-11-25: the stream began with a
    /// priming event id). What follows is kept and reaches the client when it reconnects.
    /// Returns whether the stream was closed; the default cannot close one.
    fn close_stream(&self, request: &RequestId) -> bool {
        let _ = request;
        false
    }

    /// Whether a message related to no request reaches the client now (see
    /// [`Outbox::reaches_client`](crate::Outbox::reaches_client)).
    fn reaches_client(&self) -> bool {
        true
    }

    /// Sends a server→client request (`elicitation/create`, `sampling/createMessage`,
    /// `roots/list`) while serving `related` (or for the session: `None`, a task's request),
    /// and waits for the client's answer. Only initialize-era sessions can; the default answers
    /// that this connection cannot.
    fn request(
        &self,
        related: Option<&RequestId>,
        method: &str,
        params: Value,
    ) -> BoxFuture<'static, Result<Value, InputError>> {
        let _ = (related, method, params);
        Box::pin(async {
            Err(InputError::Unavailable(
                "this connection cannot send requests to the client".into(),
            ))
        })
    }
}

/// The peer of a notification handler's context: what it sends relates to no request (a
/// notification has none), so it goes to the session as a whole, as a task's messages do.
#[derive(Debug)]
pub(crate) struct SessionPeer(pub(crate) Arc<dyn Peer>);

impl Peer for SessionPeer {
    fn progress(
        &self,
        _: &RequestId,
        _: f64,
        _: Option<f64>,
        _: Option<String>,
    ) -> BoxFuture<'static, ()> {
        // no progress token: nothing asked for progress
        Box::pin(async {})
    }

    fn log(
        &self,
        _: Option<&RequestId>,
        level: LoggingLevel,
        logger: Option<String>,
        data: Value,
    ) -> BoxFuture<'static, ()> {
        self.0.log(None, level, logger, data)
    }

    fn notify(
        &self,
        _: Option<&RequestId>,
        notification: presa_core::Notification,
    ) -> BoxFuture<'static, ()> {
        self.0.notify(None, notification)
    }

    fn reaches_client(&self) -> bool {
        self.0.reaches_client()
    }

    fn request(
        &self,
        _: Option<&RequestId>,
        method: &str,
        params: Value,
    ) -> BoxFuture<'static, Result<Value, InputError>> {
        self.0.request(None, method, params)
    }
}

/// A peer that drops everything (a detached context).
#[derive(Debug, Default)]
pub(crate) struct NoPeer;

impl Peer for NoPeer {
    fn progress(
        &self,
        _: &RequestId,
        _: f64,
        _: Option<f64>,
        _: Option<String>,
    ) -> BoxFuture<'static, ()> {
        Box::pin(async {})
    }

    fn log(
        &self,
        _: Option<&RequestId>,
        _: LoggingLevel,
        _: Option<String>,
        _: Value,
    ) -> BoxFuture<'static, ()> {
        Box::pin(async {})
    }
}
