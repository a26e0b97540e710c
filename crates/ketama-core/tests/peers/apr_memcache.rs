//! The `apr-memcache` flavour against Apache apr-util's `apr_memcache`
//! itself (Debian `libaprutil1-dev`), asked in the same run through
//! ketama-testkit/peers/apr_memcache_peer.c, compiled here against the installed
//! library: `apr_memcache_hash` then `apr_memcache_find_server_hash` (what
//! `apr_memcache_set` and `apr_memcache_getp` call) for every key, with the
//! default hash and with `apr_memcache_hash_crc32`, on 3, 10 and 100
//! servers, weighted lists (apr has no weights), a server listed twice, IPv6
//! and host names; with servers disabled (`apr_memcache_disable_server`) its
//! `hash + 1` walk must match `Ring::locate_live`, including keys whose
//! CRC-32 is `0xffffffff`, where the walk wraps to `0 % n`, and keys whose
//! hash is 0, which apr reads as 1.

use ketama_testkit as common;
use ketama_testkit::peer_programs;
use ketama_testkit::peers;

use std::ffi::OsStr;
use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

use ketama_core::hash::HashAlgorithm;
use ketama_core::{Flavour, Ring, RingConfig};
use peer_programs::{PerKeyCase, compare_per_key, per_key_answers, zero_hash_keys};
use peers::{ServerList, Weights, edge_lists, keys, non_ascii_keys, odd_keys, servers};

/// The peer program, compiled once against the installed apr-util.
fn program() -> &'static PathBuf {
    static PROGRAM: OnceLock<PathBuf> = OnceLock::new();
    PROGRAM.get_or_init(|| {
        common::require_tool("pkg-config", "pkg-config");
        let flags = Command::new("pkg-config")
            .args(["--cflags", "--libs", "apr-util-1", "apr-1"])
            .output()
            .expect("run pkg-config");
        assert!(
            flags.status.success(),
            "pkg-config knows no apr-util-1: run `make deps` (Debian package libaprutil1-dev)"
        );
        let flags = String::from_utf8(flags.stdout).unwrap();
        let flags: Vec<&str> = flags.split_whitespace().collect();
        let source = common::peer_program("apr_memcache_peer.c");
        common::compile_program(&[&source], "apr_memcache_peer", &flags)
    })
}

/// Keys whose full CRC-32 is `target`: a printable prefix and four bytes
/// chosen by running the CRC backwards (none of them a newline).
fn keys_with_crc32(target: u32) -> Vec<Vec<u8>> {
    let table: Vec<u32> = (0..256u32)
        .map(|i| {
            (0..8).fold(i, |c, _| {
                if c & 1 == 1 {
                    (c >> 1) ^ 0xedb8_8320
                } else {
                    c >> 1
                }
            })
        })
        .collect();
    // The table entries used by the last four steps, found from the top
    // byte of the register each of them leaves.
    let mut register = !target;
    let mut entries = [0usize; 4];
    for entry in entries.iter_mut().rev() {
        *entry = (0..256)
            .find(|&i| table[i] >> 24 == register >> 24)
            .unwrap();
        register = (register ^ table[*entry]) << 8;
    }
    (0..40)
        .filter_map(|n| {
            let mut key = format!("crc32-{target:08x}-{n}:").into_bytes();
            let mut register = !ketama_core::hash::crc::crc32(&key);
            for &entry in &entries {
                key.push(((register ^ entry as u32) & 0xff) as u8);
                register = (register >> 8) ^ table[entry];
            }
            assert_eq!(ketama_core::hash::crc::crc32(&key), target);
            (!key.contains(&b'\n')).then_some(key)
        })
        .take(3)
        .collect()
}

fn all_keys() -> Vec<Vec<u8>> {
    let mut keys = keys();
    keys.extend(non_ascii_keys());
    keys.extend(odd_keys());
    keys.extend(zero_hash_keys());
    for target in [
        0,
        1,
        2,
        0x7fff_ffff,
        0x8000_0000,
        0xffff_fffd,
        0xffff_fffe,
        u32::MAX,
    ] {
        keys.extend(keys_with_crc32(target));
    }
    keys
}

fn compare(hash: HashAlgorithm, cases: &[(ServerList, Vec<usize>)]) -> usize {
    let program = program();
    let spelling = if hash == HashAlgorithm::Crc32 {
        "crc32"
    } else {
        "default"
    };
    compare_per_key(
        &format!("apr-memcache-{spelling}"),
        &[program.as_os_str(), OsStr::new(spelling)],
        |list| list.servers.iter().map(|s| s.address() + "\n").collect(),
        |list| {
            let config = RingConfig::new(Flavour::AprMemcache, Some(hash));
            Ring::new(list.specs(), config).unwrap()
        },
        cases,
        &all_keys(),
    )
}

#[test]
fn apr_memcache_places_every_key_as_the_library_does() {
    let mut cases: Vec<(ServerList, Vec<usize>)> = Vec::new();
    for n in [3, 10, 100] {
        for w in [Weights::None, Weights::Unequal] {
            cases.push((servers(n, w), vec![]));
        }
    }
    cases.extend(edge_lists().into_iter().map(|l| (l, vec![])));
    for hash in [HashAlgorithm::Crc, HashAlgorithm::Crc32] {
        let compared = compare(hash, &cases);
        assert!(compared >= cases.len() * 10_000);
    }
}

#[test]
fn disabled_servers_are_skipped_by_the_hash_plus_one_walk() {
    // On 10 servers 0xffffffff lands on server 5; with 5 down apr's next
    // hash is 0 (server 0), where a walk down the list would give 6.
    let cases = vec![
        (servers(10, Weights::None), vec![5]),
        (servers(10, Weights::None), vec![5, 6, 0]),
        (servers(10, Weights::Unequal), vec![0, 1, 2, 4, 6, 8]),
        (servers(100, Weights::None), (0..95).collect()),
        (servers(3, Weights::None), vec![1]),
        (servers(3, Weights::None), vec![0, 1, 2]),
    ];
    assert_eq!(u32::MAX % 10, 5);
    for hash in [HashAlgorithm::Crc, HashAlgorithm::Crc32] {
        compare(hash, &cases);
    }
}

/// Both real clients asked about the same keys: apr_memcache's default and
/// python-memcached (Debian `python3-memcache`) read a 15-bit hash of 0 as 1
/// and take it modulo the servers, so they agree on every key of an
/// unweighted list; with a server down they part (apr walks to the next
/// hash, python-memcached rehashes the text of the hash).
#[test]
fn apr_memcache_and_python_memcached_agree_until_a_server_is_down() {
    let program = program();
    let script = common::peer_program("python_memcached_peer.py");
    let keys = all_keys();
    for (n, down) in [(3, vec![]), (10, vec![]), (100, vec![]), (10, vec![4])] {
        let list = servers(n, Weights::None);
        let case = PerKeyCase {
            servers: list.servers.iter().map(|s| s.address() + "\n").collect(),
            keys: &keys,
            down: down.clone(),
        };
        let (apr, _) = per_key_answers(
            "apr-vs-python",
            &[program.as_os_str(), OsStr::new("default")],
            std::slice::from_ref(&case),
        );
        let (python, _) = per_key_answers(
            "python-vs-apr",
            &[OsStr::new("/usr/bin/python3"), script.as_os_str()],
            std::slice::from_ref(&case),
        );
        let differing = (0..keys.len())
            .filter(|&i| apr[0][i] != python[0][i])
            .count();
        println!(
            "{n} servers, down {down:?}: {differing} of {} keys differ",
            keys.len()
        );
        if down.is_empty() {
            assert_eq!(differing, 0, "{n} servers");
        } else {
            assert!(differing > 0, "{n} servers, down {down:?}");
        }
    }
}
