//! The house rules a newcomer relies on, checked on the sources: no import
//! cycles between the modules of each crate, no source file over 600 lines
//! (read in one sitting), and tests by product: each package's test
//! binaries are directories of modules (`tests/<binary>/main.rs`), which
//! include their files as modules and the shared helpers from the
//! `ketama-testkit` crate, never by `#[path]`.

use ketama_testkit as common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const CRATES: [&str; 6] = [
    "src",
    "crates/ketama-core/src",
    "crates/ketama-cli/src",
    "crates/ketama-gen/src",
    "crates/ketama-testkit/src",
    "bindings/python/src",
];

/// The packages whose tests are split by product (each with a `tests/`).
const TESTED: [&str; 3] = [".", "crates/ketama-core", "crates/ketama-cli"];

/// The one `#[path]` include of the workspace: a build script cannot use
/// its package's library, so the CLI's includes the clap definition.
const PATH_INCLUDES_ALLOWED: [&str; 1] = ["crates/ketama-cli/build.rs"];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `a::b` for `root/a/b.rs` or `root/a/b/mod.rs`; `` for the crate root.
fn module_of(root: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(root).unwrap().with_extension("");
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

/// The code of a file without its tests and comments.
fn code(text: &str) -> String {
    let text = text.split("#[cfg(test)]").next().unwrap();
    text.lines()
        .map(|line| line.split("//").next().unwrap())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every `crate::…` and `super::…` path the code names.
fn paths(code: &str) -> Vec<Vec<String>> {
    let bytes = code.as_bytes();
    let mut found = Vec::new();
    for start in ["crate::", "super::"] {
        for (at, _) in code.match_indices(start) {
            if at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_') {
                continue;
            }
            let path: String = code[at..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == ':')
                .collect();
            found.push(
                path.split("::")
                    .filter(|s| !s.is_empty())
                    .map(String::from)
                    .collect(),
            );
        }
    }
    found
}

/// The module a path resolves to from `module` (the longest known prefix).
/// `super` of `a.rs` and of `a/mod.rs` alike is the parent of `a`.
fn resolve(
    module: &[String],
    path: &[String],
    known: &BTreeSet<Vec<String>>,
) -> Option<Vec<String>> {
    let mut base: Vec<String> = Vec::new();
    let mut rest = path;
    if rest.first().is_some_and(|s| s == "super") {
        base = module.to_vec();
        while rest.first().is_some_and(|s| s == "super") {
            base.pop();
            rest = &rest[1..];
        }
    } else {
        rest = &rest[1..];
    }
    (0..=rest.len()).rev().find_map(|k| {
        let candidate: Vec<String> = base.iter().chain(&rest[..k]).cloned().collect();
        known.contains(&candidate).then_some(candidate)
    })
}

fn cycles(root: &Path) -> Vec<String> {
    let mut files = Vec::new();
    rust_files(root, &mut files);
    let known: BTreeSet<Vec<String>> = files.iter().map(|f| module_of(root, f)).collect();
    let mut graph: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
    for file in &files {
        let module = module_of(root, file);
        let text = code(&std::fs::read_to_string(file).unwrap());
        let edges = graph.entry(module.clone()).or_default();
        for path in paths(&text) {
            if let Some(target) = resolve(&module, &path, &known) {
                let related = target.starts_with(&module) || module.starts_with(&target);
                if !related {
                    edges.insert(target);
                }
            }
        }
    }
    let mut found = BTreeSet::new();
    for start in graph.keys() {
        let mut stack = vec![(start.clone(), vec![start.clone()])];
        let mut seen = BTreeSet::new();
        while let Some((node, trail)) = stack.pop() {
            for next in graph.get(&node).into_iter().flatten() {
                if next == start {
                    let names: Vec<String> = trail.iter().map(|m| m.join("::")).collect();
                    found.insert(format!("{} -> {}", names.join(" -> "), start.join("::")));
                } else if seen.insert(next.clone()) {
                    let mut longer = trail.clone();
                    longer.push(next.clone());
                    stack.push((next.clone(), longer));
                }
            }
        }
    }
    found.into_iter().collect()
}

#[test]
fn no_crate_has_an_import_cycle() {
    let mut all = Vec::new();
    for krate in CRATES {
        let found = cycles(&common::repo_root().join(krate));
        all.extend(found.into_iter().map(|c| format!("{krate}: {c}")));
    }
    assert!(all.is_empty(), "import cycles:\n{}", all.join("\n"));
}

#[test]
fn the_cycle_check_sees_a_cycle() {
    let dir = common::scratch_dir("architecture-cycle");
    std::fs::create_dir_all(dir.join("a")).unwrap();
    std::fs::write(dir.join("lib.rs"), "mod a;\nmod b;\n").unwrap();
    std::fs::write(
        dir.join("a/mod.rs"),
        "use crate::b::thing;\n// use crate::c;\n",
    )
    .unwrap();
    std::fs::write(dir.join("b.rs"), "use super::a::other;\n").unwrap();
    assert_eq!(cycles(&dir), vec!["a -> b -> a", "b -> a -> b"]);
}

#[test]
fn every_source_file_reads_in_one_sitting() {
    let mut long = Vec::new();
    for krate in CRATES {
        let mut files = Vec::new();
        rust_files(&common::repo_root().join(krate), &mut files);
        for file in files {
            let lines = std::fs::read_to_string(&file).unwrap().lines().count();
            if lines > 600 {
                long.push(format!("{} ({lines} lines)", file.display()));
            }
        }
    }
    assert!(long.is_empty(), "split these by concept: {long:?}");
}

/// Every `#[path]` attribute in the `.rs` files under `dirs` of `root`, as
/// `FILE:LINE`, but in the files of [`PATH_INCLUDES_ALLOWED`].
fn path_includes(root: &Path, dirs: &[&str]) -> Vec<String> {
    let mut files = Vec::new();
    for dir in dirs {
        let dir = root.join(dir);
        if dir.is_dir() {
            rust_files(&dir, &mut files);
        } else if dir.is_file() {
            files.push(dir);
        }
    }
    let mut found = Vec::new();
    for file in files {
        let name = file.strip_prefix(root).unwrap().display().to_string();
        if PATH_INCLUDES_ALLOWED.contains(&name.as_str()) {
            continue;
        }
        for (n, line) in std::fs::read_to_string(&file).unwrap().lines().enumerate() {
            if line.trim_start().starts_with("#[path") {
                found.push(format!("{name}:{}", n + 1));
            }
        }
    }
    found
}

/// The workspace's Rust sources: every package's sources, tests, benches,
/// examples and build script (`fuzz/` is a crate of its own, outside the
/// workspace, whose targets include the core's fuzz invariants).
const SOURCES: [&str; 7] = [
    "src",
    "tests",
    "benches",
    "examples",
    "build.rs",
    "crates",
    "bindings/python/src",
];

#[test]
fn modules_are_included_as_modules_never_by_path() {
    let found = path_includes(&common::repo_root(), &SOURCES);
    assert!(
        found.is_empty(),
        "include these as modules of their test binary, or share them through \
         ketama-testkit: {found:?}"
    );
}

#[test]
fn the_path_check_sees_an_include() {
    let dir = common::scratch_dir("architecture-path");
    std::fs::create_dir_all(dir.join("tests/suite")).unwrap();
    std::fs::write(dir.join("tests/suite/main.rs"), "mod cases;\n").unwrap();
    std::fs::write(
        dir.join("tests/suite/cases.rs"),
        "//! Not `#[path]` in a comment.\n  #[path = \"../common/mod.rs\"]\nmod common;\n",
    )
    .unwrap();
    assert_eq!(
        path_includes(&dir, &["tests"]),
        vec!["tests/suite/cases.rs:2"]
    );
}

#[test]
fn every_test_binary_is_a_directory_of_modules() {
    let mut loose = Vec::new();
    for package in TESTED {
        let tests = common::repo_root().join(package).join("tests");
        for entry in std::fs::read_dir(&tests).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "rs") {
                loose.push(path.display().to_string());
            }
        }
    }
    assert!(
        loose.is_empty(),
        "a suite is a module of its package's test binary (tests/<binary>/main.rs), \
         not a binary of its own: {loose:?}"
    );
}
