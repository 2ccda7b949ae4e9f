//! `subscriptions/listen` (2026-07-28): a long-lived request whose response is a stream of the
//! change notifications the client opted in to.

use serde::{Deserialize, Serialize};

use crate::{JsonObject, META_SUBSCRIPTION_ID, Meta, MetaExt, RequestId, ResultType};

/// Which notifications a listen stream carries. In the acknowledgement: the subset the server
/// honours. Omitted or `false` means not subscribed. Open: extensions add filter members (the
/// tasks extension adds `taskIds`), kept in `other`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SubscriptionFilter {
    /// `notifications/tools/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools_list_changed: Option<bool>,
    /// `notifications/prompts/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompts_list_changed: Option<bool>,
    /// `notifications/resources/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources_list_changed: Option<bool>,
    /// `notifications/resources/updated` for these URIs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_subscriptions: Option<Vec<String>>,
    /// `notifications/tasks` for these task ids (the tasks extension,
    /// [`TASKS_EXTENSION`](crate::TASKS_EXTENSION)).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_ids: Option<Vec<String>>,
    /// Filter members added by extensions.
    #[serde(flatten)]
    pub other: JsonObject,
}

impl SubscriptionFilter {
    /// Whether the filter asks for nothing.
    pub fn is_empty(&self) -> bool {
        self.tools_list_changed != Some(true)
            && self.prompts_list_changed != Some(true)
            && self.resources_list_changed != Some(true)
            && self
                .resource_subscriptions
                .as_ref()
                .is_none_or(Vec::is_empty)
            && self.task_ids.as_ref().is_none_or(Vec::is_empty)
            && self.other.is_empty()
    }

    /// Whether `notifications/resources/updated` for `uri` passes the filter: `uri` is one of
    /// its [`resource_subscriptions`](Self::resource_subscriptions) or lies under one of them
    /// (see [`resource_is_under`]).
    ///
    /// ```
    /// use presa_core::SubscriptionFilter;
    ///
    /// let filter = SubscriptionFilter {
    ///     resource_subscriptions: Some(vec!["file:///srv/docs".into(), String::new()]),
    ///     ..SubscriptionFilter::default()
    /// };
    /// assert!(filter.watches_resource("file:///srv/docs"));
    /// assert!(filter.watches_resource("file:///srv/docs/a.md"));
    /// assert!(!filter.watches_resource("file:///srv/docs-old/a.md"));
    /// assert!(!filter.watches_resource("db://orders")); // "" watches nothing
    /// ```
    pub fn watches_resource(&self, uri: &str) -> bool {
        self.resource_subscriptions
            .iter()
            .flatten()
            .any(|watched| resource_is_under(uri, watched))
    }
}

/// How many resources one subscription watches at most (the first ones it names).
pub const MAX_WATCHED_RESOURCES: usize = 1000;

/// The resources a list of URIs can watch: each once, in order, without the empty string
/// (which covers nothing, see [`resource_is_under`]), at most [`MAX_WATCHED_RESOURCES`]. What
/// a server honours of a listen's `resourceSubscriptions`, and what an initialize-era client
/// subscribes to.
///
/// ```
/// use presa_core::watchable_resources;
///
/// let asked = ["file:///a", "", "file:///a", "file:///b"].map(String::from);
/// assert_eq!(watchable_resources(&asked), ["file:///a", "file:///b"]);
/// ```
pub fn watchable_resources(uris: &[String]) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    uris.iter()
        .filter(|uri| !uri.is_empty() && seen.insert(uri.as_str()))
        .take(MAX_WATCHED_RESOURCES)
        .cloned()
        .collect()
}

/// Whether the resource `uri` is `watched` itself or lies under it: `watched` is a prefix of
/// `uri` that ends with `/`, or is followed in `uri` by `/`, `?` or `#`. So `file:///docs`
/// covers `file:///docs/a.md` but not `file:///docs-old`, and an empty string covers nothing.
///
/// ```
/// use presa_core::resource_is_under;
///
/// assert!(resource_is_under("db://orders/42", "db://orders/"));
/// assert!(resource_is_under("db://orders?id=42", "db://orders"));
/// assert!(!resource_is_under("db://ordersarchive", "db://orders"));
/// assert!(!resource_is_under("db://orders", ""));
/// ```
pub fn resource_is_under(uri: &str, watched: &str) -> bool {
    if watched.is_empty() {
        return false;
    }
    match uri.strip_prefix(watched) {
        Some("") => true,
        Some(rest) => watched.ends_with('/') || rest.starts_with(['/', '?', '#']),
        None => false,
    }
}

/// Params of `subscriptions/listen`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SubscriptionsListenRequestParams {
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// What to deliver.
    pub notifications: SubscriptionFilter,
}

/// Result of `subscriptions/listen`: sent by the server when it ends the stream gracefully.
/// Its `_meta` carries `io.modelcontextprotocol/subscriptionId` (required by the schema).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SubscriptionsListenResult {
    /// The result type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// Result metadata, with the subscription id.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl SubscriptionsListenResult {
    /// The closing result of the listen request `id`.
    pub fn closed(id: &RequestId) -> Self {
        Self {
            result_type: Some(ResultType::Complete),
            meta: Some(subscription_meta(id)),
        }
    }

    /// The subscription id in `_meta`.
    pub fn subscription_id(&self) -> Option<RequestId> {
        self.meta.as_ref().and_then(MetaExt::subscription_id)
    }
}

/// Params of `notifications/subscriptions/acknowledged`, the first message of every listen
/// stream.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SubscriptionsAcknowledgedNotificationParams {
    /// Notification metadata, with the subscription id.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// The subset of the requested notifications the server will deliver (possibly empty).
    pub notifications: SubscriptionFilter,
}

impl SubscriptionsAcknowledgedNotificationParams {
    /// The acknowledgement of the listen request `id`, honouring `notifications`.
    pub fn new(id: &RequestId, notifications: SubscriptionFilter) -> Self {
        Self {
            meta: Some(subscription_meta(id)),
            notifications,
        }
    }
}

/// A `_meta` object holding `io.modelcontextprotocol/subscriptionId`, with the id's JSON type
/// kept (`"sub-a"` stays a string, `7` a number).
pub fn subscription_meta(id: &RequestId) -> Meta {
    let value = match id {
        RequestId::Number(n) => (*n).into(),
        RequestId::String(s) => s.clone().into(),
    };
    let mut meta = Meta::new();
    meta.insert(META_SUBSCRIPTION_ID.to_owned(), value);
    meta
}

impl_has_meta!(
    SubscriptionsListenRequestParams,
    SubscriptionsListenResult,
    SubscriptionsAcknowledgedNotificationParams
);
impl_has_result_type!(SubscriptionsListenResult);

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use serde_json::json;

    use super::*;

    #[test]
    fn subscription_id_keeps_its_type() {
        let ack = SubscriptionsAcknowledgedNotificationParams::new(
            &RequestId::from(7),
            SubscriptionFilter::default(),
        );
        assert_eq!(
            serde_json::to_value(&ack).unwrap(),
            json!({"_meta": {"io.modelcontextprotocol/subscriptionId": 7}, "notifications": {}})
        );
        let closed = SubscriptionsListenResult::closed(&RequestId::from("sub-a"));
        assert_eq!(closed.subscription_id(), Some(RequestId::from("sub-a")));
    }

    #[test]
    fn extension_filters_survive() {
        let filter = json!({"toolsListChanged": true, "taskIds": ["t-1"]});
        let parsed: SubscriptionFilter = serde_json::from_value(filter.clone()).unwrap();
        assert!(!parsed.is_empty());
        assert_eq!(serde_json::to_value(&parsed).unwrap(), filter);
    }
}
