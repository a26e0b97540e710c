//! The spymemcached flavours, checked against the real spymemcached 2.12.3
//! (Debian `libspymemcached-java`) in the same run: a Java program builds
//! `KetamaNodeLocator`s over `MemcachedNode` stand-ins (no network) for the
//! same servers, formats, hashes and weights, and reports its whole continuum
//! and each key's node; both must equal the library's.

use std::net::IpAddr;
use std::path::Path;

use ketama_core::hash::HashAlgorithm;
use ketama_core::{Flavour, Ring, RingConfig, ServerSpec};
use ketama_testkit as common;
use ketama_testkit::harness::{self, Answer, Case};
use ketama_testkit::peer_programs::{
    SpyCase, SpyServer, java_hash_name, spy_java, spymemcached_answers,
};
use ketama_testkit::peers::{
    self, ServerList, Weights, edge_lists, keys_for, standard_lists, write_keys,
};

/// A list as spymemcached users build it, and as the library is given it:
/// IP literals stay literals; a hostname gets the fixed IP 10.9.9.N without
/// DNS, which Java prints as `name/10.9.9.N:port` (the SPYMEMCACHED node key).
/// LIBMEMCACHED format names every node with its host text, so
/// `getHostName()` never reverse-resolves.
fn spy_servers(flavour: Flavour, list: &ServerList) -> (Vec<SpyServer>, Vec<ServerSpec>) {
    list.servers
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let literal = s.host.parse::<IpAddr>().is_ok();
            let ip = if literal {
                s.host.clone()
            } else {
                format!("10.9.9.{}", i + 1)
            };
            let java_name = if literal && flavour == Flavour::Spymemcached {
                "-".to_string()
            } else {
                s.host.clone()
            };
            let address = if literal || flavour == Flavour::SpymemcachedLibmemcached {
                s.address()
            } else {
                format!("{}/{ip}:{}", s.host, s.port)
            };
            let spec = ServerSpec {
                address: address.into_bytes(),
                weight: s.weight,
                name: None,
            };
            (
                SpyServer {
                    java_name,
                    ip,
                    port: s.port,
                    weight: s.weight.unwrap_or(1),
                },
                spec,
            )
        })
        .unzip()
}

/// Asks spymemcached about every (flavour, hash, list): a list with weights
/// takes the weighted path on both sides. Compares every key and the whole
/// continuum; returns the library's rings.
fn check(questions: &[(Flavour, HashAlgorithm, ServerList)]) -> Vec<Ring> {
    let ring = |(flavour, hash, list): &(Flavour, HashAlgorithm, ServerList)| {
        let specs = spy_servers(*flavour, list).1;
        Ring::new(specs, RingConfig::new(*flavour, Some(*hash))).expect("library ring")
    };
    let table: Vec<Case<&(Flavour, HashAlgorithm, ServerList)>> = questions
        .iter()
        .map(|question| {
            let (flavour, hash, list) = question;
            let utf8 = peers::non_ascii_keys()
                .into_iter()
                .filter(|k| std::str::from_utf8(k).is_ok());
            let keys = keys_for(list, &ring(question))
                .into_iter()
                .chain(utf8)
                .chain(peers::odd_keys())
                .collect();
            let name = format!("{} hash {} on {}", flavour.name(), hash.name(), list.name);
            Case::new(name, question, keys)
        })
        .collect();
    harness::compare(
        "spymemcached",
        &table,
        |table| {
            let cases: Vec<SpyCase> = table
                .iter()
                .map(|case| {
                    let (flavour, hash, list) = case.input;
                    SpyCase {
                        format: if *flavour == Flavour::Spymemcached {
                            "SPYMEMCACHED"
                        } else {
                            "LIBMEMCACHED"
                        },
                        repetitions: None,
                        hash: java_hash_name(*hash),
                        weighted: list.servers.iter().any(|s| s.weight.is_some()),
                        servers: spy_servers(*flavour, list).0,
                        keys: &case.keys,
                    }
                })
                .collect();
            spymemcached_answers(&cases)
                .into_iter()
                .map(Answer::from)
                .collect()
        },
        |case| ring(case.input),
    );
    questions.iter().map(ring).collect()
}

const SPY_FLAVOURS: [Flavour; 2] = [Flavour::Spymemcached, Flavour::SpymemcachedLibmemcached];

#[test]
fn default_ketama_hash_matches_on_3_10_100_servers_weighted_and_not() {
    let mut questions = Vec::new();
    for flavour in SPY_FLAVOURS {
        for list in standard_lists().into_iter().chain(edge_lists()) {
            questions.push((flavour, HashAlgorithm::Md5, list));
        }
    }
    let rings = check(&questions);
    // The weighted path gives 156 points to each of 100 equal servers.
    let equal_100 = questions
        .iter()
        .position(|q| q.2.name == "100 servers, Equal weights")
        .unwrap();
    assert!(
        rings[equal_100]
            .servers()
            .iter()
            .all(|s| s.point_count() == 156)
    );
}

#[test]
fn every_spymemcached_hash_matches_points_and_keys() {
    let lists = [
        peers::servers(10, Weights::None),
        peers::servers(10, Weights::Unequal),
        edge_lists().remove(1),
    ];
    let mut questions = Vec::new();
    for flavour in SPY_FLAVOURS {
        for &hash in flavour.hashes() {
            for list in &lists {
                questions.push((flavour, hash, list.clone()));
            }
        }
    }
    check(&questions);
}

#[test]
fn spymemcached_string_hashes_match_including_non_ascii() {
    let dir = common::scratch_dir("spy-hash-values");
    let mut keys = peers::keys();
    // Java keys are Strings: only valid UTF-8 has a Java counterpart.
    keys.extend(
        peers::non_ascii_keys()
            .into_iter()
            .filter(|k| std::str::from_utf8(k).is_ok()),
    );
    keys.push(Vec::new());
    write_keys(&dir.join("keys"), &keys);
    spy_java(&[Path::new("hash"), &dir.join("keys"), &dir.join("out")]);
    let text = std::fs::read_to_string(dir.join("out")).unwrap();
    let rows: Vec<&str> = text.lines().collect();
    for &hash in Flavour::Spymemcached.hashes() {
        let tag = format!("{}=", java_hash_name(hash));
        let peer: Vec<u32> = rows
            .iter()
            .map(|row| {
                let field = row
                    .split(' ')
                    .find_map(|f| f.strip_prefix(tag.as_str()))
                    .expect("hash column");
                u32::try_from(field.parse::<i64>().unwrap())
                    .expect("spymemcached hashes are 32-bit")
            })
            .collect();
        let ours: Vec<u32> = keys.iter().map(|k| hash.hash(k)).collect();
        harness::report(
            "spymemcached",
            &format!("hash {}", java_hash_name(hash)),
            &keys,
            &ours,
            &peer,
        );
    }
}
