//! The clients a server's initialize-era sessions were opened by, each description kept once:
//! the sessions of one client program (the same revision, capabilities and identity, as most of
//! a busy server's are) share it instead of holding a copy each.

use std::collections::HashMap;
use std::fmt;
use std::hash::{BuildHasher, Hasher, RandomState};
use std::sync::{Arc, Mutex, PoisonError, Weak};

use super::ClientContext;

/// The fewest descriptions listed before the dead ones are swept out.
const LEAST_SWEEP: usize = 64;

/// The descriptions of the clients that opened a server's initialize-era sessions, each kept
/// once while a session holds it: sessions opened by equal `initialize` descriptions (revision,
/// capabilities, identity) share one [`ClientContext`].
///
/// Cloning shares the table. A [`ServerSessionConfig`](super::ServerSessionConfig) makes one
/// of its own; a server that rebuilds its configuration (when its definitions change) hands
/// each new one the same table with
/// [`ServerSessionConfig::client_descriptions`](super::ServerSessionConfig::client_descriptions).
///
/// ```
/// use presa_core::{ClientDescriptions, ServerSessionConfig, Implementation};
///
/// let shared = ClientDescriptions::default();
/// let first = ServerSessionConfig::new(Implementation::new("s", "1"))
///     .client_descriptions(shared.clone());
/// let rebuilt = ServerSessionConfig::new(Implementation::new("s", "1"))
///     .client_descriptions(shared);
/// # let _ = (first, rebuilt);
/// ```
#[derive(Clone, Default)]
pub struct ClientDescriptions(Arc<Table>);

#[derive(Default)]
struct Table {
    /// Keyed per process, so that a peer cannot aim many descriptions at one bucket.
    hasher: RandomState,
    known: Mutex<Known>,
}

#[derive(Default)]
struct Known {
    by_hash: HashMap<u64, Vec<Weak<ClientContext>>>,
    /// Descriptions listed, live or not.
    listed: usize,
    /// How many may be listed before the dead ones are swept out.
    sweep_at: usize,
}

impl ClientDescriptions {
    /// `client`, shared with every session that holds an equal description already.
    pub(crate) fn intern(&self, client: ClientContext) -> Arc<ClientContext> {
        // hashed before the lock: a description may be tens of kilobytes
        let hash = self.hash(&client);
        let mut known = self.known();
        let found = known.by_hash.get(&hash).and_then(|bucket| {
            bucket
                .iter()
                .filter_map(Weak::upgrade)
                .find(|held| **held == client)
        });
        if let Some(held) = found {
            return held;
        }
        if known.listed >= known.sweep_at.max(LEAST_SWEEP) {
            known.sweep();
        }
        let client = Arc::new(client);
        known
            .by_hash
            .entry(hash)
            .or_default()
            .push(Arc::downgrade(&client));
        known.listed += 1;
        client
    }

    /// How many descriptions are listed, live or not (the dead ones go at the next sweep).
    fn listed(&self) -> usize {
        self.known().listed
    }

    fn known(&self) -> std::sync::MutexGuard<'_, Known> {
        self.0.known.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn hash(&self, client: &ClientContext) -> u64 {
        struct Hashing<H>(H);
        impl<H: Hasher> std::io::Write for Hashing<H> {
            fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
                self.0.write(bytes);
                Ok(bytes.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let mut hashing = Hashing(self.0.hasher.build_hasher());
        // a description that cannot be serialized hashes what was written before it failed:
        // equal descriptions still hash alike
        let _ = serde_json::to_writer(&mut hashing, client);
        hashing.0.finish()
    }
}

impl fmt::Debug for ClientDescriptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientDescriptions")
            .field("listed", &self.listed())
            .finish_non_exhaustive()
    }
}

impl Known {
    /// Drops the descriptions no session holds any more, and the room they took; the next
    /// sweep waits until the list has doubled, so sweeping costs a constant share of the
    /// descriptions added.
    fn sweep(&mut self) {
        self.by_hash.retain(|_, bucket| {
            bucket.retain(|held| held.strong_count() > 0);
            !bucket.is_empty()
        });
        self.by_hash.shrink_to_fit();
        self.listed = self.by_hash.values().map(Vec::len).sum();
        self.sweep_at = self.listed * 2;
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::{ClientCapabilities, Implementation, ProtocolVersion};

    fn client(name: &str) -> ClientContext {
        ClientContext {
            protocol_version: ProtocolVersion::V2025_11_25,
            capabilities: ClientCapabilities::default(),
            client_info: Some(Implementation::new(name, "1.0")),
        }
    }

    #[test]
    fn equal_descriptions_are_shared_and_different_ones_are_not() {
        let clients = ClientDescriptions::default();
        let first = clients.intern(client("a"));
        let again = clients.clone().intern(client("a"));
        let other = clients.intern(client("b"));
        assert!(Arc::ptr_eq(&first, &again), "a clone shares the table");
        assert!(!Arc::ptr_eq(&first, &other));
        assert_eq!(*other, client("b"));
        let mut elicits = client("a");
        elicits.capabilities.elicitation = Some(Default::default());
        assert!(!Arc::ptr_eq(&first, &clients.intern(elicits)));
        assert_eq!(
            format!("{clients:?}"),
            "ClientDescriptions { listed: 3, .. }"
        );
    }

    #[test]
    fn descriptions_no_session_holds_are_swept_out() {
        let clients = ClientDescriptions::default();
        let kept = clients.intern(client("kept"));
        for n in 0..1_000 {
            // each dropped at once: the list is swept as it grows
            drop(clients.intern(client(&n.to_string())));
        }
        assert!(clients.listed() <= LEAST_SWEEP + 1, "{}", clients.listed());
        assert!(Arc::ptr_eq(&kept, &clients.intern(client("kept"))));
    }
}
