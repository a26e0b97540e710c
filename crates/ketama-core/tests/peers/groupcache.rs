//! The `groupcache` flavour against Go groupcache itself (Debian
//! `golang-github-golang-groupcache-dev` with `golang-go`), asked in the
//! same run through ketama-testkit/peers/groupcache_peer.go, built offline against
//! the Debian sources (GOPATH mode, no network): an `HTTPPool` whose peers
//! are `Set` picks the peer of every key (`PickPeer`); its map's whole ring
//! and every key must equal the library's, on 3, 10 and 100 peers written as
//! addresses and as base URLs (the name column), a peer listed twice and two
//! peers that share a point; `consistenthash.New(n, nil)` with other replica
//! counts must equal the flavour with `--points` (`replicas=n`). Keys: 10,000
//! ASCII keys, non-ASCII and control bytes, and keys forged onto points and
//! one below and above them.

use ketama_testkit::peers;
use ketama_testkit::redis_clients;

use std::path::PathBuf;
use std::sync::OnceLock;

use ketama_core::flavour::Options;
use ketama_core::parser::peers as peer_lists;
use ketama_core::{Flavour, Ring, RingConfig};
use ketama_testkit::go::build_peer;
use ketama_testkit::harness::{self, Answer, Case};
use peers::Weights;
use redis_clients::{ask, byte_keys, forged_keys, redis_lists, ring_of, some_points};

const FLAVOUR: Flavour = Flavour::Groupcache;

/// The peer program, built once per test process from the Debian sources.
fn peer_program() -> &'static PathBuf {
    static PROGRAM: OnceLock<PathBuf> = OnceLock::new();
    PROGRAM.get_or_init(|| {
        build_peer(
            "groupcache_peer.go",
            &[(
                "github.com/golang/groupcache/consistenthash/consistenthash.go",
                "golang-github-golang-groupcache-dev",
            )],
        )
    })
}

/// One pool: our server lines (peer syntax) and the peer names.
struct Pool {
    name: String,
    ours: String,
    peers: Vec<String>,
}

fn standard() -> Vec<Pool> {
    let mut all = Vec::new();
    for list in redis_lists(&[Weights::None]) {
        let addresses: Vec<String> = list.servers.iter().map(|s| s.address()).collect();
        all.push(Pool {
            name: format!("{} (addresses)", list.name),
            ours: addresses.join("\n") + "\n",
            peers: addresses.clone(),
        });
        let urls: Vec<String> = addresses.iter().map(|a| format!("http://{a}")).collect();
        all.push(Pool {
            name: format!("{} (base URLs)", list.name),
            ours: addresses
                .iter()
                .zip(&urls)
                .map(|(a, u)| format!("{a} {u}\n"))
                .collect(),
            peers: urls,
        });
    }
    let twice = [
        "http://10.1.0.1:8080",
        "http://10.1.0.2:8080",
        "http://10.1.0.1:8080",
    ];
    all.push(Pool {
        name: "a peer listed twice".into(),
        ours: "10.1.0.1:8080 http://10.1.0.1:8080\n10.1.0.2:8080 http://10.1.0.2:8080\n10.1.0.1:8080 http://10.1.0.1:8080\n".into(),
        peers: twice.map(String::from).to_vec(),
    });
    all
}

fn ring(pool: &Pool) -> Ring {
    ring_of(
        peer_lists::parse(pool.ours.as_bytes(), "servers").unwrap(),
        FLAVOUR,
    )
}

/// Asks groupcache about each `(servers text, keys)` case.
fn ask_groupcache(cases: &[(String, &[Vec<u8>])]) -> Vec<Answer> {
    let program = peer_program();
    let (answers, said) = ask("groupcache", &[program.as_os_str()], cases);
    print!("{said}");
    answers
}

/// Asks groupcache about every pool and compares ring and keys; the peer
/// names the peer, so a peer listed twice is its first entry.
fn compare_pools(pools: &[Pool], keys_of: impl Fn(&Ring) -> Vec<Vec<u8>>) -> usize {
    let table: Vec<Case<&Pool>> = pools
        .iter()
        .map(|p| Case::new(p.name.as_str(), p, keys_of(&ring(p))).named(&p.peers))
        .collect();
    let ask_pools = |table: &[Case<&Pool>]| {
        let answers = ask_groupcache(&harness::questions(table, |p| {
            format!("pool\n{}\n", p.peers.join("\n"))
        }));
        for (case, answer) in table.iter().zip(&answers) {
            assert!(answer.continuum.is_some(), "{}: no ring shown", case.name);
        }
        answers
    };
    harness::compare(FLAVOUR.name(), &table, ask_pools, |case| ring(case.input))
}

fn keys_for(ring: &Ring) -> Vec<Vec<u8>> {
    let mut keys = byte_keys();
    keys.extend(forged_keys(&some_points(ring, 300), false));
    keys
}

#[test]
fn http_pool_picks_every_key_as_the_library_does() {
    let compared = compare_pools(&standard(), keys_for);
    assert!(compared >= 7 * 10_000);
    println!("{compared} keys, 0 differences");
}

#[test]
fn an_equal_point_of_two_peers_goes_to_the_later_peer() {
    let (hosts, ties) = redis_clients::list_with_ties(FLAVOUR);
    let tied = Pool {
        name: format!(
            "{} and {}, sharing {} point(s)",
            hosts[0],
            hosts[1],
            ties.len()
        ),
        ours: hosts.join("\n") + "\n",
        peers: hosts,
    };
    compare_pools(&[tied], |_| {
        let mut keys = peers::keys();
        keys.extend(forged_keys(&ties, false));
        keys
    });
}

#[test]
fn replicas_set_with_points_build_as_consistenthash_new() {
    let list = redis_clients::redis_servers(10, Weights::None);
    let names: Vec<String> = list
        .servers
        .iter()
        .map(|s| format!("http://{}", s.address()))
        .collect();
    let keys = byte_keys();
    let table: Vec<Case<u32>> = [1u32, 3, 50, 160, 1000]
        .into_iter()
        .map(|n| Case::new(format!("replicas {n}"), n, keys.clone()))
        .collect();
    let ask_replicas = |table: &[Case<u32>]| {
        ask_groupcache(&harness::questions(table, |n| {
            format!("replicas {n}\n{}\n", names.join("\n"))
        }))
    };
    harness::compare(FLAVOUR.name(), &table, ask_replicas, |case| {
        let specs = names
            .iter()
            .map(|n| ketama_core::ServerSpec::unweighted(n.as_str()))
            .collect();
        let mut config = RingConfig::flavour(FLAVOUR);
        config.options = Options::parse(&format!("replicas={}", case.input)).unwrap();
        Ring::new(specs, config).unwrap()
    });
}
