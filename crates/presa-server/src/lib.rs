//! MCP servers for presa: definitions (tools, resources, resource templates, prompts) as plain
//! data plus closures, dispatched the same way under every protocol revision.
//!
//! Depend on it, or on the facade `presa` with its `server` feature (as `presa::server`), to write
//! an MCP server.
//!
//! A tool is its wire description ([`presa_core::Tool`]: a name, a JSON Schema, a description)
//! and a handler of `(input, context)`. What the handler returns becomes the result
//! ([`IntoToolResult`]); arguments are validated against the input schema before it runs, and
//! structured results against the output schema after. Resources, templates and prompts work the
//! same way. The [`Context`] gives handlers the request's client, progress, logging and
//! cancellation, the same in both protocol eras.
//!
//! [`Server::handle`] is the transport-agnostic core; [`serve_connection`] runs one peer's
//! session (stdio, in-process) over a pair of channels. presa-stdio and presa-http provide the
//! transports.
//!
//! **Architecture invariant:** presa-server depends on presa-core and presa-schema and never on
//! presa-client, and it opens no sockets or pipes itself.

mod apps;
mod auth;
mod builder;
mod call;
mod catch;
mod changing;
mod connection;
mod context;
mod definitions;
mod dispatch;
mod driven;
mod error;
mod events;
mod extend;
mod extension;
#[cfg(feature = "schemars")]
mod form;
mod input;
#[cfg(feature = "schemars")]
mod json_schema;
mod listen;
#[cfg(feature = "otel")]
mod metrics;
mod middleware;
mod observe;
mod prompt;
mod resource;
mod rounds;
mod scopes;
mod server;
mod skills;
mod start;
mod state;
mod tasks;
mod telemetry;
mod tool;
mod transport;
#[cfg(feature = "schemars")]
mod typed;
mod wire;

pub mod content;

/// A boxed, sendable future: what the object-safe handler traits and middleware return.
pub type BoxFuture<'a, T> = std::pin::Pin<Box<dyn std::future::Future<Output = T> + Send + 'a>>;

/// The definition types of presa-core a server author names, so that depending on
/// presa-server (or the facade's `presa::server`) is enough.
pub use presa_core::{
    Annotations, BooleanSchema, CacheScope, CallToolResult, ContentBlock, ElicitAction,
    ElicitRequestFormParams, ElicitRequestParams, ElicitResult, ElicitationSchema, ErrorCode, Icon,
    Implementation, JsonObject, LoggingLevel, NumberSchema, Prompt, PromptArgument,
    ProtocolVersion, Resource, ResourceContents, ResourceTemplate, Role, StringSchema, TaskSupport,
    Tool, ToolAnnotations,
};

pub use apps::App;
pub use auth::{AuthInfo, InsufficientScope};
pub use builder::ServerBuilder;
pub use call::CallInfo;
pub use connection::*;
pub use context::*;
pub use definitions::{SchemaCompiler, is_valid_tool_name};
pub use driven::{ConnectionState, DrivenConnection, Outbox};
pub use error::*;
pub use events::*;
pub use extend::{Extension, MethodFn, NotificationFn};
pub use extension::{MethodHandler, NotificationHandler};
#[cfg(feature = "schemars")]
pub use input::Elicitation;
pub use input::InputError;
#[cfg(feature = "schemars")]
pub use json_schema::{input_schema_for, output_schema_for, serialized_schema_for};
pub use middleware::{
    Audit, AuditRecord, ListFilter, McpRequest, McpResponse, Middleware, Next, Outcome, RateLimit,
    ScopeFilteredLists, Target, TaskHandle,
};
pub use prompt::*;
pub use resource::*;
pub use scopes::{RequireScopes, Scoped};
pub use server::*;
pub use skills::{SkillError, Skills, SkillsHandle};
pub use state::MissingState;
pub use tasks::{
    InMemoryTaskStore, TaskLimits, TaskOptions, TaskOutcome, TaskRecord, TaskStore, TaskStoreError,
};
pub use tool::*;
pub use transport::{Arrival, HttpParts, Transport, random_id};
#[cfg(feature = "schemars")]
pub use typed::{ToolInput, ToolOutput};
