//! Argument completion: `completion/complete` params and result.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::{Meta, ResultType};

/// Params of `completion/complete`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CompleteRequestParams {
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// What is being completed: a prompt or a resource template.
    #[serde(rename = "ref")]
    pub reference: CompletionReference,
    /// The argument being completed and its partial value.
    pub argument: CompletionArgument,
    /// Already-resolved arguments. Since 2025-06-18.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<CompletionContext>,
}

impl CompleteRequestParams {
    /// Params completing `argument` of `reference` from `value`.
    pub fn new(
        reference: CompletionReference,
        name: impl Into<String>,
        value: impl Into<String>,
    ) -> Self {
        Self {
            meta: None,
            reference,
            argument: CompletionArgument {
                name: name.into(),
                value: value.into(),
            },
            context: None,
        }
    }
}

/// The object whose argument is completed, tagged by `type`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type")]
#[non_exhaustive]
pub enum CompletionReference {
    /// `"ref/prompt"`: a prompt by name.
    #[serde(rename = "ref/prompt")]
    Prompt(PromptReference),
    /// `"ref/resource"`: a resource or resource template by URI (schema
    /// `ResourceTemplateReference`; `ResourceReference` up to 2025-03-26, same wire form).
    #[serde(rename = "ref/resource")]
    Resource(ResourceTemplateReference),
}

impl CompletionReference {
    /// A reference to the prompt `name`.
    pub fn prompt(name: impl Into<String>) -> Self {
        Self::Prompt(PromptReference {
            name: name.into(),
            title: None,
        })
    }

    /// A reference to the resource template (or URI) `uri`.
    pub fn resource(uri: impl Into<String>) -> Self {
        Self::Resource(ResourceTemplateReference { uri: uri.into() })
    }
}

/// A prompt named for completion.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PromptReference {
    /// The prompt's name.
    pub name: String,
    /// Display name. Since 2025-06-18.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
}

/// A resource template (or URI) named for completion.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResourceTemplateReference {
    /// The URI or URI template.
    pub uri: String,
}

/// The argument being completed.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompletionArgument {
    /// The argument's name.
    pub name: String,
    /// The partial value typed so far.
    pub value: String,
}

/// Context for a completion. Since 2025-06-18.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompletionContext {
    /// Values of arguments already resolved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<BTreeMap<String, String>>,
}

/// Result of `completion/complete`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CompleteResult {
    /// 2026-07-28 only: the result type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// The suggestions.
    pub completion: Completion,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl CompleteResult {
    /// A result with these values (at most 100, best first) and no totals.
    pub fn new(values: Vec<String>) -> Self {
        Self {
            completion: Completion {
                values,
                total: None,
                has_more: None,
            },
            ..Self::default()
        }
    }
}

/// Completion suggestions.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Completion {
    /// Suggested values, at most 100, best first.
    pub values: Vec<String>,
    /// Total number of matches, possibly more than returned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<u64>,
    /// Whether more matches exist than returned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub has_more: Option<bool>,
}

impl Completion {
    /// The most values a completion may carry.
    pub const MAX_VALUES: usize = 100;
}

impl_has_meta!(CompleteRequestParams, CompleteResult);
impl_has_result_type!(CompleteResult);
