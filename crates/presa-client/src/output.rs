//! Typed tool calls: the output schemas of the server's tools, and reading a result's
//! structured content as a Rust type.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use presa_core::{CallToolResult, JsonObject, Tool, WRAPPED_RESULT, is_wrapped_output_schema};
use presa_schema::Validator;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::{ClientError, ResultText};

/// The most tools whose output schemas a client keeps; a server listing more has the rest
/// called unchecked.
const MAX_TOOLS: usize = 10_000;

/// What the client knows of one listed tool's output: its schema, compiled on first use.
#[derive(Debug)]
struct Output {
    schema: Option<JsonObject>,
    compiled: OnceLock<Option<Arc<dyn Validator>>>,
}

#[derive(Debug, Default)]
struct Known {
    /// Whether the tools were listed since the client connected or last heard
    /// `notifications/tools/list_changed`.
    listed: bool,
    tools: HashMap<String, Arc<Output>>,
}

/// The output schemas of the server's tools, as a typed call last listed them. Only typed calls
/// fill it; a tools list change empties it.
#[derive(Debug, Default)]
pub(crate) struct OutputSchemas {
    known: Mutex<Known>,
}

impl OutputSchemas {
    fn known(&self) -> MutexGuard<'_, Known> {
        self.known
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Whether the tools were listed (and have not changed since).
    pub(crate) fn is_listed(&self) -> bool {
        self.known().listed
    }

    /// What a full `tools/list` said, replacing what was known.
    pub(crate) fn replace(&self, tools: &[Tool]) {
        if tools.len() > MAX_TOOLS {
            tracing::warn!(
                target: "presa_client",
                "the server lists {} tools; output schemas are kept for the first {MAX_TOOLS}",
                tools.len()
            );
        }
        let tools = tools
            .iter()
            .take(MAX_TOOLS)
            .map(|tool| {
                let output = Output {
                    schema: tool.output_schema.clone(),
                    compiled: OnceLock::new(),
                };
                (tool.name.clone(), Arc::new(output))
            })
            .collect();
        *self.known() = Known {
            listed: true,
            tools,
        };
    }

    /// Forgets the list (the server said its tools changed).
    pub(crate) fn forget(&self) {
        *self.known() = Known::default();
    }

    /// Tool `name`'s output schema, and its compiled form (`None` when the client cannot
    /// compile it: then it is not checked, and the log says so).
    fn output(&self, name: &str) -> Option<(JsonObject, Option<Arc<dyn Validator>>)> {
        let output = self.known().tools.get(name).cloned()?;
        let schema = output.schema.clone()?;
        let validator = output
            .compiled
            .get_or_init(
                || match presa_schema::compile(&Value::Object(schema.clone())) {
                    Ok(validator) => Some(Arc::from(validator)),
                    Err(error) => {
                        tracing::warn!(
                            target: "presa_client",
                            tool = name,
                            %error,
                            "output schema not checked: it does not compile"
                        );
                        None
                    }
                },
            )
            .clone();
        Some((schema, validator))
    }

    /// Reads the result of a typed call to `tool` as an `Out`: checked against the tool's
    /// output schema, and taken out of `{"result": …}` when that schema is a wrapped result's.
    pub(crate) fn read<Out: DeserializeOwned>(
        &self,
        tool: &str,
        result: CallToolResult,
    ) -> Result<Out, ClientError> {
        if result.is_error() {
            return Err(ClientError::ToolFailed(result.text()));
        }
        let mismatch = |reason: String| ClientError::OutputMismatch {
            tool: tool.to_owned(),
            reason,
        };
        let Some(mut structured) = result.structured_content else {
            return Err(mismatch("it has no structured content".into()));
        };
        let mut wrapped = false;
        if let Some((schema, validator)) = self.output(tool) {
            if let Some(validator) = validator {
                validator.validate(&structured).map_err(|error| {
                    mismatch(format!(
                        "its structured content breaks the output schema {error}"
                    ))
                })?;
            }
            wrapped = is_wrapped_output_schema(&schema);
        }
        if wrapped && let Some(inner) = structured.get_mut(WRAPPED_RESULT) {
            structured = inner.take();
        }
        Out::deserialize(structured)
            .map_err(|error| mismatch(format!("it does not read as the type asked for: {error}")))
    }
}
