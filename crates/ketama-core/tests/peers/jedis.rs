//! The `jedis` flavour (Jedis' `ShardedJedis` / `JedisSharding`) against
//! Jedis' own published test expectations: Jedis is a Maven artefact, which
//! cannot be fetched here, and Debian does not package it. The values are
//! copied into `published/jedis_sharded.tsv` (ShardedJedisTest at
//! a2c1d44094384bc1c84dcf0a250bc375014075aa and
//! 71cd5f1d13a24b4592ce356ce9ca92ea54a5ea0f) and
//! `published/jedis_murmur64a.tsv` (MurmurHashTest at
//! 656d58e6c86c2273b79dd2ff299d2d70e3d4b16d). Jedis pins two keys to a shard;
//! its other sharding tests bound how 1,000 keys spread over three shards
//! and check that names, not list order or addresses, place keys: those are
//! asserted as published, on the library's answers. No published value
//! pins the signed order of the points or the seed `0x1234ABCD`: those are
//! the rules read from `Sharded.java` and `MurmurHash.java` (docs/flavours.md).

use std::path::{Path, PathBuf};

use ketama_core::hash::HashAlgorithm;
use ketama_core::hash::murmur64::murmur64a;
use ketama_core::{Flavour, Ring, RingConfig, ServerSpec};
use ketama_testkit::harness::{self, Answer, Case};

const FLAVOUR: Flavour = Flavour::Jedis;

fn published(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/peers/published")
        .join(name)
}

/// The rows of a published table: its tab-separated fields, comments left out.
fn rows(name: &str) -> Vec<Vec<String>> {
    std::fs::read_to_string(published(name))
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect()
}

fn hash(name: &str) -> HashAlgorithm {
    match name {
        "murmur" => HashAlgorithm::JedisMurmur64a,
        "md5" => HashAlgorithm::Md5,
        other => panic!("unknown hash {other}"),
    }
}

/// `n` shards without names, as `JedisShardInfo(host, port)` are.
fn unnamed(n: usize) -> Vec<ServerSpec> {
    (0..n)
        .map(|i| ServerSpec::unweighted(format!("localhost:{}", 6379 + i)))
        .collect()
}

fn ring(servers: Vec<ServerSpec>, hash: HashAlgorithm) -> Ring {
    Ring::new(servers, RingConfig::new(FLAVOUR, Some(hash))).unwrap()
}

fn index(ring: &Ring, key: &[u8]) -> usize {
    ring.locate(key).unwrap().server_index
}

fn numbered(range: &str) -> Vec<Vec<u8>> {
    let (from, to) = range.split_once("..").unwrap();
    let (from, to): (u32, u32) = (from.parse().unwrap(), to.parse().unwrap());
    (from..to).map(|i| i.to_string().into_bytes()).collect()
}

#[test]
fn published_shard_of_each_pinned_key() {
    let pins: Vec<Vec<String>> = rows("jedis_sharded.tsv")
        .into_iter()
        .filter(|r| r[0] == "pin")
        .collect();
    assert_eq!(pins.len(), 2);
    let table: Vec<Case<(HashAlgorithm, usize)>> = pins
        .iter()
        .map(|r| {
            let shards: usize = r[2].parse().unwrap();
            let name = format!("{} unnamed shards, {}, key {:?}", shards, r[1], r[3]);
            Case::new(name, (hash(&r[1]), shards), vec![r[3].clone().into_bytes()])
        })
        .collect();
    let compared = harness::compare(
        FLAVOUR.name(),
        &table,
        |_| {
            pins.iter()
                .map(|r| Answer {
                    servers: vec![Some(r[4].parse().unwrap())],
                    continuum: None,
                })
                .collect()
        },
        |case| ring(unnamed(case.input.1), case.input.0),
    );
    assert_eq!(compared, 2);
}

#[test]
fn published_spread_of_1000_keys_over_three_shards() {
    for r in rows("jedis_sharded.tsv").iter().filter(|r| r[0] == "band") {
        let (low, high) = r[4].split_once("..").unwrap();
        let (low, high): (usize, usize) = (low.parse().unwrap(), high.parse().unwrap());
        let shards: usize = r[2].parse().unwrap();
        let ring = ring(unnamed(shards), hash(&r[1]));
        let mut counts = vec![0usize; shards];
        for key in numbered(&r[3]) {
            counts[index(&ring, &key)] += 1;
        }
        println!(
            "jedis | {shards} shards, {}, keys {}: {counts:?}",
            r[1], r[3]
        );
        assert!(
            counts.iter().all(|&c| c > low && c < high),
            "{} on {shards} shards: {counts:?} outside ({low}, {high})",
            r[1]
        );
    }
}

#[test]
fn published_names_and_addresses_rule() {
    for r in rows("jedis_sharded.tsv")
        .iter()
        .filter(|r| r[0] == "names" || r[0] == "hosts")
    {
        let (a, b) = r[2].split_once('|').unwrap();
        let list = |text: &str| -> Vec<ServerSpec> {
            text.split(',')
                .enumerate()
                .map(|(i, s)| match r[0].as_str() {
                    "names" => ServerSpec {
                        address: format!("localhost:{}", 6379 + i).into_bytes(),
                        weight: None,
                        name: Some(s.as_bytes().to_vec()),
                    },
                    _ => ServerSpec::unweighted(s),
                })
                .collect()
        };
        let (first, second) = (list(a), list(b));
        let (ring_a, ring_b) = (
            ring(first.clone(), hash(&r[1])),
            ring(second.clone(), hash(&r[1])),
        );
        let keys = numbered(&r[3]);
        let label = |specs: &[ServerSpec], i: usize| match r[0].as_str() {
            "names" => specs[i].name.clone().unwrap(),
            _ => i.to_string().into_bytes(),
        };
        let ours: Vec<Vec<u8>> = keys
            .iter()
            .map(|k| label(&first, index(&ring_a, k)))
            .collect();
        let theirs: Vec<Vec<u8>> = keys
            .iter()
            .map(|k| label(&second, index(&ring_b, k)))
            .collect();
        harness::report(
            FLAVOUR.name(),
            &format!("{}: {}", r[0], r[4]),
            &keys,
            &ours,
            &theirs,
        );
    }
}

#[test]
fn murmur64a_matches_jedis_published_vectors() {
    let table = rows("jedis_murmur64a.tsv");
    assert_eq!(table.len(), 36);
    let unhex = |h: &str| -> Vec<u8> {
        if h == "-" {
            return Vec::new();
        }
        (0..h.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&h[i..i + 2], 16).unwrap())
            .collect()
    };
    let keys: Vec<Vec<u8>> = table.iter().map(|r| unhex(&r[0])).collect();
    let ours: Vec<u64> = table
        .iter()
        .zip(&keys)
        .map(|(r, key)| murmur64a(key, u64::from_str_radix(&r[1], 16).unwrap()))
        .collect();
    let theirs: Vec<u64> = table
        .iter()
        .map(|r| u64::from_str_radix(&r[2], 16).unwrap())
        .collect();
    harness::report(
        FLAVOUR.name(),
        "MurmurHash64A vectors",
        &keys,
        &ours,
        &theirs,
    );
}

#[test]
fn no_failover_and_weights_multiply_points() {
    let servers = vec![
        ServerSpec::unweighted("10.0.0.1:6379"),
        ServerSpec::new("10.0.0.2:6379", 3),
    ];
    let ring = ring(servers, HashAlgorithm::JedisMurmur64a);
    let keys: Vec<Vec<u8>> = (0..4000).map(|i| format!("k{i}").into_bytes()).collect();
    let on_second = keys.iter().filter(|k| index(&ring, k) == 1).count();
    assert!((2700..3300).contains(&on_second), "{on_second} of 4000");
    let key = keys.iter().find(|k| index(&ring, k) == 1).unwrap();
    assert!(ring.locate_live(key, |s| s == 1).is_err());
}
