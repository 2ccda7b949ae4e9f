//! Every revision's typed messages (presa-core's params and result structs, one per method,
//! shared by all revisions): a message whose params or result decode into the typed struct
//! re-encodes to JSON that decodes again and encodes to the same JSON (decode, encode, decode
//! is stable), and the per-revision method tables answer for any method name.
#![no_main]

use libfuzzer_sys::fuzz_target;
use presa_core::*;
use serde::Serialize;
use serde::de::DeserializeOwned;

/// Decodes `raw` as `T`; if it decodes, encode → decode → encode must be stable.
fn stable<T: Serialize + DeserializeOwned>(raw: &str) {
    let Ok(first) = serde_json::from_str::<T>(raw) else {
        return;
    };
    let once = serde_json::to_string(&first).expect("a decoded value encodes");
    let second: T = serde_json::from_str(&once).unwrap_or_else(|e| {
        panic!(
            "{}: presa's own encoding {once} of {raw} does not decode: {e}",
            std::any::type_name::<T>()
        )
    });
    let twice = serde_json::to_string(&second).expect("a decoded value encodes");
    let (once_value, twice_value): (serde_json::Value, serde_json::Value) = (
        serde_json::from_str(&once).expect("json"),
        serde_json::from_str(&twice).expect("json"),
    );
    assert_eq!(once_value, twice_value, "{}", std::any::type_name::<T>());
}

macro_rules! requests {
    ($method:expr, $params:expr; $($marker:ty),* $(,)?) => {
        $(if $method == <$marker as RequestMethod>::METHOD {
            stable::<<$marker as RequestMethod>::Params>($params);
        })*
    };
}

macro_rules! notifications {
    ($method:expr, $params:expr; $($marker:ty),* $(,)?) => {
        $(if $method == <$marker as NotificationMethod>::METHOD {
            stable::<<$marker as NotificationMethod>::Params>($params);
        })*
    };
}

macro_rules! results {
    ($result:expr; $($marker:ty),* $(,)?) => {
        $(stable::<<$marker as RequestMethod>::Result>($result);)*
    };
}

fuzz_target!(|data: &[u8]| {
    let Ok(message) = decode_message(data) else {
        return;
    };
    match &message {
        Message::Request(request) => {
            let params = request.params.as_deref().map_or("{}", |p| p.get());
            for revision in [
                "2024-11-05",
                "2025-03-26",
                "2025-06-18",
                "2025-11-25",
                "2026-07-28",
            ] {
                let known = request_methods_in(revision).expect("a supported revision");
                let embedded = embedded_methods_in(revision).expect("a supported revision");
                let _ = known.contains(&request.method.as_str())
                    || embedded.contains(&request.method.as_str());
            }
            requests!(request.method, params;
                Initialize, Ping, Discover, ListTools, CallTool, ListPrompts, GetPrompt,
                ListResources, ListResourceTemplates, ReadResource, Subscribe, Unsubscribe,
                SubscriptionsListen, Complete, SetLevel, CreateMessage, Elicit, ListRoots,
                GetTask, GetTaskPayload, ListTasks, CancelTask);
        }
        Message::Notification(notification) => {
            let params = notification.params.as_deref().map_or("{}", |p| p.get());
            for revision in ["2024-11-05", "2025-06-18", "2025-11-25", "2026-07-28"] {
                let known = notification_methods_in(revision).expect("a supported revision");
                let _ = known.contains(&notification.method.as_str());
            }
            notifications!(notification.method, params;
                Initialized, Cancelled, Progress, LoggingMessage, ToolListChanged,
                PromptListChanged, ResourceListChanged, ResourceUpdated, RootsListChanged,
                SubscriptionsAcknowledged, ElicitationComplete, TaskStatusChanged);
        }
        Message::Response(response) => match &response.payload {
            ResponsePayload::Result(result) => {
                results!(result.get();
                    Initialize, Ping, Discover, ListTools, CallTool, ListPrompts, GetPrompt,
                    ListResources, ListResourceTemplates, ReadResource, SubscriptionsListen,
                    Complete, CreateMessage, Elicit, ListRoots, GetTask, GetTaskPayload,
                    ListTasks, CancelTask);
            }
            ResponsePayload::Error(error) => {
                let text = serde_json::to_string(error).expect("an error object encodes");
                stable::<ErrorObject>(&text);
            }
        },
    }
});
