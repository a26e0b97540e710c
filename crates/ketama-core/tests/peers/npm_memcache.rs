//! The `npm-memcache` flavour against npm `memcache` 1.10.0 itself and
//! `npm-memcache-sha1` against npm `memcache` 1.5.0 (installed into
//! `target/npm-memcache-peer` and `target/npm-memcache15-peer` by
//! `scripts/deps.sh`), asked in the same run through
//! ketama-testkit/peers/npm_memcache_peer.js: a
//! client with the same nodes (and weights, through `addNode(uri, w)`)
//! shows its whole ring and its distribution answers `getNodesByKey` for
//! every key. Both must equal the library's on 3, 10 and 100 nodes, without
//! weights, with equal and unequal weights, IPv6 and unix socket nodes, and
//! two nodes that share a point (the earlier one keeps it), for each
//! version; keys: 10,000
//! ASCII keys, tag and text keys, bytes ≥ 0x80 (UTF-8 and not: the client
//! reads them as UTF-8), control bytes, 245 to 300 bytes, the point labels
//! (whose hash *is* a point: the client takes it) and keys past the last
//! point or before the first (they wrap to the first).

use ketama_testkit as common;
use ketama_testkit::redis_clients;

use ketama_core::hash::HashAlgorithm;
use ketama_core::parser::peers as peer_lists;
use ketama_core::{Flavour, Ring, RingConfig};
use ketama_testkit::harness::{self, Case};
use ketama_testkit::peers::Weights;
use redis_clients::{ask, byte_keys, redis_lists};

/// One ring: our server lines (peer syntax), the peer's node lines and
/// the node ids the points are labelled with.
struct Nodes {
    name: String,
    ours: String,
    peer: String,
    ids: Vec<String>,
}

fn standard() -> Vec<Nodes> {
    let mut all: Vec<Nodes> = redis_lists(&[Weights::None, Weights::Equal, Weights::Unequal])
        .iter()
        .map(|list| Nodes {
            name: list.name.clone(),
            ours: list.peer_syntax_lines(),
            peer: list.tab_lines(),
            ids: list.servers.iter().map(|s| s.address()).collect(),
        })
        .collect();
    all.push(Nodes {
        name: "IPv6 and unix socket nodes".into(),
        ours: "[::1]:11211:2\n[fe80::1]:11212\n127.0.0.1:1 /run/mc.sock\n10.0.0.9:11211:3\n".into(),
        peer: "[::1]:11211\t2\n[fe80::1]:11212\n/run/mc.sock\n10.0.0.9:11211\t3\n".into(),
        ids: [
            "[::1]:11211",
            "[fe80::1]:11212",
            "/run/mc.sock",
            "10.0.0.9:11211",
        ]
        .map(String::from)
        .to_vec(),
    });
    all
}

/// A version of the client: the flavour, where it is installed, what it
/// says it is.
struct Version {
    flavour: Flavour,
    dir: &'static str,
    said: &'static str,
}

const V1_10: Version = Version {
    flavour: Flavour::NpmMemcache,
    dir: "target/npm-memcache-peer",
    said: "memcache 1.10.0",
};

const V1_5: Version = Version {
    flavour: Flavour::NpmMemcacheSha1,
    dir: "target/npm-memcache15-peer",
    said: "memcache 1.5.0",
};

fn ring(nodes: &Nodes, flavour: Flavour) -> Ring {
    let servers = peer_lists::parse(nodes.ours.as_bytes(), "servers").unwrap();
    Ring::new(servers, RingConfig::flavour(flavour)).unwrap()
}

/// Up to 40 keys whose hash lies past the ring's last point or before its
/// first: they wrap to the first point.
fn wrap_keys(ring: &Ring, hash: HashAlgorithm) -> Vec<Vec<u8>> {
    let points = ring.continuum().points();
    let (first, last) = (points[0], points[points.len() - 1]);
    let wraps: Vec<Vec<u8>> = (0..5_000_000)
        .map(|i| format!("wrap:{i}").into_bytes())
        .filter(|k| {
            let h = hash.hash(k);
            h > last || h < first
        })
        .take(40)
        .collect();
    assert!(
        wraps.len() >= 10,
        "only {} keys across the wrap",
        wraps.len()
    );
    wraps
}

/// Byte keys, the point labels `id\0i` of the first ten nodes, and keys
/// across the wrap-around.
fn keys_for(nodes: &Nodes, flavour: Flavour) -> Vec<Vec<u8>> {
    let mut keys = byte_keys();
    for id in nodes.ids.iter().take(10) {
        keys.extend((1..=50).map(|i| format!("{id}\0{i}").into_bytes()));
    }
    keys.extend(wrap_keys(&ring(nodes, flavour), flavour.default_hash()));
    keys
}

fn compare(version: &Version, all: &[Nodes]) -> usize {
    common::require_tool("node", "nodejs");
    let flavour = version.flavour;
    let modules = common::repo_root().join(version.dir).join("node_modules");
    assert!(
        modules.join("memcache/package.json").exists(),
        "npm memcache is not installed in {modules:?}: run `make deps`"
    );
    let table: Vec<Case<&Nodes>> = all
        .iter()
        .map(|n| Case::new(n.name.clone(), n, keys_for(n, flavour)))
        .collect();
    let script = common::peer_program("npm_memcache_peer.js");
    let node_path = format!("NODE_PATH={}", modules.display());
    let ask_memcache = |table: &[Case<&Nodes>]| {
        let questions = harness::questions(table, |n| n.peer.clone());
        let (answers, said) = ask(
            "npm-memcache",
            &[
                "/usr/bin/env".as_ref(),
                node_path.as_ref(),
                "node".as_ref(),
                script.as_os_str(),
            ],
            &questions,
        );
        print!("{said}");
        assert!(
            said.starts_with(version.said),
            "unexpected memcache: {said}"
        );
        for (case, answer) in table.iter().zip(&answers) {
            assert!(answer.continuum.is_some(), "{}: no ring shown", case.name);
        }
        answers
    };
    harness::compare(flavour.name(), &table, ask_memcache, |case| {
        ring(case.input, flavour)
    })
}

#[test]
fn memcache_1_10_places_every_key_and_point_as_the_library_does() {
    let compared = compare(&V1_10, &standard());
    assert!(compared >= 10 * 10_000);
    println!("{compared} keys, 0 differences");
}

#[test]
fn memcache_1_5_places_every_key_and_point_as_the_library_does() {
    let compared = compare(&V1_5, &standard());
    assert!(compared >= 10 * 10_000);
    println!("{compared} keys, 0 differences");
}

#[test]
fn an_equal_point_of_two_nodes_goes_to_the_earlier_node() {
    for version in [&V1_10, &V1_5] {
        equal_point(version);
    }
}

fn equal_point(version: &Version) {
    let (hosts, ties) = redis_clients::list_with_ties(version.flavour);
    assert!(!ties.is_empty());
    let tied = Nodes {
        name: format!(
            "{} and {}, sharing {} point(s)",
            hosts[0],
            hosts[1],
            ties.len()
        ),
        ours: hosts.join("\n") + "\n",
        peer: hosts.join("\n") + "\n",
        ids: hosts.clone(),
    };
    // `keys_for` asks every point label of both nodes: the labels that hash
    // onto a shared point land exactly on it.
    let compared = compare(version, &[tied]);
    assert!(compared >= 10_000);
}
