//! presa-core: the MCP wire model and sans-IO protocol state machines.
