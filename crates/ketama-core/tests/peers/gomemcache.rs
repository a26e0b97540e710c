//! The `gomemcache` flavour against Go's gomemcache itself (Debian
//! `golang-github-bradfitz-gomemcache-dev` with `golang-go`): a small Go
//! program, ketama-testkit/peers/gomemcache_peer.go, built here offline against the
//! Debian package (GOPATH mode, no module download), sets a
//! `memcache.ServerList` with the servers as its users list them (a server
//! of weight W listed W times in a row; a server written twice stays twice)
//! and asks its `PickServer` for every key. The library must answer the same
//! list entry on 3, 10 and 100 servers, unweighted, equal and unequal
//! weights, a server listed twice, IPv6, for 10,000 ASCII keys plus non-ASCII,
//! control-byte and long keys (gomemcache hashes only the first 256 bytes).

use ketama_testkit::peer_programs;
use ketama_testkit::peers;

use std::path::PathBuf;
use std::sync::OnceLock;

use ketama_core::{Flavour, Ring, RingConfig};
use ketama_testkit::go::build_peer;
use peer_programs::{compare_per_key, weighted_peer_lines};
use peers::{PeerServer, ServerList, Weights, edge_lists, keys, non_ascii_keys, odd_keys};

/// The Go peer, built once per test process (offline: GOPATH mode over
/// Debian's /usr/share/gocode, GOPROXY=off).
fn program() -> &'static PathBuf {
    static PROGRAM: OnceLock<PathBuf> = OnceLock::new();
    PROGRAM.get_or_init(|| {
        build_peer(
            "gomemcache_peer.go",
            &[(
                "github.com/bradfitz/gomemcache/memcache/selector.go",
                "golang-github-bradfitz-gomemcache-dev",
            )],
        )
    })
}

/// 10,000 ASCII keys, non-ASCII and control-byte keys, keys of 245 to 300
/// bytes, and keys that differ only after their 256th byte.
fn all_keys() -> Vec<Vec<u8>> {
    let mut keys = keys();
    keys.extend(non_ascii_keys());
    keys.extend(odd_keys());
    keys.extend((0..50).map(|i| format!("{}:{i}", "long".repeat(64)).into_bytes()));
    keys
}

fn compare(cases: &[(ServerList, Vec<usize>)]) -> usize {
    let program = program();
    compare_per_key(
        "gomemcache",
        &[program.as_os_str()],
        weighted_peer_lines,
        |list| Ring::new(list.specs(), RingConfig::flavour(Flavour::Gomemcache)).unwrap(),
        cases,
        &all_keys(),
    )
}

#[test]
fn pick_server_places_every_key_as_the_library_does() {
    let mut lists = peers::standard_lists();
    lists.push(peers::servers(7, Weights::Unequal));
    // SetServers resolves names: only addresses here (no DNS in a test).
    lists.extend(
        edge_lists()
            .into_iter()
            .filter(|l| !l.name.contains("host")),
    );
    lists.push(ServerList {
        name: "IPv6 and IPv4".into(),
        servers: ["::1", "2001:db8::10", "10.0.0.1"]
            .iter()
            .enumerate()
            .map(|(i, host)| PeerServer {
                host: host.to_string(),
                port: 11211 + i as u16,
                weight: None,
            })
            .collect(),
    });
    let cases: Vec<(ServerList, Vec<usize>)> = lists.into_iter().map(|l| (l, vec![])).collect();
    let compared = compare(&cases);
    assert!(compared >= cases.len() * 10_000);
    println!("{} lists, {compared} keys, 0 differences", cases.len());
}

#[test]
fn a_weight_is_the_server_listed_that_many_times() {
    let keys = all_keys();
    let weighted = peers::servers(10, Weights::Unequal);
    let mut listed = Vec::new();
    for server in &weighted.servers {
        for _ in 0..server.weight.unwrap() {
            listed.push(ketama_core::ServerSpec::unweighted(server.address()));
        }
    }
    let by_weight = Ring::new(weighted.specs(), RingConfig::flavour(Flavour::Gomemcache)).unwrap();
    let by_listing = Ring::new(listed, RingConfig::flavour(Flavour::Gomemcache)).unwrap();
    for key in &keys {
        let a = by_weight.find_server(key).unwrap().address();
        let b = by_listing.find_server(key).unwrap().address();
        assert_eq!(a, b, "{:?}", String::from_utf8_lossy(key));
    }
    // gomemcache has no failover: a key whose server is down has none.
    let at = by_weight.locate(b"user:1").unwrap();
    assert!(
        by_weight
            .locate_live(b"user:1", |s| s == at.server_index)
            .is_err()
    );
}
