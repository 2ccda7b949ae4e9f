//! The call a request belongs to: on 2026-07-28 a call that asks the client for input ends with
//! `input_required`, and the client makes it again with the answers, each time a new request.
//! The call's id, its round, when it started and what its last round asked travel in the sealed
//! `requestState`, so every round (on any instance that holds the key) knows the call it
//! continues.

use std::hash::BuildHasher;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The call a request belongs to (see [`McpRequest::call`](crate::McpRequest::call)).
///
/// A 2026-07-28 `tools/call`, `prompts/get` or `resources/read` whose handler asks the client
/// for input is answered `input_required`; the client makes the request again with the answers,
/// and the handler runs again. Each of those requests is a round of one call: the same
/// [`id`](Self::id), the next [`round`](Self::round). Every other request, and every request of
/// the initialize era (where input requests are answered while the handler waits), is round 1
/// of a call of its own.
///
/// A middleware that counts calls rather than requests (a rate limit, an audit) reads this;
/// presa's [`RateLimit`](crate::RateLimit) and [`Audit`](crate::Audit) do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallInfo {
    id: Arc<str>,
    round: u32,
    started_at_ms: u64,
    /// The keys of the input requests the previous round was answered with (none in round 1).
    asked: Arc<[String]>,
}

impl CallInfo {
    /// The call's id: the same in each of its rounds, unique among the calls of every process
    /// serving with the same key. Opaque: it tells nothing of the server.
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

    /// The keys of the input requests the previous round asked for (empty in round 1).
    pub(crate) fn asked(&self) -> &[String] {
        &self.asked
    }

    /// A new call, beginning now.
    pub(crate) fn fresh() -> Self {
        Self {
            id: new_call_id().into(),
            round: 1,
            started_at_ms: unix_ms(SystemTime::now()),
            asked: Arc::new([]),
        }
    }

    /// The call an opened `requestState` continues, if it names one: its next round.
    pub(crate) fn continued_from(state: &Value) -> Option<Self> {
        let sealed = Sealed::deserialize(state.get(STATE_MEMBER)?).ok()?;
        Some(Self {
            id: sealed.id.into(),
            round: sealed.round.saturating_add(1),
            started_at_ms: sealed.started_ms,
            asked: sealed.asked.into(),
        })
    }

    /// This round as the `requestState` of the next one carries it, with the keys this round
    /// asked for.
    pub(crate) fn sealed<'a>(&self, asked: impl IntoIterator<Item = &'a String>) -> Value {
        serde_json::to_value(Sealed {
            id: self.id.to_string(),
            round: self.round,
            started_ms: self.started_at_ms,
            asked: asked.into_iter().cloned().collect(),
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
    #[serde(default)]
    asked: Vec<String>,
}

/// A new call id: a keyed hash of this process's count of calls, so that ids of calls served by
/// several instances do not collide and tell nothing (the id travels readable in the sealed
/// state), without asking the system for randomness per call.
fn new_call_id() -> String {
    static KEYS: OnceLock<(std::collections::hash_map::RandomState, u64)> = OnceLock::new();
    static NEXT: AtomicU64 = AtomicU64::new(1);
    let (keyed, salt) = KEYS.get_or_init(|| {
        // SipHash under the process's random keys: two processes hash one count differently
        let keyed = std::collections::hash_map::RandomState::new();
        let salt = keyed.hash_one(std::process::id());
        (keyed, salt)
    });
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    format!(
        "{:016x}{:016x}",
        keyed.hash_one((salt, n)),
        keyed.hash_one(n)
    )
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
        assert!(first.asked().is_empty());
        let asked = ["confirm".to_owned()];
        let state = serde_json::json!({ STATE_MEMBER: first.sealed(&asked) });
        let second = CallInfo::continued_from(&state).unwrap();
        assert_eq!(second.id(), first.id());
        assert_eq!(second.round(), 2);
        assert!(second.is_continuation());
        assert_eq!(second.started_at(), first.started_at());
        assert_eq!(second.asked(), asked);
        // a state without a call (or a malformed one) continues nothing
        assert_eq!(CallInfo::continued_from(&serde_json::json!({})), None);
        let odd = serde_json::json!({ STATE_MEMBER: {"id": 7} });
        assert_eq!(CallInfo::continued_from(&odd), None);
    }

    #[test]
    fn call_ids_do_not_show_how_many_calls_came_before() {
        let ids: Vec<String> = (0..64).map(|_| new_call_id()).collect();
        let unique: std::collections::HashSet<&String> = ids.iter().collect();
        assert_eq!(unique.len(), ids.len());
        // consecutive ids share no prefix a counter would leave
        for pair in ids.windows(2) {
            assert_ne!(pair[0][..8], pair[1][..8]);
        }
    }
}
