//! Typed tool calls: the output schemas of the tools the client saw listed, and reading a
//! result's structured content as a Rust type.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use presa_core::{CallToolResult, JsonObject, Tool, WRAPPED_RESULT};
use presa_schema::Validator;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::{Client, ClientError, ResultText};

/// What the client knows of one listed tool's output: its schema, compiled on first use.
#[derive(Debug)]
struct Output {
    schema: Option<JsonObject>,
    compiled: OnceLock<Option<Arc<dyn Validator>>>,
}

/// The output schemas of the tools this client saw in `tools/list` results, by name.
#[derive(Debug, Default)]
pub(crate) struct OutputSchemas {
    tools: Mutex<HashMap<String, Arc<Output>>>,
}

impl OutputSchemas {
    fn map(&self) -> MutexGuard<'_, HashMap<String, Arc<Output>>> {
        self.tools
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Takes in the tools of a list page; a tool listed again replaces what was known of it.
    pub(crate) fn learn(&self, tools: &[Tool]) {
        let mut map = self.map();
        for tool in tools {
            let output = Output {
                schema: tool.output_schema.clone(),
                compiled: OnceLock::new(),
            };
            map.insert(tool.name.clone(), Arc::new(output));
        }
    }

    /// Whether tool `name` was listed.
    pub(crate) fn knows(&self, name: &str) -> bool {
        self.map().contains_key(name)
    }

    /// The compiled output schema of tool `name`, when it was listed with one that compiles
    /// (a schema the client cannot compile is not checked, and says so in the log).
    fn validator(&self, name: &str) -> Option<Arc<dyn Validator>> {
        let output = self.map().get(name).cloned()?;
        output
            .compiled
            .get_or_init(|| {
                let schema = Value::Object(output.schema.clone()?);
                match presa_schema::compile(&schema) {
                    Ok(validator) => Some(Arc::from(validator)),
                    Err(error) => {
                        tracing::warn!(tool = name, %error, "output schema not checked: it does not compile");
                        None
                    }
                }
            })
            .clone()
    }
}

/// Reads the result of typed call to `tool` as an `Out`.
pub(crate) fn read_output<Out: DeserializeOwned>(
    client: &Client,
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
    let Some(structured) = result.structured_content else {
        return Err(mismatch("it has no structured content".into()));
    };
    if let Some(validator) = client.output_schemas().validator(tool) {
        validator
            .validate(&structured)
            .map_err(|error| mismatch(format!("its structured content breaks the output schema {error}")))?;
    }
    match Out::deserialize(&structured) {
        Ok(out) => Ok(out),
        Err(error) => match structured.as_object() {
            Some(object) if object.len() == 1 => match object.get(WRAPPED_RESULT) {
                Some(inner) => Out::deserialize(inner)
                    .map_err(|error| mismatch(format!("it does not read as the type asked for: {error}"))),
                None => Err(mismatch(format!("it does not read as the type asked for: {error}"))),
            },
            _ => Err(mismatch(format!("it does not read as the type asked for: {error}"))),
        },
    }
}
