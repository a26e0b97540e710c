//! The `predis` and `predis-ketama` flavours against Predis itself (Debian
//! `php-predis`), asked in the same run through ketama-testkit/peers/predis_peer.php:
//! a `Predis\Client` with client-side sharding places each key through the
//! path of a command (`HashRing`, Predis's default, or `KetamaRing`). The
//! distributor's whole ring and every key must equal the library's, on 3,
//! 10 and 100 servers (no weights, equal and unequal weights), IPv6, host
//! names and a server without a port, a server listed twice, and 300 random
//! weight sets (PHP's float shares and `round()`); keys: 10,000 ASCII keys,
//! hash-tagged keys, non-ASCII and control bytes, point labels, and keys
//! forged onto points of the CRC-32 ring and one below and above them.

use ketama_testkit as common;
use ketama_testkit::peers;
use ketama_testkit::redis_clients;

use ketama_core::parser::peers as peer_lists;
use ketama_core::{Flavour, Ring};
use ketama_testkit::harness::{self, Case};
use peers::{ServerList, Weights};
use redis_clients::{ask, byte_keys, forged_keys, redis_lists, ring_of, some_points};

/// One pool: our server lines (peer syntax), Predis's connection URIs.
struct Pool {
    name: String,
    ours: String,
    uris: Vec<String>,
}

/// A list as its users write it: `HOST:PORT[:WEIGHT]` for the library,
/// `tcp://HOST:PORT[?weight=W]` for Predis.
fn pool(list: &ServerList) -> Pool {
    let mut ours = String::new();
    let mut uris = Vec::new();
    for s in &list.servers {
        let weight = s.weight.map(|w| format!(":{w}")).unwrap_or_default();
        ours += &format!("{}{weight}\n", s.address());
        let query = s.weight.map(|w| format!("?weight={w}")).unwrap_or_default();
        uris.push(format!("tcp://{}{query}", s.address()));
    }
    Pool {
        name: list.name.clone(),
        ours,
        uris,
    }
}

fn ring(pool: &Pool, flavour: Flavour) -> Ring {
    ring_of(
        peer_lists::parse(pool.ours.as_bytes(), "servers").unwrap(),
        flavour,
    )
}

/// The keys for a pool: every byte key, the point labels of its first ten
/// servers, and (on the CRC-32 ring) keys forged onto its points.
fn pool_keys(ring: &Ring, flavour: Flavour) -> Vec<Vec<u8>> {
    let mut keys = byte_keys();
    for server in ring.servers().iter().take(10) {
        let spec = ketama_core::ServerSpec::unweighted(server.address().to_vec());
        let node = ketama_core::flavour::predis::node_string(&spec).unwrap();
        let node = String::from_utf8(node).unwrap();
        keys.extend((0..20).map(|i| format!("{node}:{i}").into_bytes()));
        keys.extend((0..20).map(|i| format!("{node}-{i}").into_bytes()));
    }
    if flavour == Flavour::Predis {
        keys.extend(forged_keys(&some_points(ring, 300), false));
    }
    keys
}

/// Asks Predis about every pool with `flavour`'s distributor; compares each
/// ring and key. Returns the keys compared.
fn compare_pools(
    flavour: Flavour,
    pools: &[Pool],
    keys_for: impl Fn(&Pool, &Ring) -> Vec<Vec<u8>>,
) -> usize {
    redis_clients::require_php("@include 'Predis/autoload.php'", "php-predis");
    let kind = if flavour == Flavour::Predis {
        "hashring"
    } else {
        "ketama"
    };
    let table: Vec<Case<&Pool>> = pools
        .iter()
        .map(|p| {
            let keys = keys_for(p, &ring(p, flavour));
            Case::new(format!("{} ({kind})", p.name), p, keys)
        })
        .collect();
    let script = common::peer_program("predis_peer.php");
    let ask_predis = |table: &[Case<&Pool>]| {
        let questions = harness::questions(table, |p| format!("{kind}\n{}\n", p.uris.join("\n")));
        let (answers, said) = ask("predis", &["php".as_ref(), script.as_os_str()], &questions);
        print!("{said}");
        assert!(said.starts_with("Predis 1.1"), "unexpected Predis: {said}");
        for (case, answer) in table.iter().zip(&answers) {
            assert!(
                answer.continuum.is_some(),
                "{}: Predis showed no ring",
                case.name
            );
        }
        answers
    };
    harness::compare(flavour.name(), &table, ask_predis, |case| {
        ring(case.input, flavour)
    })
}

fn standard_pools() -> Vec<Pool> {
    let mut pools: Vec<Pool> = redis_lists(&[Weights::None, Weights::Equal, Weights::Unequal])
        .iter()
        .map(pool)
        .collect();
    pools.push(Pool {
        name: "IPv6, host names, a server without a port".into(),
        ours: "[::1]:6379\n[2001:db8::10]:7000:3\nredis-a.example:6379\nredis-b.example\n10.1.0.9:6381:250\n".into(),
        uris: [
            "tcp://[::1]:6379",
            "tcp://[2001:db8::10]:7000?weight=3",
            "tcp://redis-a.example:6379",
            "tcp://redis-b.example",
            "tcp://10.1.0.9:6381?weight=250",
        ]
        .map(String::from)
        .to_vec(),
    });
    let mut twice = pool(&redis_clients::redis_servers(4, Weights::None));
    let first = twice.ours.lines().next().unwrap().to_string();
    twice.ours += &format!("{first}\n");
    twice.uris.push(twice.uris[0].clone());
    twice.name = "a server listed twice (every point tied)".into();
    pools.push(twice);
    pools
}

fn every_key(flavour: Flavour) -> impl Fn(&Pool, &Ring) -> Vec<Vec<u8>> {
    move |_, ring| pool_keys(ring, flavour)
}

#[test]
fn hash_ring_places_every_key_as_predis_does() {
    let compared = compare_pools(
        Flavour::Predis,
        &standard_pools(),
        every_key(Flavour::Predis),
    );
    assert!(compared >= 11 * 10_000);
    println!("{compared} keys, 0 differences");
}

#[test]
fn ketama_ring_places_every_key_as_predis_does() {
    let compared = compare_pools(
        Flavour::PredisKetama,
        &standard_pools(),
        every_key(Flavour::PredisKetama),
    );
    assert!(compared >= 11 * 10_000);
    println!("{compared} keys, 0 differences");
}

/// 300 pools of 1 to 40 servers with random weights from 1 to 10^k: the
/// point counts come from PHP float shares, `round()` and `floor()`.
fn random_weight_pools() -> Vec<Pool> {
    let mut state = 2024u64;
    let mut next = move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        state >> 33
    };
    (0..300)
        .map(|n| {
            let servers = 1 + next() as usize % 40;
            let scale = 10u64.pow(1 + next() as u32 % 6);
            let mut list = redis_clients::redis_servers(servers, Weights::None);
            for server in &mut list.servers {
                server.weight = match next() % 5 {
                    0 => None,
                    _ => Some(1 + next() % scale),
                };
            }
            list.name = format!("random weights #{n}");
            pool(&list)
        })
        .collect()
}

#[test]
fn random_weights_give_predis_point_counts() {
    let few_keys = |_: &Pool, _: &Ring| peers::keys()[..200].to_vec();
    for flavour in [Flavour::Predis, Flavour::PredisKetama] {
        compare_pools(flavour, &random_weight_pools(), few_keys);
    }
}

#[test]
fn an_equal_point_of_two_servers_goes_to_the_later_server() {
    for flavour in [Flavour::Predis, Flavour::PredisKetama] {
        let (hosts, ties) = redis_clients::list_with_ties(flavour);
        let tied = Pool {
            name: format!(
                "{} and {}, sharing {} point(s)",
                hosts[0],
                hosts[1],
                ties.len()
            ),
            ours: hosts.join("\n") + "\n",
            uris: hosts.iter().map(|h| format!("tcp://{h}")).collect(),
        };
        // The ring dump shows who holds each tied point; on the CRC-32 ring
        // keys also land on them.
        let with_ties = move |_: &Pool, _: &Ring| {
            let mut keys = peers::keys();
            if flavour == Flavour::Predis {
                keys.extend(forged_keys(&ties, false));
            }
            keys
        };
        compare_pools(flavour, &[tied], with_ties);
    }
}
