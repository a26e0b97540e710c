//! The `cache-memcached` flavour against Perl Cache::Memcached itself
//! (Debian `libcache-memcached-perl`), asked in the same run through
//! ketama-testkit/peers/cache_memcached_peer.pl: `get_sock` places every key over the
//! weighted bucket list, and the library must answer the same server on 3,
//! 10 and 100 servers, unweighted, equal and unequal weights, for 10,000
//! ASCII keys plus non-ASCII, control-byte, over-long and hash-0 keys; with
//! servers down the client's own rehashing (`hv += crc($tries . $key)`,
//! giving up after 20 buckets) must match `Ring::locate_live`. Last, the two
//! modulo peers, python-memcached and Cache::Memcached, are asked about the
//! same keys: they differ exactly on keys whose hash is 0.

use ketama_testkit as common;
use ketama_testkit::peer_programs;
use ketama_testkit::peers;

use std::ffi::OsStr;

use ketama_core::{Flavour, Ring, RingConfig};
use peer_programs::{
    PerKeyCase, compare_per_key, per_key_answers, weighted_peer_lines, weighted_ring,
    zero_hash_keys,
};
use peers::{ServerList, Weights, keys, non_ascii_keys, odd_keys, servers, standard_lists};

const FLAVOUR: Flavour = Flavour::CacheMemcached;

fn require_peer() {
    common::require_tool("perl", "perl");
    let probe = std::process::Command::new("perl")
        .args(["-MCache::Memcached", "-e", "1"])
        .output()
        .expect("run perl");
    assert!(
        probe.status.success(),
        "Perl cannot load Cache::Memcached: run `make deps` (package libcache-memcached-perl)"
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
    let script = common::peer_program("cache_memcached_peer.pl");
    compare_per_key(
        "cache-memcached",
        &[OsStr::new("perl"), script.as_os_str()],
        weighted_peer_lines,
        |list| weighted_ring(list, FLAVOUR),
        cases,
        keys,
    )
}

#[test]
fn get_sock_places_every_key_as_the_library_does() {
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
fn python_memcached_and_cache_memcached_differ_only_on_keys_whose_hash_is_0() {
    require_peer();
    let keys = all_keys();
    let zero: Vec<bool> = keys
        .iter()
        .map(|k| ketama_core::hash::crc::crc15(k) == 0)
        .collect();
    assert!(zero.iter().filter(|&&z| z).count() >= 20);
    for n in [3, 10, 100] {
        let list = servers(n, Weights::Unequal);
        let case = PerKeyCase {
            servers: weighted_peer_lines(&list),
            keys: &keys,
            down: vec![],
        };
        let perl_script = common::peer_program("cache_memcached_peer.pl");
        let (perl, _) = per_key_answers(
            "cache-memcached-vs-python",
            &[OsStr::new("perl"), perl_script.as_os_str()],
            std::slice::from_ref(&case),
        );
        let script = common::peer_program("python_memcached_peer.py");
        let (python, _) = per_key_answers(
            "python-memcached-vs-perl",
            &[OsStr::new("/usr/bin/python3"), script.as_os_str()],
            std::slice::from_ref(&case),
        );
        let differing: Vec<usize> = (0..keys.len())
            .filter(|&i| perl[0][i] != python[0][i])
            .collect();
        // The peers' own answers: every differing key has hash 0, and every
        // hash-0 key differs unless buckets 0 and 1 hold the same server.
        assert!(
            differing.iter().all(|&i| zero[i]),
            "{n} servers: {differing:?}"
        );
        let ring = weighted_ring(&list, FLAVOUR);
        let same_server_in_buckets_0_and_1 =
            ring.locate_hash(0).unwrap().server_index == ring.locate_hash(1).unwrap().server_index;
        let expected = if same_server_in_buckets_0_and_1 {
            0
        } else {
            20
        };
        assert_eq!(differing.len(), expected, "{n} servers");
        // And the library reproduces each peer on those keys.
        let python_ring = Ring::new(
            ring.servers()
                .iter()
                .map(|s| ketama_core::ServerSpec {
                    address: s.address().to_vec(),
                    weight: s.weight(),
                    name: None,
                })
                .collect(),
            RingConfig::flavour(Flavour::PythonMemcached),
        )
        .unwrap();
        for &i in &differing {
            assert_eq!(
                Some(ring.locate(&keys[i]).unwrap().server_index),
                perl[0][i]
            );
            assert_eq!(
                Some(python_ring.locate(&keys[i]).unwrap().server_index),
                python[0][i]
            );
        }
        println!(
            "{n} servers: {} of {} keys differ, all with hash 0",
            differing.len(),
            keys.len()
        );
    }
}
