//! The JSON-RPC 2.0 envelope.

mod decode;
mod error;
mod id;
mod message;
mod params;

pub use decode::*;
pub use error::*;
pub use id::*;
pub use message::*;
pub use params::*;
