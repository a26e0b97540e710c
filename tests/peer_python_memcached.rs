//! The `python-memcached` flavour against python-memcached itself (Debian
//! `python3-memcache`, module `memcache`), asked in the same run through
//! tests/peers/python_memcached_peer.py: `Client._get_server` places every
//! key over the weighted bucket list, and the library must answer the same
//! server on 3, 10 and 100 servers, unweighted, equal and unequal weights,
//! for 10,000 ASCII keys plus non-ASCII (valid UTF-8 and not), control-byte,
//! over-long and hash-0 keys; with servers down the client's own rehashing
//! (which gives up after 10 buckets) must match `Ring::locate_live`.

mod common;
#[path = "common/peer_programs.rs"]
mod peer_programs;
#[path = "common/peers.rs"]
mod peers;

use std::ffi::OsStr;

use ketama::parser::peers as peer_lists;
use ketama::{Flavour, Ring, RingConfig};
use peer_programs::{PerKeyCase, per_key_answers};
use peers::{
    ServerList, Weights, assert_same, keys, non_ascii_keys, odd_keys, servers, standard_lists,
};

const FLAVOUR: Flavour = Flavour::PythonMemcached;

fn require_peer() {
    let probe = std::process::Command::new("/usr/bin/python3")
        .args(["-c", "import memcache"])
        .output()
        .expect("run /usr/bin/python3");
    assert!(
        probe.status.success(),
        "Debian's python3 cannot import memcache: run `make deps` (package python3-memcache)"
    );
}

/// Keys whose 15-bit CRC is 0 (python-memcached reads that hash as 1).
fn zero_hash_keys() -> Vec<Vec<u8>> {
    (0..3_000_000u32)
        .map(|i| format!("zero:{i}").into_bytes())
        .filter(|k| ketama::hash::crc::crc15(k) == 0)
        .take(20)
        .collect()
}

fn all_keys() -> Vec<Vec<u8>> {
    let mut keys = keys();
    keys.extend(non_ascii_keys());
    keys.extend(odd_keys());
    keys.extend(zero_hash_keys());
    keys
}

/// The servers as the peer script reads them: `ADDRESS[<TAB>WEIGHT]`.
fn peer_lines(list: &ServerList) -> String {
    list.servers
        .iter()
        .map(|s| match s.weight {
            Some(w) => format!("{}\t{w}\n", s.address()),
            None => format!("{}\n", s.address()),
        })
        .collect()
}

/// The same servers as the library reads them: `host:port[:weight]`.
fn ring(list: &ServerList) -> Ring {
    let text: String = list
        .servers
        .iter()
        .map(|s| match s.weight {
            Some(w) => format!("{}:{w}\n", s.address()),
            None => format!("{}\n", s.address()),
        })
        .collect();
    let servers = peer_lists::parse(text.as_bytes(), "servers").unwrap();
    Ring::new(servers, RingConfig::flavour(FLAVOUR)).unwrap()
}

fn compare(cases: &[(ServerList, Vec<usize>)], keys: &[Vec<u8>]) -> usize {
    require_peer();
    let asked: Vec<PerKeyCase> = cases
        .iter()
        .map(|(list, down)| PerKeyCase {
            servers: peer_lines(list),
            keys,
            down: down.clone(),
        })
        .collect();
    let script = common::repo_root().join("tests/peers/python_memcached_peer.py");
    let (answers, said) = per_key_answers(
        "python-memcached",
        &[OsStr::new("/usr/bin/python3"), script.as_os_str()],
        &asked,
    );
    print!("{said}");
    let mut compared = 0;
    for ((list, down), answer) in cases.iter().zip(answers) {
        let ring = ring(list);
        let ours: Vec<Option<usize>> = keys
            .iter()
            .map(|k| {
                ring.locate_live(k, |s| down.contains(&s))
                    .map(|at| at.server_index)
            })
            .collect();
        let name = format!("{} (down: {down:?})", list.name);
        compared += assert_same(&name, keys, &ours, &answer);
    }
    compared
}

#[test]
fn get_server_places_every_key_as_the_library_does() {
    let cases: Vec<(ServerList, Vec<usize>)> =
        standard_lists().into_iter().map(|l| (l, vec![])).collect();
    let keys = all_keys();
    let compared = compare(&cases, &keys);
    assert!(compared >= 9 * 10_000);
    println!("{} cases, {compared} keys, 0 differences", cases.len());
}

#[test]
fn dead_servers_are_rehashed_as_the_client_rehashes_them() {
    let keys = keys();
    let cases = vec![
        (servers(10, Weights::None), vec![3]),
        (servers(10, Weights::Unequal), vec![0, 1, 2, 4, 6, 8]),
        (servers(100, Weights::None), (0..95).collect()),
        (servers(3, Weights::Unequal), vec![0, 1, 2]),
    ];
    compare(&cases, &keys);
}

#[test]
fn old_server_hash_function_is_the_full_crc32() {
    // useOldServerHashFunction() makes the client hash with binascii.crc32.
    let ring_crc32 = |list: &ServerList| {
        let specs = list.specs();
        Ring::new(
            specs,
            RingConfig {
                flavour: FLAVOUR,
                hash: FLAVOUR.hash_from_name("crc32"),
            },
        )
        .unwrap()
    };
    require_peer();
    let list = servers(10, Weights::Unequal);
    let keys = keys();
    let dir = common::scratch_dir("python-memcached-old-hash");
    peers::write_keys(&dir.join("keys"), &keys);
    std::fs::write(dir.join("servers"), peer_lines(&list)).unwrap();
    let script = common::repo_root().join("tests/peers/python_memcached_peer.py");
    let output = common::run_with_timeout(
        std::process::Command::new("/usr/bin/python3")
            .env("PYTHON_MEMCACHED_OLD_HASH", "1")
            .arg(&script)
            .arg(&dir),
        std::time::Duration::from_secs(300),
    );
    assert!(output.status.success(), "{output:?}");
    let answer: Vec<Option<usize>> = std::fs::read_to_string(dir.join("out"))
        .unwrap()
        .lines()
        .map(|l| usize::try_from(l.parse::<i64>().unwrap()).ok())
        .collect();
    let ring = ring_crc32(&list);
    let ours: Vec<Option<usize>> = keys
        .iter()
        .map(|k| ring.locate(k).map(|at| at.server_index))
        .collect();
    assert_same("useOldServerHashFunction", &keys, &ours, &answer);
}
