//! The `dskit-jump` flavour (Grafana dskit's `MemcachedJumpHashSelector`,
//! and Thanos' alike) against the real parts Debian packages, asked in the
//! same run: the servers' natural order and `xxhash.Sum64String` of every
//! key from Go's `facette/natsort` and `cespare/xxhash`
//! (ketama-testkit/peers/xxhash_natsort_peer.go, built offline), and the
//! jump from the hash to a bucket from Guava's `Hashing.consistentHash`
//! (ketama-testkit/peers/GuavaJumpPeer.java); the selector's own step (the
//! server at the key's bucket of the sorted list) is read from dskit's
//! `cache/memcached_server_selector.go`. The jump is also checked against
//! go-jump's published values (`published/jump_go_jump.tsv`). Lists: 3, 10
//! and 100 servers as IP addresses (as listed and backwards) and as
//! Kubernetes StatefulSet names in a scrambled order, one server, a server
//! listed twice, IPv6, host names, a unix socket and non-ASCII names.
//! Keys: 10,000 ASCII keys, tag keys, bytes ≥ 0x80, control bytes, keys
//! of 245 to 300 bytes and of every length 0..300 and past 1,024 bytes.

use ketama_testkit::harness::{self, Case};
use ketama_testkit::jump_peers::{self, Hasher, length_keys};
use ketama_testkit::peers::{self, Weights};
use ketama_testkit::redis_clients::byte_keys;

use ketama_core::placement::jump::jump;
use ketama_core::placement::natural_order::natural_order;
use ketama_core::{Flavour, Ring, RingConfig, ServerSpec};

const FLAVOUR: Flavour = Flavour::DskitJump;

/// A server list as the selector's users pass it to `SetServers`.
pub struct Pool {
    pub name: String,
    pub servers: Vec<String>,
}

/// 3, 10 and 100 servers (addresses as listed and backwards, StatefulSet
/// names scrambled) and the edges.
pub fn pools() -> Vec<Pool> {
    let mut all = Vec::new();
    for n in [3, 10, 100] {
        let list = peers::servers(n, Weights::None);
        let addresses: Vec<String> = list.servers.iter().map(|s| s.address()).collect();
        let backwards: Vec<String> = addresses.iter().rev().cloned().collect();
        let scrambled: Vec<String> = (0..n)
            .map(|i| (i * 37 + 11) % n)
            .map(|i| format!("memcached-{i}.memcached.loki.svc.cluster.local:11211"))
            .collect();
        all.push(Pool {
            name: format!("{n} addresses"),
            servers: addresses,
        });
        all.push(Pool {
            name: format!("{n} addresses backwards"),
            servers: backwards,
        });
        all.push(Pool {
            name: format!("{n} StatefulSet names, scrambled"),
            servers: scrambled,
        });
    }
    let named = |name: &str, servers: &[&str]| Pool {
        name: name.into(),
        servers: servers.iter().map(|s| s.to_string()).collect(),
    };
    all.push(named("1 server", &["10.0.0.1:11211"]));
    all.push(named(
        "a server listed twice",
        &[
            "10.0.0.2:11211",
            "10.0.0.1:11211",
            "10.0.0.2:11211",
            "10.0.0.3:11211",
        ],
    ));
    all.push(named(
        "IPv6, host names, a unix socket, non-ASCII names",
        &[
            "[2001:db8::10]:11211",
            "[::1]:11211",
            "cache-b.example:11211",
            "cache-a.example:11212",
            "/var/run/memcached/memcached-2.sock",
            "cache-\u{e9}t\u{e9}-10:11211",
            "cache-\u{e9}t\u{e9}-9:11211",
            "memcached-1:11211",
        ],
    ));
    all
}

fn ring(flavour: Flavour, servers: &[String]) -> Ring {
    let specs = servers
        .iter()
        .map(|s| ServerSpec::unweighted(s.as_str()))
        .collect();
    Ring::new(specs, RingConfig::flavour(flavour)).expect("the library builds the ring")
}

/// Every pool's keys asked of `hasher` then Guava, and of the library.
pub fn compare_pools(flavour: Flavour, hasher: Hasher, pools: &[Pool]) -> usize {
    let mut keys = byte_keys();
    keys.extend(length_keys());
    let table: Vec<Case<&Pool>> = pools
        .iter()
        .map(|p| Case::new(p.name.as_str(), p, keys.clone()))
        .collect();
    let ask = |table: &[Case<&Pool>]| {
        jump_peers::jump_answers(
            hasher,
            &harness::questions(table, |p| p.servers.join("\n") + "\n"),
        )
    };
    harness::compare(flavour.name(), &table, ask, |case| {
        ring(flavour, &case.input.servers)
    })
}

#[test]
fn the_selector_picks_every_key_as_the_library_does() {
    let compared = compare_pools(FLAVOUR, Hasher::GoXxhashNatsort, &pools());
    assert!(compared >= 12 * 10_000);
    println!("{compared} keys, 0 differences");
}

#[test]
fn natural_order_is_natsorts() {
    let names: Vec<String> = [
        "b",
        "a1",
        "a",
        "a1b",
        "a-",
        "a01b2",
        "a1b10",
        "a1b9",
        "x",
        "x0",
        "x00a",
        "10",
        "9",
        "-1",
        "+1",
        "1.10",
        "1.9",
        "1.09a",
        "h9223372036854775807",
        "h9223372036854775806",
        "\u{e9}2",
        "\u{e9}10",
        "e\u{301}1",
        "\u{7f}",
        "~",
        " 5",
        "memcached-10:11211",
        "memcached-9:11211",
        "memcached-0:11211",
        "[::1]:11211",
        "[::1]:11212",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let mut lists = vec![names.clone()];
    lists.push(names.iter().rev().cloned().collect());
    let text: Vec<(String, &[Vec<u8>])> = lists
        .iter()
        .map(|l| (l.join("\n") + "\n", &[][..]))
        .collect();
    let theirs = jump_peers::go_hashes(&text);
    for (list, theirs) in lists.iter().zip(&theirs) {
        let bytes: Vec<&[u8]> = list.iter().map(|s| s.as_bytes()).collect();
        let ours = natural_order(&bytes, "test").unwrap();
        let keys: Vec<Vec<u8>> = (0..list.len())
            .map(|i| format!("place {i}").into())
            .collect();
        harness::report("natsort.Sort", "31 names", &keys, &ours, &theirs.order);
    }
}

#[test]
fn the_jump_gives_go_jumps_published_buckets() {
    let text = include_str!("published/jump_go_jump.tsv");
    let rows: Vec<(u64, u32, u32)> = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (
                f[0].parse().unwrap(),
                f[1].parse().unwrap(),
                f[2].parse().unwrap(),
            )
        })
        .collect();
    assert_eq!(rows.len(), 103);
    let keys: Vec<Vec<u8>> = rows
        .iter()
        .map(|(k, n, _)| format!("Hash({k}, {n})").into())
        .collect();
    let ours: Vec<u32> = rows.iter().map(|&(k, n, _)| jump(k, n)).collect();
    let theirs: Vec<u32> = rows.iter().map(|&(_, _, b)| b).collect();
    harness::report("jump", "go-jump jump_test.go", &keys, &ours, &theirs);
}
