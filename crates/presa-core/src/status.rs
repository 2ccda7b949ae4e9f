//! The HTTP status that carries a JSON-RPC error, per era.

use crate::{Era, ErrorCode};

/// The HTTP status for a response carrying `code` on Streamable HTTP.
///
/// - 2026-07-28 (stateless): `-32700`, `-32600`, `-32602` and the header and capability codes
///   `-32020`, `-32021`, `-32022` → 400; `-32601` → 404; `-32603` → 500; any other code (an
///   application's own) → 200, since the spec leaves it open and the body says everything.
/// - Initialize era: always 200 — those clients read the JSON-RPC body and older ones treat any
///   other status as a transport failure.
///
/// ```
/// use presa_core::{http_status, Era, ErrorCode};
///
/// assert_eq!(http_status(ErrorCode::METHOD_NOT_FOUND, Era::Stateless), 404);
/// assert_eq!(http_status(ErrorCode::HEADER_MISMATCH, Era::Stateless), 400);
/// assert_eq!(http_status(ErrorCode::METHOD_NOT_FOUND, Era::Initialize), 200);
/// ```
pub fn http_status(code: ErrorCode, era: Era) -> u16 {
    if era == Era::Initialize {
        return 200;
    }
    match code {
        ErrorCode::PARSE_ERROR
        | ErrorCode::INVALID_REQUEST
        | ErrorCode::INVALID_PARAMS
        | ErrorCode::HEADER_MISMATCH
        | ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY
        | ErrorCode::UNSUPPORTED_PROTOCOL_VERSION => 400,
        ErrorCode::METHOD_NOT_FOUND => 404,
        ErrorCode::INTERNAL_ERROR => 500,
        _ => 200,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stateless_statuses() {
        let table = [
            (-32700, 400),
            (-32600, 400),
            (-32601, 404),
            (-32602, 400),
            (-32603, 500),
            (-32020, 400),
            (-32021, 400),
            (-32022, 400),
            (-32002, 200),
            (-1, 200),
            (42, 200),
        ];
        for (code, status) in table {
            assert_eq!(
                http_status(ErrorCode(code), Era::Stateless),
                status,
                "{code}"
            );
            assert_eq!(http_status(ErrorCode(code), Era::Initialize), 200, "{code}");
        }
    }
}
