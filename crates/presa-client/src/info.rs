//! What the client learned about the server while connecting: [`ServerInfo`].

use presa_core::{
    DiscoverResult, Era, Implementation, InitializeResult, ProtocolVersion, ServerCapabilities,
};

/// The server as [`Client::info`](crate::Client::info) describes it: from `server/discover`
/// (2026-07-28) or from the `initialize` result (initialize era).
///
/// ```
/// use presa_client::ServerInfo;
/// use presa_core::{Era, ProtocolVersion, ServerCapabilities};
///
/// let info = ServerInfo::new(ProtocolVersion::V2026_07_28, ServerCapabilities::default());
/// assert_eq!(info.era(), Era::Stateless);
/// assert_eq!(info.name(), None);
/// ```
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct ServerInfo {
    /// The server's identity: `serverInfo` of the `initialize` result, or the
    /// `io.modelcontextprotocol/serverInfo` entry of the discover result's `_meta` (which a
    /// server SHOULD, but need not, send).
    pub server_info: Option<Implementation>,
    /// What the server offers.
    pub capabilities: ServerCapabilities,
    /// The revision spoken.
    pub protocol_version: ProtocolVersion,
    /// Usage hints for the model, if the server gave any.
    pub instructions: Option<String>,
    /// The revisions the server says it speaks (`supportedVersions` of `server/discover`; in
    /// the initialize era, the negotiated revision only).
    pub supported_versions: Vec<String>,
}

impl ServerInfo {
    /// A description with nothing but a revision and capabilities.
    pub fn new(protocol_version: ProtocolVersion, capabilities: ServerCapabilities) -> Self {
        Self {
            server_info: None,
            capabilities,
            protocol_version,
            instructions: None,
            supported_versions: vec![protocol_version.as_str().to_owned()],
        }
    }

    /// The era of the revision spoken.
    pub fn era(&self) -> Era {
        self.protocol_version.era()
    }

    /// The server's name, when it gave one.
    pub fn name(&self) -> Option<&str> {
        self.server_info.as_ref().map(|i| i.name.as_str())
    }

    /// The server's version, when it gave its identity.
    pub fn version(&self) -> Option<&str> {
        self.server_info.as_ref().map(|i| i.version.as_str())
    }

    /// From a discover result; `raw` is the result's text, read again for the top-level
    /// `serverInfo` that pre-final 2026 servers (and the conformance runner's mocks) send.
    pub(crate) fn from_discover(
        version: ProtocolVersion,
        result: DiscoverResult,
        raw: &str,
    ) -> Self {
        #[derive(serde::Deserialize)]
        struct TopLevel {
            #[serde(rename = "serverInfo", default)]
            server_info: Option<Implementation>,
        }
        let server_info = result.server_info().or_else(|| {
            serde_json::from_str::<TopLevel>(raw)
                .ok()
                .and_then(|t| t.server_info)
        });
        Self {
            server_info,
            capabilities: result.capabilities,
            protocol_version: version,
            instructions: result.instructions,
            supported_versions: result.supported_versions,
        }
    }

    pub(crate) fn from_initialize(version: ProtocolVersion, result: InitializeResult) -> Self {
        Self {
            server_info: Some(result.server_info),
            capabilities: result.capabilities,
            protocol_version: version,
            instructions: result.instructions,
            supported_versions: vec![version.as_str().to_owned()],
        }
    }
}
