//! Methods as marker types: each names a method and ties it to its params and result types.

use std::collections::HashSet;
use std::sync::OnceLock;

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::{
    CallToolRequestParams, CallToolResult, CancelTaskResult, CancelledNotificationParams,
    CompleteRequestParams, CompleteResult, CreateMessageRequestParams, CreateMessageResult,
    DiscoverResult, ElicitRequestParams, ElicitResult, ElicitationCompleteNotificationParams,
    EmptyResult, GetPromptRequestParams, GetPromptResult, GetTaskPayloadResult, GetTaskResult,
    InitializeRequestParams, InitializeResult, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, ListRootsResult, ListTasksResult, ListToolsResult,
    LoggingMessageNotificationParams, MrtrResult, NotificationParams, PaginatedRequestParams,
    ProgressNotificationParams, ReadResourceRequestParams, ReadResourceResult, RequestParams,
    ResourceUpdatedNotificationParams, SetLevelRequestParams, SubscribeRequestParams,
    SubscriptionsAcknowledgedNotificationParams, SubscriptionsListenRequestParams,
    SubscriptionsListenResult, TaskRequestParams, TaskStatusNotificationParams,
};

/// A request method: its name, params type and result type.
///
/// Params and results are the union over revisions: members a revision lacks are `Option`
/// and left out when `None`. Where the params member itself is optional on the wire (most
/// initialize-era requests), an absent `params` reads as the params type's `Default`.
///
/// ```
/// use presa_core::{CallTool, RequestMethod};
///
/// fn method_of<M: RequestMethod>() -> &'static str {
///     M::METHOD
/// }
/// assert_eq!(method_of::<CallTool>(), "tools/call");
/// ```
pub trait RequestMethod {
    /// The JSON-RPC `method`.
    const METHOD: &'static str;
    /// The `params` type.
    type Params: Serialize + DeserializeOwned;
    /// The `result` type.
    type Result: Serialize + DeserializeOwned;
}

/// A notification method: its name and params type.
pub trait NotificationMethod {
    /// The JSON-RPC `method`.
    const METHOD: &'static str;
    /// The `params` type.
    type Params: Serialize + DeserializeOwned;
}

macro_rules! request_methods {
    ($($(#[$doc:meta])* $name:ident = $method:literal, $params:ty => $result:ty;)*) => {
        $(
            $(#[$doc])*
            #[derive(Clone, Copy, Debug)]
            pub enum $name {}

            impl RequestMethod for $name {
                const METHOD: &'static str = $method;
                type Params = $params;
                type Result = $result;
            }
        )*
    };
}

macro_rules! notification_methods {
    ($($(#[$doc:meta])* $name:ident = $method:literal, $params:ty;)*) => {
        $(
            $(#[$doc])*
            #[derive(Clone, Copy, Debug)]
            pub enum $name {}

            impl NotificationMethod for $name {
                const METHOD: &'static str = $method;
                type Params = $params;
            }
        )*
    };
}

request_methods! {
    /// `initialize` (C→S; initialize era only).
    Initialize = "initialize", InitializeRequestParams => InitializeResult;
    /// `ping` (both directions; initialize era only). The result is literally `{}`.
    Ping = "ping", RequestParams => EmptyResult;
    /// `server/discover` (C→S; 2026-07-28).
    Discover = "server/discover", RequestParams => DiscoverResult;
    /// `tools/list` (C→S).
    ListTools = "tools/list", PaginatedRequestParams => ListToolsResult;
    /// `tools/call` (C→S). May answer `input_required` in 2026-07-28. A 2025-11-25
    /// task-augmented call (params `task`) answers a [`CreateTaskResult`](crate::CreateTaskResult)
    /// instead.
    CallTool = "tools/call", CallToolRequestParams => MrtrResult<CallToolResult>;
    /// `prompts/list` (C→S).
    ListPrompts = "prompts/list", PaginatedRequestParams => ListPromptsResult;
    /// `prompts/get` (C→S). May answer `input_required` in 2026-07-28.
    GetPrompt = "prompts/get", GetPromptRequestParams => MrtrResult<GetPromptResult>;
    /// `resources/list` (C→S).
    ListResources = "resources/list", PaginatedRequestParams => ListResourcesResult;
    /// `resources/templates/list` (C→S).
    ListResourceTemplates = "resources/templates/list", PaginatedRequestParams => ListResourceTemplatesResult;
    /// `resources/read` (C→S). May answer `input_required` in 2026-07-28.
    ReadResource = "resources/read", ReadResourceRequestParams => MrtrResult<ReadResourceResult>;
    /// `resources/subscribe` (C→S; initialize era only).
    Subscribe = "resources/subscribe", SubscribeRequestParams => EmptyResult;
    /// `resources/unsubscribe` (C→S; initialize era only).
    Unsubscribe = "resources/unsubscribe", SubscribeRequestParams => EmptyResult;
    /// `subscriptions/listen` (C→S; 2026-07-28). The response is a notification stream; the
    /// result only marks a graceful end.
    SubscriptionsListen = "subscriptions/listen", SubscriptionsListenRequestParams => SubscriptionsListenResult;
    /// `completion/complete` (C→S).
    Complete = "completion/complete", CompleteRequestParams => CompleteResult;
    /// `logging/setLevel` (C→S; initialize era only).
    SetLevel = "logging/setLevel", SetLevelRequestParams => EmptyResult;
    /// `sampling/createMessage` (S→C in the initialize era; an embedded input request in
    /// 2026-07-28).
    CreateMessage = "sampling/createMessage", CreateMessageRequestParams => CreateMessageResult;
    /// `elicitation/create` (S→C since 2025-06-18; an embedded input request in 2026-07-28).
    Elicit = "elicitation/create", ElicitRequestParams => ElicitResult;
    /// `roots/list` (S→C in the initialize era; an embedded input request in 2026-07-28).
    ListRoots = "roots/list", RequestParams => ListRootsResult;
    /// `tasks/get` (both directions; 2025-11-25 only).
    GetTask = "tasks/get", TaskRequestParams => GetTaskResult;
    /// `tasks/result` (both directions; 2025-11-25 only): blocks until the task ends, then
    /// returns what the original request would have.
    GetTaskPayload = "tasks/result", TaskRequestParams => GetTaskPayloadResult;
    /// `tasks/list` (both directions; 2025-11-25 only).
    ListTasks = "tasks/list", PaginatedRequestParams => ListTasksResult;
    /// `tasks/cancel` (both directions; 2025-11-25 only).
    CancelTask = "tasks/cancel", TaskRequestParams => CancelTaskResult;
}

notification_methods! {
    /// `notifications/initialized` (C→S; initialize era only).
    Initialized = "notifications/initialized", NotificationParams;
    /// `notifications/cancelled` (both directions; in 2026-07-28 C→S, and S→C only to end a
    /// listen stream on stdio).
    Cancelled = "notifications/cancelled", CancelledNotificationParams;
    /// `notifications/progress`.
    Progress = "notifications/progress", ProgressNotificationParams;
    /// `notifications/message` (S→C).
    LoggingMessage = "notifications/message", LoggingMessageNotificationParams;
    /// `notifications/tools/list_changed` (S→C).
    ToolListChanged = "notifications/tools/list_changed", NotificationParams;
    /// `notifications/prompts/list_changed` (S→C).
    PromptListChanged = "notifications/prompts/list_changed", NotificationParams;
    /// `notifications/resources/list_changed` (S→C).
    ResourceListChanged = "notifications/resources/list_changed", NotificationParams;
    /// `notifications/resources/updated` (S→C).
    ResourceUpdated = "notifications/resources/updated", ResourceUpdatedNotificationParams;
    /// `notifications/roots/list_changed` (C→S; initialize era only).
    RootsListChanged = "notifications/roots/list_changed", NotificationParams;
    /// `notifications/subscriptions/acknowledged` (S→C; 2026-07-28): the first message of every
    /// listen stream.
    SubscriptionsAcknowledged = "notifications/subscriptions/acknowledged", SubscriptionsAcknowledgedNotificationParams;
    /// `notifications/elicitation/complete` (S→C; 2025-11-25 only).
    ElicitationComplete = "notifications/elicitation/complete", ElicitationCompleteNotificationParams;
    /// `notifications/tasks/status` (both directions; 2025-11-25 only).
    TaskStatusChanged = "notifications/tasks/status", TaskStatusNotificationParams;
}

const LEGACY_REQUESTS: &[&str] = &[
    Initialize::METHOD,
    Ping::METHOD,
    ListTools::METHOD,
    CallTool::METHOD,
    ListPrompts::METHOD,
    GetPrompt::METHOD,
    ListResources::METHOD,
    ListResourceTemplates::METHOD,
    ReadResource::METHOD,
    Subscribe::METHOD,
    Unsubscribe::METHOD,
    Complete::METHOD,
    SetLevel::METHOD,
    CreateMessage::METHOD,
    ListRoots::METHOD,
];

const REQUESTS_2025_06_18: &[&str] = &[
    Initialize::METHOD,
    Ping::METHOD,
    ListTools::METHOD,
    CallTool::METHOD,
    ListPrompts::METHOD,
    GetPrompt::METHOD,
    ListResources::METHOD,
    ListResourceTemplates::METHOD,
    ReadResource::METHOD,
    Subscribe::METHOD,
    Unsubscribe::METHOD,
    Complete::METHOD,
    SetLevel::METHOD,
    CreateMessage::METHOD,
    ListRoots::METHOD,
    Elicit::METHOD,
];

const REQUESTS_2025_11_25: &[&str] = &[
    Initialize::METHOD,
    Ping::METHOD,
    ListTools::METHOD,
    CallTool::METHOD,
    ListPrompts::METHOD,
    GetPrompt::METHOD,
    ListResources::METHOD,
    ListResourceTemplates::METHOD,
    ReadResource::METHOD,
    Subscribe::METHOD,
    Unsubscribe::METHOD,
    Complete::METHOD,
    SetLevel::METHOD,
    CreateMessage::METHOD,
    ListRoots::METHOD,
    Elicit::METHOD,
    GetTask::METHOD,
    GetTaskPayload::METHOD,
    ListTasks::METHOD,
    CancelTask::METHOD,
];

const REQUESTS_2026_07_28: &[&str] = &[
    Discover::METHOD,
    ListTools::METHOD,
    CallTool::METHOD,
    ListPrompts::METHOD,
    GetPrompt::METHOD,
    ListResources::METHOD,
    ListResourceTemplates::METHOD,
    ReadResource::METHOD,
    SubscriptionsListen::METHOD,
    Complete::METHOD,
];

const EMBEDDED_2026_07_28: &[&str] = &[CreateMessage::METHOD, Elicit::METHOD, ListRoots::METHOD];

const LEGACY_NOTIFICATIONS: &[&str] = &[
    Initialized::METHOD,
    Cancelled::METHOD,
    Progress::METHOD,
    LoggingMessage::METHOD,
    ToolListChanged::METHOD,
    PromptListChanged::METHOD,
    ResourceListChanged::METHOD,
    ResourceUpdated::METHOD,
    RootsListChanged::METHOD,
];

const NOTIFICATIONS_2025_11_25: &[&str] = &[
    Initialized::METHOD,
    Cancelled::METHOD,
    Progress::METHOD,
    LoggingMessage::METHOD,
    ToolListChanged::METHOD,
    PromptListChanged::METHOD,
    ResourceListChanged::METHOD,
    ResourceUpdated::METHOD,
    RootsListChanged::METHOD,
    ElicitationComplete::METHOD,
    TaskStatusChanged::METHOD,
];

const NOTIFICATIONS_2026_07_28: &[&str] = &[
    Cancelled::METHOD,
    Progress::METHOD,
    LoggingMessage::METHOD,
    ToolListChanged::METHOD,
    PromptListChanged::METHOD,
    ResourceListChanged::METHOD,
    ResourceUpdated::METHOD,
    SubscriptionsAcknowledged::METHOD,
];

/// `method` as a revision of MCP defines it (a request, an embedded input request or a
/// notification, of any revision, in either direction), or `None` for a method no revision
/// defines: one an extension brings, or one a peer made up.
///
/// ```
/// use presa_core::defined_method;
///
/// assert_eq!(defined_method("tools/call"), Some("tools/call"));
/// assert_eq!(defined_method("notifications/initialized"), Some("notifications/initialized"));
/// assert_eq!(defined_method("skills/list"), None);
/// ```
pub fn defined_method(method: &str) -> Option<&'static str> {
    // FNV: a few instructions a byte for these short names (SipHash costs ten times as much);
    // the set is fixed, so a peer cannot steer its collisions
    static DEFINED: OnceLock<HashSet<&'static str, fnv::FnvBuildHasher>> = OnceLock::new();
    let defined = DEFINED.get_or_init(|| {
        crate::ProtocolVersion::ALL
            .iter()
            .flat_map(|revision| {
                let revision = revision.as_str();
                [
                    request_methods_in(revision),
                    embedded_methods_in(revision),
                    notification_methods_in(revision),
                ]
            })
            .flatten()
            .flatten()
            .copied()
            .collect()
    });
    defined.get(method).copied()
}

/// The JSON-RPC request methods a revision defines, both directions (`None` for an unknown
/// revision string). For 2026-07-28 this excludes the methods that exist only as embedded input
/// requests (see [`embedded_methods_in`]).
///
/// ```
/// use presa_core::request_methods_in;
///
/// assert!(request_methods_in("2024-11-05").unwrap().contains(&"ping"));
/// assert!(!request_methods_in("2026-07-28").unwrap().contains(&"ping"));
/// ```
pub fn request_methods_in(revision: &str) -> Option<&'static [&'static str]> {
    match revision {
        "2024-11-05" | "2025-03-26" => Some(LEGACY_REQUESTS),
        "2025-06-18" => Some(REQUESTS_2025_06_18),
        "2025-11-25" => Some(REQUESTS_2025_11_25),
        "2026-07-28" => Some(REQUESTS_2026_07_28),
        _ => None,
    }
}

/// The methods that exist only as embedded input requests of `InputRequiredResult` (MRTR):
/// empty before 2026-07-28.
pub fn embedded_methods_in(revision: &str) -> Option<&'static [&'static str]> {
    match revision {
        "2024-11-05" | "2025-03-26" | "2025-06-18" | "2025-11-25" => Some(&[]),
        "2026-07-28" => Some(EMBEDDED_2026_07_28),
        _ => None,
    }
}

/// The notification methods a revision defines, both directions (`None` for an unknown
/// revision string).
pub fn notification_methods_in(revision: &str) -> Option<&'static [&'static str]> {
    match revision {
        "2024-11-05" | "2025-03-26" | "2025-06-18" => Some(LEGACY_NOTIFICATIONS),
        "2025-11-25" => Some(NOTIFICATIONS_2025_11_25),
        "2026-07-28" => Some(NOTIFICATIONS_2026_07_28),
        _ => None,
    }
}
