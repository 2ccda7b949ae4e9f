// the README's examples need the features it uses; without them the crate documents itself
// in one line
#![cfg_attr(
    all(feature = "server", feature = "stdio", feature = "schemars"),
    doc = include_str!("../../../README.md")
)]
#![cfg_attr(
    not(all(feature = "server", feature = "stdio", feature = "schemars")),
    doc = "presa: a Rust SDK for the Model Context Protocol (the facade; see README.md)."
)]

pub use presa_core as core;
pub use presa_schema as schema;

#[cfg(feature = "client")]
pub use presa_client as client;
#[cfg(feature = "http")]
pub use presa_http as http;
#[cfg(any(feature = "oauth", feature = "jwt"))]
pub use presa_oauth as oauth;
#[cfg(feature = "redis")]
pub use presa_redis as redis;
#[cfg(feature = "server")]
pub use presa_server as server;
#[cfg(feature = "stdio")]
pub use presa_stdio as stdio;

/// schemars, the crate presa derives schemas with, at the version presa uses. A user's own
/// crate still lists `schemars` among its dependencies: `#[derive(JsonSchema)]` names it.
#[cfg(feature = "schemars")]
pub use schemars;

#[cfg(feature = "server")]
pub mod prelude;

#[cfg(feature = "in-process")]
mod in_process;
#[cfg(feature = "in-process")]
pub use in_process::*;

/// The examples of docs/client.md, compiled and run as doc tests.
#[cfg(all(doctest, feature = "client"))]
#[doc = include_str!("../../../docs/client.md")]
struct ClientGuide;

/// The examples of docs/authorization.md, compiled and run as doc tests.
#[cfg(all(doctest, feature = "oauth", feature = "jwt"))]
#[doc = include_str!("../../../docs/authorization.md")]
struct AuthorizationGuide;

/// The examples of docs/transports.md, compiled and run as doc tests.
#[cfg(all(
    doctest,
    feature = "server",
    feature = "client",
    feature = "stdio",
    feature = "http"
))]
#[doc = include_str!("../../../docs/transports.md")]
struct TransportsGuide;

/// The examples of docs/extensions.md, compiled and run as doc tests.
#[cfg(all(doctest, feature = "server", feature = "client"))]
#[doc = include_str!("../../../docs/extensions.md")]
struct ExtensionsGuide;

/// The examples of docs/initialize-era.md, compiled and run as doc tests.
#[cfg(all(doctest, feature = "in-process", feature = "http"))]
#[doc = include_str!("../../../docs/initialize-era.md")]
struct InitializeEraGuide;

/// The examples of docs/input-requests.md, compiled and run as doc tests.
#[cfg(all(doctest, feature = "in-process", feature = "schemars"))]
#[doc = include_str!("../../../docs/input-requests.md")]
struct InputRequestsGuide;

/// The examples of docs/subscriptions.md, compiled and run as doc tests.
#[cfg(all(doctest, feature = "in-process"))]
#[doc = include_str!("../../../docs/subscriptions.md")]
struct SubscriptionsGuide;

/// The examples of docs/middleware.md, compiled and run as doc tests.
#[cfg(all(doctest, feature = "server"))]
#[doc = include_str!("../../../docs/middleware.md")]
struct MiddlewareGuide;

/// The examples of docs/scale-out.md, compiled and run as doc tests.
#[cfg(all(doctest, feature = "redis"))]
#[doc = include_str!("../../../docs/scale-out.md")]
struct ScaleOutGuide;

/// The examples of docs/observability.md, compiled and run as doc tests.
#[cfg(all(doctest, feature = "prometheus"))]
#[doc = include_str!("../../../docs/observability.md")]
struct ObservabilityGuide;

/// The examples of docs/tasks.md, compiled and run as doc tests.
#[cfg(all(doctest, feature = "in-process"))]
#[doc = include_str!("../../../docs/tasks.md")]
struct TasksGuide;

/// The examples of docs/tools-resources-prompts.md, compiled and run as doc tests.
#[cfg(all(doctest, feature = "server", feature = "schemars"))]
#[doc = include_str!("../../../docs/tools-resources-prompts.md")]
struct ToolsResourcesPromptsGuide;
