//! The `groupcache` flavour against Go groupcache itself (Debian
//! `golang-github-golang-groupcache-dev` with `golang-go`), asked in the
//! same run through tests/peers/groupcache_peer.go, built offline against
//! the Debian sources (GOPATH mode, no network): an `HTTPPool` whose peers
//! are `Set` picks the peer of every key (`PickPeer`); its map's whole ring
//! and every key must equal the library's, on 3, 10 and 100 peers written as
//! addresses and as base URLs (the name column), a peer listed twice and two
//! peers that share a point; `consistenthash.New(n, nil)` with other replica
//! counts must equal the flavour with `--points` (`replicas=n`). Keys: 10,000
//! ASCII keys, non-ASCII and control bytes, and keys forged onto points and
//! one below and above them.

mod common;
#[path = "common/peers.rs"]
mod peers;
#[path = "common/redis_clients.rs"]
mod redis_clients;

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

use ketama_core::flavour::Options;
use ketama_core::parser::peers as peer_lists;
use ketama_core::{Flavour, Ring, RingConfig};
use peers::Weights;
use redis_clients::{Answer, ask, byte_keys, forged_keys, redis_lists, ring_of, some_points};

const FLAVOUR: Flavour = Flavour::Groupcache;

/// The peer program, built once per test process from the Debian sources.
fn peer_program() -> &'static PathBuf {
    static PROGRAM: OnceLock<PathBuf> = OnceLock::new();
    PROGRAM.get_or_init(|| {
        common::require_tool("go", "golang-go");
        let gopath = "/usr/share/gocode";
        assert!(
            std::path::Path::new(gopath)
                .join("src/github.com/golang/groupcache/consistenthash/consistenthash.go")
                .exists(),
            "groupcache's sources are not in {gopath}: run `make deps` (Debian package \
             golang-github-golang-groupcache-dev)"
        );
        let dir = common::scratch_dir("groupcache-peer");
        let program = dir.join("groupcache_peer");
        let source = common::repo_root().join("tests/peers/groupcache_peer.go");
        let output = common::run_with_timeout(
            Command::new("go")
                .args(["build", "-o"])
                .arg(&program)
                .arg(&source)
                .env("GO111MODULE", "off")
                .env("GOPATH", gopath)
                .env("GOFLAGS", "")
                .env("GOPROXY", "off")
                .env("GOCACHE", dir.join("gocache")),
            Duration::from_secs(300),
        );
        assert!(
            output.status.success(),
            "building the groupcache peer failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        program
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

fn compare_pools(pools: &[Pool], keys_of: impl Fn(&Ring) -> Vec<Vec<u8>>) -> usize {
    let rings: Vec<Ring> = pools.iter().map(ring).collect();
    let keys: Vec<Vec<Vec<u8>>> = rings.iter().map(&keys_of).collect();
    let cases: Vec<(String, &[Vec<u8>])> = pools
        .iter()
        .zip(&keys)
        .map(|(p, k)| (format!("pool\n{}\n", p.peers.join("\n")), k.as_slice()))
        .collect();
    let answers = ask_groupcache(&cases);
    let mut compared = 0;
    for (((pool, ring), keys), answer) in pools.iter().zip(&rings).zip(&keys).zip(&answers) {
        // The peer names the peer: a peer listed twice is its first entry.
        let same: Vec<usize> = (0..pool.peers.len())
            .map(|i| pool.peers.iter().position(|p| *p == pool.peers[i]).unwrap())
            .collect();
        let dump_as_ours: Vec<(u32, u32)> = answer.ring.clone();
        let ours: Vec<(u32, u32)> = ring
            .continuum()
            .points()
            .iter()
            .zip(ring.continuum().owners())
            .map(|(&p, &o)| (p, same[o as usize] as u32))
            .collect();
        assert_eq!(ours, dump_as_ours, "{}: the rings differ", pool.name);
        let answer = Answer {
            nodes: answer.nodes.clone(),
            ring: Vec::new(),
        };
        compared += redis_clients::compare_as(&pool.name, ring, keys, &answer, &same);
    }
    compared
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
    let counts = [1u32, 3, 50, 160, 1000];
    let cases: Vec<(String, &[Vec<u8>])> = counts
        .iter()
        .map(|n| {
            (
                format!("replicas {n}\n{}\n", names.join("\n")),
                keys.as_slice(),
            )
        })
        .collect();
    let answers = ask_groupcache(&cases);
    for (replicas, answer) in counts.iter().zip(&answers) {
        let specs = names
            .iter()
            .map(|n| ketama_core::ServerSpec::unweighted(n.as_str()))
            .collect();
        let mut config = RingConfig::flavour(FLAVOUR);
        config.options = Options::parse(&format!("replicas={replicas}")).unwrap();
        let ring = Ring::new(specs, config).unwrap();
        redis_clients::compare(&format!("replicas {replicas}"), &ring, &keys, answer);
    }
}
