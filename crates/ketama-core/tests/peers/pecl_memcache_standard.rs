//! The `pecl-memcache-standard` flavour against pecl memcache 4.0.5 itself
//! (Debian `php8.2-memcache`) with `memcache.hash_strategy=standard`, asked
//! in the same run through ketama-testkit/peers/pecl_memcache_peer.php: a
//! `MemcachePool` built with `addServer` (weights included) and its
//! `findServer` for every key, with `hash_function` crc32 and fnv, on 3, 10
//! and 100 servers, unweighted, equal and unequal weights, one server, IPv6
//! and host names; 10,000 ASCII keys plus non-ASCII, control-byte and
//! over-long keys (which the extension rewrites and cuts before hashing) and
//! keys whose 15-bit hash is 0 (read as 1). With servers added in failed
//! mode its rehashing of `key-0` … `key-19` must match `Ring::locate_live`.

use ketama_testkit as common;
use ketama_testkit::peer_programs;
use ketama_testkit::peers;

use std::ffi::OsStr;

use ketama_core::hash::HashAlgorithm;
use ketama_core::{Flavour, Ring, RingConfig};
use peer_programs::{
    PerKeyCase, compare_per_key, per_key_answers, weighted_peer_lines, zero_hash_keys,
};
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
    let script = common::peer_program("pecl_memcache_peer.php");
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

/// Both real clients asked about the same keys: pecl memcache's standard
/// strategy with crc32 and python-memcached (Debian `python3-memcache`)
/// fill the same weighted bucket list and hash with the same 15-bit CRC (0
/// read as 1), so they differ only on keys pecl rewrites before hashing
/// (blanks and control bytes, more than 250 bytes).
#[test]
fn pecl_standard_and_python_memcached_differ_only_on_keys_pecl_rewrites() {
    common::require_tool("php", "php8.2-cli");
    let keys = all_keys();
    let rewritten: Vec<bool> = keys
        .iter()
        .map(|k| *ketama_core::flavour::pecl_memcache::prepare_key(k) != k[..])
        .collect();
    let php = common::peer_program("pecl_memcache_peer.php");
    let python = common::peer_program("python_memcached_peer.py");
    for n in [3, 10, 100] {
        let list = servers(n, Weights::Unequal);
        let case = PerKeyCase {
            servers: weighted_peer_lines(&list),
            keys: &keys,
            down: vec![],
        };
        let program = [
            "php",
            "-n",
            "-d",
            "extension=memcache",
            "-d",
            "memcache.hash_strategy=standard",
            "-d",
            "memcache.hash_function=crc32",
        ];
        let mut program: Vec<&OsStr> = program.iter().map(OsStr::new).collect();
        program.push(php.as_os_str());
        let (pecl, _) = per_key_answers("pecl-vs-python", &program, std::slice::from_ref(&case));
        let (client, _) = per_key_answers(
            "python-vs-pecl",
            &[OsStr::new("/usr/bin/python3"), python.as_os_str()],
            std::slice::from_ref(&case),
        );
        let differing: Vec<usize> = (0..keys.len())
            .filter(|&i| pecl[0][i] != client[0][i])
            .collect();
        assert!(
            differing.iter().all(|&i| rewritten[i]),
            "{n} servers: a key pecl hashes as written differs"
        );
        assert!(!differing.is_empty(), "{n} servers");
        println!(
            "{n} servers, unequal weights: {} of {} keys differ, all of them among the {} keys pecl rewrites",
            differing.len(),
            keys.len(),
            rewritten.iter().filter(|&&r| r).count()
        );
    }
}
