//! The `python-memcached` flavour against python-memcached itself (Debian
//! `python3-memcache`, module `memcache`), asked in the same run through
//! ketama-testkit/peers/python_memcached_peer.py: `Client._get_server` places every
//! key over the weighted bucket list, and the library must answer the same
//! server on 3, 10 and 100 servers, unweighted, equal and unequal weights,
//! for 10,000 ASCII keys plus non-ASCII (valid UTF-8 and not), control-byte,
//! over-long and hash-0 keys; with servers down the client's own rehashing
//! (which gives up after 10 buckets) must match `Ring::locate_live`.

use ketama_testkit as common;
use ketama_testkit::harness::report;
use ketama_testkit::peer_programs;
use ketama_testkit::peers;

use std::ffi::OsStr;

use ketama_core::{Flavour, Ring, RingConfig};
use peer_programs::{compare_per_key, weighted_peer_lines, weighted_ring, zero_hash_keys};
use peers::{ServerList, Weights, keys, non_ascii_keys, odd_keys, servers, standard_lists};

const FLAVOUR: Flavour = Flavour::PythonMemcached;

fn require_peer() {
    let probe = std::process::Command::new("/usr/bin/python3")
        .args(["-c", "import memcache"])
        .output()
        .expect("run /usr/bin/python3");
    assert!(
        probe.status.success(),
        "Debian's python3 cannot import memcache: run `make deps` (package python3-memcache)"
    );
}

fn all_keys() -> Vec<Vec<u8>> {
    let mut keys = keys();
    keys.extend(non_ascii_keys());
    keys.extend(odd_keys());
    keys.extend(zero_hash_keys());
    keys
}

fn compare(cases: &[(ServerList, Vec<usize>)], keys: &[Vec<u8>]) -> usize {
    require_peer();
    let script = common::peer_program("python_memcached_peer.py");
    compare_per_key(
        "python-memcached",
        &[OsStr::new("/usr/bin/python3"), script.as_os_str()],
        weighted_peer_lines,
        |list| weighted_ring(list, FLAVOUR),
        cases,
        keys,
    )
}

#[test]
fn get_server_places_every_key_as_the_library_does() {
    let cases: Vec<(ServerList, Vec<usize>)> =
        standard_lists().into_iter().map(|l| (l, vec![])).collect();
    let keys = all_keys();
    let compared = compare(&cases, &keys);
    assert!(compared >= 9 * 10_000);
    println!("{} cases, {compared} keys, 0 differences", cases.len());
}

#[test]
fn dead_servers_are_rehashed_as_the_client_rehashes_them() {
    let keys = keys();
    let cases = vec![
        (servers(10, Weights::None), vec![3]),
        (servers(10, Weights::Unequal), vec![0, 1, 2, 4, 6, 8]),
        (servers(100, Weights::None), (0..95).collect()),
        (servers(3, Weights::Unequal), vec![0, 1, 2]),
    ];
    compare(&cases, &keys);
}

#[test]
fn old_server_hash_function_is_the_full_crc32() {
    // useOldServerHashFunction() makes the client hash with binascii.crc32.
    let ring_crc32 = |list: &ServerList| {
        let specs = list.specs();
        Ring::new(
            specs,
            RingConfig::new(FLAVOUR, FLAVOUR.hash_from_name("crc32")),
        )
        .unwrap()
    };
    require_peer();
    let list = servers(10, Weights::Unequal);
    let keys = keys();
    let dir = common::scratch_dir("python-memcached-old-hash");
    peers::write_keys(&dir.join("keys"), &keys);
    std::fs::write(dir.join("servers"), weighted_peer_lines(&list)).unwrap();
    let script = common::peer_program("python_memcached_peer.py");
    let output = common::run_with_timeout(
        std::process::Command::new("/usr/bin/python3")
            .env("PYTHON_MEMCACHED_OLD_HASH", "1")
            .arg(&script)
            .arg(&dir),
        std::time::Duration::from_secs(300),
    );
    assert!(output.status.success(), "{output:?}");
    let answer: Vec<Option<usize>> = std::fs::read_to_string(dir.join("out"))
        .unwrap()
        .lines()
        .map(|l| usize::try_from(l.parse::<i64>().unwrap()).ok())
        .collect();
    let ring = ring_crc32(&list);
    let ours: Vec<Option<usize>> = keys
        .iter()
        .map(|k| ring.locate(k).map(|at| at.server_index))
        .collect();
    report(
        FLAVOUR.name(),
        "useOldServerHashFunction",
        &keys,
        &ours,
        &answer,
    );
}
