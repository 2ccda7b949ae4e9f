//! An audit hook: one record per call, with its method, definition, caller, rounds, outcome and
//! duration.

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use presa_core::{ErrorCode, ProtocolVersion, RequestId};
use tokio::time::Instant;

use super::{McpRequest, McpResponse, Middleware, Next, TaskOutcome};
use crate::BoxFuture;
use crate::transport::Transport;

/// What became of an audited call.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Outcome {
    /// It succeeded.
    Ok,
    /// A tool call whose tool failed (`isError: true`).
    ToolError,
    /// It failed with a protocol error.
    Error {
        /// The error's code.
        code: ErrorCode,
        /// The error's message.
        message: String,
    },
    /// The client cancelled it (or went away) before it finished.
    Cancelled,
    /// A round of a 2026-07-28 call answered `input_required`: the call goes on in its next
    /// round. Recorded only with [`Audit::record_rounds`].
    InputRequired,
}

/// One audited call.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct AuditRecord {
    /// The id of the request that ended the call (its last round), or that made the task a
    /// call became.
    pub request_id: RequestId,
    /// Its method.
    pub method: String,
    /// The tool or prompt name it named; for `resources/read` the URI read (also when a
    /// template serves it); for a completion the prompt or template it completes.
    pub target: Option<String>,
    /// Who called ([`McpRequest::caller_key`]: the server's resolver, else the verified
    /// subject or client id); `None` for an anonymous caller.
    pub caller: Option<String>,
    /// The call's id, the same in each of its rounds ([`CallInfo::id`](super::CallInfo::id)).
    pub call_id: String,
    /// How many requests the call took: more than 1 for a 2026-07-28 call that asked the client
    /// for input (each answer comes back in a new request).
    pub rounds: u32,
    /// The task the call became (its record is written when the task ends), or the task a
    /// `tasks/update` or `tasks/cancel` is about.
    pub task_id: Option<String>,
    /// The revision it was served under.
    pub protocol_version: ProtocolVersion,
    /// The transport it came by.
    pub transport: Transport,
    /// What became of it: for a call that became a task, what the task ended with.
    pub outcome: Outcome,
    /// How long it took: from its first round entering this middleware (by the clock of the
    /// instance that served that round) to its answer, or to its task's end.
    pub duration: Duration,
}

type Sink = Arc<dyn Fn(&AuditRecord) + Send + Sync>;

/// Hands a record of every call to a function of yours (a log line, a table, a queue), on
/// every transport. Place it first to time the whole stack.
///
/// One record per call, written when the call ends:
/// - a 2026-07-28 call that asks the client for input takes several requests (rounds, see
///   [`CallInfo`](crate::CallInfo)): the rounds answered `input_required` write nothing (unless
///   [`record_rounds`](Self::record_rounds)), the last one writes the call's record, with
///   [`rounds`](AuditRecord::rounds) counted. A call whose client never comes back with the
///   answers is not recorded;
/// - a tool call that becomes a task is recorded when the task ends, with the task's outcome
///   and the whole work's duration; the polls of a task (`tasks/get`, `tasks/result`) are
///   recorded only when they fail (a task id that is not the caller's, say), its `tasks/update`
///   and `tasks/cancel` always, with its id.
///
/// ```
/// use presa_server::{Audit, Outcome, Server};
///
/// let server = Server::builder("audited", "1.0.0")
///     .middleware(Audit::new(|record| {
///         eprintln!(
///             "{} {} by {} -> {:?} in {:?} ({} rounds)",
///             record.method,
///             record.target.as_deref().unwrap_or("-"),
///             record.caller.as_deref().unwrap_or("anonymous"),
///             record.outcome,
///             record.duration,
///             record.rounds,
///         );
///     }))
///     .build()
///     .unwrap();
/// # let _ = server;
/// ```
#[derive(Clone)]
pub struct Audit {
    sink: Sink,
    rounds: bool,
}

impl fmt::Debug for Audit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Audit").finish_non_exhaustive()
    }
}

impl Audit {
    /// Audits into `sink`, called once per call as it ends.
    pub fn new(sink: impl Fn(&AuditRecord) + Send + Sync + 'static) -> Self {
        Self {
            sink: Arc::new(sink),
            rounds: false,
        }
    }

    /// Also records each round of a 2026-07-28 call answered `input_required`
    /// ([`Outcome::InputRequired`], its [`rounds`](AuditRecord::rounds) the round's number and
    /// its duration the round's): every run of a handler is then in the audit, also those of a
    /// call whose client never came back.
    #[must_use]
    pub fn record_rounds(mut self, rounds: bool) -> Self {
        self.rounds = rounds;
        self
    }
}

/// The record of a call in flight: written when it ends, or as cancelled when dropped first.
struct Pending {
    sink: Sink,
    record: Option<AuditRecord>,
    /// When this request entered the middleware.
    entered: Instant,
    /// When the call's first round began, for a call that began in an earlier request.
    began: Option<SystemTime>,
}

impl Pending {
    fn finish(mut self, outcome: Outcome) {
        self.write(outcome);
    }

    /// The call goes on in a next request: nothing to write yet.
    fn defer(mut self) {
        self.record = None;
    }

    fn write(&mut self, outcome: Outcome) {
        if let Some(mut record) = self.record.take() {
            record.outcome = outcome;
            record.duration = match self.began {
                // by the wall clock: the first round may have run on another instance
                Some(began) => SystemTime::now()
                    .duration_since(began)
                    .unwrap_or_else(|_| self.entered.elapsed()),
                None => self.entered.elapsed(),
            };
            (self.sink)(&record);
        }
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        self.write(Outcome::Cancelled);
    }
}

/// The outcome of a request's answer.
fn outcome_of(response: &McpResponse) -> Outcome {
    match response.protocol_error() {
        Some(error) => Outcome::Error {
            code: error.code,
            message: error.message.clone(),
        },
        None if response.is_tool_error() => Outcome::ToolError,
        None => Outcome::Ok,
    }
}

impl From<TaskOutcome> for Outcome {
    fn from(outcome: TaskOutcome) -> Self {
        match outcome {
            TaskOutcome::Completed { is_error: false } => Self::Ok,
            TaskOutcome::Completed { is_error: true } => Self::ToolError,
            TaskOutcome::Failed(error) => Self::Error {
                code: error.code,
                message: error.message,
            },
            TaskOutcome::Cancelled => Self::Cancelled,
        }
    }
}

/// What a request names, as its record tells it: the URI a `resources/read` reads, else the
/// definition's name.
fn target_of(request: &McpRequest) -> Option<String> {
    if request.method() == "resources/read" {
        return crate::wire::ParamNames::read(request.params())?.uri;
    }
    request.target().map(|t| t.name().to_owned())
}

impl Middleware for Audit {
    fn call(&self, request: McpRequest, next: Next) -> BoxFuture<'static, McpResponse> {
        // a task's polls: the record of the call that became the task tells its end, so only
        // a poll that fails is worth a record of its own
        let poll = matches!(request.method(), "tasks/get" | "tasks/result");
        let rounds = self.rounds;
        let call = request.call();
        let began = call.is_continuation().then(|| call.started_at());
        let cx = request.context();
        let record = AuditRecord {
            request_id: cx.request_id().clone(),
            method: request.method().to_owned(),
            target: target_of(&request),
            caller: request.caller_key().map(str::to_owned),
            call_id: call.id().to_owned(),
            rounds: call.round(),
            task_id: request.task_id().map(str::to_owned),
            protocol_version: cx.protocol_version(),
            transport: cx.transport(),
            outcome: Outcome::Ok,
            duration: Duration::ZERO,
        };
        let pending = Pending {
            sink: Arc::clone(&self.sink),
            record: Some(record),
            entered: Instant::now(),
            began,
        };
        Box::pin(async move {
            let response = next.run(request).await;
            if poll && response.protocol_error().is_none() {
                pending.defer();
            } else if response.is_input_required() {
                if rounds {
                    // this round's own duration: the call's is the last round's to tell
                    let mut pending = pending;
                    pending.began = None;
                    pending.finish(Outcome::InputRequired);
                } else {
                    pending.defer();
                }
            } else if let Some(task) = response.task() {
                let (task, mut pending) = (task.clone(), pending);
                if let Some(record) = pending.record.as_mut() {
                    record.task_id = Some(task.id().to_owned());
                }
                // the call goes on in the task: its record waits for the task's end
                tokio::spawn(async move {
                    let outcome = task.finished().await;
                    pending.finish(outcome.into());
                });
            } else {
                pending.finish(outcome_of(&response));
            }
            response
        })
    }
}
