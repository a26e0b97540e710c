//! Cross-language agreement and the C example: the CLI, C (ring API and,
//! for libketama, the original API), PHP, Java and Python give the same
//! server for the same 10,000 keys and server lists (libketama, spymemcached
//! and the continuum flavours libketama-java, dalli, nginx, node-memcached
//! and memcached-fast, and the per-key placements pymemcache,
//! python-memcached and cache-memcached); the libmemcached example runs
//! against real memcached under valgrind.

use ketama_testkit as common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use common::java::java_command;
use common::{
    Memcached, assert_valgrind_clean, compile_c, repo_root, require_tool, run_with_timeout,
    scratch_dir, shared_library_dir,
};

const KEYS: usize = 10_000;

fn keys() -> String {
    let mut keys = String::new();
    for i in 0..KEYS {
        let key = match i % 5 {
            0 => format!("key:{i}"),
            1 => format!("user/{}/profile", i * 7919),
            2 => format!("ключ-{i}-ü€"),
            3 => format!("{:x}", (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)),
            _ => format!("session {i} 😀"),
        };
        keys.push_str(&key);
        keys.push('\n');
    }
    keys
}

/// Runs `cmd` with `input` on stdin; returns stdout, asserting success.
fn run_with_input(cmd: &mut Command, input: &Path, what: &str) -> String {
    let out = run_with_timeout(
        cmd.stdin(Stdio::from(std::fs::File::open(input).unwrap())),
        Duration::from_secs(600),
    );
    assert!(
        out.status.success(),
        "{what} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap_or_else(|_| panic!("{what}: output is not UTF-8"))
}

/// One server list: every implementation answers the same 10,000 keys.
fn agree(
    dir: &Path,
    name: &str,
    servers: &str,
    flavour: (&str, u32, &str),
    c_program: &Path,
) -> usize {
    let file = dir.join(format!("{name}.servers"));
    std::fs::write(&file, servers).unwrap();
    let input = dir.join("keys.txt");
    let file_arg = file.to_str().unwrap();
    let (cli_name, c_id, java_name) = flavour;

    let cli = run_with_input(
        Command::new(common::cli()).args(["find", "--flavor", cli_name, file_arg]),
        &input,
        "ketama find",
    );
    assert_eq!(
        cli.lines().count(),
        KEYS,
        "{name}: CLI answered {} keys",
        cli.lines().count()
    );
    let c = run_with_input(
        Command::new(c_program).arg(&file).arg(c_id.to_string()),
        &input,
        "C",
    );
    require_tool("php", "php8.2-cli");
    let php = run_with_input(
        Command::new("php")
            .arg(repo_root().join("bindings/php/tests/find_keys.php"))
            .args([file_arg, cli_name])
            .env("KETAMA_LIBRARY", shared_library_dir().join("libketama.so")),
        &input,
        "PHP",
    );
    let java = run_with_input(
        java_command(&[], "net.ketama.FindKeys").args([file_arg, java_name]),
        &input,
        "Java",
    );
    let python = run_with_input(
        common::python_command(&repo_root().join("bindings/python/tests/find_keys.py"))
            .args([file_arg, cli_name]),
        &input,
        "Python",
    );
    for (language, answers) in [
        ("C", &c),
        ("PHP", &php),
        ("Java", &java),
        ("Python", &python),
    ] {
        let differing: Vec<(&str, &str)> = cli
            .lines()
            .zip(answers.lines())
            .filter(|(a, b)| a != b)
            .take(3)
            .collect();
        assert!(
            differing.is_empty(),
            "{name}: {language} differs from the CLI, e.g. {differing:?}"
        );
        assert_eq!(
            answers.lines().count(),
            KEYS,
            "{name}: {language} answered {} keys",
            answers.lines().count()
        );
    }
    // The answers are not all the same server.
    let distinct: std::collections::HashSet<&str> = cli
        .lines()
        .map(|l| l.rsplit('\t').next().unwrap())
        .collect();
    assert!(
        distinct.len() > 2,
        "{name}: only {} servers used",
        distinct.len()
    );
    KEYS
}

#[test]
fn php_java_python_c_and_cli_agree_on_10000_keys() {
    let dir = scratch_dir("agreement");
    std::fs::write(dir.join("keys.txt"), keys()).unwrap();
    let c_program = compile_c(
        &[&repo_root().join("tests/c/bindings_find_keys.c")],
        "bindings_find_keys",
        &[],
    );

    let weighted: String = (0..10)
        .map(|i| format!("10.0.1.{i}:11211\t{}\n", 100 + i * 37))
        .collect();
    let hundred: String = (0..100)
        .map(|i| format!("10.1.{}.{}:{}\t1\n", i / 50, i % 50, 11211 + i % 3))
        .collect();
    let spy: String = (0..10)
        .map(|i| format!("10.2.0.{i}:11211\t{}\n", 1 + i % 4))
        .collect();
    let mut compared = 0;
    compared += agree(
        &dir,
        "weighted10",
        &weighted,
        ("libketama", 0, "libketama"),
        &c_program,
    );
    compared += agree(
        &dir,
        "unweighted100",
        &hundred,
        ("libketama", 0, "libketama"),
        &c_program,
    );
    compared += agree(
        &dir,
        "spymemcached10",
        &spy,
        ("spymemcached", 1, "spymemcached"),
        &c_program,
    );
    // The continuum flavours of today's clients, by their C ids and names.
    let mixed: String = (0..10)
        .map(|i| format!("10.3.0.{i}:{}\t{}\n", 11211 + i % 2, 1 + i % 3))
        .collect();
    for (cli_name, c_id) in [
        ("libketama-java", 8),
        ("dalli", 9),
        ("nginx", 10),
        ("node-memcached", 11),
        ("memcached-fast", 12),
        ("python-memcached", 14),
        ("cache-memcached", 15),
    ] {
        compared += agree(
            &dir,
            cli_name,
            &mixed,
            (cli_name, c_id, cli_name),
            &c_program,
        );
    }
    // pymemcache has no weights: every server weight 1.
    let unweighted: String = (0..10)
        .map(|i| format!("10.4.0.{i}:{}\t1\n", 11211 + i % 2))
        .collect();
    compared += agree(
        &dir,
        "pymemcache",
        &unweighted,
        ("pymemcache", 13, "pymemcache"),
        &c_program,
    );
    eprintln!(
        "cross-language: 11 server lists x {KEYS} keys: CLI, C, PHP, Java and Python agree on all {compared} lookups each"
    );
    assert_eq!(compared, 11 * KEYS);
}

#[test]
fn c_libmemcached_example_against_real_memcached() {
    assert!(
        Path::new("/usr/include/libmemcached-1.0/memcached.h").exists(),
        "libmemcached headers are missing: install the Debian package libmemcached-dev"
    );
    let servers = [Memcached::start(), Memcached::start(), Memcached::start()];
    let list: Vec<String> = servers.iter().map(Memcached::address).collect();
    let args: Vec<&str> = list.iter().map(String::as_str).collect();
    let program = compile_c(
        &[&repo_root().join("bindings/c/examples/libmemcached_ring.c")],
        "libmemcached_ring",
        &["-lmemcached"],
    );
    let out = assert_valgrind_clean(&program, &args, Duration::from_secs(300));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("read back 300/300 keys from their servers, 0 found elsewhere\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains(": created, appended, appended\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains("read 76 members from 228 records (152 redundant)\n"),
        "{stdout}"
    );
    assert!(stdout.contains("compacted under CAS: stored\n"), "{stdout}");
    assert!(
        stdout.contains("after compaction: 76 members in 76 records, none lost\n"),
        "{stdout}"
    );
    // Placement counts equal the CLI's.
    let mut cli = Command::new(common::cli());
    cli.args(["find", "--servers", &list.join(",")])
        .args((0..300).map(|i| format!("user:{i}")));
    let placed =
        String::from_utf8_lossy(&run_with_timeout(&mut cli, Duration::from_secs(60)).stdout)
            .into_owned();
    let expected: String = list
        .iter()
        .map(|a| {
            format!(
                " {a}={}",
                placed
                    .lines()
                    .filter(|l| l.ends_with(&format!("\t{a}")))
                    .count()
            )
        })
        .collect();
    assert!(
        stdout.contains(&format!("placed 300 keys:{expected}\n")),
        "{stdout}\nexpected {expected}"
    );
}

/// bindings/c/examples/libmemcached_migration.c: libmemcached driven by the
/// library's migration steps through a 3 -> 4 warm-up move on real
/// memcached, under valgrind: every key read (0 misses, 0 stale), the moved
/// ones copied forward, writes and deletes during the move read back.
#[test]
fn c_libmemcached_migration_example_against_real_memcached() {
    assert!(
        Path::new("/usr/include/libmemcached-1.0/memcached.h").exists(),
        "libmemcached headers are missing: install the Debian package libmemcached-dev"
    );
    let servers: Vec<Memcached> = (0..4).map(|_| Memcached::start()).collect();
    let list: Vec<String> = servers.iter().map(Memcached::address).collect();
    let args: Vec<&str> = list.iter().map(String::as_str).collect();
    let program = compile_c(
        &[&repo_root().join("bindings/c/examples/libmemcached_migration.c")],
        "libmemcached_migration",
        &["-lmemcached"],
    );
    let out = assert_valgrind_clean(&program, &args, Duration::from_secs(600));
    let stdout = String::from_utf8_lossy(&out.stdout);
    eprintln!("{stdout}");
    assert!(stdout.contains(" moved, 0 misses, 0 stale, "), "{stdout}");
    assert!(
        stdout.contains(" deleted, 0 read after delete\n"),
        "{stdout}"
    );
    assert!(stdout.ends_with("libmemcached migration: ok\n"), "{stdout}");
    drop(servers);
}

#[test]
fn python_pymemcache_hasher_reads_pylibmc_keys_and_places_keys_where_php_and_java_do() {
    let servers = [Memcached::start(), Memcached::start(), Memcached::start()];
    let addresses: Vec<String> = servers.iter().map(Memcached::address).collect();
    let out = run_with_timeout(
        common::python_command(&repo_root().join("bindings/python/tests/pymemcache_placement.py"))
            .args(&addresses),
        Duration::from_secs(600),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "pymemcache_placement.py failed (Debian python3-pylibmc, python3-pymemcache):\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.lines().any(|l| l == "libmemcached\t10000\t10000\t0"),
        "pylibmc keys not all read back through pymemcache + KetamaHasher(libmemcached):\n{}",
        stdout.lines().next().unwrap_or_default()
    );
    let placed: Vec<(&str, &str)> = stdout
        .lines()
        .filter_map(|l| l.strip_prefix("P\t"))
        .map(|l| l.split_once('\t').unwrap())
        .collect();
    assert_eq!(placed.len(), 1000, "{stdout}");

    // The same servers as a libketama file (equal weights): where do PHP and Java put the keys?
    let dir = scratch_dir("pymemcache");
    let file = dir.join("pymemcache.servers");
    let list: String = addresses.iter().map(|a| format!("{a}\t1\n")).collect();
    std::fs::write(&file, list).unwrap();
    let keys = dir.join("keys.txt");
    let key_lines: String = placed.iter().map(|(k, _)| format!("{k}\n")).collect();
    std::fs::write(&keys, key_lines).unwrap();
    let expected: String = placed.iter().map(|(k, s)| format!("{k}\t{s}\n")).collect();
    let file_arg = file.to_str().unwrap();
    let php = run_with_input(
        Command::new("php")
            .arg(repo_root().join("bindings/php/tests/find_keys.php"))
            .args([file_arg, "libketama"])
            .env("KETAMA_LIBRARY", shared_library_dir().join("libketama.so")),
        &keys,
        "PHP",
    );
    let java = run_with_input(
        java_command(&[], "net.ketama.FindKeys").args([file_arg, "libketama"]),
        &keys,
        "Java",
    );
    for (language, answers) in [("PHP", &php), ("Java", &java)] {
        let differing: Vec<(&str, &str)> = expected
            .lines()
            .zip(answers.lines())
            .filter(|(a, b)| a != b)
            .take(3)
            .collect();
        assert!(
            differing.is_empty() && answers.lines().count() == 1000,
            "keys written through KetamaHasher(libketama) are not where {language} says, e.g. {differing:?}"
        );
    }
    let used: std::collections::HashSet<&str> = placed.iter().map(|(_, s)| *s).collect();
    assert_eq!(used.len(), 3, "keys landed on {used:?}");
    eprintln!(
        "pymemcache: 10000 pylibmc keys read back with 0 misses; 1000 keys placed as PHP and Java say"
    );
}
