//! The `hashring-py` flavour against PyPI `hashring` 1.5.1 itself
//! (installed into `target/pypi-peers` by `scripts/deps.sh`), asked in the
//! same run through ketama-testkit/peers/hashring_peer.py: a `HashRing` of
//! the same node names (and weights) shows its whole ring and answers
//! `get_node` for every key. Both must equal the library's on 3, 10 and 100
//! nodes, without weights, with equal and unequal weights, named from the
//! name column, and two nodes that share a point (the later one keeps it);
//! keys: 10,000 ASCII keys, tag-like and non-ASCII text, keys of 245 to 300
//! bytes, the point labels `name-j` (whose hash *is* a point: `hashring`
//! takes the next one) and keys past the last point or before the first
//! (they wrap to the first point).

use ketama_testkit as common;
use ketama_testkit::pypi_peers::pypi_python;
use ketama_testkit::redis_clients;

use ketama_core::hash::HashAlgorithm;
use ketama_core::parser::peers as peer_lists;
use ketama_core::{Flavour, Ring, RingConfig};
use ketama_testkit::harness::{self, Case};
use ketama_testkit::peers::Weights;
use redis_clients::{ask, redis_lists, text_keys};

/// One ring: our server lines (peer syntax) and hashring's node lines.
struct Nodes {
    name: String,
    ours: String,
    peer: String,
}

fn standard() -> Vec<Nodes> {
    let mut all: Vec<Nodes> = redis_lists(&[Weights::None, Weights::Equal, Weights::Unequal])
        .iter()
        .map(|list| Nodes {
            name: list.name.clone(),
            ours: list.peer_syntax_lines(),
            peer: list.tab_lines(),
        })
        .collect();
    all.push(Nodes {
        name: "names from the name column".into(),
        ours: "10.1.0.1:11211:2 cache-a\n10.1.0.2:11211 cache-b\n10.1.0.3:11211:3 /run/mc.sock\n"
            .into(),
        peer: "cache-a\t2\ncache-b\t1\n/run/mc.sock\t3\n".into(),
    });
    all
}

fn ring(nodes: &Nodes) -> Ring {
    let servers = peer_lists::parse(nodes.ours.as_bytes(), "servers").unwrap();
    Ring::new(servers, RingConfig::flavour(Flavour::HashringPy)).unwrap()
}

/// Up to 40 keys whose MD5 position lies past the ring's last point or
/// before its first: they wrap to the first point.
fn wrap_keys(ring: &Ring) -> Vec<Vec<u8>> {
    let points = ring.continuum().points();
    let (first, last) = (points[0], points[points.len() - 1]);
    let wraps = (0..5_000_000)
        .map(|i| format!("wrap:{i}").into_bytes())
        .filter(|k| {
            let h = HashAlgorithm::Md5.hash(k);
            h > last || h < first
        })
        .take(40)
        .collect::<Vec<_>>();
    assert!(
        wraps.len() >= 10,
        "only {} keys across the wrap",
        wraps.len()
    );
    wraps
}

/// Text keys, the point labels `name-j` of the first ten nodes, and keys
/// across the wrap-around.
fn keys_for(nodes: &Nodes) -> Vec<Vec<u8>> {
    let mut keys = text_keys();
    for line in nodes.peer.lines().take(10) {
        let name = line.split('\t').next().unwrap();
        keys.extend((0..50).map(|j| format!("{name}-{j}").into_bytes()));
    }
    keys.extend(wrap_keys(&ring(nodes)));
    keys
}

fn compare(all: &[Nodes]) -> usize {
    let python = pypi_python("hashring");
    let table: Vec<Case<&Nodes>> = all
        .iter()
        .map(|n| Case::new(n.name.clone(), n, keys_for(n)))
        .collect();
    let script = common::peer_program("hashring_peer.py");
    let ask_hashring = |table: &[Case<&Nodes>]| {
        let questions = harness::questions(table, |n| n.peer.clone());
        let (answers, said) = ask(
            "hashring",
            &[python.as_os_str(), script.as_os_str()],
            &questions,
        );
        print!("{said}");
        assert!(
            said.starts_with("hashring 1.5.1"),
            "unexpected hashring: {said}"
        );
        for (case, answer) in table.iter().zip(&answers) {
            assert!(answer.continuum.is_some(), "{}: no ring shown", case.name);
        }
        answers
    };
    harness::compare(Flavour::HashringPy.name(), &table, ask_hashring, |case| {
        ring(case.input)
    })
}

#[test]
fn hashring_places_every_key_and_point_as_the_library_does() {
    let compared = compare(&standard());
    assert!(compared >= 10 * 10_000);
    println!("{compared} keys, 0 differences");
}

#[test]
fn an_equal_point_of_two_nodes_goes_to_the_later_node() {
    let (hosts, ties) = redis_clients::list_with_ties(Flavour::HashringPy);
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
    };
    let compared = compare(&[tied]);
    assert!(compared >= 10_000);
}
