//! presa's examples, built for a test: the same build whichever crate's test asks, so that two
//! test binaries asking for one example with the same features build it once.

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

/// Builds example `name` of the `presa` crate with `features` (and no others), in the running
/// test binary's profile; returns its binary.
pub fn build(name: &str, features: &[&str]) -> PathBuf {
    let dir = profile_dir();
    let profile = match dir.file_name().and_then(|dir| dir.to_str()) {
        Some("debug") => "dev".to_owned(),
        Some(profile) => profile.to_owned(),
        None => panic!("no profile directory in {}", dir.display()),
    };
    let mut cargo = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    cargo
        .args(["build", "--quiet", "-p", "presa", "--example", name])
        .args(["--profile", &profile, "--no-default-features", "--features"])
        .arg(features.join(","))
        .current_dir(workspace_root());
    // Cargo's variables describing the testing package would make the nested build look like
    // a different one (build scripts that track them rerun), and rebuild half the tree.
    for (key, _) in std::env::vars_os() {
        let key = key.to_string_lossy();
        if key.starts_with("CARGO_PKG_") || key.starts_with("CARGO_MANIFEST_") {
            cargo.env_remove(&*key);
        }
    }
    let status = cargo.status().expect("cargo build of an example");
    assert!(
        status.success(),
        "building the {name} example failed: {status}"
    );
    dir.join("examples")
        .join(format!("{name}{}", std::env::consts::EXE_SUFFIX))
}
