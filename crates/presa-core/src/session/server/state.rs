//! What an initialize-era session keeps between messages, as plain data.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::super::limits::json_len;
use super::{ClientContext, ServerSession};
use crate::jsonrpc::parse_params;
use crate::{
    ErrorObject, InitializeRequestParams, InitializeResult, LoggingLevel, Request,
    unsupported_version_error,
};

/// What an initialize-era session remembers between messages, as plain data: a transport that
/// keeps sessions outside the process (a store shared by several instances) saves it when
/// [`ServerSession::state_changes`] moves and gives it to
/// [`ServerSession::set_initialize_era_state`] on the instance that serves the next message.
///
/// ```
/// use std::time::Instant;
/// use presa_core::*;
///
/// let config = std::sync::Arc::new(ServerSessionConfig::new(Implementation::new("demo", "1")));
/// let mut first = ServerSession::new(config.clone());
/// first.handle_message(Instant::now(), decode_message(br#"{"jsonrpc":"2.0","id":1,
///     "method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},
///     "clientInfo":{"name":"c","version":"1"}}}"#).unwrap());
/// let saved = serde_json::to_string(first.initialize_era_state().unwrap()).unwrap();
///
/// let mut second = ServerSession::new(config);
/// second.set_initialize_era_state(serde_json::from_str::<InitializeEraState>(&saved).unwrap());
/// assert_eq!(
///     second.initialize_era_client().map(|c| c.protocol_version),
///     Some(ProtocolVersion::V2025_06_18),
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct InitializeEraState {
    /// The client as `initialize` described it, with the negotiated revision.
    pub client: Arc<ClientContext>,
    /// Whether `notifications/initialized` arrived.
    pub initialized: bool,
    /// The level `logging/setLevel` asked for; every level until one is set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_level: Option<LoggingLevel>,
}

impl InitializeEraState {
    /// The state right after `initialize` described `client` (a description, or one shared
    /// with other sessions): not initialized yet, no level.
    pub fn new(client: impl Into<Arc<ClientContext>>) -> Self {
        Self {
            client: client.into(),
            initialized: false,
            log_level: None,
        }
    }

    /// This state's changes since `base`, applied on top of `onto`: each field this state
    /// changed is its own, every other `onto`'s (a three-way merge, for two instances that
    /// changed one session at once).
    ///
    /// ```
    /// use presa_core::{ClientCapabilities, ClientContext, InitializeEraState, LoggingLevel,
    ///     ProtocolVersion};
    ///
    /// let client = ClientContext {
    ///     protocol_version: ProtocolVersion::V2025_06_18,
    ///     capabilities: ClientCapabilities::default(),
    ///     client_info: None,
    /// };
    /// let base = InitializeEraState::new(client);
    /// let mut ours = base.clone();
    /// ours.log_level = Some(LoggingLevel::Error);
    /// let mut theirs = base.clone();
    /// theirs.initialized = true;
    /// let merged = ours.rebased(&base, &theirs);
    /// assert!(merged.initialized);
    /// assert_eq!(merged.log_level, Some(LoggingLevel::Error));
    /// ```
    pub fn rebased(&self, base: &Self, onto: &Self) -> Self {
        fn pick<T: PartialEq + Clone>(ours: &T, base: &T, theirs: &T) -> T {
            if ours == base { theirs } else { ours }.clone()
        }
        Self {
            client: pick(&self.client, &base.client, &onto.client),
            initialized: pick(&self.initialized, &base.initialized, &onto.initialized),
            log_level: pick(&self.log_level, &base.log_level, &onto.log_level),
        }
    }
}

impl ServerSession {
    /// Answers `initialize`: negotiates the revision, bounds what the session keeps of the
    /// client, and makes the initialize-era state.
    pub(super) fn handle_initialize(&mut self, request: Request) {
        if self.legacy.is_some() {
            let error = super::super::post::already_initialized();
            return self.refuse(request, error);
        }
        let params = match parse_params::<InitializeRequestParams>(request.params.as_deref()) {
            Ok(params) => params,
            Err(error) => return self.refuse(request, error),
        };
        let Some(version) = self
            .config
            .versions
            .negotiate_initialize(&params.protocol_version)
        else {
            let error = unsupported_version_error(&params.protocol_version, &self.config.versions);
            return self.refuse(request, error);
        };
        let described = json_len(&params.capabilities) + json_len(&params.client_info);
        let limit = self.config.limits.client_description_bytes();
        if described > limit {
            let error = ErrorObject::invalid_params(format!(
                "initialize's capabilities and clientInfo take {described} bytes; this server keeps at most {limit}"
            ));
            return self.refuse(request, error);
        }
        let result = InitializeResult {
            protocol_version: version.as_str().to_owned(),
            capabilities: self.config.capabilities.for_version(version),
            server_info: self.config.server_info.clone(),
            instructions: self.config.instructions.clone(),
            meta: None,
        };
        self.state_changes += 1;
        // sessions of the same client share its description
        let client = self.config.clients.intern(ClientContext {
            protocol_version: version,
            capabilities: params.capabilities,
            client_info: Some(params.client_info),
        });
        self.legacy = Some(Arc::new(InitializeEraState::new(client)));
        self.answer_itself(request, &result);
    }
}
