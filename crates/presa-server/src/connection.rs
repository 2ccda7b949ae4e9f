//! The connection layer: one peer's session over a pair of channels, each request on its own
//! task.

use std::collections::HashMap;
use std::sync::Arc;

use presa_core::{
    ErrorObject, LoggingLevel, Message, Notification, Packet, RawJson, RequestId, Response,
    ServerEvent, ServerSession, Transmit, decode_packet,
};
use presa_core::{RequestError, RequestOptions};
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};
use tokio::task::AbortHandle;
use tokio::time::Instant;

use crate::auth::AuthInfo;
use crate::context::{BoxFuture, Cancellation, Context, Peer};
use crate::events::{Change, list_changed_method};
use crate::input::InputError;
use crate::server::Server;

/// What a transport hands the connection layer.
#[derive(Debug)]
#[non_exhaustive]
pub enum Incoming {
    /// Undecoded bytes of one frame (a stdio line); decoding errors are answered with `-32700`
    /// or `-32600`.
    Frame(Vec<u8>),
    /// A message the transport already decoded.
    Message(Message),
    /// A decoded message with the identity the transport verified for it (an authenticated HTTP
    /// request); a request's handler sees it as [`Context::auth`], instead of the connection's
    /// [`ConnectionOptions::auth`].
    Authenticated(Message, Arc<AuthInfo>),
}

/// The server's end of a transport: frames in, messages out.
///
/// When `incoming` ends, the connection finishes the requests in flight, sends their
/// responses, and returns. If `outgoing` closes, requests in flight are abandoned.
#[derive(Debug)]
pub struct ServerChannel {
    /// What the client sent.
    pub incoming: mpsc::Receiver<Incoming>,
    /// What to send to the client, in order.
    pub outgoing: mpsc::Sender<Transmit>,
}

/// Tunables of one connection.
///
/// ```
/// let options = presa_server::ConnectionOptions::default().max_in_flight(16);
/// assert_eq!(options.get_max_in_flight(), 16);
/// ```
#[derive(Clone, Debug)]
pub struct ConnectionOptions {
    max_in_flight: usize,
    auth: Option<Arc<AuthInfo>>,
}

impl Default for ConnectionOptions {
    /// At most 128 requests served at once; no identity.
    fn default() -> Self {
        Self {
            max_in_flight: 128,
            auth: None,
        }
    }
}

impl ConnectionOptions {
    /// How many requests are served at once; past that the connection stops reading input, so a
    /// flooding peer is slowed down instead of buffered (at least 1).
    pub fn max_in_flight(mut self, max: usize) -> Self {
        self.max_in_flight = max.max(1);
        self
    }

    /// The identity of everyone on this connection, for transports that authenticate the
    /// connection as a whole (e.g. a stdio server trusting the user who started it with the
    /// scopes its tools require). Requests see it as [`Context::auth`] unless they arrive as
    /// [`Incoming::Authenticated`].
    ///
    /// ```
    /// use presa_server::{AuthInfo, ConnectionOptions};
    ///
    /// let options = ConnectionOptions::default()
    ///     .auth(AuthInfo::new().with_subject("local-user").with_scopes(["files:write"]));
    /// assert_eq!(options.get_auth().and_then(|a| a.subject()), Some("local-user"));
    /// ```
    pub fn auth(mut self, auth: impl Into<Arc<AuthInfo>>) -> Self {
        self.auth = Some(auth.into());
        self
    }

    /// The identity of everyone on this connection.
    pub fn get_auth(&self) -> Option<&AuthInfo> {
        self.auth.as_deref()
    }

    /// The limit on requests served at once.
    pub fn get_max_in_flight(&self) -> usize {
        self.max_in_flight
    }
}

/// What handler tasks ask of the task that owns the session.
enum Command {
    Respond {
        id: RequestId,
        result: Result<RawJson, ErrorObject>,
    },
    Progress {
        id: RequestId,
        progress: f64,
        total: Option<f64>,
        message: Option<String>,
    },
    Log {
        id: RequestId,
        level: LoggingLevel,
        logger: Option<String>,
        data: Value,
    },
    Request {
        related: RequestId,
        method: String,
        params: Value,
        reply: oneshot::Sender<Result<Value, InputError>>,
    },
    Notify {
        related: RequestId,
        notification: Notification,
    },
}

#[derive(Debug)]
struct ConnectionPeer {
    commands: mpsc::Sender<Command>,
}

impl Peer for ConnectionPeer {
    fn progress(
        &self,
        request: &RequestId,
        progress: f64,
        total: Option<f64>,
        message: Option<String>,
    ) -> BoxFuture<'static, ()> {
        let commands = self.commands.clone();
        let command = Command::Progress {
            id: request.clone(),
            progress,
            total,
            message,
        };
        Box::pin(async move {
            let _ = commands.send(command).await;
        })
    }

    fn log(
        &self,
        request: &RequestId,
        level: LoggingLevel,
        logger: Option<String>,
        data: Value,
    ) -> BoxFuture<'static, ()> {
        let commands = self.commands.clone();
        let command = Command::Log {
            id: request.clone(),
            level,
            logger,
            data,
        };
        Box::pin(async move {
            let _ = commands.send(command).await;
        })
    }

    fn request(
        &self,
        related: &RequestId,
        method: &str,
        params: Value,
    ) -> BoxFuture<'static, Result<Value, InputError>> {
        let commands = self.commands.clone();
        let (reply, answer) = oneshot::channel();
        let command = Command::Request {
            related: related.clone(),
            method: method.to_owned(),
            params,
            reply,
        };
        Box::pin(async move {
            if commands.send(command).await.is_err() {
                return Err(InputError::Unavailable("the session ended".into()));
            }
            answer
                .await
                .unwrap_or_else(|_| Err(InputError::Unavailable("the session ended".into())))
        })
    }

    fn notify(&self, related: &RequestId, notification: Notification) -> BoxFuture<'static, ()> {
        let commands = self.commands.clone();
        let command = Command::Notify {
            related: related.clone(),
            notification,
        };
        Box::pin(async move {
            let _ = commands.send(command).await;
        })
    }
}

fn now() -> std::time::Instant {
    Instant::now().into_std()
}

/// Serves `server` to one peer over `channel` until the peer's input ends and every request in
/// flight has been answered.
///
/// A request whose handling finishes on its first poll (a `tool_sync` tool, a listing) is
/// answered at once on the connection's task; any other runs on a task of its own, and
/// `notifications/cancelled` aborts it (no response is sent). So a sync handler holds up the
/// connection while it runs: long or blocking work belongs in an async handler (with
/// `tokio::task::spawn_blocking` for blocking calls). Progress and log messages reach the peer
/// only when the request asked for them. With the server's `list_changed` option, an
/// initialize-era peer is told when lists change.
pub async fn serve_connection(server: Server, channel: ServerChannel, options: ConnectionOptions) {
    let ServerChannel {
        mut incoming,
        outgoing,
    } = channel;
    let mut session = ServerSession::new(server.shared_session_config());
    let (commands_tx, mut commands) = mpsc::channel::<Command>(256);
    let peer: Arc<dyn Peer> = Arc::new(ConnectionPeer {
        commands: commands_tx.clone(),
    });
    let mut in_flight: HashMap<RequestId, (AbortHandle, Cancellation)> = HashMap::new();
    // 2026-07-28 listens in flight: they never finish by themselves, so they are ended
    // (gracefully, with their result) when the input ends
    let mut listens: std::collections::HashSet<RequestId> = std::collections::HashSet::new();
    let mut waiting: HashMap<RequestId, oneshot::Sender<Result<Value, InputError>>> =
        HashMap::new();
    let mut changes = server.changes();
    // initialize-era resource subscriptions of this session
    let mut subscribed: std::collections::HashSet<String> = std::collections::HashSet::new();
    let mut input_open = true;
    // the identity of the input being handled: its requests are queued as events at once and
    // drained before the next input is read
    let mut auth = options.auth.clone();

    loop {
        // outputs: messages, then events (which may produce messages again), then the deadline
        let mut produced = false;
        while let Some(transmit) = session.poll_transmit() {
            if outgoing.send(transmit).await.is_err() {
                abort_all(&mut in_flight);
                return;
            }
        }
        while let Some(event) = session.poll_event() {
            produced = true;
            match event {
                ServerEvent::Request(request) => {
                    let Started {
                        id,
                        mut handling,
                        cancellation,
                        listen,
                    } = match start(&server, &mut subscribed, request, &peer, auth.as_ref()) {
                        Start::Answered(id, result) => {
                            session.respond(&id, result);
                            continue;
                        }
                        Start::Handling(started) => started,
                    };
                    if listen {
                        listens.insert(id.clone());
                    }
                    // a handler that finishes at once (a sync tool, a listing) is answered here,
                    // without a task of its own or a trip through the command queue
                    if let Some(result) = poll_once(&mut handling) {
                        // what it sent on its way (progress, logs) goes out before its answer
                        while let Ok(command) = commands.try_recv() {
                            apply(
                                command,
                                &mut session,
                                &mut in_flight,
                                &mut listens,
                                &mut waiting,
                                Some(&id),
                            );
                        }
                        listens.remove(&id);
                        session.respond(&id, result);
                        continue;
                    }
                    let commands = commands_tx.clone();
                    let task_id = id.clone();
                    let task = tokio::spawn(async move {
                        let result = guarded(handling).await;
                        let _ = commands
                            .send(Command::Respond {
                                id: task_id,
                                result,
                            })
                            .await;
                    });
                    in_flight.insert(id, (task.abort_handle(), cancellation));
                }
                ServerEvent::Cancelled { id, .. } => {
                    listens.remove(&id);
                    if let Some((task, cancellation)) = in_flight.remove(&id) {
                        cancellation.cancel();
                        task.abort();
                    }
                }
                ServerEvent::Response { id, outcome, .. } => {
                    if let Some(reply) = waiting.remove(&id) {
                        let _ = reply.send(answer_of(outcome));
                    }
                }
                // Initialized, progress on server requests and other notifications: nothing to do.
                _ => {}
            }
        }
        if produced {
            continue;
        }
        if !input_open && in_flight.is_empty() {
            return;
        }
        let deadline = session.poll_timeout().map(Instant::from_std);
        let reading = input_open && in_flight.len() < options.max_in_flight;
        tokio::select! {
            biased;
            Some(command) = commands.recv() => {
                apply(command, &mut session, &mut in_flight, &mut listens, &mut waiting, None);
            },
            input = incoming.recv(), if reading => match input {
                Some(Incoming::Message(message)) => {
                    auth.clone_from(&options.auth);
                    session.handle_message(now(), message);
                }
                Some(Incoming::Authenticated(message, identity)) => {
                    auth = Some(identity);
                    session.handle_message(now(), message);
                }
                Some(Incoming::Frame(bytes)) => {
                    auth.clone_from(&options.auth);
                    for rejection in take_frame(&mut session, &bytes) {
                        if outgoing.send(Transmit { message: rejection.into(), related_request: None }).await.is_err() {
                            abort_all(&mut in_flight);
                            return;
                        }
                    }
                }
                None => {
                    input_open = false;
                    for id in listens.drain() {
                        if let Some((_, cancellation)) = in_flight.get(&id) {
                            cancellation.cancel();
                        }
                    }
                }
            },
            change = changes.recv() => {
                if let Ok(change) = change {
                    announce(&server, &mut session, &subscribed, change);
                }
            },
            () = sleep_until(deadline), if deadline.is_some() => session.handle_timeout(now()),
        }
    }
}

/// Carries out what a handler asked of the session; `inline` is the request whose handler just
/// finished on its first poll (still in flight, though not in `in_flight`).
fn apply(
    command: Command,
    session: &mut ServerSession,
    in_flight: &mut HashMap<RequestId, (AbortHandle, Cancellation)>,
    listens: &mut std::collections::HashSet<RequestId>,
    waiting: &mut HashMap<RequestId, oneshot::Sender<Result<Value, InputError>>>,
    inline: Option<&RequestId>,
) {
    match command {
        Command::Respond { id, result } => {
            listens.remove(&id);
            if in_flight.remove(&id).is_some() {
                session.respond(&id, result);
            }
        }
        Command::Progress {
            id,
            progress,
            total,
            message,
        } => {
            let _ = session.progress(&id, progress, total, message);
        }
        Command::Notify {
            related,
            notification,
        } => {
            // only while the request is in flight: nothing follows a response
            if in_flight.contains_key(&related) || inline == Some(&related) {
                session.notify(notification, Some(related));
            }
        }
        Command::Request {
            related,
            method,
            params,
            reply,
        } => {
            let params = match params {
                Value::Object(map) => Some(map),
                _ => None,
            };
            let options = RequestOptions::default();
            match session.send_request(now(), &method, params, &options, Some(related)) {
                Ok(id) => {
                    waiting.insert(id, reply);
                }
                Err(error) => {
                    let _ = reply.send(Err(InputError::Unavailable(error.to_string())));
                }
            }
        }
        Command::Log {
            id,
            level,
            logger,
            data,
        } => {
            session.log(Some(&id), level, logger.as_deref(), data);
        }
    }
}

/// What a connection does with a request its session handed over.
pub(crate) enum Start {
    /// Answered already: an initialize-era `resources/subscribe` or `unsubscribe`, whose
    /// subscriptions live with the connection.
    Answered(RequestId, Result<RawJson, ErrorObject>),
    /// To be handled.
    Handling(Started),
}

/// A request's handling, ready to be polled, with what the connection keeps of it.
pub(crate) struct Started {
    pub(crate) id: RequestId,
    /// The dispatcher's answer to it, not yet polled.
    pub(crate) handling: BoxFuture<'static, Result<RawJson, ErrorObject>>,
    pub(crate) cancellation: Cancellation,
    /// Whether it is a 2026-07-28 `subscriptions/listen`, which never ends by itself.
    pub(crate) listen: bool,
}

/// Starts a request: its context (with `auth`, the identity verified for it, if any) and its
/// handling, or its answer when the connection serves it itself.
pub(crate) fn start(
    server: &Server,
    subscribed: &mut std::collections::HashSet<String>,
    request: presa_core::IncomingRequest,
    peer: &Arc<dyn Peer>,
    auth: Option<&Arc<AuthInfo>>,
) -> Start {
    if request.client.protocol_version.era() == presa_core::Era::Initialize
        && let Some(result) = subscription_request(
            server,
            subscribed,
            &request.method,
            request.params.as_deref(),
        )
    {
        return Start::Answered(request.id, result);
    }
    let cancellation = Cancellation::new();
    let mut cx = Context::new(
        request.id.clone(),
        request.client,
        request.meta,
        Arc::clone(peer),
        cancellation.clone(),
    );
    if let Some(auth) = auth {
        cx = cx.with_auth(Arc::clone(auth));
    }
    let listen = request.method == "subscriptions/listen";
    let (server, method, params) = (server.clone(), request.method, request.params);
    Start::Handling(Started {
        id: request.id,
        handling: Box::pin(async move { server.handle(&method, params.as_deref(), cx).await }),
        cancellation,
        listen,
    })
}

/// Runs a request's handling to its end on a task: a panic on the way (handlers' own panics are
/// already tool errors; this catches the rest, such as a handler object that panics before it
/// returns its future) is an internal error, so a request never goes unanswered.
pub(crate) async fn guarded(
    handling: BoxFuture<'static, Result<RawJson, ErrorObject>>,
) -> Result<RawJson, ErrorObject> {
    crate::catch::catch_unwind(handling)
        .await
        .unwrap_or_else(|panic| Err(ErrorObject::internal_error(panic)))
}

/// Polls a request's handling once; its result if it finished (a panic is an internal error,
/// as in [`guarded`]). A future left pending is polled again, with a real waker, by the task it
/// moves to, so nothing it waits for is missed.
fn poll_once(
    handling: &mut BoxFuture<'static, Result<RawJson, ErrorObject>>,
) -> Option<Result<RawJson, ErrorObject>> {
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    let polled = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        handling.as_mut().poll(&mut cx)
    }));
    match polled {
        Ok(std::task::Poll::Ready(output)) => Some(output),
        Ok(std::task::Poll::Pending) => None,
        Err(payload) => Some(Err(ErrorObject::internal_error(
            crate::catch::panic_message(&*payload),
        ))),
    }
}

async fn sleep_until(deadline: Option<Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}

/// Decodes a frame into the session; the error responses for what was not a message.
fn take_frame(session: &mut ServerSession, bytes: &[u8]) -> Vec<Response> {
    let batches = session
        .initialize_era_client()
        .is_some_and(|c| c.protocol_version.allows_batches());
    match decode_packet(bytes, batches) {
        Ok(Packet::Single(message)) => {
            session.handle_message(now(), message);
            Vec::new()
        }
        Ok(Packet::Batch(members)) => {
            let mut rejections = Vec::new();
            for member in members {
                match member {
                    Ok(message) => session.handle_message(now(), message),
                    Err(error) => rejections.push(error.to_response()),
                }
            }
            rejections
        }
        Err(error) => vec![error.to_response()],
    }
}

/// Tells an initialized initialize-era peer of a change it listens for: list changes when the
/// server announces them, resource updates for the URIs it subscribed to.
pub(crate) fn announce(
    server: &Server,
    session: &mut ServerSession,
    subscribed: &std::collections::HashSet<String>,
    change: Change,
) {
    if matches!(change, Change::ListChanged(_)) {
        session.set_config(server.shared_session_config());
    }
    if session.initialize_era_client().is_none() {
        return;
    }
    let notification = match change {
        Change::ListChanged(kind) if server.notifies_list_changes() => {
            Notification::without_params(list_changed_method(kind))
        }
        Change::ResourceUpdated(uri) if subscribed.contains(&uri) => {
            match Notification::new(
                "notifications/resources/updated",
                &serde_json::json!({ "uri": uri }),
            ) {
                Ok(notification) => notification,
                Err(_) => return,
            }
        }
        _ => return,
    };
    session.notify(notification, None);
}

/// Serves `resources/subscribe` and `resources/unsubscribe` of an initialize-era session, whose
/// subscriptions live with the connection. `None` when the request is not one of them.
pub(crate) fn subscription_request(
    server: &Server,
    subscribed: &mut std::collections::HashSet<String>,
    method: &str,
    params: Option<&serde_json::value::RawValue>,
) -> Option<Result<RawJson, ErrorObject>> {
    let subscribe = match method {
        "resources/subscribe" => true,
        "resources/unsubscribe" => false,
        _ => return None,
    };
    if !server.supports_subscriptions() {
        return None;
    }
    let params = params.map_or("{}", |p| p.get());
    let uri = match serde_json::from_str::<presa_core::SubscribeRequestParams>(params) {
        Ok(params) => params.uri,
        Err(e) => {
            return Some(Err(ErrorObject::invalid_params(format!(
                "Invalid params: {e}"
            ))));
        }
    };
    if subscribe {
        subscribed.insert(uri);
    } else {
        subscribed.remove(&uri);
    }
    Some(
        presa_core::to_raw(&serde_json::Map::new())
            .map_err(|e| ErrorObject::internal_error(e.to_string())),
    )
}

/// What a handler waiting on a server→client request gets.
pub(crate) fn answer_of(outcome: Result<RawJson, RequestError>) -> Result<Value, InputError> {
    match outcome {
        Ok(raw) => {
            serde_json::from_str(raw.get()).map_err(|e| InputError::InvalidAnswer(e.to_string()))
        }
        Err(RequestError::Peer(error)) => Err(InputError::Rejected(error)),
        Err(other) => Err(InputError::Unavailable(other.to_string())),
    }
}

fn abort_all(in_flight: &mut HashMap<RequestId, (AbortHandle, Cancellation)>) {
    for (_, (task, cancellation)) in in_flight.drain() {
        cancellation.cancel();
        task.abort();
    }
}
