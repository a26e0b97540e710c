//! The cross-language agreement matrix, generated from the library's own
//! lists: for every flavour (`Flavour::ALL`) and every spelling of a key
//! hash it accepts (`Flavour::hash_names`: its peer's spellings, canonical
//! names and aliases), the CLI, the C ABI (names resolved by
//! `ketama_flavour_from_name` / `ketama_hash_from_name`), PHP, Python and
//! Java place the same 2,000 keys on the same servers. A flavour or a
//! spelling added to the core is in the matrix without a change here. Java
//! answers every case in one JVM (`FindKeys --cases`).

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::java::java_command;
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

/// Java's answers for every `(flavour, hash)` case, from one JVM: the
/// output file of each case, or the library's message.
fn java_answers(
    dir: &Path,
    file: &str,
    input: &Path,
    cases: &[(&str, &str)],
) -> Vec<Result<String, String>> {
    let out_dir = dir.join("java");
    std::fs::create_dir_all(&out_dir).unwrap();
    let outputs: Vec<PathBuf> = (0..cases.len())
        .map(|i| out_dir.join(format!("{i}.out")))
        .collect();
    let manifest: String = cases
        .iter()
        .zip(&outputs)
        .map(|((flavour, hash), out)| format!("{flavour}\t{hash}\t{}\n", out.display()))
        .collect();
    let manifest_file = dir.join("java-cases.tsv");
    std::fs::write(&manifest_file, manifest).unwrap();
    let run = answers(
        java_command(&[], "net.ketama.FindKeys").args([
            file,
            "--cases",
            manifest_file.to_str().unwrap(),
        ]),
        input,
    );
    outputs
        .iter()
        .map(|out| match (&run, std::fs::read_to_string(out)) {
            (Err(error), _) => Err(format!("the JVM failed: {error}")),
            (Ok(_), Ok(text)) => Ok(text),
            (Ok(_), Err(_)) => Err(std::fs::read_to_string(out.with_extension("out.error"))
                .unwrap_or_else(|e| format!("no answers and no message ({e})"))),
        })
        .collect()
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

    let started = Instant::now();
    let all: Vec<(&str, &str)> = Flavour::ALL
        .iter()
        .flat_map(|flavour| {
            flavour
                .hash_names()
                .into_iter()
                .map(|hash| (flavour.name(), hash))
        })
        .collect();
    common::java::java_classpath(); // compiled before the clock starts
    let java_started = Instant::now();
    let java = java_answers(&dir, file, &input, &all);
    let java_time = java_started.elapsed();
    let mut cases = 0;
    let mut failures = Vec::new();
    for (&(flavour, hash), java) in all.iter().zip(java) {
        let case = format!("{flavour} --hash {hash}");
        let cli = answers(
            Command::new(common::cli()).args(["find", "--flavor", flavour, "--hash", hash, file]),
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
                    common::python_command(&repo_root().join("bindings/python/tests/find_keys.py"))
                        .args([file, flavour, hash]),
                    &input,
                ),
            ),
            ("Java", java),
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
    eprintln!(
        "agreement matrix: {} flavours, {cases} flavour x hash spellings, 1 file syntax, 5 languages (CLI, C, PHP, Python, Java), {KEYS} keys each: {} disagreements; {:.1} s ({:.1} s in the one JVM)",
        Flavour::ALL.len(),
        failures.len(),
        started.elapsed().as_secs_f64(),
        java_time.as_secs_f64()
    );
    assert!(cases > Flavour::ALL.len() * 2, "only {cases} cases");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
