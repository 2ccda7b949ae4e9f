//! The `presa` command's tests, one binary: each module runs the built `presa` as a user
//! would, against presa's example servers (`cli`), servers nobody here wrote (`servers`), a
//! protected server and a mock authorization server (`auth`), and through its proxy (`proxy`).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod auth;
mod cli;
mod common;
mod proxy;
mod servers;
