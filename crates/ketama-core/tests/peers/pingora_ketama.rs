//! The `nginx` flavour against crates.io `pingora-ketama` 0.9 (Cloudflare's
//! Rust port of nginx's `hash $key consistent`, a dev dependency asked in
//! process): for every key, `Continuum::node` must name the server the
//! library places the key on. Lists: 3, 10 and 100 servers, unweighted,
//! equal and unequal weights (`Bucket::new(addr, weight)`, a missing
//! weight 1 as in nginx), one server, IPv6 literals. pingora-ketama hashes
//! an IPv6 server as `::1` and its port where nginx hashes the text
//! `[::1]` (the server as written, up to its last colon): the library
//! places like pingora-ketama when the address is written without
//! brackets (`::1:11211`), and that is what is compared. Keys: the 10,000
//! ASCII keys, bytes ≥ 0x80, control bytes, keys of 245 to 300 bytes, and
//! keys forged onto points of the ring, one below and above them, onto 0
//! and `u32::MAX` (across the wrap-around).

use ketama_core::{Flavour, Ring, RingConfig};
use ketama_testkit::harness::report;
use ketama_testkit::peers::{self, PeerServer, ServerList, Weights};
use ketama_testkit::redis_clients::{forged_keys, list_with_ties, some_points};
use pingora_ketama::{Bucket, Continuum};

const FLAVOUR: Flavour = Flavour::Nginx;

/// Compares every key on `list` (our addresses without IPv6 brackets when
/// `unbracketed`); returns the keys compared.
fn compare(list: &ServerList, unbracketed: bool) -> usize {
    compare_keys(list, unbracketed, &[])
}

/// [`compare`] with keys forged onto the points `also` too.
fn compare_at(list: &ServerList, also: &[u32]) -> usize {
    compare_keys(list, false, also)
}

fn compare_keys(list: &ServerList, unbracketed: bool, also: &[u32]) -> usize {
    let mut specs = list.specs();
    if unbracketed {
        for (spec, server) in specs.iter_mut().zip(&list.servers) {
            spec.address = format!("{}:{}", server.host, server.port).into_bytes();
        }
    }
    let ring = Ring::new(specs, RingConfig::flavour(FLAVOUR)).unwrap();
    let buckets: Vec<Bucket> = list
        .servers
        .iter()
        .map(|s| {
            let weight = s.weight.unwrap_or(1) as u32;
            Bucket::new(s.address().parse().expect("a socket address"), weight)
        })
        .collect();
    let theirs = Continuum::new(&buckets);
    let mut keys = peers::keys();
    keys.extend(peers::non_ascii_keys());
    keys.extend(peers::odd_keys());
    keys.extend(forged_keys(&some_points(&ring, 500), false));
    keys.extend(forged_keys(also, false));
    let ours = peers::our_indices(&ring, &keys);
    let addresses: Vec<String> = list.servers.iter().map(PeerServer::address).collect();
    let answers: Vec<usize> = keys
        .iter()
        .map(|k| {
            let node = theirs.node(k).expect("a node").to_string();
            addresses
                .iter()
                .position(|a| *a == node)
                .expect("a listed server")
        })
        .collect();
    report(FLAVOUR.name(), &list.name, &keys, &ours, &answers)
}

#[test]
fn pingora_ketama_places_every_key_as_the_nginx_flavour() {
    let mut lists = peers::standard_lists();
    lists.push(ServerList {
        name: "1 server".into(),
        servers: peers::servers(1, Weights::None).servers,
    });
    let v6 = |host: &str, port: u16, weight: Option<u64>| PeerServer {
        host: host.into(),
        port,
        weight,
    };
    let mut compared: usize = lists.iter().map(|list| compare(list, false)).sum();
    let v6_list = ServerList {
        name: "IPv6 literals, written without brackets".into(),
        servers: vec![
            v6("::1", 11211, None),
            v6("2001:db8::10", 11300, Some(2)),
            v6("fe80::1:2", 8080, None),
        ],
    };
    compared += compare(&v6_list, true);
    lists.push(v6_list);
    // Two servers sharing a point: the tie rule decides who holds it.
    let (hosts, shared) = list_with_ties(FLAVOUR);
    let tied = ServerList {
        name: format!("2 servers sharing a point ({} shared)", shared.len()),
        servers: hosts
            .iter()
            .map(|h| {
                let (host, port) = h.rsplit_once(':').unwrap();
                PeerServer {
                    host: host.into(),
                    port: port.parse().unwrap(),
                    weight: None,
                }
            })
            .collect(),
    };
    compared += compare_at(&tied, &shared);
    lists.push(tied);
    println!(
        "{} | pingora-ketama 0.9.1 | {} lists | {compared} keys compared | 0 differing",
        FLAVOUR.name(),
        lists.len()
    );
    assert!(compared >= 11 * 10_000);
}
