//! The `memjs` flavour against npm `memjs` 1.3.2 itself (installed into
//! target/memjs-peer by `make deps`), asked in the same run through
//! ketama-testkit/peers/memjs_peer.js: `Client.create(servers, { failover: true })`
//! and its own `server(key)` for every key, on 3, 10 and 100 servers (memjs
//! has no weights: weighted lists are given to it as plain lists), a server
//! listed twice and host names; 10,000 ASCII keys plus non-ASCII (valid and
//! invalid UTF-8, read by Node as the library reads them), control-byte and
//! long keys, and keys whose `hashCode` is `-2^31` (its `Math.abs` stays
//! `2^31`). With servers marked failed (`wakeupAt` ahead, as the client
//! marks them) its walk to the next server must match `Ring::locate_live`.

use ketama_testkit as common;
use ketama_testkit::peer_programs;
use ketama_testkit::peers;

use std::path::PathBuf;

use ketama_core::hash::HashAlgorithm;
use ketama_core::{Flavour, Ring, RingConfig};
use peer_programs::compare_per_key;
use peers::{ServerList, Weights, edge_lists, keys, non_ascii_keys, odd_keys, servers};

/// Keys whose Java `hashCode` is `-2^31`.
const MIN_HASH_KEYS: [&str; 3] = ["polygenelubricants", "GydZG_", "DESIGNING WORKHOUSES"];

fn all_keys() -> Vec<Vec<u8>> {
    let mut keys = keys();
    keys.extend(non_ascii_keys());
    keys.extend(odd_keys());
    keys.extend(MIN_HASH_KEYS.iter().map(|k| k.as_bytes().to_vec()));
    keys
}

fn compare(cases: &[(ServerList, Vec<usize>)]) -> usize {
    common::require_tool("node", "nodejs");
    let modules = common::repo_root().join("target/memjs-peer/node_modules");
    assert!(
        modules.join("memjs/package.json").exists(),
        "npm memjs is not installed in {modules:?}: run `make deps`"
    );
    // The script finds memjs through NODE_PATH, set for the peer alone.
    let script = common::peer_program("memjs_peer.js");
    let node = PathBuf::from("env");
    let node_path = format!("NODE_PATH={}", modules.display());
    compare_per_key(
        "memjs",
        &[
            node.as_os_str(),
            node_path.as_ref(),
            "node".as_ref(),
            script.as_os_str(),
        ],
        |list| list.servers.iter().map(|s| s.address() + "\n").collect(),
        |list| Ring::new(list.specs(), RingConfig::flavour(Flavour::Memjs)).unwrap(),
        cases,
        &all_keys(),
    )
}

#[test]
fn server_places_every_key_as_the_library_does() {
    for key in MIN_HASH_KEYS {
        assert_eq!(HashAlgorithm::SpyNative.hash(key.as_bytes()), 0x8000_0000);
    }
    let mut lists = peers::standard_lists();
    lists.push(servers(7, Weights::None));
    // memjs reads `host:port` by splitting at ':': no IPv6 literals.
    lists.extend(
        edge_lists()
            .into_iter()
            .filter(|l| !l.name.contains("IPv6")),
    );
    let cases: Vec<(ServerList, Vec<usize>)> = lists.into_iter().map(|l| (l, vec![])).collect();
    let compared = compare(&cases);
    assert!(compared >= cases.len() * 10_000);
    println!("{} lists, {compared} keys, 0 differences", cases.len());
}

#[test]
fn a_failed_server_sends_its_keys_to_the_next_one() {
    let cases = vec![
        (servers(10, Weights::None), vec![3]),
        (servers(10, Weights::None), vec![9, 0, 1]),
        (servers(10, Weights::None), vec![0, 1, 2, 4, 6, 8]),
        (servers(100, Weights::None), (0..95).collect()),
        (servers(3, Weights::None), vec![0, 1, 2]),
    ];
    compare(&cases);
}
