//! Calls that may answer `input_required` (2026-07-28 `tools/call`, `prompts/get`,
//! `resources/read`): fulfil the input requests with the registered handlers and retry.

use presa_core::{
    ClientCapabilities, InputRequest, InputRequiredResult, InputResponses, MrtrResult, RawJson,
};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use tracing::Instrument;

use crate::handler::{InputContext, Unanswered};
use crate::{CallOptions, Client, ClientError};

/// A complete result, with its raw text and whether it came without input rounds (only such
/// results may be cached).
pub(crate) struct Completed<T> {
    pub(crate) result: T,
    pub(crate) raw: RawJson,
    pub(crate) first_round: bool,
}

/// Sends `method` and follows `input_required` answers up to the client's round limit.
pub(crate) async fn call_with_input<T: DeserializeOwned>(
    client: &Client,
    method: &'static str,
    params: Map<String, Value>,
    options: &CallOptions,
) -> Result<Completed<T>, ClientError> {
    match call_or_task(client, method, params, options).await? {
        Answered::Complete(done) => Ok(done),
        Answered::Other(object) => Err(unexpected_result_type(&object)),
    }
}

/// The error for a result of a `resultType` the call does not take, naming it.
pub(crate) fn unexpected_result_type(result: &presa_core::JsonObject) -> ClientError {
    let result_type = result.get("resultType").cloned().unwrap_or(Value::Null);
    ClientError::InvalidResult(format!(
        "unexpected resultType {}",
        presa_core::clipped(&result_type.to_string())
    ))
}

/// How a call that may take input rounds ended.
pub(crate) enum Answered<T> {
    /// Its result.
    Complete(Completed<T>),
    /// A result of a `resultType` an extension defines (a task).
    Other(presa_core::JsonObject),
}

/// [`call_with_input`], handing back a result of an extension's `resultType` (a task) instead
/// of refusing it.
pub(crate) async fn call_or_task<T: DeserializeOwned>(
    client: &Client,
    method: &'static str,
    mut params: Map<String, Value>,
    options: &CallOptions,
) -> Result<Answered<T>, ClientError> {
    let mut round = 0;
    loop {
        let raw = client
            .handle()
            .send(method, Some(params.clone()), options)
            .await?;
        let read = MrtrResult::<T>::from_json(raw.get())
            .map_err(|e| ClientError::InvalidResult(e.to_string()))?;
        let asked = match read {
            MrtrResult::Complete(result) => {
                return Ok(Answered::Complete(Completed {
                    result,
                    raw,
                    first_round: round == 0,
                }));
            }
            MrtrResult::InputRequired(asked) => asked,
            MrtrResult::Other(object) => return Ok(Answered::Other(object)),
        };
        if round >= client.max_input_rounds() {
            return Err(ClientError::InputRequired(Box::new(asked)));
        }
        round += 1;
        let responses = fulfil(client, &asked).await?;
        // The retry: the original params, this round's answers, the state echoed as is.
        params.remove("inputResponses");
        params.remove("requestState");
        if !responses.is_empty() {
            let responses = serde_json::to_value(&responses)
                .map_err(|e| ClientError::InvalidParams(e.to_string()))?;
            params.insert("inputResponses".into(), responses);
        }
        if let Some(state) = asked.request_state {
            params.insert("requestState".into(), Value::String(state));
        }
    }
}

/// Answers every input request, or says why not.
pub(crate) async fn fulfil(
    client: &Client,
    asked: &InputRequiredResult,
) -> Result<InputResponses, ClientError> {
    let mut responses = InputResponses::new();
    let Some(requests) = &asked.input_requests else {
        return Ok(responses);
    };
    let cx = InputContext::new(client.protocol_version());
    for (key, request) in requests {
        if !declared(client.capabilities(), request) {
            tracing::debug!(key, method = request.method(), "input request not declared");
            return Err(ClientError::InputRequired(Box::new(asked.clone())));
        }
        let span =
            crate::telemetry::served_span(request.method(), None, client.protocol_version(), None);
        let answered = client
            .handlers()
            .answer(request.clone(), cx.clone())
            .instrument(span.clone())
            .await;
        if let Err(Unanswered::Refused { error, .. }) = &answered {
            crate::telemetry::record_served_end::<()>(&span, &Err(error.clone()));
        }
        match answered {
            Ok(response) => {
                responses.insert(key.clone(), response);
            }
            Err(Unanswered::NoHandler) => {
                return Err(ClientError::InputRequired(Box::new(asked.clone())));
            }
            Err(Unanswered::Refused { method, error }) => {
                return Err(ClientError::InputRefused { method, error });
            }
        }
    }
    Ok(responses)
}

/// Whether the client declared the capability an input request needs (a server must not ask
/// for more; the client does not answer what it did not offer).
fn declared(capabilities: &ClientCapabilities, request: &InputRequest) -> bool {
    // a method the client knows nothing of is never answered
    !matches!(request, InputRequest::Other { .. })
        && request.required_capability(capabilities).is_none()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use presa_core::{ElicitationCapability, InputRequest};
    use serde_json::json;

    use super::*;

    #[test]
    fn only_declared_capabilities_are_answered() {
        let url: InputRequest = serde_json::from_value(json!({
            "method": "elicitation/create",
            "params": {"mode": "url", "message": "m", "url": "https://example.com"}
        }))
        .unwrap();
        let form: InputRequest = serde_json::from_value(json!({
            "method": "elicitation/create",
            "params": {"message": "m", "requestedSchema": {"type": "object", "properties": {}}}
        }))
        .unwrap();
        let mut caps = ClientCapabilities::default();
        assert!(!declared(&caps, &form));
        caps.elicitation = Some(ElicitationCapability::default());
        assert!(declared(&caps, &form));
        assert!(!declared(&caps, &url), "elicitation: {{}} means form only");
        assert!(!declared(&caps, &InputRequest::roots()));
    }
}
