//! The `Host` allow-list.
//!
//! A server on a loopback address can refuse requests whose `Host` names another machine, which
//! closes the DNS-rebinding hole even for clients that send no `Origin`. `Allow::Loopback`
//! accepts `localhost`, `127.0.0.1` and `[::1]` with any port: what presa's endpoint uses by
//! default on a loopback address (see `HttpOptions::allowed_hosts`).
//!
//! ```
//! use axum::{Router, routing::post};
//! use presa_http::{Allow, HostLayer};
//!
//! let app: Router = Router::new()
//!     .route("/mcp", post(|| async { "ok" }))
//!     .layer(HostLayer::new(Allow::Loopback));
//! ```

use std::task::{Context, Poll};

use axum::http::{Request, StatusCode, header};
use axum::response::Response;
use futures_util::future::{Either, Ready, ready};
use presa_core::ErrorCode;
use tower::{Layer, Service};

use super::options::Allow;
use super::reject::{host_of, is_loopback_host, reject};

/// Adds the [`Host`] check to a service.
#[derive(Clone, Debug)]
pub struct HostLayer {
    allow: Allow,
}

impl HostLayer {
    /// Accept the `Host` values `allow` accepts.
    pub fn new(allow: Allow) -> Self {
        Self { allow }
    }
}

impl<S> Layer<S> for HostLayer {
    type Service = Host<S>;

    fn layer(&self, inner: S) -> Self::Service {
        Host {
            inner,
            allow: self.allow.clone(),
        }
    }
}

/// A service that answers 403 to requests whose `Host` is not allowed.
#[derive(Clone, Debug)]
pub struct Host<S> {
    inner: S,
    allow: Allow,
}

impl<S, B> Service<Request<B>> for Host<S>
where
    S: Service<Request<B>, Response = Response>,
{
    type Response = Response;
    type Error = S::Error;
    type Future = Either<Ready<Result<Response, S::Error>>, S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        let host = request
            .headers()
            .get(header::HOST)
            .and_then(|h| h.to_str().ok())
            .or_else(|| request.uri().authority().map(|a| a.as_str()));
        let allowed = match (&self.allow, host) {
            (super::options::Allow::Any, _) => true,
            (_, None) => false,
            (allow, Some(host)) => allow.accepts(host, |h| is_loopback_host(host_of(h))),
        };
        if allowed {
            Either::Right(self.inner.call(request))
        } else {
            Either::Left(ready(Ok(reject(
                StatusCode::FORBIDDEN,
                ErrorCode::INVALID_REQUEST,
                "Forbidden: this Host is not allowed (see HttpOptions::allowed_hosts)",
            ))))
        }
    }
}
