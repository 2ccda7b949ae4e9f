//! The clients a server's initialize-era sessions were opened by, each description kept once:
//! the sessions of one client program (the same revision, capabilities and identity, as most of
//! a busy server's are) share it instead of holding a copy each.

use std::collections::HashMap;
use std::hash::{BuildHasher, Hasher, RandomState};
use std::sync::{Arc, Mutex, PoisonError, Weak};

use super::ClientContext;

/// The fewest descriptions listed before the dead ones are swept out.
const LEAST_SWEEP: usize = 64;

/// A weak set of the client descriptions that sessions hold, by a hash of their JSON.
#[derive(Debug, Default)]
pub(crate) struct Clients(Mutex<Known>);

#[derive(Debug, Default)]
struct Known {
    /// Keyed per process, so that a peer cannot aim many descriptions at one bucket.
    hasher: RandomState,
    by_hash: HashMap<u64, Vec<Weak<ClientContext>>>,
    /// Descriptions listed, live or not.
    listed: usize,
    /// How many may be listed before the dead ones are swept out.
    sweep_at: usize,
}

impl Clients {
    /// `client`, shared with every session that holds an equal description already.
    pub(crate) fn intern(&self, client: ClientContext) -> Arc<ClientContext> {
        let mut known = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let hash = known.hash(&client);
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

    /// How many descriptions are listed, live or not.
    #[cfg(test)]
    fn listed(&self) -> usize {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).listed
    }
}

impl Known {
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
        let mut hashing = Hashing(self.hasher.build_hasher());
        // a description that cannot be serialized hashes what was written before it failed:
        // equal descriptions still hash alike
        let _ = serde_json::to_writer(&mut hashing, client);
        hashing.0.finish()
    }

    /// Drops the descriptions no session holds any more; the next sweep waits until the list
    /// has doubled, so sweeping costs a constant share of the descriptions added.
    fn sweep(&mut self) {
        self.by_hash.retain(|_, bucket| {
            bucket.retain(|held| held.strong_count() > 0);
            !bucket.is_empty()
        });
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
        let clients = Clients::default();
        let first = clients.intern(client("a"));
        let again = clients.intern(client("a"));
        let other = clients.intern(client("b"));
        assert!(Arc::ptr_eq(&first, &again));
        assert!(!Arc::ptr_eq(&first, &other));
        assert_eq!(*other, client("b"));
        let mut elicits = client("a");
        elicits.capabilities.elicitation = Some(Default::default());
        assert!(!Arc::ptr_eq(&first, &clients.intern(elicits)));
    }

    #[test]
    fn descriptions_no_session_holds_are_swept_out() {
        let clients = Clients::default();
        let kept = clients.intern(client("kept"));
        for n in 0..1_000 {
            // each dropped at once: the list is swept as it grows
            drop(clients.intern(client(&n.to_string())));
        }
        assert!(clients.listed() <= LEAST_SWEEP + 1, "{}", clients.listed());
        assert!(Arc::ptr_eq(&kept, &clients.intern(client("kept"))));
    }
}
