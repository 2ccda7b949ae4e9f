//! Request dispatch: `method + params + context → result`, the same for every transport.

use std::sync::Arc;

use presa_core::{
    CallToolRequestParams, CallToolResult, CompleteRequestParams, CompleteResult,
    CompletionReference, Era, ErrorObject, GetPromptRequestParams, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, META_SERVER_INFO, Meta,
    PaginatedRequestParams, RawJson, ReadResourceRequestParams, ReadResourceResult,
    ResourceNotFoundData, ResultType, paginate, to_raw,
};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::catch::catch_unwind;
use crate::context::Context;
use crate::definitions::{CompletionTarget, Definitions};
use crate::prompt::CompletionInput;
use crate::resource::ResourceOutcome;
use crate::server::Server;

impl Server {
    /// Serves one request: `method` with its raw `params`, for the client `cx` describes.
    ///
    /// This is the transport-agnostic core every connection calls. It does not handle the
    /// protocol-level methods a session answers by itself (`initialize`, `ping`,
    /// `logging/setLevel`); `server/discover` is answered for 2026-07-28 requests.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// use presa_core::Tool;
    /// use presa_server::{Context, Server};
    /// use serde_json::{json, Value};
    ///
    /// let server = Server::builder("demo", "1")
    ///     .tool(Tool::new("echo", json!({"type": "object"}).as_object().unwrap().clone()),
    ///           |args: Value, _cx: Context| async move { args })
    ///     .build()
    ///     .unwrap();
    /// let params = serde_json::value::to_raw_value(&json!({"name": "echo", "arguments": {"a": 1}})).unwrap();
    /// let result = server.handle("tools/call", Some(&params), Context::detached()).await.unwrap();
    /// let result: Value = serde_json::from_str(result.get()).unwrap();
    /// assert_eq!(result["structuredContent"], json!({"a": 1}));
    /// assert_eq!(result["resultType"], "complete");
    /// # });
    /// ```
    pub async fn handle(
        &self,
        method: &str,
        params: Option<&RawValue>,
        cx: Context,
    ) -> Result<RawJson, ErrorObject> {
        let defs = self.snapshot();
        let has_resources = !defs.resources.is_empty() || !defs.templates.is_empty();
        let modern = cx.protocol_version().era() == Era::Stateless;
        match method {
            "tools/list" if !defs.tools.is_empty() => self.list_tools(&defs, params, modern),
            "tools/call" if !defs.tools.is_empty() => self.call_tool(&defs, params, cx).await,
            "resources/list" if has_resources => self.list_resources(&defs, params, modern),
            "resources/templates/list" if has_resources => {
                self.list_templates(&defs, params, modern)
            }
            "resources/read" if has_resources => self.read_resource(&defs, params, cx).await,
            "prompts/list" if !defs.prompts.is_empty() => self.list_prompts(&defs, params, modern),
            "prompts/get" if !defs.prompts.is_empty() => self.get_prompt(&defs, params, cx).await,
            "completion/complete" if !defs.completions.is_empty() => {
                self.complete(&defs, params, cx).await
            }
            "server/discover" if modern => raw(&self.discover_result()),
            _ => Err(ErrorObject::method_not_found(method)),
        }
    }

    /// Stamps a 2026-07-28 result: `resultType`, the server's identity, and (for cacheable
    /// results) the caching hints. Initialize-era results get none of these.
    fn stamp(&self, modern: bool, result_type: &mut Option<ResultType>, meta: &mut Option<Meta>) {
        if !modern {
            return;
        }
        if result_type.is_none() {
            *result_type = Some(ResultType::Complete);
        }
        if self.inner.options.server_info_in_meta {
            let info = serde_json::to_value(&self.inner.info).unwrap_or(Value::Null);
            meta.get_or_insert_with(Meta::new)
                .entry(META_SERVER_INFO)
                .or_insert(info);
        }
    }

    fn cache_hints(&self, modern: bool) -> (Option<u64>, Option<presa_core::CacheScope>) {
        if modern {
            (
                Some(self.inner.options.cache_ttl_ms),
                Some(self.inner.options.cache_scope),
            )
        } else {
            (None, None)
        }
    }

    fn page<'a, T>(
        &self,
        defs: &Definitions,
        items: &'a [T],
        params: Option<&RawValue>,
    ) -> Result<(&'a [T], Option<String>), ErrorObject> {
        let params: PaginatedRequestParams = parse(params)?;
        let page = paginate(
            items.len(),
            params.cursor.as_deref(),
            self.inner.options.page_size,
            defs.generation,
        )?;
        let (range, next) = page.into_parts();
        Ok((items.get(range).unwrap_or_default(), next))
    }

    fn list_tools(
        &self,
        defs: &Definitions,
        params: Option<&RawValue>,
        modern: bool,
    ) -> Result<RawJson, ErrorObject> {
        let (page, next_cursor) = self.page(defs, &defs.tools, params)?;
        let (ttl_ms, cache_scope) = self.cache_hints(modern);
        let mut result = ListToolsResult {
            tools: page.iter().map(|t| t.tool.clone()).collect(),
            next_cursor,
            ttl_ms,
            cache_scope,
            ..Default::default()
        };
        self.stamp(modern, &mut result.result_type, &mut result.meta);
        raw(&result)
    }

    fn list_resources(
        &self,
        defs: &Definitions,
        params: Option<&RawValue>,
        modern: bool,
    ) -> Result<RawJson, ErrorObject> {
        let (page, next_cursor) = self.page(defs, &defs.resources, params)?;
        let (ttl_ms, cache_scope) = self.cache_hints(modern);
        let mut result = ListResourcesResult {
            resources: page.iter().map(|r| r.resource.clone()).collect(),
            next_cursor,
            ttl_ms,
            cache_scope,
            ..Default::default()
        };
        self.stamp(modern, &mut result.result_type, &mut result.meta);
        raw(&result)
    }

    fn list_templates(
        &self,
        defs: &Definitions,
        params: Option<&RawValue>,
        modern: bool,
    ) -> Result<RawJson, ErrorObject> {
        let (page, next_cursor) = self.page(defs, &defs.templates, params)?;
        let (ttl_ms, cache_scope) = self.cache_hints(modern);
        let mut result = ListResourceTemplatesResult {
            resource_templates: page.iter().map(|t| t.template.clone()).collect(),
            next_cursor,
            ttl_ms,
            cache_scope,
            ..Default::default()
        };
        self.stamp(modern, &mut result.result_type, &mut result.meta);
        raw(&result)
    }

    fn list_prompts(
        &self,
        defs: &Definitions,
        params: Option<&RawValue>,
        modern: bool,
    ) -> Result<RawJson, ErrorObject> {
        let (page, next_cursor) = self.page(defs, &defs.prompts, params)?;
        let (ttl_ms, cache_scope) = self.cache_hints(modern);
        let mut result = ListPromptsResult {
            prompts: page.iter().map(|p| p.prompt.clone()).collect(),
            next_cursor,
            ttl_ms,
            cache_scope,
            ..Default::default()
        };
        self.stamp(modern, &mut result.result_type, &mut result.meta);
        raw(&result)
    }

    async fn call_tool(
        &self,
        defs: &Definitions,
        params: Option<&RawValue>,
        cx: Context,
    ) -> Result<RawJson, ErrorObject> {
        let params: CallToolRequestParams = parse(params)?;
        let Some(entry) = defs.tool(&params.name) else {
            return Err(ErrorObject::invalid_params(format!(
                "Unknown tool: {}",
                params.name
            )));
        };
        let entry = Arc::clone(entry);
        let modern = cx.protocol_version().era() == Era::Stateless;
        let arguments = params.arguments.unwrap_or_default();
        let mut result = match entry
            .input
            .as_ref()
            .map(|v| v.validate_all(&Value::Object(arguments.clone())))
        {
            Some(Err(errors)) => {
                let lines: Vec<_> = errors
                    .iter()
                    .map(|e| format!("Invalid arguments {e}"))
                    .collect();
                CallToolResult::error(lines.join("\n"))
            }
            _ => {
                let handler = Arc::clone(&entry.handler);
                match catch_unwind(handler.call(arguments, cx)).await {
                    Ok(Ok(result)) => result,
                    Ok(Err(error)) => return Err(error),
                    Err(panic) => CallToolResult::error(panic),
                }
            }
        };
        if let (Some(validator), false) = (&entry.output, result.is_error()) {
            match &result.structured_content {
                Some(structured) => {
                    if let Err(errors) = validator.validate_all(structured) {
                        let lines: Vec<_> = errors
                            .iter()
                            .map(|e| format!("Invalid structured result {e}"))
                            .collect();
                        result = CallToolResult::error(lines.join("\n"));
                    }
                }
                None => {
                    result = CallToolResult::error(format!(
                        "Tool {} declares an output schema but returned no structured content",
                        entry.tool.name
                    ));
                }
            }
        }
        self.stamp(modern, &mut result.result_type, &mut result.meta);
        raw(&result)
    }

    async fn read_resource(
        &self,
        defs: &Definitions,
        params: Option<&RawValue>,
        cx: Context,
    ) -> Result<RawJson, ErrorObject> {
        let params: ReadResourceRequestParams = parse(params)?;
        let version = cx.protocol_version();
        let modern = version.era() == Era::Stateless;
        let outcome = if let Some(entry) = defs.resource(&params.uri) {
            let future =
                entry
                    .handler
                    .read(params.uri.clone(), entry.resource.mime_type.clone(), cx);
            catch_unwind(future).await
        } else if let Some((entry, variables)) = defs.match_template(&params.uri) {
            let future = entry.handler.read(
                params.uri.clone(),
                variables,
                entry.template.mime_type.clone(),
                cx,
            );
            catch_unwind(future).await
        } else {
            Ok(ResourceOutcome::NotFound)
        };
        let contents = match outcome {
            Ok(ResourceOutcome::Found(contents)) => contents,
            Ok(ResourceOutcome::NotFound) => {
                return Err(ResourceNotFoundData { uri: params.uri }.into_error(modern));
            }
            Ok(ResourceOutcome::Error(error)) => return Err(error),
            Err(panic) => return Err(ErrorObject::internal_error(panic)),
        };
        let (ttl_ms, cache_scope) = self.cache_hints(modern);
        let mut result = ReadResourceResult {
            contents,
            ttl_ms,
            cache_scope,
            ..Default::default()
        };
        self.stamp(modern, &mut result.result_type, &mut result.meta);
        raw(&result)
    }

    async fn get_prompt(
        &self,
        defs: &Definitions,
        params: Option<&RawValue>,
        cx: Context,
    ) -> Result<RawJson, ErrorObject> {
        let params: GetPromptRequestParams = parse(params)?;
        let Some(entry) = defs.prompt(&params.name) else {
            return Err(ErrorObject::invalid_params(format!(
                "Unknown prompt: {}",
                params.name
            )));
        };
        let arguments = params.arguments.unwrap_or_default();
        let missing: Vec<&str> = entry
            .prompt
            .arguments
            .iter()
            .flatten()
            .filter(|a| a.required == Some(true) && !arguments.contains_key(&a.name))
            .map(|a| a.name.as_str())
            .collect();
        if !missing.is_empty() {
            let noun = if missing.len() == 1 {
                "argument"
            } else {
                "arguments"
            };
            return Err(ErrorObject::invalid_params(format!(
                "Missing required {noun} for prompt {}: {}",
                params.name,
                missing.join(", ")
            )));
        }
        let modern = cx.protocol_version().era() == Era::Stateless;
        let mut result = match catch_unwind(entry.handler.get(arguments, cx)).await {
            Ok(result) => result?,
            Err(panic) => return Err(ErrorObject::internal_error(panic)),
        };
        self.stamp(modern, &mut result.result_type, &mut result.meta);
        raw(&result)
    }

    async fn complete(
        &self,
        defs: &Definitions,
        params: Option<&RawValue>,
        cx: Context,
    ) -> Result<RawJson, ErrorObject> {
        let params: CompleteRequestParams = parse(params)?;
        let target = match &params.reference {
            CompletionReference::Prompt(p) => {
                if defs.prompt(&p.name).is_none() {
                    return Err(ErrorObject::invalid_params(format!(
                        "Unknown prompt: {}",
                        p.name
                    )));
                }
                CompletionTarget::Prompt(p.name.clone())
            }
            CompletionReference::Resource(r) => {
                if defs.template(&r.uri).is_none() && defs.resource(&r.uri).is_none() {
                    return Err(ErrorObject::invalid_params(format!(
                        "Unknown resource template: {}",
                        r.uri
                    )));
                }
                CompletionTarget::Template(r.uri.clone())
            }
            _ => {
                return Err(ErrorObject::invalid_params(
                    "Unsupported completion reference",
                ));
            }
        };
        let modern = cx.protocol_version().era() == Era::Stateless;
        let completion = match defs.completer(&target, &params.argument.name) {
            Some(completer) => {
                let input = CompletionInput {
                    argument: params.argument.name.clone(),
                    value: params.argument.value.clone(),
                    arguments: params.context.and_then(|c| c.arguments).unwrap_or_default(),
                };
                match catch_unwind(completer.complete(input, cx)).await {
                    Ok(completion) => completion,
                    Err(panic) => return Err(ErrorObject::internal_error(panic)),
                }
            }
            None => presa_core::Completion::default(),
        };
        let mut result = CompleteResult {
            completion,
            ..Default::default()
        };
        self.stamp(modern, &mut result.result_type, &mut result.meta);
        raw(&result)
    }
}

fn parse<T: DeserializeOwned>(params: Option<&RawValue>) -> Result<T, ErrorObject> {
    serde_json::from_str(params.map_or("{}", RawValue::get))
        .map_err(|e| ErrorObject::invalid_params(format!("Invalid params: {e}")))
}

fn raw(result: &impl Serialize) -> Result<RawJson, ErrorObject> {
    to_raw(result)
        .map_err(|e| ErrorObject::internal_error(format!("result could not be serialized: {e}")))
}
