//! Utility notifications and logging: cancellation, progress, log messages, `logging/setLevel`.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::serde_util;
use crate::{Meta, ProgressToken, RequestId};

/// Params of `notifications/cancelled`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CancelledNotificationParams {
    /// Notification metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// The request to cancel. Required except in 2025-11-25, whose schema made it optional
    /// (task cancels use `tasks/cancel`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<RequestId>,
    /// Why, for logs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl CancelledNotificationParams {
    /// The params of a `notifications/cancelled` as they arrived, when they are an object of
    /// this shape: what every receiver of a cancellation reads it with.
    ///
    /// ```
    /// use presa_core::{CancelledNotificationParams, RequestId};
    ///
    /// let raw = serde_json::value::RawValue::from_string(r#"{"requestId":5}"#.into()).unwrap();
    /// let params = CancelledNotificationParams::from_raw(Some(&raw)).unwrap();
    /// assert_eq!(params.request_id, Some(RequestId::Number(5)));
    /// assert!(CancelledNotificationParams::from_raw(None).is_none());
    /// ```
    pub fn from_raw(params: Option<&crate::RawJson>) -> Option<Self> {
        crate::parse_params(Some(params?)).ok()
    }

    /// Cancels `request_id`.
    pub fn new(request_id: RequestId, reason: Option<String>) -> Self {
        Self {
            meta: None,
            request_id: Some(request_id),
            reason,
        }
    }
}

/// Params of `notifications/progress`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProgressNotificationParams {
    /// Notification metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// The token from the request's `_meta.progressToken`.
    pub progress_token: ProgressToken,
    /// Progress so far; grows with every notification.
    #[serde(serialize_with = "serde_util::f64_compact")]
    pub progress: f64,
    /// Total, if known.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "serde_util::opt_f64_compact"
    )]
    pub total: Option<f64>,
    /// Human-readable progress message. Since 2025-03-26.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

impl ProgressNotificationParams {
    /// Progress for `progress_token`.
    pub fn new(progress_token: ProgressToken, progress: f64, total: Option<f64>) -> Self {
        Self {
            meta: None,
            progress_token,
            progress,
            total,
            message: None,
        }
    }
}

/// Severity of a log message (RFC 5424), ordered from least to most severe:
/// `debug < info < notice < warning < error < critical < alert < emergency`.
///
/// ```
/// use presa_core::LoggingLevel;
///
/// assert!(LoggingLevel::Warning > LoggingLevel::Info);
/// assert_eq!("notice".parse::<LoggingLevel>(), Ok(LoggingLevel::Notice));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LoggingLevel {
    /// Detailed debugging information.
    Debug,
    /// Informational messages.
    Info,
    /// Normal but significant events.
    Notice,
    /// Warning conditions.
    Warning,
    /// Error conditions.
    Error,
    /// Critical conditions.
    Critical,
    /// Action must be taken immediately.
    Alert,
    /// The system is unusable.
    Emergency,
}

impl LoggingLevel {
    /// All levels, least severe first.
    pub const ALL: [Self; 8] = [
        Self::Debug,
        Self::Info,
        Self::Notice,
        Self::Warning,
        Self::Error,
        Self::Critical,
        Self::Alert,
        Self::Emergency,
    ];

    /// The wire string.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Debug => "debug",
            Self::Info => "info",
            Self::Notice => "notice",
            Self::Warning => "warning",
            Self::Error => "error",
            Self::Critical => "critical",
            Self::Alert => "alert",
            Self::Emergency => "emergency",
        }
    }
}

impl fmt::Display for LoggingLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The error of parsing an unknown [`LoggingLevel`] name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownLoggingLevel;

impl fmt::Display for UnknownLoggingLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("unknown logging level")
    }
}

impl std::error::Error for UnknownLoggingLevel {}

impl FromStr for LoggingLevel {
    type Err = UnknownLoggingLevel;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|level| level.as_str() == s)
            .ok_or(UnknownLoggingLevel)
    }
}

/// Params of `logging/setLevel` (initialize era only; 2026-07-28 uses the per-request
/// `io.modelcontextprotocol/logLevel` `_meta` key).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SetLevelRequestParams {
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// The least severe level the client wants.
    pub level: LoggingLevel,
}

/// Params of `notifications/message`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LoggingMessageNotificationParams {
    /// Notification metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Severity.
    pub level: LoggingLevel,
    /// Name of the logger.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logger: Option<String>,
    /// The message: any JSON value.
    pub data: Value,
}

impl LoggingMessageNotificationParams {
    /// A message at `level`.
    pub fn new(level: LoggingLevel, data: impl Into<Value>) -> Self {
        Self {
            meta: None,
            level,
            logger: None,
            data: data.into(),
        }
    }
}

impl_has_meta!(
    CancelledNotificationParams,
    ProgressNotificationParams,
    SetLevelRequestParams,
    LoggingMessageNotificationParams,
);

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn levels_are_ordered_by_severity() {
        let mut sorted = LoggingLevel::ALL;
        sorted.reverse();
        sorted.sort();
        assert_eq!(sorted, LoggingLevel::ALL);
        assert!(LoggingLevel::Debug < LoggingLevel::Info);
        assert!(LoggingLevel::Alert < LoggingLevel::Emergency);
        for level in LoggingLevel::ALL {
            let json = serde_json::to_string(&level).unwrap();
            assert_eq!(json, format!("\"{level}\""));
            assert_eq!(serde_json::from_str::<LoggingLevel>(&json).unwrap(), level);
            assert_eq!(level.as_str().parse::<LoggingLevel>(), Ok(level));
        }
        assert!(serde_json::from_str::<LoggingLevel>("\"verbose\"").is_err());
        assert_eq!("WARNING".parse::<LoggingLevel>(), Err(UnknownLoggingLevel));
    }

    #[test]
    fn progress_numbers_stay_compact() {
        let p = ProgressNotificationParams::new(ProgressToken::from(1), 50.0, Some(100.0));
        assert_eq!(
            serde_json::to_string(&p).unwrap(),
            r#"{"progressToken":1,"progress":50,"total":100}"#
        );
        let p = ProgressNotificationParams::new(ProgressToken::from("t"), 0.4, None);
        assert_eq!(
            serde_json::to_string(&p).unwrap(),
            r#"{"progressToken":"t","progress":0.4}"#
        );
    }
}
