//! What a transport knows about a message besides its content: which transport it came by, who
//! sent it, and for HTTP the request it arrived on.

use std::sync::Arc;

use crate::auth::AuthInfo;

/// The transport a request arrived by.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Transport {
    /// A transport that did not say (a custom one, or a direct call).
    #[default]
    Unspecified,
    /// stdio: a subprocess's standard input and output.
    Stdio,
    /// A client and server in one process.
    InProcess,
    /// Streamable HTTP (or the 2024-11-05 HTTP+SSE transport).
    Http,
}

impl Transport {
    /// A short lowercase name: `stdio`, `in-process`, `http`, `unspecified`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Unspecified => "unspecified",
            Self::Stdio => "stdio",
            Self::InProcess => "in-process",
            Self::Http => "http",
        }
    }
}

/// The HTTP request a message arrived on: its headers and its extensions (what layers in front
/// of the MCP endpoint put there, e.g. a tenant or a request id). Handlers reach it with
/// [`Context::http`](crate::Context::http), middleware with
/// [`McpRequest::context`](crate::McpRequest::context).
///
/// ```
/// use presa_server::HttpParts;
///
/// let mut headers = http::HeaderMap::new();
/// headers.insert("x-tenant", "acme".parse().unwrap());
/// let parts = HttpParts::new(headers, http::Extensions::new());
/// assert_eq!(parts.headers()["x-tenant"], "acme");
/// ```
#[derive(Clone, Debug, Default)]
pub struct HttpParts {
    headers: http::HeaderMap,
    extensions: http::Extensions,
}

impl HttpParts {
    /// The parts of one HTTP request.
    pub fn new(headers: http::HeaderMap, extensions: http::Extensions) -> Self {
        Self {
            headers,
            extensions,
        }
    }

    /// The request's headers.
    pub fn headers(&self) -> &http::HeaderMap {
        &self.headers
    }

    /// The request's extensions.
    pub fn extensions(&self) -> &http::Extensions {
        &self.extensions
    }
}

/// What a transport hands the runner with each message besides the message itself: the
/// transport, the identity it verified, and the HTTP request the message arrived on.
///
/// ```
/// use presa_server::{Arrival, AuthInfo, Transport};
///
/// let arrival = Arrival::new(Transport::Stdio).with_auth(AuthInfo::new().with_subject("local"));
/// assert_eq!(arrival.transport(), Transport::Stdio);
/// assert_eq!(arrival.auth().and_then(|a| a.subject()), Some("local"));
/// ```
#[derive(Clone, Debug, Default)]
pub struct Arrival {
    pub(crate) transport: Transport,
    pub(crate) auth: Option<Arc<AuthInfo>>,
    pub(crate) http: Option<Arc<HttpParts>>,
    /// The session or connection the message belongs to, if it has one.
    pub(crate) session: Option<Arc<str>>,
}

impl Arrival {
    /// A message that came by `transport`, from no verified identity.
    pub const fn new(transport: Transport) -> Self {
        Self {
            transport,
            auth: None,
            http: None,
            session: None,
        }
    }

    /// With the identity the transport verified for the message.
    #[must_use]
    pub fn with_auth(mut self, auth: impl Into<Arc<AuthInfo>>) -> Self {
        self.auth = Some(auth.into());
        self
    }

    /// With the identity the transport verified, if any.
    #[must_use]
    pub fn with_optional_auth(mut self, auth: Option<Arc<AuthInfo>>) -> Self {
        self.auth = auth;
        self
    }

    /// With the HTTP request the message arrived on.
    #[must_use]
    pub fn with_http(mut self, http: impl Into<Arc<HttpParts>>) -> Self {
        self.http = Some(http.into());
        self
    }

    /// With the session (an initialize-era HTTP session) or connection (stdio, in-process) the
    /// message belongs to: what a caller without an authenticated identity is known by, e.g.
    /// as the owner of the tasks it creates. A 2026-07-28 HTTP request belongs to none.
    #[must_use]
    pub fn with_session(mut self, session: impl Into<Arc<str>>) -> Self {
        self.session = Some(session.into());
        self
    }

    /// The session or connection the message belongs to.
    pub fn session(&self) -> Option<&str> {
        self.session.as_deref()
    }

    /// The transport.
    pub fn transport(&self) -> Transport {
        self.transport
    }

    /// The identity the transport verified.
    pub fn auth(&self) -> Option<&AuthInfo> {
        self.auth.as_deref()
    }

    /// The HTTP request the message arrived on.
    pub fn http(&self) -> Option<&HttpParts> {
        self.http.as_deref()
    }
}

/// 128 random bits as 32 lowercase hex digits: the one generator of the ids presa's transports
/// make (connections, HTTP sessions, an instance's prefix for its requests to clients), each
/// deciding for itself what to do without randomness (`None`).
///
/// ```
/// let id = presa_server::random_id().unwrap();
/// assert_eq!(id.len(), 32);
/// assert!(id.bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()));
/// ```
#[doc(hidden)]
pub fn random_id() -> Option<String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).ok()?;
    Some(bytes.iter().map(|b| format!("{b:02x}")).collect())
}
