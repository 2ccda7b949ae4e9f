//! The Streamable HTTP client transport: [`client`] turns a server URL into the
//! [`ClientChannel`] a presa client connects over.
//!
//! The transport moves messages; the client decides the era (`server/discover`, falling back to
//! `initialize`), the ids, retries and timeouts. What the transport adds is what HTTP needs:
//!
//! - **Every message is a POST** with `Content-Type: application/json` and
//!   `Accept: application/json, text/event-stream`, each on a task of its own, so a long
//!   streamed response never holds up another request.
//! - **2026-07-28 messages** carry the SEP-2243 mirror headers the client's session gave them
//!   ([`Transmit::headers`](presa_core::Transmit::headers)): `MCP-Protocol-Version`,
//!   `Mcp-Method`, `Mcp-Name`, and `Mcp-Param-*` for the arguments a tool's `inputSchema`
//!   annotates with `x-mcp-header` (values that are not plain ASCII wrapped as `=?base64?…?=`).
//!   The transport reads no JSON to choose them: the revision of each message
//!   ([`Transmit::protocol_version`](presa_core::Transmit::protocol_version)) says its era.
//! - **Initialize-era sessions**: the `Mcp-Session-Id` of the `initialize` response and the
//!   session's `MCP-Protocol-Version` (2025-06-18 on, as the client's messages name it) go on
//!   every later request; after
//!   `notifications/initialized` the session's GET stream is opened (a 405 means the server
//!   offers none), and later messages wait for its response (2 s at most) so that nothing the
//!   server pushes there is lost; closing sends `DELETE`.
//! - **Answers** come as JSON or as an event stream; the stream's notifications and server
//!   requests are delivered as they arrive. An error status with a JSON-RPC error in the body
//!   is delivered as that error (it is the server's answer); without one the request fails
//!   with [`TransportEvent::RequestFailed`](presa_client::TransportEvent::RequestFailed).
//! - **Broken streams**: in the initialize era a stream that ends before its response is
//!   resumed with a GET carrying `Last-Event-ID`, after the server's `retry` delay; on
//!   2026-07-28 there is no resumption and the request fails.
//! - **Authorization**: a [`TokenProvider`] puts the credential on every request (POST, GET,
//!   DELETE) and is told about each `401` and `403`, and may have the request sent again.
//!   presa-oauth's `OAuthClient` is the provider that runs the MCP authorization flow: discovery,
//!   registration, the authorization code with PKCE, step-up, refresh, DPoP.
//! - **Cancellation**: a `notifications/cancelled` for a 2026-07-28 request closes that
//!   request's stream instead of being POSTed (on HTTP the closed stream is the cancellation);
//!   in the initialize era it is POSTed, and the stream is dropped too.
//!
//! `docs/transports.md` in the repository describes every rule, with examples.

mod conn;
mod driver;
mod error;
mod http_sse;
mod options;
mod post;
pub(crate) mod sse;
mod stream;
mod token;

use std::sync::Arc;

use presa_client::ClientChannel;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use tokio::sync::mpsc;

pub use error::HttpClientError;
pub use options::HttpClientOptions;
pub use token::{AuthRequest, Credential, Refusal, TokenError, TokenProvider};

/// How many messages may wait in each direction between the client and the transport.
const QUEUE: usize = 64;

/// The Streamable HTTP transport to the MCP endpoint at `url`: returns the channel a presa
/// client connects over.
///
/// Nothing is sent until the client sends its first message; a server that cannot be reached
/// shows up then, as a failed request. Must be called inside a tokio runtime (with I/O and
/// time enabled); the transport runs on tasks of that runtime until the client closes
/// (drops the channel's `outgoing`), which stops every stream, deletes an initialize-era
/// session and ends with [`TransportEvent::Closed`](presa_client::TransportEvent::Closed)`(None)`.
///
/// TLS is rustls (with the `ring` provider), trusting the Mozilla roots compiled in through
/// `webpki-roots`, not the operating system's store. HTTP proxies are taken from the usual
/// environment variables (`HTTPS_PROXY`, `NO_PROXY`, …), as reqwest does. Redirects are
/// followed only when they keep the method and body (`307`, `308`); `Authorization` is not
/// carried to another origin.
///
/// # Errors
///
/// [`HttpClientError::InvalidUrl`] unless `url` (a `&str`, `String`, or anything else that is
/// `AsRef<str>`) is an absolute `http` or `https` URL,
/// [`HttpClientError::InvalidHeader`] for a bad [`HttpClientOptions::header`],
/// [`HttpClientError::NoRuntime`] outside a tokio runtime, [`HttpClientError::Build`] if the
/// HTTP client cannot be built.
///
/// ```no_run
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// use presa_client::{Client, ClientOptions};
/// use presa_http::HttpClientOptions;
///
/// let channel = presa_http::client("http://127.0.0.1:8080/mcp", HttpClientOptions::default())?;
/// let client = Client::connect(channel, ClientOptions::default()).await?;
/// let tools = client.list_tools().await?;
/// println!("{} tools", tools.len());
/// client.close().await;
/// # Ok(())
/// # }
/// ```
pub fn client(
    url: impl AsRef<str>,
    options: HttpClientOptions,
) -> Result<ClientChannel, HttpClientError> {
    let url = url.as_ref();
    let invalid_url = |reason: String| HttpClientError::InvalidUrl {
        url: url.to_owned(),
        reason,
    };
    let parsed = reqwest::Url::parse(url).map_err(|e| invalid_url(e.to_string()))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(invalid_url("the scheme must be http or https".to_owned()));
    }
    let headers = header_map(&options.headers)?;
    let runtime = tokio::runtime::Handle::try_current().map_err(|_| HttpClientError::NoRuntime)?;
    let http = reqwest::Client::builder()
        .connect_timeout(options.connect_timeout)
        .redirect(redirect_policy())
        .build()
        .map_err(|e| HttpClientError::Build(Box::new(e)))?;

    let (outgoing, outgoing_rx) = mpsc::channel(QUEUE);
    // the server's messages waiting for the client: at most QUEUE of them, and twice the
    // largest message in bytes, whatever the client's pace
    let (events, incoming) =
        presa_client::incoming(QUEUE, options.max_message_bytes.saturating_mul(2));
    let conn = conn::Conn::new(
        http,
        parsed,
        headers,
        options.token_provider,
        options.max_message_bytes,
        events,
    );
    let driver = driver::Driver::new(Arc::new(conn), outgoing_rx);
    runtime.spawn(driver.run());
    Ok(ClientChannel::new(outgoing, incoming)
        .with_mirror_headers()
        .with_network("tcp", Some("http")))
}

/// Follows `307` and `308` (which keep the method and body) within the endpoint's origin, at
/// most 10 in a row; any other redirect is reported as the error status it is (a `302` would
/// turn a POST into a GET, and a redirect to another origin would hand it the body, the
/// session id, the `DPoP` proof and every custom header).
fn redirect_policy() -> reqwest::redirect::Policy {
    reqwest::redirect::Policy::custom(|attempt| {
        let keeps_method = matches!(
            attempt.status(),
            reqwest::StatusCode::TEMPORARY_REDIRECT | reqwest::StatusCode::PERMANENT_REDIRECT
        );
        let same_origin = attempt
            .previous()
            .first()
            .is_some_and(|first| first.origin() == attempt.url().origin());
        if !keeps_method || !same_origin {
            attempt.stop()
        } else if attempt.previous().len() >= 10 {
            attempt.error("too many redirects")
        } else {
            attempt.follow()
        }
    })
}

fn header_map(headers: &[(String, String)]) -> Result<HeaderMap, HttpClientError> {
    let mut map = HeaderMap::with_capacity(headers.len());
    for (name, value) in headers {
        let invalid = |reason: &str| HttpClientError::InvalidHeader {
            name: name.clone(),
            reason: reason.to_owned(),
        };
        let header = HeaderName::from_bytes(name.as_bytes())
            .map_err(|_| invalid("not a valid header name"))?;
        let mut value =
            HeaderValue::from_str(value).map_err(|_| invalid("not a valid header value"))?;
        value.set_sensitive(true);
        map.insert(header, value);
    }
    Ok(map)
}
