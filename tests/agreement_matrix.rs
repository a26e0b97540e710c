//! The cross-language agreement matrix, generated from the library's own
//! lists: for every flavour (`Flavour::ALL`), every spelling of a key hash
//! it accepts (`Flavour::hash_names`: its peer's spellings, canonical names
//! and aliases) and both of its file syntaxes (the server file as `ketama
//! find FILE` reads it, `Flavour::file_syntax`, and the list its users
//! write as `--servers-file` reads it, `Flavour::list_syntax`: peer-style
//! lines with a name column, nginx `upstream` blocks or SockIOPool lines),
//! the CLI, the C ABI (names resolved by `ketama_flavour_from_name`,
//! `ketama_hash_from_name` and `ketama_parse_mode_from_name`), PHP and
//! Python place the same 2,000 keys on the same servers. A flavour, a
//! spelling or a syntax added to the core is in the matrix without a change
//! here.

mod common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use common::{
    compile_c, repo_root, require_tool, run_with_timeout, scratch_dir, shared_library_dir,
};
use ketama_core::Flavour;
use ketama_core::parser::ParseMode;

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

/// Ten servers of weight 1 written in `syntax`.
fn server_list(syntax: ParseMode) -> String {
    let servers = (0..10).map(|i| (format!("10.6.0.{i}"), 11211 + i % 2, i));
    match syntax {
        ParseMode::Nginx => {
            let lines: String = servers
                .map(|(host, port, _)| format!("    server {host}:{port} weight=1;\n"))
                .collect();
            format!("upstream pool {{\n    hash $key consistent;\n{lines}}}\n")
        }
        ParseMode::Peers => servers
            .map(|(host, port, i)| format!("{host}:{port}:1 node-{i}\n"))
            .collect(),
        _ => servers
            .map(|(host, port, _)| format!("{host}:{port}\t1\n"))
            .collect(),
    }
}

#[test]
fn every_flavour_and_hash_spelling_places_keys_alike_in_every_language() {
    require_tool("php", "php8.2-cli");
    let dir = scratch_dir("agreement-matrix");
    let input = dir.join("keys.txt");
    std::fs::write(&input, keys()).unwrap();
    let c_program = compile_c(
        &[&repo_root().join("tests/c/bindings_find_keys.c")],
        "bindings_find_keys",
        &[],
    );
    let library = shared_library_dir().join("libketama.so");

    let mut cases = 0;
    let mut failures = Vec::new();
    for flavour in Flavour::ALL {
        let syntaxes = [
            (
                "file",
                flavour.file_syntax(),
                flavour.file_syntax().name(),
                None,
            ),
            (
                "list",
                flavour.list_syntax(),
                "flavour",
                Some("--servers-file"),
            ),
        ];
        for (what, syntax, parse, cli_option) in syntaxes {
            let path = dir.join(format!("{}-{what}.servers", flavour.name()));
            std::fs::write(&path, server_list(syntax)).unwrap();
            let file = path.to_str().unwrap();
            for hash in flavour.hash_names() {
                let flavour = flavour.name();
                let case = format!("{flavour} --hash {hash} ({what}: {})", syntax.name());
                let mut cli = Command::new(common::cli());
                cli.args(["find", "--flavor", flavour, "--hash", hash]);
                cli.args(cli_option).arg(file);
                let cli = answers(&mut cli, &input)
                    .unwrap_or_else(|e| panic!("{case}: the CLI failed: {e}"));
                assert_eq!(cli.lines().count(), KEYS, "{case}: the CLI's answers");
                let args = [file, flavour, hash, parse];
                let languages = [
                    ("C", answers(Command::new(&c_program).args(args), &input)),
                    (
                        "PHP",
                        answers(
                            Command::new("php")
                                .arg(repo_root().join("bindings/php/tests/find_keys.php"))
                                .args(args)
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
                            .args(args),
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
    }
    eprintln!(
        "agreement matrix: {} flavours, {cases} flavour x hash spelling x file syntax cases, 4 languages (CLI, C, PHP, Python), {KEYS} keys each: {} disagreements",
        Flavour::ALL.len(),
        failures.len()
    );
    assert!(cases > Flavour::ALL.len() * 4, "only {cases} cases");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
