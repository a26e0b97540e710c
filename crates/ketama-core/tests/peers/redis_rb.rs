//! The `redis-rb` flavour against redis-rb itself (Debian `ruby-redis`),
//! asked in the same run through ketama-testkit/peers/redis_rb_peer.rb: a
//! `Redis::Distributed` of the node configurations its users write (URLs,
//! `host:`/`port:` hashes, an `:id`) answers `node_for` for every key. Its
//! whole ring and every key must equal the library's, on 3, 10 and 100
//! nodes, IPv6 and host names with and without a port, URLs with a database
//! and explicit ids (the name column), a node listed twice, and a point two
//! of many nodes share; keys: 10,000 ASCII keys, `{tag}` keys (tags at line
//! starts, newlines, NUL), non-ASCII (valid UTF-8 and not), control bytes,
//! point labels, and keys forged onto points and one below and above them.

use ketama_testkit as common;
use ketama_testkit::peers;
use ketama_testkit::redis_clients;

use ketama_core::parser::peers as peer_lists;
use ketama_core::{Flavour, Ring};
use ketama_testkit::harness::{self, Case};
use peers::Weights;
use redis_clients::{ask, byte_keys, forged_keys, redis_lists, ring_of, some_points};

const FLAVOUR: Flavour = Flavour::RedisRb;

/// One pool: our server lines (peer syntax) and redis-rb's node lines.
struct Nodes {
    name: String,
    ours: String,
    peer: String,
}

fn nodes(name: &str, pairs: &[(String, String)]) -> Nodes {
    Nodes {
        name: name.into(),
        ours: pairs.iter().map(|(o, _)| format!("{o}\n")).collect(),
        peer: pairs.iter().map(|(_, p)| format!("{p}\n")).collect(),
    }
}

fn url_pairs(addresses: &[String]) -> Vec<(String, String)> {
    addresses
        .iter()
        .map(|a| (a.clone(), format!("url redis://{a}")))
        .collect()
}

fn standard() -> Vec<Nodes> {
    let mut all: Vec<Nodes> = redis_lists(&[Weights::None])
        .iter()
        .map(|list| {
            let addresses: Vec<String> = list.servers.iter().map(|s| s.address()).collect();
            nodes(&list.name, &url_pairs(&addresses))
        })
        .collect();
    let pair = |o: &str, p: &str| (o.to_string(), p.to_string());
    all.push(nodes(
        "IPv6, host names, a node without a port",
        &[
            pair("[::1]:6379", "url redis://[::1]:6379"),
            pair("[2001:db8::10]:7000", "url redis://[2001:db8::10]:7000"),
            pair("redis-a.example:6380", "host redis-a.example 6380"),
            pair("redis-b.example", "host redis-b.example"),
            pair("10.1.0.9:6381", "url redis://10.1.0.9:6381/0"),
        ],
    ));
    all.push(nodes(
        "ids: URLs with a database, an :id option",
        &[
            pair(
                "10.1.0.1:6379 redis://10.1.0.1:6379/3",
                "url redis://10.1.0.1:6379/3",
            ),
            pair("10.1.0.2:6379 shard-b", "id shard-b redis://10.1.0.2:6379"),
            pair("10.1.0.3:6379", "url redis://10.1.0.3:6379"),
            pair(
                "10.1.0.4:6379 rediss://10.1.0.4:6379/0",
                "url rediss://10.1.0.4:6379",
            ),
        ],
    ));
    let twice: Vec<String> = [
        "10.1.0.1:6379",
        "10.1.0.2:6380",
        "10.1.0.1:6379",
        "10.1.0.3:6381",
    ]
    .map(String::from)
    .to_vec();
    all.push(nodes(
        "a node listed twice (every point tied)",
        &url_pairs(&twice),
    ));
    all
}

fn ring(nodes: &Nodes) -> Ring {
    ring_of(
        peer_lists::parse(nodes.ours.as_bytes(), "servers").unwrap(),
        FLAVOUR,
    )
}

/// Every byte key, the point labels of the first ten nodes, and keys forged
/// onto points.
fn keys_for(ring: &Ring, specs: &[ketama_core::ServerSpec]) -> Vec<Vec<u8>> {
    let mut keys = byte_keys();
    for spec in specs.iter().take(10) {
        let id = String::from_utf8(ketama_core::flavour::redis_rb::node_id(spec).unwrap()).unwrap();
        keys.extend((0..20).map(|i| format!("{id}:{i}").into_bytes()));
    }
    keys.extend(forged_keys(&some_points(ring, 300), false));
    keys
}

fn compare_nodes(all: &[Nodes], keys_of: impl Fn(&Nodes, &Ring) -> Vec<Vec<u8>>) -> usize {
    common::require_tool("ruby", "ruby");
    let probe = std::process::Command::new("ruby")
        .args(["-e", "require 'redis'; require 'redis/distributed'"])
        .output()
        .expect("run ruby");
    assert!(
        probe.status.success(),
        "Ruby cannot load redis: run `make deps` (Debian package ruby-redis)"
    );
    let table: Vec<Case<&Nodes>> = all
        .iter()
        .map(|n| Case::new(n.name.as_str(), n, keys_of(n, &ring(n))))
        .collect();
    let script = common::peer_program("redis_rb_peer.rb");
    let ask_redis_rb = |table: &[Case<&Nodes>]| {
        let questions = harness::questions(table, |n| n.peer.clone());
        let (answers, said) = ask(
            "redis-rb",
            &["ruby".as_ref(), script.as_os_str()],
            &questions,
        );
        print!("{said}");
        assert!(
            said.starts_with("redis-rb 4.8"),
            "unexpected redis-rb: {said}"
        );
        for (case, answer) in table.iter().zip(&answers) {
            assert!(answer.continuum.is_some(), "{}: no ring shown", case.name);
        }
        answers
    };
    harness::compare(FLAVOUR.name(), &table, ask_redis_rb, |case| {
        ring(case.input)
    })
}

#[test]
fn distributed_places_every_key_as_the_library_does() {
    let compared = compare_nodes(&standard(), |nodes, ring| {
        let specs = peer_lists::parse(nodes.ours.as_bytes(), "servers").unwrap();
        keys_for(ring, &specs)
    });
    assert!(compared >= 6 * 10_000);
    println!("{compared} keys, 0 differences");
}

#[test]
fn an_equal_point_of_two_nodes_goes_to_the_later_node() {
    let (hosts, ties) = redis_clients::list_with_ties(FLAVOUR);
    let tied = nodes(
        &format!(
            "{} and {}, sharing {} point(s)",
            hosts[0],
            hosts[1],
            ties.len()
        ),
        &url_pairs(&hosts),
    );
    compare_nodes(&[tied], move |_, _| {
        let mut keys = peers::keys();
        keys.extend(forged_keys(&ties, false));
        keys
    });
}

#[test]
fn weights_are_refused() {
    let servers = peer_lists::parse(b"10.1.0.1:6379:3\n", "servers").unwrap();
    let err = ketama_core::Ring::new(servers, ketama_core::RingConfig::flavour(FLAVOUR))
        .unwrap_err()
        .to_string();
    assert!(err.contains("has no weights"), "{err}");
}
