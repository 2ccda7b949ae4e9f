//! `subscriptions/listen` (2026-07-28): a request whose answer is a stream of change
//! notifications.

use std::collections::HashSet;

use presa_core::{ErrorObject, RawJson, parse_params};
use presa_core::{
    Notification, SubscriptionFilter, SubscriptionsAcknowledgedNotificationParams,
    SubscriptionsListenRequestParams, SubscriptionsListenResult, subscription_meta,
    watchable_resources,
};

use crate::events::{Change, ListKind, Missed, list_changed_method};
use serde_json::value::RawValue;

use crate::context::Context;
use crate::server::Server;

use crate::wire::raw;

impl Server {
    /// `subscriptions/listen` (2026-07-28): the acknowledgement with the honoured filter, then
    /// the changes it asked for, each tagged with the subscription id, until the client ends the
    /// stream (the request is cancelled) or the server shuts down (the listen result).
    pub(crate) async fn listen(
        &self,
        params: Option<&RawValue>,
        cx: Context,
    ) -> Result<RawJson, ErrorObject> {
        let params: SubscriptionsListenRequestParams = parse_params(params)?;
        let options = &self.inner.options;
        let asked = params.notifications;
        let honour =
            |flag: Option<bool>| (options.list_changed && flag == Some(true)).then_some(true);
        let honoured = SubscriptionFilter {
            tools_list_changed: honour(asked.tools_list_changed),
            prompts_list_changed: honour(asked.prompts_list_changed),
            resources_list_changed: honour(asked.resources_list_changed),
            resource_subscriptions: match options.subscribe {
                true => asked
                    .resource_subscriptions
                    .as_deref()
                    .map(watchable_resources),
                false => None,
            },
            task_ids: self.listened_tasks(asked.task_ids.as_deref(), &cx).await?,
            ..Default::default()
        };
        let id = cx.request_id().clone();
        let watched_tasks: HashSet<&str> = honoured
            .task_ids
            .iter()
            .flatten()
            .map(String::as_str)
            .collect();
        // subscribe before acknowledging, so that nothing after the acknowledgement is missed
        let mut changes = self.changes();
        let ack = SubscriptionsAcknowledgedNotificationParams::new(&id, honoured.clone());
        if let Ok(ack) = Notification::new("notifications/subscriptions/acknowledged", &ack) {
            cx.send_notification(ack).await;
        }
        loop {
            let change = tokio::select! {
                change = changes.recv() => change,
                () = cx.cancelled() => break,
            };
            let notification = match change {
                Some(Ok(Change::ListChanged(kind))) => {
                    let wanted = match kind {
                        ListKind::Tools => honoured.tools_list_changed,
                        ListKind::Prompts => honoured.prompts_list_changed,
                        ListKind::Resources => honoured.resources_list_changed,
                    };
                    if wanted != Some(true) {
                        continue;
                    }
                    list_changed(kind, &id)
                }
                Some(Ok(Change::ResourceUpdated(uri))) => {
                    if !honoured.watches_resource(&uri) {
                        continue;
                    }
                    resource_updated(&uri, &id)
                }
                Some(Ok(Change::TaskChanged(task))) => {
                    if !watched_tasks.contains(task.as_str()) {
                        continue;
                    }
                    match self.task_notification(&task, &cx, &id).await {
                        Some(notification) => Ok(notification),
                        None => continue,
                    }
                }
                Some(Err(Missed(_))) => {
                    // changes were missed: everything listened to is told anew (a list to
                    // list again, a resource to read again, each task as it is now), so that
                    // no last change (a task's end) is lost; what queued meanwhile is told by
                    // that too
                    changes.skip_queued();
                    for notification in self.resync(&honoured, &watched_tasks, &cx, &id).await {
                        cx.send_notification(notification).await;
                    }
                    continue;
                }
                None => break,
            };
            if let Ok(notification) = notification {
                cx.send_notification(notification).await;
            }
        }
        raw(&SubscriptionsListenResult::closed(&id))
    }
}

/// A list change for the listen `id`.
fn list_changed(
    kind: ListKind,
    id: &presa_core::RequestId,
) -> Result<Notification, serde_json::Error> {
    let params = serde_json::json!({ "_meta": subscription_meta(id) });
    Notification::new(list_changed_method(kind), &params)
}

/// A resource update for the listen `id`.
fn resource_updated(
    uri: &str,
    id: &presa_core::RequestId,
) -> Result<Notification, serde_json::Error> {
    let params = serde_json::json!({ "_meta": subscription_meta(id), "uri": uri });
    Notification::new("notifications/resources/updated", &params)
}

impl Server {
    /// What a listen that missed changes is sent instead of them: a list change for each list
    /// it listens to, an update for each resource, and each task's state now.
    async fn resync(
        &self,
        honoured: &SubscriptionFilter,
        tasks: &HashSet<&str>,
        cx: &Context,
        id: &presa_core::RequestId,
    ) -> Vec<Notification> {
        let lists = [
            (ListKind::Tools, honoured.tools_list_changed),
            (ListKind::Prompts, honoured.prompts_list_changed),
            (ListKind::Resources, honoured.resources_list_changed),
        ];
        let mut sent: Vec<Notification> = lists
            .into_iter()
            .filter(|(_, wanted)| *wanted == Some(true))
            .filter_map(|(kind, _)| list_changed(kind, id).ok())
            .collect();
        for uri in honoured.resource_subscriptions.iter().flatten() {
            sent.extend(resource_updated(uri, id).ok());
        }
        for task in tasks {
            sent.extend(self.task_notification(task, cx, id).await);
        }
        sent
    }

    /// The task ids a listen asked for that it gets `notifications/tasks` for: those the caller
    /// can see, each once, looked up for at most as many ids as one caller may have tasks.
    /// Asking without the tasks extension is `-32021`.
    async fn listened_tasks(
        &self,
        asked: Option<&[String]>,
        cx: &Context,
    ) -> Result<Option<Vec<String>>, ErrorObject> {
        let Some(asked) = asked.filter(|ids| !ids.is_empty()) else {
            return Ok(None);
        };
        if !self.declared(&self.snapshot()).tasks {
            return Ok(None);
        }
        crate::tasks::require_tasks(cx)?;
        let most = self.inner.tasks.options.get_limits().per_owner;
        let mut seen = HashSet::new();
        let mut honoured = Vec::new();
        for id in asked {
            if seen.len() == most {
                break;
            }
            if seen.insert(id.as_str()) && self.find_task(id, cx).await.is_ok() {
                honoured.push(id.clone());
            }
        }
        Ok(Some(honoured))
    }
}
