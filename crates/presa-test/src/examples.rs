//! presa's examples, built for a test: the same build whichever crate's test asks, so that two
//! test binaries asking for one example with the same features build it once; and the cargo
//! command those builds (and `cargo xtask`'s) run, which finds the tree the outer cargo built.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The workspace's root folder.
pub fn workspace_root() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    root.canonicalize().unwrap_or(root)
}

/// `target/<profile>`, where the running test binary lives (in `deps/`) and the examples are
/// built.
pub fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary's path");
    exe.parent()
        .and_then(Path::parent)
        .expect("the test binary lives in target/<profile>/deps")
        .to_path_buf()
}

/// `cargo` (the one running this process, `CARGO`, else the one on `PATH`) for a build nested
/// in a cargo command, such as a test's or `cargo xtask`'s: without the variables cargo sets for
/// the package it runs (`CARGO_PKG_*`, `CARGO_MANIFEST_*`, `CARGO_CRATE_NAME`…). Build scripts
/// that track one of them (ring's tracks `CARGO_MANIFEST_DIR`) would otherwise see a change and
/// rerun, and everything above them would be compiled again.
pub fn cargo() -> Command {
    let mut cargo = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    for (key, _) in std::env::vars_os() {
        let key = key.to_string_lossy();
        let of_the_package = key.starts_with("CARGO_PKG_")
            || key.starts_with("CARGO_MANIFEST_")
            || matches!(
                &*key,
                "CARGO_CRATE_NAME" | "CARGO_BIN_NAME" | "CARGO_PRIMARY_PACKAGE"
            );
        if of_the_package {
            cargo.env_remove(&*key);
        }
    }
    cargo
}

/// Builds example `name` of the `presa` crate with `features` (and no others), in the running
/// test binary's profile; returns its binary.
pub fn build(name: &str, features: &[&str]) -> PathBuf {
    let dir = profile_dir();
    let profile = match dir.file_name().and_then(|dir| dir.to_str()) {
        Some("debug") => "dev".to_owned(),
        Some(profile) => profile.to_owned(),
        None => panic!("no profile directory in {}", dir.display()),
    };
    let mut cargo = cargo();
    cargo
        .args(["build", "--quiet", "-p", "presa", "--example", name])
        .args(["--profile", &profile, "--no-default-features", "--features"])
        .arg(features.join(","))
        .current_dir(workspace_root());
    let status = cargo.status().expect("cargo build of an example");
    assert!(
        status.success(),
        "building the {name} example failed: {status}"
    );
    dir.join("examples")
        .join(format!("{name}{}", std::env::consts::EXE_SUFFIX))
}
