//! A driven connection's state as plain data, for a transport that keeps sessions elsewhere.

use std::sync::Arc;

use presa_core::InitializeEraState;
use serde::{Deserialize, Serialize};

/// What an initialize-era [`DrivenConnection`](crate::DrivenConnection) remembers between messages, as plain data: the
/// session's state and the resources its client subscribed to. A transport that keeps sessions
/// outside the process saves it when [`DrivenConnection::state_changes`](crate::DrivenConnection::state_changes) moves, and continues
/// the session on any instance with [`DrivenConnection::set_state`](crate::DrivenConnection::set_state).
///
/// ```
/// use presa_core::decode_message;
/// use presa_server::{Arrival, ConnectionState, DrivenConnection, Server};
///
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let server = Server::builder("demo", "1.0.0").build().unwrap();
/// let first = DrivenConnection::new(server.clone(), |_: presa_core::Transmit| {});
/// first.handle(decode_message(br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{
///     "protocolVersion":"2025-06-18","capabilities":{},
///     "clientInfo":{"name":"c","version":"1"}}}"#).unwrap(), &Arrival::default());
/// let saved = serde_json::to_string(&first.state().unwrap()).unwrap();
///
/// let second = DrivenConnection::new(server, |_: presa_core::Transmit| {});
/// second.set_state(serde_json::from_str::<ConnectionState>(&saved).unwrap());
/// assert!(second.client().is_some());
/// # });
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ConnectionState {
    /// The session's state (client, negotiated revision, log level), shared with the
    /// connection's session.
    pub session: Arc<InitializeEraState>,
    /// The resource URIs the client subscribed to, sorted.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub subscriptions: Vec<String>,
}

impl ConnectionState {
    /// The state of a session whose client `initialize` described, with nothing subscribed.
    pub fn new(session: impl Into<Arc<InitializeEraState>>) -> Self {
        Self {
            session: session.into(),
            subscriptions: Vec::new(),
        }
    }

    /// This state's changes since `base`, applied on top of `onto` (see
    /// [`InitializeEraState::rebased`]): the subscriptions are `onto`'s, with those this state
    /// added and without those it removed.
    pub fn rebased(&self, base: &Self, onto: &Self) -> Self {
        let added = self
            .subscriptions
            .iter()
            .filter(|uri| !base.subscriptions.contains(uri));
        let removed: Vec<&String> = base
            .subscriptions
            .iter()
            .filter(|uri| !self.subscriptions.contains(uri))
            .collect();
        let mut subscriptions: Vec<String> = onto
            .subscriptions
            .iter()
            .filter(|uri| !removed.contains(uri))
            .chain(added)
            .cloned()
            .collect();
        subscriptions.sort_unstable();
        subscriptions.dedup();
        Self {
            session: Arc::new(self.session.rebased(&base.session, &onto.session)),
            subscriptions,
        }
    }
}
