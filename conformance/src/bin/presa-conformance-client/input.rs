//! The simulated user: answers to what servers ask of the client. The same handlers serve
//! both eras (server→client requests in the initialize era, `input_required` rounds in
//! 2026-07-28).

use presa_client::ClientOptions;
use presa_core::{
    CreateMessageResult, ElicitRequestParams, ElicitResult, JsonObject, ListRootsResult,
    PrimitiveSchemaDefinition, Root,
};
use serde_json::Value;

/// Registers a handler for each input kind, which also declares `sampling`, `elicitation` and
/// `roots`:
///
/// - elicitation: a form is accepted as the server pre-filled it (every field with a `default`
///   gets that default; a boolean without one is ticked); a URL is declined;
/// - sampling: a canned assistant message;
/// - roots: one root, the working directory.
pub(crate) fn answer_everything(options: ClientOptions) -> ClientOptions {
    options
        .elicitation(|params, _cx| async move {
            Ok(match params {
                ElicitRequestParams::Form(form) => {
                    ElicitResult::accept(prefilled(&form.requested_schema.properties))
                }
                _ => ElicitResult::decline(),
            })
        })
        .sampling(|_params, _cx| async move {
            Ok(CreateMessageResult::text(
                "presa-conformance-model",
                "This is a sampled answer from the presa conformance client.",
            ))
        })
        .roots(|_params, _cx| async move {
            Ok(ListRootsResult::new(vec![Root::new(
                "file:///workspace",
                "workspace",
            )]))
        })
}

/// The values of a form as the user accepts it untouched.
fn prefilled<'a>(
    properties: impl IntoIterator<Item = (&'a String, &'a PrimitiveSchemaDefinition)>,
) -> JsonObject {
    properties
        .into_iter()
        .filter_map(|(name, schema)| {
            let schema = serde_json::to_value(schema).ok()?;
            let value = match schema.get("default") {
                Some(default) => default.clone(),
                None if schema["type"] == "boolean" => Value::Bool(true),
                None => return None,
            };
            Some((name.clone(), value))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::collections::BTreeMap;

    use serde_json::json;

    use super::*;

    #[test]
    fn a_form_is_accepted_with_its_defaults() {
        let properties: BTreeMap<String, PrimitiveSchemaDefinition> =
            serde_json::from_value(json!({
                "name": {"type": "string", "default": "John Doe"},
                "age": {"type": "integer", "default": 30},
                "status": {"type": "string", "enum": ["active", "pending"], "default": "active"},
                "confirmed": {"type": "boolean"},
                "note": {"type": "string"}
            }))
            .unwrap();
        assert_eq!(
            Value::Object(prefilled(&properties)),
            json!({"name": "John Doe", "age": 30, "status": "active", "confirmed": true})
        );
    }
}
