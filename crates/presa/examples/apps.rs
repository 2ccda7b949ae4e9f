//! A server with an app (MCP Apps, SEP-1865): `forecast` answers in words every client shows,
//! and names a page that a host which renders apps shows beside them. The page asks the host
//! to call `refresh`, a tool only the page may call, and shows its answer. On stdio by
//! default, or on Streamable HTTP at `/mcp` with `--http HOST:PORT`.
//!
//! ```sh
//! cargo run -p presa --example apps -- --http 127.0.0.1:8080
//! ```
//!
//! The session below asks it with the [`presa` command](presa::guide::cli) (`cargo install
//! --path crates/presa-cli`).
//!
//! Prints:
//!
//! ```text
//! $ presa tools -- cargo run -q -p presa --example apps
//! NAME      DESCRIPTION
//! forecast  Today's weather; hosts that show apps show the week beside it.
//! refresh   The weather again, for the forecast page's button.
//! $ presa call forecast -- cargo run -q -p presa --example apps
//! Sunny, 21 °C
//! ```

use std::process::ExitCode;

use presa::core::Tool;
use presa::core::apps::{UiToolMeta, UiVisibility};
use presa::server::{App, BuildError, Context, Server, ServerBuilder};
use serde_json::Value;

#[path = "shared/command_line.rs"]
mod command_line;

const PAGE: &str = "ui://weather/forecast";

/// The page: JSON-RPC over `postMessage` with the host, no library needed. It answers the
/// host's own requests (`ping`, and `ui/resource-teardown` before the host removes it).
const HTML: &str = r#"<!doctype html>
<meta charset="utf-8"><title>Forecast</title>
<p id="sky">Waiting for the forecast…</p><button id="refresh">Refresh</button>
<script>
  let next = 1;
  const waiting = new Map();
  const sky = document.getElementById("sky");
  const send = message => parent.postMessage({ jsonrpc: "2.0", ...message }, "*");
  const request = (method, params) => new Promise((resolve, reject) => {
    waiting.set(next, { resolve, reject });
    send({ id: next++, method, params });
  });
  const show = result => (sky.textContent = result.content[0].text);
  addEventListener("message", ({ source, data }) => {
    if (source !== parent || data?.jsonrpc !== "2.0") return; // only the host speaks here
    if (data.method === undefined) { // an answer to one of the page's requests
      const call = waiting.get(data.id);
      waiting.delete(data.id);
      if (data.error) call?.reject(new Error(data.error.message));
      else call?.resolve(data.result);
    } else if (data.id !== undefined) { // a request of the host's
      const known = ["ping", "ui/resource-teardown"].includes(data.method);
      send(known ? { id: data.id, result: {} }
                 : { id: data.id, error: { code: -32601, message: "Method not found" } });
    } else if (data.method === "ui/notifications/tool-result") show(data.params);
  });
  document.getElementById("refresh").onclick = () =>
    request("tools/call", { name: "refresh", arguments: {} })
      .then(show, error => (sky.textContent = `Could not refresh: ${error.message}`));
  const app = { appInfo: { name: "forecast", version: "1.0.0" }, appCapabilities: {}, protocolVersion: "2026-01-26" };
  request("ui/initialize", app).then(() => send({ method: "ui/notifications/initialized" }));
</script>"#;

fn server(builder: ServerBuilder) -> Result<Server, BuildError> {
    builder
        .with(App::new(PAGE, HTML).prefers_border(true))
        .tool_sync(
            Tool::without_params("forecast")
                .description("Today's weather; hosts that show apps show the week beside it.")
                .ui(PAGE),
            |_: Value, cx: Context| {
                let words = "Sunny, 21 °C";
                if cx.client_supports_apps() {
                    format!("{words}; the page shows the week")
                } else {
                    words.to_owned()
                }
            },
        )
        .tool_sync(
            Tool::without_params("refresh")
                .description("The weather again, for the forecast page's button.")
                .ui_meta(UiToolMeta::new(PAGE).visibility([UiVisibility::App])),
            |_: Value, _cx: Context| "Refreshed: sunny, 22 °C",
        )
        .build()
}

#[tokio::main]
async fn main() -> ExitCode {
    command_line::run("apps", |configure| {
        server(configure(Server::builder("weather", "1.0.0")))
    })
    .await
}
