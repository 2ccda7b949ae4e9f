//! Prompt handlers and completion functions, and what they may return.

use std::collections::BTreeMap;
use std::future::Future;

use presa_core::{Completion, ContentBlock, ErrorObject, GetPromptResult, PromptMessage, Role};

use crate::BoxFuture;
use crate::context::Context;
use crate::error::IntoHandlerFailure;

/// A prompt's arguments, by name (the client sends strings).
pub type PromptArgs = BTreeMap<String, String>;

/// What getting a prompt produced: its result, or a JSON-RPC error.
pub type PromptOutcome = Result<GetPromptResult, ErrorObject>;

/// A message of a prompt: a plain string is a user message.
#[derive(Clone, Debug, PartialEq)]
pub enum Message {
    /// A user message with this text.
    Text(String),
    /// A message with a role and content.
    Full(Box<PromptMessage>),
}

impl From<&str> for Message {
    fn from(text: &str) -> Self {
        Self::Text(text.to_owned())
    }
}

impl From<String> for Message {
    fn from(text: String) -> Self {
        Self::Text(text)
    }
}

impl From<PromptMessage> for Message {
    fn from(message: PromptMessage) -> Self {
        Self::Full(Box::new(message))
    }
}

impl From<(Role, &str)> for Message {
    fn from((role, text): (Role, &str)) -> Self {
        Self::Full(Box::new(PromptMessage {
            role,
            content: ContentBlock::text(text),
        }))
    }
}

impl From<(Role, ContentBlock)> for Message {
    fn from((role, content): (Role, ContentBlock)) -> Self {
        Self::Full(Box::new(PromptMessage { role, content }))
    }
}

impl From<Message> for PromptMessage {
    fn from(message: Message) -> Self {
        match message {
            Message::Text(text) => PromptMessage::text(Role::User, text),
            Message::Full(message) => *message,
        }
    }
}

/// Turns what a prompt handler returns into a `prompts/get` result.
///
/// | handler returns | result |
/// |---|---|
/// | `String`, `&str` | one user message |
/// | `Vec<M>` where `M: Into<Message>` (strings, `(Role, &str)`, `PromptMessage`) | those messages |
/// | `GetPromptResult` | that result |
/// | `Err(e)` | a JSON-RPC internal error with `e`'s message (or the [`ProtocolError`](crate::ProtocolError)) |
pub trait IntoPromptResult {
    /// The result, or the JSON-RPC error to answer with.
    fn into_prompt_result(self) -> PromptOutcome;
}

impl IntoPromptResult for GetPromptResult {
    fn into_prompt_result(self) -> PromptOutcome {
        Ok(self)
    }
}

impl IntoPromptResult for String {
    fn into_prompt_result(self) -> PromptOutcome {
        Ok(GetPromptResult::new(vec![PromptMessage::text(
            Role::User,
            self,
        )]))
    }
}

impl IntoPromptResult for &str {
    fn into_prompt_result(self) -> PromptOutcome {
        self.to_owned().into_prompt_result()
    }
}

impl<M: Into<Message>> IntoPromptResult for Vec<M> {
    fn into_prompt_result(self) -> PromptOutcome {
        Ok(GetPromptResult::new(
            self.into_iter()
                .map(|m| PromptMessage::from(m.into()))
                .collect(),
        ))
    }
}

impl<T: IntoPromptResult, E: IntoHandlerFailure> IntoPromptResult for Result<T, E> {
    fn into_prompt_result(self) -> PromptOutcome {
        match self {
            Ok(value) => value.into_prompt_result(),
            Err(error) => Err(error.into_handler_failure().into_error_object()),
        }
    }
}

/// A prompt's behaviour, object-safe.
pub trait PromptHandler: Send + Sync + 'static {
    /// Builds the prompt from arguments whose required members are present.
    fn get(&self, arguments: PromptArgs, cx: Context) -> BoxFuture<'static, PromptOutcome>;
}

pub(crate) struct PromptFn<F>(pub(crate) F);

impl<F, Fut, R> PromptHandler for PromptFn<F>
where
    F: Fn(PromptArgs, Context) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = R> + Send + 'static,
    R: IntoPromptResult,
{
    fn get(&self, arguments: PromptArgs, cx: Context) -> BoxFuture<'static, PromptOutcome> {
        let fut = (self.0)(arguments, cx);
        Box::pin(async move { fut.await.into_prompt_result() })
    }
}

/// What a completion function is asked.
#[derive(Clone, Debug, PartialEq)]
pub struct CompletionInput {
    /// The argument (or template variable) being completed.
    pub argument: String,
    /// What the user typed so far.
    pub value: String,
    /// The values of the other arguments, as far as the client sent them.
    pub arguments: BTreeMap<String, String>,
}

/// The most values one completion answer carries.
pub const MAX_COMPLETION_VALUES: usize = 100;

/// Turns what a completion function returns into a completion: a list of strings, or a
/// [`Completion`] with `total` and `hasMore`. At most [`MAX_COMPLETION_VALUES`] values are sent;
/// when there were more, `total` says how many and `hasMore` is set.
pub trait IntoCompletion {
    /// The completion.
    fn into_completion(self) -> Completion;
}

impl IntoCompletion for Completion {
    fn into_completion(mut self) -> Completion {
        if self.values.len() > MAX_COMPLETION_VALUES {
            let total = self
                .total
                .unwrap_or(self.values.len() as u64)
                .max(self.values.len() as u64);
            self.values.truncate(MAX_COMPLETION_VALUES);
            self.total = Some(total);
            self.has_more = Some(true);
        }
        self
    }
}

impl<S: Into<String>> IntoCompletion for Vec<S> {
    fn into_completion(self) -> Completion {
        let values: Vec<String> = self.into_iter().map(Into::into).collect();
        let total = values.len() as u64;
        let truncated = values.len() > MAX_COMPLETION_VALUES;
        let mut completion = Completion {
            values,
            total: None,
            has_more: None,
        };
        if truncated {
            completion.values.truncate(MAX_COMPLETION_VALUES);
            completion.total = Some(total);
            completion.has_more = Some(true);
        }
        completion
    }
}

/// A completion function, object-safe.
pub trait Completer: Send + Sync + 'static {
    /// Completes `input`.
    fn complete(&self, input: CompletionInput, cx: Context) -> BoxFuture<'static, Completion>;
}

pub(crate) struct CompleterFn<F>(pub(crate) F);

impl<F, Fut, R> Completer for CompleterFn<F>
where
    F: Fn(CompletionInput, Context) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = R> + Send + 'static,
    R: IntoCompletion,
{
    fn complete(&self, input: CompletionInput, cx: Context) -> BoxFuture<'static, Completion> {
        let fut = (self.0)(input, cx);
        Box::pin(async move { fut.await.into_completion() })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

    #[test]
    fn prompt_results() {
        let r = serde_json::to_value("hi".into_prompt_result().unwrap()).unwrap();
        assert_eq!(
            r,
            json!({"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}]})
        );
        let r = vec![Message::from("q"), Message::from((Role::Assistant, "a"))]
            .into_prompt_result()
            .unwrap();
        assert_eq!(r.messages[1].role, Role::Assistant);
        let failed: Result<String, &str> = Err("nope");
        assert_eq!(failed.into_prompt_result().unwrap_err().code.code(), -32603);
    }

    #[test]
    fn completions_are_capped_at_one_hundred() {
        let c = (0..150)
            .map(|i| i.to_string())
            .collect::<Vec<_>>()
            .into_completion();
        assert_eq!(
            (c.values.len(), c.total, c.has_more),
            (100, Some(150), Some(true))
        );
        let c = vec!["a", "b"].into_completion();
        assert_eq!((c.values.len(), c.total, c.has_more), (2, None, None));
        let c = Completion {
            values: vec!["x".into(); 101],
            total: Some(500),
            has_more: None,
        }
        .into_completion();
        assert_eq!(
            (c.values.len(), c.total, c.has_more),
            (100, Some(500), Some(true))
        );
    }
}
