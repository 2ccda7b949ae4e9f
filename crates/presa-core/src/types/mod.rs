//! The typed wire model: params, results and objects of every MCP method and notification, for
//! every supported revision (2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28).
//!
//! One struct serves all revisions: a member some revision lacks is an `Option`, left out when
//! `None`, and its documentation names the revision that introduced (or removed) it. So the same
//! value serializes correctly for 2024-11-05 and for 2026-07-28 — for example every result has
//! `result_type: Option<ResultType>`, which must stay `None` in the initialize era.
//!
//! Reading is lenient where clients must be (unknown members are ignored, never rejected; a
//! missing `resultType` means complete) and strict where the schema requires a member. `_meta`
//! is kept everywhere the schema has it ([`Meta`], with the reserved keys as `META_*`
//! constants), and user data (tool arguments, structured content, schemas, elicitation
//! answers) stays [`serde_json::Value`] or [`JsonObject`].
//!
//! Methods are marker types implementing [`RequestMethod`] or [`NotificationMethod`].

#[macro_use]
mod serde_util;

pub mod apps;
mod capabilities;
mod common;
mod completion;
mod content;
mod content_de;
mod elicitation;
mod elicitation_schema;
mod errors;
mod lifecycle;
mod meta;
mod methods;
mod mrtr;
mod notifications;
mod prompts;
mod resources;
mod roots;
mod sampling;
pub mod skills;
mod subscriptions;
mod tasks;
pub mod tasks_extension;
mod tools;

pub use capabilities::*;
pub use common::*;
pub use completion::*;
pub use content::*;
pub use elicitation::*;
pub use elicitation_schema::*;
pub use errors::*;
pub use lifecycle::*;
pub use meta::*;
pub use methods::*;
pub use mrtr::*;
pub use notifications::*;
pub use prompts::*;
pub use resources::*;
pub use roots::*;
pub use sampling::*;
pub use subscriptions::*;
pub use tasks::*;
pub use tools::*;
