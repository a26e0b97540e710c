//! The `memcached-fast` flavour against Perl Cache::Memcached::Fast 0.28
//! (Debian `libcache-memcached-fast-perl`), whose placement lives in its XS
//! code: 100 real memcached servers on 127.0.0.1 (started and stopped by
//! this test, by PID) receive every key through the Perl client with
//! `ketama_points => 150` and other counts (`--points`;
//! ketama-testkit/peers/memcached_fast_peer.pl), and
//! `lru_crawler metadump all` on each server then shows where each key went.
//! That must be the library's server for it, on 3, 10 and 100 servers,
//! unweighted, equal and unequal weights, ASCII and non-ASCII keys, and
//! with 1, 7, 160 and 400 points on 10 weighted servers. Each
//! configuration's keys carry their own prefix (`cN:`), so all of them share
//! the servers.

use ketama_testkit as common;
use ketama_testkit::harness::report;
use ketama_testkit::peers;

use std::collections::HashMap;
use std::process::Command;
use std::time::Duration;

use common::Memcached;
use ketama_core::{Flavour, Options, Ring, RingConfig, ServerSpec};
use peers::{Weights, keys, non_ascii_keys, our_indices};

#[test]
fn cache_memcached_fast_stores_each_key_where_the_library_places_it() {
    let probe = Command::new("perl")
        .args(["-MCache::Memcached::Fast", "-e", "1"])
        .output()
        .expect("run perl");
    assert!(
        probe.status.success(),
        "Perl cannot load Cache::Memcached::Fast: run `make deps` (Debian package libcache-memcached-fast-perl)"
    );
    let servers: Vec<Memcached> = (0..100).map(|_| Memcached::start_with(16, &[])).collect();
    let dir = common::scratch_dir("memcached-fast-cases");
    let mut cases = Vec::new();
    // ketama_points 150 (the default) on every list, and other counts
    // (`--points`) on 10 unequally weighted servers.
    let configurations = [3, 10, 100]
        .into_iter()
        .flat_map(|n| [Weights::None, Weights::Equal, Weights::Unequal].map(|w| (n, w, 150)))
        .chain([1, 7, 160, 400].map(|points| (10, Weights::Unequal, points)));
    for (n, w, points) in configurations {
        let list = peers::servers(n, w);
        let case = cases.len();
        let specs: Vec<ServerSpec> = servers[..n]
            .iter()
            .zip(&list.servers)
            .map(|(m, s)| ServerSpec {
                address: m.address().into_bytes(),
                weight: s.weight,
                name: None,
            })
            .collect();
        let mut case_keys = keys();
        case_keys.extend(non_ascii_keys());
        let case_keys: Vec<Vec<u8>> = case_keys
            .into_iter()
            .map(|k| [format!("c{case}:").into_bytes(), k].concat())
            .collect();
        let case_dir = dir.join(format!("case{case}"));
        std::fs::create_dir_all(&case_dir).unwrap();
        let lines: String = specs
            .iter()
            .map(|s| {
                let address = String::from_utf8_lossy(&s.address);
                match s.weight {
                    Some(w) => format!("{address}\t{w}\n"),
                    None => format!("{address}\n"),
                }
            })
            .collect();
        std::fs::write(case_dir.join("servers"), lines).unwrap();
        std::fs::write(case_dir.join("points"), points.to_string()).unwrap();
        peers::write_keys(&case_dir.join("keys"), &case_keys);
        let name = format!("{} ketama_points={points}", list.name);
        cases.push((name, case_dir, specs, case_keys, points));
    }
    let script = common::peer_program("memcached_fast_peer.pl");
    let output = common::run_with_timeout(
        Command::new("perl")
            .arg(&script)
            .args(cases.iter().map(|c| &c.1)),
        Duration::from_secs(600),
    );
    assert!(
        output.status.success(),
        "memcached_fast_peer.pl failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    // Where each key is stored.
    let mut held: HashMap<Vec<u8>, usize> = HashMap::new();
    for (index, server) in servers.iter().enumerate() {
        for key in server.keys_held() {
            assert!(
                held.insert(key.clone(), index).is_none(),
                "key {:?} is on two servers",
                String::from_utf8_lossy(&key)
            );
        }
    }
    let mut compared = 0;
    for (name, _, specs, case_keys, points) in &cases {
        let mut config = RingConfig::flavour(Flavour::MemcachedFast);
        if *points != 150 {
            config.options = Options::parse(&format!("points={points}")).unwrap();
        }
        let ring = Ring::new(specs.clone(), config).unwrap();
        let peer: Vec<usize> = case_keys
            .iter()
            .map(|k| {
                *held.get(k).unwrap_or_else(|| {
                    panic!(
                        "{name}: key {:?} is on no server",
                        String::from_utf8_lossy(k)
                    )
                })
            })
            .collect();
        compared += report(
            Flavour::MemcachedFast.name(),
            name,
            case_keys,
            &our_indices(&ring, case_keys),
            &peer,
        );
    }
    assert!(compared >= 13 * 10_000);
    println!(
        "{} configurations, {compared} keys, 0 differences",
        cases.len()
    );
}
