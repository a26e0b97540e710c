//! The `rust-memcache` flavour against the crates.io `memcache` client
//! itself (the version `ketama-testkit` depends on, 0.21): a
//! `memcache::Client` over real memcached servers on 127.0.0.1 (started and
//! stopped by this test, by PID) stores every key through `Client::set`,
//! and `lru_crawler metadump all` on each server then shows where it went.
//! That must be the library's server for it, on 3, 10 and 100 servers,
//! with and without weights (the client has none: the library ignores
//! them), and one server; keys: 10,000 ASCII keys, UTF-8 text with bytes
//! ≥ 0x80, control bytes and blanks (the client speaks the binary
//! protocol), up to 250 bytes; longer keys the client refuses before
//! placing them. A server stopped after the client connected takes its
//! keys down with it (no failover): exactly the keys `Ring::locate_live`
//! gives no server.
//! Each configuration's keys carry their own prefix (`cN:`), so all of
//! them share the servers.

use ketama_testkit as common;
use ketama_testkit::harness::report;
use ketama_testkit::peers;
use ketama_testkit::rust_memcache::{Client, Stored, store};

use std::collections::HashMap;
use std::time::Duration;

use common::Memcached;
use ketama_core::{Flavour, Ring, RingConfig, ServerSpec};
use peers::{Weights, keys, non_ascii_keys, odd_keys};

/// Keys the client takes (`&str`): the standard keys, the non-ASCII keys
/// that are UTF-8, the odd keys, a key of exactly 250 bytes once prefixed.
fn utf8_keys(prefix: &str) -> Vec<Vec<u8>> {
    let mut all = keys();
    all.extend(non_ascii_keys());
    all.extend(odd_keys());
    let mut keys: Vec<Vec<u8>> = all
        .into_iter()
        .filter(|k| std::str::from_utf8(k).is_ok())
        .map(|k| [prefix.as_bytes(), &k].concat())
        .collect();
    keys.push([prefix.as_bytes(), &vec![b'z'; 250 - prefix.len()]].concat());
    keys
}

fn urls(servers: &[Memcached]) -> Vec<String> {
    servers
        .iter()
        .map(|m| format!("memcache://{}", m.address()))
        .collect()
}

fn ring(addresses: &[String], weights: Weights) -> Ring {
    let list = peers::servers(addresses.len(), weights);
    let specs: Vec<ServerSpec> = addresses
        .iter()
        .zip(&list.servers)
        .map(|(address, s)| ServerSpec {
            address: address.clone().into_bytes(),
            weight: s.weight,
            name: None,
        })
        .collect();
    Ring::new(specs, RingConfig::flavour(Flavour::RustMemcache)).unwrap()
}

#[test]
fn the_crate_stores_each_key_where_the_library_places_it() {
    let servers: Vec<Memcached> = (0..100).map(|_| Memcached::start_with(16, &[])).collect();
    let urls = urls(&servers);
    let configurations: Vec<(usize, Weights)> = [3, 10, 100]
        .into_iter()
        .flat_map(|n| [Weights::None, Weights::Equal, Weights::Unequal].map(|w| (n, w)))
        .chain([(1, Weights::None)])
        .collect();
    let mut cases = Vec::new();
    for (case, &(n, weights)) in configurations.iter().enumerate() {
        let prefix = format!("c{case}:");
        let keys = utf8_keys(&prefix);
        let answers = store(&urls[..n], &keys);
        let mut stored = Vec::new();
        for (key, answer) in keys.iter().zip(answers) {
            match answer {
                Stored::Stored => stored.push(key.clone()),
                Stored::Failed(error) => assert!(
                    key.len() > 250,
                    "the client refused the {}-byte key {:?}: {error}",
                    key.len(),
                    String::from_utf8_lossy(key)
                ),
            }
        }
        let refused = keys.len() - stored.len();
        assert!(refused >= 50, "only {refused} keys over 250 bytes refused");
        cases.push((
            format!(
                "{} ({refused} longer keys refused)",
                peers::servers(n, weights).name
            ),
            n,
            weights,
            stored,
        ));
    }
    let mut held: HashMap<Vec<u8>, usize> = HashMap::new();
    for (index, server) in servers.iter().enumerate() {
        for key in server.keys_held() {
            assert!(held.insert(key, index).is_none(), "a key on two servers");
        }
    }
    let mut compared = 0;
    for (name, n, weights, keys) in &cases {
        let ring = ring(&urls[..*n], *weights);
        let ours: Vec<usize> = keys
            .iter()
            .map(|k| ring.locate(k).unwrap().server_index)
            .collect();
        let theirs: Vec<usize> = keys
            .iter()
            .map(|k| {
                *held.get(k).unwrap_or_else(|| {
                    panic!("{name}: {:?} is on no server", String::from_utf8_lossy(k))
                })
            })
            .collect();
        compared += report(Flavour::RustMemcache.name(), name, keys, &ours, &theirs);
    }
    assert!(compared >= 10 * 10_000);
    println!(
        "{} configurations, {compared} keys, 0 differences",
        cases.len()
    );
}

#[test]
fn a_server_that_does_not_answer_fails_its_keys_without_failover() {
    let mut servers: Vec<Memcached> = (0..5).map(|_| Memcached::start_with(16, &[])).collect();
    let urls = urls(&servers);
    // The client connects to every server while it is built; the fifth
    // is stopped afterwards and refuses every connection from then on.
    let client = Client::new(&urls, Duration::from_millis(100));
    servers[4].kill9();
    let keys: Vec<Vec<u8>> = keys()[..1_000].to_vec();
    let answers = client.store(&keys);
    let ring = ring(&urls, Weights::None);
    let ours: Vec<bool> = keys
        .iter()
        .map(|k| ring.locate_live(k, |s| s == 4).is_ok())
        .collect();
    let theirs: Vec<bool> = answers.iter().map(|a| *a == Stored::Stored).collect();
    let failed = theirs.iter().filter(|s| !**s).count();
    assert!(failed > 100, "only {failed} keys failed");
    report(
        Flavour::RustMemcache.name(),
        "5 servers, the fifth stopped: stored or failed",
        &keys,
        &ours,
        &theirs,
    );
}
