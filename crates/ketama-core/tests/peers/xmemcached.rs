//! The four xmemcached flavours. xmemcached (Java, Maven only) cannot run
//! here; each locator is checked against what can:
//!
//! * its published unit tests (`published/xmemcached_locators.tsv`, copied
//!   from github.com/killme2008/xmemcached at 5d09c5d1): every session they
//!   expect, with the servers they close;
//! * the code it shares with spymemcached 2.12.3 (Debian
//!   `libspymemcached-java`), asked in the same run: `xmemcached`'s
//!   continuum is `KetamaNodeLocator`'s for servers written `name/ip:port`
//!   (both label a server with Java's `String.valueOf` of its address; they
//!   differ in weights, ties and the `/` spymemcached strips from an IP
//!   literal); `xmemcached-array` is `ArrayModNodeLocator` over the session
//!   list, each server listed `weight` times; their hashes are
//!   `DefaultHashAlgorithm`'s;
//! * the JVM itself, for what the JDK decides: `String.valueOf` of each
//!   `InetSocketAddress` (the ketama labels) and `String.hashCode` (through
//!   spymemcached's `NATIVE_HASH`) that `xmemcached-php` takes bits 16 to 30
//!   of;
//! * `xmemcached-libmemcached` against libmemcached 1.1.4's CONSISTENT
//!   distribution (its labels, 100 points, one-at-a-time) as php-memcached
//!   3.2 (Debian `php8.2-memcached`, `getServerByKey`) asks it, on ASCII
//!   keys (libmemcached reads bytes ≥ 0x80 as signed `char`s, the locator
//!   as unsigned ones: those keys are checked against the published
//!   one-at-a-time vectors in the library's unit tests only).
//!
//! Cases: 3, 10 and 100 servers, unweighted, equal and unequal weights where
//! the locator reads them, 10,000 ASCII keys, UTF-8 keys with bytes ≥ 0x80,
//! control bytes, 245 to 300 bytes, keys on point labels and past the last
//! point.

use std::collections::HashMap;
use std::ffi::OsStr;
use std::net::IpAddr;
use std::path::PathBuf;

use ketama_core::hash::HashAlgorithm;
use ketama_core::{Flavour, Ring, RingConfig, ServerSpec};
use ketama_testkit as common;
use ketama_testkit::harness::{self, Answer, Case, report};
use ketama_testkit::peer_programs::{
    self, SpyCase, SpyServer, java_hash_name, spy_classpath, spymemcached_answers,
};
use ketama_testkit::peers::{
    self, ServerList, Weights, keys, label_keys, non_ascii_keys, odd_keys, past_last_point_keys,
    standard_lists,
};

fn published() -> PathBuf {
    common::repo_root().join("crates/ketama-core/tests/peers/published/xmemcached_locators.tsv")
}

/// Java keys are `String`s: the standard keys, then only valid UTF-8.
fn java_keys() -> Vec<Vec<u8>> {
    let mut keys = keys();
    keys.extend(
        non_ascii_keys()
            .into_iter()
            .chain(odd_keys())
            .filter(|k| std::str::from_utf8(k).is_ok()),
    );
    keys
}

fn ring(flavour: Flavour, specs: Vec<ServerSpec>, hash: Option<HashAlgorithm>) -> Ring {
    Ring::new(specs, RingConfig::new(flavour, hash)).expect("the library builds the ring")
}

/// One published test: a locator over servers, some closed, and the
/// session it expects for each key.
struct Published {
    flavour: String,
    test: String,
    servers: String,
    down: String,
    keys: Vec<Vec<u8>>,
    expected: Vec<String>,
}

#[test]
fn the_published_locator_tests_hold() {
    let text = std::fs::read_to_string(published()).unwrap();
    let mut tests: Vec<Published> = Vec::new();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let f: Vec<&str> = line.split('\t').collect();
        assert_eq!(f.len(), 6, "a published row has 6 fields: {line}");
        let same = tests.last().is_some_and(|t| {
            (
                t.flavour.as_str(),
                t.test.as_str(),
                t.servers.as_str(),
                t.down.as_str(),
            ) == (f[0], f[1], f[2], f[3])
        });
        if !same {
            tests.push(Published {
                flavour: f[0].into(),
                test: f[1].into(),
                servers: f[2].into(),
                down: f[3].into(),
                keys: Vec::new(),
                expected: Vec::new(),
            });
        }
        let test = tests.last_mut().unwrap();
        test.keys.push(f[4].as_bytes().to_vec());
        test.expected.push(f[5].to_string());
    }
    let mut compared = 0;
    for t in &tests {
        let flavour = Flavour::from_name(&t.flavour).expect("a flavour of ours");
        let addresses: Vec<&str> = t.servers.split(',').collect();
        let specs = addresses
            .iter()
            .map(|a| ServerSpec::unweighted(*a))
            .collect();
        let ring = ring(flavour, specs, None);
        let down: Vec<usize> = match t.down.as_str() {
            "-" => vec![],
            list => list.split(',').map(|d| d.parse().unwrap()).collect(),
        };
        let ours: Vec<String> = t
            .keys
            .iter()
            .map(|key| {
                let at = ring.locate_live(key, |s| down.contains(&s)).unwrap();
                addresses[at.server_index].to_string()
            })
            .collect();
        let name = format!("{} (down: {})", t.test, t.down);
        compared += report(flavour.name(), &name, &t.keys, &ours, &t.expected);
    }
    assert_eq!(compared, 33);
}

/// A list as spymemcached and xmemcached both label it: each server a
/// named address (`cacheN/ip`), which Java prints `cacheN/ip:port`.
fn named(list: &ServerList) -> (Vec<SpyServer>, Vec<ServerSpec>) {
    list.servers
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let name = format!("cache{i}");
            let spy = SpyServer {
                java_name: name.clone(),
                ip: s.host.clone(),
                port: s.port,
                weight: 1,
            };
            let spec = ServerSpec::unweighted(format!("{name}/{}:{}", s.host, s.port).as_str());
            (spy, spec)
        })
        .collect()
}

#[test]
fn the_ketama_continuum_is_spymemcacheds_for_named_servers() {
    let flavour = Flavour::Xmemcached;
    assert_eq!(flavour.default_hash(), HashAlgorithm::Md5);
    let lists = [3, 10, 100].map(|n| peers::servers(n, Weights::None));
    for hash in [
        HashAlgorithm::Md5,
        HashAlgorithm::SpyNative,
        HashAlgorithm::SpyFnv1a32,
        HashAlgorithm::SpyFnv1_64,
    ] {
        let mut table = Vec::new();
        let mut spy_servers = Vec::new();
        for list in &lists {
            let (spy, specs) = named(list);
            // Equal points of two servers: spymemcached keeps the later,
            // xmemcached sorts them (checked in the library's unit tests).
            let mut points = Flavour::Spymemcached
                .generate(&specs, hash, &Default::default())
                .unwrap()
                .points;
            points.sort_unstable();
            assert!(
                points
                    .windows(2)
                    .all(|w| w[0].0 != w[1].0 || w[0].1 == w[1].1),
                "{}: two servers share a point",
                list.name
            );
            let ours = ring(flavour, specs.clone(), Some(hash));
            let mut keys = java_keys();
            keys.extend(specs.iter().flat_map(|s| {
                (0..40).map(move |k| [&s.address[..], format!("-{k}").as_bytes()].concat())
            }));
            keys.extend(past_last_point_keys(&ours, 5));
            table.push(Case::new(
                format!("{} (named), {hash:?}", list.name),
                specs,
                keys,
            ));
            spy_servers.push(spy);
        }
        let ask = |table: &[Case<Vec<ServerSpec>>]| {
            let cases: Vec<SpyCase> = table
                .iter()
                .zip(spy_servers.drain(..))
                .map(|(case, servers)| SpyCase {
                    format: "SPYMEMCACHED",
                    repetitions: None,
                    hash: java_hash_name(hash),
                    weighted: false,
                    servers,
                    keys: &case.keys,
                })
                .collect();
            spymemcached_answers(&cases)
                .into_iter()
                .map(Answer::from)
                .collect()
        };
        let compared = harness::compare(flavour.name(), &table, ask, |case| {
            ring(flavour, case.input.clone(), Some(hash))
        });
        assert!(compared >= 3 * 10_000);
    }
}

/// The server lines of `list` as the JVM sees them, and what it prints.
#[test]
fn ketama_labels_are_what_java_prints_for_each_address() {
    let mut lists = standard_lists();
    lists.extend(peers::edge_lists());
    let mut lines = String::new();
    let mut ours = Vec::new();
    for list in &lists {
        for s in &list.servers {
            if s.host.parse::<IpAddr>().is_err() {
                continue; // a name is written name/ip: taken as written
            }
            lines += &format!("{} {}\n", s.host, s.port);
            let spec = ServerSpec::unweighted(s.address().as_str());
            ours.push(ketama_core::flavour::xmemcached::socket_string(&spec).unwrap());
        }
    }
    let dir = common::scratch_dir("xmemcached-socket-strings");
    std::fs::write(dir.join("addresses"), &lines).unwrap();
    let classes = peer_programs::compile_java("SocketStrings.java", "socket-strings", "");
    let output = common::run_with_timeout(
        std::process::Command::new("java")
            .arg("-cp")
            .arg(&classes)
            .arg("SocketStrings")
            .arg(dir.join("addresses")),
        std::time::Duration::from_secs(120),
    );
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let theirs: Vec<Vec<u8>> = output
        .stdout
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(<[u8]>::to_vec)
        .collect();
    let keys: Vec<Vec<u8>> = lines.lines().map(|l| l.as_bytes().to_vec()).collect();
    report(
        "xmemcached",
        "String.valueOf(InetSocketAddress)",
        &keys,
        &ours,
        &theirs,
    );
}

/// The session list the array and PHP locators index: each server
/// `weight` times in a row.
fn sessions(list: &ServerList) -> Vec<usize> {
    list.servers
        .iter()
        .enumerate()
        .flat_map(|(i, s)| std::iter::repeat_n(i, s.weight.unwrap_or(1) as usize))
        .collect()
}

#[test]
fn the_array_locator_is_array_mod_over_the_weighted_session_list() {
    let flavour = Flavour::XmemcachedArray;
    assert_eq!(flavour.default_hash(), HashAlgorithm::SpyNative);
    let classpath = spy_classpath();
    let keys = java_keys();
    for hash in [
        HashAlgorithm::SpyNative,
        HashAlgorithm::Md5,
        HashAlgorithm::Crc,
        HashAlgorithm::SpyFnv1_32,
        HashAlgorithm::SpyFnv1a64,
    ] {
        let lists = standard_lists();
        let table: Vec<Case<&ServerList>> = lists
            .iter()
            .map(|l| Case::new(format!("{}, {hash:?}", l.name), l, keys.clone()))
            .collect();
        let ask = |table: &[Case<&ServerList>]| {
            let asked: Vec<peer_programs::PerKeyCase> = table
                .iter()
                .map(|case| peer_programs::PerKeyCase {
                    servers: sessions(case.input)
                        .iter()
                        .map(|&i| case.input.servers[i].address() + "\n")
                        .collect(),
                    keys: &case.keys,
                    down: vec![],
                })
                .collect();
            let program = [
                OsStr::new("java"),
                OsStr::new("-Dfile.encoding=UTF-8"),
                OsStr::new("-cp"),
                OsStr::new(classpath),
                OsStr::new("SpyPeer"),
                OsStr::new("array"),
                OsStr::new(java_hash_name(hash)),
            ];
            let (answers, _) = peer_programs::per_key_answers("xmemcached-array", &program, &asked);
            table
                .iter()
                .zip(answers)
                .map(|(case, nodes)| {
                    let of = sessions(case.input);
                    Answer {
                        servers: nodes.into_iter().map(|n| n.map(|n| of[n])).collect(),
                        continuum: None,
                    }
                })
                .collect()
        };
        let compared = harness::compare(flavour.name(), &table, ask, |case| {
            ring(flavour, case.input.specs(), Some(hash))
        });
        assert!(compared >= 9 * 10_000);
    }
}

#[test]
fn the_php_locator_takes_bits_16_to_30_of_the_jvms_hash() {
    let flavour = Flavour::XmemcachedPhp;
    assert_eq!(flavour.default_hash(), HashAlgorithm::SpyNative);
    let keys = java_keys();
    let dir = common::scratch_dir("xmemcached-php-hashes");
    peers::write_keys(&dir.join("keys"), &keys);
    peer_programs::spy_java(&[
        std::path::Path::new("hash"),
        &dir.join("keys"),
        &dir.join("out"),
    ]);
    let rows = std::fs::read_to_string(dir.join("out")).unwrap();
    let hashes: Vec<HashMap<&str, u64>> = rows
        .lines()
        .map(|row| {
            row.split(' ')
                .map(|f| {
                    let (name, value) = f.split_once('=').unwrap();
                    (name, value.parse().unwrap())
                })
                .collect()
        })
        .collect();
    assert_eq!(hashes.len(), keys.len());
    for hash in [
        HashAlgorithm::SpyNative,
        HashAlgorithm::Md5,
        HashAlgorithm::Crc,
    ] {
        for list in standard_lists() {
            let of = sessions(&list);
            // PHPMemcacheSessionLocator.getHash: (hash >> 16) & 0x7fff, % size.
            let theirs: Vec<Option<usize>> = hashes
                .iter()
                .map(|h| {
                    let h = h[java_hash_name(hash)];
                    Some(of[(((h >> 16) & 0x7fff) % of.len() as u64) as usize])
                })
                .collect();
            let ring = ring(flavour, list.specs(), Some(hash));
            let ours: Vec<Option<usize>> = keys
                .iter()
                .map(|k| ring.locate(k).map(|at| at.server_index))
                .collect();
            report(
                flavour.name(),
                &format!("{}, {hash:?}", list.name),
                &keys,
                &ours,
                &theirs,
            );
        }
    }
}

#[test]
fn the_libmemcached_locator_is_libmemcacheds_consistent_ring() {
    let flavour = Flavour::XmemcachedLibmemcached;
    assert_eq!(flavour.default_hash(), HashAlgorithm::OneAtATimeUnsigned);
    ketama_testkit::redis_clients::require_php("class_exists('Memcached')", "php8.2-memcached");
    let dir = common::scratch_dir("xmemcached-libmemcached");
    let mut names = Vec::new();
    let mut files = Vec::new();
    let mut all_keys = Vec::new();
    let mut ours = Vec::new();
    for (n, list) in [3, 10, 100]
        .map(|n| peers::servers(n, Weights::None))
        .iter()
        .enumerate()
    {
        let ring = ring(flavour, list.specs(), None);
        // php-memcached takes keys of up to 250 bytes; ASCII only (above).
        let mut keys = keys();
        keys.extend(odd_keys().into_iter().filter(|k| k.len() <= 250));
        keys.extend(label_keys(list, 40));
        keys.extend(past_last_point_keys(&ring, 5));
        assert!(keys.iter().all(|k| k.is_ascii()));
        let (key_file, out) = (
            dir.join(format!("case{n}.keys")),
            dir.join(format!("case{n}.out")),
        );
        peers::write_keys(&key_file, &keys);
        let servers: Vec<String> = list
            .servers
            .iter()
            .map(|s| format!("[\"{}\", {}, 0]", s.host, s.port))
            .collect();
        let json = format!(
            "{{\"options\": {{\"OPT_DISTRIBUTION\": \"DISTRIBUTION_CONSISTENT\"}}, \"servers\": [{}], \"keys\": \"{}\", \"out\": \"{}\"}}",
            servers.join(", "),
            key_file.display(),
            out.display()
        );
        let file = dir.join(format!("case{n}.json"));
        std::fs::write(&file, json).unwrap();
        ours.push(
            keys.iter()
                .map(|k| list.servers[ring.locate(k).unwrap().server_index].address())
                .collect::<Vec<_>>(),
        );
        names.push(list.name.clone());
        files.push((file, out));
        all_keys.push(keys);
    }
    let output = common::run_with_timeout(
        std::process::Command::new("php")
            .args(["-n", "-d", "extension=igbinary", "-d", "extension=msgpack"])
            .args(["-d", "extension=memcached"])
            .arg(common::peer_program("php_peer.php"))
            .arg("memcached")
            .args(files.iter().map(|(f, _)| f)),
        std::time::Duration::from_secs(300),
    );
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let mut compared = 0;
    for (((name, (_, out)), keys), ours) in names.iter().zip(&files).zip(&all_keys).zip(&ours) {
        let theirs: Vec<String> = std::fs::read_to_string(out)
            .unwrap()
            .lines()
            .map(str::to_string)
            .collect();
        compared += report(flavour.name(), name, keys, ours, &theirs);
    }
    assert!(compared >= 3 * 10_000);
}
