//! JSON Schema validation for presa.
