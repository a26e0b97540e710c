//! The `go-redis-ring` flavour (go-redis v8/v9 `Ring`, default rendezvous
//! hashing) against go-redis' published test expectations and the real
//! hash Debian packages. go-redis and go-rendezvous are Go modules Debian
//! does not package, so:
//!
//! * the placement: the keys per shard that go-redis' own `ring_test.go`
//!   expects of its two shards (`published/go_redis_ring_keyspace.tsv`,
//!   v8.11.5, v9.7.0 and a later commit): 100 keys, 100 tagged keys, and a
//!   shard down;
//! * the hash: `xxhash.Sum64String` of every key and every shard name,
//!   asked of Go's `cespare/xxhash` (Debian golang-github-cespare-xxhash-dev,
//!   ketama-testkit/peers/xxhash_natsort_peer.go) on 3, 10 and 100 shard
//!   names and addresses: 10,000+ keys with tags, bytes ≥ 0x80, control
//!   bytes, 245 to 300 bytes and every length 0..300 and past 1,024.

use ketama_core::hash::xxhash64::xxhash64;
use ketama_core::parser::peers as peer_lists;
use ketama_core::{Flavour, Ring, RingConfig};
use ketama_testkit::harness;
use ketama_testkit::jump_peers::{self, length_keys};
use ketama_testkit::peers::Weights;
use ketama_testkit::redis_clients::{byte_keys, redis_servers};

const FLAVOUR: Flavour = Flavour::GoRedisRing;

#[test]
fn the_ring_places_keys_as_go_redis_tests_expect() {
    let text = include_str!("published/go_redis_ring_keyspace.tsv");
    let shards = ["ringShardOne", "ringShardTwo"];
    let lines = "127.0.0.1:6390 ringShardOne\n127.0.0.1:6391 ringShardTwo\n";
    let ring = Ring::new(
        peer_lists::parse(lines.as_bytes(), "shards").unwrap(),
        RingConfig::flavour(FLAVOUR),
    )
    .unwrap();
    let (mut rows, mut ours, mut theirs) = (Vec::new(), Vec::new(), Vec::new());
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let f: Vec<&str> = line.split('\t').collect();
        let up: Vec<usize> = f[1]
            .split(',')
            .map(|s| shards.iter().position(|n| *n == s).unwrap())
            .collect();
        let shard = shards.iter().position(|n| *n == f[2]).unwrap();
        let held = (0..100)
            .map(|i| f[0].replace("%d", &i.to_string()))
            .filter(|key| {
                let at = ring.locate_live(key.as_bytes(), |s| !up.contains(&s));
                at.unwrap().server_index == shard
            })
            .count();
        rows.push(line.as_bytes().to_vec());
        ours.push(held);
        theirs.push(f[3].parse::<usize>().unwrap());
    }
    assert_eq!(rows.len(), 5);
    harness::report(
        FLAVOUR.name(),
        "ring_test.go keyspace",
        &rows,
        &ours,
        &theirs,
    );
}

#[test]
fn keys_and_shard_names_hash_as_cespare_xxhash_does() {
    let mut keys = byte_keys();
    keys.extend(length_keys());
    let mut lists: Vec<(String, Vec<String>)> = Vec::new();
    for n in [3, 10, 100] {
        let list = redis_servers(n, Weights::None);
        lists.push((
            format!("{n} shard addresses"),
            list.servers.iter().map(|s| s.address()).collect(),
        ));
        lists.push((
            format!("{n} shard names"),
            (0..n).map(|i| format!("shard-{i}")).collect(),
        ));
    }
    let questions: Vec<(String, &[Vec<u8>])> = lists
        .iter()
        .map(|(_, names)| (names.join("\n") + "\n", keys.as_slice()))
        .collect();
    let answers = jump_peers::go_hashes(&questions);
    let ours_keys: Vec<u64> = keys.iter().map(|k| xxhash64(k, 0)).collect();
    let mut compared = 0;
    for ((name, names), theirs) in lists.iter().zip(&answers) {
        compared += harness::report(FLAVOUR.name(), name, &keys, &ours_keys, &theirs.keys);
        let name_keys: Vec<Vec<u8>> = names.iter().map(|n| n.clone().into_bytes()).collect();
        let ours: Vec<u64> = name_keys.iter().map(|n| xxhash64(n, 0)).collect();
        harness::report(FLAVOUR.name(), name, &name_keys, &ours, &theirs.servers);
    }
    println!("{compared} keys, 0 differences");
}
