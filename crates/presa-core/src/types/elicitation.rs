//! Elicitation (`elicitation/create`): the server asks the user for input, through a form or
//! (since 2025-11-25) by sending them to a URL. A server→client request in the initialize era
//! (since 2025-06-18); an embedded input request (MRTR) in 2026-07-28.

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use crate::{ElicitationSchema, JsonObject, Meta, TaskMetadata};

literal_tag! {
    /// The literal `"form"` of an elicitation's `mode` member.
    ModeForm = "form"
}
literal_tag! {
    /// The literal `"url"` of an elicitation's `mode` member.
    ModeUrl = "url"
}

/// Params of `elicitation/create`: form mode or URL mode, told apart by `mode` (absent means
/// form).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum ElicitRequestParams {
    /// Form mode: a message and a restricted schema of fields.
    Form(ElicitRequestFormParams),
    /// URL mode: send the user to a URL. Since 2025-11-25.
    Url(ElicitRequestUrlParams),
}

impl ElicitRequestParams {
    /// The message shown to the user.
    pub fn message(&self) -> &str {
        match self {
            Self::Form(p) => &p.message,
            Self::Url(p) => &p.message,
        }
    }
}

impl<'de> Deserialize<'de> for ElicitRequestParams {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        let parsed = match value.get("mode") {
            None => serde_json::from_value(value).map(Self::Form),
            Some(Value::String(mode)) if mode == ModeForm::VALUE => {
                serde_json::from_value(value).map(Self::Form)
            }
            Some(Value::String(mode)) if mode == ModeUrl::VALUE => {
                serde_json::from_value(value).map(Self::Url)
            }
            Some(other) => {
                return Err(D::Error::custom(format!(
                    "unknown elicitation mode {other}"
                )));
            }
        };
        parsed.map_err(D::Error::custom)
    }
}

impl From<ElicitRequestFormParams> for ElicitRequestParams {
    fn from(params: ElicitRequestFormParams) -> Self {
        Self::Form(params)
    }
}

impl From<ElicitRequestUrlParams> for ElicitRequestParams {
    fn from(params: ElicitRequestUrlParams) -> Self {
        Self::Url(params)
    }
}

/// Params of a form-mode elicitation.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElicitRequestFormParams {
    /// Request metadata (initialize era).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// `"form"`, or absent (clients treat a missing mode as form). Since 2025-11-25; leave it
    /// `None` for 2025-06-18 peers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<ModeForm>,
    /// What is asked, for the user.
    pub message: String,
    /// The form's fields.
    pub requested_schema: ElicitationSchema,
    /// Asks for a task-augmented request. 2025-11-25 only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskMetadata>,
}

impl ElicitRequestFormParams {
    /// A form elicitation (without an explicit `mode`).
    pub fn new(message: impl Into<String>, requested_schema: ElicitationSchema) -> Self {
        Self {
            message: message.into(),
            requested_schema,
            ..Self::default()
        }
    }
}

/// Params of a URL-mode elicitation. Since 2025-11-25.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElicitRequestUrlParams {
    /// Request metadata (initialize era).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Always `"url"`.
    pub mode: ModeUrl,
    /// Why the user should open the URL.
    pub message: String,
    /// The URL to open (after the user consents).
    pub url: String,
    /// Identifies the elicitation for `notifications/elicitation/complete`. 2025-11-25 only
    /// (required there; removed in 2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation_id: Option<String>,
    /// Asks for a task-augmented request. 2025-11-25 only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskMetadata>,
}

impl ElicitRequestUrlParams {
    /// A URL elicitation without an elicitation id (the 2026-07-28 form).
    pub fn new(message: impl Into<String>, url: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            url: url.into(),
            ..Self::default()
        }
    }
}

/// The user's answer to an elicitation (in 2026-07-28: an input response).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ElicitResult {
    /// What the user did.
    pub action: ElicitAction,
    /// The submitted values (form mode with `accept` only): strings, numbers, booleans or
    /// string arrays.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<JsonObject>,
    /// Result metadata (initialize era).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl ElicitResult {
    /// `accept` with the submitted values.
    pub fn accept(content: JsonObject) -> Self {
        Self {
            action: ElicitAction::Accept,
            content: Some(content),
            meta: None,
        }
    }

    /// `accept` without content (URL mode: the user consented to open the URL).
    pub fn accept_url() -> Self {
        Self {
            action: ElicitAction::Accept,
            content: None,
            meta: None,
        }
    }

    /// `decline`: the user said no.
    pub fn decline() -> Self {
        Self {
            action: ElicitAction::Decline,
            content: None,
            meta: None,
        }
    }

    /// `cancel`: the user dismissed the request.
    pub fn cancel() -> Self {
        Self {
            action: ElicitAction::Cancel,
            content: None,
            meta: None,
        }
    }
}

/// What the user did with an elicitation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ElicitAction {
    /// Submitted (form) or consented to open the URL (URL mode).
    Accept,
    /// Explicitly refused.
    Decline,
    /// Dismissed without choosing.
    Cancel,
}

/// Params of `notifications/elicitation/complete`. 2025-11-25 only.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElicitationCompleteNotificationParams {
    /// Notification metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// The completed URL elicitation.
    pub elicitation_id: String,
}

impl_has_meta!(
    ElicitRequestFormParams,
    ElicitRequestUrlParams,
    ElicitResult,
    ElicitationCompleteNotificationParams
);

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use serde_json::json;

    use super::*;

    #[test]
    fn mode_selects_the_variant() {
        let form = json!({"message": "m", "requestedSchema": {"type": "object", "properties": {}}});
        let parsed: ElicitRequestParams = serde_json::from_value(form.clone()).unwrap();
        assert!(matches!(
            parsed,
            ElicitRequestParams::Form(ElicitRequestFormParams { mode: None, .. })
        ));
        assert_eq!(serde_json::to_value(&parsed).unwrap(), form);

        let url = json!({"mode": "url", "message": "m", "url": "https://x.example"});
        let parsed: ElicitRequestParams = serde_json::from_value(url.clone()).unwrap();
        assert!(matches!(parsed, ElicitRequestParams::Url(_)));
        assert_eq!(serde_json::to_value(&parsed).unwrap(), url);

        let bad = json!({"mode": "voice", "message": "m"});
        assert!(serde_json::from_value::<ElicitRequestParams>(bad).is_err());
    }
}
