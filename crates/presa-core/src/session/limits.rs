//! What a session lets its peer make it hold: the bounds that keep a hostile peer's cost to the
//! server fixed.

/// The bounds a server session puts on its client. Going past one is refused (a client's
/// request with a JSON-RPC error naming the bound, a server request the application sends with
/// [`ServerSendError::TooManyPending`](crate::ServerSendError::TooManyPending)); nothing already
/// in flight is disturbed.
///
/// ```
/// use presa_core::SessionLimits;
///
/// let limits = SessionLimits::default().max_in_flight_requests(64);
/// assert_eq!(limits.in_flight_requests(), 64);
/// assert_eq!(limits.client_description_bytes(), 64 * 1024);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionLimits {
    client_description_bytes: usize,
    in_flight_requests: usize,
    pending_server_requests: usize,
    listens: usize,
}

impl Default for SessionLimits {
    /// 64 KiB of client description, 1,024 requests in flight, 256 pending server requests,
    /// 64 listens.
    fn default() -> Self {
        Self {
            client_description_bytes: 64 * 1024,
            in_flight_requests: 1024,
            pending_server_requests: 256,
            listens: 64,
        }
    }
}

impl SessionLimits {
    /// The most bytes of `capabilities` and `clientInfo` (as compact JSON) an `initialize`
    /// may ask the session to keep for its whole life; more is refused with `-32602`.
    pub fn max_client_description_bytes(mut self, bytes: usize) -> Self {
        self.client_description_bytes = bytes;
        self
    }

    /// The most of the client's requests served at once; one more is refused with `-32600`
    /// until one ends.
    pub fn max_in_flight_requests(mut self, requests: usize) -> Self {
        self.in_flight_requests = requests;
        self
    }

    /// The most requests of the server (sampling, elicitation, roots, pings) waiting for the
    /// client's answer; one more fails at once.
    pub fn max_pending_server_requests(mut self, requests: usize) -> Self {
        self.pending_server_requests = requests;
        self
    }

    /// The most `subscriptions/listen` streams open at once on one connection (stdio,
    /// in-process); one more is refused with `-32600`. Over Streamable HTTP each listen holds
    /// a connection of its own, so the connection cap bounds them there.
    pub fn max_listens(mut self, listens: usize) -> Self {
        self.listens = listens;
        self
    }

    /// See [`max_listens`](Self::max_listens).
    pub fn listens(&self) -> usize {
        self.listens
    }

    /// See [`max_client_description_bytes`](Self::max_client_description_bytes).
    pub fn client_description_bytes(&self) -> usize {
        self.client_description_bytes
    }

    /// See [`max_in_flight_requests`](Self::max_in_flight_requests).
    pub fn in_flight_requests(&self) -> usize {
        self.in_flight_requests
    }

    /// See [`max_pending_server_requests`](Self::max_pending_server_requests).
    pub fn pending_server_requests(&self) -> usize {
        self.pending_server_requests
    }
}

/// The length of `value` as compact JSON, without building the text.
pub(crate) fn json_len(value: &impl serde::Serialize) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 += bytes.len();
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    // a value that cannot be serialized counts what was written before it failed
    let _ = serde_json::to_writer(&mut count, value);
    count.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_len_is_the_compact_length() {
        let value = serde_json::json!({"a": [1, 2, "é"], "b": null});
        assert_eq!(json_len(&value), value.to_string().len());
    }
}
