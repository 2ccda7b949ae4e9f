//! presa-schema's integration tests, one binary: the subset validator on schema messages and
//! hostile input, full JSON Schema 2020-12 (feature `full`), and the official test suite.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[cfg(feature = "full")]
mod full;
mod hostile;
mod messages;
mod suite;
