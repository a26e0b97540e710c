//! The PHP binding (bindings/php) run by the real PHP 8 CLI with FFI: the
//! flattened FFI header, the Ketama\ API, the php_ketama-compatible global
//! functions, the library search, and the php-memcached example against real
//! memcached servers on loopback.

use ketama_testkit as common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use common::{
    Memcached, assert_bench_rows, assert_example_output, repo_root, require_tool, run_with_timeout,
    scratch_dir, shared_library_dir,
};

/// Fails (never skips) unless `php` with the FFI and (when asked) memcached extensions is installed.
fn require_php(with_memcached: bool) {
    require_tool("php", "php8.2-cli");
    let modules = Command::new("php").arg("-m").output().expect("php -m");
    let modules = String::from_utf8_lossy(&modules.stdout);
    assert!(
        modules.lines().any(|m| m == "FFI"),
        "php has no FFI extension: install php8.2-cli (FFI is built in)"
    );
    if with_memcached {
        assert!(
            modules.lines().any(|m| m == "memcached"),
            "php has no memcached extension: install php8.2-memcached"
        );
    }
}

fn php_dir() -> PathBuf {
    repo_root().join("bindings/php")
}

/// Runs `php SCRIPT ARGS...` with KETAMA_LIBRARY pointing at this build's library.
fn php(script: &Path, args: &[&str]) -> Output {
    require_php(false);
    run_with_timeout(
        Command::new("php")
            .arg(script)
            .args(args)
            .env("KETAMA_LIBRARY", shared_library_dir().join("libketama.so")),
        Duration::from_secs(120),
    )
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn servers_file(name: &str, content: &str) -> PathBuf {
    let path = scratch_dir("php").join(name);
    std::fs::write(&path, content).unwrap();
    path
}

/// The `ketama` CLI's answer for `keys`, as KEY<TAB>SERVER lines.
fn cli(args: &[&str]) -> String {
    let out = run_with_timeout(
        Command::new(common::cli()).args(args),
        Duration::from_secs(60),
    );
    assert!(
        out.status.success(),
        "ketama {args:?}: {}",
        text(&out.stderr)
    );
    text(&out.stdout)
}

/// The flattened header PHP's FFI reads (generated with include/ketama.h by
/// crates/ketama-gen, whose `--check` and tests compare it with the sources).
#[test]
fn php_ffi_header_is_flat_and_declares_the_api() {
    let checked_in =
        std::fs::read_to_string(php_dir().join("ketama_ffi.h")).expect("bindings/php/ketama_ffi.h");
    // PHP's FFI parser rejects preprocessor lines, except the FFI_SCOPE and
    // FFI_LIB defines that ffi.preload reads at the very top of the file.
    let mut lines = checked_in.lines();
    assert_eq!(lines.next(), Some("#define FFI_SCOPE \"ketama\""));
    assert_eq!(lines.next(), Some("#define FFI_LIB \"libketama.so.1\""));
    let directive = lines.find(|l| l.trim_start().starts_with('#'));
    assert!(
        directive.is_none(),
        "preprocessor line in ketama_ffi.h: {directive:?}"
    );
    for function in [
        "ketama_roll",
        "ketama_get_server",
        "ketama_ring_new",
        "ketama_find_server",
        "ketama_error",
    ] {
        assert!(
            checked_in.contains(&format!("{function}(")),
            "{function} missing from ketama_ffi.h"
        );
    }
}

#[test]
fn php_ring_api() {
    let passed = php_checks("ring_test.php");
    assert!(passed >= 45, "only {passed} checks ran");
}

/// Runs a check script (bindings/php/tests/NAME) and returns how many checks passed.
fn php_checks(name: &str) -> usize {
    let out = php(&php_dir().join("tests").join(name), &[]);
    let stdout = text(&out.stdout);
    assert!(
        out.status.success(),
        "{name} failed:\n{stdout}\n{}",
        text(&out.stderr)
    );
    let passed: usize = stdout
        .lines()
        .find_map(|l| {
            l.strip_prefix("PASS ")
                .and_then(|r| r.strip_suffix(" checks"))
        })
        .expect("PASS line")
        .parse()
        .unwrap();
    assert_eq!(
        stdout.lines().filter(|l| l.starts_with("ok ")).count(),
        passed,
        "{stdout}"
    );
    passed
}

/// `Ring::serverIndices`, `serversFor` and `serverIndicesPacked` (one
/// `ketama_find_servers_packed` call per batch) equal the single-key lookups
/// on 12,000 keys (empty, long, non-ASCII, binary) in four flavours, and
/// their errors carry the library's message.
#[test]
fn php_batch_lookups_equal_single_lookups() {
    let passed = php_checks("batch_test.php");
    assert!(passed >= 37, "only {passed} checks ran");
}

#[test]
fn php_set_codec() {
    let out = php(&php_dir().join("tests/set_test.php"), &[]);
    let stdout = text(&out.stdout);
    assert!(
        out.status.success(),
        "set_test.php failed:\n{stdout}\n{}",
        text(&out.stderr)
    );
    let passed: usize = stdout
        .lines()
        .find_map(|l| {
            l.strip_prefix("PASS ")
                .and_then(|r| r.strip_suffix(" checks"))
        })
        .expect("PASS line")
        .parse()
        .unwrap();
    assert!(passed >= 40, "only {passed} checks ran:\n{stdout}");
}

/// A script written for the original php_ketama extension, shaped like its
/// own example (roll a file, look keys up, print, destroy, then a failing
/// roll), runs unchanged and answers like the C library and the CLI.
#[test]
fn php_ketama_compat_script_runs_unchanged() {
    let file = servers_file(
        "compat.servers",
        "127.0.0.1:11211\t600\n127.0.0.1:11212\t400\n10.0.1.3:11211\t100\n",
    );
    let file_arg = file.to_str().unwrap();
    let keys: Vec<String> = (0..200)
        .map(|i| format!("key-{i}"))
        .chain(["test".into()])
        .collect();
    let mut args = vec![file_arg];
    args.extend(keys.iter().map(String::as_str));
    let out = php(&php_dir().join("tests/php5_style.php"), &args);
    let stdout = text(&out.stdout);
    let stderr = text(&out.stderr);

    // The failing roll is fatal, as with the original's E_ERROR.
    assert_eq!(
        out.status.code(),
        Some(255),
        "a failed ketama_roll must end the script:\n{stdout}\n{stderr}"
    );
    assert!(
        stderr.contains(&format!(
            "PHP Fatal error:  unable to create Ketama continuum: Invalid filename specified: {file_arg}.missing"
        )),
        "fatal error message: {stderr}"
    );
    assert!(!stdout.contains("not reached"));
    assert!(stdout.starts_with("error after roll: ''\n"), "{stdout}");

    // Lookups equal the CLI's (libketama reader, same file).
    let mut cli_args = vec!["find", "--libketama-parser", file_arg];
    cli_args.extend(keys.iter().map(String::as_str));
    let expected = cli(&cli_args);
    let looked_up: String = stdout
        .lines()
        .filter(|l| l.matches('\t').count() == 2)
        .map(|l| {
            let mut f = l.split('\t');
            format!("{}\t{}\n", f.next().unwrap(), f.next().unwrap())
        })
        .collect();
    assert_eq!(looked_up, expected);

    // ketama_print_continuum equals `ketama dump`, in the original's format, before "destroyed".
    let dump = cli(&["dump", "--libketama-parser", file_arg]);
    let mut printed = format!("Numpoints in continuum: {}\n", dump.lines().count());
    for line in dump.lines() {
        let (point, server) = line.split_once('\t').unwrap();
        printed.push_str(&format!("{server} ({point})\n"));
    }
    printed.push_str("destroyed\n");
    assert!(
        stdout.ends_with(&printed),
        "print_continuum output differs:\n{stdout}"
    );
}

#[test]
fn php_compat_lookup_values_match_the_original() {
    // python_ketama's pinned vectors (reference §11): 320 points, test -> (3454255383, 127.0.0.1:11211).
    let file = servers_file(
        "pinned.servers",
        "127.0.0.1:11211\t600\n127.0.0.1:11212\t400\n",
    );
    let out = php(
        &php_dir().join("tests/php5_style.php"),
        &[file.to_str().unwrap(), "test"],
    );
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("test\t127.0.0.1:11211\t3454255383\n"),
        "{stdout}"
    );
    assert!(stdout.contains("Numpoints in continuum: 320\n"), "{stdout}");
}

/// Without KETAMA_LIBRARY, outside the repository and with no system copy,
/// the binding fails with a message naming every place it looked.
#[test]
fn php_reports_where_it_looked_for_a_missing_library() {
    require_php(false);
    let copy = copy_php_binding(&scratch_dir("php-nolib").join("package"));
    let script = copy.join("probe.php");
    std::fs::write(
        &script,
        "<?php require __DIR__ . '/ketama.php';\n\
         try { Ketama\\Ring::fromServers(['a:1']); echo \"loaded\\n\"; }\n\
         catch (Ketama\\KetamaException $e) { echo $e->getMessage(), \"\\n\"; exit(3); }\n",
    )
    .unwrap();
    let missing = scratch_dir("php-nolib").join("nowhere/libketama.so");
    let out = run_with_timeout(
        Command::new("php")
            .arg(&script)
            .env("KETAMA_LIBRARY", &missing)
            .env_remove("LD_LIBRARY_PATH"),
        Duration::from_secs(60),
    );
    let stdout = text(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(3),
        "expected a KetamaException:\n{stdout}{}",
        text(&out.stderr)
    );
    assert!(
        stdout.contains("libketama.so not found or not usable; looked in:"),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!(
            "KETAMA_LIBRARY: {} does not exist",
            missing.display()
        )),
        "{stdout}"
    );
    assert!(
        stdout.contains("target/release/libketama.so does not exist"),
        "{stdout}"
    );
    assert!(
        stdout.contains("target/debug/libketama.so does not exist"),
        "{stdout}"
    );
    assert!(
        stdout.contains("system library path: libketama.so.1"),
        "{stdout}"
    );
}

/// Copies the PHP binding into `root/bindings/php` (a package layout without a build).
fn copy_php_binding(root: &Path) -> PathBuf {
    let copy = root.join("bindings/php");
    std::fs::create_dir_all(copy.join("src")).unwrap();
    for file in ["ketama.php", "compat.php", "ketama_ffi.h"] {
        std::fs::copy(php_dir().join(file), copy.join(file)).unwrap();
    }
    for entry in std::fs::read_dir(php_dir().join("src")).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), copy.join("src").join(entry.file_name())).unwrap();
    }
    copy
}

/// Without KETAMA_LIBRARY the package's own build is used: target/release
/// first, then target/debug (a package layout with a debug build only).
#[test]
fn php_finds_the_package_build_without_configuration() {
    require_php(false);
    let root = scratch_dir("php-pkg").join("package");
    let copy = copy_php_binding(&root);
    let debug = root.join("target/debug");
    std::fs::create_dir_all(&debug).unwrap();
    std::fs::copy(
        shared_library_dir().join("libketama.so"),
        debug.join("libketama.so"),
    )
    .unwrap();
    let script = copy.join("probe.php");
    std::fs::write(
        &script,
        "<?php require __DIR__ . '/ketama.php';\n\
         echo Ketama\\Library::path(), \"\\n\", Ketama\\Ring::fromServers(['a:1'])->server('k'), \"\\n\";\n",
    )
    .unwrap();
    let out = run_with_timeout(
        Command::new("php")
            .arg(&script)
            .env_remove("KETAMA_LIBRARY"),
        Duration::from_secs(60),
    );
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    assert_eq!(
        stdout,
        format!("{}\na:1\n", debug.join("libketama.so").display())
    );
}

#[test]
fn php_memcached_example_against_real_memcached() {
    require_php(true);
    let servers = [Memcached::start(), Memcached::start(), Memcached::start()];
    let addresses: Vec<String> = servers.iter().map(Memcached::address).collect();
    let args: Vec<&str> = addresses.iter().map(String::as_str).collect();
    let out = php(&php_dir().join("examples/memcached_ring.php"), &args);
    let stdout = text(&out.stdout);
    assert!(
        out.status.success(),
        "example failed:\n{stdout}\n{}",
        text(&out.stderr)
    );
    assert!(
        stdout.contains(
            "php-memcached OPT_LIBKETAMA_COMPATIBLE placed 300/300 keys where the 'libmemcached' ring says\n"
        ),
        "{stdout}"
    );
    // The set kept with APPEND/ADD and compacted under CAS.
    assert!(
        stdout.contains(": created, appended, appended\n"),
        "{stdout}"
    );
    assert!(stdout.contains("compacted under CAS: stored\n"), "{stdout}");
    assert_example_output(&stdout, &addresses);
}

/// The global functions are defined only when no function of that name exists
/// (e.g. the old extension is loaded): an existing one is kept, the others are added.
#[test]
fn php_compat_functions_do_not_replace_existing_ones() {
    require_php(false);
    let script = scratch_dir("php-predefined").join("predefined.php");
    std::fs::write(
        &script,
        format!(
            "<?php\nfunction ketama_error() {{ return 'the old extension'; }}\nrequire '{}';\n\
             echo ketama_error(), \"\\n\", function_exists('ketama_roll') ? 'roll defined' : 'roll missing', \"\\n\";\n",
            php_dir().join("ketama.php").display()
        ),
    )
    .unwrap();
    let out = php(&script, &[]);
    assert!(
        out.status.success(),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    assert_eq!(text(&out.stdout), "the old extension\nroll defined\n");
}

/// The PHP bench program (run by scripts/bench.sh) prints one
/// NAME<TAB>SERVERS<TAB>NS_PER_KEY row for the single and the batch lookup;
/// only the shape is checked (timings belong to the bench, not the tests).
#[test]
fn php_bench_prints_tsv_rows() {
    let servers = servers_file(
        "bench.servers",
        &(0..10)
            .map(|i| format!("10.0.0.{i}:11211\t100\n"))
            .collect::<String>(),
    );
    let keys = servers_file(
        "bench.keys",
        &(0..2000).map(|i| format!("user:{i}\n")).collect::<String>(),
    );
    let out = php(
        &php_dir().join("bench.php"),
        &[servers.to_str().unwrap(), "10", keys.to_str().unwrap()],
    );
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    assert_bench_rows(
        &stdout,
        "10",
        &[
            "php Ring::serverIndex (FFI, single)",
            "php Ring::serverIndices (FFI, batch)",
        ],
    );
}

/// `Ketama\MigratingMemcached` over php-memcached and real memcached: a
/// 3 -> 4 move under warm-up reads every key written before it (0 misses,
/// 0 stale), copies the moved keys forward, and reads back writes and
/// deletes made during it (bindings/php/tests/migrating_memcached.php).
#[test]
fn php_migrating_memcached_moves_a_pool_on_real_memcached() {
    require_php(true);
    let servers: Vec<Memcached> = (0..4).map(|_| Memcached::start()).collect();
    let addresses: Vec<String> = servers.iter().map(Memcached::address).collect();
    let args: Vec<&str> = addresses.iter().map(String::as_str).collect();
    let out = php(&php_dir().join("tests/migrating_memcached.php"), &args);
    let stdout = text(&out.stdout);
    assert!(
        out.status.success(),
        "migrating_memcached.php failed:\n{stdout}\n{}",
        text(&out.stderr)
    );
    eprintln!("php migrating client: {}", stdout.trim());
    assert!(stdout.contains(" misses=0 stale=0 "), "{stdout}");
    drop(servers);
}
