//! The typed calls of [`Client`]: discover, list (page by page or all pages), call, read, get,
//! complete, and the generic and raw requests.

use std::collections::{BTreeMap, HashSet};

use presa_core::{
    CallTool, CallToolResult, CompleteRequestParams, CompleteResult, CompletionContext,
    CompletionReference, DiscoverResult, GetPrompt, GetPromptResult, HasResultType,
    ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, Prompt,
    RawJson, ReadResource, ReadResourceResult, RequestMethod, Resource, ResourceTemplate,
    ResultType, Tool,
};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use tokio::time::Instant;

use crate::cache::{self, CacheKey, Cacheable};
use crate::mrtr::call_with_input;
use crate::params::{object_or_null, tool_params};
use crate::{CallBuilder, CallOptions, Client, ClientError};

/// Listing all pages stops with an error after this many pages.
pub(crate) const MAX_PAGES: usize = 10_000;

/// One page of a paginated list.
trait Page: DeserializeOwned + HasResultType + Cacheable + Send + 'static {
    const METHOD: &'static str;
    type Item: Send + 'static;
    fn into_parts(self) -> (Vec<Self::Item>, Option<String>);
}

macro_rules! pages {
    ($($page:ty => $item:ty, $method:expr, $field:ident;)*) => {$(
        impl Page for $page {
            const METHOD: &'static str = $method;
            type Item = $item;
            fn into_parts(self) -> (Vec<$item>, Option<String>) {
                (self.$field, self.next_cursor)
            }
        }
    )*};
}

pages! {
    ListToolsResult => Tool, cache::TOOLS, tools;
    ListPromptsResult => Prompt, cache::PROMPTS, prompts;
    ListResourcesResult => Resource, cache::RESOURCES, resources;
    ListResourceTemplatesResult => ResourceTemplate, cache::TEMPLATES, resource_templates;
}

impl Client {
    /// `server/discover` (2026-07-28): the server's revisions, capabilities and identity. Served
    /// from the cache while fresh. Initialize-era servers answer with an error (`-32601`).
    pub fn discover(&self) -> CallBuilder<DiscoverResult> {
        CallBuilder::new(self, |client, options| {
            Box::pin(async move {
                let key = CacheKey::new(cache::DISCOVER, None);
                cached(&client, key, None, &options).await
            })
        })
    }

    /// Every tool, following `nextCursor` until a page has none.
    pub fn list_tools(&self) -> CallBuilder<Vec<Tool>> {
        self.list_all::<ListToolsResult>()
    }

    /// One page of tools: the first for `None`, else the page after that cursor (`Some("")`
    /// is a cursor too).
    pub fn list_tools_page(&self, cursor: Option<String>) -> CallBuilder<ListToolsResult> {
        self.list_page(cursor)
    }

    /// Every prompt, following `nextCursor` until a page has none.
    pub fn list_prompts(&self) -> CallBuilder<Vec<Prompt>> {
        self.list_all::<ListPromptsResult>()
    }

    /// One page of prompts.
    pub fn list_prompts_page(&self, cursor: Option<String>) -> CallBuilder<ListPromptsResult> {
        self.list_page(cursor)
    }

    /// Every resource, following `nextCursor` until a page has none.
    pub fn list_resources(&self) -> CallBuilder<Vec<Resource>> {
        self.list_all::<ListResourcesResult>()
    }

    /// One page of resources.
    pub fn list_resources_page(&self, cursor: Option<String>) -> CallBuilder<ListResourcesResult> {
        self.list_page(cursor)
    }

    /// Every resource template, following `nextCursor` until a page has none.
    pub fn list_resource_templates(&self) -> CallBuilder<Vec<ResourceTemplate>> {
        self.list_all::<ListResourceTemplatesResult>()
    }

    /// One page of resource templates.
    pub fn list_resource_templates_page(
        &self,
        cursor: Option<String>,
    ) -> CallBuilder<ListResourceTemplatesResult> {
        self.list_page(cursor)
    }

    /// `tools/call`: calls tool `name` with `arguments`, anything that serializes to a JSON
    /// object (or to `null`, e.g. `()`, for none).
    ///
    /// A tool that failed answers `Ok` with `is_error: Some(true)` (its message is in the
    /// content); `Err` means the call itself failed (unknown tool, transport, timeout, …).
    pub fn call_tool(
        &self,
        name: impl Into<String>,
        arguments: impl Serialize,
    ) -> CallBuilder<CallToolResult> {
        let params = tool_params(name.into(), &arguments);
        CallBuilder::new(self, |client, options| {
            Box::pin(async move {
                offered(&client, CallTool::METHOD)?;
                // a task the server runs the call as is waited for (see `start_tool`)
                match client.start_tool_with(params?, &options).await? {
                    crate::ToolCall::Complete(result) => Ok(result),
                    crate::ToolCall::Task(task) => task.wait().await,
                }
            })
        })
    }

    /// `tools/call` with a typed result: `arguments` serialized as the call's arguments, and
    /// the tool's `structuredContent` checked against its `outputSchema` and read as `Out`.
    ///
    /// The output schema is the one the server listed for the tool: the first typed call lists
    /// the tools (again after `notifications/tools/list_changed`); a tool missing from the list
    /// is called unchecked. When the output schema is a wrapped result's (`{"result": <value>}`,
    /// how a server sends a result that is not an object), `Out` is read from the value. Errors keep the causes
    /// apart: the server's JSON-RPC error is [`ClientError::Server`], the tool's error result
    /// [`ClientError::ToolFailed`], a result that does not match
    /// [`ClientError::OutputMismatch`].
    ///
    /// ```no_run
    /// # async fn demo(client: presa_client::Client) -> Result<(), presa_client::ClientError> {
    /// #[derive(serde::Deserialize)]
    /// struct Sum { sum: f64 }
    ///
    /// let sum: Sum = client.call_tool_as("add", serde_json::json!({"numbers": [1, 2]})).await?;
    /// assert_eq!(sum.sum, 3.0);
    /// # Ok(()) }
    /// ```
    pub fn call_tool_as<Out: DeserializeOwned + Send + 'static>(
        &self,
        name: impl Into<String>,
        arguments: impl Serialize,
    ) -> CallBuilder<Out> {
        self.call_listed(name.into(), arguments, |listing, name, result| {
            listing.read(name, result)
        })
    }

    /// `tools/call` with the result checked as a typed call checks it, but kept whole: a tool
    /// with an `outputSchema` must answer a successful call with structured content that
    /// conforms, else [`ClientError::OutputMismatch`]. An error result (`isError: true`) is
    /// returned as it is. What a generic client (an inspector, a command line) wants: every
    /// block of the result, and the server held to its schema.
    pub fn call_tool_checked(
        &self,
        name: impl Into<String>,
        arguments: impl Serialize,
    ) -> CallBuilder<CallToolResult> {
        self.call_listed(name.into(), arguments, |listing, name, result| {
            listing.check(name, &result).map(|_| result)
        })
    }

    /// `tools/call` with the tools listed first (their output schemas come from the list),
    /// its result made into a `T` by `finish` with the listing.
    fn call_listed<T: Send + 'static>(
        &self,
        name: String,
        arguments: impl Serialize,
        finish: fn(&crate::output::ToolListing, &str, CallToolResult) -> Result<T, ClientError>,
    ) -> CallBuilder<T> {
        let call = self.call_tool(name.clone(), arguments);
        CallBuilder::new(self, move |client, options| {
            Box::pin(async move {
                if !client.tool_listing().is_listed() {
                    // the output schemas come from the server's list
                    client.list_tools_again(&options).await?;
                }
                let result = call.options(options).await?;
                finish(client.tool_listing(), &name, result)
            })
        })
    }

    /// Lists the tools in full into the client's [`ToolListing`](crate::output::ToolListing)
    /// (kept unless the list changed meanwhile) and returns them, one caller at a time: `None`
    /// when another caller listed them while this one waited for its turn.
    pub(crate) async fn list_tools_again(
        &self,
        options: &CallOptions,
    ) -> Result<Option<Vec<Tool>>, ClientError> {
        let listing = self.tool_listing();
        // waiting for another caller's listing counts against this call's timeout
        let _turn = match options.get_timeout().or_else(|| self.request_timeout()) {
            Some(limit) => tokio::time::timeout(limit, listing.refill())
                .await
                .map_err(|_| ClientError::TimedOut)?,
            None => listing.refill().await,
        };
        if listing.is_listed() {
            return Ok(None);
        }
        let generation = listing.generation();
        let tools = self.list_tools().options(options.clone()).await?;
        listing.replace(&tools, generation);
        Ok(Some(tools))
    }

    /// `resources/read`: reads the resource at `uri`. Served from the cache while fresh.
    ///
    /// A missing resource is an error for which
    /// [`ClientError::is_resource_not_found`] holds.
    pub fn read_resource(&self, uri: impl Into<String>) -> CallBuilder<ReadResourceResult> {
        let uri = uri.into();
        CallBuilder::new(self, |client, options| {
            Box::pin(async move {
                offered(&client, ReadResource::METHOD)?;
                let key = CacheKey::new(cache::READ, Some(uri.clone()));
                let (generation, hit) = lookup(&client, &key, &options);
                if let Some(raw) = hit {
                    return parse(&raw);
                }
                let mut params = Map::new();
                params.insert("uri".into(), Value::String(uri));
                let done = call_with_input::<ReadResourceResult>(
                    &client,
                    ReadResource::METHOD,
                    params,
                    &options,
                )
                .await?;
                if let (Some(generation), true) = (generation, done.first_round) {
                    store(&client, key, done.raw, &done.result, generation);
                }
                Ok(done.result)
            })
        })
    }

    /// `prompts/get`: prompt `name` with `arguments`, anything that serializes to an object of
    /// strings (or to `null` for none).
    pub fn get_prompt(
        &self,
        name: impl Into<String>,
        arguments: impl Serialize,
    ) -> CallBuilder<GetPromptResult> {
        let params = object_or_null(&arguments).and_then(|arguments| {
            let mut params = Map::new();
            params.insert("name".into(), Value::String(name.into()));
            if let Some(arguments) = arguments {
                if let Some((key, _)) = arguments.iter().find(|(_, v)| !v.is_string()) {
                    return Err(ClientError::InvalidParams(format!(
                        "prompt argument {key:?} is not a string"
                    )));
                }
                params.insert("arguments".into(), Value::Object(arguments));
            }
            Ok(params)
        });
        CallBuilder::new(self, |client, options| {
            Box::pin(async move {
                offered(&client, GetPrompt::METHOD)?;
                let done = call_with_input(&client, GetPrompt::METHOD, params?, &options).await?;
                Ok(done.result)
            })
        })
    }

    /// `completion/complete`: suggestions for argument `argument` of a prompt or resource
    /// template, given what was typed so far (`value`).
    pub fn complete(
        &self,
        reference: CompletionReference,
        argument: impl Into<String>,
        value: impl Into<String>,
    ) -> CallBuilder<CompleteResult> {
        let params = CompleteRequestParams::new(reference, argument, value);
        self.typed_request::<presa_core::Complete>(&params)
    }

    /// Like [`complete`](Self::complete), with the values of arguments already chosen
    /// (`context.arguments`).
    pub fn complete_with_context<K: Into<String>, V: Into<String>>(
        &self,
        reference: CompletionReference,
        argument: impl Into<String>,
        value: impl Into<String>,
        context: impl IntoIterator<Item = (K, V)>,
    ) -> CallBuilder<CompleteResult> {
        let mut params = CompleteRequestParams::new(reference, argument, value);
        let arguments: BTreeMap<String, String> = context
            .into_iter()
            .map(|(k, v)| (k.into(), v.into()))
            .collect();
        params.context = Some(CompletionContext {
            arguments: Some(arguments),
        });
        self.typed_request::<presa_core::Complete>(&params)
    }

    /// Any request, typed by its method marker (e.g. [`presa_core::Complete`]). The result is
    /// read as `M::Result` as is: no cache, no input-required rounds (for `tools/call`,
    /// `prompts/get` and `resources/read` that result is a [`presa_core::MrtrResult`]).
    pub fn request<M: RequestMethod>(&self, params: &M::Params) -> CallBuilder<M::Result>
    where
        M::Result: Send + 'static,
    {
        let params = object_or_null(params);
        CallBuilder::new(self, |client, options| {
            Box::pin(async move {
                offered(&client, M::METHOD)?;
                let raw = client.handle().send(M::METHOD, params?, &options).await?;
                serde_json::from_str(raw.get())
                    .map_err(|e| ClientError::InvalidResult(e.to_string()))
            })
        })
    }

    /// Any request, untyped: `params` must be a JSON object or `null`; the result comes back as
    /// JSON. Sent whatever the server's capabilities say (the typed calls refuse a request the
    /// server did not declare with [`ClientError::NotOffered`]).
    pub fn request_raw(&self, method: impl Into<String>, params: Value) -> CallBuilder<Value> {
        let method = method.into();
        let params = object_or_null(&params);
        CallBuilder::new(self, |client, options| {
            Box::pin(async move {
                let raw = client.handle().send(&method, params?, &options).await?;
                serde_json::from_str(raw.get())
                    .map_err(|e| ClientError::InvalidResult(e.to_string()))
            })
        })
    }

    fn typed_request<M: RequestMethod>(&self, params: &M::Params) -> CallBuilder<M::Result>
    where
        M::Result: HasResultType + Send + 'static,
    {
        let params = object_or_null(params);
        CallBuilder::new(self, |client, options| {
            Box::pin(async move {
                offered(&client, M::METHOD)?;
                let raw = client.handle().send(M::METHOD, params?, &options).await?;
                parse(&raw)
            })
        })
    }

    fn list_page<P: Page>(&self, cursor: Option<String>) -> CallBuilder<P> {
        CallBuilder::new(self, |client, options| {
            Box::pin(async move { page::<P>(&client, cursor, &options).await })
        })
    }

    fn list_all<P: Page>(&self) -> CallBuilder<Vec<P::Item>> {
        CallBuilder::new(self, |client, options| {
            Box::pin(async move {
                let mut items = Vec::new();
                let mut seen = HashSet::new();
                let mut cursor = None;
                for _ in 0..MAX_PAGES {
                    let (page, next) = page::<P>(&client, cursor, &options).await?.into_parts();
                    items.extend(page);
                    let Some(next) = next else {
                        return Ok(items);
                    };
                    if !seen.insert(next.clone()) {
                        return Err(ClientError::InvalidResult(format!(
                            "{} repeated cursor {next:?}",
                            P::METHOD
                        )));
                    }
                    cursor = Some(next);
                }
                Err(ClientError::InvalidResult(format!(
                    "{} returned more than {MAX_PAGES} pages",
                    P::METHOD
                )))
            })
        })
    }
}

/// One page, from the cache when fresh.
async fn page<P: Page>(
    client: &Client,
    cursor: Option<String>,
    options: &CallOptions,
) -> Result<P, ClientError> {
    offered(client, P::METHOD)?;
    let mut params = Map::new();
    if let Some(cursor) = &cursor {
        params.insert("cursor".into(), Value::String(cursor.clone()));
    }
    cached(
        client,
        CacheKey::new(P::METHOD, cursor),
        Some(params),
        options,
    )
    .await
}

/// Fails a request the server's capabilities rule out, before it is sent.
fn offered(client: &Client, method: &str) -> Result<(), ClientError> {
    let info = client.info();
    match info.capabilities.missing_for(method, info.protocol_version) {
        Some(capability) => Err(ClientError::NotOffered {
            method: method.to_owned(),
            capability,
        }),
        None => Ok(()),
    }
}

/// A cacheable request: answered from the cache when fresh, stored when the server allows.
async fn cached<R: DeserializeOwned + HasResultType + Cacheable>(
    client: &Client,
    key: CacheKey,
    params: Option<Map<String, Value>>,
    options: &CallOptions,
) -> Result<R, ClientError> {
    let (generation, hit) = lookup(client, &key, options);
    if let Some(raw) = hit {
        return parse(&raw);
    }
    let raw = client.handle().send(key.method(), params, options).await?;
    let result: R = parse(&raw)?;
    if let Some(generation) = generation {
        store(client, key, raw, &result, generation);
    }
    Ok(result)
}

/// The cache's generation for `key` (`None` without a cache) and its fresh entry, if any.
fn lookup(
    client: &Client,
    key: &CacheKey,
    options: &CallOptions,
) -> (Option<u64>, Option<RawJson>) {
    let Some(mut cache) = client.handle().shared.cache() else {
        return (None, None);
    };
    let hit = if options.cache_allowed() {
        cache.get(key, Instant::now())
    } else {
        None
    };
    (Some(cache.generation(key.method())), hit)
}

fn store(client: &Client, key: CacheKey, raw: RawJson, result: &impl Cacheable, generation: u64) {
    if let Some(mut cache) = client.handle().shared.cache() {
        cache.store(key, raw, result, generation, Instant::now());
    }
}

/// Reads a result, refusing a `resultType` other than `complete`.
fn parse<R: DeserializeOwned + HasResultType>(raw: &RawJson) -> Result<R, ClientError> {
    let result: R =
        serde_json::from_str(raw.get()).map_err(|e| ClientError::InvalidResult(e.to_string()))?;
    match result.result_type() {
        None | Some(ResultType::Complete) => Ok(result),
        Some(other) => Err(ClientError::InvalidResult(format!(
            "unexpected resultType {:?}",
            other.as_str()
        ))),
    }
}
