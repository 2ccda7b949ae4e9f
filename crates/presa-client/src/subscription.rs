//! Subscriptions to what changes on the server: [`Client::subscribe`], [`Subscription`] and the
//! [`ChangeEvent`]s it yields, the same in both eras.

use std::collections::VecDeque;

use presa_core::{
    Era, Notification, RequestId, ResourceUpdatedNotificationParams, ServerCapabilities,
    SubscriptionFilter, SubscriptionsAcknowledgedNotificationParams, watchable_resources,
};
use serde_json::{Map, Value};
use tokio::sync::broadcast;

use crate::handle::OpenCall;
use crate::{Client, ClientError};

const LISTEN: &str = <presa_core::SubscriptionsListen as presa_core::RequestMethod>::METHOD;
const ACKNOWLEDGED: &str = "notifications/subscriptions/acknowledged";
const TOOLS_CHANGED: &str = "notifications/tools/list_changed";
const PROMPTS_CHANGED: &str = "notifications/prompts/list_changed";
const RESOURCES_CHANGED: &str = "notifications/resources/list_changed";
const RESOURCE_UPDATED: &str = "notifications/resources/updated";

/// What to subscribe to: list changes of tools, prompts and resources, and updates of
/// resources by URI. Converts into the wire [`SubscriptionFilter`], which
/// [`Client::subscribe`] also takes as is (e.g. with an extension's filter members).
///
/// ```
/// use presa_client::SubscriptionOptions;
/// use presa_core::SubscriptionFilter;
///
/// let options = SubscriptionOptions::new()
///     .tools_list_changed(true)
///     .resource("file:///status.txt");
/// let filter = SubscriptionFilter::from(options);
/// assert_eq!(filter.tools_list_changed, Some(true));
/// assert_eq!(filter.prompts_list_changed, None);
/// assert_eq!(filter.resource_subscriptions, Some(vec!["file:///status.txt".to_owned()]));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SubscriptionOptions {
    tools_list_changed: bool,
    prompts_list_changed: bool,
    resources_list_changed: bool,
    resource_subscriptions: Vec<String>,
}

impl SubscriptionOptions {
    /// Nothing subscribed yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether to hear that the list of tools changed (`notifications/tools/list_changed`).
    pub fn tools_list_changed(mut self, on: bool) -> Self {
        self.tools_list_changed = on;
        self
    }

    /// Whether to hear that the list of prompts changed.
    pub fn prompts_list_changed(mut self, on: bool) -> Self {
        self.prompts_list_changed = on;
        self
    }

    /// Whether to hear that the list of resources (or resource templates) changed.
    pub fn resources_list_changed(mut self, on: bool) -> Self {
        self.resources_list_changed = on;
        self
    }

    /// Adds a resource whose updates to hear of (`notifications/resources/updated`; the server
    /// may also report updates of resources under it).
    pub fn resource(mut self, uri: impl Into<String>) -> Self {
        self.resource_subscriptions.push(uri.into());
        self
    }

    /// The resources whose updates to hear of, replacing those added before.
    pub fn resource_subscriptions<I, S>(mut self, uris: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.resource_subscriptions = uris.into_iter().map(Into::into).collect();
        self
    }
}

impl From<SubscriptionOptions> for SubscriptionFilter {
    fn from(options: SubscriptionOptions) -> Self {
        let uris = watchable_resources(&options.resource_subscriptions);
        Self {
            tools_list_changed: options.tools_list_changed.then_some(true),
            prompts_list_changed: options.prompts_list_changed.then_some(true),
            resources_list_changed: options.resources_list_changed.then_some(true),
            resource_subscriptions: (!uris.is_empty()).then_some(uris),
            ..Self::default()
        }
    }
}

/// A change a [`Subscription`] reports.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum ChangeEvent {
    /// The list of tools changed: list them again.
    ToolsListChanged,
    /// The list of prompts changed.
    PromptsListChanged,
    /// The list of resources (or resource templates) changed.
    ResourcesListChanged,
    /// The resource at `uri` changed (a subscribed one, or one under it): read it again.
    ResourceUpdated {
        /// The resource that changed.
        uri: String,
    },
    /// Another notification of a 2026-07-28 subscription, e.g. one an extension's filter member
    /// asked for.
    Other(Notification),
}

impl ChangeEvent {
    /// The change a notification announces; `None` for other notifications.
    fn of(notification: &Notification) -> Option<Self> {
        match notification.method.as_str() {
            TOOLS_CHANGED => Some(Self::ToolsListChanged),
            PROMPTS_CHANGED => Some(Self::PromptsListChanged),
            RESOURCES_CHANGED => Some(Self::ResourcesListChanged),
            RESOURCE_UPDATED => {
                let params = notification.params.as_ref()?;
                let params: ResourceUpdatedNotificationParams =
                    serde_json::from_str(params.get()).ok()?;
                Some(Self::ResourceUpdated { uri: params.uri })
            }
            _ => None,
        }
    }
}

/// An open subscription: yields the changes it asked for with [`next`](Self::next), until the
/// server ends it, the connection ends, or it is dropped (which ends it on the server too).
///
/// 2026-07-28: a `subscriptions/listen` request held open (without a timeout) whose
/// notifications carry its id; several subscriptions may be open at once, each gets its own.
/// Dropping it cancels the request (stdio: `notifications/cancelled`; Streamable HTTP: the
/// response stream is closed). Initialize era: `resources/subscribe` for each URI, then the
/// session's change notifications of the kinds asked for; dropping it sends
/// `resources/unsubscribe` (best effort) for the URIs no other subscription watches.
///
/// A subscription that falls more than
/// [`notification_capacity`](crate::ClientOptions::notification_capacity) notifications behind
/// skips the oldest; [`missed`](Self::missed) counts them (after a miss, list and read again).
#[derive(Debug)]
pub struct Subscription {
    client: Client,
    notifications: broadcast::Receiver<Notification>,
    honoured: SubscriptionFilter,
    mode: Mode,
    backlog: VecDeque<ChangeEvent>,
    ended: bool,
    error: Option<ClientError>,
    missed: u64,
}

#[derive(Debug)]
enum Mode {
    /// 2026-07-28: the listen request and its id.
    Listen { id: RequestId, call: OpenCall },
    /// Initialize era: the URIs counted in the client's shared table.
    Watch { uris: Vec<String> },
}

impl Client {
    /// Subscribes to changes: list changes and resource updates, as `filter` asks (a
    /// [`SubscriptionOptions`], or a wire [`SubscriptionFilter`]).
    ///
    /// Returns once the server has taken the subscription: on 2026-07-28 when it acknowledged
    /// the `subscriptions/listen` request (the client's request timeout applies to that wait,
    /// not to the subscription), in the initialize era once every `resources/subscribe` was
    /// answered. [`Subscription::honoured`] tells what the server will deliver: the subset it
    /// acknowledged (2026-07-28), or what its capabilities offer (initialize era: `listChanged`
    /// per list, `resources.subscribe` for URIs; a URI the server refused is left out).
    ///
    /// ```no_run
    /// # async fn demo(client: presa_client::Client) -> Result<(), presa_client::ClientError> {
    /// use presa_client::{ChangeEvent, SubscriptionOptions};
    ///
    /// let mut changes = client
    ///     .subscribe(SubscriptionOptions::new().tools_list_changed(true).resource("file:///log"))
    ///     .await?;
    /// while let Some(change) = changes.next().await {
    ///     match change {
    ///         ChangeEvent::ToolsListChanged => println!("{} tools", client.list_tools().await?.len()),
    ///         ChangeEvent::ResourceUpdated { uri } => println!("{uri} changed"),
    ///         _ => {}
    ///     }
    /// }
    /// # Ok(()) }
    /// ```
    pub async fn subscribe(
        &self,
        filter: impl Into<SubscriptionFilter>,
    ) -> Result<Subscription, ClientError> {
        let filter = filter.into();
        if let Some(error) = self.handle().shared.ended.get() {
            return Err(error.clone());
        }
        // Before anything goes out, so that nothing the server sends in answer is missed.
        let notifications = self.handle().shared.subscribe();
        match self.protocol_version().era() {
            Era::Stateless => listen(self, filter, notifications).await,
            _ => watch(self, filter, notifications).await,
        }
    }
}

/// 2026-07-28: `subscriptions/listen`, then its acknowledgement.
async fn listen(
    client: &Client,
    filter: SubscriptionFilter,
    notifications: broadcast::Receiver<Notification>,
) -> Result<Subscription, ClientError> {
    let filter =
        serde_json::to_value(&filter).map_err(|e| ClientError::InvalidParams(e.to_string()))?;
    let mut params = Map::new();
    params.insert("notifications".into(), filter);
    let (id, call) = client.handle().open(LISTEN, Some(params)).await?;
    let mut subscription = Subscription::new(client, notifications, Mode::Listen { id, call });
    match client.request_timeout() {
        Some(limit) => tokio::time::timeout(limit, subscription.acknowledged())
            .await
            .map_err(|_| ClientError::TimedOut)??,
        None => subscription.acknowledged().await?,
    }
    Ok(subscription)
}

/// Initialize era: `resources/subscribe` for each URI the server may watch.
async fn watch(
    client: &Client,
    filter: SubscriptionFilter,
    notifications: broadcast::Receiver<Notification>,
) -> Result<Subscription, ClientError> {
    let capabilities = &client.info().capabilities;
    let mut subscription = Subscription::new(client, notifications, Mode::Watch { uris: vec![] });
    subscription.honoured = offered(&filter, capabilities);
    let uris = watchable_resources(filter.resource_subscriptions.as_deref().unwrap_or_default());
    let can_subscribe = capabilities
        .resources
        .as_ref()
        .is_some_and(|r| r.subscribe == Some(true));
    let mut honoured = Vec::new();
    for uri in uris.into_iter().filter(|_| can_subscribe) {
        // Counted before the request, so that another subscription dropped meanwhile does not
        // unsubscribe it; dropping this one on failure uncounts it.
        subscription.count(uri.clone());
        let params = serde_json::json!({ "uri": uri });
        match client.request_raw("resources/subscribe", params).await {
            Ok(_) => honoured.push(uri),
            Err(ClientError::Server(error)) => {
                tracing::debug!(%uri, code = %error.code, "the server refused resources/subscribe");
                subscription.uncount(Some(&uri));
            }
            Err(error) => return Err(error),
        }
    }
    if !honoured.is_empty() {
        subscription.honoured.resource_subscriptions = Some(honoured);
    }
    Ok(subscription)
}

/// What an initialize-era server's capabilities offer of `filter`'s list changes.
fn offered(filter: &SubscriptionFilter, capabilities: &ServerCapabilities) -> SubscriptionFilter {
    let both = |asked: Option<bool>, offered: Option<bool>| {
        (asked == Some(true) && offered == Some(true)).then_some(true)
    };
    SubscriptionFilter {
        tools_list_changed: both(
            filter.tools_list_changed,
            capabilities.tools.as_ref().and_then(|c| c.list_changed),
        ),
        prompts_list_changed: both(
            filter.prompts_list_changed,
            capabilities.prompts.as_ref().and_then(|c| c.list_changed),
        ),
        resources_list_changed: both(
            filter.resources_list_changed,
            capabilities.resources.as_ref().and_then(|c| c.list_changed),
        ),
        ..SubscriptionFilter::default()
    }
}

impl Subscription {
    fn new(client: &Client, notifications: broadcast::Receiver<Notification>, mode: Mode) -> Self {
        Self {
            client: client.clone(),
            notifications,
            honoured: SubscriptionFilter::default(),
            mode,
            backlog: VecDeque::new(),
            ended: false,
            error: None,
            missed: 0,
        }
    }

    /// The next change; `None` once the subscription has ended (the server ended it, the
    /// connection closed) and every change received before was yielded.
    pub async fn next(&mut self) -> Option<ChangeEvent> {
        loop {
            if let Some(event) = self.backlog.pop_front() {
                return Some(event);
            }
            if self.ended {
                return None;
            }
            let shared = &self.client.handle().shared;
            let received = match &mut self.mode {
                Mode::Listen { call, .. } => tokio::select! {
                    biased;
                    received = self.notifications.recv() => received,
                    outcome = call.wait(shared) => {
                        self.end(outcome.err());
                        continue;
                    }
                },
                Mode::Watch { .. } => self.notifications.recv().await,
            };
            match received {
                Ok(notification) => {
                    if let Some(event) = self.event(notification) {
                        return Some(event);
                    }
                }
                Err(broadcast::error::RecvError::Lagged(n)) => {
                    tracing::warn!(skipped = n, "subscription fell behind");
                    self.missed += n;
                }
                Err(broadcast::error::RecvError::Closed) => {
                    let error = match &mut self.mode {
                        Mode::Listen { call, .. } if !call.is_finished() => call.wait(shared).await,
                        _ => Err(shared.ended_error()),
                    };
                    self.end(error.err());
                }
            }
        }
    }

    /// What the server will deliver of what was asked (see [`Client::subscribe`]).
    pub fn honoured(&self) -> &SubscriptionFilter {
        &self.honoured
    }

    /// The id of the `subscriptions/listen` request, which the server's notifications for this
    /// subscription carry (2026-07-28); `None` in the initialize era.
    pub fn id(&self) -> Option<&RequestId> {
        match &self.mode {
            Mode::Listen { id, .. } => Some(id),
            Mode::Watch { .. } => None,
        }
    }

    /// Why the subscription ended, once [`next`](Self::next) returned `None`: `None` when the
    /// server ended it gracefully (the listen result) or while it is open;
    /// [`ClientError::CancelledByServer`] when the server cancelled it, the transport's or the
    /// client's error when the connection ended.
    pub fn error(&self) -> Option<&ClientError> {
        self.error.as_ref()
    }

    /// How many notifications this subscription skipped because it fell behind.
    pub fn missed(&self) -> u64 {
        self.missed
    }

    /// Ends the subscription: cancels the listen request (2026-07-28), or unsubscribes from the
    /// URIs no other subscription watches and waits for the answers (initialize era; errors are
    /// ignored). Dropping the subscription does the same without waiting.
    pub async fn close(mut self) {
        for uri in self.uncount(None) {
            let params = serde_json::json!({ "uri": uri });
            let _ = self
                .client
                .request_raw("resources/unsubscribe", params)
                .await;
        }
        // Dropping `self` cancels a listen request still open.
    }

    /// Waits for the acknowledgement of the listen request, keeping its honoured filter.
    async fn acknowledged(&mut self) -> Result<(), ClientError> {
        let Mode::Listen { id, call } = &mut self.mode else {
            return Ok(());
        };
        let shared = &self.client.handle().shared;
        loop {
            let received = tokio::select! {
                biased;
                received = self.notifications.recv() => received,
                outcome = call.wait(shared) => return Err(outcome.err().unwrap_or_else(|| {
                    ClientError::InvalidResult(
                        "the server ended the subscription before acknowledging it".into(),
                    )
                })),
            };
            match received {
                Ok(n) if n.method == ACKNOWLEDGED && n.subscription_id().as_ref() == Some(id) => {
                    let params = n.params.as_ref().map_or("{}", |p| p.get());
                    let ack: SubscriptionsAcknowledgedNotificationParams =
                        serde_json::from_str(params)
                            .map_err(|e| ClientError::InvalidResult(e.to_string()))?;
                    self.honoured = ack.notifications;
                    return Ok(());
                }
                Ok(_) => {}
                Err(broadcast::error::RecvError::Lagged(n)) => self.missed += n,
                Err(broadcast::error::RecvError::Closed) => return Err(shared.ended_error()),
            }
        }
    }

    /// The change a notification reports to this subscription, if it is one.
    fn event(&self, notification: Notification) -> Option<ChangeEvent> {
        match &self.mode {
            Mode::Listen { id, .. } => {
                if notification.subscription_id().as_ref() != Some(id)
                    || notification.method == ACKNOWLEDGED
                {
                    return None;
                }
                Some(ChangeEvent::of(&notification).unwrap_or(ChangeEvent::Other(notification)))
            }
            Mode::Watch { .. } => {
                let event = ChangeEvent::of(&notification)?;
                let honoured = &self.honoured;
                let wanted = match &event {
                    ChangeEvent::ToolsListChanged => honoured.tools_list_changed == Some(true),
                    ChangeEvent::PromptsListChanged => honoured.prompts_list_changed == Some(true),
                    ChangeEvent::ResourcesListChanged => {
                        honoured.resources_list_changed == Some(true)
                    }
                    ChangeEvent::ResourceUpdated { uri } => honoured.watches_resource(uri),
                    ChangeEvent::Other(_) => false,
                };
                wanted.then_some(event)
            }
        }
    }

    /// The subscription ended: keeps what arrived before the end, then ends.
    fn end(&mut self, error: Option<ClientError>) {
        loop {
            match self.notifications.try_recv() {
                Ok(notification) => {
                    if let Some(event) = self.event(notification) {
                        self.backlog.push_back(event);
                    }
                }
                Err(broadcast::error::TryRecvError::Lagged(n)) => self.missed += n,
                Err(_) => break,
            }
        }
        self.ended = true;
        self.error = error;
    }

    /// Counts a URI this (initialize-era) subscription watches.
    fn count(&mut self, uri: String) {
        if let Mode::Watch { uris } = &mut self.mode {
            let mut watched = self.client.handle().shared.watched();
            *watched.entry(uri.clone()).or_insert(0) += 1;
            drop(watched);
            uris.push(uri);
        }
    }

    /// Uncounts `only` that URI, or every URI this subscription watches; returns those nobody
    /// watches any more.
    fn uncount(&mut self, only: Option<&str>) -> Vec<String> {
        let Mode::Watch { uris } = &mut self.mode else {
            return Vec::new();
        };
        let handle = self.client.handle();
        let mut watched = handle.shared.watched();
        let gone = match only {
            Some(only) => {
                let (gone, kept) = uris.drain(..).partition(|uri| uri == only);
                *uris = kept;
                gone
            }
            None => std::mem::take(uris),
        };
        let mut unwatched = Vec::new();
        for uri in gone {
            if let Some(count) = watched.get_mut(&uri) {
                *count -= 1;
                if *count == 0 {
                    watched.remove(&uri);
                    unwatched.push(uri);
                }
            }
        }
        unwatched
    }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        // A listen request still open is cancelled as its call drops.
        for uri in self.uncount(None) {
            let mut params = Map::new();
            params.insert("uri".into(), Value::String(uri));
            self.client
                .handle()
                .send_detached("resources/unsubscribe", Some(params));
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use serde_json::json;

    use super::*;

    fn notification(method: &str, params: Value) -> Notification {
        Notification::new(method, &params).unwrap()
    }

    #[test]
    fn options_become_the_wire_filter() {
        let filter = SubscriptionFilter::from(
            SubscriptionOptions::new()
                .prompts_list_changed(true)
                .resources_list_changed(true)
                .resource("file:///a")
                .resource("file:///a")
                .resource("file:///b"),
        );
        assert_eq!(
            serde_json::to_value(&filter).unwrap(),
            json!({"promptsListChanged": true, "resourcesListChanged": true,
                "resourceSubscriptions": ["file:///a", "file:///b"]})
        );
        let empty = SubscriptionFilter::from(
            SubscriptionOptions::new().resource_subscriptions(Vec::<String>::new()),
        );
        assert!(empty.is_empty());
        assert_eq!(serde_json::to_value(&empty).unwrap(), json!({}));
    }

    #[test]
    fn notifications_read_as_changes() {
        let tagged = json!({"_meta": {"io.modelcontextprotocol/subscriptionId": 7}});
        let tools = notification(TOOLS_CHANGED, tagged.clone());
        assert_eq!(ChangeEvent::of(&tools), Some(ChangeEvent::ToolsListChanged));
        assert_eq!(tools.subscription_id(), Some(RequestId::from(7)));
        let updated = notification(RESOURCE_UPDATED, json!({"uri": "file:///a"}));
        assert_eq!(
            ChangeEvent::of(&updated),
            Some(ChangeEvent::ResourceUpdated {
                uri: "file:///a".into()
            })
        );
        assert_eq!(updated.subscription_id(), None);
        let unreadable = notification(RESOURCE_UPDATED, json!({}));
        assert_eq!(ChangeEvent::of(&unreadable), None);
        assert_eq!(
            ChangeEvent::of(&notification("notifications/message", tagged)),
            None
        );
    }

    #[test]
    fn initialize_era_servers_offer_what_their_capabilities_say() {
        let capabilities: ServerCapabilities = serde_json::from_value(json!({
            "tools": {"listChanged": true}, "prompts": {}, "resources": {"listChanged": false}
        }))
        .unwrap();
        let asked = SubscriptionFilter::from(
            SubscriptionOptions::new()
                .tools_list_changed(true)
                .prompts_list_changed(true)
                .resources_list_changed(true),
        );
        let offered = offered(&asked, &capabilities);
        assert_eq!(offered.tools_list_changed, Some(true));
        assert_eq!(offered.prompts_list_changed, None);
        assert_eq!(offered.resources_list_changed, None);
    }
}
