//! The connection task: owns the [`ClientSession`] and the transport's channels, and drives
//! one from the other.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Arc;
use tracing::Instrument;

use presa_core::{
    ClientEvent, ClientSendError, ClientSession, ErrorObject, IncomingRequest, InitializeResult,
    Message, Notification, ProtocolVersion, RawJson, RequestError, RequestExtras, RequestId,
    Transmit,
};
use tokio::sync::{broadcast, mpsc, oneshot};
use tokio::task::{AbortHandle, JoinError, JoinSet};

use crate::call::ProgressFn;
use crate::handle::{CallKey, Command, OutgoingCall, Shared};
use crate::handler::{InputContext, InputHandlers};
use crate::{ClientChannel, ClientError, TransportError, TransportErrorKind, TransportEvent};

/// Stop taking new commands while this many messages wait for the transport.
const OUT_QUEUE_LIMIT: usize = 64;

/// The long-lived request of a 2026-07-28 subscription.
const LISTEN: &str = <presa_core::SubscriptionsListen as presa_core::RequestMethod>::METHOD;

/// Server→client requests served at once; more are refused with `-32603`.
const SERVING_LIMIT: usize = 64;

type InitReply = oneshot::Sender<Result<(ProtocolVersion, InitializeResult), ClientError>>;

/// The session clock, in tokio's time so that paused-time tests work.
fn now() -> std::time::Instant {
    tokio::time::Instant::now().into_std()
}

struct Waiting {
    key: CallKey,
    reply: oneshot::Sender<Result<RawJson, ClientError>>,
    progress: Option<ProgressFn>,
}

/// How the loop ended.
enum Exit {
    /// Every handle is gone.
    Dropped,
    /// `Client::close` asked; answer once the transport is done.
    Close(oneshot::Sender<()>),
    /// The transport ended.
    TransportClosed,
}

pub(crate) struct Driver {
    session: ClientSession,
    outgoing: Option<mpsc::Sender<Transmit>>,
    incoming: crate::Incoming,
    commands: mpsc::Receiver<Command>,
    cancels: mpsc::UnboundedReceiver<CallKey>,
    shared: Arc<Shared>,
    notifications: broadcast::Sender<Notification>,
    handlers: InputHandlers,
    /// Messages the session produced that the transport has not taken yet.
    out_queue: VecDeque<Transmit>,
    /// A server→client request read while the out queue was full: it waits here, and nothing
    /// more is read, until the queue has room for its answer.
    held: Option<TransportEvent>,
    calls: HashMap<RequestId, Waiting>,
    keys: HashMap<CallKey, RequestId>,
    /// Pending `subscriptions/listen` requests, cancelled when the client closes (a server
    /// finishes its requests before it ends, and a listen never finishes by itself).
    listens: HashSet<RequestId>,
    init: Option<(RequestId, InitReply)>,
    /// Input handlers answering server→client requests (initialize era).
    serving: JoinSet<Result<RawJson, ErrorObject>>,
    serving_ids: HashMap<tokio::task::Id, RequestId>,
    serving_requests: HashMap<RequestId, AbortHandle>,
}

impl Driver {
    pub(crate) fn new(
        session: ClientSession,
        channel: ClientChannel,
        commands: mpsc::Receiver<Command>,
        cancels: mpsc::UnboundedReceiver<CallKey>,
        shared: Arc<Shared>,
        notifications: broadcast::Sender<Notification>,
        handlers: InputHandlers,
    ) -> Self {
        Self {
            session,
            outgoing: Some(channel.outgoing),
            incoming: channel.incoming,
            commands,
            cancels,
            shared,
            notifications,
            handlers,
            out_queue: VecDeque::new(),
            held: None,
            calls: HashMap::new(),
            keys: HashMap::new(),
            listens: HashSet::new(),
            init: None,
            serving: JoinSet::new(),
            serving_ids: HashMap::new(),
            serving_requests: HashMap::new(),
        }
    }

    pub(crate) async fn run(mut self) {
        #[cfg(feature = "otel")]
        let started = std::time::Instant::now();
        let exit = loop {
            self.pump();
            self.flush();
            if self.out_queue.len() < OUT_QUEUE_LIMIT
                && let Some(event) = self.held.take()
            {
                self.handle_transport(event);
                continue;
            }
            let deadline = self
                .session
                .poll_timeout()
                .map(tokio::time::Instant::from_std);
            let timer = async move {
                match deadline {
                    Some(deadline) => tokio::time::sleep_until(deadline).await,
                    None => std::future::pending().await,
                }
            };
            let can_send = self.outgoing.is_some() && !self.out_queue.is_empty();
            let outgoing = self.outgoing.clone().filter(|_| can_send);
            let reserve = async move {
                match outgoing {
                    Some(outgoing) => outgoing.reserve_owned().await.ok(),
                    None => None,
                }
            };
            tokio::select! {
                permit = reserve, if can_send => match (permit, self.out_queue.pop_front()) {
                    (Some(permit), Some(message)) => {
                        permit.send(message);
                    }
                    (None, _) => {
                        // The transport stopped taking messages; it will report why on
                        // `incoming`.
                        self.outgoing = None;
                        self.out_queue.clear();
                    }
                    (Some(_), None) => {}
                },
                // Responses and notifications are read whatever the out queue holds: a server
                // that stops reading while it cannot write (as most do) waits for its
                // responses to be taken, and only then takes what this queue holds. A request of
                // the server's read while the queue is full waits for room for its answer, and
                // nothing more is read meanwhile: a server flooding requests is held back by its
                // own stream, not by this queue growing.
                event = self.incoming.recv(), if self.held.is_none() => match event {
                    Some(TransportEvent::Closed(error)) => {
                        self.transport_closed(error);
                        break Exit::TransportClosed;
                    }
                    Some(event @ TransportEvent::Message(Message::Request(_)))
                        if self.out_queue.len() >= OUT_QUEUE_LIMIT =>
                    {
                        self.held = Some(event);
                    }
                    Some(event) => self.handle_transport(event),
                    None => {
                        self.transport_closed(None);
                        break Exit::TransportClosed;
                    }
                },
                command = self.commands.recv(), if self.out_queue.len() < OUT_QUEUE_LIMIT => {
                    match command {
                        Some(Command::Close(done)) => break Exit::Close(done),
                        Some(command) => self.handle_command(command),
                        None => break Exit::Dropped,
                    }
                }
                Some(key) = self.cancels.recv() => self.cancel_call(key),
                Some(done) = self.serving.join_next_with_id(), if !self.serving.is_empty() => {
                    self.served(done);
                }
                () = timer => self.session.handle_timeout(now()),
            }
        };
        // the session, as this client saw it, ends with its connection
        #[cfg(feature = "otel")]
        self.shared
            .metrics
            .record_session(started.elapsed(), self.session.protocol_version());
        self.shut_down(exit).await;
    }

    /// Hands the transport what it takes without waiting; the rest waits in the loop.
    fn flush(&mut self) {
        let Some(outgoing) = &self.outgoing else {
            return;
        };
        while let Some(message) = self.out_queue.pop_front() {
            match outgoing.try_send(message) {
                Ok(()) => {}
                Err(mpsc::error::TrySendError::Full(message)) => {
                    self.out_queue.push_front(message);
                    return;
                }
                Err(mpsc::error::TrySendError::Closed(_)) => {
                    // The transport stopped taking messages; it will report why on `incoming`.
                    self.outgoing = None;
                    self.out_queue.clear();
                    return;
                }
            }
        }
    }

    /// Moves what the session produced: messages to the out queue, events to their owners.
    fn pump(&mut self) {
        loop {
            while let Some(transmit) = self.session.poll_transmit() {
                self.out_queue.push_back(transmit);
            }
            let Some(event) = self.session.poll_event() else {
                break;
            };
            self.handle_event(event);
        }
    }

    fn handle_command(&mut self, command: Command) {
        match command {
            Command::Request(call) => self.send_request(call),
            Command::Stateless(version) => self.session.use_stateless(version),
            Command::Notify(notification) => self.session.notify(notification),
            Command::Initialize(reply) => match self.session.initialize(now()) {
                Ok(id) => self.init = Some((id, reply)),
                Err(e) => {
                    let _ = reply.send(Err(send_error(e)));
                }
            },
            // handled by the loop
            Command::Close(done) => {
                let _ = done.send(());
            }
        }
    }

    fn send_request(&mut self, call: OutgoingCall) {
        if call.reply.is_closed() && !call.detached {
            // The caller gave up before the request went out.
            return;
        }
        let mut extras = RequestExtras::default();
        extras.log_level = call.log_level;
        let sent =
            self.session
                .send_request_with(now(), &call.method, call.params, &call.options, extras);
        match sent {
            Ok(id) => {
                crate::telemetry::record_sent(&call.span, &id, self.session.protocol_version());
                if call.method == LISTEN {
                    self.listens.insert(id.clone());
                }
                if let Some(sent) = call.sent {
                    let _ = sent.send(id.clone());
                }
                self.keys.insert(call.key, id.clone());
                self.calls.insert(
                    id,
                    Waiting {
                        key: call.key,
                        reply: call.reply,
                        progress: call.progress,
                    },
                );
            }
            Err(e) => {
                let _ = call.reply.send(Err(send_error(e)));
            }
        }
    }

    /// The caller dropped its future: stop waiting and tell the server.
    fn cancel_call(&mut self, key: CallKey) {
        let Some(id) = self.keys.remove(&key) else {
            return;
        };
        self.calls.remove(&id);
        self.listens.remove(&id);
        let _ = self.session.cancel(&id, Some("abandoned by the client"));
    }

    fn handle_transport(&mut self, event: TransportEvent) {
        match event {
            TransportEvent::Message(message) => self.session.handle_message(now(), message),
            TransportEvent::RequestFailed { id, error } => self.request_failed(&id, error),
            // handled by the loop
            TransportEvent::Closed(_) => {}
        }
    }

    /// The transport could not deliver one request: fail that call only.
    fn request_failed(&mut self, id: &RequestId, error: TransportError) {
        if self.init.as_ref().is_some_and(|(init, _)| init == id) {
            if let Some((_, reply)) = self.init.take() {
                let _ = reply.send(Err(ClientError::Transport(error)));
            }
            return;
        }
        let Some(waiting) = self.calls.remove(id) else {
            return;
        };
        self.keys.remove(&waiting.key);
        self.listens.remove(id);
        let _ = waiting.reply.send(Err(ClientError::Transport(error)));
        // Forget the request without telling the server: the transport already knows it failed.
        self.session.forget(id);
    }

    fn handle_event(&mut self, event: ClientEvent) {
        match event {
            ClientEvent::Initialized {
                protocol_version,
                result,
            } => {
                if let Some((_, reply)) = self.init.take() {
                    let _ = reply.send(Ok((protocol_version, *result)));
                }
            }
            ClientEvent::HandshakeFailed(error) => {
                if let Some((_, reply)) = self.init.take() {
                    let _ = reply.send(Err(ClientError::Handshake(error)));
                }
            }
            ClientEvent::Response { id, outcome, .. } => {
                self.listens.remove(&id);
                if let Some(waiting) = self.calls.remove(&id) {
                    self.keys.remove(&waiting.key);
                    let outcome = outcome.map_err(|e| self.request_error(e));
                    let _ = waiting.reply.send(outcome);
                }
            }
            ClientEvent::Progress { id, params } => {
                if let Some(progress) = self.calls.get(&id).and_then(|w| w.progress.as_ref()) {
                    // A panicking callback must not take the connection down with it.
                    let call = std::panic::AssertUnwindSafe(|| progress(params));
                    if std::panic::catch_unwind(call).is_err() {
                        tracing::error!(%id, "progress callback panicked");
                    }
                }
            }
            ClientEvent::Request(request) => self.serve(*request),
            ClientEvent::ToolDropped { name, error } => tracing::warn!(
                target: "presa_client",
                "dropping tool {name:?} from tools/list: invalid x-mcp-header annotation: {error}"
            ),
            ClientEvent::Cancelled { id, .. } => {
                if let Some(task) = self.serving_requests.remove(&id) {
                    task.abort();
                }
            }
            ClientEvent::Notification(notification) => {
                if let Some(mut cache) = self.shared.cache() {
                    cache.invalidate(&notification);
                }
                if notification.method == "notifications/tools/list_changed" {
                    self.shared.tool_listing.forget();
                }
                // No receiver is fine: nobody listens.
                let _ = self.notifications.send(notification);
            }
            _ => {}
        }
    }

    /// A server→client request (initialize era): run its handler on a task of its own.
    fn serve(&mut self, request: IncomingRequest) {
        let IncomingRequest {
            id,
            method,
            params,
            client,
            meta,
            ..
        } = request;
        if self.serving.len() >= SERVING_LIMIT {
            let error = ErrorObject::internal_error("Too many concurrent requests");
            self.session.respond(&id, Err(error));
            return;
        }
        let handlers = self.handlers.clone();
        let cx = InputContext::new(client.protocol_version);
        let span = crate::telemetry::served_span(
            &method,
            Some(&id),
            client.protocol_version,
            meta.as_ref(),
        );
        let served = async move {
            let answer = handlers.serve(&method, params.as_ref(), cx).await;
            crate::telemetry::record_served_end(&tracing::Span::current(), &answer);
            answer
        };
        let task = self.serving.spawn(served.instrument(span));
        self.serving_ids.insert(task.id(), id.clone());
        self.serving_requests.insert(id, task);
    }

    fn served(&mut self, done: Result<(tokio::task::Id, Result<RawJson, ErrorObject>), JoinError>) {
        let (task, outcome) = match done {
            Ok((task, outcome)) => (task, outcome),
            Err(e) if e.is_panic() => (
                e.id(),
                Err(ErrorObject::internal_error("input handler panicked")),
            ),
            // aborted: the server cancelled the request, nothing to answer
            Err(e) => {
                if let Some(id) = self.serving_ids.remove(&e.id()) {
                    self.serving_requests.remove(&id);
                }
                return;
            }
        };
        if let Some(id) = self.serving_ids.remove(&task) {
            self.serving_requests.remove(&id);
            self.session.respond(&id, outcome);
        }
    }

    fn request_error(&self, error: RequestError) -> ClientError {
        match error {
            RequestError::Peer(error) => ClientError::Server(error),
            RequestError::TimedOut => ClientError::TimedOut,
            RequestError::CancelledByPeer { reason } => ClientError::CancelledByServer { reason },
            _ => self.shared.ended_error(),
        }
    }

    /// The transport ended: every call fails now with its error.
    fn transport_closed(&mut self, error: Option<TransportError>) {
        let error = error
            .unwrap_or_else(|| TransportError::new(TransportErrorKind::Closed, "transport closed"));
        let _ = self.shared.ended.set(ClientError::Transport(error.clone()));
        if let Some((_, reply)) = self.init.take() {
            let _ = reply.send(Err(ClientError::Transport(error.clone())));
        }
        for (_, waiting) in self.calls.drain() {
            let _ = waiting
                .reply
                .send(Err(ClientError::Transport(error.clone())));
        }
        self.keys.clear();
        self.listens.clear();
        self.outgoing = None;
    }

    async fn shut_down(mut self, exit: Exit) {
        let _ = self.shared.ended.set(ClientError::Closed);
        // No more commands: those already queued fail now (their replies drop).
        self.commands.close();
        while let Ok(command) = self.commands.try_recv() {
            if let Command::Close(done) = command {
                let _ = done.send(());
            }
        }
        // Calls abandoned just before the close (a caller interrupted, then closing) are
        // cancelled first: their cancellations go out with the last messages.
        while let Ok(key) = self.cancels.try_recv() {
            self.cancel_call(key);
        }

        // Tell the server to end the subscriptions still open, so that it can finish.
        for id in std::mem::take(&mut self.listens) {
            let _ = self.session.cancel(&id, Some("client closed"));
        }
        self.session.close();
        self.pump();
        for (_, waiting) in self.calls.drain() {
            let _ = waiting.reply.send(Err(ClientError::Closed));
        }
        self.serving.abort_all();
        // Hand the transport what it will take without waiting (e.g. a last cancellation),
        // then drop the sender: that asks the transport to close.
        if let Some(outgoing) = self.outgoing.take() {
            for message in self.out_queue.drain(..) {
                if outgoing.try_send(message).is_err() {
                    break;
                }
            }
        }
        if let Exit::Close(done) = exit {
            while let Some(event) = self.incoming.recv().await {
                if matches!(event, TransportEvent::Closed(_)) {
                    break;
                }
            }
            let _ = done.send(());
        }
    }
}

fn send_error(error: ClientSendError) -> ClientError {
    match error {
        ClientSendError::Serialize(e) => ClientError::InvalidParams(e.to_string()),
        // (InvalidParams holds text: the cause goes into it)
        ClientSendError::Header(e) => {
            ClientError::InvalidParams(format!("cannot mirror the request into headers: {e}"))
        }
        _ => ClientError::Closed,
    }
}
