//! The request body size limit.
//!
//! A body declared larger than the limit (`Content-Length`) is answered with 413 at once; a body
//! without a length is cut off at the limit, and reading it past there fails, which the MCP
//! endpoint answers with 413 too. Nothing beyond the limit is held in memory.
//!
//! ```
//! use axum::{Router, routing::post};
//! use presa_http::BodyLimitLayer;
//!
//! let app: Router = Router::new()
//!     .route("/mcp", post(|body: String| async move { body }))
//!     .layer(BodyLimitLayer::new(64 * 1024));
//! ```

use std::task::{Context, Poll};

use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use axum::response::Response;
use futures_util::future::{Either, Ready, ready};
use http_body_util::Limited;
use presa_core::ErrorCode;
use tower::{Layer, Service};

use super::reject::reject;

/// Adds the [`BodyLimit`] to a service.
#[derive(Clone, Copy, Debug)]
pub struct BodyLimitLayer {
    max: usize,
}

impl BodyLimitLayer {
    /// Bodies of at most `max` bytes.
    pub fn new(max: usize) -> Self {
        Self { max }
    }
}

impl<S> Layer<S> for BodyLimitLayer {
    type Service = BodyLimit<S>;

    fn layer(&self, inner: S) -> Self::Service {
        BodyLimit {
            inner,
            max: self.max,
        }
    }
}

/// A service that refuses bodies over a size limit.
#[derive(Clone, Copy, Debug)]
pub struct BodyLimit<S> {
    inner: S,
    max: usize,
}

impl<S> Service<Request<Body>> for BodyLimit<S>
where
    S: Service<Request<Body>, Response = Response>,
{
    type Response = Response;
    type Error = S::Error;
    type Future = Either<Ready<Result<Response, S::Error>>, S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<Body>) -> Self::Future {
        let declared = request
            .headers()
            .get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<u64>().ok());
        if declared.is_some_and(|len| len > self.max as u64) {
            let message = format!("Payload too large: the limit is {} bytes", self.max);
            return Either::Left(ready(Ok(reject(
                StatusCode::PAYLOAD_TOO_LARGE,
                ErrorCode::INVALID_REQUEST,
                &message,
            ))));
        }
        let max = self.max;
        let request = request.map(|body| Body::new(Limited::new(body, max)));
        Either::Right(self.inner.call(request))
    }
}
