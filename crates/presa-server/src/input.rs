//! Asking the client for input from inside a handler: elicitation, sampling and roots, the same
//! call in both eras.
//!
//! - Initialize era: a real server→client request on the session; the handler waits for the
//!   answer.
//! - 2026-07-28: the first time a handler asks, the request ends with an `input_required` result
//!   listing what it needs and a sealed `requestState`; the client retries with the answers, the
//!   handler runs again from the start, and this time the same call returns the answer. Nothing
//!   is remembered between rounds but what the sealed state carries.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context as TaskContext, Poll, Waker};

use presa_core::{
    ClientCapabilities, CreateMessageResult, ElicitRequestParams, ElicitResult, Era, ErrorObject,
    InputRequest, InputResponse, ListRootsResult, MissingRequiredClientCapabilityData,
};
use serde_json::Value;

use crate::BoxFuture;

/// Why a request for input got no answer the handler can use.
///
/// (A request the client cannot serve at all — a capability it did not declare — never returns:
/// the whole request fails with `-32021` on 2026-07-28, `-32602` before. A notification
/// handler has no request to fail: there the ask returns [`InputError::Unavailable`].)
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum InputError {
    /// The client answered the server→client request with an error (initialize era).
    Rejected(ErrorObject),
    /// The session ended before the answer arrived, or it timed out; or, asked from a
    /// notification handler, the client did not declare the capability the request needs.
    Unavailable(String),
    /// This request cannot ask for input (on 2026-07-28 only `tools/call`, `prompts/get` and
    /// `resources/read` can, and a notification handler never can).
    NotAllowed,
    /// The client's answer does not have the shape of the result asked for.
    InvalidAnswer(String),
    /// [`Context::elicit_as`](crate::Context::elicit_as) asked for a form of a type the server
    /// was not given with
    /// [`ServerBuilder::elicitation_form`](crate::ServerBuilder::elicitation_form) (where it is
    /// checked when the server is built).
    UnregisteredForm(&'static str),
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Rejected(error) => write!(f, "the client refused: {}", error.message),
            Self::Unavailable(why) => write!(f, "no answer from the client: {why}"),
            Self::NotAllowed => f.write_str("this request cannot ask the client for input"),
            Self::InvalidAnswer(why) => write!(f, "the client's answer is not usable: {why}"),
            Self::UnregisteredForm(type_name) => write!(
                f,
                "no elicitation form {type_name}: register it with ServerBuilder::elicitation_form"
            ),
        }
    }
}

impl std::error::Error for InputError {}

/// Why a handler's request was suspended instead of finishing.
#[derive(Debug)]
pub(crate) enum Suspension {
    /// It asked for input the client has not given yet.
    Input(BTreeMap<String, InputRequest>),
    /// The request must fail with this error (missing capability, malformed answer).
    Error(ErrorObject),
}

/// One round of a 2026-07-28 request: the answers at hand, and what the handler still needs.
#[derive(Debug)]
pub(crate) struct Round {
    /// Answers from the sealed state and this retry's `inputResponses`.
    pub(crate) responses: BTreeMap<String, InputResponse>,
    /// The keys the handler used, which the next state carries.
    pub(crate) used: Mutex<BTreeSet<String>>,
    /// The call this round belongs to, when known before the handler ran (a middleware asked,
    /// or the sealed state named it): the next state carries it.
    pub(crate) call: Option<crate::call::CallInfo>,
}

/// What a request's handler asked for that it cannot have yet.
#[derive(Debug, Default)]
pub(crate) struct Asks {
    pending: Mutex<BTreeMap<String, InputRequest>>,
    error: Mutex<Option<ErrorObject>>,
    next_key: Mutex<u64>,
    /// The task running the handler, woken by an ask: the ask may come from another task (work
    /// the handler spawned), which wakes nothing the handler waits on.
    waker: Mutex<Option<Waker>>,
}

impl Asks {
    pub(crate) fn ask(&self, key: String, request: InputRequest) {
        lock(&self.pending).entry(key).or_insert(request);
        self.wake();
    }

    pub(crate) fn fail(&self, error: ErrorObject) {
        lock(&self.error).get_or_insert(error);
        self.wake();
    }

    fn wake(&self) {
        if let Some(waker) = lock(&self.waker).take() {
            waker.wake();
        }
    }

    /// A key for an ask that named none: its kind and its position among this handler's asks,
    /// which is the same in every round as long as the handler asks in the same order.
    pub(crate) fn default_key(&self, kind: &str) -> String {
        let mut n = lock(&self.next_key);
        *n += 1;
        format!("{kind}-{n}")
    }

    fn suspension(&self) -> Option<Suspension> {
        if let Some(error) = lock(&self.error).take() {
            return Some(Suspension::Error(error));
        }
        let pending = std::mem::take(&mut *lock(&self.pending));
        (!pending.is_empty()).then_some(Suspension::Input(pending))
    }
}

/// `mutex`, taken over when a panic poisoned it (what it guards is changed in one step), as
/// every lock in presa is.
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Runs a handler until it finishes, or until it has asked for input it cannot have (it is then
/// dropped: it runs again from the start on the retry).
pub(crate) struct Suspendable<T> {
    future: BoxFuture<'static, T>,
    asks: Arc<Asks>,
}

impl<T> Suspendable<T> {
    pub(crate) fn new(future: BoxFuture<'static, T>, asks: Arc<Asks>) -> Self {
        Self { future, asks }
    }
}

impl<T> Future for Suspendable<T> {
    type Output = Result<T, Suspension>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Self::Output> {
        match self.future.as_mut().poll(cx) {
            Poll::Ready(value) => Poll::Ready(Ok(value)),
            Poll::Pending => {
                // registered before looking: an ask after the look wakes this task
                *lock(&self.asks.waker) = Some(cx.waker().clone());
                match self.asks.suspension() {
                    Some(suspension) => Poll::Ready(Err(suspension)),
                    None => Poll::Pending,
                }
            }
        }
    }
}

/// The error for a request whose input needs a capability the client did not declare.
pub(crate) fn missing_capability_error(required: ClientCapabilities, era: Era) -> ErrorObject {
    let what = serde_json::to_string(&required).unwrap_or_default();
    let message = format!("This request needs a client capability that was not declared: {what}");
    match era {
        Era::Stateless => MissingRequiredClientCapabilityData {
            required_capabilities: required,
        }
        .into_error(message),
        Era::Initialize => ErrorObject::invalid_params(message),
    }
}

/// Checks an elicitation answer against the schema it answered.
pub(crate) fn check_elicit_answer(
    request: &ElicitRequestParams,
    answer: &ElicitResult,
) -> Result<(), String> {
    let (ElicitRequestParams::Form(form), Some(content)) = (request, &answer.content) else {
        return Ok(());
    };
    if answer.action != presa_core::ElicitAction::Accept {
        return Ok(());
    }
    let schema = serde_json::to_value(&form.requested_schema).map_err(|e| e.to_string())?;
    let validator = presa_schema::compile(&schema).map_err(|e| e.to_string())?;
    validator
        .validate(&Value::Object(content.clone()))
        .map_err(|e| format!("content {e}"))
}

/// Reads an answer of one kind out of an input response.
pub(crate) fn elicit_answer(response: &InputResponse) -> Option<ElicitResult> {
    match response {
        InputResponse::Elicit(r) => Some(r.clone()),
        _ => None,
    }
}

/// Reads a sampling answer out of an input response.
pub(crate) fn sample_answer(response: &InputResponse) -> Option<CreateMessageResult> {
    match response {
        InputResponse::CreateMessage(r) => Some(r.clone()),
        _ => None,
    }
}

/// Reads a roots answer out of an input response.
pub(crate) fn roots_answer(response: &InputResponse) -> Option<ListRootsResult> {
    match response {
        InputResponse::ListRoots(r) => Some(r.clone()),
        _ => None,
    }
}

/// What an input request params turn into for the initialize era's real request.
pub(crate) fn request_params(request: &InputRequest) -> Value {
    match request {
        InputRequest::Elicit(p) => serde_json::to_value(p).unwrap_or_default(),
        InputRequest::CreateMessage(p) => serde_json::to_value(p).unwrap_or_default(),
        InputRequest::ListRoots(p) => serde_json::to_value(p).unwrap_or(Value::Null),
        _ => Value::Null,
    }
}

/// What the user did with a form asked for with [`Context::elicit_as`](crate::Context::elicit_as).
#[cfg(feature = "schemars")]
#[derive(Clone, Debug, PartialEq)]
pub enum Elicitation<T> {
    /// The user submitted the form; its values read as a `T`.
    Accepted(T),
    /// The user declined to answer.
    Declined,
    /// The user dismissed the form without choosing.
    Cancelled,
}
