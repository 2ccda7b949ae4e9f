//! 2026-07-28 input rounds of a request: running a handler that may suspend for input, the
//! answers a retry brings (sealed state and `inputResponses`), and the `input_required` result
//! of a suspended handler.

use std::sync::Arc;

use presa_core::{Era, ErrorObject, RawJson, ResultType};
use presa_core::{InputRequest, InputRequiredResult, InputResponses};

use serde_json::Value;
use serde_json::value::RawValue;

use crate::BoxFuture;
use crate::call::{CallInfo, STATE_MEMBER};
use crate::catch::catch_unwind;
use crate::context::Context;
use crate::input::{Round, Suspendable, Suspension};
use crate::server::Server;

use crate::wire::raw;

/// What a handler's run ended with.
pub(crate) enum Ran<T> {
    /// It returned this.
    Returned(T),
    /// It panicked, with this message.
    Panicked(String),
    /// It stopped short: it asked for input it cannot have yet, or must fail.
    Suspended(Suspension),
}

/// Runs a handler future, catching a panic and suspending it when it asks for input it cannot
/// have yet.
pub(crate) async fn run<T: Send + 'static>(cx: &Context, future: BoxFuture<'static, T>) -> Ran<T> {
    let caught: BoxFuture<'static, Result<T, String>> = Box::pin(catch_unwind(future));
    match Suspendable::new(caught, cx.asks()).await {
        Ok(Ok(value)) => Ran::Returned(value),
        Ok(Err(panic)) => Ran::Panicked(panic),
        Err(suspension) => Ran::Suspended(suspension),
    }
}

/// Whether the raw params carry `"inputResponses": null` (malformed, unlike an absent member).
fn null_input_responses(params: Option<&RawValue>) -> bool {
    #[derive(serde::Deserialize)]
    struct Probe {
        #[serde(rename = "inputResponses", default, deserialize_with = "present")]
        input_responses: Option<Box<RawValue>>,
    }
    /// `Some` for a member that is there, `null` included.
    fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Box<RawValue>>, D::Error> {
        <Box<RawValue> as serde::Deserialize>::deserialize(d).map(Some)
    }
    params
        // the common case, no such member at all, costs a substring search, not a parse
        .filter(|p| presa_core::json_may_name(p.get(), "inputResponses"))
        .and_then(|p| serde_json::from_str::<Probe>(p.get()).ok())
        .and_then(|probe| probe.input_responses)
        .is_some_and(|raw| raw.get().trim() == "null")
}

impl Server {
    /// Opens a 2026-07-28 round for an input-capable request: the answers of the sealed state
    /// plus this retry's `inputResponses`, attached to the context.
    pub(crate) fn open_round(
        &self,
        cx: &Context,
        method: &str,
        binding: impl FnOnce() -> Value,
        raw_params: Option<&RawValue>,
        responses: Option<InputResponses>,
        state: Option<String>,
    ) -> Result<Option<Arc<Round>>, ErrorObject> {
        if cx.protocol_version().era() != Era::Stateless {
            return Ok(None);
        }
        if responses.is_none() && null_input_responses(raw_params) {
            return Err(ErrorObject::invalid_params(
                "inputResponses must be an object",
            ));
        }
        let mut all = std::collections::BTreeMap::new();
        let mut continued = None;
        if let Some(token) = state {
            let codec = self
                .inner
                .options
                .request_state
                .as_ref()
                .ok_or_else(|| ErrorObject::internal_error("no request state key"))?;
            // opened already if a middleware asked for the call
            let opened = cx.open_state(codec, method, &token, binding)?;
            if let Some(earlier) = opened.get("responses") {
                let earlier: InputResponses = serde_json::from_value(earlier.clone())
                    .map_err(|e| ErrorObject::invalid_params(format!("requestState: {e}")))?;
                all.extend(earlier);
            }
            continued = CallInfo::continued_from(opened);
        }
        all.extend(responses.unwrap_or_default());
        // the call a middleware was told of, else the one the state continues; a first round
        // nobody asked about gets its id only if it asks for input
        let call = cx.call().cloned().or(continued);
        let round = Arc::new(Round {
            responses: all,
            used: Default::default(),
            call,
        });
        cx.attach_round(Arc::clone(&round));
        Ok(Some(round))
    }

    /// The `input_required` result for a suspended handler: what it asked for, and a sealed
    /// state carrying the answers it already used.
    pub(crate) fn input_required(
        &self,
        round: Option<&Round>,
        requests: std::collections::BTreeMap<String, InputRequest>,
        method: &str,
        binding: &Value,
    ) -> Result<RawJson, ErrorObject> {
        let codec = self
            .inner
            .options
            .request_state
            .as_ref()
            .ok_or_else(|| ErrorObject::internal_error("no request state key"))?;
        let call = round
            .and_then(|round| round.call.clone())
            .unwrap_or_else(CallInfo::fresh);
        let used: serde_json::Map<String, Value> = match round {
            Some(round) => {
                let used = round.used.lock().map(|u| u.clone()).unwrap_or_default();
                round
                    .responses
                    .iter()
                    .filter(|(key, _)| used.contains(*key))
                    .map(|(key, response)| {
                        (
                            key.clone(),
                            serde_json::to_value(response).unwrap_or(Value::Null),
                        )
                    })
                    .collect()
            }
            None => serde_json::Map::new(),
        };
        let state = serde_json::json!({
            "responses": used,
            STATE_MEMBER: call.sealed(requests.keys()),
        });
        let sealed = codec.seal(
            std::time::SystemTime::now(),
            self.inner.options.request_state_ttl,
            method,
            binding,
            &state,
        );
        let mut result = InputRequiredResult {
            result_type: ResultType::InputRequired,
            input_requests: Some(requests),
            request_state: Some(sealed),
            meta: None,
        };
        self.stamp_server_info(&mut result.meta);
        raw(&result)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn raw(text: &str) -> Box<RawValue> {
        RawValue::from_string(text.to_owned()).unwrap()
    }

    #[test]
    fn a_null_input_responses_is_found_however_its_name_is_written() {
        for (params, null) in [
            (r#"{"name":"greet","inputResponses":null}"#, true),
            (r#"{"name":"greet","\u0069nputResponses":null}"#, true),
            (r#"{"name":"greet","inputRespons\u0065s": null }"#, true),
            (r#"{"name":"greet","inputResponses":{}}"#, false),
            (r#"{"name":"gr\u0065et"}"#, false),
            (r#"{"name":"greet"}"#, false),
        ] {
            assert_eq!(null_input_responses(Some(&raw(params))), null, "{params}");
        }
        assert!(!null_input_responses(None));
    }
}
