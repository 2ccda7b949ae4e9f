//! The session state machines of both sides, sans-IO.

mod client;
mod endpoint;
mod inbound;
mod limits;
mod outbound;
mod post;
mod server;

pub use client::*;
pub use endpoint::{ProgressError, RequestError, Transmit};
pub use limits::SessionLimits;
pub use outbound::RequestOptions;
pub use post::check_session_delivery;
pub use server::*;
