//! The `uhashring` and `uhashring-ketama` flavours against Python uhashring
//! itself (Debian `python3-uhashring`), asked in the same run through
//! ketama-testkit/peers/uhashring_peer.py: a `HashRing` of the same node names (and
//! weights), in its default mode and with `hash_fn='ketama'`, answers
//! `get_node` for every key. Every key (and the ketama ring's every point)
//! must equal the library's, on 3, 10 and 100 nodes, without weights, with
//! equal and unequal weights, named from the name column, and two nodes that
//! share a point; keys: 10,000 ASCII keys, tag-like and non-ASCII text, and
//! the point labels `name-w`, whose hash *is* a point (uhashring takes the
//! next one).

use ketama_testkit as common;
use ketama_testkit::peers;
use ketama_testkit::redis_clients;

use ketama_core::parser::peers as peer_lists;
use ketama_core::{Flavour, Ring, RingConfig};
use ketama_testkit::harness::{self, Case};
use peers::Weights;
use redis_clients::{ask, redis_lists, text_keys};

/// One ring: our server lines (peer syntax) and uhashring's node lines.
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
        ours: "10.1.0.1:6379:2 cache-a\n10.1.0.2:6379 cache-b\n10.1.0.3:6379:3 /run/redis.sock\n"
            .into(),
        peer: "cache-a\t2\ncache-b\t1\n/run/redis.sock\t3\n".into(),
    });
    all
}

/// Our ring, with `vnodes` set (`--points`) when given.
fn ring(nodes: &Nodes, flavour: Flavour, vnodes: Option<u32>) -> Ring {
    let servers = peer_lists::parse(nodes.ours.as_bytes(), "servers").unwrap();
    let mut config = RingConfig::flavour(flavour);
    config.options.points = vnodes;
    Ring::new(servers, config).unwrap()
}

/// Text keys and the point labels `name-w` of the first ten nodes.
fn keys_for(nodes: &Nodes) -> Vec<Vec<u8>> {
    let mut keys = text_keys();
    for line in nodes.peer.lines().take(10) {
        let name = line.split('\t').next().unwrap();
        keys.extend((0..50).map(|w| format!("{name}-{w}").into_bytes()));
    }
    keys
}

fn compare_rings(
    flavour: Flavour,
    vnodes: Option<u32>,
    all: &[Nodes],
    keys_of: impl Fn(&Nodes) -> Vec<Vec<u8>>,
) -> usize {
    redis_clients::require_python_module("uhashring", "python3-uhashring");
    let mode = if flavour == Flavour::Uhashring {
        "default"
    } else {
        "ketama"
    };
    let mode = match vnodes {
        Some(v) => format!("{mode} {v}"),
        None => mode.to_string(),
    };
    let table: Vec<Case<&Nodes>> = all
        .iter()
        .map(|n| Case::new(format!("{} ({mode})", n.name), n, keys_of(n)))
        .collect();
    let script = common::peer_program("uhashring_peer.py");
    let ask_uhashring = |table: &[Case<&Nodes>]| {
        let questions = harness::questions(table, |n| format!("{mode}\n{}", n.peer));
        let (answers, said) = ask(
            "uhashring",
            &["/usr/bin/python3".as_ref(), script.as_os_str()],
            &questions,
        );
        print!("{said}");
        assert!(
            said.starts_with("uhashring 2.1"),
            "unexpected uhashring: {said}"
        );
        for (case, answer) in table.iter().zip(&answers) {
            assert_eq!(
                answer.continuum.is_none(),
                flavour == Flavour::Uhashring,
                "{}: the ketama ring is shown, the default one is not",
                case.name
            );
        }
        answers
    };
    harness::compare(flavour.name(), &table, ask_uhashring, |case| {
        ring(case.input, flavour, vnodes)
    })
}

#[test]
fn default_ring_places_every_key_as_the_library_does() {
    let compared = compare_rings(Flavour::Uhashring, None, &standard(), keys_for);
    assert!(compared >= 10 * 10_000);
    println!("{compared} keys, 0 differences");
}

#[test]
fn ketama_ring_places_every_key_as_the_library_does() {
    let compared = compare_rings(Flavour::UhashringKetama, None, &standard(), keys_for);
    assert!(compared >= 10 * 10_000);
    println!("{compared} keys, 0 differences");
}

#[test]
fn an_equal_point_of_two_nodes_goes_to_the_later_node() {
    let (hosts, ties) = redis_clients::list_with_ties(Flavour::UhashringKetama);
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
    compare_rings(Flavour::UhashringKetama, None, &[tied], keys_for);
}

#[test]
fn vnodes_set_with_points_build_as_uhashring_builds_them() {
    let lists: Vec<Nodes> = standard()
        .into_iter()
        .filter(|n| n.name.starts_with("10 ") || n.name.starts_with("names"))
        .collect();
    let few_keys = |nodes: &Nodes| {
        let mut keys = peers::keys()[..2_000].to_vec();
        keys.extend(keys_for(nodes).split_off(text_keys().len()));
        keys
    };
    for vnodes in [1, 7, 40, 160, 500] {
        for flavour in [Flavour::Uhashring, Flavour::UhashringKetama] {
            compare_rings(flavour, Some(vnodes), &lists, few_keys);
        }
    }
}
