//! The Python binding (bindings/python), a native extension module over
//! ketama-core, installed with `pip install` (maturin, offline) into a fresh
//! venv of Debian's python3: the python_ketama drop-in checked against the
//! PyPI `ketama==0.1.1` oracle module (the original libketama C code) on
//! the same server lists and keys as tests/c_abi/libketama_oracle.rs, the
//! binding's own unittest suite, the package's self-containment (no library
//! to find) and the bench script. The wheel built by `maturin build` is
//! installed without a compiler by tests/packages/python_wheel.rs.

use ketama_testkit as common;
use ketama_testkit::oracle_lists;

use std::path::Path;
use std::process::{Command, Output};
use std::time::Duration;

use common::{
    assert_bench_rows, python_binding, python_command, repo_root, run_with_timeout, scratch_dir,
};
use oracle_lists::{MALFORMED_FILES, hex_encode, oracle_python, oracle_server_lists, test_keys};

fn script(name: &str) -> std::path::PathBuf {
    repo_root().join("bindings/python/tests").join(name)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn succeeded(out: Output, what: &str) -> String {
    assert!(
        out.status.success(),
        "{what} failed:\n{}\n{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    text(&out.stdout)
}

/// What the oracle module and this binding answer for one server file.
fn dumps(path: &Path, keys: Option<&Path>) -> (String, String) {
    let mut oracle = Command::new(oracle_python());
    oracle
        .arg(script("continuum_dump.py"))
        .arg("oracle")
        .arg(path);
    let mut ours = python_command(&script("continuum_dump.py"));
    ours.arg("ours").arg(path);
    if let Some(keys) = keys {
        oracle.arg(keys);
        ours.arg(keys);
    }
    (
        succeeded(
            run_with_timeout(&mut oracle, Duration::from_secs(300)),
            "oracle dump",
        ),
        succeeded(
            run_with_timeout(&mut ours, Duration::from_secs(300)),
            "our dump",
        ),
    )
}

/// The original's ketama_error text from "(line " on, when it names a line.
fn line_of(message: &str) -> Option<&str> {
    message.rfind("(line ").map(|at| &message[at..])
}

/// Compares one valid file; returns (keys compared, answers the oracle module could not decode).
fn compare_valid(name: &str, content: &[u8]) -> (usize, usize) {
    let dir = scratch_dir("python-oracle");
    let path = dir.join(name);
    std::fs::write(&path, content).unwrap();
    let lines: Vec<String> = text(content).lines().map(str::to_string).collect();
    let keys = test_keys(&lines);
    let keys_path = dir.join(format!("{name}.keys"));
    let hex: String = keys.iter().map(|k| hex_encode(k) + "\n").collect();
    std::fs::write(&keys_path, hex).unwrap();
    let (oracle, ours) = dumps(&path, Some(&keys_path));
    let oracle: Vec<&str> = oracle.lines().collect();
    let ours: Vec<&str> = ours.lines().collect();
    let our_points: Vec<&str> = ours
        .iter()
        .copied()
        .filter(|l| l.starts_with("P\t"))
        .collect();
    let our_keys: Vec<&str> = ours
        .iter()
        .copied()
        .filter(|l| l.starts_with("K\t"))
        .collect();
    let oracle_keys: Vec<&str> = oracle
        .iter()
        .copied()
        .filter(|l| l.starts_with("K\t"))
        .collect();
    assert!(
        ours[0].starts_with("points\t"),
        "{name}: ours failed: {}",
        ours[0]
    );
    assert_eq!(our_keys.len(), keys.len(), "{name}: keys answered");
    assert_eq!(
        oracle_keys.len(),
        keys.len(),
        "{name}: keys answered by the oracle"
    );
    let mut undecodable = 0;
    if oracle[0] == "points\t?" {
        // The oracle module cannot build the list (an address of 22+ bytes):
        // the continuum itself is compared by tests/c_abi/libketama_oracle.rs; here
        // the count must still agree with the original C code.
        undecodable += 1;
        assert!(
            our_points
                .iter()
                .any(|l| l.split('\t').nth(2).unwrap().len() == 44),
            "{name}: the oracle could not decode an address, but none of ours is 22+ bytes"
        );
    } else {
        assert_eq!(ours[0], oracle[0], "{name}: point count");
        let oracle_points: Vec<&str> = oracle
            .iter()
            .copied()
            .filter(|l| l.starts_with("P\t"))
            .collect();
        if let Some(i) = (0..our_points.len()).find(|&i| our_points[i] != oracle_points[i]) {
            panic!(
                "{name}: point {i}: ours {:?}, oracle {:?}",
                our_points[i], oracle_points[i]
            );
        }
    }
    for (i, (ours, theirs)) in our_keys.iter().zip(&oracle_keys).enumerate() {
        if ours == theirs {
            continue;
        }
        let a: Vec<&str> = ours.split('\t').collect();
        let b: Vec<&str> = theirs.split('\t').collect();
        // "?": the oracle could not decode the address; point and hashi must still agree.
        assert!(
            b[2] == "?" && a[1] == b[1] && a[3] == b[3] && a[2].len() == 44,
            "{name}: key {i} ({}): ours {ours:?}, oracle {theirs:?}",
            hex_encode(&keys[i])
        );
        undecodable += 1;
    }
    (keys.len(), undecodable)
}

#[test]
fn python_continuum_and_hashi_match_the_pypi_oracle_module() {
    let mut compared = 0;
    let mut undecodable = 0;
    let lists = oracle_server_lists();
    for (name, content) in &lists {
        let (keys, odd) = compare_valid(name, content);
        compared += keys;
        undecodable += odd;
    }
    // Rejected files: KetamaError with the original's message (the line it names).
    let dir = scratch_dir("python-oracle-bad");
    let mut rejected = 0;
    let mut bad: Vec<(String, std::path::PathBuf)> = MALFORMED_FILES
        .iter()
        .map(|(name, content)| {
            let path = dir.join(name);
            std::fs::write(&path, content).unwrap();
            (name.to_string(), path)
        })
        .collect();
    bad.push(("dev_null".into(), "/dev/null".into()));
    for (name, path) in &bad {
        let (oracle, ours) = dumps(path, None);
        let oracle = oracle
            .trim_end()
            .strip_prefix("error\t")
            .unwrap_or_else(|| panic!("{name}: the oracle accepted it"));
        let ours = ours
            .trim_end()
            .strip_prefix("error\t")
            .unwrap_or_else(|| panic!("{name}: we accepted it"));
        match line_of(oracle) {
            Some(line) => {
                assert_eq!(
                    line_of(ours),
                    Some(line),
                    "{name}: ours {ours:?}, oracle {oracle:?}"
                );
                assert!(
                    !ours.starts_with(" ("),
                    "{name}: our message keeps its reason: {ours:?}"
                );
            }
            None => assert_eq!(ours, oracle, "{name}"),
        }
        rejected += 1;
    }
    eprintln!(
        "python: {} server lists, {compared} keys (get_server, hashi) and get_points equal to the \
         PyPI ketama==0.1.1 module ({undecodable} answers it could not decode: 22+ byte addresses); \
         {rejected} rejected files fail alike",
        lists.len()
    );
    assert!(compared > 14 * 10_000);
}

#[test]
fn python_binding_unittest_suite() {
    let out = run_with_timeout(
        python_command(Path::new("-m"))
            .args(["unittest", "-v", "test_ketama", "test_sets", "test_native"])
            .current_dir(repo_root().join("bindings/python/tests"))
            .env("KETAMA_CLI", common::cli().to_str().unwrap()),
        Duration::from_secs(600),
    );
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "unittest failed:\n{stderr}");
    let ran: usize = stderr
        .lines()
        .find_map(|l| l.strip_prefix("Ran ")?.split(' ').next()?.parse().ok())
        .expect("unittest summary");
    assert!(ran >= 30, "only {ran} tests ran:\n{stderr}");
    // The package was imported from the venv, not from the source tree,
    // and its native code is the extension module inside it.
    let location = run_with_timeout(
        python_command(Path::new("-c"))
            .arg("import ketama, os; print(ketama.__file__); print(ketama.library_path())")
            .current_dir(scratch_dir("python-cwd")),
        Duration::from_secs(60),
    );
    let location = succeeded(location, "import ketama");
    let venv = python_binding().parent().unwrap().parent().unwrap();
    let lines: Vec<&str> = location.lines().collect();
    assert_eq!(lines.len(), 2, "{location}");
    for line in lines {
        assert!(
            line.starts_with(venv.to_str().unwrap()),
            "ketama imported from {line}"
        );
    }
    assert!(location.contains("/ketama/_ketama."), "{location}");
}

/// The installed package needs nothing beside itself: no KETAMA_LIBRARY, no
/// libketama.so on any path; its extension module links neither libketama
/// nor libpython (abi3: one module for every CPython from 3.8).
#[test]
fn python_package_is_self_contained() {
    let out = run_with_timeout(
        python_command(Path::new("-c"))
            .arg(
                "import ketama; r = ketama.Ring(['a:1', 'b:2'], 'libmemcached'); \
                 print(ketama.library_path()); print(r.server('user:1'))",
            )
            .current_dir(scratch_dir("python-cwd"))
            .env("LD_LIBRARY_PATH", "/nonexistent"),
        Duration::from_secs(60),
    );
    let out = succeeded(out, "python without KETAMA_LIBRARY");
    let module = out.lines().next().unwrap();
    assert!(module.ends_with(".abi3.so"), "{module}");
    let needed = run_with_timeout(
        Command::new("readelf").args(["-d", module]),
        Duration::from_secs(60),
    );
    let needed = succeeded(needed, "readelf -d");
    let libraries: Vec<&str> = needed.lines().filter(|l| l.contains("(NEEDED)")).collect();
    assert!(
        !libraries
            .iter()
            .any(|l| l.contains("libketama") || l.contains("libpython")),
        "{module} needs {libraries:?}"
    );
    // The package's sources alone (no native module, outside a checkout)
    // say what to do instead of failing on a circular import.
    let dir = scratch_dir("python-sources-only");
    common::copy_tree(
        &repo_root().join("bindings/python/ketama"),
        &dir.join("ketama"),
    );
    let out = run_with_timeout(
        Command::new(python_binding())
            .args(["-S", "-c", "import ketama"])
            .current_dir(&dir),
        Duration::from_secs(60),
    );
    let stderr = text(&out.stderr);
    assert!(!out.status.success());
    for part in [
        "ImportError: the native module ketama._ketama is not built",
        "pip install ./bindings/python",
        "is not inside a ketama checkout",
    ] {
        assert!(stderr.contains(part), "missing {part:?} in:\n{stderr}");
    }
}

#[test]
fn python_bench_prints_single_and_batch_rows() {
    let dir = scratch_dir("python-bench");
    let servers = dir.join("bench.servers");
    let list: String = (0..10)
        .map(|i| format!("10.0.0.{i}:11211\t100\n"))
        .collect();
    std::fs::write(&servers, list).unwrap();
    let keys = dir.join("keys.txt");
    let key_lines: String = (0..2000).map(|i| format!("user:{i}\n")).collect();
    std::fs::write(&keys, key_lines).unwrap();
    let out = run_with_timeout(
        python_command(&repo_root().join("bindings/python/bench.py"))
            .arg(&servers)
            .arg("10")
            .arg(&keys),
        Duration::from_secs(300),
    );
    let stdout = succeeded(out, "bench.py");
    assert_bench_rows(
        &stdout,
        "10",
        &[
            "python Ring.server_index (native, single)",
            "python Ring.server_indices (native, batch)",
        ],
    );
    // scripts/bench_report.py reads these rows by the same names.
    let report = std::fs::read_to_string(repo_root().join("scripts/bench_report.py")).unwrap();
    for row in stdout.lines() {
        let name = row.split('\t').next().unwrap();
        assert!(
            report.contains(&format!("\"{name}\"")),
            "bench_report.py does not know {name:?}"
        );
    }
}

/// `ketama.pymemcache.MigratingClient` over real memcached: a 3 -> 4 move
/// under warm-up reads every key written before it (0 misses, 0 stale),
/// copies the moved keys forward, and reads back writes and deletes made
/// during it (bindings/python/tests/migrating_client.py).
#[test]
fn python_migrating_client_moves_a_pool_on_real_memcached() {
    let servers: Vec<common::Memcached> = (0..4).map(|_| common::Memcached::start()).collect();
    let mut cmd = python_command(&script("migrating_client.py"));
    cmd.args(servers.iter().map(|s| s.address()));
    let out = succeeded(
        run_with_timeout(&mut cmd, Duration::from_secs(300)),
        "migrating_client.py",
    );
    eprintln!("python migrating client: {}", out.trim());
    assert!(out.contains(" misses=0 stale=0 "), "{out}");
    drop(servers);
}
