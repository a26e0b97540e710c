//! The `redis-cluster` flavour against real Redis Clusters (Debian
//! `redis-server` and `redis-tools` 7.0), run live on loopback in the same
//! run (`ketama_testkit::redis_cluster`). Masters on several 127.0.0.x
//! addresses are made a cluster by `redis-cli --cluster create` (3, 10 and
//! 100 masters, listed host by host and mixed, so that its interleaving of
//! the hosts shows), and by slot assignments of random ranges with slots
//! moved and one left migrating. For every key a node names its slot
//! (`CLUSTER KEYSLOT`) and its master (a `GET` answered at home, or
//! redirected by `-MOVED`/`-ASK`); the library is asked with two rings: the
//! masters as listed to redis-cli (its create layout) and the cluster's own
//! `CLUSTER NODES` text read with the `redis-cluster-nodes` syntax. Keys:
//! every byte key of the other Redis peers (tags, 245 to 300 bytes, bytes
//! ≥ 0x80, control bytes, the empty key) and keys forged onto slot 0,
//! slot 16383 and each end of every master's ranges. Between the
//! cluster's `CLUSTER NODES` before and after slots are moved, `ketama
//! diff`'s exact measure (`analysis::movement`, slot by slot) names the
//! slots the cluster moved, no more.

use ketama_core::analysis::{Measure, movement};
use ketama_core::flavour::redis_cluster::key_slot;
use ketama_core::parser::{ParseMode, parse_server_file, peers as peer_lists};
use ketama_core::{Flavour, Ring, RingConfig, ServerSpec};
use ketama_testkit::harness;
use ketama_testkit::random::XorShift;
use ketama_testkit::redis_clients::byte_keys;
use ketama_testkit::redis_cluster::Cluster;

const FLAVOUR: Flavour = Flavour::RedisCluster;

/// The keys of every case, plus keys on the first and last slot of each
/// of `ranges`, on slots 0 and 16383 and on `also` (plain and inside a
/// `{tag}`).
fn keys_for(ranges: &[(u16, u16)], also: &[u16]) -> Vec<Vec<u8>> {
    let mut wanted: Vec<u16> = ranges.iter().flat_map(|&(a, b)| [a, b]).collect();
    wanted.extend([0, 16383]);
    wanted.extend(also);
    wanted.sort_unstable();
    wanted.dedup();
    let mut keys = byte_keys();
    keys.push(Vec::new());
    for n in 0u32.. {
        let key = format!("edge:{n}").into_bytes();
        if let Some(i) = wanted.iter().position(|&s| s == key_slot(&key)) {
            wanted.swap_remove(i);
            keys.push([b"{", &key[..], b"}:in-a-tag"].concat());
            keys.push(key);
        }
        if wanted.is_empty() {
            break;
        }
    }
    keys
}

/// The slot ranges each master serves, read from a `CLUSTER NODES` text,
/// by address.
fn ranges_of(nodes_text: &str) -> Vec<(String, Vec<(u16, u16)>)> {
    parse_server_file(nodes_text.as_bytes(), "nodes", ParseMode::RedisClusterNodes)
        .expect("the library reads CLUSTER NODES")
        .into_iter()
        .map(|s| {
            let ranges = String::from_utf8(s.name.unwrap())
                .unwrap()
                .split(' ')
                .map(|f| {
                    let mut ends = f.split('-').map(|n| n.parse::<u16>().unwrap());
                    let first = ends.next().unwrap();
                    (first, ends.next().unwrap_or(first))
                })
                .collect();
            (String::from_utf8(s.address).unwrap(), ranges)
        })
        .collect()
}

/// The library's answers, `(slot, master)`, the master numbered as the
/// cluster's nodes are.
fn ours(
    cluster: &Cluster,
    servers: Vec<ServerSpec>,
    keys: &[Vec<u8>],
) -> Vec<(u32, Option<usize>)> {
    let number: Vec<usize> = servers
        .iter()
        .map(|s| {
            let address = String::from_utf8_lossy(&s.address);
            cluster
                .nodes
                .iter()
                .position(|n| n.address() == address)
                .expect("a master of the cluster")
        })
        .collect();
    let ring = Ring::new(servers, RingConfig::flavour(FLAVOUR)).expect("the library's ring");
    keys.iter()
        .map(|key| {
            let at = ring.locate(key).expect("every slot has a master");
            (at.point, Some(number[at.server_index]))
        })
        .collect()
}

/// Compares every key (and keys on the slots `also`) through nodes `vias` with the library's ring of the
/// `CLUSTER NODES` text of node `text_of` and, for a cluster redis-cli created,
/// of the masters as listed to it. Returns the keys compared.
fn compare(
    name: &str,
    cluster: &Cluster,
    created: bool,
    text_of: usize,
    vias: &[usize],
    also: &[u16],
) -> usize {
    let text = cluster.nodes[text_of].cluster_nodes();
    let all: Vec<(u16, u16)> = ranges_of(&text).into_iter().flat_map(|(_, r)| r).collect();
    let keys = keys_for(&all, also);
    let nodes_ring = parse_server_file(text.as_bytes(), "nodes", ParseMode::RedisClusterNodes);
    let mut compared = 0;
    for &via in vias {
        let theirs = cluster.ask(via, &keys);
        let case = format!("{name}, CLUSTER NODES ring, asked via node {via}");
        let from_nodes = ours(cluster, nodes_ring.clone().unwrap(), &keys);
        compared += harness::report(FLAVOUR.name(), &case, &keys, &from_nodes, &theirs);
        if created {
            let listed: String = cluster.nodes.iter().map(|n| n.address() + "\n").collect();
            let servers = peer_lists::parse(listed.as_bytes(), "listed").unwrap();
            let case = format!("{name}, redis-cli's layout of the list, asked via node {via}");
            let from_list = ours(cluster, servers, &keys);
            compared += harness::report(FLAVOUR.name(), &case, &keys, &from_list, &theirs);
        }
    }
    compared
}

fn created(name: &str, ips: &[&str]) -> usize {
    let cluster = Cluster::start(name, ips);
    let said = cluster.create();
    assert!(said.contains("Master[0] -> Slots 0 - "), "{said}");
    compare(name, &cluster, true, 0, &[0, ips.len() - 1], &[])
}

#[test]
fn clusters_made_by_redis_cli_place_every_key_as_the_library_does() {
    let one = ["127.0.0.1"; 3];
    let hosts = [
        "127.0.0.1",
        "127.0.0.1",
        "127.0.0.1",
        "127.0.0.1",
        "127.0.0.2",
    ];
    let mut ten = hosts.to_vec();
    ten.extend([
        "127.0.0.2",
        "127.0.0.2",
        "127.0.0.3",
        "127.0.0.3",
        "127.0.0.3",
    ]);
    let ips = ["127.0.0.1", "127.0.0.2", "127.0.0.3", "127.0.0.4"];
    let hundred: Vec<&str> = (0..100).map(|i| ips[(i * 7 / 3 + i / 9) % 4]).collect();
    let mut compared = created("3 masters on one host", &one);
    compared += created("10 masters on 3 hosts, listed host by host", &ten);
    compared += created("100 masters on 4 hosts, mixed", &hundred);
    println!(
        "{} | redis-cli create | {compared} keys compared | 0 differing",
        FLAVOUR.name()
    );
    assert!(compared >= 12 * 10_000);
}

#[test]
fn hand_made_slot_maps_and_moved_slots_place_every_key_as_the_library_does() {
    let ips = ["127.0.0.1", "127.0.0.2", "127.0.0.3"];
    let nodes: Vec<&str> = (0..10).map(|i| ips[i % 3]).collect();
    let cluster = Cluster::start("hand-made", &nodes);
    // 60 ranges of random lengths, each given to a random master (every
    // master at least one).
    let mut rng = XorShift(0x0051_07c1);
    let mut cuts: Vec<u16> = (0..59).map(|_| 1 + rng.below(16383) as u16).collect();
    cuts.extend([0, 16384]);
    cuts.sort_unstable();
    cuts.dedup();
    let mut slots = vec![Vec::new(); nodes.len()];
    for (i, pair) in cuts.windows(2).enumerate() {
        let owner = if i < nodes.len() {
            i
        } else {
            rng.below(nodes.len())
        };
        slots[owner].push((pair[0], pair[1] - 1));
    }
    cluster.assign(&slots);
    let mut compared = compare(
        "10 masters, 60 random ranges",
        &cluster,
        false,
        0,
        &[0, 9],
        &[],
    );
    // Slots moved to other masters (one of them the last slot), and one
    // left migrating: `[slot->-id]` on its source, `[slot-<-id]` on its
    // target, still served by its source.
    let owner_of = |slot: u16| {
        slots
            .iter()
            .position(|r| r.iter().any(|&(a, b)| a <= slot && slot <= b))
            .unwrap()
    };
    let before = nodes_ring(&cluster, 0);
    let mut flows: std::collections::BTreeMap<(String, String), f64> = Default::default();
    for slot in [16383, 1, 777, 5000, 12345] {
        let from = owner_of(slot);
        let to = (from + 1) % nodes.len();
        cluster.move_slot(slot, from, to, false);
        let pair = (cluster.nodes[from].address(), cluster.nodes[to].address());
        *flows.entry(pair).or_default() += 1.0 / 16384.0;
    }
    let open = 9999;
    cluster.move_slot(
        open,
        owner_of(open),
        (owner_of(open) + 4) % nodes.len(),
        true,
    );
    cluster.wait_until_ok();
    wait_for_moves(&cluster, &[16383, 1, 777, 5000, 12345]);
    let source = owner_of(open);
    let text = cluster.nodes[source].cluster_nodes();
    assert!(text.contains(&format!("[{open}->-")), "{text}");
    // What moved, measured slot by slot between the two CLUSTER NODES
    // texts, is what the cluster was told to move (the migrating slot is
    // still its source's).
    let m = movement(&before, &nodes_ring(&cluster, source));
    assert_eq!(m.measure, Measure::Exact);
    assert_eq!(m.moved, 5.0 / 16384.0);
    let measured: std::collections::BTreeMap<(String, String), f64> = m
        .flows
        .iter()
        .map(|(from, to, share)| {
            let text = |a: &[u8]| String::from_utf8(a.to_vec()).unwrap();
            ((text(from), text(to)), *share)
        })
        .collect();
    assert_eq!(measured, flows);
    let name = "10 masters, 5 slots moved, 1 migrating";
    compared += compare(name, &cluster, false, source, &[0, source, 9], &[open]);
    println!(
        "{} | hand-made maps | {compared} keys compared | 0 differing",
        FLAVOUR.name()
    );
}

/// The library's ring of node `of`'s `CLUSTER NODES` text.
fn nodes_ring(cluster: &Cluster, of: usize) -> Ring {
    let text = cluster.nodes[of].cluster_nodes();
    let servers = parse_server_file(text.as_bytes(), "nodes", ParseMode::RedisClusterNodes);
    Ring::new(servers.unwrap(), RingConfig::flavour(FLAVOUR)).unwrap()
}

/// Waits until node 0's view and every other node's agree on the moved
/// slots (the new owners bumped their epochs; gossip carries them).
fn wait_for_moves(cluster: &Cluster, moved: &[u16]) {
    let keys: Vec<Vec<u8>> = moved
        .iter()
        .map(|&slot| {
            (0u32..)
                .map(|n| format!("moved:{n}").into_bytes())
                .find(|k| key_slot(k) == slot)
                .unwrap()
        })
        .collect();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        let views: Vec<_> = (0..cluster.nodes.len())
            .map(|v| cluster.ask(v, &keys))
            .collect();
        if views.windows(2).all(|w| w[0] == w[1]) {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the moves did not spread: {views:?}"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

#[test]
fn bad_slot_maps_are_refused_with_the_server_named() {
    let ring = |text: &str| {
        let servers = peer_lists::parse(text.as_bytes(), "servers").unwrap();
        Ring::new(servers, RingConfig::flavour(FLAVOUR)).map(|_| ())
    };
    let gap = ring("10.0.0.1:6379 0-100\n10.0.0.2:6379 200-16383\n").unwrap_err();
    assert!(
        gap.to_string()
            .contains("slots 101-199 are served by no master"),
        "{gap}"
    );
    let twice = ring("10.0.0.1:6379 0-16383\n10.0.0.2:6379 7\n").unwrap_err();
    assert!(
        twice.to_string().contains("slot 7 is served by both"),
        "{twice}"
    );
    let weighted = ring("10.0.0.1:6379:2\n10.0.0.2:6379\n10.0.0.3:6379\n");
    assert!(weighted.is_err());
}
