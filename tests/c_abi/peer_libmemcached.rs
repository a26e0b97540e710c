//! The libmemcached flavours (KETAMA_WEIGHTED, CONSISTENT, CONSISTENT_KETAMA_SPY
//! and the default MODULA) and the C hash family, checked against the real
//! libmemcached 1.1.4 (Debian `libmemcached-dev`) in the same run. A C
//! program linked to it answers `memcached_generate_hash` (no network) for
//! the same servers and keys, next to this library's C API (`ketama_ring_new`
//! with the libmemcached flavours, `ketama_find_server`); and it answers
//! `memcached_generate_hash_value` next to `ketama_hash_bytes` for every hash.

use ketama_testkit as common;
use ketama_testkit::harness::report;
use ketama_testkit::peer_programs;
use ketama_testkit::peers;

use std::process::Command;
use std::time::Duration;

use ketama_core::hash::HashAlgorithm;
use ketama_core::{Flavour, Ring, RingConfig};
use peer_programs::{LibmemcachedCase, libmemcached_answers, libmemcached_program};
use peers::{ServerList, edge_lists, keys_for, our_indices, standard_lists, write_keys};

/// libmemcached's `memcached_hash_t` for a hash.
fn memcached_hash_id(hash: HashAlgorithm) -> i32 {
    use HashAlgorithm as H;
    match hash {
        H::OneAtATime => 0,
        H::Md5 => 1,
        H::Crc => 2,
        H::Fnv1_64 => 3,
        H::Fnv1a64 => 4,
        H::Fnv1_32 => 5,
        H::Fnv1a32 => 6,
        H::Hsieh => 7,
        H::Murmur => 8,
        H::Jenkins => 9,
        H::Murmur3 => 10,
        other => panic!("libmemcached has no {other:?}"),
    }
}

fn distribution(flavour: Flavour) -> &'static str {
    match flavour {
        Flavour::Libmemcached => "weighted",
        Flavour::LibmemcachedConsistent => "consistent",
        Flavour::LibmemcachedSpy => "spy",
        Flavour::LibmemcachedModula => "modula",
        other => panic!("not a libmemcached flavour: {other:?}"),
    }
}

/// Asks libmemcached about every (flavour, hash, list) and compares each
/// answer with the library's, through the Rust API and through the C API.
fn check(questions: &[(Flavour, Option<HashAlgorithm>, ServerList)]) -> usize {
    let rings: Vec<Ring> = questions
        .iter()
        .map(|(flavour, hash, list)| {
            Ring::new(list.specs(), RingConfig::new(*flavour, *hash)).unwrap()
        })
        .collect();
    let keys: Vec<Vec<Vec<u8>>> = questions
        .iter()
        .zip(&rings)
        .map(|((_, _, list), ring)| {
            [
                keys_for(list, ring),
                peers::non_ascii_keys(),
                peers::odd_keys(),
            ]
            .concat()
        })
        .collect();
    let cases: Vec<LibmemcachedCase> = questions
        .iter()
        .zip(&keys)
        .map(|((flavour, hash, list), keys)| LibmemcachedCase {
            distribution: distribution(*flavour),
            hash: hash.map(memcached_hash_id),
            servers: list,
            keys,
        })
        .collect();
    let answers = libmemcached_answers(&cases);
    let mut compared = 0;
    for (((flavour, _, list), ring), (keys, answer)) in
        questions.iter().zip(&rings).zip(keys.iter().zip(&answers))
    {
        let name = format!(
            "{} hash {} on {}",
            flavour.name(),
            ring.key_hash().name(),
            list.name
        );
        let ours = our_indices(ring, keys);
        let through_c: Vec<usize> = answer.iter().map(|a| a.1).collect();
        assert_eq!(
            through_c, ours,
            "{name}: the C API disagrees with the Rust API"
        );
        let peer: Vec<usize> = answer.iter().map(|a| a.0).collect();
        compared += report("libmemcached", &name, keys, &ours, &peer);
    }
    compared
}

const FLAVOURS: [Flavour; 4] = [
    Flavour::Libmemcached,
    Flavour::LibmemcachedConsistent,
    Flavour::LibmemcachedSpy,
    Flavour::LibmemcachedModula,
];

#[test]
fn every_libmemcached_distribution_matches_on_3_10_100_servers_and_edge_lists() {
    let mut questions = Vec::new();
    for flavour in FLAVOURS {
        for list in standard_lists().into_iter().chain(edge_lists()) {
            questions.push((flavour, None, list));
        }
    }
    let compared = check(&questions);
    assert!(compared >= questions.len() * 10_000);
}

#[test]
fn every_libmemcached_key_hash_matches_in_every_distribution() {
    let lists = [
        peers::servers(10, peers::Weights::None),
        peers::servers(10, peers::Weights::Unequal),
    ];
    let mut questions = Vec::new();
    for flavour in FLAVOURS {
        // Debian builds libhashkit without hsieh (see the hash test below).
        for &hash in flavour
            .hashes()
            .iter()
            .filter(|&&h| h != HashAlgorithm::Hsieh)
        {
            for list in &lists {
                questions.push((flavour, Some(hash), list.clone()));
            }
        }
    }
    check(&questions);
}

#[test]
fn c_hash_family_matches_libmemcached_through_ketama_hash_bytes() {
    let dir = common::scratch_dir("libmemcached-hash-values");
    let mut keys = peers::keys();
    keys.extend(peers::non_ascii_keys());
    keys.push(Vec::new());
    let (key_file, out) = (dir.join("keys"), dir.join("out"));
    write_keys(&key_file, &keys);
    let output = common::run_with_timeout(
        Command::new(libmemcached_program())
            .arg("hash")
            .arg(&key_file)
            .arg(&out),
        Duration::from_secs(120),
    );
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    // The column order of HASHES in ketama-testkit/peers/libmemcached_peer.c.
    let order = [
        HashAlgorithm::OneAtATime,
        HashAlgorithm::Md5,
        HashAlgorithm::Crc,
        HashAlgorithm::Fnv1_64,
        HashAlgorithm::Fnv1a64,
        HashAlgorithm::Fnv1_32,
        HashAlgorithm::Fnv1a32,
        HashAlgorithm::Hsieh,
        HashAlgorithm::Murmur,
        HashAlgorithm::Jenkins,
        HashAlgorithm::Murmur3,
    ];
    let text = std::fs::read_to_string(&out).unwrap();
    let rows: Vec<Vec<u32>> = text
        .lines()
        .map(|l| l.split(' ').map(|v| v.parse().unwrap()).collect())
        .collect();
    assert_eq!(rows.len(), keys.len());
    for (column, &hash) in order.iter().enumerate() {
        let peer: Vec<u32> = rows.iter().map(|r| r[2 * column]).collect();
        let through_c: Vec<u32> = rows.iter().map(|r| r[2 * column + 1]).collect();
        let ours: Vec<u32> = keys.iter().map(|k| hash.hash(k)).collect();
        assert_eq!(
            through_c,
            ours,
            "ketama_hash_bytes disagrees with the Rust API for {}",
            hash.name()
        );
        if hash == HashAlgorithm::Hsieh {
            // Debian's libhashkit is built without hsieh and answers 0 or 1:
            // hsieh is checked against twemproxy (crates/ketama-core/tests/peers/twemproxy.rs).
            assert!(
                peer.iter().all(|&v| v <= 1),
                "libmemcached now has hsieh: compare it here"
            );
            continue;
        }
        report(
            "libmemcached",
            &format!("hash {}", hash.name()),
            &keys,
            &ours,
            &peer,
        );
    }
}
