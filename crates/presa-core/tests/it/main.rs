//! presa-core's integration tests, one binary: the wire types and spec vectors, the SEP-2243
//! headers, the sealed request state, and the session state machines driven against each other.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod headers;
mod request_state;
mod sessions;
mod spec_examples;
mod wire_types;
mod wire_types_schema;
