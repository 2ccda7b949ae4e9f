//! What every task of one connection shares: the HTTP client, the endpoint, the session state,
//! and the way back to the client.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use presa_client::{IncomingSender, TransportError, TransportErrorKind, TransportEvent};
use presa_core::{Era, Message, ProtocolVersion, RequestId};
use reqwest::header::{
    ACCEPT, AUTHORIZATION, CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue, WWW_AUTHENTICATE,
};
use reqwest::{Method, StatusCode, Url};

use super::token::{AuthRequest, Credential, Refusal, TokenProvider};

pub(crate) const SESSION_ID: HeaderName = HeaderName::from_static("mcp-session-id");
/// `MCP-Protocol-Version` (presa-core's `MCP_PROTOCOL_VERSION_HEADER`), lowercased.
const PROTOCOL_VERSION: HeaderName = HeaderName::from_static("mcp-protocol-version");
pub(crate) const LAST_EVENT_ID: HeaderName = HeaderName::from_static("last-event-id");
const JSON: HeaderValue = HeaderValue::from_static("application/json");
const JSON_AND_SSE: HeaderValue = HeaderValue::from_static("application/json, text/event-stream");
const SSE: HeaderValue = HeaderValue::from_static("text/event-stream");
const DPOP: HeaderName = HeaderName::from_static("dpop");
const DPOP_NONCE: HeaderName = HeaderName::from_static("dpop-nonce");
/// One request is sent at most this many times, whatever the token provider asks.
const MAX_SENDS: u32 = 8;

/// The request a response or stream belongs to.
#[derive(Clone, Debug)]
pub(crate) struct RequestCtx {
    pub(crate) id: RequestId,
    pub(crate) method: String,
    /// The era the client's session sent it in.
    pub(crate) era: Era,
    /// The session generation it was sent in.
    pub(crate) generation: u64,
}

#[derive(Debug, Default)]
struct State {
    /// Bumped by every `initialize`: answers from an older session are not applied.
    generation: u64,
    session_id: Option<HeaderValue>,
    /// The revision of the initialize-era session, as the client's messages name it.
    negotiated: Option<ProtocolVersion>,
    /// The POST endpoint of a 2024-11-05 HTTP+SSE server, once its `endpoint` event came.
    sse_endpoint: Option<Url>,
}

pub(crate) struct Conn {
    pub(crate) http: reqwest::Client,
    pub(crate) url: Url,
    /// The user's extra headers.
    pub(crate) headers: HeaderMap,
    pub(crate) token: Option<Arc<dyn TokenProvider>>,
    pub(crate) max_message_bytes: usize,
    pub(crate) events: IncomingSender,
    state: Mutex<State>,
}

impl Conn {
    pub(crate) fn new(
        http: reqwest::Client,
        url: Url,
        headers: HeaderMap,
        token: Option<Arc<dyn TokenProvider>>,
        max_message_bytes: usize,
        events: IncomingSender,
    ) -> Self {
        Self {
            http,
            url,
            headers,
            token,
            max_message_bytes,
            events,
            state: Mutex::default(),
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        // The state stays consistent whatever panicked while holding it.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    // ----- session state -----

    /// An `initialize` is going out: forget the previous session. Returns the new generation.
    pub(crate) fn begin_initialize(&self) -> u64 {
        let mut state = self.state();
        state.generation += 1;
        state.session_id = None;
        state.negotiated = None;
        state.sse_endpoint = None;
        state.generation
    }

    pub(crate) fn generation(&self) -> u64 {
        self.state().generation
    }

    pub(crate) fn session_id(&self) -> Option<HeaderValue> {
        self.state().session_id.clone()
    }

    pub(crate) fn sse_endpoint(&self) -> Option<Url> {
        self.state().sse_endpoint.clone()
    }

    /// From now on every message goes to this 2024-11-05 HTTP+SSE endpoint.
    pub(crate) fn set_sse_endpoint(&self, generation: u64, endpoint: Url) {
        let mut state = self.state();
        if state.generation == generation {
            state.sse_endpoint = Some(endpoint);
        }
    }

    /// The revision of the initialize-era session, which the client's messages after the
    /// handshake are sent under: `MCP-Protocol-Version` from now on.
    pub(crate) fn set_negotiated(&self, version: ProtocolVersion) {
        let mut state = self.state();
        if state.negotiated != Some(version) {
            state.negotiated = Some(version);
        }
    }

    /// The `Mcp-Session-Id` of an `initialize` response.
    pub(crate) fn set_session_id(&self, generation: u64, value: &HeaderValue) {
        // visible ASCII only (0x21–0x7E)
        if value.is_empty() || !value.as_bytes().iter().all(|b| (0x21..=0x7e).contains(b)) {
            tracing::warn!(
                target: "presa_http",
                "ignoring an Mcp-Session-Id that is not visible ASCII"
            );
            return;
        }
        let mut state = self.state();
        if state.generation == generation {
            state.session_id = Some(value.clone());
        }
    }

    /// `MCP-Protocol-Version` (2025-06-18 on) and `Mcp-Session-Id` of the current
    /// initialize-era session.
    pub(crate) fn legacy_headers(&self) -> HeaderMap {
        let state = self.state();
        let mut headers = HeaderMap::new();
        if let Some(version) = state
            .negotiated
            .filter(|v| *v >= ProtocolVersion::V2025_06_18)
        {
            headers.insert(PROTOCOL_VERSION, HeaderValue::from_static(version.as_str()));
        }
        if let Some(session) = &state.session_id {
            headers.insert(SESSION_ID, session.clone());
        }
        headers
    }

    // ----- the way back to the client -----

    /// Hands a message, which took `bytes` on the wire, to the client, once the client holds
    /// few enough bytes of messages to take it. `false` when the client is gone.
    pub(crate) async fn deliver(&self, message: Message, bytes: usize) -> bool {
        self.events
            .send(TransportEvent::Message(message), bytes)
            .await
            .is_ok()
    }

    /// Fails one request.
    pub(crate) async fn fail(&self, id: &RequestId, error: TransportError) {
        let event = TransportEvent::RequestFailed {
            id: id.clone(),
            error,
        };
        let _ = self.events.send(event, 0).await;
    }

    // ----- HTTP -----

    /// POSTs a JSON-RPC message to the endpoint.
    pub(crate) async fn post(
        &self,
        headers: &HeaderMap,
        body: Vec<u8>,
    ) -> Result<reqwest::Response, TransportError> {
        self.post_to(&self.url, headers, body).await
    }

    /// POSTs a JSON-RPC message to `url`.
    pub(crate) async fn post_to(
        &self,
        url: &Url,
        headers: &HeaderMap,
        body: Vec<u8>,
    ) -> Result<reqwest::Response, TransportError> {
        let mut headers = headers.clone();
        headers.insert(CONTENT_TYPE, JSON);
        headers.insert(ACCEPT, JSON_AND_SSE);
        self.send(Method::POST, url, headers, Some(body)).await
    }

    /// GETs the endpoint's event stream (the session's stream, or a resumed one; or, with no
    /// session, a 2024-11-05 server's SSE stream).
    pub(crate) async fn get(
        &self,
        last_event_id: Option<&str>,
    ) -> Result<reqwest::Response, TransportError> {
        let mut headers = self.legacy_headers();
        headers.insert(ACCEPT, SSE);
        if let Some(id) = last_event_id {
            let id = HeaderValue::from_str(id).map_err(|_| {
                TransportError::new(
                    TransportErrorKind::Protocol,
                    "the server's event id cannot be sent back as Last-Event-ID",
                )
            })?;
            headers.insert(LAST_EVENT_ID, id);
        }
        self.send(Method::GET, &self.url, headers, None).await
    }

    /// DELETEs the session.
    pub(crate) async fn delete(&self) -> Result<reqwest::Response, TransportError> {
        self.send(Method::DELETE, &self.url, self.legacy_headers(), None)
            .await
    }

    /// Sends a request with the user's headers and credential, then `headers` (which win). On a
    /// 401 or 403 the token provider may ask for the request to be sent again.
    async fn send(
        &self,
        method: Method,
        url: &Url,
        headers: HeaderMap,
        mut body: Option<Vec<u8>>,
    ) -> Result<reqwest::Response, TransportError> {
        let mut attempt = 0;
        loop {
            let mut all = self.headers.clone();
            let credential = match &self.token {
                Some(provider) => {
                    let request = AuthRequest::new(method.as_str(), url.as_str());
                    provider.credential(request).await.map_err(|e| {
                        let message = "the token provider failed";
                        TransportError::with_source(TransportErrorKind::Connect, message, e)
                    })?
                }
                None => None,
            };
            if let Some(credential) = &credential {
                authorize(&mut all, credential)?;
            }
            for (name, value) in &headers {
                all.insert(name.clone(), value.clone());
            }
            let mut request = self.http.request(method.clone(), url.clone()).headers(all);
            // Keep the body for a resend only when one is possible.
            let last = self.token.is_none() || attempt + 1 >= MAX_SENDS;
            let this_body = if last { body.take() } else { body.clone() };
            if let Some(body) = this_body {
                request = request.body(body);
            }
            let response = request.send().await.map_err(|e| send_error(&method, e))?;
            let status = response.status();
            if !last
                && matches!(status, StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN)
                && let Some(provider) = &self.token
            {
                let challenge = joined(response.headers(), WWW_AUTHENTICATE);
                let nonce = joined(response.headers(), DPOP_NONCE);
                let refusal = Refusal::new(
                    AuthRequest::new(method.as_str(), url.as_str()),
                    status.as_u16(),
                )
                .with_challenge(challenge.as_deref())
                .with_dpop_nonce(nonce.as_deref())
                .with_sent(credential.as_ref())
                .with_attempt(attempt);
                match provider.refused(refusal).await {
                    Ok(true) => {
                        attempt += 1;
                        continue;
                    }
                    Ok(false) => {}
                    Err(e) => {
                        let message = format!("HTTP {status}: the token provider failed");
                        return Err(TransportError::with_source(
                            TransportErrorKind::Connect,
                            message,
                            e,
                        ));
                    }
                }
            }
            return Ok(response);
        }
    }
}

impl std::fmt::Debug for Conn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Conn")
            .field("url", &self.url.as_str())
            .finish_non_exhaustive()
    }
}

/// Puts a credential on a request: `Authorization`, and `DPoP` for a DPoP-bound token.
fn authorize(headers: &mut HeaderMap, credential: &Credential) -> Result<(), TransportError> {
    let unsendable = || {
        TransportError::new(
            TransportErrorKind::Connect,
            "the token provider returned a token that cannot be sent in a header",
        )
    };
    let (scheme, token, proof) = match credential {
        Credential::Bearer(token) => ("Bearer", token, None),
        Credential::Dpop { token, proof } => ("DPoP", token, Some(proof)),
    };
    let mut value =
        HeaderValue::from_str(&format!("{scheme} {token}")).map_err(|_| unsendable())?;
    value.set_sensitive(true);
    headers.insert(AUTHORIZATION, value);
    if let Some(proof) = proof {
        headers.insert(
            DPOP,
            HeaderValue::from_str(proof).map_err(|_| unsendable())?,
        );
    }
    Ok(())
}

/// Every value of a header, joined with `, ` (how a list-valued header reads as one).
fn joined(headers: &HeaderMap, name: HeaderName) -> Option<String> {
    let values: Vec<&str> = headers
        .get_all(name)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .collect();
    (!values.is_empty()).then(|| values.join(", "))
}

/// The headers the client's session gave a 2026-07-28 message (the SEP-2243 mirrors), as a
/// header map.
pub(crate) fn header_map(pairs: Vec<(String, String)>) -> Result<HeaderMap, TransportError> {
    let mut headers = HeaderMap::with_capacity(pairs.len());
    for (name, value) in pairs {
        let cannot = |what: &str| {
            TransportError::new(
                TransportErrorKind::Protocol,
                format!("cannot send header {name}: {what}"),
            )
        };
        let header = HeaderName::from_bytes(name.as_bytes()).map_err(|_| cannot("invalid name"))?;
        let value = HeaderValue::from_str(&value).map_err(|_| cannot("invalid value"))?;
        headers.insert(header, value);
    }
    Ok(headers)
}

/// A failed send: `Connect` when no connection could be made, `Io` otherwise.
fn send_error(method: &Method, error: reqwest::Error) -> TransportError {
    let kind = if error.is_connect() || error.is_timeout() {
        TransportErrorKind::Connect
    } else {
        TransportErrorKind::Io
    };
    TransportError::with_source(kind, format!("{method} failed"), error)
}
