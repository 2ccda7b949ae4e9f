//! What the client and the server session share: the two request tables, the transmit queue,
//! cancellation and progress in both directions.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{Map, Value};

use super::inbound::{Inbound, ProgressRefused};
use super::outbound::{Outbound, Pending, RequestOptions};
use crate::jsonrpc::parse_params;
use crate::{
    CancelledNotificationParams, ErrorObject, Message, Notification, ProgressNotificationParams,
    ProgressToken, ProtocolVersion, RawJson, Request, RequestId, Response, ResponsePayload, to_raw,
};

/// A message to send, with the request it belongs to.
///
/// On stdio every message goes down one pipe; a Streamable HTTP transport uses
/// [`related_request`](Self::related_request) to put progress, log messages and server→client
/// requests on the response stream of the request they serve.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Transmit {
    /// The message.
    pub message: Message,
    /// The peer's request this message is part of (a response, or a notification or request
    /// issued while serving it).
    pub related_request: Option<RequestId>,
    /// The revision a client session sends the message under: a 2026-07-28 request or
    /// notification, or any message of an initialized initialize-era session (not
    /// `initialize` itself). Its era is `protocol_version.era()`. A server session leaves it
    /// `None` (its transports route by `related_request`).
    pub protocol_version: Option<ProtocolVersion>,
    /// The HTTP headers that mirror a client's 2026-07-28 message, in order (see
    /// [`request_headers`](crate::request_headers)); empty for every other message.
    pub headers: Vec<(String, String)>,
}

impl Transmit {
    /// `message`, part of the peer's request `related_request` if any, with no revision and no
    /// headers.
    pub fn new(message: impl Into<Message>, related_request: Option<RequestId>) -> Self {
        Self {
            message: message.into(),
            related_request,
            protocol_version: None,
            headers: Vec::new(),
        }
    }

    /// This transmit, sent under `version`.
    #[must_use]
    pub fn with_protocol_version(mut self, version: ProtocolVersion) -> Self {
        self.protocol_version = Some(version);
        self
    }

    /// This transmit, with `headers` mirroring it (see [`request_headers`](crate::request_headers)).
    #[must_use]
    pub fn with_headers(mut self, headers: Vec<(String, String)>) -> Self {
        self.headers = headers;
        self
    }
}

/// Why a request this side sent got no result from the peer.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum RequestError {
    /// The peer answered with an error.
    Peer(ErrorObject),
    /// No response arrived before the request's deadline; the peer was told to cancel.
    TimedOut,
    /// The session closed before a response arrived.
    Closed,
    /// The initialize handshake failed, so the request was never sent.
    HandshakeFailed,
    /// The peer ended the request with `notifications/cancelled` (2026-07-28: how a server may
    /// end a `subscriptions/listen` stream).
    CancelledByPeer {
        /// Why, if the peer said.
        reason: Option<String>,
    },
}

impl std::fmt::Display for RequestError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Peer(error) => write!(
                f,
                "peer answered with error {}: {}",
                error.code, error.message
            ),
            Self::TimedOut => f.write_str("request timed out"),
            Self::Closed => f.write_str("session closed before the response arrived"),
            Self::HandshakeFailed => f.write_str("the initialize handshake failed"),
            Self::CancelledByPeer { reason: None } => f.write_str("peer cancelled the request"),
            Self::CancelledByPeer {
                reason: Some(reason),
            } => write!(f, "peer cancelled the request: {reason}"),
        }
    }
}

impl std::error::Error for RequestError {}

/// Why a progress notification was not sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ProgressError {
    /// The request is not in flight: answered, cancelled, or never received.
    UnknownRequest,
    /// The request did not ask for progress (no `progressToken`).
    NotRequested,
    /// `progress` must grow with every notification (and be finite).
    NotIncreasing,
}

impl std::fmt::Display for ProgressError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::UnknownRequest => "the request is not in flight",
            Self::NotRequested => "the request did not ask for progress",
            Self::NotIncreasing => "progress must increase with every notification",
        })
    }
}

impl std::error::Error for ProgressError {}

impl From<ProgressRefused> for ProgressError {
    fn from(refused: ProgressRefused) -> Self {
        match refused {
            ProgressRefused::UnknownRequest => Self::UnknownRequest,
            ProgressRefused::NoToken => Self::NotRequested,
            ProgressRefused::NotIncreasing => Self::NotIncreasing,
        }
    }
}

/// A finished outgoing request, as the sessions report it.
pub(crate) struct Finished {
    pub(crate) id: RequestId,
    pub(crate) method: String,
    pub(crate) outcome: Result<RawJson, RequestError>,
}

#[derive(Debug)]
pub(crate) struct Endpoint {
    pub(crate) outbound: Outbound,
    pub(crate) inbound: Inbound,
    transmit: VecDeque<Transmit>,
    pub(crate) default_timeout: Option<Duration>,
}

pub(crate) const CANCELLED: &str = "notifications/cancelled";
pub(crate) const PROGRESS: &str = "notifications/progress";

impl Endpoint {
    pub(crate) fn new(default_timeout: Option<Duration>) -> Self {
        Self {
            outbound: Outbound::default(),
            inbound: Inbound::default(),
            transmit: VecDeque::new(),
            default_timeout,
        }
    }

    /// Frees the memory of queues and tables left empty.
    pub(crate) fn shrink_to_fit(&mut self) {
        if self.transmit.is_empty() {
            self.transmit = VecDeque::new();
        }
        self.inbound.shrink_to_fit();
        self.outbound.shrink_to_fit();
    }

    pub(crate) fn push(&mut self, message: impl Into<Message>, related_request: Option<RequestId>) {
        self.transmit
            .push_back(Transmit::new(message, related_request));
    }

    pub(crate) fn push_transmit(&mut self, transmit: Transmit) {
        self.transmit.push_back(transmit);
    }

    pub(crate) fn poll_transmit(&mut self) -> Option<Transmit> {
        self.transmit.pop_front()
    }

    /// Registers a request and builds its message; `edit_meta` adds `_meta` entries beyond the
    /// progress token, and `base_meta` holds entries serialized once for every request (a
    /// 2026-07-28 client's version, capabilities and identity), written as they are and winning
    /// over the params' own entries of the same names.
    pub(crate) fn request(
        &mut self,
        now: Instant,
        method: &str,
        params: Option<Map<String, Value>>,
        options: &RequestOptions,
        base_meta: &[(String, RawJson)],
        edit_meta: impl FnOnce(&mut Map<String, Value>),
    ) -> Result<Request, serde_json::Error> {
        let id = self.outbound.allocate_id();
        let token = self
            .outbound
            .insert(now, id.clone(), method, options, self.default_timeout);
        let mut params = params;
        let mut meta_edits: Vec<(String, Value)> = Vec::new();
        if let Some(token) = token {
            meta_edits.push(("progressToken".into(), serde_json::to_value(token)?));
        }
        let mut scratch = Map::new();
        edit_meta(&mut scratch);
        meta_edits.extend(scratch);
        if !meta_edits.is_empty() || !base_meta.is_empty() {
            let params = params.get_or_insert_with(Map::new);
            let meta = params
                .entry("_meta")
                .or_insert_with(|| Value::Object(Map::new()));
            if !meta.is_object() {
                *meta = Value::Object(Map::new());
            }
            if let Value::Object(meta) = meta {
                meta.extend(meta_edits);
            }
        }
        let params = match params {
            Some(params) if base_meta.is_empty() => Some(to_raw(&params)?),
            Some(params) => Some(to_raw(&WithBaseMeta {
                params: &params,
                base: base_meta,
            })?),
            None => None,
        };
        Ok(Request {
            id,
            method: method.to_owned(),
            params,
        })
    }

    /// Drops a request from the table and tells the peer to stop.
    pub(crate) fn cancel(&mut self, id: &RequestId, reason: Option<&str>) -> Option<Pending> {
        let pending = self.outbound.remove(id)?;
        self.send_cancel(id, reason);
        Some(pending)
    }

    pub(crate) fn send_cancel(&mut self, id: &RequestId, reason: Option<&str>) {
        let params = CancelledNotificationParams::new(id.clone(), reason.map(str::to_owned));
        if let Ok(n) = Notification::new(CANCELLED, &params) {
            self.push(n, None);
        }
    }

    /// The peer answered one of our requests; `None` for an id we no longer wait on (answered,
    /// timed out or cancelled: a late response is dropped).
    pub(crate) fn handle_response(&mut self, response: Response) -> Option<Finished> {
        let id = response.id?;
        let pending = self.outbound.remove(&id)?;
        let outcome = match response.payload {
            ResponsePayload::Result(raw) => Ok(raw),
            ResponsePayload::Error(error) => Err(RequestError::Peer(error)),
        };
        Some(Finished {
            id,
            method: pending.method,
            outcome,
        })
    }

    /// The peer reported progress on one of our requests.
    pub(crate) fn handle_progress(
        &mut self,
        now: Instant,
        params: Option<&RawJson>,
    ) -> Option<(RequestId, ProgressNotificationParams)> {
        let params: ProgressNotificationParams = parse_params(Some(params?)).ok()?;
        let id = self.outbound.progress(now, &params.progress_token)?.clone();
        Some((id, params))
    }

    /// The peer cancelled one of its requests; `None` when it was not in flight here.
    pub(crate) fn handle_cancelled(
        &mut self,
        params: Option<&RawJson>,
    ) -> Option<(RequestId, Option<String>)> {
        let params = CancelledNotificationParams::from_raw(params)?;
        let id = params.request_id?;
        self.inbound.remove(&id)?;
        Some((id, params.reason))
    }

    /// Answers one of the peer's requests; `false` when it is no longer in flight (cancelled or
    /// already answered), in which case nothing is sent.
    pub(crate) fn respond(&mut self, id: &RequestId, payload: ResponsePayload) -> bool {
        if self.inbound.remove(id).is_none() {
            return false;
        }
        self.push(
            Response {
                id: Some(id.clone()),
                payload,
            },
            Some(id.clone()),
        );
        true
    }

    /// Answers a request that never entered the in-flight table (rejected before dispatch).
    pub(crate) fn reject(&mut self, id: RequestId, error: ErrorObject) {
        let related = Some(id.clone());
        self.push(Response::error(Some(id), error), related);
    }

    /// Answers a request that never entered the in-flight table with a result.
    pub(crate) fn answer(&mut self, id: RequestId, result: &impl serde::Serialize) {
        match Response::result(id.clone(), result) {
            Ok(response) => self.push(response, Some(id)),
            Err(e) => self.reject(
                id,
                ErrorObject::internal_error(format!("unserializable result: {e}")),
            ),
        }
    }

    /// Sends `notifications/progress` for a request in flight that asked for it.
    pub(crate) fn progress(
        &mut self,
        id: &RequestId,
        progress: f64,
        total: Option<f64>,
        message: Option<String>,
    ) -> Result<(), ProgressError> {
        let token: ProgressToken = self.inbound.progress(id, progress)?;
        let mut params = ProgressNotificationParams::new(token, progress, total);
        params.message = message;
        if let Ok(n) = Notification::new(PROGRESS, &params) {
            self.push(n, Some(id.clone()));
        }
        Ok(())
    }
}

/// Params whose `_meta` gets entries serialized beforehand, in the one serialization pass of the
/// params (no copy of them as values per request).
struct WithBaseMeta<'a> {
    params: &'a Map<String, Value>,
    base: &'a [(String, RawJson)],
}

impl Serialize for WithBaseMeta<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        for (name, value) in self.params {
            if name != "_meta" {
                map.serialize_entry(name, value)?;
            }
        }
        let own = match self.params.get("_meta") {
            Some(Value::Object(own)) => Some(own),
            _ => None,
        };
        let meta = MetaWithBase {
            own,
            base: self.base,
        };
        map.serialize_entry("_meta", &meta)?;
        map.end()
    }
}

/// A `_meta` object: its own entries but those `base` names, then `base`'s, as written.
struct MetaWithBase<'a> {
    own: Option<&'a Map<String, Value>>,
    base: &'a [(String, RawJson)],
}

impl Serialize for MetaWithBase<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        let own = self.own.into_iter().flatten();
        for (name, value) in own.filter(|(name, _)| !self.base.iter().any(|(b, _)| b == *name)) {
            map.serialize_entry(name, value)?;
        }
        for (name, raw) in self.base {
            map.serialize_entry(name, raw)?;
        }
        map.end()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use serde_json::json;

    use super::*;

    fn base() -> Vec<(String, RawJson)> {
        vec![
            ("v".to_owned(), to_raw(&"2026-07-28").unwrap()),
            ("info".to_owned(), to_raw(&json!({"name": "c"})).unwrap()),
        ]
    }

    #[test]
    fn base_meta_is_written_as_is_and_wins_over_the_params_own_entries_of_its_names() {
        let Value::Object(params) = json!({"name": "add", "_meta": {"v": "old", "trace": 1}})
        else {
            unreachable!()
        };
        let base = base();
        let text = to_raw(&WithBaseMeta {
            params: &params,
            base: &base,
        })
        .unwrap();
        // each name once: the params' own `v` gives way to the base's
        assert_eq!(
            text.get(),
            r#"{"name":"add","_meta":{"trace":1,"v":"2026-07-28","info":{"name":"c"}}}"#
        );
    }

    #[test]
    fn a_request_without_params_or_with_a_meta_that_is_no_object_gets_the_base_meta() {
        let mut endpoint = Endpoint::new(Some(Duration::from_secs(1)));
        let options = RequestOptions::default();
        let now = Instant::now();
        let base = base();
        let bare = endpoint.request(now, "ping", None, &options, &base, |_| {});
        let Value::Object(odd) = json!({"_meta": 3}) else {
            unreachable!()
        };
        let odd = endpoint.request(now, "ping", Some(odd), &options, &base, |_| {});
        for request in [bare, odd] {
            assert_eq!(
                request.unwrap().params.unwrap().get(),
                r#"{"_meta":{"v":"2026-07-28","info":{"name":"c"}}}"#
            );
        }
    }
}
