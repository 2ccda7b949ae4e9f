//! RFC 9728 protected resource metadata: how a client finds out where to get a token.

use super::options::AuthOptions;
use axum::Router;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

impl AuthOptions {
    /// A router serving only the protected resource metadata of the endpoint at
    /// `endpoint_path`, at [`metadata_path`](Self::metadata_path). It needs no token.
    ///
    /// [`router`](crate::router) includes it; use this one with an [`AuthLayer`] on routes of
    /// your own.
    ///
    /// [`AuthLayer`]: crate::AuthLayer
    pub fn metadata_router<S: Clone + Send + Sync + 'static>(
        &self,
        endpoint_path: &str,
    ) -> Router<S> {
        let auth = self.clone();
        let path = endpoint_path.to_owned();
        Router::new().route(
            &self.metadata_path(endpoint_path),
            get(move |headers: HeaderMap| async move { metadata_response(&auth, &headers, &path) }),
        )
    }
}

/// The metadata as a JSON response.
fn metadata_response(auth: &AuthOptions, headers: &HeaderMap, path: &str) -> Response {
    let target = auth.target(headers, path);
    let body = match serde_json::to_string(&auth.metadata(&target.uri)) {
        Ok(body) => body,
        Err(_) => return StatusCode::INTERNAL_SERVER_ERROR.into_response(),
    };
    let mut response = (StatusCode::OK, body).into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}
