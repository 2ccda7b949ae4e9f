//! Interoperability over Streamable HTTP, in both eras, with MCP implementations presa did not
//! write, installed by the tests from the npm registry and PyPI (pinned in `interop/`, see
//! `interop/mod.rs`): the TypeScript SDK (v1 `@modelcontextprotocol/sdk`, v2
//! `@modelcontextprotocol/client` and `@modelcontextprotocol/server`), its reference server
//! `@modelcontextprotocol/server-everything`, and the Python SDK (`mcp`). Every server listens
//! on 127.0.0.1, on a free port it prints.
//!
//! - presa's HTTP server (the `library` example with `--http`) driven by independent clients:
//!   TypeScript v1, TypeScript v2 and Python in the initialize era (an `Mcp-Session-Id`
//!   session, ended with `DELETE` by the TypeScript clients); TypeScript v2 (pinned) and Python
//!   (probing with `server/discover`) on 2026-07-28.
//! - presa's `skills` example (the Skills extension, SEP-2640) read by the TypeScript SDK v2's
//!   client as a host reads it, in both eras: the declaration, `skills/list`, and each
//!   `SKILL.md` through `resources/read`, its digest and size as listed.
//! - presa's HTTP client driving independent servers: server-everything on its own Streamable
//!   HTTP entry point (initialize era only: presa's `server/discover` probe must fall back to
//!   `initialize`), and servers built on the TypeScript SDK v2 (`createMcpHandler`) and on the
//!   Python SDK (`streamable_http_app`), on 2026-07-28 (found by the probe) and in the
//!   initialize era (pinned).

use presa::client::{Client, ClientOptions};
use presa::core::ProtocolVersion;
use presa::http::HttpClientOptions;

use crate::interop::library::{self, Driver};
use crate::interop::peers::{self, DualEraServer};
use crate::interop::{self, Listening, node};

/// Runs `driver` against presa's library server on HTTP, and checks what it saw.
fn drive_library(driver: Driver) {
    let server = Listening::library();
    let mut client = driver.command();
    client.args(["--http", server.url()]);
    let report = interop::report(client);
    library::check(&report, driver);
    // The TypeScript drivers report the `Mcp-Session-Id` of an initialize-era session (and
    // end it with `DELETE`).
    if matches!(driver, Driver::SdkV1 | Driver::SdkV2Initialize) {
        assert!(
            report["sessionId"].is_string(),
            "an initialize-era session: {report:#}"
        );
    }
}

/// Connects presa's client to the server at `url`, pinned to `version` if given.
async fn connect(url: &str, version: Option<ProtocolVersion>) -> Client {
    let channel = presa::http::client(url, HttpClientOptions::default()).unwrap();
    Client::connect(channel, ClientOptions::default().protocol_version(version))
        .await
        .unwrap()
}

/// Drives `server` on HTTP, letting presa's client find the era (2026-07-28 is expected) or
/// pinning the initialize era.
async fn drive_dual_era_server(server: DualEraServer, version: ProtocolVersion) {
    let listening = Listening::start("the dual-era server", server.command("http"));
    let pin = (version != ProtocolVersion::V2026_07_28).then_some(version);
    let client = connect(listening.url(), pin).await;
    peers::dual_era_server(&client, server, version).await;
    client.close().await;
}

#[test]
fn typescript_sdk_v1_client_drives_presa_http_server_in_the_initialize_era() {
    drive_library(Driver::SdkV1);
}

#[test]
fn typescript_sdk_v2_client_drives_presa_http_server_in_the_initialize_era() {
    drive_library(Driver::SdkV2Initialize);
}

#[test]
fn typescript_sdk_v2_client_drives_presa_http_server_on_2026_07_28() {
    drive_library(Driver::SdkV2Pinned);
}

#[test]
fn python_sdk_client_drives_presa_http_server_in_the_initialize_era() {
    drive_library(Driver::PythonInitialize);
}

#[test]
fn python_sdk_client_drives_presa_http_server_on_2026_07_28() {
    drive_library(Driver::PythonAuto);
}

#[tokio::test]
async fn presa_http_client_drives_server_everything_in_the_initialize_era() {
    let server = Listening::start("server-everything", node().script("everything-http.mjs"));
    let client = connect(server.url(), None).await;
    peers::server_everything(&client).await;
    client.close().await;
}

#[tokio::test]
async fn presa_http_client_drives_typescript_sdk_v2_server_on_2026_07_28() {
    drive_dual_era_server(DualEraServer::SdkV2, ProtocolVersion::V2026_07_28).await;
}

#[tokio::test]
async fn presa_http_client_drives_typescript_sdk_v2_server_in_the_initialize_era() {
    drive_dual_era_server(DualEraServer::SdkV2, ProtocolVersion::V2025_11_25).await;
}

#[tokio::test]
async fn presa_http_client_drives_python_sdk_server_on_2026_07_28() {
    drive_dual_era_server(DualEraServer::Python, ProtocolVersion::V2026_07_28).await;
}

#[tokio::test]
async fn presa_http_client_drives_python_sdk_server_in_the_initialize_era() {
    drive_dual_era_server(DualEraServer::Python, ProtocolVersion::V2025_11_25).await;
}

/// presa's client drives server-everything's task tool (2025-11-25 experimental tasks, on the
/// TypeScript SDK v1): a task-augmented call whose task asks for clarification mid-way, which
/// the SDK delivers on the stream of presa's `tasks/result`.
#[tokio::test]
async fn presa_http_client_runs_a_server_everything_task_that_asks_mid_way() {
    use presa::client::{ResultText, ToolCall};
    use presa::core::{ElicitResult, TaskStatus};

    let server = Listening::start("server-everything", node().script("everything-http.mjs"));
    let channel = presa::http::client(server.url(), HttpClientOptions::default()).unwrap();
    let options = ClientOptions::default()
        .protocol_version(Some(ProtocolVersion::V2025_11_25))
        .tasks(true)
        .elicitation(|_params, _cx| async move {
            let mut content = serde_json::Map::new();
            content.insert("interpretation".into(), "the language".into());
            Ok(ElicitResult::accept(content))
        });
    let client = Client::connect(channel, options).await.unwrap();
    let arguments = serde_json::json!({"topic": "rust", "ambiguous": true});
    let ToolCall::Task(task) = client
        .start_tool("simulate-research-query", arguments)
        .await
        .unwrap()
    else {
        panic!("server-everything runs simulate-research-query as a task");
    };
    let state = task.status().await.unwrap();
    assert!(!matches!(
        state.status,
        TaskStatus::Failed | TaskStatus::Cancelled
    ));
    let report = task.wait().await.unwrap();
    assert!(report.text().contains("the language"), "{}", report.text());
    client.close().await;
}

/// The TypeScript SDK's client lists the skills of presa's `skills` example and reads each
/// `SKILL.md`: what it reads has the digest and size the listing gives, and its frontmatter
/// names the skill.
fn typescript_client_reads_presa_skills(era: &str) {
    let mut command = std::process::Command::new(interop::skills());
    command.args(["--http", "127.0.0.1:0"]);
    let server = Listening::start("the skills example", command);
    let mut client = node().script("skills-client.mjs");
    client.args([era, server.url()]);
    let report = interop::report(client);
    assert_eq!(
        report["declared"],
        serde_json::json!({"directoryRead": true}),
        "{report:#}"
    );
    let skills = report["skills"].as_array().unwrap();
    let uris: Vec<&str> = skills.iter().map(|s| s["uri"].as_str().unwrap()).collect();
    assert_eq!(
        uris,
        [
            "skill://acme/support/triage/SKILL.md",
            "skill://release-notes/SKILL.md"
        ],
        "{report:#}"
    );
    for (skill, read) in skills.iter().zip(report["read"].as_array().unwrap()) {
        let listed = skill["resources"]
            .as_array()
            .unwrap()
            .iter()
            .find(|file| file["uri"] == skill["uri"])
            .unwrap();
        assert_eq!(read["digest"], listed["digest"], "{read:#}");
        assert_eq!(read["size"], listed["size"], "{read:#}");
        assert_eq!(read["mimeType"], "text/markdown");
        let name = skill["frontmatter"]["name"].as_str().unwrap();
        assert!(
            read["text"]
                .as_str()
                .unwrap()
                .starts_with(&format!("---\nname: {name}\n"))
        );
    }
}

#[test]
fn typescript_sdk_v2_client_reads_presa_skills_in_the_initialize_era() {
    typescript_client_reads_presa_skills("2025");
}

#[test]
fn typescript_sdk_v2_client_reads_presa_skills_on_2026_07_28() {
    typescript_client_reads_presa_skills("2026");
}
