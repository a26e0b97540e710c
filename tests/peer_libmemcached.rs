//! The libmemcached flavours and the C hash family, checked against the real
//! libmemcached 1.1.4 (Debian `libmemcached-dev`) in the same run: a C
//! program linked to it answers `memcached_generate_hash` (no network) for the
//! same servers and keys, next to this library's C API (`ketama_ring_new` with
//! the libmemcached flavours, `ketama_find_server`), and `memcached_generate_hash_value` next to our
//! `ketama_hash_bytes` for every hash.

mod common;
#[path = "common/peers.rs"]
mod peers;

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use ketama::hash::HashAlgorithm;
use ketama::{Flavour, Ring, RingConfig};
use peers::{ServerList, assert_same, edge_lists, keys_for, our_indices, standard_lists, write_keys};

fn peer_program() -> PathBuf {
    require_libmemcached();
    let source = common::repo_root().join("tests/peers/libmemcached_peer.c");
    common::compile_c(&[&source], "libmemcached_peer", &["-lmemcached"])
}

fn require_libmemcached() {
    common::require_tool("pkg-config", "pkg-config");
    let found = Command::new("pkg-config").args(["--exists", "libmemcached"]).status().is_ok_and(|s| s.success());
    assert!(found, "libmemcached is not installed: run `make deps` (Debian package libmemcached-dev)");
}

/// libmemcached's `memcached_hash_t` for a hash.
fn memcached_hash_id(hash: HashAlgorithm) -> i32 {
    use HashAlgorithm as H;
    match hash {
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
        H::OneAtATime => 0,
        other => panic!("libmemcached has no {other:?}"),
    }
}

struct Case {
    name: String,
    file: PathBuf,
    out: PathBuf,
    keys: Vec<Vec<u8>>,
    ours: Vec<usize>,
}

fn case(dir: &std::path::Path, n: usize, flavour: Flavour, hash: Option<HashAlgorithm>, list: &ServerList) -> Case {
    let ring = Ring::new(list.specs(), RingConfig { flavour, hash }).expect("library ring");
    let keys = keys_for(list, &ring);
    let name = format!("{} hash {} on {}", flavour.name(), ring.key_hash().name(), list.name);
    let (file, out, key_file) = (dir.join(format!("case{n}")), dir.join(format!("case{n}.out")), dir.join(format!("case{n}.keys")));
    write_keys(&key_file, &keys);
    let distribution = match flavour {
        Flavour::Libmemcached => "weighted",
        Flavour::LibmemcachedConsistent => "consistent",
        Flavour::LibmemcachedSpy => "spy",
        other => panic!("not a libmemcached flavour: {other:?}"),
    };
    let mut text = format!("distribution {distribution}\nhash {}\n", hash.map_or(-1, memcached_hash_id));
    for s in &list.servers {
        text += &format!("server {} {} {}\n", s.host, s.port, s.weight.unwrap_or(0));
    }
    text += &format!("keys {}\nout {}\n", key_file.display(), out.display());
    std::fs::write(&file, text).unwrap();
    let ours = our_indices(&ring, &keys);
    Case { name, file, out, keys, ours }
}

fn run_cases(cases: &[Case]) -> usize {
    let program = peer_program();
    let output = common::run_with_timeout(
        Command::new(&program).arg("ring").args(cases.iter().map(|c| &c.file)),
        Duration::from_secs(300),
    );
    assert!(output.status.success(), "libmemcached_peer failed: {}", String::from_utf8_lossy(&output.stderr));
    let mut compared = 0;
    for c in cases {
        let rows: Vec<(usize, usize)> = std::fs::read_to_string(&c.out)
            .unwrap()
            .lines()
            .map(|l| {
                let (peer, through_c) = l.split_once(' ').expect("PEER OURS");
                (peer.parse().unwrap(), through_c.parse().unwrap())
            })
            .collect();
        let peer: Vec<usize> = rows.iter().map(|r| r.0).collect();
        let through_c: Vec<usize> = rows.iter().map(|r| r.1).collect();
        assert_eq!(through_c, c.ours, "{}: the C API disagrees with the Rust API", c.name);
        compared += assert_same(&c.name, &c.keys, &c.ours, &peer);
    }
    compared
}

const FLAVOURS: [Flavour; 3] = [Flavour::Libmemcached, Flavour::LibmemcachedConsistent, Flavour::LibmemcachedSpy];

#[test]
fn every_libmemcached_distribution_matches_on_3_10_100_servers_and_edge_lists() {
    let dir = common::scratch_dir("libmemcached-lists");
    let mut cases = Vec::new();
    for flavour in FLAVOURS {
        for list in standard_lists().iter().chain(&edge_lists()) {
            cases.push(case(&dir, cases.len(), flavour, None, list));
        }
    }
    let compared = run_cases(&cases);
    assert!(compared >= cases.len() * 10_000);
}

#[test]
fn every_libmemcached_key_hash_matches_in_every_distribution() {
    let dir = common::scratch_dir("libmemcached-hashes");
    let lists = [peers::servers(10, peers::Weights::None), peers::servers(10, peers::Weights::Unequal)];
    let mut cases = Vec::new();
    for flavour in FLAVOURS {
        // Debian builds libhashkit without hsieh (see the hash test below).
        for &hash in flavour.hashes().iter().filter(|&&h| h != HashAlgorithm::Hsieh) {
            for list in &lists {
                cases.push(case(&dir, cases.len(), flavour, Some(hash), list));
            }
        }
    }
    run_cases(&cases);
}

#[test]
fn c_hash_family_matches_libmemcached_through_ketama_hash_bytes() {
    let program = peer_program();
    let dir = common::scratch_dir("libmemcached-hash-values");
    let mut keys = peers::keys();
    keys.extend(peers::non_ascii_keys());
    keys.push(Vec::new());
    let (key_file, out) = (dir.join("keys"), dir.join("out"));
    write_keys(&key_file, &keys);
    let output = common::run_with_timeout(Command::new(&program).arg("hash").arg(&key_file).arg(&out), Duration::from_secs(120));
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
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
    let rows: Vec<Vec<u32>> = text.lines().map(|l| l.split(' ').map(|v| v.parse().unwrap()).collect()).collect();
    assert_eq!(rows.len(), keys.len());
    for (column, &hash) in order.iter().enumerate() {
        let peer: Vec<u32> = rows.iter().map(|r| r[2 * column]).collect();
        let through_c: Vec<u32> = rows.iter().map(|r| r[2 * column + 1]).collect();
        let ours: Vec<u32> = keys.iter().map(|k| hash.hash(k)).collect();
        assert_eq!(through_c, ours, "ketama_hash_bytes disagrees with the Rust API for {}", hash.name());
        if hash == HashAlgorithm::Hsieh {
            // Debian's libhashkit is built without hsieh and answers 0 (or 1):
            // hsieh is checked against twemproxy instead.
            assert!(peer.iter().all(|&v| v <= 1), "libmemcached now has hsieh: compare it here");
            continue;
        }
        assert_same(&format!("libmemcached hash {}", hash.name()), &keys, &ours, &peer);
    }
}
