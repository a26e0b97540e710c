//! The cross-language agreement matrix, generated from the library's own
//! lists: for every flavour (`Flavour::ALL`) and every spelling of a key
//! hash it accepts (`Flavour::hash_names`: its peer's spellings, canonical
//! names and aliases), the CLI, the C ABI (names resolved by
//! `ketama_flavour_from_name` / `ketama_hash_from_name`), PHP and Python
//! place the same 2,000 keys on the same servers. A flavour or a spelling
//! added to the core is in the matrix without a change here.

mod common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use common::{
    compile_c, repo_root, require_tool, run_with_timeout, scratch_dir, shared_library_dir,
};
use ketama_core::Flavour;

const KEYS: usize = 2_000;

fn keys() -> String {
    (0..KEYS)
        .map(|i| match i % 4 {
            0 => format!("key:{i}\n"),
            1 => format!("user/{}/profile\n", i * 7919),
            2 => format!("ключ-{i}-ü€\n"),
            _ => format!("{:x}\n", (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)),
        })
        .collect()
}

/// Runs `cmd` with the keys on stdin; its stdout, or its stderr as the error.
fn answers(cmd: &mut Command, input: &Path) -> Result<String, String> {
    let out = run_with_timeout(
        cmd.stdin(Stdio::from(std::fs::File::open(input).unwrap())),
        Duration::from_secs(120),
    );
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).trim().to_string());
    }
    String::from_utf8(out.stdout).map_err(|_| "output is not UTF-8".to_string())
}

/// How many of `reference`'s lines `other` answers differently (all of
/// them when it answered fewer lines).
fn differing(reference: &str, other: &str) -> usize {
    let theirs: Vec<&str> = other.lines().collect();
    reference
        .lines()
        .enumerate()
        .filter(|(i, line)| theirs.get(*i) != Some(line))
        .count()
}

#[test]
fn every_flavour_and_hash_spelling_places_keys_alike_in_every_language() {
    require_tool("php", "php8.2-cli");
    let dir = scratch_dir("agreement-matrix");
    let input = dir.join("keys.txt");
    std::fs::write(&input, keys()).unwrap();
    let servers = dir.join("ten.servers");
    let list: String = (0..10)
        .map(|i| format!("10.6.0.{i}:{}\t1\n", 11211 + i % 2))
        .collect();
    std::fs::write(&servers, list).unwrap();
    let file = servers.to_str().unwrap();
    let c_program = compile_c(
        &[&repo_root().join("tests/c/bindings_find_keys.c")],
        "bindings_find_keys",
        &[],
    );
    let library = shared_library_dir().join("libketama.so");

    let mut cases = 0;
    let mut failures = Vec::new();
    for flavour in Flavour::ALL {
        for hash in flavour.hash_names() {
            let flavour = flavour.name();
            let case = format!("{flavour} --hash {hash}");
            let cli = answers(
                Command::new(common::cli())
                    .args(["find", "--flavor", flavour, "--hash", hash, file]),
                &input,
            )
            .unwrap_or_else(|e| panic!("{case}: the CLI failed: {e}"));
            assert_eq!(cli.lines().count(), KEYS, "{case}: the CLI's answers");
            let languages = [
                (
                    "C",
                    answers(Command::new(&c_program).args([file, flavour, hash]), &input),
                ),
                (
                    "PHP",
                    answers(
                        Command::new("php")
                            .arg(repo_root().join("bindings/php/tests/find_keys.php"))
                            .args([file, flavour, hash])
                            .env("KETAMA_LIBRARY", &library),
                        &input,
                    ),
                ),
                (
                    "Python",
                    answers(
                        common::python_command(
                            &repo_root().join("bindings/python/tests/find_keys.py"),
                        )
                        .args([file, flavour, hash]),
                        &input,
                    ),
                ),
            ];
            for (language, result) in languages {
                match result {
                    Ok(out) if differing(&cli, &out) == 0 => {}
                    Ok(out) => failures.push(format!(
                        "{case}: {language} places {} of {KEYS} keys elsewhere than the CLI",
                        differing(&cli, &out)
                    )),
                    Err(error) => failures.push(format!("{case}: {language} failed: {error}")),
                }
            }
            cases += 1;
        }
    }
    eprintln!(
        "agreement matrix: {} flavours, {cases} flavour x hash spellings, 1 file syntax, 4 languages (CLI, C, PHP, Python), {KEYS} keys each: {} disagreements",
        Flavour::ALL.len(),
        failures.len()
    );
    assert!(cases > Flavour::ALL.len() * 2, "only {cases} cases");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
