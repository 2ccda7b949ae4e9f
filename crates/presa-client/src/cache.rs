//! The optional per-client result cache, honouring `ttlMs` and the change notifications.

use std::collections::HashMap;
use std::time::Duration;

use presa_core::{
    DiscoverResult, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult,
    ListToolsResult, Notification, RawJson, ReadResourceResult, ResourceUpdatedNotificationParams,
};
use tokio::time::Instant;

/// At most this many entries; when full, expired entries are purged and, if none were, new
/// results are not stored.
const CAPACITY: usize = 1024;

pub(crate) const DISCOVER: &str = "server/discover";
pub(crate) const TOOLS: &str = "tools/list";
pub(crate) const PROMPTS: &str = "prompts/list";
pub(crate) const RESOURCES: &str = "resources/list";
pub(crate) const TEMPLATES: &str = "resources/templates/list";
pub(crate) const READ: &str = "resources/read";

/// A result the server marked with caching hints.
pub(crate) trait Cacheable {
    /// `ttlMs`: absent reads as 0 (not cached).
    fn ttl_ms(&self) -> Option<u64>;
}

macro_rules! cacheable {
    ($($t:ty),*) => {$(
        impl Cacheable for $t {
            fn ttl_ms(&self) -> Option<u64> {
                self.ttl_ms
            }
        }
    )*};
}

cacheable!(
    DiscoverResult,
    ListToolsResult,
    ListPromptsResult,
    ListResourcesResult,
    ListResourceTemplatesResult,
    ReadResourceResult
);

/// What a cached result answers: a method and the one parameter that selects the result
/// (a list's cursor, a read's URI).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct CacheKey {
    method: &'static str,
    param: Option<String>,
}

impl CacheKey {
    pub(crate) fn new(method: &'static str, param: Option<String>) -> Self {
        Self { method, param }
    }

    pub(crate) fn method(&self) -> &'static str {
        self.method
    }
}

#[derive(Debug)]
struct Entry {
    raw: RawJson,
    expires: Instant,
}

/// Cached results of one client, with a generation per method: a result whose request was
/// sent before a change notification is not stored, however late it arrives.
#[derive(Debug, Default)]
pub(crate) struct Cache {
    entries: HashMap<CacheKey, Entry>,
    generations: HashMap<&'static str, u64>,
}

impl Cache {
    /// The fresh result for `key`, if any; an expired one is dropped.
    pub(crate) fn get(&mut self, key: &CacheKey, now: Instant) -> Option<RawJson> {
        let entry = self.entries.get(key)?;
        if now < entry.expires {
            return Some(entry.raw.clone());
        }
        self.entries.remove(key);
        None
    }

    /// The generation of `method`'s entries, to hand back to [`store`](Self::store).
    pub(crate) fn generation(&self, method: &'static str) -> u64 {
        self.generations.get(method).copied().unwrap_or(0)
    }

    /// Stores a result received at `now`, unless its `ttlMs` is 0 or absent, or `method` was
    /// invalidated since `generation` was read.
    pub(crate) fn store(
        &mut self,
        key: CacheKey,
        raw: RawJson,
        hints: &impl Cacheable,
        generation: u64,
        now: Instant,
    ) {
        let ttl = hints.ttl_ms().unwrap_or(0);
        if ttl == 0 || generation != self.generation(key.method) {
            return;
        }
        if self.entries.len() >= CAPACITY && !self.entries.contains_key(&key) {
            self.entries.retain(|_, e| now < e.expires);
            if self.entries.len() >= CAPACITY {
                return;
            }
        }
        let Some(expires) = now.checked_add(Duration::from_millis(ttl)) else {
            return;
        };
        // `cacheScope` (absent: private) decides who else may reuse a result. This cache
        // belongs to one client, one authorization context, so both scopes are kept here; a
        // cache shared across contexts would have to keep only public results.
        self.entries.insert(key, Entry { raw, expires });
    }

    /// Drops what a server notification says has changed.
    pub(crate) fn invalidate(&mut self, notification: &Notification) {
        match notification.method.as_str() {
            "notifications/tools/list_changed" => self.drop_method(TOOLS),
            "notifications/prompts/list_changed" => self.drop_method(PROMPTS),
            "notifications/resources/list_changed" => {
                self.drop_method(RESOURCES);
                self.drop_method(TEMPLATES);
            }
            "notifications/resources/updated" => {
                let uri = notification.params.as_ref().and_then(|p| {
                    serde_json::from_str::<ResourceUpdatedNotificationParams>(p.get()).ok()
                });
                self.bump(READ);
                match uri {
                    Some(params) => {
                        self.entries.remove(&CacheKey::new(READ, Some(params.uri)));
                    }
                    // an update we cannot read: drop every read to be safe
                    None => self.entries.retain(|k, _| k.method != READ),
                }
            }
            _ => {}
        }
    }

    fn drop_method(&mut self, method: &'static str) {
        self.bump(method);
        self.entries.retain(|k, _| k.method != method);
    }

    fn bump(&mut self, method: &'static str) {
        *self.generations.entry(method).or_insert(0) += 1;
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.entries.len()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use presa_core::to_raw;
    use serde_json::json;

    use super::*;

    fn tools(ttl: Option<u64>) -> (RawJson, ListToolsResult) {
        let value = json!({"tools": [], "ttlMs": ttl, "cacheScope": "public"});
        let parsed: ListToolsResult = serde_json::from_value(value.clone()).unwrap();
        (to_raw(&value).unwrap(), parsed)
    }

    fn notification(method: &str, params: serde_json::Value) -> Notification {
        Notification::new(method, &params).unwrap()
    }

    #[test]
    fn entries_live_for_their_ttl() {
        let mut cache = Cache::default();
        let now = Instant::now();
        let key = CacheKey::new(TOOLS, None);
        let (raw, parsed) = tools(Some(1000));
        cache.store(key.clone(), raw, &parsed, 0, now);
        assert!(cache.get(&key, now + Duration::from_millis(999)).is_some());
        assert!(cache.get(&key, now + Duration::from_millis(1000)).is_none());
        assert_eq!(cache.len(), 0, "expired entries are dropped");
    }

    #[test]
    fn zero_or_absent_ttl_is_not_cached() {
        let mut cache = Cache::default();
        let now = Instant::now();
        for ttl in [Some(0), None] {
            let (raw, parsed) = tools(ttl);
            cache.store(CacheKey::new(TOOLS, None), raw, &parsed, 0, now);
        }
        assert_eq!(cache.len(), 0);
    }

    #[test]
    fn pages_and_uris_are_separate_entries() {
        let mut cache = Cache::default();
        let now = Instant::now();
        let (raw, parsed) = tools(Some(1000));
        cache.store(CacheKey::new(TOOLS, None), raw.clone(), &parsed, 0, now);
        assert!(
            cache
                .get(&CacheKey::new(TOOLS, Some(String::new())), now)
                .is_none()
        );
        assert!(cache.get(&CacheKey::new(PROMPTS, None), now).is_none());
    }

    #[test]
    fn notifications_invalidate_and_stale_generations_are_refused() {
        let mut cache = Cache::default();
        let now = Instant::now();
        let (raw, parsed) = tools(Some(1000));
        let before = cache.generation(TOOLS);
        cache.store(
            CacheKey::new(TOOLS, None),
            raw.clone(),
            &parsed,
            before,
            now,
        );
        cache.invalidate(&notification("notifications/tools/list_changed", json!({})));
        assert!(cache.get(&CacheKey::new(TOOLS, None), now).is_none());
        // a response to a request sent before the notification is not stored
        cache.store(CacheKey::new(TOOLS, None), raw, &parsed, before, now);
        assert_eq!(cache.len(), 0);

        let read: ReadResourceResult = serde_json::from_value(
            json!({"contents": [{"uri": "file:///a", "text": "a"}], "ttlMs": 1000}),
        )
        .unwrap();
        let raw = to_raw(&read).unwrap();
        for uri in ["file:///a", "file:///b"] {
            let generation = cache.generation(READ);
            cache.store(
                CacheKey::new(READ, Some(uri.into())),
                raw.clone(),
                &read,
                generation,
                now,
            );
        }
        cache.invalidate(&notification(
            "notifications/resources/updated",
            json!({"uri": "file:///a"}),
        ));
        assert!(
            cache
                .get(&CacheKey::new(READ, Some("file:///a".into())), now)
                .is_none()
        );
        assert!(
            cache
                .get(&CacheKey::new(READ, Some("file:///b".into())), now)
                .is_some()
        );
    }
}
