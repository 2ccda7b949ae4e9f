//! Unit tests of conformance.rs.

#![allow(clippy::unwrap_used)]

use super::*;

#[test]
fn scenario_names_come_from_result_directories() {
    let name = |p: &str, side| scenario_name(Path::new(p), side);
    assert_eq!(
        name("server-tools-list-2026-11-30T13-10-28-180Z", Side::Server).as_deref(),
        Some("tools-list")
    );
    assert_eq!(
        name("auth/metadata-var2-2026-11-30T13-10-28-180Z", Side::Client).as_deref(),
        Some("auth/metadata-var2")
    );
    assert_eq!(
        name(
            "sep-2322-client-request-state-2026-11-30T13-10-28-180Z",
            Side::Client
        )
        .as_deref(),
        Some("sep-2322-client-request-state")
    );
}

fn allowed() -> Listing {
    let mut allowed = Listing::new();
    allowed
        .entry("tasks-status-notifications".into())
        .or_default()
        .insert("TasksStatusNotificationsScenario".into(), "upstream".into());
    allowed
        .entry("http-standard-headers".into())
        .or_default()
        .insert(
            "ClientMcpMethodHeader_initialize".into(),
            "no handshake".into(),
        );
    allowed
}

#[test]
fn a_listed_skip_passes_and_any_other_skip_fails() {
    let allowed = allowed();
    let skipped = Outcome {
        skipped: 1,
        skipped_checks: vec!["TasksStatusNotificationsScenario".into()],
        ..Outcome::default()
    };
    assert!(skipped.passed("tasks-status-notifications", &allowed));
    assert!(!skipped.passed("tasks-lifecycle", &allowed));
    let failed = Outcome {
        failure: 1,
        ..skipped.clone()
    };
    assert!(!failed.passed("tasks-status-notifications", &allowed));
    let mixed = Outcome {
        success: 9,
        skipped: 2,
        skipped_checks: vec![
            "ClientMcpMethodHeader_initialize".into(),
            "ClientMcpNameHeader_tools_call".into(),
        ],
        ..Outcome::default()
    };
    assert!(!mixed.passed("http-standard-headers", &allowed));
    assert_eq!(
        mixed.unexpected_skips("http-standard-headers", &allowed),
        ["ClientMcpNameHeader_tools_call"]
    );
}

#[test]
fn nothing_ran_is_no_pass() {
    assert!(!Outcome::default().passed("initialize", &allowed()));
    let warned = Outcome {
        success: 3,
        warning: 1,
        ..Outcome::default()
    };
    assert!(!warned.passed("tools-list", &allowed()));
}

#[test]
fn listings_need_a_reason_for_every_entry() {
    let dir = std::env::temp_dir().join(format!("xtask-listing-{}", std::process::id()));
    fs::create_dir_all(&dir).unwrap();
    let path = dir.join("skips.yml");
    fs::write(
        &path,
        "# comment\nscenario-a:\n  - check-1  # why\n\nscenario-b:\n",
    )
    .unwrap();
    let read = listing(&path).unwrap();
    assert_eq!(read["scenario-a"]["check-1"], "why");
    assert!(read["scenario-b"].is_empty());
    fs::write(&path, "scenario-a:\n  - check-1\n").unwrap();
    assert!(listing(&path).unwrap_err().contains("needs a reason"));
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn options_parse() {
    let args: Vec<String> = [
        "--side",
        "server",
        "--revision",
        "2026-07-28",
        "--no-informational",
    ]
    .map(String::from)
    .to_vec();
    let Ok(s) = parse(&args) else {
        panic!("the options did not parse")
    };
    assert_eq!(
        (s.sides, s.revisions, s.informational),
        (vec![Side::Server], vec!["2026-07-28".to_owned()], false)
    );
    assert!(parse(&["--side".to_owned(), "both".to_owned()]).is_err());
}
