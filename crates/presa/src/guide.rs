//! The guides: how to do each thing with presa, one page per topic, with examples that compile
//! and run (every one of them is a doc test).
//!
//! Start with [`tools_resources_prompts`] to write a server, or [`client`] to call one;
//! [`transports`] serves either over stdio, Streamable HTTP or in-process. The crate's front
//! page maps them all; the same pages make up the book that `cargo xtask docs` builds from the
//! repository's `docs/` folder.
//!
//! A guide whose examples need a feature of this crate is here when that feature is on (all of
//! them are on docs.rs).

#[cfg(all(feature = "server", feature = "schemars"))]
#[doc = include_str!("../docs/tools-resources-prompts.md")]
pub mod tools_resources_prompts {}

#[cfg(feature = "client")]
#[doc = include_str!("../docs/client.md")]
pub mod client {}

#[cfg(all(
    feature = "server",
    feature = "client",
    feature = "stdio",
    feature = "http"
))]
#[doc = include_str!("../docs/transports.md")]
pub mod transports {}

#[cfg(all(feature = "in-process", feature = "schemars"))]
#[doc = include_str!("../docs/input-requests.md")]
pub mod input_requests {}

#[cfg(feature = "in-process")]
#[doc = include_str!("../docs/tasks.md")]
pub mod tasks {}

#[cfg(feature = "in-process")]
#[doc = include_str!("../docs/subscriptions.md")]
pub mod subscriptions {}

#[cfg(all(feature = "oauth", feature = "jwt"))]
#[doc = include_str!("../docs/authorization.md")]
pub mod authorization {}

#[cfg(feature = "server")]
#[doc = include_str!("../docs/middleware.md")]
pub mod middleware {}

#[cfg(all(feature = "server", feature = "client"))]
#[doc = include_str!("../docs/extensions.md")]
pub mod extensions {}

#[cfg(all(feature = "in-process", feature = "http"))]
#[doc = include_str!("../docs/initialize-era.md")]
pub mod initialize_era {}

#[cfg(feature = "redis")]
#[doc = include_str!("../docs/scale-out.md")]
pub mod scale_out {}

#[cfg(feature = "prometheus")]
#[doc = include_str!("../docs/observability.md")]
pub mod observability {}

#[cfg(feature = "oauth")]
#[doc = include_str!("../docs/cli.md")]
pub mod cli {}

#[doc = include_str!("../docs/architecture.md")]
pub mod architecture {}

#[doc = include_str!("../docs/performance.md")]
pub mod performance {}

#[doc = include_str!("../docs/reliability.md")]
pub mod reliability {}
