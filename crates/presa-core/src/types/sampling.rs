//! Sampling (`sampling/createMessage`): the server asks the client's model for a completion.
//! A server→client request in the initialize era; an embedded input request (MRTR) in
//! 2026-07-28, where the feature is deprecated.

use serde::{Deserialize, Serialize};

use super::serde_util;
use crate::{JsonObject, Meta, Role, SamplingContent, SamplingMessageContent, TaskMetadata, Tool};

/// A message of a sampling conversation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SamplingMessage {
    /// The sender.
    pub role: Role,
    /// One block, or (since 2025-11-25) several.
    pub content: SamplingMessageContent,
    /// Metadata. Since 2025-11-25.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl SamplingMessage {
    /// A user message with one text block.
    pub fn user_text(text: impl Into<String>) -> Self {
        Self {
            role: Role::User,
            content: SamplingContent::text(text).into(),
            meta: None,
        }
    }
}

/// Params of `sampling/createMessage`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateMessageRequestParams {
    /// Request metadata (initialize era; the embedded 2026-07-28 form has none).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// The conversation so far.
    pub messages: Vec<SamplingMessage>,
    /// Advisory model selection preferences.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_preferences: Option<ModelPreferences>,
    /// A system prompt the client may alter or ignore.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    /// Which MCP context to include (`thisServer`/`allServers` deprecated since 2025-11-25).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_context: Option<IncludeContext>,
    /// Sampling temperature.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "serde_util::opt_f64_compact"
    )]
    pub temperature: Option<f64>,
    /// The most tokens to generate; the client MUST respect it.
    pub max_tokens: u64,
    /// Stop sequences.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_sequences: Option<Vec<String>>,
    /// Provider-specific metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<JsonObject>,
    /// Tools the model may call in this sampling request (needs the client's `sampling.tools`).
    /// Since 2025-11-25.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<Tool>>,
    /// How the model may use `tools`. Since 2025-11-25.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<ToolChoice>,
    /// Asks for a task-augmented request. 2025-11-25 only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskMetadata>,
}

impl CreateMessageRequestParams {
    /// Params with these messages and a token limit.
    pub fn new(messages: Vec<SamplingMessage>, max_tokens: u64) -> Self {
        Self {
            messages,
            max_tokens,
            ..Self::default()
        }
    }
}

/// Result of `sampling/createMessage` (in 2026-07-28: an input response).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateMessageResult {
    /// The sender, normally [`Role::Assistant`].
    pub role: Role,
    /// One block, or (since 2025-11-25) several.
    pub content: SamplingMessageContent,
    /// The model that produced the message.
    pub model: String,
    /// Why generation stopped: `endTurn`, `stopSequence`, `maxTokens`, `toolUse` (2025-11-25),
    /// or any other string.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl CreateMessageResult {
    /// `stopReason` when the model ended its turn.
    pub const END_TURN: &'static str = "endTurn";
    /// `stopReason` when a stop sequence was hit.
    pub const STOP_SEQUENCE: &'static str = "stopSequence";
    /// `stopReason` when `maxTokens` was reached.
    pub const MAX_TOKENS: &'static str = "maxTokens";
    /// `stopReason` when the model asked to use a tool. Since 2025-11-25.
    pub const TOOL_USE: &'static str = "toolUse";

    /// An assistant message with one text block.
    pub fn text(model: impl Into<String>, text: impl Into<String>) -> Self {
        Self {
            role: Role::Assistant,
            content: SamplingContent::text(text).into(),
            model: model.into(),
            stop_reason: Some(Self::END_TURN.to_owned()),
            meta: None,
        }
    }
}

/// Advisory preferences for choosing a model; priorities range over 0.0..=1.0.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelPreferences {
    /// Model name hints, evaluated in order (substring matches).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hints: Option<Vec<ModelHint>>,
    /// How much to prioritize low cost.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "serde_util::opt_f64_compact"
    )]
    pub cost_priority: Option<f64>,
    /// How much to prioritize speed.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "serde_util::opt_f64_compact"
    )]
    pub speed_priority: Option<f64>,
    /// How much to prioritize capability.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "serde_util::opt_f64_compact"
    )]
    pub intelligence_priority: Option<f64>,
}

/// A model name hint.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelHint {
    /// A full or partial model name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// How the model may use the tools of a sampling request. Since 2025-11-25.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolChoice {
    /// The mode (default `auto`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<ToolChoiceMode>,
}

/// Tool use mode of a sampling request. Since 2025-11-25.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ToolChoiceMode {
    /// The model decides.
    #[default]
    Auto,
    /// The model must use a tool.
    Required,
    /// The model must not use tools.
    None,
}

/// Which MCP context a sampling request wants included.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum IncludeContext {
    /// No context (the default).
    #[default]
    None,
    /// Context from the requesting server (deprecated since 2025-11-25; needs
    /// `sampling.context`).
    ThisServer,
    /// Context from all servers (deprecated since 2025-11-25; needs `sampling.context`).
    AllServers,
}

impl_has_meta!(
    SamplingMessage,
    CreateMessageRequestParams,
    CreateMessageResult
);
