//! What the Redis-client and Go peer tests share: server lists as these
//! clients' users write them, keys that exercise each client's hash tag and
//! tie rule, CRC-32 keys forged onto chosen points, and a runner for their
//! peer programs in `peers/` that hands them keys in hex (so NUL, `\n` and
//! any byte reach the peer intact) and reads back the harness's answers.

use std::ffi::OsStr;
use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use ketama_core::{Ring, RingConfig, ServerSpec};

use crate::harness::Answer;
use crate::peers::{self, PeerServer, ServerList, Weights};

/// `n` Redis servers on 10.1.x.y, every third on port 6379 (the clients'
/// default), the others on distinct ports; weights as [`peers::servers`].
pub fn redis_servers(n: usize, weights: Weights) -> ServerList {
    let mut list = peers::servers(n, weights);
    for (i, server) in list.servers.iter_mut().enumerate() {
        server.host = server.host.replacen("10.0.", "10.1.", 1);
        server.port = if i % 3 == 0 { 6379 } else { 6379 + i as u16 };
    }
    list
}

/// 3, 10 and 100 servers, for each weight choice in `weights`.
pub fn redis_lists(weights: &[Weights]) -> Vec<ServerList> {
    let mut lists = Vec::new();
    for n in [3, 10, 100] {
        for &w in weights {
            lists.push(redis_servers(n, w));
        }
    }
    lists
}

/// IPv6 addresses, host names, and one server written without its port.
pub fn mixed_list() -> ServerList {
    let server = |host: &str, port: u16| PeerServer {
        host: host.into(),
        port,
        weight: None,
    };
    ServerList {
        name: "IPv6 and host names".into(),
        servers: vec![
            server("::1", 6379),
            server("2001:db8::10", 7000),
            server("redis-a.example", 6379),
            server("redis-b.example", 6380),
            server("10.1.0.9", 6381),
        ],
    }
}

/// The library's ring of `flavour` for `servers`.
pub fn ring_of(servers: Vec<ServerSpec>, flavour: ketama_core::Flavour) -> Ring {
    Ring::new(servers, RingConfig::flavour(flavour)).expect("the library builds the ring")
}

/// Keys around each client's hash tag: `{…}` at the start, in the middle,
/// empty, unclosed, nested, repeated, after a NUL, across and after a
/// `\n`, and groups of keys sharing a tag.
pub fn tag_keys() -> Vec<Vec<u8>> {
    let mut keys: Vec<Vec<u8>> = [
        &b"{user42}:name"[..],
        b"{user42}:mail",
        b"profile:{user42}",
        b"a{b}c",
        b"{}",
        b"{}x",
        b"x{}",
        b"x{}y{z}",
        b"{}}",
        b"{}a}",
        b"{{a}}",
        b"{a}{b}",
        b"}{",
        b"}x{y}",
        b"{unclosed",
        b"unopened}",
        b"{a}b}",
        b"{a{b}",
        b"{",
        b"}",
        b"a\0{b}",
        b"a{b\0}",
        b"a{b}\0c",
        b"\0",
        b"{a\nb}",
        b"x\n{ab}c",
        b"{a\n{bc}",
        b"{\n}\n{x}",
        b"{x}\n{y}",
        b"line\n",
        b"\n{t}",
        b"x{y}\nz{w}",
        b"{\xc3\xa9t\xc3\xa9}:1",
    ]
    .iter()
    .map(|k| k.to_vec())
    .collect();
    for i in 0..300 {
        keys.push(format!("{{tag{}}}:item:{i}", i % 7).into_bytes());
        keys.push(format!("item:{i}:{{tag{}}}", i % 5).into_bytes());
        keys.push(format!("{{{i}}}").into_bytes());
    }
    keys
}

/// Keys that are valid UTF-8 text (what the Python clients take): the
/// standard keys, the tag keys and non-ASCII text.
pub fn text_keys() -> Vec<Vec<u8>> {
    let mut keys = peers::keys();
    keys.extend(tag_keys());
    keys.extend(
        peers::non_ascii_keys()
            .into_iter()
            .filter(|k| std::str::from_utf8(k).is_ok()),
    );
    keys.extend(
        peers::odd_keys()
            .into_iter()
            .filter(|k| !k.contains(&b'\r')),
    );
    keys
}

/// Every key a byte-safe client takes: [`text_keys`] plus non-UTF-8 bytes.
pub fn byte_keys() -> Vec<Vec<u8>> {
    let mut keys = text_keys();
    keys.extend(peers::non_ascii_keys());
    keys.extend(peers::odd_keys());
    keys
}

const CRC32_POLY: u32 = 0xedb8_8320;

fn crc32_table() -> [u32; 256] {
    let mut table = [0u32; 256];
    for (i, entry) in table.iter_mut().enumerate() {
        let mut c = i as u32;
        for _ in 0..8 {
            c = if c & 1 != 0 {
                (c >> 1) ^ CRC32_POLY
            } else {
                c >> 1
            };
        }
        *entry = c;
    }
    table
}

/// `prefix` followed by the four bytes that make its CRC-32 `target`
/// (the CRC run backwards from `target` over four table steps).
pub fn forge_crc32(prefix: &[u8], target: u32) -> Vec<u8> {
    let table = crc32_table();
    let mut register = !ketama_core::hash::crc::crc32(prefix);
    // Which table entries the last four steps must use, found backwards.
    let mut wanted = !target;
    let mut entries = [0u8; 4];
    for slot in (0..4).rev() {
        let entry = table
            .iter()
            .position(|&t| t >> 24 == wanted >> 24)
            .expect("the top bytes of the CRC table are distinct") as u8;
        entries[slot] = entry;
        wanted = (wanted ^ table[entry as usize]) << 8;
    }
    let mut key = prefix.to_vec();
    for entry in entries {
        let byte = (register as u8) ^ entry;
        key.push(byte);
        register = (register >> 8) ^ table[((register ^ u32::from(byte)) & 0xff) as usize];
    }
    debug_assert_eq!(ketama_core::hash::crc::crc32(&key), target);
    key
}

/// Keys whose CRC-32 (or, with `complement`, its complement) is each of
/// `positions` and the values just before and after it.
pub fn forged_keys(positions: &[u32], complement: bool) -> Vec<Vec<u8>> {
    let mut keys = Vec::new();
    for (i, &p) in positions.iter().enumerate() {
        for target in [p.wrapping_sub(1), p, p.wrapping_add(1)] {
            let crc = if complement { !target } else { target };
            keys.push(forge_crc32(format!("forged:{i}:").as_bytes(), crc));
        }
    }
    keys
}

/// Up to `count` points of `ring`, evenly picked, plus its first and last.
pub fn some_points(ring: &Ring, count: usize) -> Vec<u32> {
    let points = ring.continuum().points();
    if points.is_empty() {
        return Vec::new();
    }
    let step = (points.len() / count.max(1)).max(1);
    let mut picked: Vec<u32> = points.iter().step_by(step).copied().collect();
    picked.extend([points[0], points[points.len() - 1], 0, u32::MAX]);
    picked
}

/// The points two different servers of `servers` both generate under
/// `flavour` (where its tie rule decides), sorted.
pub fn cross_server_ties(servers: &[ServerSpec], flavour: ketama_core::Flavour) -> Vec<u32> {
    let generated = flavour
        .generate(servers, flavour.default_hash(), &Default::default())
        .expect("the library builds the ring");
    let mut points = generated.points;
    points.sort_unstable();
    let mut ties: Vec<u32> = points
        .windows(2)
        .filter(|w| w[0].0 == w[1].0 && w[0].1 != w[1].1)
        .map(|w| w[0].0)
        .collect();
    ties.dedup();
    ties
}

/// Two servers (`10.1.x.y:PORT`, found by trying them in turn) that
/// generate an equal point under `flavour`, in list order, and the points
/// they share: with only these two, the tie rule decides who holds them.
pub fn list_with_ties(flavour: ketama_core::Flavour) -> (Vec<String>, Vec<u32>) {
    let mut owner_of: std::collections::HashMap<u32, usize> = std::collections::HashMap::new();
    let host = |i: usize| format!("10.1.{}.{}:{}", i / 250, i % 250 + 1, 6379 + i % 3);
    for i in 0..100_000 {
        let spec = ServerSpec::unweighted(host(i).as_str());
        let points = flavour
            .generate(&[spec], flavour.default_hash(), &Default::default())
            .expect("the library builds the ring")
            .points;
        if let Some(&other) = points.iter().find_map(|(p, _)| owner_of.get(p)) {
            let hosts = vec![host(other), host(i)];
            let specs: Vec<ServerSpec> = hosts
                .iter()
                .map(|h| ServerSpec::unweighted(h.as_str()))
                .collect();
            return (hosts, cross_server_ties(&specs, flavour));
        }
        for (p, _) in points {
            owner_of.insert(p, i);
        }
    }
    panic!("no two of 100,000 servers generate an equal point");
}

/// A fresh scratch directory per case, holding the peer's `servers` text
/// and the keys, one per line in hex.
pub fn case_dirs(name: &str, cases: &[(String, &[Vec<u8>])]) -> Vec<PathBuf> {
    static CALLS: AtomicUsize = AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, Ordering::Relaxed);
    let root = crate::scratch_dir(&format!("{name}-cases-{call}"));
    cases
        .iter()
        .enumerate()
        .map(|(n, (servers, keys))| {
            let dir = root.join(format!("case{n}"));
            std::fs::create_dir_all(&dir).unwrap();
            let hex: String = keys
                .iter()
                .map(|k| k.iter().map(|b| format!("{b:02x}")).collect::<String>() + "\n")
                .collect();
            std::fs::write(dir.join("keys"), hex).unwrap();
            std::fs::write(dir.join("servers"), servers).unwrap();
            let _ = std::fs::remove_file(dir.join("out"));
            let _ = std::fs::remove_file(dir.join("dump"));
            dir
        })
        .collect()
}

/// Runs the peer `program` (interpreter first) once over every case (the
/// peer's `servers` text and the keys, written one per line in hex); each
/// case directory gets the peer's `out` (a server index per key, -1 for
/// none) and `dump` (`point index` per ring entry; absent or empty when the
/// peer does not show its ring). Returns the answers and what the peer
/// printed.
pub fn ask(
    name: &str,
    program: &[&OsStr],
    cases: &[(String, &[Vec<u8>])],
) -> (Vec<Answer>, String) {
    let dirs = case_dirs(name, cases);
    let output = crate::run_with_timeout(
        Command::new(program[0]).args(&program[1..]).args(&dirs),
        Duration::from_secs(600),
    );
    assert!(
        output.status.success(),
        "the {name} peer failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    (
        read_answers(&dirs),
        String::from_utf8_lossy(&output.stdout).into_owned(),
    )
}

/// The answers a peer left in each case directory: `out` (a server index
/// per key, -1 for none) and `dump` (`point index` per ring entry, when
/// the peer shows its ring).
pub fn read_answers(dirs: &[PathBuf]) -> Vec<Answer> {
    dirs.iter()
        .map(|dir| {
            let ring: Vec<(u32, u32)> = std::fs::read_to_string(dir.join("dump"))
                .unwrap_or_default()
                .lines()
                .map(|l| {
                    let (p, s) = l.split_once(' ').unwrap();
                    (p.parse().unwrap(), s.parse().unwrap())
                })
                .collect();
            Answer {
                servers: std::fs::read_to_string(dir.join("out"))
                    .unwrap()
                    .lines()
                    .map(|l| usize::try_from(l.parse::<i64>().unwrap()).ok())
                    .collect(),
                continuum: (!ring.is_empty()).then_some(ring),
            }
        })
        .collect()
}

/// Fails, naming the Debian package, unless PHP's `probe` (an expression)
/// is true: a class that loads, an extension that is there.
pub fn require_php(probe: &str, package: &str) {
    crate::require_tool("php", "php8.2-cli");
    let out = Command::new("php")
        .args(["-r", &format!("exit(({probe}) ? 0 : 1);")])
        .output()
        .expect("run php");
    assert!(
        out.status.success(),
        "PHP lacks what this test asks ({probe}): run `make deps` (Debian package {package})"
    );
}

/// Fails unless Debian's python3 imports `module`.
pub fn require_python_module(module: &str, package: &str) {
    let out = Command::new("/usr/bin/python3")
        .args(["-c", &format!("import {module}")])
        .output()
        .expect("run /usr/bin/python3");
    assert!(
        out.status.success(),
        "Debian's python3 cannot import {module}: run `make deps` (Debian package {package})"
    );
}
