//! The spymemcached flavours, checked against the real spymemcached 2.12.3
//! (Debian `libspymemcached-java`) in the same run: a Java program builds
//! `KetamaNodeLocator`s over `MemcachedNode` stand-ins (no network) for the
//! same servers, formats, hashes and weights, and reports its whole continuum
//! and each key's node; both must equal the library's.

mod common;
#[path = "common/peers.rs"]
mod peers;

use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

use ketama::hash::HashAlgorithm;
use ketama::{Flavour, Ring, RingConfig, ServerSpec};
use peers::{ServerList, Weights, assert_same, edge_lists, keys_for, our_indices, standard_lists, write_keys};

const SPY_JAR: &str = "/usr/share/java/spymemcached.jar";

/// Compiles tests/peers/SpyPeer.java once; returns the classpath.
fn classpath() -> &'static str {
    static CP: OnceLock<String> = OnceLock::new();
    CP.get_or_init(|| {
        common::require_tool("javac", "openjdk-17-jdk-headless");
        common::require_tool("java", "openjdk-17-jdk-headless");
        assert!(Path::new(SPY_JAR).exists(), "{SPY_JAR} is missing: run `make deps` (Debian package libspymemcached-java)");
        let classes = common::scratch_dir("spy-classes");
        let source = common::repo_root().join("tests/peers/SpyPeer.java");
        let output = common::run_with_timeout(
            Command::new("javac").args(["-cp", SPY_JAR, "-d"]).arg(&classes).arg(&source),
            Duration::from_secs(180),
        );
        assert!(output.status.success(), "javac failed: {}", String::from_utf8_lossy(&output.stderr));
        format!("{}:{SPY_JAR}", classes.display())
    })
}

fn java(args: &[&Path]) {
    let output = common::run_with_timeout(
        Command::new("java").args(["-cp", classpath(), "SpyPeer"]).args(args),
        Duration::from_secs(300),
    );
    assert!(output.status.success(), "SpyPeer failed: {}", String::from_utf8_lossy(&output.stderr));
}

fn java_hash_name(hash: HashAlgorithm) -> &'static str {
    use HashAlgorithm as H;
    match hash {
        H::Md5 => "KETAMA_HASH",
        H::SpyNative => "NATIVE_HASH",
        H::Crc => "CRC_HASH",
        H::SpyFnv1_64 => "FNV1_64_HASH",
        H::SpyFnv1a64 => "FNV1A_64_HASH",
        H::SpyFnv1_32 => "FNV1_32_HASH",
        H::SpyFnv1a32 => "FNV1A_32_HASH",
        other => panic!("spymemcached has no {other:?}"),
    }
}

struct Case {
    name: String,
    dir: PathBuf,
    keys: Vec<Vec<u8>>,
    ring: Ring,
}

/// One locator: the list as spymemcached users build it, and as the library
/// is given it. IP literals stay literals; a hostname gets the fixed IP
/// 10.9.9.N without DNS, which Java prints as `name/10.9.9.N:port`.
fn case(root: &Path, n: usize, flavour: Flavour, hash: HashAlgorithm, list: &ServerList) -> Case {
    let weighted = list.servers.iter().any(|s| s.weight.is_some());
    let format = if flavour == Flavour::Spymemcached { "SPYMEMCACHED" } else { "LIBMEMCACHED" };
    let mut text = format!("format {format}\nhash {}\nweighted {}\n", java_hash_name(hash), u8::from(weighted));
    let mut specs = Vec::new();
    for (i, s) in list.servers.iter().enumerate() {
        let literal = s.host.parse::<IpAddr>().is_ok();
        let ip = if literal { s.host.clone() } else { format!("10.9.9.{}", i + 1) };
        let java_name = if literal && flavour == Flavour::Spymemcached { "-" } else { &s.host };
        text += &format!("server {java_name} {ip} {} {}\n", s.port, s.weight.unwrap_or(1));
        let address = if literal || flavour == Flavour::SpymemcachedLibmemcached {
            s.address()
        } else {
            format!("{}/{ip}:{}", s.host, s.port)
        };
        specs.push(ServerSpec { address: address.into_bytes(), weight: s.weight, name: None });
    }
    let ring = Ring::new(specs, RingConfig { flavour, hash: Some(hash) }).expect("library ring");
    let keys = keys_for(list, &ring);
    let dir = root.join(format!("case{n}"));
    std::fs::create_dir_all(&dir).unwrap();
    write_keys(&dir.join("keys"), &keys);
    for (what, file) in [("keys", "keys"), ("out", "out"), ("dump", "dump")] {
        text += &format!("{what} {}\n", dir.join(file).display());
    }
    std::fs::write(dir.join("case"), text).unwrap();
    let name = format!("{} hash {} on {}", flavour.name(), hash.name(), list.name);
    Case { name, dir, keys, ring }
}

fn run(cases: &[Case]) {
    let files: Vec<PathBuf> = cases.iter().map(|c| c.dir.join("case")).collect();
    let mut args: Vec<&Path> = vec![Path::new("ring")];
    args.extend(files.iter().map(PathBuf::as_path));
    java(&args);
    for c in cases {
        let peer: Vec<usize> =
            std::fs::read_to_string(c.dir.join("out")).unwrap().lines().map(|l| l.parse().unwrap()).collect();
        assert_same(&c.name, &c.keys, &our_indices(&c.ring, &c.keys), &peer);
        let dump: Vec<(u32, u32)> = std::fs::read_to_string(c.dir.join("dump"))
            .unwrap()
            .lines()
            .map(|l| {
                let (p, s) = l.split_once(' ').unwrap();
                (p.parse().unwrap(), s.parse().unwrap())
            })
            .collect();
        let continuum = c.ring.continuum();
        let ours: Vec<(u32, u32)> = continuum.points().iter().copied().zip(continuum.owners().iter().copied()).collect();
        assert_eq!(ours.len(), dump.len(), "{}: continuum sizes differ", c.name);
        let differing = ours.iter().zip(&dump).filter(|(a, b)| a != b).count();
        assert_eq!(differing, 0, "{}: {differing} continuum points differ", c.name);
    }
}

const SPY_FLAVOURS: [Flavour; 2] = [Flavour::Spymemcached, Flavour::SpymemcachedLibmemcached];

#[test]
fn default_ketama_hash_matches_on_3_10_100_servers_weighted_and_not() {
    let root = common::scratch_dir("spy-lists");
    let mut cases = Vec::new();
    for flavour in SPY_FLAVOURS {
        for list in standard_lists().iter().chain(&edge_lists()) {
            cases.push(case(&root, cases.len(), flavour, HashAlgorithm::Md5, list));
        }
    }
    run(&cases);
    // The weighted path gives 156 points to each of 100 equal servers.
    let equal_100 = cases.iter().find(|c| c.name.contains("on 100 servers, Equal")).unwrap();
    assert!(equal_100.ring.servers().iter().all(|s| s.point_count() == 156));
}

#[test]
fn every_spymemcached_hash_matches_points_and_keys() {
    let root = common::scratch_dir("spy-hashes");
    let lists = [peers::servers(10, Weights::None), peers::servers(10, Weights::Unequal), edge_lists().remove(1)];
    let mut cases = Vec::new();
    for flavour in SPY_FLAVOURS {
        for &hash in flavour.hashes() {
            for list in &lists {
                cases.push(case(&root, cases.len(), flavour, hash, list));
            }
        }
    }
    run(&cases);
}

#[test]
fn spymemcached_string_hashes_match_including_non_ascii() {
    let dir = common::scratch_dir("spy-hash-values");
    let mut keys = peers::keys();
    // Java keys are Strings: only valid UTF-8 has a Java counterpart.
    keys.extend(peers::non_ascii_keys().into_iter().filter(|k| std::str::from_utf8(k).is_ok()));
    keys.push(Vec::new());
    write_keys(&dir.join("keys"), &keys);
    java(&[Path::new("hash"), &dir.join("keys"), &dir.join("out")]);
    let text = std::fs::read_to_string(dir.join("out")).unwrap();
    let rows: Vec<&str> = text.lines().collect();
    for &hash in Flavour::Spymemcached.hashes() {
        let tag = format!("{}=", java_hash_name(hash));
        let peer: Vec<u32> = rows
            .iter()
            .map(|row| {
                let field = row.split(' ').find_map(|f| f.strip_prefix(tag.as_str())).expect("hash column");
                u32::try_from(field.parse::<i64>().unwrap()).expect("spymemcached hashes are 32-bit")
            })
            .collect();
        let ours: Vec<u32> = keys.iter().map(|k| hash.hash(k)).collect();
        assert_same(&format!("spymemcached {}", java_hash_name(hash)), &keys, &ours, &peer);
    }
}
