//! `ketama-gen`: writes every generated file of the repository from the
//! Rust sources and the core's registry (`make generate`), or, with
//! `--check`, renders them in memory and fails naming each checked-in copy
//! that differs (`make generate-check`, run by `make lint`).
//!
//! * `include/ketama.h` and `bindings/php/ketama_ffi.h`: cbindgen over the
//!   C library's `src/` (functions, structs, handles) plus the C enums of
//!   `ketama_core::abi::ENUMS` ([`headers`], [`c_enums`]).
//! * Java's enums, `NativeStructs.java` and `MigrationStructs.java`
//!   ([`java`]); the hand-written `KetamaNative.java` is checked against
//!   the parsed prototypes.
//! * Not generated but checked: the flavour tables of `README.md` and
//!   `docs/flavours.md` against the registry ([`docs_tables`]).

mod api;
mod c_enums;
mod diff;
mod docs_tables;
mod headers;
mod java;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The repository this generator belongs to.
fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every generated file as (path from the root, text), and the parse of
/// the C API they come from.
fn outputs(root: &Path) -> Result<(Vec<(String, String)>, api::Api), String> {
    let headers = headers::render(root)?;
    let api = api::Api::from_bindings(&headers.bindings);
    let mut files = vec![
        (headers::C_HEADER.to_string(), headers.c),
        (headers::PHP_HEADER.to_string(), headers.php),
    ];
    files.extend(java::render(root, &api)?);
    Ok((files, api))
}

/// The files whose checked-in copy differs from `files`, each with its
/// diff-like report.
fn stale(root: &Path, files: &[(String, String)]) -> Vec<(String, String)> {
    files
        .iter()
        .filter_map(|(path, text)| {
            let current = std::fs::read_to_string(root.join(path)).ok();
            (current.as_deref() != Some(text.as_str()))
                .then(|| (path.clone(), diff::report(path, current.as_deref(), text)))
        })
        .collect()
}

fn run(check: bool) -> Result<ExitCode, String> {
    let root = repo_root();
    let (files, _) = outputs(&root)?;
    let stale = stale(&root, &files);
    let tables_agree = check_tables(&root)?;
    if check {
        if stale.is_empty() {
            println!("ketama-gen: {} generated files are current", files.len());
            return Ok(if tables_agree {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            });
        }
        for (_, report) in &stale {
            eprint!("{report}");
        }
        let paths: Vec<&str> = stale.iter().map(|(path, _)| path.as_str()).collect();
        eprintln!(
            "ketama-gen: stale ({} of {} generated files): {}; run `make generate`",
            paths.len(),
            files.len(),
            paths.join(", ")
        );
        return Ok(ExitCode::FAILURE);
    }
    for (path, _) in &stale {
        let text = &files
            .iter()
            .find(|(p, _)| p == path)
            .expect("a rendered file")
            .1;
        std::fs::write(root.join(path), text).map_err(|e| format!("{path}: {e}"))?;
        println!("ketama-gen: wrote {path}");
    }
    println!(
        "ketama-gen: {} generated files, {} rewritten",
        files.len(),
        stale.len()
    );
    Ok(if tables_agree {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// Checks the hand-written flavour tables against the registry; prints
/// each problem and returns false when there are any.
fn check_tables(root: &Path) -> Result<bool, String> {
    let drift = docs_tables::check(root)?;
    for problem in &drift {
        eprintln!("{problem}");
    }
    if !drift.is_empty() {
        eprintln!(
            "ketama-gen: the flavour tables of {} and {} disagree with the registry ({} problems); edit them by hand",
            docs_tables::README,
            docs_tables::FLAVOURS_MD,
            drift.len()
        );
    }
    Ok(drift.is_empty())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let check = match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        [] => false,
        ["--check"] => true,
        _ => {
            eprintln!(
                "usage: ketama-gen [--check]\n  writes include/ketama.h, bindings/php/ketama_ffi.h and Java's generated sources;\n  --check only compares them with what it would write and fails naming each stale file"
            );
            return ExitCode::from(2);
        }
    };
    match run(check) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("ketama-gen: {error}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::OnceLock;

    /// The generated files and the parse of the C API, computed once.
    fn rendered() -> &'static (Vec<(String, String)>, api::Api) {
        static RENDERED: OnceLock<(Vec<(String, String)>, api::Api)> = OnceLock::new();
        RENDERED.get_or_init(|| outputs(&repo_root()).unwrap())
    }

    /// cbindgen's parse of the C API.
    pub fn api() -> &'static api::Api {
        &rendered().1
    }

    /// What `make generate-check` checks: every checked-in generated file
    /// is what the generator renders, byte for byte.
    #[test]
    fn checked_in_files_are_what_the_generator_renders() {
        let (files, _) = rendered();
        let paths: Vec<&str> = files.iter().map(|(p, _)| p.as_str()).collect();
        for expected in [
            "include/ketama.h",
            "bindings/php/ketama_ffi.h",
            "bindings/java/src/main/java/net/ketama/Flavour.java",
            "bindings/java/src/main/java/net/ketama/SetWriter.java",
            "bindings/java/src/main/java/net/ketama/NativeStructs.java",
            "bindings/java/src/main/java/net/ketama/MigrationStructs.java",
        ] {
            assert!(
                paths.contains(&expected),
                "{expected} not generated: {paths:?}"
            );
        }
        for (path, text) in files.iter().filter(|(p, _)| p.ends_with(".java")) {
            assert!(
                text.lines().count() < 600,
                "{path}: {} lines",
                text.lines().count()
            );
        }
        let stale = stale(&repo_root(), files);
        let reports: Vec<&str> = stale.iter().map(|(_, r)| r.as_str()).collect();
        assert!(
            stale.is_empty(),
            "stale generated files, regenerate them with `make generate`:\n{}",
            reports.join("")
        );
    }

    /// The header as C programs include it: the original's guard and
    /// surface first, then every enum of the registry.
    #[test]
    fn the_header_declares_every_enum_of_the_registry() {
        let (files, _) = rendered();
        let header = &files[0].1;
        assert!(header.starts_with("/*\n * ketama.h: "), "{}", &header[..80]);
        assert!(header.contains("#ifndef KETAMA_LIBKETAMA_KETAMA_H__"));
        for abi in ketama_core::abi::ENUMS {
            assert!(header.contains(&c_enums::typedef(abi)), "{}", abi.c_type);
        }
        let php = &files[1].1;
        assert!(
            php.starts_with("#define FFI_SCOPE \"ketama\"\n#define FFI_LIB \"libketama.so.1\"\n")
        );
        assert_eq!(php.lines().filter(|l| l.starts_with('#')).count(), 2);
    }
}
