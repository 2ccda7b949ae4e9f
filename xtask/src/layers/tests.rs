//! Unit tests of layers.rs.

#![allow(clippy::unwrap_used)]

use std::sync::atomic::{AtomicUsize, Ordering};

use super::*;

/// The cycles of a crate written from `(file, text)` pairs, as module names.
fn cycles_of(files: &[(&str, &str)]) -> Vec<Vec<String>> {
    let edges = edges_of(files);
    cycles(&lifted(&edges))
        .iter()
        .map(|c| c.iter().map(display).collect())
        .collect()
}

/// The imports between the modules of a crate written from `(file, text)` pairs.
fn edges_of(files: &[(&str, &str)]) -> BTreeMap<(ModPath, ModPath), BTreeSet<String>> {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "presa-layers-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    for (file, text) in files {
        let path = dir.join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let krate = Crate::read(&dir.join("lib.rs")).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    krate.edges()
}

#[test]
fn a_name_re_exported_by_glob_is_the_module_that_defines_it_not_one_that_imports_it() {
    let edges = edges_of(&[
        ("lib.rs", "mod h; mod t; mod r; pub use h::*; pub use t::*;"),
        ("h.rs", "use crate::K; pub struct H;"),
        ("t.rs", "pub const K: u8 = 1;"),
        ("r.rs", "fn f() -> u8 { crate::K }"),
    ]);
    let pairs: Vec<(String, String)> = edges
        .keys()
        .map(|(from, to)| (display(from), display(to)))
        .collect();
    assert_eq!(
        pairs,
        [
            ("h".to_owned(), "t".to_owned()),
            ("r".to_owned(), "t".to_owned())
        ]
    );
}

#[test]
fn siblings_that_import_each_other_through_re_exports_are_a_cycle() {
    let found = cycles_of(&[
        ("lib.rs", "mod a; mod b; mod c; pub use a::*; pub use b::B;"),
        ("a.rs", "pub struct A; fn f(_: crate::B) {}"),
        ("b.rs", "use crate::A; pub struct B(A);"),
        ("c.rs", "use crate::{A, B};"),
    ]);
    assert_eq!(found, [vec!["a".to_owned(), "b".to_owned()]]);
}

#[test]
fn a_module_and_its_submodules_may_use_each_other() {
    let found = cycles_of(&[
        ("lib.rs", "mod a;"),
        ("a.rs", "mod inner; use inner::Helper; pub(crate) struct A;"),
        ("a/inner.rs", "use super::A; pub(crate) struct Helper(A);"),
    ]);
    assert!(found.is_empty(), "{found:?}");
}

#[test]
fn a_submodule_that_imports_its_parents_importer_closes_a_cycle() {
    let found = cycles_of(&[
        ("lib.rs", "mod a; mod b;"),
        ("a/mod.rs", "mod x; pub(crate) struct A;"),
        ("a/x.rs", "fn f(_: crate::b::B) {}"),
        ("b.rs", "pub(crate) struct B(crate::a::A);"),
    ]);
    assert_eq!(found, [vec!["a".to_owned(), "b".to_owned()]]);
}

#[test]
fn test_modules_and_other_crates_are_not_imports() {
    let found = cycles_of(&[
        ("lib.rs", "mod a; mod b;"),
        (
            "a.rs",
            "use std::fmt; pub(crate) struct A; #[cfg(test)] mod tests { use crate::b::B; }",
        ),
        (
            "b.rs",
            "use serde::Serialize; pub(crate) struct B(super::a::A);",
        ),
    ]);
    assert!(found.is_empty(), "{found:?}");
}
