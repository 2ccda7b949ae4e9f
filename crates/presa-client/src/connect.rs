//! Finding out which era the server speaks: `server/discover`, `-32022` retries, and the
//! fallback to `initialize`.

use presa_core::{DiscoverResult, Era, ErrorCode, ErrorObject, HandshakeError, ProtocolVersion};
use tokio::sync::oneshot;
use tokio::time::Instant;

use crate::cache::{CacheKey, DISCOVER};
use crate::handle::{Command, Handle};
use crate::{CallOptions, ClientError, ClientOptions, ServerInfo, TransportErrorKind};

/// How many times a `-32022` answer to `server/discover` is retried with a version from its
/// `data.supported` (at least once, even when the list names the version just sent).
const VERSION_RETRIES: usize = 2;

/// Connects in the era the options and the server agree on.
pub(crate) async fn negotiate(
    handle: &Handle,
    options: &ClientOptions,
) -> Result<ServerInfo, ClientError> {
    match options.get_protocol_version() {
        Some(version) if version.era() == Era::Initialize => initialize(handle).await,
        Some(version) => discover(handle, options, version, false).await,
        None => discover(handle, options, ProtocolVersion::LATEST, true).await,
    }
}

/// The initialize-era handshake.
async fn initialize(handle: &Handle) -> Result<ServerInfo, ClientError> {
    let (reply, rx) = oneshot::channel();
    handle.command(Command::Initialize(reply)).await?;
    let (version, result) = rx.await.map_err(|_| handle.shared.ended_error())??;
    Ok(ServerInfo::from_initialize(version, result))
}

/// `server/discover` on a 2026-07-28-era revision; with `fallback`, anything but a recognised
/// modern answer means an initialize-era server.
async fn discover(
    handle: &Handle,
    options: &ClientOptions,
    mut version: ProtocolVersion,
    fallback: bool,
) -> Result<ServerInfo, ClientError> {
    let ours = options.session_config().supported_versions().clone();
    let call = CallOptions::new().timeout(options.probe());
    let mut retries = 0;
    loop {
        handle.command(Command::Stateless(version)).await?;
        let generation = handle.shared.cache().map(|c| c.generation(DISCOVER));
        let error = match handle.send(DISCOVER, None, &call).await {
            Ok(raw) => {
                let result: DiscoverResult = serde_json::from_str(raw.get()).map_err(|e| {
                    ClientError::Handshake(HandshakeError::MalformedResult(e.to_string()))
                })?;
                let info = ServerInfo::from_discover(version, result.clone(), raw.get());
                if let (Some(mut cache), Some(generation)) = (handle.shared.cache(), generation) {
                    cache.store(
                        CacheKey::new(DISCOVER, None),
                        raw,
                        &result,
                        generation,
                        Instant::now(),
                    );
                }
                return Ok(info);
            }
            Err(ClientError::Server(error)) => error,
            Err(ClientError::TimedOut) if fallback => {
                tracing::debug!("no server/discover answer in time; falling back to initialize");
                return initialize(handle).await;
            }
            Err(ClientError::TimedOut) => return Err(HandshakeError::TimedOut.into()),
            // An HTTP 4xx without a JSON-RPC body: no modern server would answer so.
            Err(ClientError::Transport(e))
                if fallback && e.kind() == TransportErrorKind::Protocol =>
            {
                tracing::debug!(error = %e, "server/discover failed on the transport; falling back to initialize");
                return initialize(handle).await;
            }
            Err(other) => return Err(other),
        };
        match error.code {
            ErrorCode::UNSUPPORTED_PROTOCOL_VERSION => {
                let supported = supported_versions(&error);
                let modern = supported
                    .iter()
                    .copied()
                    .filter(|v| v.era() == Era::Stateless && ours.contains(*v))
                    .max();
                if let Some(next) = modern {
                    if retries < VERSION_RETRIES {
                        retries += 1;
                        version = next;
                        continue;
                    }
                } else if fallback
                    && (supported.is_empty()
                        || supported
                            .iter()
                            .any(|v| v.era() == Era::Initialize && ours.contains(*v)))
                {
                    tracing::debug!("server speaks only initialize-era revisions");
                    return initialize(handle).await;
                }
                return Err(HandshakeError::Rejected(error).into());
            }
            // The server is modern, but the request was not acceptable: nothing to fall back to.
            ErrorCode::HEADER_MISMATCH | ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY => {
                return Err(HandshakeError::Rejected(error).into());
            }
            // Legacy servers answer unknown requests with whatever they like.
            _ if fallback => {
                tracing::debug!(code = %error.code, "server/discover refused; falling back to initialize");
                return initialize(handle).await;
            }
            _ => return Err(HandshakeError::Rejected(error).into()),
        }
    }
}

/// The revisions of a `-32022` error's `data.supported` that presa knows.
fn supported_versions(error: &ErrorObject) -> Vec<ProtocolVersion> {
    error
        .data
        .as_ref()
        .and_then(|d| d.get("supported"))
        .and_then(|s| s.as_array())
        .map(|list| {
            list.iter()
                .filter_map(|v| v.as_str()?.parse().ok())
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn supported_versions_ignore_unknown_and_malformed_entries() {
        let error = ErrorObject::new(ErrorCode::UNSUPPORTED_PROTOCOL_VERSION, "no")
            .with_data(json!({"supported": ["2027-01-15", "2026-07-28", 7], "requested": "x"}));
        assert_eq!(supported_versions(&error), [ProtocolVersion::V2026_07_28]);
        let bare = ErrorObject::new(ErrorCode::UNSUPPORTED_PROTOCOL_VERSION, "no");
        assert!(supported_versions(&bare).is_empty());
    }
}
