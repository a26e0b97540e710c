//! The PHP flavours, checked against the real extensions in the same run:
//! php-memcached 3.2 (`getServerByKey`, Debian `php8.2-memcached`) for
//! `libmemcached` / `libmemcached-consistent`, and pecl memcache 4.0.5
//! (`findServer`, Debian `php8.2-memcache`) for `pecl-memcache`. Each
//! extension runs in its own `php -n` process (loading both conflicts).

use ketama_testkit as common;
use ketama_testkit::harness::report;
use ketama_testkit::peers;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use ketama_core::hash::HashAlgorithm;
use ketama_core::{Flavour, Ring, RingConfig};
use peers::{ServerList, edge_lists, keys_for, standard_lists, write_keys};

struct Case {
    name: String,
    file: PathBuf,
    out: PathBuf,
    keys: Vec<Vec<u8>>,
    ours: Vec<String>,
}

fn json_string(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

/// `options` are php-memcached `OPT_*` names with constant names as values.
fn case(
    dir: &Path,
    n: usize,
    flavour: Flavour,
    hash: Option<HashAlgorithm>,
    options: &[(&str, &str)],
    list: &ServerList,
) -> Case {
    let ring = Ring::new(list.specs(), RingConfig::new(flavour, hash)).expect("library ring");
    let mut keys = keys_for(list, &ring);
    // Bytes >= 0x80 (valid UTF-8 and not): the C code reads them as signed
    // chars; and keys pecl memcache rewrites before hashing (`mmc_prepare_key`).
    keys.extend(peers::non_ascii_keys());
    // php-memcached refuses keys over 250 bytes ("A BAD KEY WAS PROVIDED").
    let longest = if flavour == Flavour::PeclMemcache {
        usize::MAX
    } else {
        250
    };
    keys.extend(peers::odd_keys().into_iter().filter(|k| k.len() <= longest));
    let (file, out, key_file) = (
        dir.join(format!("case{n}.json")),
        dir.join(format!("case{n}.out")),
        dir.join(format!("case{n}.keys")),
    );
    write_keys(&key_file, &keys);
    let options: Vec<String> = options
        .iter()
        .map(|(k, v)| format!("{}: {}", json_string(k), json_string(v)))
        .collect();
    // php-memcached's default weight is 0, pecl memcache's is 1.
    let default_weight = if flavour == Flavour::PeclMemcache {
        1
    } else {
        0
    };
    let servers: Vec<String> = list
        .servers
        .iter()
        .map(|s| {
            format!(
                "[{}, {}, {}]",
                json_string(&s.host),
                s.port,
                s.weight.unwrap_or(default_weight)
            )
        })
        .collect();
    let json = format!(
        "{{\"options\": {{{}}}, \"servers\": [{}], \"keys\": {}, \"out\": {}}}",
        options.join(", "),
        servers.join(", "),
        json_string(&key_file.display().to_string()),
        json_string(&out.display().to_string())
    );
    std::fs::write(&file, json).unwrap();
    let ours = keys
        .iter()
        .map(|k| {
            let s = &list.servers[ring.locate(k).unwrap().server_index];
            format!("{}:{}", s.host, s.port)
        })
        .collect();
    let name = format!(
        "{} hash {} {options:?} on {}",
        flavour.name(),
        ring.key_hash().name(),
        list.name
    );
    Case {
        name,
        file,
        out,
        keys,
        ours,
    }
}

fn run_php(php_args: &[&str], mode: &str, cases: &[Case]) {
    common::require_tool("php", "php8.2-cli");
    let script = common::peer_program("php_peer.php");
    let output = common::run_with_timeout(
        Command::new("php")
            .arg("-n")
            .args(php_args)
            .arg(&script)
            .arg(mode)
            .args(cases.iter().map(|c| &c.file)),
        Duration::from_secs(300),
    );
    assert!(
        output.status.success(),
        "php {mode} failed (is Debian package php8.2-{mode} installed?): {}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    for c in cases {
        let peer: Vec<String> = std::fs::read_to_string(&c.out)
            .unwrap()
            .lines()
            .map(str::to_string)
            .collect();
        report(&format!("php {mode}"), &c.name, &c.keys, &c.ours, &peer);
    }
}

const MEMCACHED_EXT: &[&str] = &[
    "-d",
    "extension=igbinary",
    "-d",
    "extension=msgpack",
    "-d",
    "extension=memcached",
];

fn php_hash_constant(hash: HashAlgorithm) -> &'static str {
    use HashAlgorithm as H;
    match hash {
        H::OneAtATime => "HASH_DEFAULT",
        H::Md5 => "HASH_MD5",
        H::Crc => "HASH_CRC",
        H::Fnv1_64 => "HASH_FNV1_64",
        H::Fnv1a64 => "HASH_FNV1A_64",
        H::Fnv1_32 => "HASH_FNV1_32",
        H::Fnv1a32 => "HASH_FNV1A_32",
        H::Murmur => "HASH_MURMUR",
        other => panic!("php-memcached has no constant for {other:?}"),
    }
}

/// The hashes php-memcached names (Debian's libmemcached lacks hsieh).
const PHP_HASHES: [HashAlgorithm; 8] = [
    HashAlgorithm::OneAtATime,
    HashAlgorithm::Md5,
    HashAlgorithm::Crc,
    HashAlgorithm::Fnv1_64,
    HashAlgorithm::Fnv1a64,
    HashAlgorithm::Fnv1_32,
    HashAlgorithm::Fnv1a32,
    HashAlgorithm::Murmur,
];

#[test]
fn php_memcached_libketama_compatible_and_consistent_match() {
    let dir = common::scratch_dir("php-memcached");
    let mut cases = Vec::new();
    let compatible = [("OPT_LIBKETAMA_COMPATIBLE", "1")];
    let consistent = [("OPT_DISTRIBUTION", "DISTRIBUTION_CONSISTENT")];
    for list in standard_lists().iter().chain(&edge_lists()) {
        cases.push(case(
            &dir,
            cases.len(),
            Flavour::Libmemcached,
            None,
            &compatible,
            list,
        ));
        cases.push(case(
            &dir,
            cases.len(),
            Flavour::LibmemcachedConsistent,
            None,
            &consistent,
            list,
        ));
    }
    for list in [
        peers::servers(10, peers::Weights::None),
        peers::servers(10, peers::Weights::Unequal),
    ] {
        for hash in PHP_HASHES {
            let constant = php_hash_constant(hash);
            let with_hash = |base: &[(&'static str, &'static str)]| {
                let mut o = base.to_vec();
                o.push(("OPT_HASH", constant));
                o
            };
            cases.push(case(
                &dir,
                cases.len(),
                Flavour::Libmemcached,
                Some(hash),
                &with_hash(&compatible),
                &list,
            ));
            cases.push(case(
                &dir,
                cases.len(),
                Flavour::LibmemcachedConsistent,
                Some(hash),
                &with_hash(&consistent),
                &list,
            ));
        }
    }
    run_php(MEMCACHED_EXT, "memcached", &cases);
}

fn pecl(hash: HashAlgorithm, function: &str) {
    let dir = common::scratch_dir(&format!("pecl-memcache-{function}"));
    let cases: Vec<Case> = standard_lists()
        .iter()
        .chain(&edge_lists())
        .enumerate()
        .map(|(n, list)| case(&dir, n, Flavour::PeclMemcache, Some(hash), &[], list))
        .collect();
    let hash_function = format!("memcache.hash_function={function}");
    run_php(
        &[
            "-d",
            "extension=memcache",
            "-d",
            "memcache.hash_strategy=consistent",
            "-d",
            &hash_function,
        ],
        "memcache",
        &cases,
    );
}

#[test]
fn pecl_memcache_consistent_crc32_matches() {
    pecl(HashAlgorithm::Crc32, "crc32");
}

#[test]
fn pecl_memcache_consistent_fnv_matches() {
    pecl(HashAlgorithm::Fnv1a32, "fnv");
}
