//! The connection task: takes the client's messages in order, decides their headers, and runs
//! each POST on a task of its own; cancels, closes.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::Duration;

use presa_client::{TransportError, TransportEvent};
use presa_core::{
    CancelledNotificationParams, Era, Message, Notification, ProtocolVersion, Request, RequestId,
    Response, Transmit,
};
use reqwest::StatusCode;
use reqwest::header::HeaderMap;
use tokio::sync::{mpsc, oneshot};
use tokio::task::{AbortHandle, Id, JoinError, JoinHandle, JoinSet};
use tokio::time::Instant;

use super::conn::{Conn, RequestCtx, header_map};
use super::post::{self, Outcome, Post};
use super::{http_sse, stream};

/// How long closing waits for notifications and responses still being POSTed.
const CLOSE_GRACE: Duration = Duration::from_secs(2);
/// How long the closing `DELETE` may take.
const DELETE_TIMEOUT: Duration = Duration::from_secs(5);

/// How many notifications and responses are POSTed at once, on either transport; the next one
/// waits meanwhile, and with it the client's later messages and, through the client's bounded
/// queues, the reading of the server's streams: a server flooding pings gets at most this many
/// answers in flight.
const MOST_ANSWERS_IN_FLIGHT: usize = 16;
/// How long the POST of a notification or a response may take in all, on either transport:
/// the response's headers and the body of a refusal.
const NOTIFY_TIMEOUT: Duration = Duration::from_secs(30);

/// How long messages after `notifications/initialized` wait for the session's GET stream.
const STREAM_WAIT: Duration = Duration::from_secs(2);

const CANCELLED: &str = "notifications/cancelled";

/// A request whose POST is still running.
#[derive(Debug)]
struct Flight {
    task: AbortHandle,
    era: Era,
}

/// Messages held back after `notifications/initialized` until the session's GET stream is
/// open, so that a server that pushes requests there (not tied to any POST) finds it, and
/// none is sent into a stream that does not exist yet.
///
/// Opens when the GET gets its response (whatever the status), when the server refuses
/// `notifications/initialized`, or after [`STREAM_WAIT`].
#[derive(Debug)]
struct Gate {
    /// The task POSTing `notifications/initialized`.
    initialized: Id,
    /// Fires when the GET stream got its response; set once that GET was sent.
    stream: Option<oneshot::Receiver<()>>,
    deadline: Instant,
    held: VecDeque<Transmit>,
}

impl Gate {
    /// Resolves when the gate may open; never without a gate.
    async fn opened(gate: &mut Option<Self>) {
        let Some(gate) = gate else {
            return std::future::pending().await;
        };
        let deadline = tokio::time::sleep_until(gate.deadline);
        match &mut gate.stream {
            Some(stream) => {
                tokio::select! {
                    _ = stream => {}
                    () = deadline => {}
                }
            }
            None => deadline.await,
        }
    }
}

pub(crate) struct Driver {
    conn: Arc<Conn>,
    outgoing: mpsc::Receiver<Transmit>,
    tasks: JoinSet<Outcome>,
    /// Which request each request task serves.
    requests: HashMap<Id, RequestId>,
    in_flight: HashMap<RequestId, Flight>,
    /// The session's GET stream (Streamable HTTP).
    listen: Option<JoinHandle<()>>,
    /// The stream of a 2024-11-05 HTTP+SSE server, once the fallback started.
    http_sse: Option<AbortHandle>,
    /// Messages waiting for the session's GET stream.
    gate: Option<Gate>,
    /// The tasks POSTing a notification or a response.
    answering: std::collections::HashSet<Id>,
    /// A notification or response read while [`MOST_ANSWERS_IN_FLIGHT`] were being POSTed: it
    /// waits for one of them to end, and the client's later messages wait in `outgoing`.
    waiting: Option<Transmit>,
}

impl Driver {
    pub(crate) fn new(conn: Arc<Conn>, outgoing: mpsc::Receiver<Transmit>) -> Self {
        Self {
            conn,
            outgoing,
            tasks: JoinSet::new(),
            requests: HashMap::new(),
            in_flight: HashMap::new(),
            listen: None,
            http_sse: None,
            gate: None,
            answering: std::collections::HashSet::new(),
            waiting: None,
        }
    }

    pub(crate) async fn run(mut self) {
        let error = loop {
            if self.waiting.is_some() && self.outgoing.is_closed() {
                // The client closed while answers in flight held its messages back; the
                // channel wakes no one for that, so this is seen once one of them ends (within
                // NOTIFY_TIMEOUT). What is left goes out in shut_down.
                break None;
            }
            tokio::select! {
                // Read on at the limit, so that a request, or the channel closing, is seen;
                // only an answer waits.
                transmit = self.outgoing.recv(), if self.waiting.is_none() => match transmit {
                    Some(transmit) if self.answers_full() && !is_request(&transmit) => {
                        self.waiting = Some(transmit);
                    }
                    Some(transmit) => self.dispatch(transmit),
                    None => break None,
                },
                Some(done) = self.tasks.join_next_with_id(), if !self.tasks.is_empty() => {
                    if let Some(error) = self.finished(done) {
                        break Some(error);
                    }
                    if !self.answers_full()
                        && let Some(transmit) = self.waiting.take()
                    {
                        self.dispatch(transmit);
                    }
                }
                () = Gate::opened(&mut self.gate) => self.open_gate(),
            }
        };
        self.shut_down(error).await;
    }

    fn answers_full(&self) -> bool {
        self.answering.len() >= MOST_ANSWERS_IN_FLIGHT
    }

    fn dispatch(&mut self, transmit: Transmit) {
        let initialize =
            matches!(&transmit.message, Message::Request(r) if r.method == "initialize");
        if let Some(gate) = &mut self.gate {
            if !initialize {
                gate.held.push_back(transmit);
                return;
            }
            // a new session: what waited for the old one goes first
            self.open_gate();
        }
        let Transmit {
            message,
            protocol_version,
            headers,
            ..
        } = transmit;
        let mut body = Vec::with_capacity(256);
        message.write_to(&mut body);
        if !initialize && let Some(endpoint) = self.conn.sse_endpoint() {
            return self.http_sse(message, endpoint, body);
        }
        // no revision yet: the handshake itself
        let era = protocol_version.map_or(Era::Initialize, ProtocolVersion::era);
        if let (Era::Initialize, Some(version)) = (era, protocol_version) {
            self.conn.set_negotiated(version);
        }
        let headers = match era {
            Era::Stateless => header_map(headers),
            Era::Initialize if initialize => Ok(HeaderMap::new()),
            Era::Initialize => Ok(self.conn.legacy_headers()),
        };
        match message {
            Message::Request(request) => self.request(request, era, headers, body),
            Message::Notification(notification) => {
                self.notification(notification, era, headers, body);
            }
            Message::Response(response) => self.response(&response, body),
        }
    }

    fn request(
        &mut self,
        request: Request,
        era: Era,
        headers: Result<HeaderMap, TransportError>,
        body: Vec<u8>,
    ) {
        let Request { id, method, .. } = request;
        let generation = if era == Era::Initialize && method == "initialize" {
            // A new session: the old one's streams go.
            if let Some(listen) = self.listen.take() {
                listen.abort();
            }
            if let Some(stream) = self.http_sse.take() {
                stream.abort();
            }
            self.conn.begin_initialize()
        } else {
            self.conn.generation()
        };
        let ctx = RequestCtx {
            id: id.clone(),
            method,
            era,
            generation,
        };
        let conn = self.conn.clone();
        let post = Post { headers, body };
        let task = self
            .tasks
            .spawn(async move { post::request(&conn, post, ctx).await });
        self.requests.insert(task.id(), id.clone());
        if let Some(old) = self.in_flight.insert(id, Flight { task, era }) {
            // the client reused an id still in flight; the old POST keeps running untracked
            tracing::debug!(target: "presa_http", task = %old.task.id(), "request id reused");
        }
    }

    fn notification(
        &mut self,
        notification: Notification,
        era: Era,
        headers: Result<HeaderMap, TransportError>,
        body: Vec<u8>,
    ) {
        let Notification { method, params } = notification;
        if method == CANCELLED
            && let Some(id) = cancelled_request(params.as_ref())
        {
            // Stop reading the request's stream in both eras: on 2026-07-28 closing it *is*
            // the cancellation; in the initialize era the server is told below and should
            // not answer any more.
            match self.in_flight.remove(&id) {
                Some(flight) => {
                    flight.task.abort();
                    if flight.era == Era::Stateless {
                        return;
                    }
                }
                None if era == Era::Stateless => return,
                None => {}
            }
        }
        let initialized = (method == "notifications/initialized" && era == Era::Initialize)
            .then(|| self.conn.generation());
        let conn = self.conn.clone();
        let post = Post { headers, body };
        let what = method.clone();
        let task = self.answer(method, async move {
            post::notify(&conn, post, &what, initialized).await
        });
        if initialized.is_some() {
            self.gate = Some(Gate {
                initialized: task,
                stream: None,
                deadline: Instant::now() + STREAM_WAIT,
                held: VecDeque::new(),
            });
        }
    }

    /// Sends what the gate held, in order.
    fn open_gate(&mut self) {
        if let Some(gate) = self.gate.take() {
            for transmit in gate.held {
                self.dispatch(transmit);
            }
        }
    }

    fn response(&mut self, response: &Response, body: Vec<u8>) {
        let what = match &response.id {
            Some(id) => format!("the response to server request {id}"),
            None => "an error response".to_owned(),
        };
        let conn = self.conn.clone();
        let post = Post {
            headers: Ok(self.conn.legacy_headers()),
            body,
        };
        self.answer(what.clone(), async move {
            post::notify(&conn, post, &what, None).await
        });
    }

    /// Spawns the POST of a notification or a response, on either transport: it counts
    /// against [`MOST_ANSWERS_IN_FLIGHT`] until it ends, and is given up after
    /// [`NOTIFY_TIMEOUT`], whatever it waits for (the headers, or the body of a refusal).
    fn answer(
        &mut self,
        what: String,
        exchange: impl Future<Output = Outcome> + Send + 'static,
    ) -> Id {
        let task = self.tasks.spawn(async move {
            tokio::time::timeout(NOTIFY_TIMEOUT, exchange)
                .await
                .unwrap_or_else(|_| {
                    tracing::warn!(
                        target: "presa_http",
                        what,
                        timeout = ?NOTIFY_TIMEOUT,
                        "could not send a message: the server did not answer in time"
                    );
                    Outcome::Done
                })
        });
        self.answering.insert(task.id());
        task.id()
    }

    /// A message for a 2024-11-05 HTTP+SSE server: POSTed to its endpoint, answered on its
    /// stream.
    fn http_sse(&mut self, message: Message, endpoint: reqwest::Url, body: Vec<u8>) {
        let (request, what) = match &message {
            Message::Request(r) => (Some(r.id.clone()), r.method.clone()),
            Message::Notification(n) => (None, n.method.clone()),
            Message::Response(_) => (None, "a response".to_owned()),
        };
        let conn = self.conn.clone();
        let post = Post {
            headers: Ok(Default::default()),
            body,
        };
        match request {
            Some(id) => {
                self.tasks.spawn(async move {
                    http_sse::send(&conn, &endpoint, post, Some(&id), &what).await;
                    Outcome::Done
                });
            }
            None => {
                let label = what.clone();
                self.answer(what, async move {
                    http_sse::send(&conn, &endpoint, post, None, &label).await;
                    Outcome::Done
                });
            }
        }
    }

    /// A POST task ended; returns the error that ends the transport, if it says so.
    fn finished(&mut self, done: Result<(Id, Outcome), JoinError>) -> Option<TransportError> {
        let (task, outcome) = match done {
            Ok((task, outcome)) => (task, Some(outcome)),
            Err(e) => {
                if e.is_panic() {
                    tracing::error!(target: "presa_http", "a POST task panicked");
                }
                (e.id(), None)
            }
        };
        self.answering.remove(&task);
        if let Some(id) = self.requests.remove(&task)
            && self.in_flight.get(&id).is_some_and(|f| f.task.id() == task)
        {
            self.in_flight.remove(&id);
        }
        let initialized = self.gate.as_ref().is_some_and(|g| g.initialized == task);
        if initialized && !matches!(outcome, Some(Outcome::Initialized { .. })) {
            // the server refused notifications/initialized: no GET stream to wait for
            self.open_gate();
        }
        match outcome? {
            Outcome::Done => None,
            Outcome::Initialized { generation } => {
                let (opened, stream) = oneshot::channel();
                if generation == self.conn.generation() {
                    if let Some(old) = self.listen.take() {
                        old.abort();
                    }
                    let conn = self.conn.clone();
                    self.listen = Some(tokio::spawn(async move {
                        stream::listen(&conn, generation, opened).await;
                    }));
                }
                match &mut self.gate {
                    Some(gate) if initialized => gate.stream = Some(stream),
                    // an older session's: nothing waits for it
                    _ => {}
                }
                None
            }
            Outcome::End(error) => Some(error),
            Outcome::HttpSse { ctx, body, refused } => {
                if ctx.generation == self.conn.generation() {
                    let conn = self.conn.clone();
                    let task = self
                        .tasks
                        .spawn(async move { http_sse::fallback(&conn, ctx, body, refused).await });
                    self.http_sse = Some(task);
                } else {
                    let events = self.conn.events.clone();
                    tokio::spawn(async move {
                        let event = TransportEvent::RequestFailed {
                            id: ctx.id,
                            error: refused,
                        };
                        let _ = events.send(event, 0).await;
                    });
                }
                None
            }
        }
    }

    /// Ends the transport: streams stop, pending notifications get a moment, the session is
    /// deleted (orderly close only), and the client hears `Closed`.
    async fn shut_down(mut self, error: Option<TransportError>) {
        self.outgoing.close();
        if error.is_none() {
            // on an orderly close, held messages, the waiting answer and what the client queued
            // before closing (at most the channel's capacity) get the grace below like the
            // others
            self.open_gate();
            if let Some(transmit) = self.waiting.take() {
                self.dispatch(transmit);
            }
            while let Ok(transmit) = self.outgoing.try_recv() {
                self.dispatch(transmit);
            }
        }
        if let Some(listen) = self.listen.take() {
            listen.abort();
            let _ = listen.await;
        }
        if let Some(stream) = self.http_sse.take() {
            stream.abort();
        }
        for (_, flight) in self.in_flight.drain() {
            flight.task.abort();
        }
        if error.is_none() {
            let drain = async { while self.tasks.join_next().await.is_some() {} };
            let _ = tokio::time::timeout(CLOSE_GRACE, drain).await;
        }
        self.tasks.shutdown().await;
        if error.is_none() && self.conn.session_id().is_some() {
            match tokio::time::timeout(DELETE_TIMEOUT, self.conn.delete()).await {
                Ok(Ok(response))
                    if response.status().is_success()
                        || response.status() == StatusCode::METHOD_NOT_ALLOWED => {}
                Ok(Ok(response)) => tracing::warn!(
                    target: "presa_http",
                    status = %response.status(),
                    "the server refused to end the session"
                ),
                Ok(Err(error)) => tracing::warn!(
                    target: "presa_http",
                    %error,
                    "could not end the session"
                ),
                Err(_) => tracing::warn!(
                    target: "presa_http",
                    timeout = ?DELETE_TIMEOUT,
                    "could not end the session: the DELETE timed out"
                ),
            }
        }
        let _ = self
            .conn
            .events
            .send(TransportEvent::Closed(error), 0)
            .await;
    }
}

impl std::fmt::Debug for Driver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Driver")
            .field("conn", &self.conn)
            .field("in_flight", &self.in_flight.len())
            .finish_non_exhaustive()
    }
}

fn is_request(transmit: &Transmit) -> bool {
    matches!(transmit.message, Message::Request(_))
}

/// The request a `notifications/cancelled` names.
fn cancelled_request(params: Option<&presa_core::RawJson>) -> Option<RequestId> {
    CancelledNotificationParams::from_raw(params)?.request_id
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use serde_json::value::RawValue;

    use super::*;

    fn raw(text: &str) -> Box<RawValue> {
        RawValue::from_string(text.to_owned()).unwrap()
    }

    #[test]
    fn cancellations_name_their_request() {
        let params = raw(r#"{"requestId":"a","reason":"x"}"#);
        assert_eq!(cancelled_request(Some(&params)), Some(RequestId::from("a")));
        assert_eq!(cancelled_request(Some(&raw("{}"))), None);
    }
}
