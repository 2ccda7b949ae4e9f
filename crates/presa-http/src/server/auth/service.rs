//! The service that checks bearer tokens.

use std::sync::Arc;
use std::task::{Context, Poll};

use axum::http::{Request, StatusCode};
use axum::response::Response;
use presa_core::ErrorCode;
use presa_server::{BoxFuture, InsufficientScope};
use tower::Service;

use super::super::reject::reject;
use super::challenge::{Bearer, Challenge, bearer};
use super::options::AuthOptions;
use super::verifier::VerifyError;

/// A service that lets through only requests with a valid bearer token, and tells the others
/// where to get one.
///
/// - No token: 401 with `WWW-Authenticate: Bearer resource_metadata="…"` (and `scope="…"` when
///   scopes are required server-wide).
/// - A token the verifier rejects: 401 with `error="invalid_token"` and its reason.
/// - Several `Authorization` headers or a malformed token: 400 with `error="invalid_request"`.
/// - A valid token lacking the server-wide scopes: 403 with `error="insufficient_scope"`.
/// - The verifier unavailable: 503.
///
/// A valid token's [`AuthInfo`](presa_server::AuthInfo) goes into the request's extensions for
/// the inner service. When the inner service answers 403 with an [`InsufficientScope`] in its
/// response's extensions (as the MCP endpoint does when a tool, resource or prompt needs more
/// scopes), the response gets the matching `insufficient_scope` challenge.
#[derive(Clone, Debug)]
pub struct Auth<S> {
    inner: S,
    options: Arc<AuthOptions>,
}

impl<S> Auth<S> {
    pub(crate) fn new(inner: S, options: Arc<AuthOptions>) -> Self {
        Self { inner, options }
    }
}

impl<S, B> Service<Request<B>> for Auth<S>
where
    S: Service<Request<B>, Response = Response> + Clone + Send + 'static,
    S::Future: Send + 'static,
    S::Error: Send + 'static,
    B: Send + 'static,
{
    type Response = Response;
    type Error = S::Error;
    type Future = BoxFuture<'static, Result<Response, S::Error>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: Request<B>) -> Self::Future {
        // the clone answers the next call; this call uses the service polled ready
        let clone = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, clone);
        let options = Arc::clone(&self.options);
        Box::pin(async move {
            let target = options.target(request.headers(), request.uri().path());
            let required = &options.required_scopes;
            let token = match bearer(request.headers()) {
                Bearer::Token(token) => token.to_owned(),
                Bearer::Missing => {
                    let challenge = Challenge {
                        scope: required.clone(),
                        ..Challenge::default()
                    };
                    return Ok(challenge.reject(
                        &target,
                        StatusCode::UNAUTHORIZED,
                        "Unauthorized: a bearer token is required",
                    ));
                }
                Bearer::Malformed(why) => {
                    let challenge = Challenge {
                        error: Some("invalid_request"),
                        description: Some(why),
                        ..Challenge::default()
                    };
                    let message = format!("Bad Request: {why}");
                    return Ok(challenge.reject(&target, StatusCode::BAD_REQUEST, &message));
                }
            };
            let info = match options.verifier.verify(&token).await {
                Ok(info) => info,
                Err(VerifyError::Invalid(why)) => {
                    let challenge = Challenge {
                        error: Some("invalid_token"),
                        scope: required.clone(),
                        description: Some(&why),
                    };
                    let message = format!("Unauthorized: {why}");
                    return Ok(challenge.reject(&target, StatusCode::UNAUTHORIZED, &message));
                }
                Err(VerifyError::Unavailable(why)) => {
                    tracing::warn!(target: "presa_http", "a token could not be checked: {why}");
                    return Ok(reject(
                        StatusCode::SERVICE_UNAVAILABLE,
                        ErrorCode::INTERNAL_ERROR,
                        "Service Unavailable: the token cannot be checked now",
                    ));
                }
            };
            if !info.has_scopes(required) {
                let description = format!("This server requires the scopes {}", required.join(" "));
                let challenge = Challenge {
                    error: Some("insufficient_scope"),
                    scope: required.clone(),
                    description: Some(&description),
                };
                return Ok(challenge.reject(
                    &target,
                    StatusCode::FORBIDDEN,
                    "Forbidden: insufficient scope",
                ));
            }
            request.extensions_mut().insert(info);
            let mut response = inner.call(request).await?;
            if response.status() == StatusCode::FORBIDDEN
                && let Some(needed) = response.extensions_mut().remove::<InsufficientScope>()
            {
                let challenge = Challenge {
                    error: Some("insufficient_scope"),
                    scope: {
                        let mut scope = required.to_vec();
                        presa_core::merge_scopes(&mut scope, needed.scopes());
                        scope
                    },
                    description: Some(needed.get_description()),
                };
                challenge.apply(&target, &mut response);
            }
            Ok(response)
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use axum::body::Body;
    use axum::response::IntoResponse;
    use presa_server::AuthInfo;
    use tower::{ServiceExt, service_fn};

    use super::*;
    use crate::server::auth::insufficient_scope_response;

    fn options() -> AuthOptions {
        let verify = |token: String| async move {
            match token.as_str() {
                "down" => Err(VerifyError::Unavailable("the JWKS is down".into())),
                _ => Ok(AuthInfo::new().with_subject(token).with_scopes(["mcp"])),
            }
        };
        AuthOptions::new("https://as", verify)
            .resource("https://rs/mcp")
            .required_scopes(["mcp"])
    }

    fn request(token: &str) -> Request<Body> {
        Request::post("/mcp")
            .header("authorization", format!("Bearer {token}"))
            .body(Body::empty())
            .unwrap()
    }

    #[tokio::test]
    async fn an_inner_insufficient_scope_gets_the_challenge() {
        let inner = service_fn(|request: Request<Body>| async move {
            let who = request.extensions().get::<AuthInfo>().cloned();
            assert_eq!(
                who.and_then(|a| a.subject().map(str::to_owned)).as_deref(),
                Some("alice")
            );
            let needed = InsufficientScope::new(["files:write"]).description("writing needs it");
            Ok::<_, std::convert::Infallible>(insufficient_scope_response("{}".into(), needed))
        });
        let service = Auth::new(inner, Arc::new(options()));
        let response = service.oneshot(request("alice")).await.unwrap();
        assert_eq!(response.status(), StatusCode::FORBIDDEN);
        assert_eq!(
            response.headers()["www-authenticate"],
            "Bearer error=\"insufficient_scope\", scope=\"mcp files:write\", resource_metadata=\"https://rs/.well-known/oauth-protected-resource/mcp\", error_description=\"writing needs it\""
        );
        assert!(response.extensions().get::<InsufficientScope>().is_none());
    }

    #[tokio::test]
    async fn an_unavailable_verifier_is_503_without_a_challenge() {
        let inner = service_fn(|_: Request<Body>| async {
            Ok::<_, std::convert::Infallible>(StatusCode::OK.into_response())
        });
        let service = Auth::new(inner, Arc::new(options()));
        let response = service.oneshot(request("down")).await.unwrap();
        assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert!(response.headers().get("www-authenticate").is_none());
    }
}
