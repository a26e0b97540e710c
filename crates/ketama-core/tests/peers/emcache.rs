//! The `emcache` flavour against PyPI `emcache` 1.3.3 itself (installed
//! into `target/pypi-peers` by `scripts/deps.sh`), asked in the same run
//! through ketama-testkit/peers/emcache_peer.py: a client over the same
//! nodes (`MemcachedHostAddress`, or `MemcachedUnixSocketPath` for a name)
//! answers its cluster's `pick_node` for every key. Every key must go to
//! the library's server on 3, 10 and 100 nodes, host names and IPv6
//! addresses, unix socket paths and one node; keys: 10,000 ASCII keys, tag
//! and text keys, bytes ≥ 0x80 (UTF-8 and not), control bytes, 245 to 300
//! bytes. emcache's score takes at most 640 values, so many keys are
//! decided by a tie (a greater node hash wins, else the earlier node): the
//! test counts them and requires some of each kind.

use ketama_testkit as common;
use ketama_testkit::pypi_peers::pypi_python;
use ketama_testkit::redis_clients;

use ketama_core::flavour::emcache::rendezvous_id;
use ketama_core::hash::HashAlgorithm;
use ketama_core::parser::peers as peer_lists;
use ketama_core::{Flavour, Ring, RingConfig, ServerSpec};
use ketama_testkit::harness::{self, Case};
use redis_clients::{ask, byte_keys};

/// One node list: our server lines (peer syntax) and the peer's.
struct Nodes {
    name: String,
    ours: String,
    peer: String,
}

fn hosts(name: &str, hosts: &[(String, u16)]) -> Nodes {
    Nodes {
        name: name.into(),
        ours: hosts
            .iter()
            .map(|(h, p)| {
                if h.contains(':') {
                    format!("[{h}]:{p}\n")
                } else {
                    format!("{h}:{p}\n")
                }
            })
            .collect(),
        peer: hosts.iter().map(|(h, p)| format!("{h}\t{p}\n")).collect(),
    }
}

fn lists() -> Vec<Nodes> {
    let mut all: Vec<Nodes> = [3, 10, 100, 1]
        .into_iter()
        .map(|n| {
            let list: Vec<(String, u16)> = (0..n)
                .map(|i| {
                    (
                        format!("10.0.{}.{}", i / 250, i % 250 + 1),
                        11211 + (i % 3) as u16,
                    )
                })
                .collect();
            hosts(&format!("{n} servers"), &list)
        })
        .collect();
    all.push(hosts(
        "host names and IPv6",
        &[
            ("cache-a.example".into(), 11211),
            ("::1".into(), 11211),
            ("cache-b".into(), 1121),
            ("fe80::1".into(), 11212),
        ],
    ));
    all.push(Nodes {
        name: "unix socket paths".into(),
        ours: "127.0.0.1:1 /run/mc-a.sock\n127.0.0.1:2 /run/mc-b.sock\n127.0.0.1:3 /tmp/mc\n"
            .into(),
        peer: "unix\t/run/mc-a.sock\nunix\t/run/mc-b.sock\nunix\t/tmp/mc\n".into(),
    });
    all
}

fn servers(nodes: &Nodes) -> Vec<ServerSpec> {
    peer_lists::parse(nodes.ours.as_bytes(), "servers").unwrap()
}

fn ring(nodes: &Nodes) -> Ring {
    Ring::new(servers(nodes), RingConfig::flavour(Flavour::Emcache)).unwrap()
}

/// Keys whose best score two or more nodes share, and those of them whose
/// tied nodes also share their own hash (the earlier node keeps the key).
fn ties(nodes: &Nodes, keys: &[Vec<u8>]) -> (usize, usize) {
    let hash = HashAlgorithm::EmcacheMurmur3;
    let ids: Vec<Vec<u8>> = servers(nodes)
        .iter()
        .map(|s| rendezvous_id(s).unwrap())
        .collect();
    let (mut tied, mut tied_twice) = (0, 0);
    for key in keys {
        let scores: Vec<u32> = ids
            .iter()
            .map(|id| hash.hash(&[key, &id[..]].concat()))
            .collect();
        let best = *scores.iter().max().unwrap();
        let top: Vec<u32> = ids
            .iter()
            .zip(&scores)
            .filter(|(_, s)| **s == best)
            .map(|(id, _)| hash.hash(id))
            .collect();
        if top.len() > 1 {
            tied += 1;
            let most = top.iter().max().unwrap();
            tied_twice += usize::from(top.iter().filter(|h| *h == most).count() > 1);
        }
    }
    (tied, tied_twice)
}

#[test]
fn emcache_picks_every_node_as_the_library_does() {
    let python = pypi_python("emcache");
    let all = lists();
    let table: Vec<Case<&Nodes>> = all
        .iter()
        .map(|n| Case::new(n.name.clone(), n, byte_keys()))
        .collect();
    let script = common::peer_program("emcache_peer.py");
    let ask_emcache = |table: &[Case<&Nodes>]| {
        let questions = harness::questions(table, |n| n.peer.clone());
        let (answers, said) = ask(
            "emcache",
            &[python.as_os_str(), script.as_os_str()],
            &questions,
        );
        print!("{said}");
        assert!(
            said.starts_with("emcache 1.3.3"),
            "unexpected emcache: {said}"
        );
        answers
    };
    let compared = harness::compare(Flavour::Emcache.name(), &table, ask_emcache, |case| {
        ring(case.input)
    });
    assert!(compared >= 6 * 10_000);
    let (mut tied, mut tied_twice) = (0, 0);
    for case in &table {
        let (t, tt) = ties(case.input, &case.keys);
        println!(
            "emcache | {} | {t} keys on a tie, {tt} of them on equal node hashes",
            case.name
        );
        tied += t;
        tied_twice += tt;
    }
    assert!(
        tied > 1_000 && tied_twice > 0,
        "{tied} ties, {tied_twice} on node hashes"
    );
}
