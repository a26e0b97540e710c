//! The `node-memcached` flavour against the npm `memcached` client 2.2.2
//! (with its `hashring` 3.2.0), installed into target/node-peer by
//! `make deps` and asked in the same run through
//! ketama-testkit/peers/node_memcached_peer.js: the client's own `HashRing` for the
//! same servers, as a plain list and in its weighted `{ "host:port": weight }`
//! form. The whole continuum and every key must equal the library's, on 3,
//! 7, 10, 61 and 100 servers, with ASCII and non-ASCII keys.

use ketama_core::{Flavour, Ring, RingConfig};
use ketama_testkit::harness::{self, Answer, Case};
use ketama_testkit::peer_programs::node_memcached_answers;
use ketama_testkit::peers::{
    self, ServerList, Weights, edge_lists, keys, label_keys, non_ascii_keys, standard_lists,
};

/// The list as the client is given it: `ADDRESS` lines (an array), or
/// `ADDRESS<TAB>WEIGHT` (the weighted object form).
fn lines(list: &ServerList) -> String {
    list.servers
        .iter()
        .map(|s| match s.weight {
            Some(w) => format!("{}\t{w}\n", s.address()),
            None => format!("{}\n", s.address()),
        })
        .collect()
}

/// 10,000 ASCII keys, the valid UTF-8 non-ASCII keys (JavaScript strings),
/// and point labels under both of hashring's spellings.
fn node_keys(list: &ServerList) -> Vec<Vec<u8>> {
    let mut keys = keys();
    keys.extend(
        non_ascii_keys()
            .into_iter()
            .filter(|k| std::str::from_utf8(k).is_ok()),
    );
    keys.extend(label_keys(list, 10));
    keys
}

/// Asks the client about each list and compares continuum and keys through
/// the harness; returns the number of keys compared.
fn compare(lists: &[ServerList]) -> usize {
    let table: Vec<Case<&ServerList>> = lists
        .iter()
        .map(|list| Case::new(list.name.as_str(), list, node_keys(list)))
        .collect();
    harness::compare(
        Flavour::NodeMemcached.name(),
        &table,
        |table| {
            let asked = harness::questions(table, |list| lines(list));
            node_memcached_answers(&asked)
                .into_iter()
                .map(Answer::from)
                .collect()
        },
        |case| {
            Ring::new(
                case.input.specs(),
                RingConfig::flavour(Flavour::NodeMemcached),
            )
            .unwrap()
        },
    )
}

#[test]
fn hashring_places_every_key_as_the_library_does() {
    let mut lists = standard_lists();
    for n in [7, 61] {
        lists.push(peers::servers(n, Weights::None));
        lists.push(peers::servers(n, Weights::Unequal));
    }
    let compared = compare(&lists);
    assert!(compared >= lists.len() * 10_000);
    println!("{} lists, {compared} keys, 0 differences", lists.len());
}

#[test]
fn seven_equal_servers_get_156_points_each() {
    // 1/7·40·7 is 39.99999999999999 in double precision: 39 digests.
    let list = peers::servers(7, Weights::Equal);
    let ring = Ring::new(list.specs(), RingConfig::flavour(Flavour::NodeMemcached)).unwrap();
    assert!(ring.servers().iter().all(|s| s.point_count() == 156));
    compare(&[list]);
}

#[test]
fn ipv6_and_host_names_are_labelled_as_written() {
    // Not a server listed twice: hashring names servers by their string.
    let lists: Vec<ServerList> = edge_lists()
        .into_iter()
        .filter(|l| !l.name.contains("twice"))
        .collect();
    compare(&lists);
}
