//! The call a request belongs to: on 2026-07-28 a call that asks the client for input ends with
//! `input_required`, and the client makes it again with the answers, each time a new request.
//! The call's id, its round and when it started travel in the sealed `requestState`, so every
//! round (on any instance that holds the key) knows the call it continues.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;

use crate::context::Context;

/// The call a request belongs to (see [`McpRequest::call`](super::McpRequest::call)).
///
/// A 2026-07-28 `tools/call`, `prompts/get` or `resources/read` whose handler asks the client
/// for input is answered `input_required`; the client makes the request again with the answers,
/// and the handler runs again. Each of those requests is a round of one call: the same
/// [`id`](Self::id), the next [`round`](Self::round). Every other request, and every request of
/// the initialize era (where input requests are answered while the handler waits), is round 1
/// of a call of its own.
///
/// A middleware that counts calls rather than requests (a rate limit, an audit) reads this;
/// presa's [`RateLimit`](super::RateLimit) and [`Audit`](super::Audit) do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallInfo {
    id: Arc<str>,
    round: u32,
    started_at_ms: u64,
}

impl CallInfo {
    /// The call's id: the same in each of its rounds, unique among the calls of every process
    /// serving with the same key.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Which round of the call this request is: 1 for the first request, 2 for the first one
    /// that brings answers, and so on.
    pub fn round(&self) -> u32 {
        self.round
    }

    /// Whether this request continues a call an earlier request began (its round is past 1).
    pub fn is_continuation(&self) -> bool {
        self.round > 1
    }

    /// When the call's first round began, by the clock of the instance that served it.
    pub fn started_at(&self) -> SystemTime {
        UNIX_EPOCH + Duration::from_millis(self.started_at_ms)
    }

    /// A new call, beginning now.
    pub(crate) fn fresh() -> Self {
        Self {
            id: new_call_id().into(),
            round: 1,
            started_at_ms: unix_ms(SystemTime::now()),
        }
    }

    /// The call an opened `requestState` continues, if it names one: its next round.
    pub(crate) fn continued_from(state: &Value) -> Option<Self> {
        let sealed = Sealed::deserialize(state.get(STATE_MEMBER)?).ok()?;
        Some(Self {
            id: sealed.id.into(),
            round: sealed.round.saturating_add(1),
            started_at_ms: sealed.started_ms,
        })
    }

    /// This round as the `requestState` of the next one carries it.
    pub(crate) fn sealed(&self) -> Value {
        serde_json::to_value(Sealed {
            id: self.id.to_string(),
            round: self.round,
            started_ms: self.started_at_ms,
        })
        .unwrap_or(Value::Null)
    }
}

/// The member of a sealed `requestState` that holds the call.
pub(crate) const STATE_MEMBER: &str = "call";

/// A call's round in a sealed `requestState`.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Sealed {
    id: String,
    round: u32,
    started_ms: u64,
}

/// The methods whose requests can have rounds (2026-07-28).
fn has_rounds(method: &str) -> bool {
    matches!(method, "tools/call" | "prompts/get" | "resources/read")
}

/// The call the request `method` with `params` continues, read from its `requestState` when it
/// carries one that opens under the server's key; `None` for a first round (or a state that
/// does not open: the request fails as it is served, as round 1 of a call of its own).
pub(crate) fn continued(cx: &Context, method: &str, params: Option<&RawValue>) -> Option<CallInfo> {
    if cx.protocol_version().era() != presa_core::Era::Stateless || !has_rounds(method) {
        return None;
    }
    // the common case, a first round, costs a substring search, not a parse
    let params = params.filter(|p| p.get().contains("\"requestState\""))?;
    let params: Value = serde_json::from_str(params.get()).ok()?;
    let token = params.get("requestState")?.as_str()?;
    let codec = cx.server()?.inner.options.request_state.as_ref()?;
    let binding = presa_core::request_state_binding(method, &params);
    let state = codec
        .open(SystemTime::now(), token, method, &binding)
        .ok()?;
    CallInfo::continued_from(&state)
}

/// A new call id: this process's random prefix and a counter, so that ids of calls served by
/// several instances do not collide, without asking the system for randomness per call.
fn new_call_id() -> String {
    static PREFIX: OnceLock<String> = OnceLock::new();
    static NEXT: AtomicU64 = AtomicU64::new(1);
    let prefix = PREFIX.get_or_init(|| {
        let mut bytes = [0u8; 8];
        if getrandom::fill(&mut bytes).is_err() {
            // no randomness: the process and the clock tell instances apart well enough
            let nanos = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos());
            bytes = (u64::from(std::process::id()) ^ (nanos as u64)).to_be_bytes();
        }
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    });
    format!("{prefix}-{}", NEXT.fetch_add(1, Ordering::Relaxed))
}

fn unix_ms(time: SystemTime) -> u64 {
    time.duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_call_sealed_in_one_round_is_continued_in_the_next() {
        let first = CallInfo::fresh();
        assert_eq!(first.round(), 1);
        assert!(!first.is_continuation());
        let state = serde_json::json!({ STATE_MEMBER: first.sealed() });
        let second = CallInfo::continued_from(&state).unwrap();
        assert_eq!(second.id(), first.id());
        assert_eq!(second.round(), 2);
        assert!(second.is_continuation());
        assert_eq!(second.started_at(), first.started_at());
        // a state without a call (or a malformed one) continues nothing
        assert_eq!(CallInfo::continued_from(&serde_json::json!({})), None);
        let odd = serde_json::json!({ STATE_MEMBER: {"id": 7} });
        assert_eq!(CallInfo::continued_from(&odd), None);
    }

    #[test]
    fn call_ids_differ() {
        assert_ne!(CallInfo::fresh().id(), CallInfo::fresh().id());
    }
}
