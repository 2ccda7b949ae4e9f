//! The `Origin` allow-list: the guard against DNS rebinding.
//!
//! A browser page on another site can make requests to a server on `localhost` once a DNS
//! rebinding attack points a host name at 127.0.0.1; the `Origin` header still names the
//! attacker's site. [`OriginLayer`] answers such requests with 403 before any MCP processing.
//! Requests without `Origin` (not sent by a browser) pass.
//!
//! Deployment note: behind a reverse proxy that rewrites `Origin`, configure the allow-list with
//! the origins the proxy forwards.
//!
//! ```
//! use axum::{Router, routing::post};
//! use presa_http::{Allow, OriginLayer};
//!
//! let app: Router = Router::new()
//!     .route("/mcp", post(|| async { "ok" }))
//!     .layer(OriginLayer::new(Allow::Loopback));
//! ```

use std::task::{Context, Poll};

use axum::http::{Request, StatusCode, header};
use axum::response::Response;
use futures_util::future::{Either, Ready, ready};
use presa_core::ErrorCode;
use tower::{Layer, Service};

use super::options::Allow;
use super::reject::{is_loopback_origin, reject};

/// Adds the [`Origin`] check to a service.
#[derive(Clone, Debug)]
pub struct OriginLayer {
    allow: Allow,
}

impl OriginLayer {
    /// Accept the `Origin` values `allow` accepts.
    pub fn new(allow: Allow) -> Self {
        Self { allow }
    }
}

impl<S> Layer<S> for OriginLayer {
    type Service = Origin<S>;

    fn layer(&self, inner: S) -> Self::Service {
        Origin {
            inner,
            allow: self.allow.clone(),
        }
    }
}

/// A service that answers 403 to requests whose `Origin` is not allowed.
#[derive(Clone, Debug)]
pub struct Origin<S> {
    inner: S,
    allow: Allow,
}

impl<S, B> Service<Request<B>> for Origin<S>
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
        let allowed = match request.headers().get(header::ORIGIN) {
            None => true,
            Some(origin) => origin
                .to_str()
                .is_ok_and(|o| self.allow.accepts(o, is_loopback_origin)),
        };
        if allowed {
            Either::Right(self.inner.call(request))
        } else {
            Either::Left(ready(Ok(reject(
                StatusCode::FORBIDDEN,
                ErrorCode::INVALID_REQUEST,
                "Forbidden: origin not allowed",
            ))))
        }
    }
}
