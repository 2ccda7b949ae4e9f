//! `cargo xtask tools`: the cargo-installed tools presa's checks use, each at a pinned version,
//! installed with `cargo install --locked` when that version is missing.
//!
//! They are installed as debug builds (`--debug`): the work each does here is small (a license
//! scan, a site of a few dozen pages), and cargo-deny's and cargo-hack's release profiles (fat
//! LTO, one codegen unit) made their installs a good part of a clean CI run.

use std::process::{Command, ExitCode};

pub(crate) const USAGE: &str = "usage: cargo xtask tools

Installs every tool presa's checks use that is missing at its pinned version (cargo install
--locked --debug): cargo-deny, cargo-machete, cargo-hack, cargo-fuzz, mdbook, mdbook-mermaid.
The tasks that need one (fuzz, docs, package) install it themselves too.";

/// A tool installed from crates.io.
pub(crate) struct Tool {
    /// The crate, which is also the program's name.
    pub(crate) name: &'static str,
    pub(crate) version: &'static str,
    /// The command that prints its version.
    version_command: &'static [&'static str],
    /// Further `cargo install` arguments: the features the checks need, no more.
    install_args: &'static [&'static str],
}

pub(crate) const CARGO_DENY: Tool = Tool {
    name: "cargo-deny",
    version: "0.20.2",
    version_command: &["cargo", "deny", "--version"],
    install_args: &[],
};
pub(crate) const CARGO_MACHETE: Tool = Tool {
    name: "cargo-machete",
    version: "0.9.2",
    // the program itself: as `cargo machete` inside a cargo command (CARGO_PKG_NAME set), it
    // takes `machete` and `--version` for folders to scan
    version_command: &["cargo-machete", "--version"],
    install_args: &[],
};
pub(crate) const CARGO_HACK: Tool = Tool {
    name: "cargo-hack",
    version: "0.6.46",
    version_command: &["cargo", "hack", "--version"],
    install_args: &[],
};
pub(crate) const CARGO_FUZZ: Tool = Tool {
    name: "cargo-fuzz",
    version: "0.13.1",
    version_command: &["cargo", "fuzz", "--version"],
    install_args: &[],
};
/// Without its `serve` and `watch` features (an HTTP server and a file watcher the site's build
/// does not use, and most of mdbook's compile time); with its search index.
pub(crate) const MDBOOK: Tool = Tool {
    name: "mdbook",
    version: "0.5.4",
    version_command: &["mdbook", "--version"],
    install_args: &["--no-default-features", "--features", "search"],
};
pub(crate) const MDBOOK_MERMAID: Tool = Tool {
    name: "mdbook-mermaid",
    version: "0.17.1",
    version_command: &["mdbook-mermaid", "--version"],
    install_args: &[],
};

const ALL: [Tool; 6] = [
    CARGO_DENY,
    CARGO_MACHETE,
    MDBOOK,
    MDBOOK_MERMAID,
    CARGO_HACK,
    CARGO_FUZZ,
];

pub(crate) fn run(args: &[String]) -> ExitCode {
    if let Some(arg) = args.first() {
        eprintln!("xtask tools: unknown argument {arg}\n\n{USAGE}");
        return ExitCode::from(2);
    }
    for tool in &ALL {
        if let Err(error) = ensure(tool) {
            eprintln!("xtask tools: {error}");
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}

/// Installs `tool` unless its pinned version is the one found.
pub(crate) fn ensure(tool: &Tool) -> Result<(), String> {
    if installed(tool) {
        return Ok(());
    }
    println!("xtask: installing {} {}", tool.name, tool.version);
    crate::run_command(
        crate::cargo()
            .args(["install", "--locked", "--debug", tool.name])
            .args(["--version", tool.version])
            .args(tool.install_args),
    )?;
    if installed(tool) {
        Ok(())
    } else {
        Err(format!(
            "{} {} was installed, but another version is found first on PATH",
            tool.name, tool.version
        ))
    }
}

/// Whether the tool's version command prints its pinned version.
fn installed(tool: &Tool) -> bool {
    let Some((program, args)) = tool.version_command.split_first() else {
        return false;
    };
    Command::new(program)
        .args(args)
        .output()
        .is_ok_and(|out| names_version(&String::from_utf8_lossy(&out.stdout), tool.version))
}

/// Whether a `--version` line names `version` as a word of its own (`mdbook v0.5.4`,
/// `cargo-hack 0.6.46`), not as the start of another (`0.9.20`).
fn names_version(printed: &str, version: &str) -> bool {
    printed
        .split_whitespace()
        .any(|word| word.trim_start_matches('v') == version)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_version_is_a_whole_word() {
        assert!(names_version("mdbook v0.5.4\n", "0.5.4"));
        assert!(names_version("cargo-hack 0.6.46", "0.6.46"));
        assert!(names_version("0.9.2\n", "0.9.2"));
        assert!(!names_version("0.9.20", "0.9.2"));
        assert!(!names_version("", "0.9.2"));
    }
}
