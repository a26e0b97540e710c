//! The cross-language agreement matrix, generated from the library's own
//! lists: for every flavour (`Flavour::ALL`), every spelling of a key hash
//! it accepts (`Flavour::hash_names`: its peer's spellings, canonical names
//! and aliases) and both of its file syntaxes (the server file as `ketama
//! find FILE` reads it, `Flavour::file_syntax`, and the list its users
//! write as `--servers-file` reads it, `Flavour::list_syntax`: peer-style
//! lines with a name column, nginx `upstream` blocks or SockIOPool lines),
//! the CLI, the C ABI (names resolved by `ketama_flavour_from_name`,
//! `ketama_hash_from_name` and `ketama_parse_mode_from_name`), PHP, Python
//! and Java place the same 2,000 keys on the same servers; so do they with
//! each placement option a flavour's peer offers (`points`, `hash_tag`). A
//! flavour, a
//! spelling or a syntax added to the core is in the matrix without a change
//! here. Java answers every case in one JVM (`FindKeys --cases`).

use ketama_testkit as common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::java::{java_classpath, java_command};
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

/// Ten servers of weight 1 written in `syntax` (ten masters of a Redis
/// Cluster for its `CLUSTER NODES` text).
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
        // A Redis Cluster's `CLUSTER NODES` text: ten masters serving
        // 1,638 or more slots each, and a replica (no slots).
        ParseMode::RedisClusterNodes => servers
            .map(|(host, port, i)| {
                let last = if i == 9 { 16383 } else { i * 1638 + 1637 };
                format!(
                    "{i:040x} {host}:{port}@{} master - 0 0 {} connected {}-{last}\n",
                    port + 10000,
                    i + 1,
                    i * 1638
                )
            })
            .chain(std::iter::once(format!(
                "{:040x} 10.6.1.0:6379@16379 slave {:040x} 0 0 1 connected\n",
                99, 0
            )))
            .collect(),
        _ => servers
            .map(|(host, port, _)| format!("{host}:{port}\t1\n"))
            .collect(),
    }
}

/// One case of the matrix: a server file read as `parse`, a flavour and a
/// hash spelling, and how the CLI is told about the file.
struct Case {
    label: String,
    file: String,
    flavour: &'static str,
    hash: &'static str,
    parse: &'static str,
    cli_option: Option<&'static str>,
    /// Placement options (`--options`; empty: none).
    options: String,
}

/// Java's answers for every case, from one JVM (`FindKeys --cases`): the
/// output file of each case, or the library's message.
fn java_answers(dir: &Path, input: &Path, cases: &[Case]) -> Vec<Result<String, String>> {
    let out_dir = dir.join("java");
    std::fs::create_dir_all(&out_dir).unwrap();
    let outputs: Vec<PathBuf> = (0..cases.len())
        .map(|i| out_dir.join(format!("{i}.out")))
        .collect();
    let manifest: String = cases
        .iter()
        .zip(&outputs)
        .map(|(c, out)| {
            let fields = [
                c.file.as_str(),
                c.flavour,
                c.hash,
                c.parse,
                &c.options,
                &out.to_string_lossy(),
            ]
            .join("\t");
            fields + "\n"
        })
        .collect();
    let manifest_file = dir.join("java-cases.tsv");
    std::fs::write(&manifest_file, manifest).unwrap();
    let run = answers(
        java_command(&[], "net.ketama.FindKeys").args(["--cases", manifest_file.to_str().unwrap()]),
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
    let c_program = compile_c(
        &[&repo_root().join("tests/c/bindings_find_keys.c")],
        "bindings_find_keys",
        &[],
    );
    let library = shared_library_dir().join("libketama.so");

    let started = Instant::now();
    let mut cases = Vec::new();
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
            for hash in flavour.hash_names() {
                cases.push(Case {
                    label: format!(
                        "{} --hash {hash} ({what}: {})",
                        flavour.name(),
                        syntax.name()
                    ),
                    file: path.to_str().unwrap().to_string(),
                    flavour: flavour.name(),
                    hash,
                    parse,
                    cli_option,
                    options: String::new(),
                });
            }
        }
        // Each option the flavour's peer offers, on its own file.
        let mut options = Vec::new();
        if let Some(points) = flavour.points_option() {
            options.push(format!("points={}", points.default / 3 + 1));
        }
        if flavour.takes_hash_tag() {
            options.push("hash_tag=//".to_string()); // user/N/profile hashes N
        }
        for (name, example) in ketama_core::flavour::options::SETTINGS {
            if flavour.settings().contains(name) {
                options.push(format!("{name}={example}"));
            }
        }
        for options in options {
            cases.push(Case {
                label: format!("{} --options {options}", flavour.name()),
                file: dir
                    .join(format!("{}-file.servers", flavour.name()))
                    .to_str()
                    .unwrap()
                    .to_string(),
                flavour: flavour.name(),
                hash: flavour.default_hash().name(),
                parse: flavour.file_syntax().name(),
                cli_option: None,
                options,
            });
        }
    }
    java_classpath(); // compiled before the JVM's clock starts
    let java_started = Instant::now();
    let java = java_answers(&dir, &input, &cases);
    let java_time = java_started.elapsed();

    let mut failures = Vec::new();
    for (case, java) in cases.iter().zip(java) {
        let label = &case.label;
        let mut cli = Command::new(common::cli());
        cli.args(["find", "--flavor", case.flavour, "--hash", case.hash]);
        cli.args(case.cli_option).arg(&case.file);
        if !case.options.is_empty() {
            cli.args(["--options", &case.options]);
        }
        let cli =
            answers(&mut cli, &input).unwrap_or_else(|e| panic!("{label}: the CLI failed: {e}"));
        assert_eq!(cli.lines().count(), KEYS, "{label}: the CLI's answers");
        let args = [
            case.file.as_str(),
            case.flavour,
            case.hash,
            case.parse,
            &case.options,
        ];
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
                    common::python_command(&repo_root().join("bindings/python/tests/find_keys.py"))
                        .args(args),
                    &input,
                ),
            ),
            ("Java", java),
        ];
        for (language, result) in languages {
            match result {
                Ok(out) if differing(&cli, &out) == 0 => {}
                Ok(out) => failures.push(format!(
                    "{label}: {language} places {} of {KEYS} keys elsewhere than the CLI",
                    differing(&cli, &out)
                )),
                Err(error) => failures.push(format!("{label}: {language} failed: {error}")),
            }
        }
    }
    let cases = cases.len();
    eprintln!(
        "agreement matrix: {} flavours, {cases} flavour x hash spelling x file syntax cases, 5 languages (CLI, C, PHP, Python, Java), {KEYS} keys each: {} disagreements; {:.1} s ({:.1} s in the one JVM)",
        Flavour::ALL.len(),
        failures.len(),
        started.elapsed().as_secs_f64(),
        java_time.as_secs_f64()
    );
    assert!(cases > Flavour::ALL.len() * 4, "only {cases} cases");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
