//! The `dalli` flavour against Ruby dalli itself (Debian `ruby-dalli`), asked
//! in the same run through ketama-testkit/peers/dalli_peer.rb: the client parses the
//! same server strings, prepares each key (`KeyManager#validate_key`) and
//! `Dalli::Ring` places it. The whole continuum and every key must equal the
//! library's, on 3, 10 and 100 servers, unweighted, equal and unequal
//! weights, with ASCII, non-ASCII (valid UTF-8 and not), control-byte and
//! over-long keys.

use ketama_core::parser::peers as peer_lists;
use ketama_core::{Flavour, Ring, RingConfig};
use ketama_testkit::harness::{self, Answer, Case};
use ketama_testkit::peer_programs::dalli_answers;
use ketama_testkit::peers::{ServerList, keys, non_ascii_keys, odd_keys, standard_lists};

/// Server strings as dalli users write them: `host:port[:weight]`, `[v6]:port`.
fn strings(list: &ServerList) -> String {
    list.servers
        .iter()
        .map(|s| match s.weight {
            Some(w) => format!("{}:{w}\n", s.address()),
            None => format!("{}\n", s.address()),
        })
        .collect()
}

/// The keys: 10,000 ASCII keys, non-ASCII keys (valid UTF-8 and not),
/// control bytes, long ASCII and multi-byte keys around dalli's 250
/// characters, and the point labels of the first servers.
fn dalli_keys(lines: &str) -> Vec<Vec<u8>> {
    let mut keys = keys();
    keys.extend(non_ascii_keys());
    keys.extend(odd_keys().into_iter().filter(|k| !k.is_empty()));
    for n in [212, 249, 250, 251, 300] {
        keys.push("é".repeat(n).into_bytes());
        keys.push(format!("{}鍵", "k".repeat(n)).into_bytes());
        let mut broken = vec![0xe3u8; n];
        broken.push(b'!');
        keys.push(broken);
    }
    for line in lines.lines().take(10) {
        let list = peer_lists::parse(line.as_bytes(), "line").unwrap();
        let name = ketama_core::flavour::dalli::server_name(&list[0].address).unwrap();
        let name = String::from_utf8(name).unwrap();
        keys.extend((0..20).map(|i| format!("{name}:{i}").into_bytes()));
    }
    keys
}

fn ring(lines: &str) -> Ring {
    let servers = peer_lists::parse(lines.as_bytes(), "servers").unwrap();
    Ring::new(servers, RingConfig::flavour(Flavour::Dalli)).unwrap()
}

/// Asks dalli about each case (its server strings) and compares continuum
/// and keys through the harness; returns the number of keys compared.
fn compare(cases: &[(String, String)]) -> usize {
    let table: Vec<Case<&str>> = cases
        .iter()
        .map(|(name, lines)| Case::new(name.as_str(), lines.as_str(), dalli_keys(lines)))
        .collect();
    harness::compare(
        Flavour::Dalli.name(),
        &table,
        |table| {
            let asked = harness::questions(table, |lines| lines.to_string());
            dalli_answers(&asked)
                .into_iter()
                .map(Answer::from)
                .collect()
        },
        |case| ring(case.input),
    )
}

#[test]
fn dalli_ring_places_every_key_as_the_library_does() {
    let cases: Vec<(String, String)> = standard_lists()
        .iter()
        .map(|l| (l.name.clone(), strings(l)))
        .collect();
    let compared = compare(&cases);
    assert!(compared >= 9 * 10_000);
    println!("{} cases, {compared} keys, 0 differences", cases.len());
}

#[test]
fn ipv6_hostnames_and_default_ports_are_named_as_dalli_names_them() {
    let lines = "[::1]:11211\n[2001:db8::10]:11300:3\ncache-a.example:11211\ncache-b.example\n10.0.0.9:22122:2\n";
    compare(&[("IPv6, host names, no port".into(), lines.into())]);
}
