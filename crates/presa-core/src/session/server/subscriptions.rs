//! An initialize-era session's resource subscriptions: `resources/subscribe` and
//! `resources/unsubscribe`, answered by the session itself and held to
//! [`MAX_WATCHED_RESOURCES`], the bound a 2026-07-28 listen's filter has too.

use std::collections::HashSet;

use serde_json::Map;

use super::ServerSession;
use crate::jsonrpc::parse_params;
use crate::{
    ErrorObject, MAX_WATCHED_RESOURCES, Request, SubscribeRequestParams, watchable_resources,
};

/// The URIs a session subscribed to; none kept in a set made for the first (most sessions never
/// subscribe).
#[derive(Debug, Default)]
pub(super) struct Subscriptions {
    #[expect(
        clippy::box_collection,
        reason = "a pointer until the first subscription, not an empty set's 48 bytes"
    )]
    uris: Option<Box<HashSet<String>>>,
}

impl Subscriptions {
    /// Subscribes to `uri`, or unsubscribes from it; whether that changed anything. The empty
    /// string watches nothing, and one URI past [`MAX_WATCHED_RESOURCES`] is refused until the
    /// client unsubscribes from one.
    fn set(&mut self, uri: String, subscribe: bool) -> Result<bool, ErrorObject> {
        if !subscribe {
            let removed = self.uris.as_mut().is_some_and(|uris| uris.remove(&uri));
            if self.uris.as_ref().is_some_and(|uris| uris.is_empty()) {
                self.uris = None;
            }
            return Ok(removed);
        }
        if watchable_resources(std::slice::from_ref(&uri)).is_empty() {
            return Err(ErrorObject::invalid_params(
                "Invalid params: uri must not be empty",
            ));
        }
        let uris = self.uris.get_or_insert_default();
        if uris.len() >= MAX_WATCHED_RESOURCES && !uris.contains(&uri) {
            return Err(ErrorObject::invalid_params(format!(
                "Invalid params: a session subscribes to at most {MAX_WATCHED_RESOURCES} \
                 resources; unsubscribe from one first"
            )));
        }
        Ok(uris.insert(uri))
    }

    fn contains(&self, uri: &str) -> bool {
        self.uris.as_ref().is_some_and(|uris| uris.contains(uri))
    }

    fn iter(&self) -> impl Iterator<Item = &String> {
        self.uris.iter().flat_map(|uris| uris.iter())
    }

    /// Makes `uris` the subscriptions; whether that changed them.
    fn replace(&mut self, uris: HashSet<String>) -> bool {
        let same = match &self.uris {
            Some(current) => **current == uris,
            None => uris.is_empty(),
        };
        if !same {
            self.uris = (!uris.is_empty()).then(|| Box::new(uris));
        }
        !same
    }
}

impl ServerSession {
    /// Whether the initialize-era client subscribed to the resource `uri` (and should hear of
    /// its updates).
    pub fn is_subscribed(&self, uri: &str) -> bool {
        self.subscriptions.contains(uri)
    }

    /// The resources the initialize-era client subscribed to, sorted: a stable form for saved
    /// state.
    pub fn subscriptions(&self) -> Vec<String> {
        let mut uris: Vec<String> = self.subscriptions.iter().cloned().collect();
        uris.sort_unstable();
        uris
    }

    /// Continues a session's subscriptions from saved state, held to the same rules as the
    /// client's own requests ([`watchable_resources`]). Counts as a state change when it
    /// changes anything.
    pub fn set_subscriptions(&mut self, uris: &[String]) {
        let uris: HashSet<String> = watchable_resources(uris).into_iter().collect();
        if self.subscriptions.replace(uris) {
            self.state_changes += 1;
        }
    }

    /// Whether this session answers `resources/subscribe` itself
    /// ([`ServerSessionConfig::keep_subscriptions`](crate::ServerSessionConfig::keep_subscriptions)).
    /// Otherwise the request goes to the application.
    pub(super) fn keeps_subscriptions(&self) -> bool {
        self.config.keeps_subscriptions
    }

    /// Answers an initialize-era `resources/subscribe` (`subscribe`) or `unsubscribe`.
    pub(super) fn handle_subscription(&mut self, request: Request, subscribe: bool) {
        let changed = parse_params::<SubscribeRequestParams>(request.params.as_deref())
            .and_then(|params| self.subscriptions.set(params.uri, subscribe));
        match changed {
            Ok(changed) => {
                if changed {
                    self.state_changes += 1;
                }
                self.answer_itself(request, &Map::new());
            }
            Err(error) => self.refuse(request, error),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn the_set_is_made_for_the_first_subscription_and_goes_with_the_last() {
        let mut subscriptions = Subscriptions::default();
        assert!(!subscriptions.set("a".to_owned(), false).unwrap());
        assert!(subscriptions.set(String::new(), true).is_err());
        assert!(subscriptions.uris.is_none());
        assert!(subscriptions.set("a".to_owned(), true).unwrap());
        assert!(subscriptions.contains("a") && !subscriptions.contains("b"));
        assert!(subscriptions.set("a".to_owned(), false).unwrap());
        assert!(subscriptions.uris.is_none());
        let b = HashSet::from(["b".to_owned()]);
        assert!(subscriptions.replace(b.clone()));
        assert!(!subscriptions.replace(b));
        assert_eq!(subscriptions.iter().collect::<Vec<_>>(), ["b"]);
        assert!(subscriptions.replace(HashSet::new()));
        assert!(subscriptions.uris.is_none());
        assert!(!subscriptions.replace(HashSet::new()));
    }
}
