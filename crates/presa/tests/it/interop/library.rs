//! What an independent client must see of presa's `library` example server: the checks on the
//! report of `interop/node/client.mjs` or `interop/python/client.py` (one shape), the same for
//! every transport.

use std::process::Command;

use serde_json::{Value, json};

use super::{node, python};

/// Which independent client drives the library server, in which era.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Driver {
    /// @modelcontextprotocol/sdk (the TypeScript SDK v1): `initialize`, newest revision
    /// 2025-11-25.
    SdkV1,
    /// @modelcontextprotocol/client (the TypeScript SDK v2) with negotiation off: `initialize`.
    SdkV2Initialize,
    /// @modelcontextprotocol/client pinned to 2026-07-28: `server/discover`, then every request
    /// carrying its `_meta` envelope.
    SdkV2Pinned,
    /// @modelcontextprotocol/client in "auto" mode: `server/discover`, which must settle on
    /// 2026-07-28.
    SdkV2Auto,
    /// The Python SDK (`mcp`) in "legacy" mode: `initialize`.
    PythonInitialize,
    /// The Python SDK in "auto" mode: `server/discover`, which must settle on 2026-07-28.
    PythonAuto,
    /// The Python SDK pinned to 2026-07-28 (no probe).
    PythonPinned,
}

impl Driver {
    /// The driver script with its era arguments; the transport's arguments follow
    /// (`--stdio COMMAND...` or `--http URL`).
    pub(crate) fn command(self) -> Command {
        let (mut command, args): (Command, &[&str]) = match self {
            Self::SdkV1 => (node().script("client.mjs"), &["v1", "2025"]),
            Self::SdkV2Initialize => (node().script("client.mjs"), &["v2", "2025"]),
            Self::SdkV2Pinned => (node().script("client.mjs"), &["v2", "2026"]),
            Self::SdkV2Auto => (node().script("client.mjs"), &["v2", "auto"]),
            Self::PythonInitialize => (python().script("client.py"), &["2025"]),
            Self::PythonAuto => (python().script("client.py"), &["2026"]),
            Self::PythonPinned => (python().script("client.py"), &["pin"]),
        };
        command.args(args);
        command
    }

    fn stateless(self) -> bool {
        matches!(
            self,
            Self::SdkV2Pinned | Self::SdkV2Auto | Self::PythonAuto | Self::PythonPinned
        )
    }
}

/// The `name` (or other `key`) of each item of a list.
fn names<'a>(items: &'a Value, key: &str) -> Vec<&'a str> {
    let items = items
        .as_array()
        .unwrap_or_else(|| panic!("a list, got {items}"));
    items
        .iter()
        .map(|item| item[key].as_str().unwrap_or_default())
        .collect()
}

/// The text of the first content block (tool results, prompt messages) or contents entry
/// (resource reads).
fn first_text(result: &Value) -> &str {
    let first = [
        &result["content"][0],
        &result["contents"][0],
        &result["messages"][0]["content"],
    ]
    .into_iter()
    .find(|v| !v.is_null())
    .unwrap_or(&Value::Null);
    first["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text in {result}"))
}

/// Asserts the report of a driver after it drove the library server: the era it connected
/// in, what it listed, called, read, got and completed, and the errors it was answered with.
pub(crate) fn check(report: &Value, driver: Driver) {
    let stateless = driver.stateless();
    let version = if stateless {
        "2026-07-28"
    } else {
        "2025-11-25"
    };
    assert_eq!(report["protocolVersion"], version, "{report:#}");
    // a pinned Python client adopts 2026-07-28 without asking the server who it is
    if !matches!(driver, Driver::PythonPinned) {
        assert_eq!(report["serverInfo"]["name"], "library");
    }

    // The era on the wire: a handshake first in the initialize era; in 2026-07-28 none, and
    // every request carries the revision in its `_meta`.
    let sent = report["sent"].as_array().expect("the messages sent");
    let methods: Vec<&str> = sent
        .iter()
        .map(|m| m["method"].as_str().unwrap_or_default())
        .collect();
    if stateless {
        assert!(!methods.contains(&"initialize"), "{methods:?}");
        for message in sent.iter().filter(|m| m["request"] == true) {
            assert_eq!(message["protocolVersionMeta"], version, "{message}");
        }
    } else {
        assert_eq!(methods[..2], ["initialize", "notifications/initialized"]);
        assert!(
            sent.iter().all(|m| m["protocolVersionMeta"].is_null()),
            "{sent:?}"
        );
    }

    // Tools: listed with their schemas, structured results, content of each kind, and errors.
    assert_eq!(names(&report["tools"], "name"), ["add", "logo"]);
    assert_eq!(
        report["tools"][0]["outputSchema"]["required"],
        json!(["sum"])
    );
    let add = &report["add"];
    assert_ne!(add["isError"], true, "{add}");
    assert_eq!(add["structuredContent"]["sum"].as_f64(), Some(6.0), "{add}");
    let text: Value = serde_json::from_str(first_text(add)).expect("the sum as JSON text too");
    assert_eq!(text["sum"].as_f64(), Some(6.0));
    let invalid = &report["addInvalid"];
    assert_eq!(invalid["isError"], true, "{invalid}");
    assert!(first_text(invalid).contains("numbers"), "{invalid}");
    let logo = &report["logo"]["content"];
    assert_eq!(logo[0]["text"], "Here is the logo:");
    assert_eq!(logo[1]["type"], "image");
    assert_eq!(logo[1]["mimeType"], "image/png");
    assert!(
        logo[1]["data"]
            .as_str()
            .is_some_and(|d| d.starts_with("iVBORw0KGgo")),
        "{logo}"
    );
    assert_eq!(report["unknownTool"]["wire"]["code"], -32602, "{report:#}");

    // Resources and templates, and the era's "resource not found" error.
    assert_eq!(names(&report["resources"], "uri"), ["file:///readme.txt"]);
    assert_eq!(first_text(&report["readme"]), "Read me first.");
    assert_eq!(
        names(&report["templates"], "uriTemplate"),
        ["people://{id}"]
    );
    assert_eq!(first_text(&report["ada"]), "Ada Lovelace");
    let nobody = &report["nobody"]["wire"];
    assert_eq!(
        nobody["code"],
        if stateless { -32602 } else { -32002 },
        "{nobody}"
    );
    assert_eq!(nobody["data"]["uri"], "people://nobody");

    // Prompts and completion.
    assert_eq!(names(&report["prompts"], "name"), ["introduce"]);
    assert_eq!(
        first_text(&report["introduce"]),
        "Introduce Ada Lovelace in one sentence."
    );
    assert_eq!(report["completion"]["values"], json!(["ada", "alan"]));
}
