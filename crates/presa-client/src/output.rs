//! What the client keeps of the server's tool list: the output schemas typed tool calls check
//! and read a result's structured content with, and each tool's task support (2025-11-25).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use presa_core::{
    CallToolResult, JsonObject, TaskSupport, Tool, WRAPPED_RESULT, is_wrapped_output_schema,
};
use presa_schema::Validator;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::{ClientError, ResultText};

/// The most tools whose output schemas a client keeps; a server listing more has the rest
/// called unchecked. Task support is kept for every tool listed.
const MAX_TOOLS: usize = 10_000;

/// What the client knows of one listed tool's output: its schema, compiled on first use.
#[derive(Debug)]
struct Output {
    schema: Option<JsonObject>,
    compiled: OnceLock<Option<Arc<dyn Validator>>>,
}

#[derive(Debug, Default)]
struct Known {
    /// Whether the tools were listed in full since the client connected or last heard
    /// `notifications/tools/list_changed`: then a tool the listing lacks does not exist.
    listed: bool,
    /// How many times the list changed: a listing asked for before a change is not kept.
    generation: u64,
    /// The output schemas of the first [`MAX_TOOLS`] tools listed.
    outputs: HashMap<String, Arc<Output>>,
    /// The task support of every listed tool that may run as a task (one that is not held
    /// here is [`TaskSupport::Forbidden`]).
    tasks: HashMap<String, TaskSupport>,
}

/// The server's tools as the client last listed them in full: typed calls check results with
/// their output schemas, 2025-11-25 calls read their task support. Filled by the first call
/// that needs it; a tools list change empties it.
#[derive(Debug, Default)]
pub(crate) struct ToolListing {
    known: Mutex<Known>,
    /// Held while the tools are listed again, so that callers at once list once.
    refill: tokio::sync::Mutex<()>,
}

/// Tool `name`'s task support in a full listing of `tools`: none for a tool it lacks.
pub(crate) fn task_support_in(tools: &[Tool], name: &str) -> TaskSupport {
    tools
        .iter()
        .find(|tool| tool.name == name)
        .map_or(TaskSupport::Forbidden, Tool::get_task_support)
}

impl ToolListing {
    fn known(&self) -> MutexGuard<'_, Known> {
        self.known
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Whether the tools were listed (and have not changed since).
    pub(crate) fn is_listed(&self) -> bool {
        self.known().listed
    }

    /// The generation to hand [`replace`](Self::replace) with the listing asked for now.
    pub(crate) fn generation(&self) -> u64 {
        self.known().generation
    }

    /// The turn to list the tools again: one caller at a time, the others then find them
    /// listed.
    pub(crate) async fn refill(&self) -> tokio::sync::MutexGuard<'_, ()> {
        self.refill.lock().await
    }

    /// What a full `tools/list` said, replacing what was known, unless the list changed since
    /// `generation` was read (the listing may predate the change).
    pub(crate) fn replace(&self, tools: &[Tool], generation: u64) {
        if tools.len() > MAX_TOOLS {
            tracing::warn!(
                target: "presa_client",
                "the server lists {} tools; output schemas are kept for the first {MAX_TOOLS}",
                tools.len()
            );
        }
        let outputs = tools
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
        let tasks = tools
            .iter()
            .map(|tool| (tool, tool.get_task_support()))
            .filter(|(_, support)| *support != TaskSupport::Forbidden)
            .map(|(tool, support)| (tool.name.clone(), support))
            .collect();
        let mut known = self.known();
        if known.generation != generation {
            return;
        }
        known.listed = true;
        known.outputs = outputs;
        known.tasks = tasks;
    }

    /// Forgets the list (the server said its tools changed).
    pub(crate) fn forget(&self) {
        let mut known = self.known();
        known.listed = false;
        known.generation += 1;
        known.outputs = HashMap::new();
        known.tasks = HashMap::new();
    }

    /// Tool `name`'s task support as listed (none for a tool the full listing lacks); `None`
    /// when the tools are not listed (or changed since).
    pub(crate) fn task_support(&self, name: &str) -> Option<TaskSupport> {
        let known = self.known();
        if !known.listed {
            return None;
        }
        Some(
            known
                .tasks
                .get(name)
                .copied()
                .unwrap_or(TaskSupport::Forbidden),
        )
    }

    /// Tool `name`'s output schema, and its compiled form (`None` when the client cannot
    /// compile it: then it is not checked, and the log says so).
    fn output(&self, name: &str) -> Option<(JsonObject, Option<Arc<dyn Validator>>)> {
        let output = self.known().outputs.get(name).cloned()?;
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

    /// Checks a successful result of `tool` against the tool's output schema: a tool that has
    /// one must answer with structured content that conforms. An error result, and a result of
    /// a tool without a schema, pass. Returns whether the schema is a wrapped result's.
    pub(crate) fn check(&self, tool: &str, result: &CallToolResult) -> Result<bool, ClientError> {
        let Some((schema, validator)) = self.output(tool) else {
            return Ok(false);
        };
        if result.is_error() {
            return Ok(false);
        }
        let mismatch = |reason: String| ClientError::OutputMismatch {
            tool: tool.to_owned(),
            reason,
        };
        let Some(structured) = &result.structured_content else {
            return Err(mismatch("it has no structured content".into()));
        };
        if let Some(validator) = validator {
            validator.validate(structured).map_err(|error| {
                mismatch(format!(
                    "its structured content breaks the output schema {error}"
                ))
            })?;
        }
        Ok(is_wrapped_output_schema(&schema))
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
        let wrapped = self.check(tool, &result)?;
        let mismatch = |reason: String| ClientError::OutputMismatch {
            tool: tool.to_owned(),
            reason,
        };
        let Some(mut structured) = result.structured_content else {
            return Err(mismatch("it has no structured content".into()));
        };
        if wrapped && let Some(inner) = structured.get_mut(WRAPPED_RESULT) {
            structured = inner.take();
        }
        Out::deserialize(structured)
            .map_err(|error| mismatch(format!("it does not read as the type asked for: {error}")))
    }
}
