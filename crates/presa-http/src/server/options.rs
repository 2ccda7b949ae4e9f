//! The Streamable HTTP server's options, with the defaults of the original design.

use std::collections::HashSet;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use axum::http::HeaderMap;

use super::auth::AuthOptions;

/// Which values of a header (`Origin`, `Host`) are accepted.
#[derive(Clone, Default)]
pub enum Allow {
    /// Every value.
    #[default]
    Any,
    /// Loopback only: `localhost`, `127.0.0.1` and `[::1]`, with any port (for `Origin`, with the
    /// `http` or `https` scheme).
    Loopback,
    /// Loopback, plus exactly these values (an `Origin` as `scheme://host[:port]`, a `Host` as
    /// `host[:port]`).
    LoopbackAnd(HashSet<String>),
    /// Exactly these values.
    Only(HashSet<String>),
    /// Whatever the function accepts.
    Predicate(Arc<dyn Fn(&str) -> bool + Send + Sync>),
}

impl fmt::Debug for Allow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Any => f.write_str("Any"),
            Self::Loopback => f.write_str("Loopback"),
            Self::LoopbackAnd(set) => f.debug_tuple("LoopbackAnd").field(set).finish(),
            Self::Only(set) => f.debug_tuple("Only").field(set).finish(),
            Self::Predicate(_) => f.write_str("Predicate(..)"),
        }
    }
}

impl Allow {
    /// Whether `value` is accepted; `is_loopback` tells whether it names a loopback host.
    pub(crate) fn accepts(&self, value: &str, is_loopback: impl Fn(&str) -> bool) -> bool {
        match self {
            Self::Any => true,
            Self::Loopback => is_loopback(value),
            Self::LoopbackAnd(set) => is_loopback(value) || set.contains(value),
            Self::Only(set) => set.contains(value),
            Self::Predicate(accept) => accept(value),
        }
    }
}

/// Which requests a posted `notifications/cancelled` may stop.
#[derive(Clone, Default)]
pub enum CancellationPolicy {
    /// None: on 2026-07-28 a client cancels by closing the request's response stream; a posted
    /// cancel is accepted and ignored.
    #[default]
    None,
    /// A posted cancel stops the request with that id of the same subject. The function names
    /// the subject of an HTTP request (e.g. from an `Authorization` header or a client
    /// certificate); requests without a subject cannot be cancelled this way.
    Subject(SubjectFn),
    /// A posted cancel stops the request with that id of the same authenticated caller: the
    /// subject of its verified token, else the client it was issued to. Needs
    /// [`HttpOptions::auth`]; unauthenticated requests cannot be cancelled this way.
    AuthSubject,
}

/// A function that names the subject of an HTTP request (see [`CancellationPolicy::Subject`]).
pub type SubjectFn = Arc<dyn Fn(&HeaderMap) -> Option<String> + Send + Sync>;

impl fmt::Debug for CancellationPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::None => f.write_str("None"),
            Self::Subject(_) => f.write_str("Subject(..)"),
            Self::AuthSubject => f.write_str("AuthSubject"),
        }
    }
}

/// Options of the Streamable HTTP server.
///
/// ```
/// use std::time::Duration;
/// use presa_http::HttpOptions;
///
/// let options = HttpOptions::default()
///     .port(8080)
///     .path("/api/mcp")
///     .keepalive(Duration::from_secs(30));
/// assert_eq!(options.get_path(), "/api/mcp");
/// ```
#[derive(Clone)]
pub struct HttpOptions {
    pub(crate) host: String,
    pub(crate) port: u16,
    pub(crate) path: String,
    pub(crate) allowed_origins: Allow,
    /// `None` until set: the default follows the address served on (see
    /// [`HttpOptions::allowed_hosts`]).
    pub(crate) allowed_hosts: Option<Allow>,
    pub(crate) max_body_bytes: usize,
    pub(crate) max_sessions: usize,
    pub(crate) max_sessions_per_caller: usize,
    pub(crate) max_connections: usize,
    pub(crate) max_batch_members: usize,
    pub(crate) header_read_timeout: Option<Duration>,
    pub(crate) body_timeout: Option<Duration>,
    pub(crate) keepalive: Duration,
    pub(crate) cancellation: CancellationPolicy,
    pub(crate) session_idle_timeout: Option<Duration>,
    pub(crate) event_buffer: usize,
    pub(crate) event_buffer_bytes: usize,
    pub(crate) retry: Duration,
    pub(crate) auth: Option<AuthOptions>,
    /// The Prometheus scrape endpoint served next to the MCP endpoint.
    #[cfg(feature = "prometheus")]
    pub(crate) metrics: Option<crate::PrometheusMetrics>,
}

impl fmt::Debug for HttpOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpOptions")
            .field("host", &self.host)
            .field("port", &self.port)
            .field("path", &self.path)
            .field("allowed_origins", &self.allowed_origins)
            .field("allowed_hosts", &self.allowed_hosts)
            .field("max_body_bytes", &self.max_body_bytes)
            .field("max_sessions", &self.max_sessions)
            .field("max_sessions_per_caller", &self.max_sessions_per_caller)
            .field("max_connections", &self.max_connections)
            .field("max_batch_members", &self.max_batch_members)
            .field("header_read_timeout", &self.header_read_timeout)
            .field("body_timeout", &self.body_timeout)
            .field("keepalive", &self.keepalive)
            .field("cancellation", &self.cancellation)
            .field("session_idle_timeout", &self.session_idle_timeout)
            .field("auth", &self.auth)
            .finish_non_exhaustive()
    }
}

impl Default for HttpOptions {
    /// Host 127.0.0.1, port 0 (a free port), path `/mcp`, origins loopback only, hosts as the
    /// address served on calls for (loopback names on a loopback address), bodies up to
    /// 2,000,000 bytes, at most 10,000 initialize-era sessions and 1,000 per authenticated
    /// caller, at most 512 connections ([`serve`](crate::serve)), 30 s to send a request's
    /// headers and 30 s its body, batches of at most 1,000 members, keepalive every 15 s, no
    /// posted cancellation, idle initialize-era sessions evicted after 30 minutes, 1,024 events
    /// kept per session for resumption and at most 1 MiB of them, clients told to retry after
    /// 1 s, no authorization.
    fn default() -> Self {
        Self {
            host: "127.0.0.1".into(),
            port: 0,
            path: "/mcp".into(),
            allowed_origins: Allow::Loopback,
            allowed_hosts: None,
            max_body_bytes: 2_000_000,
            max_sessions: 10_000,
            max_sessions_per_caller: 1_000,
            max_connections: 512,
            max_batch_members: presa_core::MAX_BATCH_MEMBERS,
            header_read_timeout: Some(Duration::from_secs(30)),
            body_timeout: Some(Duration::from_secs(30)),
            keepalive: Duration::from_millis(15_000),
            cancellation: CancellationPolicy::None,
            session_idle_timeout: Some(Duration::from_secs(30 * 60)),
            event_buffer: 1024,
            event_buffer_bytes: 1024 * 1024,
            retry: Duration::from_millis(1000),
            auth: None,
            #[cfg(feature = "prometheus")]
            metrics: None,
        }
    }
}

impl HttpOptions {
    /// Serves `metrics` for Prometheus to scrape, at their path (`/metrics` by default) next to
    /// the MCP endpoint, behind the same `Host` and `Origin` guards, and behind the bearer auth
    /// only when [`PrometheusMetrics::authenticated`](crate::PrometheusMetrics::authenticated)
    /// (feature `prometheus`).
    #[cfg(feature = "prometheus")]
    pub fn metrics(mut self, metrics: crate::PrometheusMetrics) -> Self {
        self.metrics = Some(metrics);
        self
    }

    /// The address to listen on ([`serve`](crate::serve)); for a [`router`](crate::router), the
    /// address its app listens on, which the default `Host` allow-list follows.
    pub fn host(mut self, host: impl Into<String>) -> Self {
        self.host = host.into();
        self
    }

    /// The port to listen on; 0 picks a free one ([`serve`](crate::serve) only).
    pub fn port(mut self, port: u16) -> Self {
        self.port = port;
        self
    }

    /// The endpoint's path.
    pub fn path(mut self, path: impl Into<String>) -> Self {
        self.path = path.into();
        self
    }

    /// Which `Origin` headers are accepted (others get 403: the DNS-rebinding guard). A request
    /// without `Origin` (not from a browser) is always accepted.
    pub fn allowed_origins(mut self, allow: Allow) -> Self {
        self.allowed_origins = allow;
        self
    }

    /// Which `Host` headers are accepted (others get 403: with the `Origin` check, the guard
    /// against DNS rebinding). By default this follows the address served on: on a loopback
    /// address only loopback names (`localhost`, `127.0.0.1`, `[::1]`, any port) are accepted,
    /// on any other address every `Host` is, with a warning logged once at start. For a
    /// [`router`](crate::router) mounted in an app of your own, the address is
    /// [`host`](Self::host)'s (default 127.0.0.1): set this when the app listens elsewhere.
    ///
    /// ```
    /// use std::collections::HashSet;
    /// use presa_http::{Allow, HttpOptions};
    ///
    /// let options = HttpOptions::default()
    ///     .host("0.0.0.0")
    ///     .allowed_hosts(Allow::Only(HashSet::from(["mcp.example.com".to_owned()])));
    /// # drop(options);
    /// ```
    pub fn allowed_hosts(mut self, allow: Allow) -> Self {
        self.allowed_hosts = Some(allow);
        self
    }

    /// The `Host` allow-list for a server on `ip` (the address bound, or [`host`](Self::host)
    /// read as one): the one set, else loopback names on a loopback address, else any, with a
    /// warning.
    pub(crate) fn hosts_allowed_on(&self, ip: Option<std::net::IpAddr>) -> Allow {
        if let Some(allow) = &self.allowed_hosts {
            return allow.clone();
        }
        let loopback = match ip {
            Some(ip) => ip.is_loopback(),
            None => super::reject::is_loopback_host(&self.host),
        };
        if loopback {
            return Allow::Loopback;
        }
        tracing::warn!(
            target: "presa_http",
            "serving on {} with no Host allow-list: any Host header is accepted; set \
             HttpOptions::allowed_hosts to guard against DNS rebinding",
            self.host
        );
        Allow::Any
    }

    /// The largest request body accepted (larger ones get 413).
    pub fn max_body_bytes(mut self, max: usize) -> Self {
        self.max_body_bytes = max;
        self
    }

    /// The most initialize-era sessions this endpoint holds live at once, those restored from
    /// a shared store included (default 10,000). At the limit, an `initialize` (or a restore)
    /// ends the least recently used quiet session here (no request using it, no stream open)
    /// to make room. With a store of one process the session is forgotten: its client gets 404
    /// and starts a new one, as after [`session_idle_timeout`](Self::session_idle_timeout). A
    /// shared store keeps its state, so its next request restores it (here or on another
    /// instance), taking a place in turn. Only when no session is quiet is the newcomer
    /// refused, with 503 and `Retry-After`. So a client that opens session after session
    /// pushes out its own first: a client that keeps a stream open, or that calls again sooner
    /// than the flood fills the table anew, keeps its session. Sessions also end by `DELETE`
    /// or after the idle timeout.
    pub fn max_sessions(mut self, max: usize) -> Self {
        self.max_sessions = max;
        self
    }

    /// The most initialize-era sessions one authenticated caller (see [`auth`](Self::auth))
    /// holds live on this endpoint at once (default 1,000); past it, 503 with `Retry-After`.
    /// Callers without an identity are bounded by [`max_sessions`](Self::max_sessions) only: an
    /// address is no identity behind a proxy or a NAT.
    pub fn max_sessions_per_caller(mut self, max: usize) -> Self {
        self.max_sessions_per_caller = max;
        self
    }

    /// The most connections [`serve`](crate::serve) holds open at once (default 512: half the
    /// usual soft limit of 1,024 file descriptors, leaving the rest to the listener, stores,
    /// outbound calls and the app; raise both together). One more is answered 503 with
    /// `Retry-After` and closed.
    /// For a [`router`](crate::router), the app's server sets this.
    pub fn max_connections(mut self, max: usize) -> Self {
        self.max_connections = max;
        self
    }

    /// The most members of a JSON-RPC batch (2025-03-26 sessions only; default 1,000): a
    /// larger batch is refused whole, before any member is decoded.
    pub fn max_batch_members(mut self, max: usize) -> Self {
        self.max_batch_members = max;
        self
    }

    /// How long [`serve`](crate::serve) waits for a request's headers (default 30 s, hyper's);
    /// a connection that has not sent them by then is closed. The time counts from when the
    /// connection is ready for a request (opened, or its last response sent), so it is the
    /// idle keep-alive timeout as well. For a [`router`](crate::router), the app's server sets
    /// this. `None` waits forever.
    pub fn header_read_timeout(mut self, timeout: Option<Duration>) -> Self {
        self.header_read_timeout = timeout;
        self
    }

    /// How long a POST may take to send its body once its headers are in (default 30 s); a
    /// slower one gets 408. Applies to a [`router`](crate::router) too. `None` waits forever.
    pub fn body_timeout(mut self, timeout: Option<Duration>) -> Self {
        self.body_timeout = timeout;
        self
    }

    /// How often idle event streams get an SSE comment, which also finds clients that left.
    pub fn keepalive(mut self, interval: Duration) -> Self {
        self.keepalive = interval;
        self
    }

    /// Which requests a posted `notifications/cancelled` may stop.
    pub fn cancellation(mut self, policy: CancellationPolicy) -> Self {
        self.cancellation = policy;
        self
    }

    /// How long an initialize-era session may stay idle before it is ended; `None` keeps
    /// sessions until the client deletes them. It is also the time to live of the session's
    /// state in the [`SessionStore`](crate::SessionStore), renewed by each request and, while
    /// a GET stream is open, by the endpoint's sweeps.
    pub fn session_idle_timeout(mut self, timeout: Option<Duration>) -> Self {
        self.session_idle_timeout = timeout;
        self
    }

    /// How many events a session keeps for `Last-Event-ID` resumption (default 1,024).
    pub fn event_buffer(mut self, events: usize) -> Self {
        self.event_buffer = events;
        self
    }

    /// How many bytes of events a session keeps for `Last-Event-ID` resumption (default
    /// 1 MiB); the oldest go first, and the newest event is kept whatever its size.
    pub fn event_buffer_bytes(mut self, bytes: usize) -> Self {
        self.event_buffer_bytes = bytes;
        self
    }

    /// The resumption buffer of a session.
    pub(crate) fn event_buffer_limits(&self) -> super::session::EventBuffer {
        super::session::EventBuffer {
            events: self.event_buffer,
            bytes: self.event_buffer_bytes,
        }
    }

    /// The SSE `retry` interval sent to 2025-11-25 clients.
    pub fn retry(mut self, retry: Duration) -> Self {
        self.retry = retry;
        self
    }

    /// Protects the endpoint with bearer tokens: an [`AuthLayer`](crate::AuthLayer) on it, and
    /// its protected resource metadata served at
    /// [`AuthOptions::metadata_path`] without a token.
    ///
    /// Handlers see the verified identity as
    /// [`Context::auth`](presa_server::Context::auth); an initialize-era session belongs to the
    /// caller who created it (another caller gets 404), and every request of it is checked.
    ///
    /// ```
    /// use presa_http::{AuthOptions, CancellationPolicy, HttpOptions, VerifyError};
    /// use presa_server::AuthInfo;
    ///
    /// let verify = |token: String| async move {
    ///     if token == "valid" { Ok(AuthInfo::new().with_subject("alice")) }
    ///     else { Err(VerifyError::Invalid("unknown token".into())) }
    /// };
    /// let options = HttpOptions::default()
    ///     .auth(AuthOptions::new("https://login.example.net", verify))
    ///     .cancellation(CancellationPolicy::AuthSubject);
    /// # let _ = options;
    /// ```
    pub fn auth(mut self, auth: AuthOptions) -> Self {
        self.auth = Some(auth);
        self
    }

    /// The endpoint's path.
    pub fn get_path(&self) -> &str {
        &self.path
    }
}
