//! Migration planning in the CLI: `ketama diff` between two flavours (and
//! two key hashes) on one server list or two. A Rails app on dalli moving to
//! the libketama placement of its PHP neighbours: the moved share and the
//! from→to table `diff --keys` reports equal those computed from the real
//! dalli and the real libketama (the original C code) asked about the same
//! keys. The per-key peers (python-memcached, Cache::Memcached) are asked
//! about the documented default sample, and exact continuum comparisons are
//! checked against the library's analysis.

use ketama_testkit as common;
use ketama_testkit::peer_programs;
use ketama_testkit::peers;

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::process::Output;

use ketama_core::analysis::{DEFAULT_SAMPLE_KEYS, Measure, movement};
use ketama_core::{Flavour, Ring, RingConfig};
use peer_programs::{PerKeyCase, dalli_answers, libketama_answers, per_key_answers};
use peers::{ServerList, Weights, keys, servers, write_keys};

fn ketama(args: &[&OsStr]) -> Output {
    crate::ketama_cli(args, b"")
}

fn stdout(out: &Output) -> String {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).unwrap()
}

/// The libketama server file of a list (`ADDRESS<TAB>WEIGHT`).
fn libketama_file(list: &ServerList, name: &str) -> std::path::PathBuf {
    list.write_libketama_file(common::scratch_dir("cli-migration").join(name))
}

/// The moved line and the sorted FROM/TO/SHARE rows of `diff`'s output.
fn moved_and_flows(text: &str) -> (String, Vec<String>) {
    let moved = text
        .lines()
        .find_map(|l| l.strip_prefix("moved: "))
        .unwrap_or_else(|| panic!("no moved line in {text}"))
        .split(' ')
        .next()
        .unwrap()
        .to_string();
    let mut rows: Vec<String> = text
        .lines()
        .skip_while(|l| *l != "FROM\tTO\tSHARE")
        .skip(1)
        .map(String::from)
        .collect();
    rows.sort();
    (moved, rows)
}

/// The moved share and the table as `diff` prints them, from two peers'
/// answers (server indices of `list`) for the same keys.
fn expected_from_peers(list: &ServerList, from: &[usize], to: &[usize]) -> (String, Vec<String>) {
    let mut flows: BTreeMap<(usize, usize), usize> = BTreeMap::new();
    for (&a, &b) in from.iter().zip(to) {
        if a != b {
            *flows.entry((a, b)).or_default() += 1;
        }
    }
    let total = from.len() as f64;
    let moved: usize = flows.values().sum();
    let mut rows: Vec<String> = flows
        .iter()
        .map(|(&(a, b), &n)| {
            format!(
                "{}\t{}\t{:.3}%",
                list.servers[a].address(),
                list.servers[b].address(),
                n as f64 / total * 100.0
            )
        })
        .collect();
    rows.sort();
    (format!("{:.3}%", moved as f64 / total * 100.0), rows)
}

#[test]
fn dalli_to_libketama_moves_what_the_real_peers_say() {
    for list in [servers(3, Weights::Equal), servers(10, Weights::Unequal)] {
        let keys = keys();
        let dalli_lines: String = list
            .servers
            .iter()
            .map(|s| format!("{}:{}\n", s.address(), s.weight.unwrap_or(1)))
            .collect();
        let dalli = dalli_answers(&[(dalli_lines, keys.as_slice())])
            .remove(0)
            .nodes;
        let libketama = libketama_answers(&list, &keys);
        let expected = expected_from_peers(&list, &dalli, &libketama);

        let file = libketama_file(&list, "servers");
        let key_file = common::scratch_dir("cli-migration").join("keys");
        write_keys(&key_file, &keys);
        let out = stdout(&ketama(&[
            OsStr::new("diff"),
            OsStr::new("--from-flavor"),
            OsStr::new("dalli"),
            OsStr::new("--to-flavor"),
            OsStr::new("libketama"),
            OsStr::new("--keys"),
            key_file.as_os_str(),
            file.as_os_str(),
        ]));
        assert!(
            out.contains(&format!("of {} keys from", keys.len())),
            "{out}"
        );
        assert_eq!(moved_and_flows(&out), expected, "{}: {out}", list.name);
        println!(
            "{}: dalli -> libketama moves {} of {} keys (real peers and CLI agree)",
            list.name,
            expected.0,
            keys.len()
        );
    }
}

#[test]
fn python_memcached_to_cache_memcached_on_the_default_sample_matches_the_peers() {
    let list = servers(10, Weights::Unequal);
    let sample: Vec<Vec<u8>> = (0..DEFAULT_SAMPLE_KEYS)
        .map(|i| format!("key:{i}").into_bytes())
        .collect();
    let lines: String = list
        .servers
        .iter()
        .map(|s| format!("{}\t{}\n", s.address(), s.weight.unwrap_or(1)))
        .collect();
    let case = PerKeyCase {
        servers: lines,
        keys: &sample,
        down: vec![],
    };
    let python_script = common::peer_program("python_memcached_peer.py");
    let perl_script = common::peer_program("cache_memcached_peer.pl");
    let (python, _) = per_key_answers(
        "migration-python",
        &[OsStr::new("/usr/bin/python3"), python_script.as_os_str()],
        std::slice::from_ref(&case),
    );
    let (perl, _) = per_key_answers(
        "migration-perl",
        &[OsStr::new("perl"), perl_script.as_os_str()],
        std::slice::from_ref(&case),
    );
    let unwrap = |v: &[Option<usize>]| v.iter().map(|i| i.unwrap()).collect::<Vec<_>>();
    let expected = expected_from_peers(&list, &unwrap(&python[0]), &unwrap(&perl[0]));
    let file = libketama_file(&list, "servers-modulo");
    let out = stdout(&ketama(&[
        OsStr::new("diff"),
        OsStr::new("--from-flavor"),
        OsStr::new("python-memcached"),
        OsStr::new("--to-flavor"),
        OsStr::new("cache-memcached"),
        file.as_os_str(),
    ]));
    assert!(
        out.contains("of 100000 generated keys key:0..key:99999"),
        "{out}"
    );
    assert_eq!(moved_and_flows(&out), expected, "{out}");
}

#[test]
fn continuum_pairs_hashing_keys_alike_are_exact() {
    let list = servers(61, Weights::None);
    let file = libketama_file(&list, "servers-61");
    let out = stdout(&ketama(&[
        OsStr::new("diff"),
        OsStr::new("--from-flavor"),
        OsStr::new("libketama"),
        OsStr::new("--to-flavor"),
        OsStr::new("sockiopool"),
        file.as_os_str(),
        file.as_os_str(),
    ]));
    let specs = list
        .servers
        .iter()
        .map(|s| ketama_core::ServerSpec::new(s.address(), 1))
        .collect::<Vec<_>>();
    let old = Ring::new(specs.clone(), RingConfig::flavour(Flavour::Libketama)).unwrap();
    let new = Ring::new(specs, RingConfig::flavour(Flavour::LibketamaJava)).unwrap();
    let m = movement(&old, &new);
    assert_eq!(m.measure, Measure::Exact);
    assert!(m.moved > 0.0);
    assert!(
        out.starts_with(&format!("moved: {:.3}% of the keyspace\n", m.moved * 100.0)),
        "{out}"
    );
    // The same flavour on both sides moves nothing.
    let same = stdout(&ketama(&[
        OsStr::new("diff"),
        OsStr::new("--from-flavor"),
        OsStr::new("nginx"),
        OsStr::new("--to-flavor"),
        OsStr::new("nginx"),
        file.as_os_str(),
    ]));
    assert!(
        same.starts_with("moved: 0.000% of the keyspace\n"),
        "{same}"
    );
}

#[test]
fn hashes_per_side_and_bad_requests_are_named() {
    let out = stdout(&ketama(
        &[
            "diff",
            "--flavor",
            "twemproxy",
            "--from-hash",
            "crc32",
            "--to-hash",
            "crc32a",
            "--servers",
            "10.0.0.1:11211,10.0.0.2:11211,10.0.0.3:11211",
        ]
        .map(OsStr::new),
    ));
    assert!(out.contains("generated keys"), "{out}");
    let fail = |args: &[&str], expected: &str| {
        let out = ketama(&args.iter().map(OsStr::new).collect::<Vec<_>>());
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
    };
    fail(
        &["diff", "--to-flavor", "nope", "--servers", "a:1"],
        "--to side: unknown flavour \"nope\" (known: libketama, spymemcached,",
    );
    fail(
        &[
            "diff",
            "--from-flavor",
            "pymemcache",
            "--from-hash",
            "md5",
            "--servers",
            "a:1",
        ],
        "--from side: flavour pymemcache has no key hash \"md5\" (it offers: murmur3_seed0)",
    );
    fail(&["diff", "a", "b", "c"], "diff takes two server files");
    // Key files are read bounded: a directory is refused, a line over 1 MiB
    // stops the read naming it, /dev/zero gives one 64 KiB key.
    let dir = common::scratch_dir("cli-migration-keys");
    let long = dir.join("long");
    std::fs::write(&long, vec![b'k'; (1 << 20) + 10]).unwrap();
    for (keys, expected) in [
        (dir.display().to_string(), "is a directory"),
        (
            long.display().to_string(),
            "line 1 is longer than 1048576 bytes",
        ),
    ] {
        let out = ketama(
            &[
                "diff",
                "--to-flavor",
                "dalli",
                "--servers",
                "a:1,b:1",
                "--keys",
                &keys,
            ]
            .map(OsStr::new),
        );
        assert_eq!(out.status.code(), Some(1));
        assert!(
            String::from_utf8_lossy(&out.stderr).contains(expected),
            "{out:?}"
        );
    }
    let zero = stdout(&ketama(
        &[
            "diff",
            "--to-flavor",
            "dalli",
            "--servers",
            "a:1,b:1",
            "--keys",
            "/dev/zero",
        ]
        .map(OsStr::new),
    ));
    assert!(zero.contains("of 1 keys from /dev/zero"), "{zero}");
    let dump =
        ketama(&["dump", "--flavor", "python-memcached", "--servers", "a:1"].map(OsStr::new));
    assert_eq!(dump.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&dump.stderr).contains(
            "flavour python-memcached places each key on its own (hash modulo the weighted bucket list): it has no continuum points"
        )
    );
}

/// Two files OLD NEW are each read as `find` reads a file under its side's
/// flavour: a Predis pool's server file against the cluster's `CLUSTER
/// NODES` text, here the layout `redis-cli --cluster create` gives the same
/// three masters (0-5460, 5461-10922, 10923-16383), measures what the same
/// masters given once with `--servers` (the layout) measure.
#[test]
fn each_file_is_read_in_its_side_s_syntax() {
    let masters = ["10.0.0.1:6379", "10.0.0.2:6379", "10.0.0.3:6379"];
    let dir = common::scratch_dir("cli-migration-cluster");
    let pool = dir.join("predis.servers");
    let lines: String = masters.iter().map(|m| format!("{m}\t1\n")).collect();
    std::fs::write(&pool, lines).unwrap();
    let nodes = dir.join("nodes.txt");
    let slots = ["0-5460", "5461-10922", "10923-16383"];
    let text: String = masters
        .iter()
        .zip(slots)
        .enumerate()
        .map(|(i, (m, s))| format!("id{i} {m}@16379 master - 0 0 {i} connected {s}\n"))
        .collect();
    std::fs::write(&nodes, text).unwrap();
    let sides = [
        "diff",
        "--from-flavor",
        "predis",
        "--to-flavor",
        "redis-cluster",
    ];
    let mut args: Vec<&OsStr> = sides.iter().map(OsStr::new).collect();
    args.extend([pool.as_os_str(), nodes.as_os_str()]);
    let from_files = stdout(&ketama(&args));
    let mut args: Vec<&OsStr> = sides.iter().map(OsStr::new).collect();
    let list = masters.join(",");
    args.extend([OsStr::new("--servers"), OsStr::new(&list)]);
    let from_list = stdout(&ketama(&args));
    assert_eq!(from_files, from_list);
    assert!(from_files.contains("generated keys"), "{from_files}");
    // The cluster's file read as a server list of the other side fails,
    // naming the line.
    let mut args: Vec<&OsStr> = sides.iter().map(OsStr::new).collect();
    args.extend([nodes.as_os_str(), pool.as_os_str()]);
    let out = ketama(&args);
    assert_ne!(out.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("line 1"), "{stderr}");
}
