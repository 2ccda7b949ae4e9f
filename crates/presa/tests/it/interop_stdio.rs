//! Interoperability over stdio, in both eras, with MCP implementations presa did not write,
//! installed by the tests from the npm registry and PyPI (pinned in `interop/`, see
//! `interop/mod.rs`): the TypeScript SDK (v1 `@modelcontextprotocol/sdk`, v2
//! `@modelcontextprotocol/client` and `@modelcontextprotocol/server`), its reference server
//! `@modelcontextprotocol/server-everything`, and the Python SDK (`mcp`).
//!
//! - presa's stdio server (the `library` example) driven by independent clients, which spawn it
//!   as a host does: TypeScript v1, TypeScript v2 and Python in the initialize era; TypeScript
//!   v2 (pinned) and Python (probing with `server/discover`) on 2026-07-28.
//! - presa's stdio client driving independent servers: server-everything (initialize era only:
//!   presa's `server/discover` probe must fall back to `initialize`), and servers built on the
//!   TypeScript SDK v2 and on the Python SDK, on 2026-07-28 (found by the probe) and in the
//!   initialize era (pinned).

use std::ffi::OsString;
use std::process::Command;

use presa::client::{Client, ClientOptions};
use presa::core::ProtocolVersion;
use presa::stdio::{CommandOptions, Stderr};

use crate::interop;
use crate::interop::library::{self, Driver};
use crate::interop::peers::{self, DualEraServer};

/// Runs `driver`, which spawns presa's library server on stdio, and checks what it saw.
fn drive_library(driver: Driver) {
    let mut client = driver.command();
    client.arg("--stdio").arg(interop::library());
    library::check(&interop::report(client), driver);
}

/// Connects presa's client to the server `server` starts, pinned to `version` if given. The
/// server's stderr is kept out of the test output; presa quotes its last lines if it dies.
async fn connect(server: Command, version: Option<ProtocolVersion>) -> Client {
    let argv: Vec<OsString> = [server.get_program()]
        .into_iter()
        .chain(server.get_args())
        .map(Into::into)
        .collect();
    let mut options = CommandOptions::default().stderr(Stderr::lines(|_| {}));
    if let Some(dir) = server.get_current_dir() {
        options = options.dir(dir);
    }
    let channel = presa::stdio::command(argv, options).unwrap();
    Client::connect(channel, ClientOptions::default().protocol_version(version))
        .await
        .unwrap()
}

/// Drives `server` on stdio, letting presa's client find the era (2026-07-28 is expected) or
/// pinning the initialize era.
async fn drive_dual_era_server(server: DualEraServer, version: ProtocolVersion) {
    let pin = (version != ProtocolVersion::V2026_07_28).then_some(version);
    let client = connect(server.command("stdio"), pin).await;
    peers::dual_era_server(&client, server, version).await;
    client.close().await;
}

#[test]
fn typescript_sdk_v1_client_drives_presa_stdio_server_in_the_initialize_era() {
    drive_library(Driver::SdkV1);
}

#[test]
fn typescript_sdk_v2_client_drives_presa_stdio_server_in_the_initialize_era() {
    drive_library(Driver::SdkV2Initialize);
}

#[test]
fn typescript_sdk_v2_client_drives_presa_stdio_server_on_2026_07_28() {
    drive_library(Driver::SdkV2Pinned);
}

#[test]
fn python_sdk_client_drives_presa_stdio_server_in_the_initialize_era() {
    drive_library(Driver::PythonInitialize);
}

#[test]
fn python_sdk_client_drives_presa_stdio_server_on_2026_07_28() {
    drive_library(Driver::PythonAuto);
}

#[tokio::test]
async fn presa_stdio_client_drives_server_everything_in_the_initialize_era() {
    let mut server = interop::node()
        .script("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    server.arg("stdio");
    let client = connect(server, None).await;
    peers::server_everything(&client).await;
    client.close().await;
}

#[tokio::test]
async fn presa_stdio_client_drives_typescript_sdk_v2_server_on_2026_07_28() {
    drive_dual_era_server(DualEraServer::SdkV2, ProtocolVersion::V2026_07_28).await;
}

#[tokio::test]
async fn presa_stdio_client_drives_typescript_sdk_v2_server_in_the_initialize_era() {
    drive_dual_era_server(DualEraServer::SdkV2, ProtocolVersion::V2025_11_25).await;
}

#[tokio::test]
async fn presa_stdio_client_drives_python_sdk_server_on_2026_07_28() {
    drive_dual_era_server(DualEraServer::Python, ProtocolVersion::V2026_07_28).await;
}

#[tokio::test]
async fn presa_stdio_client_drives_python_sdk_server_in_the_initialize_era() {
    drive_dual_era_server(DualEraServer::Python, ProtocolVersion::V2025_11_25).await;
}
