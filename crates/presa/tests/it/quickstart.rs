//! The README's quickstart, as a user follows it: its `Cargo.toml` lines and its `src/main.rs`
//! in a crate of their own outside this workspace (with `presa` pointing at this checkout), built
//! with cargo and driven over stdio.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{Value, json};

fn root() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    root.canonicalize().unwrap_or(root)
}

/// The first fenced block of the README opening with "```{lang}".
fn block<'a>(readme: &'a str, lang: &str) -> &'a str {
    let fence = format!("```{lang}\n");
    let start = readme.find(&fence).expect("the README has the block") + fence.len();
    let len = readme[start..].find("```").expect("the block ends");
    &readme[start..start + len]
}

#[test]
fn the_readme_quickstart_builds_and_serves_from_a_crate_of_its_own() {
    let root = root();
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let manifest = block(&readme, "toml");
    let main = block(&readme, "rust,no_run");
    assert!(manifest.contains("presa = \"0.1\""), "{manifest}");
    // the published version, as a path to this checkout
    let presa = format!("presa = {{ path = {:?} }}", root.join("crates/presa"));
    let manifest = manifest.replace("presa = \"0.1\"", &presa);

    let target = root.join("target");
    let dir = target.join("quickstart");
    std::fs::create_dir_all(dir.join("src")).unwrap();
    let package = "[package]\nname = \"quickstart\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n";
    // an empty [workspace]: the crate is not a member of presa's workspace
    let toml = format!("{package}{manifest}\n[workspace]\n");
    std::fs::write(dir.join("Cargo.toml"), toml).unwrap();
    std::fs::write(dir.join("src/main.rs"), main).unwrap();
    // presa's own lock file, so that the build resolves the versions presa is tested with
    std::fs::copy(root.join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();

    let status = Command::new(env!("CARGO"))
        .args(["build", "--quiet"])
        .env("CARGO_TARGET_DIR", &target)
        .current_dir(&dir)
        .status()
        .unwrap();
    assert!(status.success(), "the quickstart crate did not build");

    let mut server = Command::new(target.join("debug/quickstart"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = server.stdin.take().unwrap();
    let mut stdout = BufReader::new(server.stdout.take().unwrap());
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "quickstart-test", "version": "1.0.0"}
    });
    let requests = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta}}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
               "params": {"name": "add", "arguments": {"a": 1, "b": 2.5}, "_meta": meta}}),
    ];
    let mut answers = Vec::new();
    for request in requests {
        writeln!(stdin, "{request}").unwrap();
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        answers.push(serde_json::from_str::<Value>(&line).unwrap());
    }
    drop(stdin);
    assert!(server.wait().unwrap().success());

    let tool = &answers[0]["result"]["tools"][0];
    assert_eq!(tool["name"], "add", "{}", answers[0]);
    assert_eq!(tool["description"], "Add two numbers.");
    assert_eq!(tool["inputSchema"]["required"], json!(["a", "b"]));
    assert_eq!(tool["outputSchema"]["properties"]["sum"]["type"], "number");
    assert_eq!(
        answers[1]["result"]["structuredContent"],
        json!({"sum": 3.5}),
        "{}",
        answers[1]
    );
}
