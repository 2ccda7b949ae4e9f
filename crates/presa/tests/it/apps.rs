//! MCP Apps (SEP-1865): a tool with an app page, served to a host that renders apps and to a
//! client that does not, in both eras; what the server says of the page and the tools, checked
//! against the JSON Schema that `@modelcontextprotocol/ext-apps` ships; and the `apps` example
//! in a real browser, with that package's app-bridge as the host.

use presa::client::{Client, ClientOptions, ResultText as _};
use presa::core::apps::{APP_MIME_TYPE, APPS_EXTENSION, UiCsp, UiToolMeta, UiVisibility};
use presa::core::{Implementation, ProtocolVersion, ResourceContents, Tool};
use presa::server::{App, BuildError, Context, Server};
use serde_json::{Value, json};

use crate::interop;

const PAGE: &str = "ui://weather/forecast";

fn weather() -> Server {
    let page = App::new(PAGE, "<!doctype html><title>Forecast</title><p id=sky></p>")
        .description("The week's forecast")
        .csp(UiCsp {
            connect_domains: Some(vec!["https://api.example.com".into()]),
            ..UiCsp::default()
        })
        .prefers_border(true);
    Server::builder("weather", "1.0.0")
        .with(page)
        .tool_sync(
            Tool::without_params("forecast").ui(PAGE),
            |_: Value, cx: Context| {
                if cx.client_supports_apps() {
                    "Sunny, 21 °C; the page shows the week"
                } else {
                    "Sunny, 21 °C"
                }
            },
        )
        .tool_sync(
            Tool::without_params("refresh")
                .ui_meta(UiToolMeta::new(PAGE).visibility([UiVisibility::App])),
            |_: Value, _cx: Context| "refreshed",
        )
        .build()
        .unwrap()
}

async fn connect(server: Server, version: ProtocolVersion, renders_apps: bool) -> Client {
    let mut options = ClientOptions::new(Implementation::new("apps-test", "1.0.0"))
        .protocol_version(Some(version));
    if renders_apps {
        options = options.extension(APPS_EXTENSION, json!({"mimeTypes": [APP_MIME_TYPE]}));
    }
    Client::connect(presa::in_process(server), options)
        .await
        .unwrap()
}

#[tokio::test]
async fn a_host_gets_the_page_and_every_client_gets_words() {
    for version in [ProtocolVersion::V2026_07_28, ProtocolVersion::V2025_11_25] {
        let server = weather();
        let host = connect(server.clone(), version, true).await;
        let plain = connect(server, version, false).await;
        assert!(host.has_extension(APPS_EXTENSION), "{version}");

        // the tools name the page, in both keys hosts read
        let tools = host.list_tools().await.unwrap();
        let meta = |name: &str| {
            let tool = tools.iter().find(|t| t.name == name).unwrap();
            Value::Object(tool.meta.clone().unwrap())
        };
        assert_eq!(
            meta("forecast"),
            json!({"ui": {"resourceUri": PAGE}, "ui/resourceUri": PAGE}),
            "{version}"
        );
        assert_eq!(
            meta("refresh")["ui"]["visibility"],
            json!(["app"]),
            "{version}"
        );

        // the page: its MIME type, and what its frame may do, on the listing and the contents
        let resources = host.list_resources().await.unwrap();
        let listed = resources.iter().find(|r| r.uri == PAGE).unwrap();
        assert_eq!(listed.mime_type.as_deref(), Some(APP_MIME_TYPE));
        let listed_ui = &listed.meta.as_ref().unwrap()["ui"];
        assert_eq!(listed_ui["prefersBorder"], true);
        let read = host.read_resource(PAGE).await.unwrap();
        let ResourceContents::Text(page) = &read.contents[0] else {
            panic!("{read:?}");
        };
        assert!(page.text.starts_with("<!doctype html>"));
        assert_eq!(page.mime_type.as_deref(), Some(APP_MIME_TYPE));
        assert_eq!(&page.meta.as_ref().unwrap()["ui"], listed_ui);
        assert_eq!(
            listed_ui["csp"]["connectDomains"],
            json!(["https://api.example.com"])
        );

        // the same tool, told per request whether its page will be shown
        let hosted = host.call_tool("forecast", json!({})).await.unwrap();
        assert_eq!(
            hosted.text(),
            "Sunny, 21 °C; the page shows the week",
            "{version}"
        );
        let worded = plain.call_tool("forecast", json!({})).await.unwrap();
        assert_eq!(worded.text(), "Sunny, 21 °C", "{version}");
        host.close().await;
        plain.close().await;
    }
}

#[test]
fn a_page_that_is_not_a_ui_resource_is_refused_at_build() {
    let refused = Server::builder("weather", "1.0.0")
        .with(App::new("https://example.com/page", "<p>"))
        .build()
        .unwrap_err();
    let BuildError::Extension { id, reason } = &refused else {
        panic!("{refused}");
    };
    assert_eq!(id, APPS_EXTENSION);
    assert!(reason.contains("ui://"), "{reason}");
}

/// What the server says of the page and its tools, and what a host declares, against the
/// definitions of `@modelcontextprotocol/ext-apps`'s schema.json (installed by the interop
/// tests from the npm registry, pinned in interop/node).
#[tokio::test]
async fn the_shapes_match_the_schema_ext_apps_ships() {
    let path = interop::node()
        .path("node_modules/@modelcontextprotocol/ext-apps/dist/src/generated/schema.json");
    let schema: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let definition = |name: &str| presa::schema::compile(&schema["$defs"][name]).unwrap();
    let (tool_meta, resource_meta, client_settings) = (
        definition("McpUiToolMeta"),
        definition("McpUiResourceMeta"),
        definition("McpUiClientCapabilities"),
    );

    let host = connect(weather(), ProtocolVersion::V2026_07_28, true).await;
    for tool in host.list_tools().await.unwrap() {
        let ui = &tool.meta.as_ref().unwrap()["ui"];
        tool_meta
            .validate(ui)
            .unwrap_or_else(|e| panic!("{}: {e}", tool.name));
    }
    let resources = host.list_resources().await.unwrap();
    let listed = resources.iter().find(|r| r.uri == PAGE).unwrap();
    resource_meta
        .validate(&listed.meta.as_ref().unwrap()["ui"])
        .unwrap();
    let read = host.read_resource(PAGE).await.unwrap();
    let ResourceContents::Text(page) = &read.contents[0] else {
        panic!("{read:?}");
    };
    resource_meta
        .validate(&page.meta.as_ref().unwrap()["ui"])
        .unwrap();
    client_settings
        .validate(&json!({"mimeTypes": [APP_MIME_TYPE]}))
        .unwrap();
    // and the schemas do refuse: a tool's meta may not carry a CSP
    assert!(!tool_meta.is_valid(&json!({"resourceUri": PAGE, "csp": {}})));
    host.close().await;
}

/// The `apps` example in a real browser: a host page on the app-bridge of
/// `@modelcontextprotocol/ext-apps` (interop/node/apps-host.mjs, bundled with esbuild) connects
/// to the example over Streamable HTTP, renders the `forecast` tool's page in a sandboxed
/// iframe and hands it the tool's result; the page shows it, then calls `refresh`, a tool only
/// it may call, through the host, and shows that answer. Debian's Chromium, driven headless
/// by puppeteer-core, reads the text the page shows. `PRESA_APPS_SCREENSHOT=path.png` keeps a
/// screenshot of the host with the page in it.
#[test]
fn the_example_page_shows_its_tool_result_and_calls_its_second_tool_in_a_browser() {
    presa_test::debian::ensure("chromium", "--version", "chromium");
    let mut command = std::process::Command::new(interop::apps());
    command.args(["--http", "127.0.0.1:0"]);
    let server = interop::Listening::start("the apps example", command);
    let mut driver = interop::node().script("apps-browser.mjs");
    driver.args([server.url(), "forecast"]);
    if let Some(path) = std::env::var_os("PRESA_APPS_SCREENSHOT") {
        driver.arg(path);
    }
    let report = interop::report(driver);
    assert!(report.get("pageErrors").is_none(), "{report:#}");
    assert_eq!(
        report["shown"], "Sunny, 21 °C; the page shows the week",
        "{report:#}"
    );
    assert_eq!(report["refreshed"], "Refreshed: sunny, 22 °C", "{report:#}");
    // the page answers what its host asks of it
    assert_eq!(report["hostRequests"], "answered", "{report:#}");
}
