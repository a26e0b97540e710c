//! The `libmemcached-consistent` flavour (its `md5` hash) against PyPI
//! `libmc` 1.4.17 (douban's C++ client; installed into `target/pypi-peers`
//! by `scripts/deps.sh`), asked in the same run through
//! ketama-testkit/peers/libmc_peer.py: a `libmc.Client` of the same
//! servers, its default hash, `get_host_by_key` for every key. On 3, 10 and
//! 100 servers (every third on the default port 11211, which libmc, like
//! libmemcached, leaves out of its point labels), a server written without
//! its port, host names and one server; keys: 10,000 ASCII keys, tags,
//! UTF-8 text, control bytes, keys of 245 to 300 bytes, the point labels
//! (`host:port-j`, `host-j`) and keys past the last point.
//!
//! Not reproduced (libmc's own): a server alias (`'host:port name'`: libmc
//! hashes `name-j`), and `hash_fn` other than MD5 (libmc still hashes its
//! points with MD5, only keys with the chosen hash).

use ketama_testkit as common;
use ketama_testkit::peers::{self, PeerServer, ServerList, Weights};
use ketama_testkit::pypi_peers::pypi_python;
use ketama_testkit::redis_clients::{ask, text_keys};

use ketama_core::{Flavour, Ring, RingConfig};
use ketama_testkit::harness::{self, Case};

const FLAVOUR: Flavour = Flavour::LibmemcachedConsistent;

fn ring(list: &ServerList) -> Ring {
    let config = RingConfig::named(FLAVOUR, Some("md5"), Default::default()).unwrap();
    Ring::new(list.specs(), config).unwrap()
}

/// libmc's server strings: `host:port`, or `host` alone for the port 11211
/// when `bare_default` (what a user may write).
fn libmc_lines(list: &ServerList, bare_default: bool) -> String {
    list.servers
        .iter()
        .map(|s| match bare_default && s.port == 11211 {
            true => format!("{}\n", s.host),
            false => format!("{}\n", s.address()),
        })
        .collect()
}

fn lists() -> Vec<(ServerList, bool)> {
    let mut lists: Vec<(ServerList, bool)> = [3, 10, 100]
        .into_iter()
        .map(|n| (peers::servers(n, Weights::None), false))
        .collect();
    let mut bare = peers::servers(10, Weights::None);
    bare.name = "10 servers, the port 11211 left unwritten".into();
    lists.push((bare, true));
    let host = |host: &str, port: u16| PeerServer {
        host: host.into(),
        port,
        weight: None,
    };
    lists.push((
        ServerList {
            name: "host names".into(),
            servers: vec![
                host("cache-a.example", 11211),
                host("cache-b.example", 11300),
                host("mc3", 11211),
            ],
        },
        false,
    ));
    lists.push((
        ServerList {
            name: "1 server".into(),
            servers: peers::servers(1, Weights::None).servers,
        },
        false,
    ));
    lists
}

fn keys_for(list: &ServerList, ring: &Ring) -> Vec<Vec<u8>> {
    let mut keys = text_keys();
    keys.extend(peers::label_keys(list, 40));
    keys.extend(peers::past_last_point_keys(ring, 5));
    keys.retain(|k| std::str::from_utf8(k).is_ok());
    keys
}

#[test]
fn libmc_places_every_key_as_libmemcached_consistent_md5() {
    let python = pypi_python("libmc");
    let script = common::peer_program("libmc_peer.py");
    let all = lists();
    let table: Vec<Case<&(ServerList, bool)>> = all
        .iter()
        .map(|entry| {
            Case::new(
                entry.0.name.clone(),
                entry,
                keys_for(&entry.0, &ring(&entry.0)),
            )
        })
        .collect();
    let ask_libmc = |table: &[Case<&(ServerList, bool)>]| {
        let questions = harness::questions(table, |(list, bare)| libmc_lines(list, *bare));
        let (answers, said) = ask(
            "libmc",
            &[python.as_os_str(), script.as_os_str()],
            &questions,
        );
        print!("{said}");
        assert!(said.starts_with("libmc 1.4.17"), "unexpected libmc: {said}");
        answers
    };
    let compared = harness::compare(FLAVOUR.name(), &table, ask_libmc, |case| {
        ring(&case.input.0)
    });
    println!(
        "libmc 1.4.17 | {} lists | {compared} keys compared | 0 differing",
        all.len()
    );
    assert!(compared >= 6 * 10_000);
}
