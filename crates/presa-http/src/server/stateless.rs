//! 2026-07-28 requests: each POST stands alone, checked in the order the conformance runner
//! probes, answered with JSON or, once the handler reports progress or logs, an SSE stream.

use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use futures_util::FutureExt;
use presa_core::{
    ClientContext, Era, ErrorCode, ErrorObject, LoggingLevel, LoggingMessageNotificationParams,
    Message, Meta, Notification, ProgressNotificationParams, ProgressToken, ProtocolVersion,
    RawJson, ReceivedHeaders, Request, RequestId, RequestMeta, http_status,
};
use presa_server::{AuthInfo, BoxFuture, Cancellation, Context, InsufficientScope, Peer};
use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;
use tokio::sync::mpsc;
use tokio::sync::mpsc::error::TrySendError;
use tokio::task::AbortHandle;

use super::auth::insufficient_scope_response;
use super::endpoint::Shared;
use super::sse::{event, json_response, sse_response};

/// Methods 2026-07-28 removed: unknown there, whatever the server defines.
const REMOVED: &[&str] = &[
    "initialize",
    "ping",
    "logging/setLevel",
    "resources/subscribe",
    "resources/unsubscribe",
    "tasks/result",
    "tasks/list",
];

/// A JSON error response with the status the error's code calls for on 2026-07-28.
pub(crate) fn error_response(id: Option<RequestId>, error: ErrorObject) -> Response {
    let status = StatusCode::from_u16(http_status(error.code, Era::Stateless))
        .unwrap_or(StatusCode::BAD_REQUEST);
    json_response(
        status,
        Message::Response(presa_core::Response::error(id, error)).to_json(),
    )
}

/// Serves one 2026-07-28 request.
pub(crate) async fn request(
    shared: Shared,
    headers: &HeaderMap,
    request: Request,
    auth: Option<Arc<AuthInfo>>,
) -> Response {
    let id = request.id.clone();
    match check(&shared, headers, &request) {
        Ok(checked) => run(shared, headers, request, checked, auth).await,
        Err(error) => error_response(Some(id), error),
    }
}

fn received(headers: &HeaderMap) -> ReceivedHeaders {
    ReceivedHeaders::from_pairs(
        headers
            .iter()
            .map(|(name, value)| (name.as_str(), value.as_bytes())),
    )
}

/// What a request passed its checks with: its `_meta` read, the version negotiated, and the raw
/// `_meta` itself for the handler's context.
struct Checked {
    meta: RequestMeta,
    version: ProtocolVersion,
    raw_meta: Option<Meta>,
}

/// The params members the routing checks read, without parsing the rest (`_meta` included) into
/// a `Value`.
#[derive(Default, Deserialize)]
struct RoutingProbe {
    #[serde(default)]
    name: Option<Value>,
    #[serde(default)]
    uri: Option<Value>,
    #[serde(default, rename = "taskId")]
    task_id: Option<Value>,
    #[serde(default)]
    arguments: Option<Box<RawValue>>,
}

impl RoutingProbe {
    /// The probe of raw params; `None` when they must be read in full (not an object, or one
    /// the probe cannot take, such as one with a duplicate member).
    fn of(raw: &RawValue) -> Option<Self> {
        if !raw.get().trim_start().starts_with('{') {
            return None;
        }
        serde_json::from_str(raw.get()).ok()
    }

    fn field(&self, name: &str) -> Option<&Value> {
        match name {
            "name" => self.name.as_ref(),
            "uri" => self.uri.as_ref(),
            "taskId" => self.task_id.as_ref(),
            _ => None,
        }
    }
}

/// The header and `_meta` checks, in the runner's order.
fn check(shared: &Shared, headers: &HeaderMap, request: &Request) -> Result<Checked, ErrorObject> {
    let received = received(headers);
    received.check_protocol_version()?;
    // `_meta` is parsed once, for the checks and for the handler's context
    let raw_meta = presa_core::params_meta(request.params.as_deref());
    let meta = match &raw_meta {
        Some(raw_meta) => RequestMeta::from_meta(raw_meta)?,
        // no `_meta`, or params that cannot be read: the error `from_params` reports
        None => RequestMeta::from_params(request.params.as_deref())?,
    };
    received.check_protocol_version_matches(&meta.protocol_version)?;
    let version = meta.negotiate(shared.server.supported_versions())?;
    match request
        .params
        .as_deref()
        .map(|raw| (raw, RoutingProbe::of(raw)))
    {
        Some((_, Some(probe))) => check_params(shared, &received, request, &probe)?,
        None => check_params(shared, &received, request, &RoutingProbe::default())?,
        Some((raw, None)) => {
            let params: Value = serde_json::from_str(raw.get())
                .map_err(|e| ErrorObject::invalid_params(format!("Invalid params: {e}")))?;
            check_params_value(shared, &received, request, Some(&params))?;
        }
    }
    Ok(Checked {
        meta,
        version,
        raw_meta,
    })
}

/// The routing and `Mcp-Param-*` checks, on the probed params.
fn check_params(
    shared: &Shared,
    received: &ReceivedHeaders,
    request: &Request,
    probe: &RoutingProbe,
) -> Result<(), ErrorObject> {
    received.check_method(&request.method)?;
    let body_value =
        presa_core::mcp_name_field(&request.method).and_then(|field| probe.field(field)?.as_str());
    received.check_name(&request.method, body_value)?;
    if REMOVED.contains(&request.method.as_str()) {
        return Err(ErrorObject::method_not_found(&request.method));
    }
    if request.method == "tools/call" {
        let name = probe.name.as_ref().and_then(Value::as_str);
        if let Some(param_headers) = name.and_then(|name| shared.server.tool_param_headers(name)) {
            let arguments: Option<Value> = match &probe.arguments {
                Some(raw) => Some(
                    serde_json::from_str(raw.get())
                        .map_err(|e| ErrorObject::invalid_params(format!("Invalid params: {e}")))?,
                ),
                None => None,
            };
            received.check_params(&param_headers, arguments.as_ref())?;
        }
    }
    Ok(())
}

/// The routing and `Mcp-Param-*` checks, on params read in full.
fn check_params_value(
    shared: &Shared,
    received: &ReceivedHeaders,
    request: &Request,
    params: Option<&Value>,
) -> Result<(), ErrorObject> {
    received.check_routing(&request.method, params)?;
    if REMOVED.contains(&request.method.as_str()) {
        return Err(ErrorObject::method_not_found(&request.method));
    }
    if request.method == "tools/call" {
        let name = params.and_then(|p| p.get("name")).and_then(Value::as_str);
        if let Some(param_headers) = name.and_then(|name| shared.server.tool_param_headers(name)) {
            let arguments = params.and_then(|p| p.get("arguments"));
            received.check_params(&param_headers, arguments)?;
        }
    }
    Ok(())
}

/// What a running request produces, in order.
enum Frame {
    Notification(Notification),
    Done(Result<RawJson, ErrorObject>),
}

/// Aborts the request's task when the response (JSON or SSE) is dropped before it finished:
/// on 2026-07-28 a client closing the stream cancels the request.
struct AbortOnDrop {
    /// `None` when the handler finished at once, without a task.
    task: Option<AbortHandle>,
    cancellation: Cancellation,
    registration: Option<(Shared, String, RequestId)>,
}

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.cancellation.cancel();
        if let Some(task) = &self.task {
            task.abort();
        }
        if let Some((shared, subject, id)) = self.registration.take() {
            shared.forget_cancellable(&subject, &id);
        }
    }
}

async fn run(
    shared: Shared,
    headers: &HeaderMap,
    request: Request,
    checked: Checked,
    auth: Option<Arc<AuthInfo>>,
) -> Response {
    let Checked {
        meta,
        version,
        raw_meta: request_meta,
    } = checked;
    let (frames_tx, mut frames) = mpsc::channel::<Frame>(64);
    let peer = Arc::new(StatelessPeer {
        frames: frames_tx.clone(),
        progress_token: meta.progress_token.clone(),
        last_progress: Mutex::new(None),
        log_level: meta
            .log_level
            .filter(|_| shared.server.capabilities().logging.is_some()),
    });
    let client = ClientContext {
        protocol_version: version,
        capabilities: meta.client_capabilities,
        client_info: meta.client_info,
    };
    let cancellation = Cancellation::new();
    let mut cx = Context::new(
        request.id.clone(),
        client,
        request_meta,
        peer,
        cancellation.clone(),
    );
    if let Some(auth) = &auth {
        cx = cx.with_auth(Arc::clone(auth));
    }
    let server = shared.server.clone();
    let (method, params) = (request.method, request.params);
    let listen =
        (method == "subscriptions/listen").then(|| shared.remember_listen(cancellation.clone()));
    let forget = shared.clone();
    let mut handling = Box::pin(async move {
        let result = server.handle(&method, params.as_deref(), cx).await;
        if let Some(key) = listen {
            forget.forget_listen(key);
        }
        result
    });
    // a handler that finishes at once (a sync tool, a listing) is answered without a task of
    // its own; what it sent on its way is already queued before its result
    // (a panic while starting the request, outside the handler's own guard, is an internal
    // error rather than a dropped connection)
    let polled = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        handling.as_mut().now_or_never()
    }))
    .unwrap_or_else(|_| {
        Some(Err(ErrorObject::internal_error(
            "the request's handling panicked",
        )))
    });
    let task = match polled {
        Some(result) => {
            if let Err(TrySendError::Full(done)) = frames_tx.try_send(Frame::Done(result)) {
                let frames_tx = frames_tx.clone();
                tokio::spawn(async move {
                    let _ = frames_tx.send(done).await;
                });
            }
            None
        }
        None => {
            let frames_tx = frames_tx.clone();
            Some(tokio::spawn(async move {
                let result = handling.await;
                let _ = frames_tx.send(Frame::Done(result)).await;
            }))
        }
    };
    drop(frames_tx);
    let subject = shared
        .subject(headers, auth.as_deref())
        .filter(|_| task.is_some());
    if let (Some(subject), Some(task)) = (&subject, &task) {
        shared.remember_cancellable(
            subject,
            &request.id,
            task.abort_handle(),
            cancellation.clone(),
        );
    }
    let guard = AbortOnDrop {
        task: task.map(|task| task.abort_handle()),
        cancellation,
        registration: subject.map(|s| (shared.clone(), s, request.id.clone())),
    };
    match frames.recv().await {
        Some(Frame::Done(result)) => {
            drop(guard);
            match result {
                Ok(raw) => json_response(StatusCode::OK, response_json(&request.id, Ok(raw))),
                Err(error) => match InsufficientScope::from_error(&error) {
                    Some(needed) => {
                        insufficient_scope_response(response_json(&request.id, Err(error)), needed)
                    }
                    None => error_response(Some(request.id), error),
                },
            }
        }
        Some(Frame::Notification(first)) => {
            let (events_tx, events) = mpsc::channel::<Bytes>(64);
            let id = request.id;
            tokio::spawn(async move {
                if events_tx
                    .send(event(None, &Message::Notification(first).to_json(), None))
                    .await
                    .is_err()
                {
                    return;
                }
                while let Some(frame) = frames.recv().await {
                    let (data, done) = match frame {
                        Frame::Notification(n) => (Message::Notification(n).to_json(), false),
                        Frame::Done(result) => (response_json(&id, result), true),
                    };
                    if events_tx.send(event(None, &data, None)).await.is_err() || done {
                        return;
                    }
                }
            });
            sse_response(events, Some(shared.options.keepalive), guard)
        }
        // the task ended without a result: it panicked outside the handler or was aborted
        None => error_response(
            Some(request.id),
            ErrorObject::internal_error("the request ended without a result"),
        ),
    }
}

fn response_json(id: &RequestId, result: Result<RawJson, ErrorObject>) -> String {
    let response = match result {
        Ok(raw) => presa_core::Response {
            id: Some(id.clone()),
            payload: presa_core::ResponsePayload::Result(raw),
        },
        Err(error) => presa_core::Response::error(Some(id.clone()), error),
    };
    Message::Response(response).to_json()
}

/// Progress and log messages of one 2026-07-28 request, onto its own response.
#[derive(Debug)]
struct StatelessPeer {
    frames: mpsc::Sender<Frame>,
    progress_token: Option<ProgressToken>,
    last_progress: Mutex<Option<f64>>,
    /// The request's log level, when it set one and the server logs at all.
    log_level: Option<LoggingLevel>,
}

impl Peer for StatelessPeer {
    fn progress(
        &self,
        _: &RequestId,
        progress: f64,
        total: Option<f64>,
        message: Option<String>,
    ) -> BoxFuture<'static, ()> {
        let Some(token) = self.progress_token.clone() else {
            return Box::pin(async {});
        };
        {
            let Ok(mut last) = self.last_progress.lock() else {
                return Box::pin(async {});
            };
            if !progress.is_finite() || last.is_some_and(|l| progress <= l) {
                return Box::pin(async {});
            }
            *last = Some(progress);
        }
        let mut params = ProgressNotificationParams::new(token, progress, total);
        params.message = message;
        self.send(Notification::new("notifications/progress", &params))
    }

    fn log(
        &self,
        _: &RequestId,
        level: LoggingLevel,
        logger: Option<String>,
        data: Value,
    ) -> BoxFuture<'static, ()> {
        match self.log_level {
            Some(min) if level >= min => {
                let params = LoggingMessageNotificationParams {
                    level,
                    logger,
                    data,
                    meta: None,
                };
                self.send(Notification::new("notifications/message", &params))
            }
            _ => Box::pin(async {}),
        }
    }

    fn notify(&self, _: &RequestId, notification: Notification) -> BoxFuture<'static, ()> {
        self.send(Ok(notification))
    }
}

impl StatelessPeer {
    fn send(
        &self,
        notification: Result<Notification, serde_json::Error>,
    ) -> BoxFuture<'static, ()> {
        let frames = self.frames.clone();
        Box::pin(async move {
            if let Ok(notification) = notification {
                let _ = frames.send(Frame::Notification(notification)).await;
            }
        })
    }
}

/// A posted notification on the 2026-07-28 path: accepted (202); a `notifications/cancelled`
/// stops a request of the same subject when the server allows that.
pub(crate) fn notification(
    shared: &Shared,
    headers: &HeaderMap,
    notification: &Notification,
    auth: Option<&AuthInfo>,
) -> Response {
    if notification.method == "notifications/cancelled"
        && let Some(subject) = shared.subject(headers, auth)
        && let Some(params) = &notification.params
        && let Ok(params) =
            serde_json::from_str::<presa_core::CancelledNotificationParams>(params.get())
        && let Some(id) = params.request_id
    {
        shared.cancel(&subject, &id);
    }
    accepted()
}

/// 202 Accepted, no body.
pub(crate) fn accepted() -> Response {
    axum::response::IntoResponse::into_response(StatusCode::ACCEPTED)
}

/// A parse or shape error before the era is known.
pub(crate) fn bad_message(
    code: ErrorCode,
    message: String,
    id: Option<RequestId>,
    status: StatusCode,
) -> Response {
    json_response(
        status,
        Message::Response(presa_core::Response::error(
            id,
            ErrorObject::new(code, message),
        ))
        .to_json(),
    )
}
