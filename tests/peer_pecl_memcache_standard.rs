//! The `pecl-memcache-standard` flavour against pecl memcache 4.0.5 itself
//! (Debian `php8.2-memcache`) with `memcache.hash_strategy=standard`, asked
//! in the same run through tests/peers/pecl_memcache_peer.php: a
//! `MemcachePool` built with `addServer` (weights included) and its
//! `findServer` for every key, with `hash_function` crc32 and fnv, on 3, 10
//! and 100 servers, unweighted, equal and unequal weights, one server, IPv6
//! and host names; 10,000 ASCII keys plus non-ASCII, control-byte and
//! over-long keys (which the extension rewrites and cuts before hashing) and
//! keys whose 15-bit hash is 0 (read as 1). With servers added in failed
//! mode its rehashing of `key-0` … `key-19` must match `Ring::locate_live`.

mod common;
#[path = "common/peer_programs.rs"]
mod peer_programs;
#[path = "common/peers.rs"]
mod peers;

use std::ffi::OsStr;

use ketama_core::hash::HashAlgorithm;
use ketama_core::{Flavour, Ring, RingConfig};
use peer_programs::{compare_per_key, weighted_peer_lines, zero_hash_keys};
use peers::{ServerList, Weights, edge_lists, keys, non_ascii_keys, odd_keys, servers};

const FLAVOUR: Flavour = Flavour::PeclMemcacheStandard;

/// Keys whose FNV-1a 32 has 0 in bits 16 to 30.
fn zero_fnv_keys() -> Vec<Vec<u8>> {
    (0..3_000_000u32)
        .map(|i| format!("zero:{i}").into_bytes())
        .filter(|k| (HashAlgorithm::Fnv1a32.hash(k) >> 16) & 0x7fff == 0)
        .take(20)
        .collect()
}

fn all_keys() -> Vec<Vec<u8>> {
    let mut keys = keys();
    keys.extend(non_ascii_keys());
    keys.extend(odd_keys());
    keys.extend(zero_hash_keys());
    keys.extend(zero_fnv_keys());
    keys
}

fn compare(hash: HashAlgorithm, cases: &[(ServerList, Vec<usize>)]) -> usize {
    common::require_tool("php", "php8.2-cli");
    let function = if hash == HashAlgorithm::Fnv1a32 {
        "memcache.hash_function=fnv"
    } else {
        "memcache.hash_function=crc32"
    };
    let script = common::repo_root().join("tests/peers/pecl_memcache_peer.php");
    let program = [
        "php",
        "-n",
        "-d",
        "extension=memcache",
        "-d",
        "memcache.hash_strategy=standard",
        "-d",
        function,
    ];
    let mut program: Vec<&OsStr> = program.iter().map(OsStr::new).collect();
    program.push(script.as_os_str());
    compare_per_key(
        "pecl-memcache-standard (is Debian package php8.2-memcache installed?)",
        &program,
        weighted_peer_lines,
        |list| {
            let config = RingConfig::new(FLAVOUR, Some(hash));
            Ring::new(list.specs(), config).unwrap()
        },
        cases,
        &all_keys(),
    )
}

#[test]
fn find_server_places_every_key_as_the_library_does() {
    assert_eq!(zero_fnv_keys().len(), 20);
    // A server listed twice is left out: findServer names servers by
    // address, so two entries of one address cannot be told apart.
    let cases: Vec<(ServerList, Vec<usize>)> = peers::standard_lists()
        .into_iter()
        .chain(
            edge_lists()
                .into_iter()
                .filter(|l| !l.name.contains("twice")),
        )
        .map(|l| (l, vec![]))
        .collect();
    for hash in [HashAlgorithm::Crc32, HashAlgorithm::Fnv1a32] {
        let compared = compare(hash, &cases);
        assert!(compared >= cases.len() * 10_000);
    }
}

#[test]
fn failed_servers_are_rehashed_as_the_extension_rehashes_them() {
    let cases = vec![
        (servers(10, Weights::None), vec![3]),
        (servers(10, Weights::Unequal), vec![0, 1, 2, 4, 6, 8]),
        (servers(100, Weights::None), (0..95).collect()),
        (servers(3, Weights::Unequal), vec![1]),
        (servers(3, Weights::Unequal), vec![0, 1, 2]),
        (servers(1, Weights::None), vec![0]),
    ];
    for hash in [HashAlgorithm::Crc32, HashAlgorithm::Fnv1a32] {
        compare(hash, &cases);
    }
}
