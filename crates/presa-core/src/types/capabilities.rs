//! Client and server capabilities.
//!
//! Capability objects are open: a peer may send members this version of presa does not know
//! (future revisions, drafts, `roots.listChanged` in 2026-07-28). Every capability struct keeps
//! them in a flattened `other` map, so they survive a round trip and a proxy forwards them
//! intact.

use serde::{Deserialize, Serialize};

use crate::{JsonObject, ProtocolVersion, TasksFlavor};

/// What a client supports. Sent in `initialize` (initialize era) or in every request's `_meta`
/// (2026-07-28, key `io.modelcontextprotocol/clientCapabilities`).
///
/// ```
/// use presa_core::ClientCapabilities;
///
/// let caps: ClientCapabilities =
///     serde_json::from_str(r#"{"roots":{"listChanged":true},"future":{"x":1}}"#).unwrap();
/// assert!(caps.roots.is_some());
/// assert!(caps.other.contains_key("future"));
/// assert_eq!(serde_json::to_string(&caps).unwrap(), r#"{"roots":{"listChanged":true},"future":{"x":1}}"#);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClientCapabilities {
    /// Non-standard experimental capabilities, by name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experimental: Option<JsonObject>,
    /// Extensions the client supports, by id (e.g. `io.modelcontextprotocol/tasks`), each with
    /// its settings object. Since 2026-07-28.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<JsonObject>,
    /// The client can list roots (deprecated in 2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roots: Option<RootsCapability>,
    /// The client can sample from a model (deprecated in 2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampling: Option<SamplingCapability>,
    /// The client can elicit user input. Since 2025-06-18; `{}` means form mode only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation: Option<ElicitationCapability>,
    /// Task-augmented requests the client accepts. 2025-11-25 only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tasks: Option<ClientTasksCapability>,
    /// Members this version of presa does not know.
    #[serde(flatten)]
    pub other: JsonObject,
}

impl ClientCapabilities {
    /// Whether `extensions` lists `id`.
    pub fn has_extension(&self, id: &str) -> bool {
        self.extensions.as_ref().is_some_and(|e| e.contains_key(id))
    }

    /// These capabilities as a client speaking `version` declares them: the tasks extension
    /// ([`TASKS_EXTENSION`]) on revisions that have it only, the `tasks` capability on
    /// 2025-11-25 only (what [`ServerCapabilities::for_version`] does for a server).
    ///
    /// [`TASKS_EXTENSION`]: crate::TASKS_EXTENSION
    ///
    /// ```
    /// use presa_core::{ClientCapabilities, ProtocolVersion, TASKS_EXTENSION};
    ///
    /// let mut both = ClientCapabilities::default();
    /// both.extensions = Some(serde_json::json!({ TASKS_EXTENSION: {} }).as_object().unwrap().clone());
    /// assert!(both.for_version(ProtocolVersion::V2026_07_28).has_extension(TASKS_EXTENSION));
    /// assert!(both.for_version(ProtocolVersion::V2025_11_25).extensions.is_none());
    /// ```
    pub fn for_version(&self, version: crate::ProtocolVersion) -> Self {
        let mut capabilities = self.clone();
        keep_the_tasks_of(
            version,
            &mut capabilities.tasks,
            &mut capabilities.extensions,
        );
        capabilities
    }

    /// Whether form-mode elicitation is declared (`elicitation: {}` counts as form).
    pub fn supports_elicitation_form(&self) -> bool {
        self.elicitation
            .as_ref()
            .is_some_and(|e| e.form.is_some() || e.url.is_none())
    }

    /// Whether URL-mode elicitation is declared.
    pub fn supports_elicitation_url(&self) -> bool {
        self.elicitation.as_ref().is_some_and(|e| e.url.is_some())
    }
}

/// The client's `roots` capability.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RootsCapability {
    /// The client sends `notifications/roots/list_changed`. Initialize era only (removed in
    /// 2026-07-28, where `roots` is an empty object).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
    /// Members this version of presa does not know.
    #[serde(flatten)]
    pub other: JsonObject,
}

/// The client's `sampling` capability.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SamplingCapability {
    /// Accepts the deprecated `includeContext` values. Since 2025-11-25.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<JsonObject>,
    /// Accepts `tools` and `toolChoice`. Since 2025-11-25.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<JsonObject>,
    /// Members this version of presa does not know.
    #[serde(flatten)]
    pub other: JsonObject,
}

/// The client's `elicitation` capability. An empty object means form mode only.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ElicitationCapability {
    /// Supports form mode. Since 2025-11-25.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub form: Option<JsonObject>,
    /// Supports URL mode. Since 2025-11-25.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<JsonObject>,
    /// Members this version of presa does not know.
    #[serde(flatten)]
    pub other: JsonObject,
}

/// The client's `tasks` capability. 2025-11-25 only.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClientTasksCapability {
    /// Supports `tasks/list`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list: Option<JsonObject>,
    /// Supports `tasks/cancel`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancel: Option<JsonObject>,
    /// Which requests may be task-augmented.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requests: Option<ClientTaskRequests>,
    /// Members this version of presa does not know.
    #[serde(flatten)]
    pub other: JsonObject,
}

/// Client requests that may be task-augmented. 2025-11-25 only.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClientTaskRequests {
    /// `sampling/createMessage` (`{"createMessage": {}}`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampling: Option<JsonObject>,
    /// `elicitation/create` (`{"create": {}}`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation: Option<JsonObject>,
    /// Members this version of presa does not know.
    #[serde(flatten)]
    pub other: JsonObject,
}

/// What a server supports. Returned by `initialize` (initialize era) or `server/discover`
/// (2026-07-28).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerCapabilities {
    /// Non-standard experimental capabilities, by name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experimental: Option<JsonObject>,
    /// Extensions the server supports, by id, each with its settings object. Since 2026-07-28.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<JsonObject>,
    /// The server emits log messages (deprecated in 2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logging: Option<JsonObject>,
    /// The server answers `completion/complete`. Since 2025-03-26.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completions: Option<JsonObject>,
    /// The server offers prompts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompts: Option<ListChangedCapability>,
    /// The server offers resources.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<ResourcesCapability>,
    /// The server offers tools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<ListChangedCapability>,
    /// Task-augmented requests the server accepts. 2025-11-25 only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tasks: Option<ServerTasksCapability>,
    /// Members this version of presa does not know.
    #[serde(flatten)]
    pub other: JsonObject,
}

impl ServerCapabilities {
    /// The capability a server speaking `version` must declare before a client sends it request
    /// `method`, when it lacks it: `tools` for `tools/list` and `tools/call`, `prompts`,
    /// `resources` (and `resources.subscribe` for `resources/subscribe` and
    /// `resources/unsubscribe`), `completions` for `completion/complete` (since 2025-03-26, which
    /// added that capability), `logging` for `logging/setLevel`. `None` when the server declared
    /// it, or when `method` needs none.
    ///
    /// ```
    /// use presa_core::{ListChangedCapability, ProtocolVersion, ServerCapabilities};
    ///
    /// let mut capabilities = ServerCapabilities::default();
    /// capabilities.tools = Some(ListChangedCapability::default());
    /// let version = ProtocolVersion::V2025_11_25;
    /// assert_eq!(capabilities.missing_for("tools/call", version), None);
    /// assert_eq!(capabilities.missing_for("prompts/list", version), Some("prompts"));
    /// assert_eq!(capabilities.missing_for("completion/complete", version), Some("completions"));
    /// assert_eq!(capabilities.missing_for("completion/complete", ProtocolVersion::V2024_11_05), None);
    /// assert_eq!(capabilities.missing_for("ping", version), None);
    /// assert_eq!(
    ///     capabilities.missing_for("skills/list", version),
    ///     Some("extensions.io.modelcontextprotocol/skills")
    /// );
    /// ```
    pub fn missing_for(
        &self,
        method: &str,
        version: crate::ProtocolVersion,
    ) -> Option<&'static str> {
        let (needed, declared) = match method {
            "tools/list" | "tools/call" => ("tools", self.tools.is_some()),
            "prompts/list" | "prompts/get" => ("prompts", self.prompts.is_some()),
            "resources/list" | "resources/templates/list" | "resources/read" => {
                ("resources", self.resources.is_some())
            }
            "resources/subscribe" | "resources/unsubscribe" => (
                "resources.subscribe",
                self.resources
                    .as_ref()
                    .is_some_and(|r| r.subscribe == Some(true)),
            ),
            "completion/complete" => (
                "completions",
                self.completions.is_some() || version < crate::ProtocolVersion::V2025_03_26,
            ),
            "logging/setLevel" => ("logging", self.logging.is_some()),
            // the Skills extension's methods (SEP-2640)
            "skills/list" | "skills/get" => (
                "extensions.io.modelcontextprotocol/skills",
                self.has_extension(SKILLS_EXTENSION),
            ),
            "resources/directory/read" => (
                "extensions.io.modelcontextprotocol/skills.directoryRead",
                self.extensions
                    .as_ref()
                    .and_then(|e| e.get(SKILLS_EXTENSION))
                    .is_some_and(|settings| settings["directoryRead"] == true),
            ),
            _ => return None,
        };
        (!declared).then_some(needed)
    }

    /// Whether `extensions` lists `id`.
    pub fn has_extension(&self, id: &str) -> bool {
        self.extensions.as_ref().is_some_and(|e| e.contains_key(id))
    }

    /// These capabilities as a server speaking `version` announces them: tasks are the `tasks`
    /// capability on 2025-11-25 only and the tasks extension ([`TASKS_EXTENSION`]) on
    /// 2026-07-28 only, so a server serving both eras declares both and each revision sees its
    /// own (SEP-2663: the legacy capability must not be announced where the extension exists).
    ///
    /// [`TASKS_EXTENSION`]: crate::TASKS_EXTENSION
    ///
    /// ```
    /// use presa_core::{ProtocolVersion, ServerCapabilities, ServerTasksCapability, TASKS_EXTENSION};
    ///
    /// let mut both = ServerCapabilities::default();
    /// both.tasks = Some(ServerTasksCapability::default());
    /// both.extensions = Some(serde_json::json!({ TASKS_EXTENSION: {} }).as_object().unwrap().clone());
    /// let legacy = both.for_version(ProtocolVersion::V2025_11_25);
    /// assert!(legacy.tasks.is_some() && legacy.extensions.is_none());
    /// let stateless = both.for_version(ProtocolVersion::V2026_07_28);
    /// assert!(stateless.tasks.is_none() && stateless.has_extension(TASKS_EXTENSION));
    /// assert!(both.for_version(ProtocolVersion::V2025_06_18).tasks.is_none());
    /// ```
    pub fn for_version(&self, version: crate::ProtocolVersion) -> Self {
        let mut capabilities = self.clone();
        keep_the_tasks_of(
            version,
            &mut capabilities.tasks,
            &mut capabilities.extensions,
        );
        capabilities
    }
}

/// Leaves of a peer's `tasks` capability and tasks extension what `version` has: the capability
/// on 2025-11-25 only, the extension on revisions with it only (the one rule of both
/// `for_version`s).
fn keep_the_tasks_of<T>(
    version: crate::ProtocolVersion,
    tasks: &mut Option<T>,
    extensions: &mut Option<JsonObject>,
) {
    let flavor = version.tasks();
    if flavor != Some(crate::TasksFlavor::Experimental) {
        *tasks = None;
    }
    if flavor != Some(crate::TasksFlavor::Extension)
        && let Some(listed) = extensions.as_mut()
    {
        listed.remove(crate::TASKS_EXTENSION);
        if listed.is_empty() {
            *extensions = None;
        }
    }
}

/// The `prompts` and `tools` capabilities.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListChangedCapability {
    /// The server sends `list_changed` notifications.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
    /// Members this version of presa does not know.
    #[serde(flatten)]
    pub other: JsonObject,
}

impl ListChangedCapability {
    /// The capability with `listChanged` set.
    pub fn list_changed(list_changed: bool) -> Self {
        Self {
            list_changed: Some(list_changed),
            other: JsonObject::new(),
        }
    }
}

/// The `resources` capability.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourcesCapability {
    /// The server honours subscriptions (`resources/subscribe`, or `resourceSubscriptions` on
    /// `subscriptions/listen` in 2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subscribe: Option<bool>,
    /// The server sends `notifications/resources/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
    /// Members this version of presa does not know.
    #[serde(flatten)]
    pub other: JsonObject,
}

/// The server's `tasks` capability. 2025-11-25 only.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerTasksCapability {
    /// Supports `tasks/list`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list: Option<JsonObject>,
    /// Supports `tasks/cancel`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancel: Option<JsonObject>,
    /// Which requests may be task-augmented.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requests: Option<ServerTaskRequests>,
    /// Members this version of presa does not know.
    #[serde(flatten)]
    pub other: JsonObject,
}

/// Server requests that may be task-augmented. 2025-11-25 only.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerTaskRequests {
    /// `tools/call` (`{"call": {}}`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<JsonObject>,
    /// Members this version of presa does not know.
    #[serde(flatten)]
    pub other: JsonObject,
}

/// The Skills extension's identifier (SEP-2640; see [`skills`](crate::skills)), under which a
/// server declares it in `capabilities.extensions`. Here, beside the rule of which methods a
/// declaration offers ([`ServerCapabilities::missing_for`]).
pub const SKILLS_EXTENSION: &str = "io.modelcontextprotocol/skills";

/// Checks an extension identifier against the naming rules of `_meta` keys, with the prefix
/// the specification makes mandatory for extensions: `prefix/name`, the prefix dot-separated
/// labels (each starts with a letter, ends with a letter or digit, and has letters, digits and
/// hyphens between), the name starting and ending with a letter or digit, with letters,
/// digits, hyphens, underscores and dots between. `Err` says which rule the id breaks.
///
/// ```
/// use presa_core::check_extension_id;
///
/// assert!(check_extension_id("io.modelcontextprotocol/ui").is_ok());
/// assert!(check_extension_id("com.example/my_ext-2").is_ok());
/// assert!(check_extension_id("skills").is_err());
/// assert!(check_extension_id("io..example/x").is_err());
/// assert!(check_extension_id("io.example/-x").is_err());
/// ```
pub fn check_extension_id(id: &str) -> Result<(), &'static str> {
    let Some((prefix, name)) = id.rsplit_once('/') else {
        return Err("an extension id needs a prefix: `prefix/name`, e.g. `com.example/things`");
    };
    for label in prefix.split('.') {
        let starts = label
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic());
        let ends = label
            .chars()
            .last()
            .is_some_and(|c| c.is_ascii_alphanumeric());
        let inside = label.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
        if !(starts && ends && inside) {
            return Err(
                "each dot-separated label of the prefix must start with a letter, end \
                        with a letter or digit, and hold only letters, digits and hyphens",
            );
        }
    }
    let starts = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphanumeric());
    let ends = name
        .chars()
        .last()
        .is_some_and(|c| c.is_ascii_alphanumeric());
    let inside = name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if !(starts && ends && inside) {
        return Err(
            "the name after the prefix must start and end with a letter or digit, and \
                    hold only letters, digits, hyphens, underscores and dots",
        );
    }
    Ok(())
}

/// Which tasks one request may use (see [`ProtocolVersion::request_tasks`]): its revision's,
/// and on 2026-07-28 only when the request itself declared the tasks extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RequestTasks {
    /// The revision has no tasks.
    Unavailable,
    /// 2025-11-25's experimental tasks (a `tools/call` asks for a task with its `task` param).
    Experimental,
    /// The tasks extension, declared by this request.
    Extension,
    /// The revision has the tasks extension, but this request did not declare it: what needs
    /// tasks (a task-only tool, a `tasks/*` method, `taskIds` on a listen) is refused with
    /// `-32021` naming the extension.
    Undeclared,
}

impl ProtocolVersion {
    /// Which tasks a request of this revision from a client declaring `client` may use: the one
    /// rule behind every "does this request speak tasks" decision.
    ///
    /// ```
    /// use presa_core::{ClientCapabilities, ProtocolVersion, RequestTasks, TASKS_EXTENSION};
    ///
    /// let plain = ClientCapabilities::default();
    /// let mut declared = ClientCapabilities::default();
    /// declared.extensions = Some([(TASKS_EXTENSION.to_owned(), serde_json::json!({}))].into_iter().collect());
    /// let v2026 = ProtocolVersion::V2026_07_28;
    /// assert_eq!(v2026.request_tasks(&declared), RequestTasks::Extension);
    /// assert_eq!(v2026.request_tasks(&plain), RequestTasks::Undeclared);
    /// assert_eq!(ProtocolVersion::V2025_11_25.request_tasks(&plain), RequestTasks::Experimental);
    /// assert_eq!(ProtocolVersion::V2025_06_18.request_tasks(&declared), RequestTasks::Unavailable);
    /// ```
    pub fn request_tasks(self, client: &ClientCapabilities) -> RequestTasks {
        match self.tasks() {
            None => RequestTasks::Unavailable,
            Some(TasksFlavor::Experimental) => RequestTasks::Experimental,
            Some(TasksFlavor::Extension) if client.has_extension(crate::TASKS_EXTENSION) => {
                RequestTasks::Extension
            }
            Some(TasksFlavor::Extension) => RequestTasks::Undeclared,
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use serde_json::json;

    use super::*;

    #[test]
    fn unknown_members_survive_at_every_level() {
        let client = json!({
            "roots": {"listChanged": true, "x-roots": 1},
            "sampling": {"tools": {}, "x-sampling": {"deep": [1]}},
            "elicitation": {"form": {"a": 1}, "x-elicit": true},
            "tasks": {"list": {}, "requests": {"sampling": {"createMessage": {}}, "x-req": {}}, "x-tasks": 2},
            "extensions": {"io.modelcontextprotocol/tasks": {}},
            "x-top": "kept"
        });
        let caps: ClientCapabilities = serde_json::from_value(client.clone()).unwrap();
        assert_eq!(caps.other["x-top"], "kept");
        assert!(caps.has_extension("io.modelcontextprotocol/tasks"));
        assert_eq!(serde_json::to_value(&caps).unwrap(), client);

        let server = json!({
            "tools": {"listChanged": true, "x-tools": 1},
            "resources": {"subscribe": true, "x-res": null},
            "tasks": {"requests": {"tools": {"call": {}}, "x": 1}},
            "completions": {},
            "x-top": [1, 2]
        });
        let caps: ServerCapabilities = serde_json::from_value(server.clone()).unwrap();
        assert_eq!(serde_json::to_value(&caps).unwrap(), server);
    }

    #[test]
    fn elicitation_modes() {
        let form_only: ClientCapabilities =
            serde_json::from_value(json!({"elicitation": {}})).unwrap();
        assert!(form_only.supports_elicitation_form());
        assert!(!form_only.supports_elicitation_url());
        let url_only: ClientCapabilities =
            serde_json::from_value(json!({"elicitation": {"url": {}}})).unwrap();
        assert!(!url_only.supports_elicitation_form());
        assert!(url_only.supports_elicitation_url());
        assert!(!ClientCapabilities::default().supports_elicitation_form());
    }
}
