//! The programs `cargo xtask bench` measures besides presa's own examples.
//!
//! The baselines (`axum_baseline`, `stdio_baseline`) do the least a server answering MCP can
//! do: they read a request only as far as its `id` and `method`, validating the JSON without
//! building it, and answer a result serialized once at start with the id spliced in
//! ([`canned`]). The client loads (`in_process`, `http_client`) share [`load`]; `workloads` is
//! presa's server of the newer rows.

pub mod canned;
pub mod load;
