//! Changing a running server: tools, resources, templates and prompts added and removed while
//! serving. Each change swaps in a new set of definitions and publishes the list change.

use std::future::Future;
use std::sync::Arc;

use presa_core::{Prompt, Resource, ResourceTemplate, Tool};

use crate::context::Context;
use crate::definitions::{
    CompletionTarget, Definitions, prompt_entry, resource_entry, template_entry, tool_entry,
};
use crate::error::BuildError;
use crate::events::{Change, ListKind};
use crate::prompt::{
    CompleterFn, CompletionInput, IntoCompletion, IntoPromptResult, PromptArgs, PromptFn,
    PromptHandler,
};
use crate::resource::{
    IntoResourceContents, ResourceFn, ResourceHandler, ResourceTemplateHandler, TemplateFn,
    Variables,
};
use crate::scopes::Scoped;
use crate::server::Server;
use crate::tool::{AsyncTool, FromArguments, IntoToolResult, ToolHandler};

impl Server {
    /// Swaps in the definitions `edit` made of the current ones, if it says they changed;
    /// announces nothing. Whether they did.
    fn edit(
        &self,
        edit: impl FnOnce(&mut Definitions) -> Result<bool, BuildError>,
    ) -> Result<bool, BuildError> {
        let _changing = self
            .inner
            .changing
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let current = self.snapshot();
        let mut next = Definitions::clone(&current);
        let changed = edit(&mut next)?;
        if changed {
            next.generation = current.generation + 1;
            self.inner.definitions.store(Arc::new(next));
        }
        Ok(changed)
    }

    /// Completes an argument of a prompt while serving, as
    /// [`ServerBuilder::complete_prompt_argument`](crate::ServerBuilder::complete_prompt_argument)
    /// does before. [`BuildError::UnknownCompletionTarget`] when the prompt has no such
    /// argument. Removing the prompt removes its completions.
    pub fn add_prompt_completion<F, Fut, R>(
        &self,
        prompt: &str,
        argument: &str,
        complete: F,
    ) -> Result<(), BuildError>
    where
        F: Fn(CompletionInput, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoCompletion,
    {
        let target = CompletionTarget::Prompt(prompt.to_owned());
        let completer = Arc::new(CompleterFn(complete));
        self.edit(|d| d.add_completion(target, argument, completer).map(|()| true))
            .map(drop)
    }

    /// Completes a variable of a resource template while serving (see
    /// [`add_prompt_completion`](Self::add_prompt_completion)).
    pub fn add_template_completion<F, Fut, R>(
        &self,
        uri_template: &str,
        variable: &str,
        complete: F,
    ) -> Result<(), BuildError>
    where
        F: Fn(CompletionInput, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoCompletion,
    {
        let target = CompletionTarget::Template(uri_template.to_owned());
        let completer = Arc::new(CompleterFn(complete));
        self.edit(|d| d.add_completion(target, variable, completer).map(|()| true))
            .map(drop)
    }

    /// [`edit`](Self::edit), announcing a change of list `kind` when there was one.
    fn change(
        &self,
        kind: ListKind,
        edit: impl FnOnce(&mut Definitions) -> Result<bool, BuildError>,
    ) -> Result<bool, BuildError> {
        let changed = self.edit(edit)?;
        if changed {
            // nobody listening is fine
            self.inner.bus.publish(Change::ListChanged(kind));
        }
        Ok(changed)
    }

    /// Adds a tool with an async handler while serving.
    pub fn add_tool<F, A, Fut, R>(
        &self,
        tool: impl Into<Scoped<Tool>>,
        handler: F,
    ) -> Result<(), BuildError>
    where
        F: Fn(A, Context) -> Fut + Send + Sync + 'static,
        A: FromArguments,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoToolResult,
    {
        self.add_tool_handler(tool, Arc::new(AsyncTool::new(handler)))
    }

    /// Adds a tool whose schemas are derived from its handler's types while serving (see
    /// [`ServerBuilder::typed_tool`](crate::ServerBuilder::typed_tool)).
    #[cfg(feature = "schemars")]
    pub fn add_typed_tool<F, A, Fut, R>(
        &self,
        tool: impl Into<Scoped<Tool>>,
        handler: F,
    ) -> Result<(), BuildError>
    where
        F: Fn(A, Context) -> Fut + Send + Sync + 'static,
        A: crate::ToolInput,
        Fut: Future<Output = R> + Send + 'static,
        R: crate::ToolOutput,
    {
        let (tool, wrapped) = crate::typed::typed_definition::<A, R>(tool.into());
        self.add_tool_handler(tool, crate::typed::typed_handler(handler, wrapped))
    }

    /// [`add_typed_tool`](Self::add_typed_tool) with a plain closure (see
    /// [`ServerBuilder::typed_tool_sync`](crate::ServerBuilder::typed_tool_sync)).
    #[cfg(feature = "schemars")]
    pub fn add_typed_tool_sync<F, A, R>(
        &self,
        tool: impl Into<Scoped<Tool>>,
        handler: F,
    ) -> Result<(), BuildError>
    where
        F: Fn(A, Context) -> R + Send + Sync + 'static,
        A: crate::ToolInput,
        R: crate::ToolOutput,
    {
        let (tool, wrapped) = crate::typed::typed_definition::<A, R>(tool.into());
        self.add_tool_handler(tool, crate::typed::typed_sync_handler(handler, wrapped))
    }

    /// Adds a prompt whose arguments are the fields of a `T` while serving (see
    /// [`ServerBuilder::typed_prompt`](crate::ServerBuilder::typed_prompt)).
    #[cfg(feature = "schemars")]
    pub fn add_typed_prompt<F, T, Fut, R>(
        &self,
        prompt: impl Into<Scoped<Prompt>>,
        handler: F,
    ) -> Result<(), BuildError>
    where
        F: Fn(crate::Args<T>, Context) -> Fut + Send + Sync + 'static,
        T: serde::de::DeserializeOwned + schemars::JsonSchema + Send + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoPromptResult,
    {
        let compiler = self.inner.options.compiler.as_ref();
        let (prompt, handler) =
            crate::typed::typed_prompt::<T, F>(prompt.into(), handler, compiler)?;
        self.add_prompt_handler(prompt, Arc::new(handler))
    }

    /// Adds a resource template whose variables are read into a `T` while serving (see
    /// [`ServerBuilder::typed_resource_template`](crate::ServerBuilder::typed_resource_template)).
    #[cfg(feature = "schemars")]
    pub fn add_typed_resource_template<F, T, Fut, R>(
        &self,
        template: impl Into<Scoped<ResourceTemplate>>,
        handler: F,
    ) -> Result<(), BuildError>
    where
        F: Fn(crate::Args<T>, Context) -> Fut + Send + Sync + 'static,
        T: serde::de::DeserializeOwned + schemars::JsonSchema + Send + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoResourceContents,
    {
        let template = template.into();
        let compiler = self.inner.options.compiler.as_ref();
        let handler = crate::typed::typed_template::<T, F>(&template, handler, compiler)?;
        self.add_resource_template_handler(template, Arc::new(handler))
    }

    /// Adds a tool with an object-safe handler while serving.
    pub fn add_tool_handler(
        &self,
        tool: impl Into<Scoped<Tool>>,
        handler: Arc<dyn ToolHandler>,
    ) -> Result<(), BuildError> {
        let entry = tool_entry(tool.into(), handler, self.inner.options.compiler.as_ref())?;
        self.change(ListKind::Tools, |d| d.add_tool(entry).map(|()| true))
            .map(drop)
    }

    /// Removes a tool; `false` when there was none of that name.
    pub fn remove_tool(&self, name: &str) -> bool {
        self.change(ListKind::Tools, |d| Ok(d.remove_tool(name)))
            .unwrap_or(false)
    }

    /// Adds a resource while serving.
    pub fn add_resource<F, Fut, R>(
        &self,
        resource: impl Into<Scoped<Resource>>,
        handler: F,
    ) -> Result<(), BuildError>
    where
        F: Fn(Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoResourceContents,
    {
        self.add_resource_handler(resource, Arc::new(ResourceFn(handler)))
    }

    /// Adds a resource with an object-safe handler while serving.
    pub fn add_resource_handler(
        &self,
        resource: impl Into<Scoped<Resource>>,
        handler: Arc<dyn ResourceHandler>,
    ) -> Result<(), BuildError> {
        let entry = resource_entry(resource.into(), handler);
        self.change(ListKind::Resources, |d| {
            d.add_resource(entry).map(|()| true)
        })
        .map(drop)
    }

    /// Removes a resource; `false` when there was none with that URI.
    pub fn remove_resource(&self, uri: &str) -> bool {
        self.change(ListKind::Resources, |d| Ok(d.remove_resource(uri)))
            .unwrap_or(false)
    }

    /// Removes the resources `remove` names, then adds `add`, as one change: on an error (a URI
    /// served already) nothing changes, and clients are told of the change once.
    pub(crate) fn edit_resources(
        &self,
        remove: &[&str],
        add: Vec<(Resource, Arc<dyn ResourceHandler>)>,
    ) -> Result<(), BuildError> {
        let entries: Vec<_> = add
            .into_iter()
            .map(|(resource, handler)| resource_entry(resource.into(), handler))
            .collect();
        self.change(ListKind::Resources, |d| {
            let mut changed = false;
            for uri in remove {
                changed |= d.remove_resource(uri);
            }
            for entry in entries {
                d.add_resource(entry)?;
                changed = true;
            }
            Ok(changed)
        })
        .map(drop)
    }

    /// Adds a resource template while serving.
    pub fn add_resource_template<F, Fut, R>(
        &self,
        template: impl Into<Scoped<ResourceTemplate>>,
        handler: F,
    ) -> Result<(), BuildError>
    where
        F: Fn(Variables, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoResourceContents,
    {
        self.add_resource_template_handler(template, Arc::new(TemplateFn(handler)))
    }

    /// Adds a resource template with an object-safe handler while serving.
    pub fn add_resource_template_handler(
        &self,
        template: impl Into<Scoped<ResourceTemplate>>,
        handler: Arc<dyn ResourceTemplateHandler>,
    ) -> Result<(), BuildError> {
        let entry = template_entry(template.into(), handler)?;
        self.change(ListKind::Resources, |d| {
            d.add_template(entry).map(|()| true)
        })
        .map(drop)
    }

    /// Removes a resource template (and its completions); `false` when there was none.
    pub fn remove_resource_template(&self, uri_template: &str) -> bool {
        self.change(ListKind::Resources, |d| Ok(d.remove_template(uri_template)))
            .unwrap_or(false)
    }

    /// Adds a prompt while serving.
    pub fn add_prompt<F, Fut, R>(
        &self,
        prompt: impl Into<Scoped<Prompt>>,
        handler: F,
    ) -> Result<(), BuildError>
    where
        F: Fn(PromptArgs, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoPromptResult,
    {
        self.add_prompt_handler(prompt, Arc::new(PromptFn(handler)))
    }

    /// Adds a prompt with an object-safe handler while serving.
    pub fn add_prompt_handler(
        &self,
        prompt: impl Into<Scoped<Prompt>>,
        handler: Arc<dyn PromptHandler>,
    ) -> Result<(), BuildError> {
        let entry = prompt_entry(prompt.into(), handler);
        self.change(ListKind::Prompts, |d| d.add_prompt(entry).map(|()| true))
            .map(drop)
    }

    /// Removes a prompt (and its completions); `false` when there was none of that name.
    pub fn remove_prompt(&self, name: &str) -> bool {
        self.change(ListKind::Prompts, |d| Ok(d.remove_prompt(name)))
            .unwrap_or(false)
    }
}
