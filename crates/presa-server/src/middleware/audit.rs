//! An audit hook: one record per request, with its method, definition, caller, outcome and
//! duration.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use presa_core::{ErrorCode, ProtocolVersion, RequestId};
use tokio::time::Instant;

use super::{McpRequest, McpResponse, Middleware, Next};
use crate::BoxFuture;
use crate::transport::Transport;

/// What became of an audited request.
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
}

/// One audited request.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct AuditRecord {
    /// The request's id.
    pub request_id: RequestId,
    /// Its method.
    pub method: String,
    /// The tool or prompt name, or the resource URI, it named.
    pub target: Option<String>,
    /// The caller's verified subject (else its client id), if the transport verified one.
    pub caller: Option<String>,
    /// The revision it was served under.
    pub protocol_version: ProtocolVersion,
    /// The transport it came by.
    pub transport: Transport,
    /// What became of it.
    pub outcome: Outcome,
    /// How long it took, from entering this middleware to its answer.
    pub duration: Duration,
}

type Sink = Arc<dyn Fn(&AuditRecord) + Send + Sync>;

/// Hands a record of every request to a function of yours (a log line, a table, a queue), on
/// every transport. Place it first to time the whole stack.
///
/// ```
/// use presa_server::{Audit, Outcome, Server};
///
/// let server = Server::builder("audited", "1.0.0")
///     .middleware(Audit::new(|record| {
///         eprintln!(
///             "{} {} by {} -> {:?} in {:?}",
///             record.method,
///             record.target.as_deref().unwrap_or("-"),
///             record.caller.as_deref().unwrap_or("anonymous"),
///             record.outcome,
///             record.duration,
///         );
///     }))
///     .build()
///     .unwrap();
/// # let _ = server;
/// ```
#[derive(Clone)]
pub struct Audit {
    sink: Sink,
}

impl fmt::Debug for Audit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Audit").finish_non_exhaustive()
    }
}

impl Audit {
    /// Audits into `sink`, called once per request as it ends.
    pub fn new(sink: impl Fn(&AuditRecord) + Send + Sync + 'static) -> Self {
        Self {
            sink: Arc::new(sink),
        }
    }
}

/// The record of a request in flight: written when it ends, or as cancelled when dropped
/// first.
struct Pending {
    sink: Sink,
    record: Option<AuditRecord>,
    started: Instant,
}

impl Pending {
    fn finish(mut self, outcome: Outcome) {
        if let Some(mut record) = self.record.take() {
            record.outcome = outcome;
            record.duration = self.started.elapsed();
            (self.sink)(&record);
        }
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        if let Some(mut record) = self.record.take() {
            record.outcome = Outcome::Cancelled;
            record.duration = self.started.elapsed();
            (self.sink)(&record);
        }
    }
}

impl Middleware for Audit {
    fn call(&self, request: McpRequest, next: Next) -> BoxFuture<'static, McpResponse> {
        let cx = request.context();
        let caller = cx
            .auth()
            .and_then(|auth| auth.subject().or(auth.client_id()))
            .map(str::to_owned);
        let record = AuditRecord {
            request_id: cx.request_id().clone(),
            method: request.method().to_owned(),
            target: request.target().map(|t| t.name().to_owned()),
            caller,
            protocol_version: cx.protocol_version(),
            transport: cx.transport(),
            outcome: Outcome::Ok,
            duration: Duration::ZERO,
        };
        let pending = Pending {
            sink: Arc::clone(&self.sink),
            record: Some(record),
            started: Instant::now(),
        };
        Box::pin(async move {
            let response = next.run(request).await;
            let outcome = match response.protocol_error() {
                Some(error) => Outcome::Error {
                    code: error.code,
                    message: error.message.clone(),
                },
                None if response.is_tool_error() => Outcome::ToolError,
                None => Outcome::Ok,
            };
            pending.finish(outcome);
            response
        })
    }
}
