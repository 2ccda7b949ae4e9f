//! What an initialize-era session refuses of what one delivery (an HTTP POST) carries, before
//! any of it is taken in.

use crate::{ErrorObject, ProtocolVersion};

/// The error a session answers a second `initialize` with.
pub(crate) fn already_initialized() -> ErrorObject {
    ErrorObject::invalid_request("Session already initialized")
}

/// Checks what a transport is about to deliver at once to an initialize-era session that has
/// negotiated `negotiated` (`None` while its `initialize` is unanswered): no `initialize`
/// among it (`initialize`), a `MCP-Protocol-Version` header naming the session's revision
/// when one was sent (`header`), and a batch (`batch`) only where the revision allows
/// batches. Streamable HTTP asks before it hands a POST's messages over, so that it answers
/// 400 without starting any of them.
///
/// ```
/// use presa_core::{ProtocolVersion, check_session_delivery};
///
/// let v = Some(ProtocolVersion::V2025_06_18);
/// assert!(check_session_delivery(v, Some("2025-06-18"), false, false).is_ok());
/// assert!(check_session_delivery(v, Some("2025-03-26"), false, false).is_err());
/// assert!(check_session_delivery(v, None, false, true).is_err(), "no batches at 2025-06-18");
/// let v = Some(ProtocolVersion::V2025_03_26);
/// assert!(check_session_delivery(v, None, false, true).is_ok());
/// assert!(check_session_delivery(v, None, true, false).is_err(), "initialized already");
/// ```
pub fn check_session_delivery(
    negotiated: Option<ProtocolVersion>,
    header: Option<&str>,
    initialize: bool,
    batch: bool,
) -> Result<(), ErrorObject> {
    if initialize {
        return Err(already_initialized());
    }
    if let (Some(header), Some(version)) = (header, negotiated)
        && header != version.as_str()
    {
        return Err(ErrorObject::invalid_request(format!(
            "MCP-Protocol-Version {header:?} does not match the session's {version}"
        )));
    }
    if batch && !negotiated.is_some_and(ProtocolVersion::allows_batches) {
        return Err(ErrorObject::invalid_request(
            "Invalid request: batches are not allowed in this protocol revision",
        ));
    }
    Ok(())
}
