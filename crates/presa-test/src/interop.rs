//! The independent MCP implementations the interop tests run against, installed from package
//! registries, pinned by files of `interop/`, by the first test that needs them, under a lock
//! file in the target directory (so concurrent test processes, of any crate, install once):
//!
//! - npm: `interop/node/package.json` and its committed lockfile, installed with `npm ci` into
//!   `interop/node/node_modules`, reused while that install is newer than the lockfile (as
//!   `cargo xtask conformance` does). Run with the machine's `node` (20 or later).
//! - PyPI: `interop/python/requirements.txt`, every package pinned, installed with pip into a
//!   virtualenv made by the machine's `python3` (3.10 or later) under the target directory,
//!   reused while the requirements it was made from are unchanged.
//!
//! A failed install fails the test that needed it: nothing is skipped.

use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Instant;

use crate::examples::{profile_dir, workspace_root as root};

/// The independent implementations installed from the npm registry, and Node.js to run them.
#[derive(Debug)]
pub struct Node {
    dir: PathBuf,
}

/// The npm install of `interop/node`, made on first use (see the module docs).
pub fn node() -> &'static Node {
    static NODE: OnceLock<Node> = OnceLock::new();
    NODE.get_or_init(|| {
        let dir = root().join("interop/node");
        npm_ci(&dir);
        Node { dir }
    })
}

/// Runs `npm ci` in `dir` unless its install is newer than its lockfile.
fn npm_ci(dir: &Path) {
    let _lock = install_lock("interop-node.lock");
    let modified = |path: PathBuf| fs::metadata(path).and_then(|m| m.modified()).ok();
    let lockfile = modified(dir.join("package-lock.json")).expect("interop/node/package-lock.json");
    if modified(dir.join("node_modules/.package-lock.json")).is_some_and(|i| i >= lockfile) {
        return;
    }
    let started = Instant::now();
    let mut npm = Command::new("npm");
    npm.args(["ci", "--no-audit", "--no-fund", "--loglevel=error"])
        .current_dir(dir);
    run_install(npm, "Node.js 20 or later with npm");
    eprintln!(
        "interop: npm ci in {} took {:.1?}",
        dir.display(),
        started.elapsed()
    );
}

/// Holds an exclusive lock on a file of the target directory until dropped.
// `File::lock` is newer than the workspace's rust-version; these tests only run on the
// toolchain that builds them.
fn install_lock(name: &str) -> File {
    let lock = File::create(profile_dir().join(name)).expect("the install lock");
    lock.lock().expect("the install lock");
    lock
}

/// Runs an install step; panics with its output if it fails.
fn run_install(mut command: Command, needs: &str) {
    let output = command
        .output()
        .unwrap_or_else(|e| panic!("could not run {command:?} ({needs} is required): {e}"));
    assert!(
        output.status.success(),
        "{command:?} failed ({}):\n{}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

impl Node {
    /// A file of `interop/node`, such as a script or an installed package's entry point.
    pub fn path(&self, relative: &str) -> PathBuf {
        self.dir.join(relative)
    }

    /// `node SCRIPT`, for a script of `interop/node`, run from there.
    pub fn script(&self, script: &str) -> Command {
        let mut command = Command::new("node");
        command.arg(self.path(script)).current_dir(&self.dir);
        command
    }
}

/// The Python MCP SDK installed from PyPI into a virtualenv, and the scripts that use it.
#[derive(Debug)]
pub struct Python {
    dir: PathBuf,
    venv: PathBuf,
}

/// The virtualenv of `interop/python`, made on first use (see the module docs).
pub fn python() -> &'static Python {
    static PYTHON: OnceLock<Python> = OnceLock::new();
    PYTHON.get_or_init(|| {
        let python = Python {
            dir: root().join("interop/python"),
            venv: profile_dir().join("interop-python"),
        };
        python.install();
        python
    })
}

impl Python {
    /// Makes the virtualenv and installs the requirements unless it was made from the same
    /// requirements.
    fn install(&self) {
        let _lock = install_lock("interop-python.lock");
        let requirements = self.dir.join("requirements.txt");
        let wanted = fs::read(&requirements).expect("interop/python/requirements.txt");
        let installed = self.venv.join("presa-requirements.txt");
        if fs::read(&installed).is_ok_and(|had| had == wanted) {
            return;
        }
        let started = Instant::now();
        if self.venv.exists() {
            fs::remove_dir_all(&self.venv).expect("removing the outdated virtualenv");
        }
        let mut venv = Command::new("python3");
        venv.args(["-m", "venv"]).arg(&self.venv);
        run_install(venv, "Python 3.10 or later with venv");
        let mut pip = Command::new(self.venv.join("bin/pip"));
        pip.args([
            "install",
            "--disable-pip-version-check",
            "--no-input",
            "--quiet",
            "-r",
        ])
        .arg(&requirements);
        run_install(pip, "pip");
        fs::write(&installed, wanted).expect("recording the installed requirements");
        eprintln!(
            "interop: the Python virtualenv took {:.1?}",
            started.elapsed()
        );
    }

    /// A file of `interop/python`.
    pub fn path(&self, relative: &str) -> PathBuf {
        self.dir.join(relative)
    }

    /// A program the virtualenv installed, such as a server's console script.
    pub fn program(&self, name: &str) -> PathBuf {
        self.venv.join("bin").join(name)
    }

    /// `python SCRIPT` in the virtualenv, for a script of `interop/python`, run from there.
    pub fn script(&self, script: &str) -> Command {
        let mut command = Command::new(self.venv.join("bin/python"));
        command.arg(self.path(script)).current_dir(&self.dir);
        command
    }
}
