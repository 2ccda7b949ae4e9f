//! `cargo xtask package`: every publishable crate packages, and each package checks from its own
//! files; the facade's, with each of its features.
//!
//! `cargo publish --workspace --dry-run` packages the crates in dependency order and would
//! verify each by building it alone from its package: ten builds, each compiling again every
//! presa crate it depends on (the packages' sources are new paths), about twelve minutes on
//! two cores. This task runs the same command with `--no-verify`, then `cargo package` (which
//! leaves the same packages in `target/package`), unpacks the packages into one scratch
//! workspace whose `[patch.crates-io]` points each presa crate at its unpacked package, and
//! checks there with cargo-hack, without dev-dependencies: every package alone with its default
//! features (what publishing would build), and the facade `presa` with none and with each of
//! its features alone (each turns on the features of the crates below it that it stands for:
//! the combinations a user picks). A file missing from a package, a dependency without a
//! version, or a facade feature that does not build on its own fails it.
//!
//! The check has a target directory of its own (`target/package-check/target`), so that it can
//! run beside other cargo commands of the workspace without waiting for their lock.

use std::fmt::Write as _;
use std::path::Path;
use std::process::{Command, ExitCode};

use serde_json::Value;

pub(crate) const USAGE: &str = "usage: cargo xtask package

Packages every publishable crate (cargo publish --workspace --dry-run --no-verify
--allow-dirty: the working tree as it is; then cargo package, which leaves the same
packages in target/package), unpacks the packages into target/package-check, each presa
crate resolved to its package, and checks there each package with its default features
(cargo hack check --workspace --no-dev-deps) and the facade presa with none and with each
feature alone (--each-feature), in target/package-check/target.";

pub(crate) fn run(args: &[String]) -> ExitCode {
    if let Some(arg) = args.first() {
        eprintln!("xtask package: unknown argument {arg}\n\n{USAGE}");
        return ExitCode::from(2);
    }
    match package() {
        Ok(count) => {
            println!(
                "xtask package: {count} crates packaged, each checked from its package, the \
                 facade with each of its features"
            );
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("xtask package: {error}");
            ExitCode::FAILURE
        }
    }
}

/// Packages, unpacks and checks; returns how many crates were packaged.
fn package() -> Result<usize, String> {
    let root = crate::workspace_root();
    let target = crate::target_dir();
    let packages = target.join("package");
    let scratch = target.join("package-check");
    // the previous packages go; the scratch workspace's target directory stays (what the
    // dependencies' checks left there is still good)
    if packages.exists() {
        remove(&packages)?;
    }
    if scratch.exists() {
        for entry in crate::entries(&scratch)? {
            if entry.file_name().is_some_and(|name| name != "target") {
                remove(&entry)?;
            }
        }
    }
    crate::run_command(crate::cargo().current_dir(&root).args([
        "publish",
        "--workspace",
        "--dry-run",
        "--no-verify",
        "--allow-dirty",
    ]))?;
    // the same packages where `cargo package` documents them: target/package/<name>-<version>.crate
    let mut cargo_package = crate::cargo();
    cargo_package
        .current_dir(&root)
        .args(["package", "--no-verify", "--allow-dirty"]);
    for name in publishable(&root)? {
        cargo_package.args(["--package", &name]);
    }
    crate::run_command(&mut cargo_package)?;

    std::fs::create_dir_all(&scratch)
        .map_err(|e| format!("cannot create {}: {e}", scratch.display()))?;
    let mut crates = Vec::new();
    for path in crate::entries(&packages)? {
        let Some(file) = path.file_name().and_then(|n| n.to_str()) else {
            continue;
        };
        let Some(dir) = file.strip_suffix(".crate") else {
            continue;
        };
        crate::run_command(
            Command::new("tar")
                .arg("-xzf")
                .arg(&path)
                .arg("-C")
                .arg(&scratch),
        )?;
        match package_name(&scratch.join(dir))? {
            Some(name) => crates.push((name, dir.to_owned())),
            None => return Err(format!("the package {file} names no [package] name")),
        }
    }
    if crates.is_empty() {
        return Err(format!(
            "cargo package left no package in {}",
            packages.display()
        ));
    }
    crates.sort();

    std::fs::write(scratch.join("Cargo.toml"), scratch_manifest(&crates))
        .map_err(|e| format!("cannot write {}: {e}", scratch.display()))?;
    // the workspace's lockfile: the packages build against the versions presa is tested with
    std::fs::copy(root.join("Cargo.lock"), scratch.join("Cargo.lock"))
        .map_err(|e| format!("cannot copy Cargo.lock: {e}"))?;
    crate::tools::ensure(&crate::tools::CARGO_HACK)?;
    let each_package = ["--workspace"].as_slice();
    let facade_features = ["--package", "presa", "--each-feature"].as_slice();
    for selection in [each_package, facade_features] {
        crate::run_command(
            crate::cargo()
                .current_dir(&scratch)
                .args(["hack", "check", "--no-dev-deps"])
                .args(selection)
                .env("CARGO_TARGET_DIR", scratch.join("target")),
        )?;
    }
    Ok(crates.len())
}

/// Removes a file or a folder.
fn remove(path: &Path) -> Result<(), String> {
    let removed = if path.is_dir() {
        std::fs::remove_dir_all(path)
    } else {
        std::fs::remove_file(path)
    };
    removed.map_err(|e| format!("cannot remove {}: {e}", path.display()))
}

/// The workspace's packages that may be published (`publish` not `false`), by name.
fn publishable(root: &Path) -> Result<Vec<String>, String> {
    let output = crate::cargo()
        .current_dir(root)
        .args(["metadata", "--no-deps", "--format-version", "1"])
        .output()
        .map_err(|e| format!("cannot run cargo metadata: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "cargo metadata failed: {}",
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let metadata: Value = serde_json::from_slice(&output.stdout)
        .map_err(|e| format!("cargo metadata printed no JSON: {e}"))?;
    Ok(publishable_in(&metadata))
}

/// The names of `cargo metadata`'s packages whose `publish` is not an empty list
/// (`publish = false`).
fn publishable_in(metadata: &Value) -> Vec<String> {
    metadata["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|package| {
            package["publish"]
                .as_array()
                .is_none_or(|to| !to.is_empty())
        })
        .filter_map(|package| package["name"].as_str().map(str::to_owned))
        .collect()
}

/// The `name` of the package unpacked in `dir`, read from its normalized manifest.
fn package_name(dir: &Path) -> Result<Option<String>, String> {
    let manifest = crate::read(&dir.join("Cargo.toml"))?;
    let mut in_package = false;
    for line in manifest.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_package = line == "[package]";
        } else if in_package && let Some(value) = line.strip_prefix("name = ") {
            return Ok(Some(value.trim_matches('"').to_owned()));
        }
    }
    Ok(None)
}

/// A workspace of the unpacked packages, each presa crate patched to its package.
fn scratch_manifest(crates: &[(String, String)]) -> String {
    let mut manifest = String::from(
        "# written by cargo xtask package: the packages as published, checked together\n\
         [workspace]\nresolver = \"3\"\nmembers = [\n",
    );
    for (_, dir) in crates {
        let _ = writeln!(manifest, "    \"{dir}\",");
    }
    manifest.push_str("]\n\n[patch.crates-io]\n");
    for (name, dir) in crates {
        let _ = writeln!(manifest, "{name} = {{ path = \"{dir}\" }}");
    }
    manifest
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn the_scratch_workspace_patches_each_crate_to_its_package() {
        let manifest = scratch_manifest(&[
            ("presa".to_owned(), "presa-0.1.0".to_owned()),
            ("presa-core".to_owned(), "presa-core-0.1.0".to_owned()),
        ]);
        assert!(
            manifest.contains("members = [\n    \"presa-0.1.0\",\n    \"presa-core-0.1.0\",\n]")
        );
        assert!(manifest.contains("[patch.crates-io]\npresa = { path = \"presa-0.1.0\" }\n"));
        assert!(manifest.contains("presa-core = { path = \"presa-core-0.1.0\" }\n"));
    }

    #[test]
    fn publish_false_packages_are_left_out() {
        let metadata = serde_json::json!({"packages": [
            {"name": "presa", "publish": null},
            {"name": "xtask", "publish": []},
            {"name": "internal", "publish": ["company-registry"]},
        ]});
        assert_eq!(publishable_in(&metadata), ["presa", "internal"]);
    }

    #[test]
    fn the_package_name_comes_from_the_package_table() {
        let dir = std::env::temp_dir().join(format!("xtask-package-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("Cargo.toml"),
            "[dependencies.presa-core]\nname = \"not-this\"\n\n[package]\nedition = \"2024\"\nname = \"presa-http\"\n",
        )
        .unwrap();
        let name = package_name(&dir).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(name.as_deref(), Some("presa-http"));
    }
}
