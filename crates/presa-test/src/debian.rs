//! Debian packages the tests need, installed with `apt-get` when the machine lacks them.

use std::fs::File;
use std::process::{Command, Stdio};

/// Makes sure `command` runs (`command version_flag` succeeds), installing Debian's `package`
/// first if it does not: `apt-get update`, then `apt-get install`, under a lock file shared by
/// every test process of the machine (so concurrent tests install once). Panics with apt's
/// output if that fails.
pub fn ensure(command: &str, version_flag: &str, package: &str) {
    if runs(command, version_flag) {
        return;
    }
    let lock = File::create(std::env::temp_dir().join("presa-apt.lock")).unwrap();
    lock.lock().unwrap();
    if runs(command, version_flag) {
        return;
    }
    eprintln!("presa-test: installing Debian's {package} for `{command}`");
    apt(&["update", "-qq"]);
    apt(&["install", "-y", "-qq", "--no-install-recommends", package]);
    assert!(
        runs(command, version_flag),
        "`{command}` does not run after installing {package}"
    );
}

fn runs(command: &str, version_flag: &str) -> bool {
    Command::new(command)
        .arg(version_flag)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success())
}

fn apt(args: &[&str]) {
    let output = Command::new("apt-get")
        .args(args)
        .env("DEBIAN_FRONTEND", "noninteractive")
        .output()
        .unwrap_or_else(|e| panic!("could not run apt-get (a Debian machine is needed): {e}"));
    assert!(
        output.status.success(),
        "apt-get {} failed ({}):\n{}\n{}",
        args.join(" "),
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}
