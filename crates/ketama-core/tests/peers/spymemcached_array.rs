//! The `spymemcached-array` flavour against the real spymemcached 2.12.3
//! (Debian `libspymemcached-java`), in the same run:
//!
//! * the locator `DefaultConnectionFactory` builds (`createLocator`, an
//!   `ArrayModNodeLocator`) over stand-in nodes, asked `getPrimary` for
//!   every key (ketama-testkit/peers/SpyPeer.java `array`), with every
//!   `DefaultHashAlgorithm`, on 3, 10 and 100 servers (weighted lists too:
//!   spymemcached has no weights), a server listed twice, IPv6 and host
//!   names, 10,000 ASCII keys plus non-ASCII, control-byte and long keys,
//!   and keys whose `hashCode` is `-2^31`;
//! * a real `MemcachedClient` with `DefaultConnectionFactory` storing keys
//!   into memcached servers on 127.0.0.1 while some of its servers accept no
//!   connection (SpyPeer `live`): its `Redistribute` failure mode moves
//!   their keys along `getSequence`, and `lru_crawler metadump` on each
//!   server shows where every key went, which must be the library's
//!   `Ring::locate_live` with the same servers down.

use ketama_testkit as common;
use ketama_testkit::harness::report;
use ketama_testkit::peer_programs;
use ketama_testkit::peers;

use std::collections::HashMap;
use std::ffi::OsStr;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use common::Memcached;
use ketama_core::hash::HashAlgorithm;
use ketama_core::{Flavour, Ring, RingConfig, ServerSpec};
use peer_programs::{compare_per_key, java_hash_name, spy_classpath};
use peers::{ServerList, Weights, edge_lists, keys, non_ascii_keys, odd_keys};

const FLAVOUR: Flavour = Flavour::SpymemcachedArray;

/// Keys whose Java `hashCode` is `-2^31` (`2^31` once masked to 32 bits).
const MIN_HASH_KEYS: [&str; 3] = ["polygenelubricants", "GydZG_", "DESIGNING WORKHOUSES"];

fn ring(list: &ServerList, hash: HashAlgorithm) -> Ring {
    let config = RingConfig::new(FLAVOUR, Some(hash));
    Ring::new(list.specs(), config).unwrap()
}

#[test]
fn array_mod_locator_places_every_key_as_the_library_does() {
    assert_eq!(FLAVOUR.default_hash(), HashAlgorithm::SpyNative);
    let mut keys = keys();
    // Java keys are Strings: only valid UTF-8 has a Java counterpart.
    keys.extend(
        non_ascii_keys()
            .into_iter()
            .chain(odd_keys())
            .filter(|k| std::str::from_utf8(k).is_ok()),
    );
    keys.extend(MIN_HASH_KEYS.iter().map(|k| k.as_bytes().to_vec()));
    let classpath = spy_classpath();
    for &hash in FLAVOUR.hashes() {
        let lists: Vec<ServerList> = if hash == HashAlgorithm::SpyNative {
            peers::standard_lists()
                .into_iter()
                .chain(edge_lists())
                .collect()
        } else {
            vec![
                peers::servers(3, Weights::None),
                peers::servers(10, Weights::Unequal),
                peers::servers(100, Weights::None),
            ]
        };
        let cases: Vec<(ServerList, Vec<usize>)> = lists.into_iter().map(|l| (l, vec![])).collect();
        let compared = compare_per_key(
            &format!("spymemcached-array-{}", java_hash_name(hash)),
            &[
                OsStr::new("java"),
                OsStr::new("-Dfile.encoding=UTF-8"),
                OsStr::new("-cp"),
                OsStr::new(classpath),
                OsStr::new("SpyPeer"),
                OsStr::new("array"),
                OsStr::new(java_hash_name(hash)),
            ],
            |list| list.servers.iter().map(|s| s.address() + "\n").collect(),
            |list| ring(list, hash),
            &cases,
            &keys,
        );
        assert!(compared >= cases.len() * 10_000);
    }
}

/// A loopback port bound but never listening: a connection to it is
/// refused, and no other process can take the port while this lives.
struct ClosedPort {
    fd: i32,
    port: u16,
}

impl ClosedPort {
    fn new() -> ClosedPort {
        // SAFETY: plain socket calls on a zeroed sockaddr_in of the right
        // size; the descriptor is owned here and closed on drop.
        unsafe {
            let fd = libc::socket(libc::AF_INET, libc::SOCK_STREAM, 0);
            assert!(fd >= 0, "socket");
            let mut addr: libc::sockaddr_in = std::mem::zeroed();
            addr.sin_family = libc::AF_INET as libc::sa_family_t;
            addr.sin_addr.s_addr = u32::from_ne_bytes([127, 0, 0, 1]);
            let len = std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t;
            let bound = libc::bind(fd, (&raw const addr).cast(), len);
            assert_eq!(bound, 0, "bind 127.0.0.1:0");
            let mut len = len;
            let named = libc::getsockname(fd, (&raw mut addr).cast(), &mut len);
            assert_eq!(named, 0, "getsockname");
            ClosedPort {
                fd,
                port: u16::from_be(addr.sin_port),
            }
        }
    }
}

impl Drop for ClosedPort {
    fn drop(&mut self) {
        // SAFETY: our own descriptor, closed once.
        unsafe { libc::close(self.fd) };
    }
}

/// One pool for the live client: each entry a live server (`Some(index)`
/// into the running memcacheds) or a closed port (`None`).
struct LiveCase {
    entries: Vec<Option<usize>>,
    hash: HashAlgorithm,
}

#[test]
fn a_real_client_redistributes_keys_of_unreachable_servers_as_the_library_does() {
    let live: Vec<Memcached> = (0..8).map(|_| Memcached::start_with(16, &[])).collect();
    let closed: Vec<ClosedPort> = (0..3).map(|_| ClosedPort::new()).collect();
    let cases = [
        // 10 servers, 3 unreachable (one of them the last: the walk wraps).
        LiveCase {
            entries: vec![
                Some(0),
                Some(1),
                None,
                Some(2),
                Some(3),
                None,
                Some(4),
                Some(5),
                Some(6),
                None,
            ],
            hash: HashAlgorithm::SpyNative,
        },
        LiveCase {
            entries: vec![Some(7), None, Some(0)],
            hash: HashAlgorithm::SpyNative,
        },
        LiveCase {
            entries: vec![None, Some(1), Some(2), Some(3), None, Some(4), None],
            hash: HashAlgorithm::Crc,
        },
    ];
    let dir = common::scratch_dir("spymemcached-array-live");
    let mut expected: HashMap<Vec<u8>, String> = HashMap::new();
    let mut all_keys = Vec::new();
    for (n, case) in cases.iter().enumerate() {
        let mut closed_ports = closed.iter();
        let addresses: Vec<String> = case
            .entries
            .iter()
            .map(|e| match e {
                Some(i) => live[*i].address(),
                None => format!("127.0.0.1:{}", closed_ports.next().unwrap().port),
            })
            .collect();
        let down: Vec<usize> = (0..addresses.len())
            .filter(|&i| case.entries[i].is_none())
            .collect();
        let case_keys: Vec<Vec<u8>> = keys()
            .into_iter()
            .chain(
                non_ascii_keys()
                    .into_iter()
                    .filter(|k| std::str::from_utf8(k).is_ok()),
            )
            .chain(MIN_HASH_KEYS.iter().map(|k| k.as_bytes().to_vec()))
            .map(|k| [format!("c{n}:").into_bytes(), k].concat())
            .filter(|k| !k.contains(&b' '))
            .collect();
        let specs: Vec<ServerSpec> = addresses
            .iter()
            .map(|a| ServerSpec::unweighted(a.as_str()))
            .collect();
        let ring = Ring::new(specs, RingConfig::new(FLAVOUR, Some(case.hash))).unwrap();
        for key in &case_keys {
            let at = ring.locate_live(key, |s| down.contains(&s)).unwrap();
            expected.insert(key.clone(), addresses[at.server_index].clone());
        }
        let files = [
            ("servers", addresses.join("\n") + "\n"),
            ("down", { down.iter().map(|d| format!("{d}\n")).collect() }),
        ];
        let case_dir = dir.join(format!("case{n}"));
        std::fs::create_dir_all(&case_dir).unwrap();
        for (name, text) in files {
            std::fs::write(case_dir.join(name), text).unwrap();
        }
        peers::write_keys(&case_dir.join("keys"), &case_keys);
        let output = common::run_with_timeout(
            Command::new("java")
                .args([
                    "-Dfile.encoding=UTF-8",
                    "-cp",
                    spy_classpath(),
                    "SpyPeer",
                    "live",
                ])
                .arg(java_hash_name(case.hash))
                .args(["servers", "down", "keys"].map(|f| case_dir.join(f)))
                .current_dir(Path::new("/")),
            Duration::from_secs(300),
        );
        assert!(
            output.status.success(),
            "SpyPeer live failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        all_keys.extend(case_keys);
    }
    let mut held: HashMap<Vec<u8>, String> = HashMap::new();
    for server in &live {
        for key in server.keys_held() {
            let previous = held.insert(key.clone(), server.address());
            assert!(
                previous.is_none(),
                "{:?} is on two servers",
                String::from_utf8_lossy(&key)
            );
        }
    }
    let ours: Vec<Option<&String>> = all_keys.iter().map(|k| expected.get(k)).collect();
    let peer: Vec<Option<&String>> = all_keys.iter().map(|k| held.get(k)).collect();
    report(
        FLAVOUR.name(),
        "MemcachedClient with unreachable servers",
        &all_keys,
        &ours,
        &peer,
    );
}
