//! The Skills extension (SEP-2640) end to end: a server serving a directory of skill folders, a
//! client listing them without reading a file, loading one verified, browsing its directories;
//! what is refused at load; and a tampered file caught by the client.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use presa::client::{Client, ClientOptions, SkillLoadError};
use presa::core::skills::{
    DIRECTORY_MIME_TYPE, ReadResourceDirectory, ReadResourceDirectoryRequestParams,
    SKILLS_EXTENSION, SkillResources, sha256_digest,
};
use presa::core::{ErrorCode, Implementation, Resource, Tool};
use presa::server::{Context, Server, SkillError, Skills};
use serde_json::{Value, json};

use crate::harness::GUARD;

/// A directory of its own under the system's temporary directory, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new() -> Self {
        static COUNT: AtomicU64 = AtomicU64::new(0);
        let name = format!(
            "presa-skills-{}-{}",
            std::process::id(),
            COUNT.fetch_add(1, Ordering::Relaxed)
        );
        let dir = std::env::temp_dir().join(name);
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }

    fn write(&self, path: &str, text: &str) -> PathBuf {
        let path = self.0.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        path
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn skill_md(name: &str, description: &str) -> String {
    format!(
        "---\nname: {name}\ndescription: {description}\nmetadata:\n  version: \"2.1\"\n---\n\n# {name}\n"
    )
}

fn skills_dir() -> Scratch {
    let dir = Scratch::new();
    dir.write(
        "pdf-processing/SKILL.md",
        &skill_md("pdf-processing", "Fill PDF forms"),
    );
    dir.write("pdf-processing/references/FORMS.md", "Fill every field.\n");
    dir.write("pdf-processing/templates/regional/eu.md", "EU invoice\n");
    dir.write(
        "acme/billing/refunds/SKILL.md",
        &skill_md("refunds", "Refund orders"),
    );
    dir.write("acme/billing/refunds/.hidden", "not served\n");
    dir.write("NOTES.md", "outside every skill: not served\n");
    dir
}

async fn connect(server: Server) -> Client {
    let options = ClientOptions::new(Implementation::new("skills-test", "1.0.0"));
    Client::connect(presa::in_process(server), options)
        .await
        .unwrap()
}

#[tokio::test]
async fn a_client_lists_loads_and_browses_the_skills_of_a_directory() {
    let dir = skills_dir();
    let skills = Skills::from_dir(&dir.0).unwrap().page_size(1);
    let server = Server::builder("skills", "1.0.0")
        .with(skills)
        .build()
        .unwrap();
    let client = connect(server).await;
    assert_eq!(
        client.server_extensions()[SKILLS_EXTENSION],
        json!({"directoryRead": true})
    );

    // every page, in skill-path order; files listed with digests, none read
    let listed = client.skills().await.unwrap();
    let uris: Vec<&str> = listed.iter().map(|s| s.uri.as_str()).collect();
    assert_eq!(
        uris,
        [
            "skill://acme/billing/refunds/SKILL.md",
            "skill://pdf-processing/SKILL.md"
        ]
    );
    let pdf = &listed[1];
    assert_eq!(pdf.frontmatter["metadata"], json!({"version": "2.1"}));
    let SkillResources::Listed(files) = &pdf.resources else {
        panic!("{:?}", pdf.resources);
    };
    let file_uris: Vec<&str> = files.iter().map(|f| f.uri.as_str()).collect();
    assert_eq!(
        file_uris,
        [
            "skill://pdf-processing/SKILL.md",
            "skill://pdf-processing/references/FORMS.md",
            "skill://pdf-processing/templates/regional/eu.md",
        ]
    );
    assert_eq!(files[1].digest, sha256_digest(b"Fill every field.\n"));

    // loading reads SKILL.md first and verifies everything
    let loaded = client
        .load_skill("skill://pdf-processing/SKILL.md")
        .await
        .unwrap();
    assert!(loaded.skill_md().starts_with("---\nname: pdf-processing\n"));
    assert_eq!(loaded.files.len(), 3);
    let forms = loaded
        .file("skill://pdf-processing/references/FORMS.md")
        .unwrap();
    assert_eq!(forms.bytes, b"Fill every field.\n");

    // a skill that is not served, and a path that climbs out, are not found
    let unknown = client
        .load_skill("skill://nope/SKILL.md")
        .await
        .unwrap_err();
    let SkillLoadError::Client(error) = unknown else {
        panic!("{unknown}");
    };
    assert_eq!(
        error.as_server_error().unwrap().code,
        ErrorCode::INVALID_PARAMS
    );
    for uri in [
        "skill://pdf-processing/../acme/billing/refunds/.hidden",
        "skill://acme/billing/refunds/.hidden",
        "skill://NOTES.md",
    ] {
        assert!(client.read_resource(uri).await.is_err(), "{uri} was served");
    }

    // directories, from the authority down; a file is not one
    // every page of a directory (a page holds one child here)
    let browse = |uri: &str| {
        let client = client.clone();
        let uri = uri.to_owned();
        async move {
            let mut children = Vec::new();
            let mut cursor = None;
            loop {
                let params = ReadResourceDirectoryRequestParams {
                    uri: uri.clone(),
                    cursor: cursor.take(),
                    ..Default::default()
                };
                let page = client.request::<ReadResourceDirectory>(&params).await?;
                children.extend(page.resources);
                match page.next_cursor {
                    Some(next) => cursor = Some(next),
                    None => return Ok::<_, presa::client::ClientError>(children),
                }
            }
        }
    };
    let children = |resources: Vec<Resource>| -> Vec<(String, Option<String>)> {
        resources
            .into_iter()
            .map(|r| (r.name, r.mime_type))
            .collect()
    };
    let root = browse("skill://pdf-processing").await.unwrap();
    assert_eq!(
        children(root),
        [
            ("SKILL.md".into(), Some("text/markdown".into())),
            ("references".into(), Some(DIRECTORY_MIME_TYPE.into())),
            ("templates".into(), Some(DIRECTORY_MIME_TYPE.into())),
        ]
    );
    let acme = browse("skill://acme").await.unwrap();
    assert_eq!(
        children(acme),
        [("billing".into(), Some(DIRECTORY_MIME_TYPE.into()))]
    );
    let file = browse("skill://pdf-processing/SKILL.md").await.unwrap_err();
    assert_eq!(
        file.as_server_error().unwrap().code,
        ErrorCode::INVALID_PARAMS
    );
    client.close().await;
}

#[tokio::test]
async fn a_file_served_otherwise_than_listed_is_not_loaded() {
    let skills = Skills::new()
        .skill(
            "notes",
            [
                ("SKILL.md".to_owned(), skill_md("notes", "Take notes")),
                ("a.md".to_owned(), "first\n".to_owned()),
            ],
        )
        .unwrap();
    let server = Server::builder("skills", "1.0.0")
        .with(skills)
        .build()
        .unwrap();
    let client = connect(server.clone()).await;
    let entry = client.skills().await.unwrap().remove(0);
    assert!(client.load_skill_entry(&entry).await.is_ok());

    // the listing stays, the file changes under it: the same size, then another
    for (forgery, size_differs) in [("fir5t\n", false), ("forged\n", true)] {
        server.remove_resource("skill://notes/a.md");
        server
            .add_resource(
                Resource::new("skill://notes/a.md", "a.md"),
                move |_cx: Context| async move { forgery },
            )
            .unwrap();
        let refused = client.load_skill_entry(&entry).await.unwrap_err();
        let caught = match &refused {
            SkillLoadError::DigestMismatch { uri, .. } => !size_differs && uri.ends_with("/a.md"),
            SkillLoadError::SizeMismatch {
                uri,
                listed: 6,
                read: 7,
            } => size_differs && uri.ends_with("/a.md"),
            _ => false,
        };
        assert!(caught, "{refused}");
    }
    // a frontmatter that differs from the listing's
    let mut edited = entry.clone();
    edited.frontmatter.insert("license".into(), json!("MIT"));
    let differs = client.load_skill_entry(&edited).await.unwrap_err();
    assert!(
        matches!(&differs, SkillLoadError::FrontmatterMismatch { field, .. } if field == "license"),
        "{differs}"
    );
    client.close().await;
}

#[tokio::test]
async fn replacing_the_skills_tells_clients_the_resources_changed() {
    let dir = skills_dir();
    let skills = Skills::from_dir(&dir.0).unwrap();
    let handle = skills.handle();
    let server = Server::builder("skills", "1.0.0")
        .list_changed(true)
        .with(skills)
        // a tool, whose removal marks the end of the replacement's notifications
        .tool_sync(Tool::without_params("marker"), |_: Value, _cx: Context| "")
        .build()
        .unwrap();
    // initialize era: list changes come unasked (2026-07-28 delivers them on a listen)
    let options = ClientOptions::new(Implementation::new("skills-test", "1.0.0"))
        .protocol_version(Some(presa::core::ProtocolVersion::V2025_11_25));
    let client = Client::connect(presa::in_process(server.clone()), options)
        .await
        .unwrap();
    let mut changes = client.notifications();
    assert_eq!(client.skills().await.unwrap().len(), 2);

    // one skill changed (its SKILL.md rewritten, a file dropped, one kept), one added, one gone
    let next = Skills::new()
        .skill(
            "pdf-processing",
            [
                (
                    "SKILL.md",
                    skill_md("pdf-processing", "Fill and sign PDF forms"),
                ),
                ("references/FORMS.md", "Fill every field.\n".to_owned()),
            ],
        )
        .unwrap()
        .skill("notes", [("SKILL.md", skill_md("notes", "Take notes"))])
        .unwrap();
    handle.replace(&server, next).unwrap();
    assert!(server.remove_tool("marker"));
    // told twice: once for what was added or changed, once for what was removed
    let mut told = Vec::new();
    loop {
        let changed = tokio::time::timeout(GUARD, changes.recv())
            .await
            .unwrap()
            .unwrap();
        if changed.method == "notifications/tools/list_changed" {
            break;
        }
        told.push(changed.method);
    }
    assert_eq!(
        told, ["notifications/resources/list_changed"; 2],
        "{told:?}"
    );

    let listed: Vec<String> = client
        .skills()
        .await
        .unwrap()
        .into_iter()
        .map(|skill| skill.uri)
        .collect();
    assert_eq!(
        listed,
        ["skill://pdf-processing/SKILL.md", "skill://notes/SKILL.md"]
    );
    let loaded = client
        .load_skill("skill://pdf-processing/SKILL.md")
        .await
        .unwrap();
    assert!(loaded.skill_md().contains("Fill and sign PDF forms"));
    assert_eq!(loaded.files.len(), 2);
    for gone in [
        "skill://pdf-processing/templates/regional/eu.md",
        "skill://acme/billing/refunds/SKILL.md",
    ] {
        assert!(client.read_resource(gone).await.is_err(), "{gone}");
    }
    client.close().await;
}

#[cfg(unix)]
#[test]
fn what_cannot_be_served_is_refused_at_load_with_the_reason() {
    // a link out of its skill's folder
    let dir = Scratch::new();
    dir.write("a/SKILL.md", &skill_md("a", "A"));
    let outside = dir.write("secret.txt", "secret\n");
    link(&outside, &dir.0.join("a/secret.txt"));
    let refused = Skills::from_dir(&dir.0).unwrap_err();
    assert!(
        matches!(&refused, SkillError::Escapes { path } if path.ends_with("a/secret.txt")),
        "{refused}"
    );

    // a link within it is served
    let dir = Scratch::new();
    dir.write("a/SKILL.md", &skill_md("a", "A"));
    let inside = dir.write("a/real.md", "real\n");
    link(&inside, &dir.0.join("a/alias.md"));
    let entry = Skills::from_dir(&dir.0)
        .unwrap()
        .entries()
        .next()
        .unwrap()
        .clone();
    let SkillResources::Listed(files) = entry.resources else {
        panic!("not listed");
    };
    assert_eq!(files.len(), 3);

    // a link to a folder in a skill is refused; a dangling link outside every skill is not read
    let dir = Scratch::new();
    dir.write("a/SKILL.md", &skill_md("a", "A"));
    std::fs::create_dir_all(dir.0.join("a/real")).unwrap();
    link(&dir.0.join("a/real"), &dir.0.join("a/folder"));
    let refused = Skills::from_dir(&dir.0).unwrap_err();
    assert!(
        matches!(&refused, SkillError::Escapes { path } if path.ends_with("a/folder")),
        "{refused}"
    );
    let dir = Scratch::new();
    dir.write("a/SKILL.md", &skill_md("a", "A"));
    link(&dir.0.join("nowhere"), &dir.0.join("dangling"));
    assert_eq!(Skills::from_dir(&dir.0).unwrap().entries().count(), 1);

    // a name that differs from its folder's, and a missing SKILL.md frontmatter
    let dir = Scratch::new();
    dir.write("b/SKILL.md", &skill_md("a", "A"));
    let refused = Skills::from_dir(&dir.0).unwrap_err().to_string();
    assert_eq!(
        refused,
        "skill \"b\": name \"a\" differs from its folder's name \"b\""
    );
    let dir = Scratch::new();
    dir.write("c/SKILL.md", "# no frontmatter\n");
    let refused = Skills::from_dir(&dir.0).unwrap_err();
    assert!(
        matches!(refused, SkillError::Frontmatter { .. }),
        "{refused}"
    );
}

#[tokio::test]
async fn a_replacement_that_cannot_be_served_changes_nothing() {
    let skills = Skills::new()
        .skill("notes", [("SKILL.md", skill_md("notes", "Take notes"))])
        .unwrap();
    let handle = skills.handle();
    let server = Server::builder("skills", "1.0.0")
        .with(skills)
        // a resource of its own, at a URI a new skill would take
        .resource(
            Resource::new("skill://todo/SKILL.md", "todo"),
            |_cx: Context| async { "not a skill" },
        )
        .build()
        .unwrap();
    // a skill changed beside the clash: not half applied
    let clashing = Skills::new()
        .skill(
            "notes",
            [("SKILL.md", skill_md("notes", "Take notes, then more"))],
        )
        .unwrap()
        .skill("todo", [("SKILL.md", skill_md("todo", "Keep a list"))])
        .unwrap();
    assert!(handle.replace(&server, clashing).is_err());
    let client = connect(server).await;
    let listed: Vec<String> = client
        .skills()
        .await
        .unwrap()
        .into_iter()
        .map(|s| s.uri)
        .collect();
    assert_eq!(listed, ["skill://notes/SKILL.md"]);
    let notes = client.load_skill("skill://notes/SKILL.md").await.unwrap();
    assert!(notes.skill_md().contains("description: Take notes\n"));
    client.close().await;
}

#[cfg(unix)]
fn link(target: &Path, link: &Path) {
    std::os::unix::fs::symlink(target, link).unwrap();
}
