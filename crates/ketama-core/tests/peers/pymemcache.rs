//! The `pymemcache` flavour against pymemcache itself (Debian
//! `python3-pymemcache`), asked in the same run through
//! ketama-testkit/peers/pymemcache_peer.py: a `HashClient` with its default
//! rendezvous hasher places every key, and the library must answer the same
//! server on 3, 10 and 100 servers, for 10,000 ASCII keys plus non-ASCII,
//! control-byte and over-long keys, also with servers removed as
//! `HashClient` removes dead ones.

use ketama_testkit as common;
use ketama_testkit::peer_programs;
use ketama_testkit::peers;

use std::ffi::OsStr;

use ketama_core::parser::peers as peer_lists;
use ketama_core::{Flavour, Ring, RingConfig};
use peer_programs::compare_per_key;
use peers::{ServerList, Weights, edge_lists, keys, non_ascii_keys, odd_keys, servers};

fn require_pymemcache() {
    let probe = std::process::Command::new("/usr/bin/python3")
        .args(["-c", "import pymemcache"])
        .output()
        .expect("run /usr/bin/python3");
    assert!(
        probe.status.success(),
        "Debian's python3 cannot import pymemcache: run `make deps` (package python3-pymemcache)"
    );
}

/// The keys: ASCII, non-ASCII (valid UTF-8 and not), control bytes, long keys.
fn all_keys() -> Vec<Vec<u8>> {
    let mut keys = keys();
    keys.extend(non_ascii_keys());
    keys.extend(odd_keys().into_iter().filter(|k| !k.contains(&b'\r')));
    keys
}

fn lines(list: &ServerList) -> String {
    list.servers.iter().map(|s| s.address() + "\n").collect()
}

fn ring(list: &ServerList) -> Ring {
    let servers = peer_lists::parse(lines(list).as_bytes(), "servers").unwrap();
    Ring::new(servers, RingConfig::flavour(Flavour::Pymemcache)).unwrap()
}

/// Asks pymemcache about each (list, down servers) and compares every key.
fn compare(cases: &[(ServerList, Vec<usize>)], keys: &[Vec<u8>]) -> usize {
    require_pymemcache();
    let script = common::peer_program("pymemcache_peer.py");
    compare_per_key(
        "pymemcache",
        &[OsStr::new("/usr/bin/python3"), script.as_os_str()],
        lines,
        ring,
        cases,
        keys,
    )
}

#[test]
fn hash_client_places_every_key_as_the_library_does() {
    let cases: Vec<(ServerList, Vec<usize>)> = [3, 10, 100]
        .into_iter()
        .map(|n| (servers(n, Weights::None), vec![]))
        .chain(edge_lists().into_iter().skip(2).map(|l| (l, vec![])))
        .collect();
    let keys = all_keys();
    let compared = compare(&cases, &keys);
    assert!(compared >= 3 * 10_000);
    println!("{} cases, {compared} keys, 0 differences", cases.len());
}

#[test]
fn a_dead_server_moves_only_its_own_keys_as_hash_client_moves_them() {
    let keys = keys();
    let cases = vec![
        (servers(10, Weights::None), vec![3]),
        (servers(10, Weights::None), vec![0, 2, 4, 6, 8]),
        (servers(100, Weights::None), (0..99).collect()),
        (servers(3, Weights::None), vec![0, 1, 2]),
    ];
    compare(&cases, &keys);
}

#[test]
fn weights_are_refused_and_points_cannot_be_read() {
    let weighted = peer_lists::parse(b"10.0.0.1:11211:2\n10.0.0.2:11211\n", "servers").unwrap();
    let err = Ring::new(weighted, RingConfig::flavour(Flavour::Pymemcache)).unwrap_err();
    assert!(err.to_string().contains("has no weights"), "{err}");
    let ring = ring(&servers(3, Weights::None));
    assert!(ring.continuum().is_empty());
    let err = ring.require_continuum().unwrap_err().to_string();
    assert_eq!(
        err,
        "flavour pymemcache places each key on its own (rendezvous hashing): it has no continuum points"
    );
}
