//! The immutable snapshot of a server's definitions, and how one is checked and changed.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, OnceLock};

use presa_core::{
    Era, JsonObject, ListChangedCapability, ParamHeaders, Prompt, RawJson, Resource,
    ResourceTemplate, ResourcesCapability, ServerCapabilities, ServerSessionConfig, Tool,
    UriTemplate,
};
use presa_schema::{SchemaError, Validator};
use serde_json::Value;

use crate::error::{BuildError, DefinitionKind, SchemaRole};
use crate::prompt::{Completer, PromptHandler};
use crate::resource::{ResourceHandler, ResourceTemplateHandler, Variables};
use crate::scopes::Scoped;
use crate::tool::ToolHandler;

/// Compiles a JSON Schema into a validator (the server's `schema_compiler` option).
pub type SchemaCompiler =
    Arc<dyn Fn(&Value) -> Result<Box<dyn Validator>, SchemaError> + Send + Sync>;

pub(crate) struct ToolEntry {
    pub(crate) tool: Tool,
    pub(crate) input: Option<Box<dyn Validator>>,
    pub(crate) output: Option<Box<dyn Validator>>,
    pub(crate) headers: ParamHeaders,
    pub(crate) scopes: Vec<String>,
    pub(crate) handler: Arc<dyn ToolHandler>,
    /// `gen_ai.tool.name`, made once, and the measures bound to it.
    #[cfg(feature = "otel")]
    pub(crate) named: crate::metrics::Named,
}

pub(crate) struct ResourceEntry {
    pub(crate) resource: Resource,
    pub(crate) scopes: Vec<String>,
    pub(crate) handler: Arc<dyn ResourceHandler>,
}

pub(crate) struct TemplateEntry {
    pub(crate) template: ResourceTemplate,
    pub(crate) parsed: UriTemplate,
    pub(crate) scopes: Vec<String>,
    pub(crate) handler: Arc<dyn ResourceTemplateHandler>,
}

pub(crate) struct PromptEntry {
    pub(crate) prompt: Prompt,
    pub(crate) scopes: Vec<String>,
    pub(crate) handler: Arc<dyn PromptHandler>,
    /// `gen_ai.prompt.name`, made once, and the measures bound to it.
    #[cfg(feature = "otel")]
    pub(crate) named: crate::metrics::Named,
}

/// What a completion belongs to.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum CompletionTarget {
    Prompt(String),
    Template(String),
}

/// One immutable set of definitions. Each request reads one snapshot; a change builds the next.
#[derive(Clone, Default)]
pub(crate) struct Definitions {
    pub(crate) generation: u64,
    pub(crate) tools: Vec<Arc<ToolEntry>>,
    tool_index: HashMap<String, usize>,
    pub(crate) resources: Vec<Arc<ResourceEntry>>,
    resource_index: HashMap<String, usize>,
    pub(crate) templates: Vec<Arc<TemplateEntry>>,
    pub(crate) prompts: Vec<Arc<PromptEntry>>,
    prompt_index: HashMap<String, usize>,
    pub(crate) completions: HashMap<(CompletionTarget, String), Arc<dyn Completer>>,
    /// What is made once per snapshot; a change starts the next snapshot with an empty one.
    pub(crate) cache: SnapshotCache,
}

/// Made from one snapshot on first use and kept with it: the session configuration and each
/// list page's JSON, per era.
#[derive(Default)]
pub(crate) struct SnapshotCache {
    pub(crate) session_config: OnceLock<Arc<ServerSessionConfig>>,
    /// By [`ListSlot`] and [`ListShape`]: one slot per page, filled when the page is first
    /// asked for.
    pages: [OnceLock<Box<[OnceLock<RawJson>]>>; 12],
}

impl Clone for SnapshotCache {
    /// A clone is the start of another snapshot: nothing of this one applies to it.
    fn clone(&self) -> Self {
        Self::default()
    }
}

/// The four lists whose pages are cached.
#[derive(Clone, Copy, Debug)]
pub(crate) enum ListSlot {
    Tools,
    Resources,
    Templates,
    Prompts,
}

/// The shapes a list page is served in: 2026-07-28's, and the initialize era's with or without
/// 2025-11-25's tasks (a tool's `execution.taskSupport` is listed there only).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ListShape {
    Stateless,
    Initialize,
    InitializeWithTasks,
}

impl ListShape {
    pub(crate) fn of(version: presa_core::ProtocolVersion) -> Self {
        match (version.era(), version.tasks()) {
            (Era::Stateless, _) => Self::Stateless,
            (Era::Initialize, Some(presa_core::TasksFlavor::Experimental)) => {
                Self::InitializeWithTasks
            }
            (Era::Initialize, _) => Self::Initialize,
        }
    }
}

impl SnapshotCache {
    /// The cache slot of page `index` of a list of `pages` pages, served in `shape`.
    pub(crate) fn page(
        &self,
        list: ListSlot,
        shape: ListShape,
        pages: usize,
        index: usize,
    ) -> Option<&OnceLock<RawJson>> {
        let slot = list as usize * 3 + shape as usize;
        self.pages
            .get(slot)?
            .get_or_init(|| (0..pages).map(|_| OnceLock::new()).collect())
            .get(index)
    }
}

impl fmt::Debug for Definitions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Definitions")
            .field("generation", &self.generation)
            .field(
                "tools",
                &self.tools.iter().map(|t| &t.tool.name).collect::<Vec<_>>(),
            )
            .field(
                "resources",
                &self
                    .resources
                    .iter()
                    .map(|r| &r.resource.uri)
                    .collect::<Vec<_>>(),
            )
            .field(
                "templates",
                &self
                    .templates
                    .iter()
                    .map(|t| &t.template.uri_template)
                    .collect::<Vec<_>>(),
            )
            .field(
                "prompts",
                &self
                    .prompts
                    .iter()
                    .map(|p| &p.prompt.name)
                    .collect::<Vec<_>>(),
            )
            .finish()
    }
}

/// Whether `name` follows the tool naming rules: 1–128 of `A-Z a-z 0-9 _ - .`.
pub fn is_valid_tool_name(name: &str) -> bool {
    (1..=128).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}

impl Definitions {
    pub(crate) fn tool(&self, name: &str) -> Option<&Arc<ToolEntry>> {
        self.tool_index.get(name).and_then(|&i| self.tools.get(i))
    }

    pub(crate) fn resource(&self, uri: &str) -> Option<&Arc<ResourceEntry>> {
        self.resource_index
            .get(uri)
            .and_then(|&i| self.resources.get(i))
    }

    pub(crate) fn prompt(&self, name: &str) -> Option<&Arc<PromptEntry>> {
        self.prompt_index
            .get(name)
            .and_then(|&i| self.prompts.get(i))
    }

    pub(crate) fn template(&self, uri_template: &str) -> Option<&Arc<TemplateEntry>> {
        self.templates
            .iter()
            .find(|t| t.template.uri_template == uri_template)
    }

    /// The first template (in registration order) that matches `uri`, with its variables.
    pub(crate) fn match_template(&self, uri: &str) -> Option<(&Arc<TemplateEntry>, Variables)> {
        self.templates
            .iter()
            .find_map(|t| t.parsed.match_uri(uri).map(|vars| (t, vars)))
    }

    pub(crate) fn completer(
        &self,
        target: &CompletionTarget,
        argument: &str,
    ) -> Option<&Arc<dyn Completer>> {
        self.completions.get(&(target.clone(), argument.to_owned()))
    }

    /// Which kinds of definition the server declares, and so serves: the one rule behind both
    /// its capabilities and its dispatch. A server whose lists change may go from none to some,
    /// so it declares every list, and clients list what it adds later.
    pub(crate) fn declared(&self, list_changed: bool) -> Declared {
        Declared {
            tools: list_changed || !self.tools.is_empty(),
            prompts: list_changed || !self.prompts.is_empty(),
            resources: list_changed || !self.resources.is_empty() || !self.templates.is_empty(),
            completions: !self.completions.is_empty(),
            tasks: self
                .tools
                .iter()
                .any(|t| t.tool.get_task_support() != presa_core::TaskSupport::Forbidden),
        }
    }

    /// The capabilities these definitions call for.
    pub(crate) fn capabilities(
        &self,
        list_changed: bool,
        subscribe: bool,
        logging: bool,
    ) -> ServerCapabilities {
        let list = || ListChangedCapability {
            list_changed: list_changed.then_some(true),
            ..Default::default()
        };
        let declared = self.declared(list_changed);
        ServerCapabilities {
            tools: declared.tools.then(list),
            prompts: declared.prompts.then(list),
            resources: declared.resources.then(|| ResourcesCapability {
                subscribe: subscribe.then_some(true),
                list_changed: list_changed.then_some(true),
                ..Default::default()
            }),
            completions: declared.completions.then(JsonObject::new),
            logging: logging.then(JsonObject::new),
            // each revision sees its own form (ServerCapabilities::for_version)
            tasks: declared.tasks.then(|| presa_core::ServerTasksCapability {
                list: Some(JsonObject::new()),
                cancel: Some(JsonObject::new()),
                requests: Some(presa_core::ServerTaskRequests {
                    tools: Some(
                        serde_json::json!({"call": {}})
                            .as_object()
                            .cloned()
                            .unwrap_or_default(),
                    ),
                    ..Default::default()
                }),
                ..Default::default()
            }),
            extensions: declared.tasks.then(|| {
                let mut extensions = JsonObject::new();
                extensions.insert(presa_core::TASKS_EXTENSION.into(), serde_json::json!({}));
                extensions
            }),
            ..Default::default()
        }
    }

    // ----- changes (each on a clone that becomes the next snapshot) -----

    pub(crate) fn add_tool(&mut self, entry: ToolEntry) -> Result<(), BuildError> {
        let name = entry.tool.name.clone();
        if self.tool_index.contains_key(&name) {
            return Err(BuildError::Duplicate {
                kind: DefinitionKind::Tool,
                name,
            });
        }
        self.tool_index.insert(name, self.tools.len());
        self.tools.push(Arc::new(entry));
        Ok(())
    }

    pub(crate) fn remove_tool(&mut self, name: &str) -> bool {
        let removed = remove(&mut self.tools, |t| t.tool.name == name);
        if removed {
            self.tool_index = index(&self.tools, |t| t.tool.name.clone());
        }
        removed
    }

    pub(crate) fn add_resource(&mut self, entry: ResourceEntry) -> Result<(), BuildError> {
        let uri = entry.resource.uri.clone();
        if self.resource_index.contains_key(&uri) {
            return Err(BuildError::Duplicate {
                kind: DefinitionKind::Resource,
                name: uri,
            });
        }
        self.resource_index.insert(uri, self.resources.len());
        self.resources.push(Arc::new(entry));
        Ok(())
    }

    pub(crate) fn remove_resource(&mut self, uri: &str) -> bool {
        let removed = remove(&mut self.resources, |r| r.resource.uri == uri);
        if removed {
            self.resource_index = index(&self.resources, |r| r.resource.uri.clone());
        }
        removed
    }

    pub(crate) fn add_template(&mut self, entry: TemplateEntry) -> Result<(), BuildError> {
        if self.template(&entry.template.uri_template).is_some() {
            return Err(BuildError::Duplicate {
                kind: DefinitionKind::ResourceTemplate,
                name: entry.template.uri_template,
            });
        }
        self.templates.push(Arc::new(entry));
        Ok(())
    }

    pub(crate) fn remove_template(&mut self, uri_template: &str) -> bool {
        let removed = remove(&mut self.templates, |t| {
            t.template.uri_template == uri_template
        });
        if removed {
            self.completions.retain(|(target, _), _| {
                *target != CompletionTarget::Template(uri_template.to_owned())
            });
        }
        removed
    }

    pub(crate) fn add_prompt(&mut self, entry: PromptEntry) -> Result<(), BuildError> {
        let name = entry.prompt.name.clone();
        if self.prompt_index.contains_key(&name) {
            return Err(BuildError::Duplicate {
                kind: DefinitionKind::Prompt,
                name,
            });
        }
        self.prompt_index.insert(name, self.prompts.len());
        self.prompts.push(Arc::new(entry));
        Ok(())
    }

    pub(crate) fn remove_prompt(&mut self, name: &str) -> bool {
        let removed = remove(&mut self.prompts, |p| p.prompt.name == name);
        if removed {
            self.prompt_index = index(&self.prompts, |p| p.prompt.name.clone());
            self.completions
                .retain(|(target, _), _| *target != CompletionTarget::Prompt(name.to_owned()));
        }
        removed
    }

    /// Registers a completion for an argument of a prompt or a variable of a template that exists.
    pub(crate) fn add_completion(
        &mut self,
        target: CompletionTarget,
        argument: &str,
        completer: Arc<dyn Completer>,
    ) -> Result<(), BuildError> {
        let known = match &target {
            CompletionTarget::Prompt(name) => self.prompt(name).is_some_and(|p| {
                p.prompt
                    .arguments
                    .iter()
                    .flatten()
                    .any(|a| a.name == argument)
            }),
            CompletionTarget::Template(uri) => self
                .template(uri)
                .is_some_and(|t| t.parsed.variables().any(|v| v == argument)),
        };
        if !known {
            let (CompletionTarget::Prompt(name) | CompletionTarget::Template(name)) = target;
            return Err(BuildError::UnknownCompletionTarget {
                target: name,
                argument: argument.to_owned(),
            });
        }
        self.completions
            .insert((target, argument.to_owned()), completer);
        Ok(())
    }
}

fn remove<T>(list: &mut Vec<Arc<T>>, is_it: impl Fn(&T) -> bool) -> bool {
    let before = list.len();
    list.retain(|e| !is_it(e));
    list.len() != before
}

fn index<T>(list: &[Arc<T>], key: impl Fn(&T) -> String) -> HashMap<String, usize> {
    list.iter().enumerate().map(|(i, e)| (key(e), i)).collect()
}

/// A resource with its scopes.
pub(crate) fn resource_entry(
    resource: Scoped<Resource>,
    handler: Arc<dyn ResourceHandler>,
) -> ResourceEntry {
    ResourceEntry {
        resource: resource.definition,
        scopes: resource.scopes,
        handler,
    }
}

/// A prompt with its scopes.
pub(crate) fn prompt_entry(prompt: Scoped<Prompt>, handler: Arc<dyn PromptHandler>) -> PromptEntry {
    PromptEntry {
        #[cfg(feature = "otel")]
        named: crate::metrics::Named::new(presa_core::SpanTarget::Prompt, &prompt.definition.name),
        prompt: prompt.definition,
        scopes: prompt.scopes,
        handler,
    }
}

/// The kinds of definition a server declares in its capabilities and serves (see
/// [`Definitions::declared`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Declared {
    pub(crate) tools: bool,
    pub(crate) prompts: bool,
    pub(crate) resources: bool,
    pub(crate) completions: bool,
    /// A tool runs as a task (when the client allows it, or always).
    pub(crate) tasks: bool,
}

/// Checks a tool and compiles its schemas.
pub(crate) fn tool_entry(
    tool: Scoped<Tool>,
    handler: Arc<dyn ToolHandler>,
    compiler: Option<&SchemaCompiler>,
) -> Result<ToolEntry, BuildError> {
    let Scoped {
        definition: tool,
        scopes,
    } = tool;
    if !is_valid_tool_name(&tool.name) {
        return Err(BuildError::InvalidToolName { name: tool.name });
    }
    if tool.input_schema.get("type") != Some(&Value::String("object".into())) {
        return Err(BuildError::InputSchemaNotObject { tool: tool.name });
    }
    let input_schema = Value::Object(tool.input_schema.clone());
    let headers = ParamHeaders::from_input_schema(&input_schema).map_err(|error| {
        BuildError::HeaderAnnotation {
            tool: tool.name.clone(),
            error,
        }
    })?;
    let compile = |schema: &Value, which: SchemaRole| match compiler {
        Some(compile) => compile(schema)
            .map(Some)
            .map_err(|error| BuildError::Schema {
                tool: tool.name.clone(),
                which,
                error,
            }),
        None => Ok(None),
    };
    let input = compile(&input_schema, SchemaRole::Input)?;
    let output = match &tool.output_schema {
        Some(schema) => compile(&Value::Object(schema.clone()), SchemaRole::Output)?,
        None => None,
    };
    Ok(ToolEntry {
        #[cfg(feature = "otel")]
        named: crate::metrics::Named::new(presa_core::SpanTarget::Tool, &tool.name),
        tool,
        input,
        output,
        headers,
        scopes,
        handler,
    })
}

/// Checks a resource template.
pub(crate) fn template_entry(
    template: Scoped<ResourceTemplate>,
    handler: Arc<dyn ResourceTemplateHandler>,
) -> Result<TemplateEntry, BuildError> {
    let Scoped {
        definition: template,
        scopes,
    } = template;
    let parsed =
        UriTemplate::parse(&template.uri_template).map_err(|error| BuildError::UriTemplate {
            template: template.uri_template.clone(),
            error,
        })?;
    Ok(TemplateEntry {
        template,
        parsed,
        scopes,
        handler,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_names_follow_the_naming_rules() {
        for good in ["add", "get_weather", "a.b-c_D9", &"x".repeat(128)] {
            assert!(is_valid_tool_name(good), "{good}");
        }
        for bad in ["", "has space", "comma,", "slash/", "ünï", &"x".repeat(129)] {
            assert!(!is_valid_tool_name(bad), "{bad}");
        }
    }
}
