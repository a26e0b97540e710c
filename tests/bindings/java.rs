//! The Java binding (bindings/java) on the real JVM with JNA: the JUnit 4
//! suites (Ring API, names resolved by the library, KetamaNodeLocator in a
//! spymemcached MemcachedClient against real memcached on loopback), the
//! compiled enums against the C header, the library search error and the
//! spymemcached example.

use ketama_testkit as common;

use std::process::Output;
use std::time::Duration;

use common::java::java_command;
use common::{Memcached, assert_bench_rows, assert_example_output, run_with_timeout, scratch_dir};

/// Runs `java [props] CLASS ARGS` against this build's library.
fn java(props: &[String], class: &str, args: &[&str]) -> Output {
    run_with_timeout(
        java_command(props, class).args(args),
        Duration::from_secs(300),
    )
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Runs a JUnit 4 class and asserts that all of its (at least `min`) tests passed.
fn junit(props: &[String], class: &str, min: usize) {
    let out = java(props, "org.junit.runner.JUnitCore", &[class]);
    let stdout = text(&out.stdout);
    assert!(
        out.status.success(),
        "{class} failed:\n{stdout}\n{}",
        text(&out.stderr)
    );
    let ran: usize = stdout
        .lines()
        .find_map(|l| {
            l.strip_prefix("OK (")
                .and_then(|r| r.strip_suffix(" tests)"))
        })
        .unwrap_or_else(|| panic!("no JUnit OK line:\n{stdout}"))
        .parse()
        .unwrap();
    assert!(ran >= min, "{class}: only {ran} tests ran");
}

#[test]
fn java_ring_api() {
    junit(&[], "net.ketama.RingTest", 13);
}

/// `Ring.serverIndices` (List<String>, byte[][], packed) and `Ring.serversFor`
/// equal the single-key lookups on 12,000 keys (empty, long, non-ASCII,
/// binary) in four flavours; lengths past the buffer throw the library's message.
#[test]
fn java_batch_lookups_equal_single_lookups() {
    junit(&[], "net.ketama.BatchTest", 6);
}

#[test]
fn java_set_codec() {
    junit(&[], "net.ketama.SetCodecTest", 8);
}

#[test]
fn java_node_locator_in_a_real_memcached_client() {
    let servers = [Memcached::start(), Memcached::start(), Memcached::start()];
    let list: Vec<String> = servers.iter().map(Memcached::address).collect();
    junit(
        &[format!("-Dketama.test.memcached={}", list.join(","))],
        "net.ketama.NodeLocatorTest",
        5,
    );
}

/// The compiled Java enums carry the constants and ids of include/ketama.h,
/// all of them: every enum Java prints is whole, constant for constant, as
/// the core's registry declares it (the list the header's and Java's enums
/// are generated from by crates/ketama-gen, whose `--check` keeps both
/// current).
#[test]
fn java_enums_match_the_c_header() {
    let out = java(&[], "net.ketama.PrintEnums", &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let mut printed: Vec<String> = text(&out.stdout).lines().map(String::from).collect();
    printed.sort();
    let line = |c: &ketama_core::registry::Constant| format!("{}={}", c.c_name, c.id);
    let shown: Vec<&ketama_core::registry::AbiEnum> = ketama_core::abi::ENUMS
        .iter()
        .filter(|e| e.constants().iter().any(|c| printed.contains(&line(c))))
        .collect();
    let mut expected: Vec<String> = shown
        .iter()
        .flat_map(|e| e.constants())
        .map(|c| line(&c))
        .collect();
    expected.sort();
    assert!(
        shown.len() >= 8 && expected.len() > 40,
        "{} enums, {expected:?}",
        shown.len()
    );
    assert_eq!(
        printed, expected,
        "the Java enums differ from include/ketama.h: regenerate them with `make generate`"
    );
}

#[test]
fn java_reports_where_it_looked_for_a_missing_library() {
    let missing = scratch_dir("java-nolib").join("nowhere/libketama.so");
    let out = java(
        &[format!("-Dketama.library={}", missing.display())],
        "net.ketama.Probe",
        &[],
    );
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(3), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.starts_with("libketama.so not found or not usable; looked in:"),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!(
            "system property ketama.library: {}",
            missing.display()
        )),
        "{stdout}"
    );
    let ok = java(&[], "net.ketama.Probe", &[]);
    assert_eq!(
        text(&ok.stdout),
        format!("libketama {}\n", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn java_spymemcached_example_against_real_memcached() {
    let servers = [Memcached::start(), Memcached::start(), Memcached::start()];
    let list: Vec<String> = servers.iter().map(Memcached::address).collect();
    let args: Vec<&str> = list.iter().map(String::as_str).collect();
    let out = java(&[], "net.ketama.examples.SpymemcachedExample", &args);
    let stdout = text(&out.stdout);
    assert!(
        out.status.success(),
        "example failed:\n{stdout}\n{}",
        text(&out.stderr)
    );
    assert!(
        stdout
            .contains("spymemcached KetamaConnectionFactory placed 300/300 keys where the SPYMEMCACHED flavour says\n"),
        "{stdout}"
    );
    // The set kept with append/add, read with gets and compacted with cas.
    assert!(
        stdout.contains(": [CREATED, APPENDED, APPENDED]\n"),
        "{stdout}"
    );
    assert!(stdout.contains("compacted under CAS: OK\n"), "{stdout}");
    assert_example_output(&stdout, &list);
}

/// The spymemcached flavours through the binding equal spymemcached's own
/// KetamaNodeLocator in the same JVM: 3/10/100 servers, unweighted and
/// weighted, both node-key formats, several hashes, 10,000 keys each.
#[test]
fn java_continuum_equals_spymemcached_in_the_same_jvm() {
    let out = java(
        &[],
        "org.junit.runner.JUnitCore",
        &["net.ketama.SpymemcachedContinuumTest"],
    );
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
    let summary = stdout
        .lines()
        .find(|l| l.contains("spymemcached continuum: "))
        .unwrap_or_else(|| panic!("no summary line:\n{stdout}"));
    let numbers: Vec<u64> = summary.split(' ').filter_map(|w| w.parse().ok()).collect();
    assert_eq!(numbers[0], 24, "{summary}");
    assert!(numbers[2] >= 240_000, "{summary}");
    assert!(summary.ends_with("0 differences"), "{summary}");
    eprintln!("{summary}");
}

/// The Java bench program (run by scripts/bench.sh) prints one
/// NAME<TAB>SERVERS<TAB>NS_PER_KEY row per measured lookup, after checking
/// that spymemcached's locator and this library's agree; only the shape is
/// checked (timings belong to the bench, not the tests).
#[test]
fn java_bench_prints_tsv_rows() {
    let dir = scratch_dir("java-bench");
    let servers = dir.join("servers");
    let servers_text: String = (0..10)
        .map(|i| format!("10.0.0.{i}:11211\t100\n"))
        .collect();
    std::fs::write(&servers, servers_text).unwrap();
    let keys = dir.join("keys");
    let keys_text: String = (0..2000).map(|i| format!("user:{i}\n")).collect();
    std::fs::write(&keys, keys_text).unwrap();
    let out = java(
        &[],
        "net.ketama.bench.LookupBench",
        &[servers.to_str().unwrap(), "10", keys.to_str().unwrap()],
    );
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    assert_bench_rows(
        &stdout,
        "10",
        &[
            "java Ring.serverIndex(key.getBytes(UTF_8)) (JNA, single)",
            "java Ring.serverIndices(List<String>) (JNA, batch)",
            "java spymemcached KetamaNodeLocator.getPrimary",
            "java net.ketama.KetamaNodeLocator.getPrimary (JNA, spymemcached flavour)",
        ],
    );
}

/// `net.ketama.MigratingMemcachedClient` over spymemcached and real
/// memcached: a 3 -> 4 move under warm-up reads every key written before it
/// (0 misses, 0 stale), copies the moved keys forward, and reads back
/// writes and deletes made during it (MigratingClientTest).
#[test]
fn java_migrating_client_moves_a_pool_on_real_memcached() {
    let servers: Vec<Memcached> = (0..4).map(|_| Memcached::start()).collect();
    let list: Vec<String> = servers.iter().map(Memcached::address).collect();
    junit(
        &[format!("-Dketama.test.memcached={}", list.join(","))],
        "net.ketama.MigratingClientTest",
        2,
    );
    drop(servers);
}
