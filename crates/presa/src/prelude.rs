//! What a server author needs, in one import: `use presa::prelude::*;`.
//!
//! The server and its builder, the handler's [`Context`], the handler argument and result
//! types ([`Args`], [`Json`], [`Content`], [`ToolError`], ...), the definitions ([`Tool`],
//! [`Resource`], [`ResourceTemplate`], [`Prompt`]) and, with the `schemars` feature (on by
//! default), [`JsonSchema`] for `#[derive(JsonSchema)]`.
//!
//! ```
//! # #[cfg(feature = "schemars")] {
//! use presa::prelude::*;
//! use serde::{Deserialize, Serialize};
//!
//! /// Greet someone.
//! #[derive(Deserialize, JsonSchema)]
//! struct Greet {
//!     /// Who to greet.
//!     name: String,
//! }
//!
//! #[derive(Serialize, JsonSchema)]
//! struct Greeting {
//!     text: String,
//! }
//!
//! let server = Server::builder("greeter", "1.0.0")
//!     .typed_tool("greet", |Args(greet): Args<Greet>, _cx: Context| async move {
//!         Json(Greeting { text: format!("Hello, {}!", greet.name) })
//!     })
//!     .build()?;
//! assert_eq!(server.tool_names(), ["greet"]);
//! # }
//! # Ok::<(), presa::server::BuildError>(())
//! ```

pub use presa_server::{
    Args, AuthInfo, BuildError, CallToolResult, CompletionInput, Content, ContentBlock, Context,
    ElicitAction, ElicitRequestFormParams, ElicitationSchema, InputError, Json, JsonObject,
    LoggingLevel, Message, MissingState, Prompt, PromptArgs, PromptArgument, ProtocolError,
    Resource, ResourceTemplate, Role, Server, ServerBuilder, TaskOptions, TaskSupport, Tool,
    ToolAnnotations, ToolError, Variables, content,
};

#[cfg(feature = "schemars")]
pub use presa_server::Elicitation;
#[cfg(feature = "schemars")]
pub use schemars::JsonSchema;
