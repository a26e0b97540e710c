//! The CLI's flavour options: `--flavor`, `--hash` in each peer's spelling,
//! `--servers H:P:W` and `--servers-file` (twemproxy's name column), and
//! `find --down` failover. Answers are checked against the library API.

use ketama_testkit as common;

use std::process::Output;

use ketama_core::hash::HashAlgorithm;
use ketama_core::{Flavour, Ring, RingConfig, ServerSpec};

fn ketama(args: &[&str]) -> Output {
    crate::ketama_cli(args, b"")
}

fn answers(out: &Output) -> Vec<(String, String)> {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone())
        .unwrap()
        .lines()
        .map(|l| {
            let (k, s) = l.split_once('\t').unwrap();
            (k.to_string(), s.to_string())
        })
        .collect()
}

const KEYS: [&str; 8] = ["a", "b", "user:1", "user:2", "session:9", "x", "y", "z"];

#[test]
fn servers_with_weights_and_peer_hash_spelling_match_the_library() {
    for (flavour, hash_name, hash) in [
        ("twemproxy", "crc32", HashAlgorithm::Crc),
        ("twemproxy", "crc32a", HashAlgorithm::Crc32),
        ("pecl-memcache", "crc32", HashAlgorithm::Crc32),
        ("pecl", "fnv", HashAlgorithm::Fnv1a32),
        ("java", "fnv1a_64", HashAlgorithm::SpyFnv1a64),
        ("php-memcached", "murmur", HashAlgorithm::Murmur),
    ] {
        let mut args = vec!["find", "--flavor", flavour, "--hash", hash_name];
        args.extend([
            "--servers",
            "10.0.0.1:11211:1,10.0.0.2:11211:3,[::1]:11300:2",
        ]);
        args.extend(KEYS);
        let out = answers(&ketama(&args));
        let specs = vec![
            ServerSpec::new("10.0.0.1:11211", 1),
            ServerSpec::new("10.0.0.2:11211", 3),
            ServerSpec::new("[::1]:11300", 2),
        ];
        let ring = Ring::new(
            specs,
            RingConfig::new(Flavour::from_name(flavour).unwrap(), Some(hash)),
        )
        .unwrap();
        for (key, server) in out {
            assert_eq!(
                server.as_bytes(),
                ring.find_server(key.as_bytes()).unwrap().address(),
                "{flavour} {hash_name} {key}"
            );
        }
    }
}

#[test]
fn hash_default_places_as_no_hash_at_all() {
    // `default` (any case) is the flavour's own hash, as C's
    // KETAMA_HASH_DEFAULT and PHP's default argument 'default' are.
    let servers = "10.0.0.1:11211,10.0.0.2:11211,[::1]:11300";
    for flavour in [
        "libketama",
        "twemproxy",
        "pecl-memcache",
        "dalli",
        "pymemcache",
        "envoy-maglev",
    ] {
        let find = |hash: &[&str]| {
            let base = ["find", "--flavor", flavour, "--servers", servers];
            answers(&ketama(&[&base[..], hash, &KEYS].concat()))
        };
        let own = find(&[]);
        let specs = servers.split(',').map(ServerSpec::unweighted).collect();
        let config = RingConfig::flavour(Flavour::from_name(flavour).unwrap());
        let ring = Ring::new(specs, config).unwrap();
        for (key, server) in &own {
            let expected = ring.find_server(key.as_bytes()).unwrap().address();
            assert_eq!(server.as_bytes(), expected, "{flavour} {key}");
        }
        for default in ["default", "DEFAULT", "Default"] {
            assert_eq!(
                find(&["--hash", default]),
                own,
                "{flavour} --hash {default}"
            );
        }
    }
    let out = ketama(&[
        "diff",
        "--flavor",
        "twemproxy",
        "--from-hash",
        "default",
        "--to-hash",
        "fnv1a_64",
        "--servers",
        servers,
    ]);
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("moved: 0.000% of the keyspace"), "{text}");
}

#[test]
fn down_servers_fail_over_to_the_next_live_server_by_address_or_name() {
    let dir = common::scratch_dir("cli-flavours");
    let file = dir.join("twemproxy.list");
    std::fs::write(
        &file,
        "# pool\n- 127.0.0.1:11211:1 alpha\n- 127.0.0.1:11212:1 beta\n- 127.0.0.1:11213:2 gamma\n",
    )
    .unwrap();
    let file = file.to_str().unwrap();
    let base = ["find", "--flavor", "twemproxy", "--servers-file", file];
    let all = answers(&ketama(&[&base[..], &KEYS].concat()));
    let specs = ["alpha", "beta", "gamma"]
        .iter()
        .enumerate()
        .map(|(i, name)| ServerSpec {
            address: format!("127.0.0.1:{}", 11211 + i).into_bytes(),
            weight: Some(if i == 2 { 2 } else { 1 }),
            name: Some(name.as_bytes().to_vec()),
        })
        .collect();
    let ring = Ring::new(specs, RingConfig::flavour(Flavour::Twemproxy)).unwrap();
    // The same list read by the library's peer-list reading (KETAMA_PARSE_PEERS in C).
    let from_file = Ring::from_file(
        std::path::Path::new(file),
        RingConfig::flavour(Flavour::Twemproxy),
        ketama_core::parser::ParseMode::Peers,
    )
    .unwrap();
    assert_eq!(from_file.continuum().points(), ring.continuum().points());
    assert_eq!(from_file.servers()[2].name(), Some(&b"gamma"[..]));
    for down in ["beta", "127.0.0.1:11212"] {
        let failed_over = answers(&ketama(&[&base[..], &["--down", down], &KEYS].concat()));
        for ((key, before), (_, after)) in all.iter().zip(&failed_over) {
            let expected = ring.locate_live(key.as_bytes(), |s| s == 1).unwrap();
            assert_eq!(
                after.as_bytes(),
                ring.servers()[expected.server_index].address()
            );
            assert_ne!(after, "127.0.0.1:11212");
            if before != "127.0.0.1:11212" {
                assert_eq!(before, after, "{key}: only keys of the down server move");
            }
        }
    }
    let none_left = ketama(&[&base[..], &["--down", "alpha,beta,gamma", "k"]].concat());
    assert_eq!(none_left.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&none_left.stderr)
            .contains("every server owning points is marked down")
    );
}

#[test]
fn bad_flavour_input_is_named() {
    let cases: [(&[&str], i32, &str); 5] = [
        (
            &[
                "find",
                "--flavor",
                "pecl",
                "--hash",
                "md5",
                "--servers",
                "a:1",
                "k",
            ],
            2,
            "flavour pecl-memcache has no key hash \"md5\" (it offers: crc32, fnv1a_32)",
        ),
        (
            &["find", "--down", "zz:1", "--servers", "a:1", "k"],
            2,
            "--down: 'zz:1' is not a server of the ring",
        ),
        (
            &[
                "find",
                "--flavor",
                "libmemcached",
                "--servers",
                "cache1",
                "k",
            ],
            1,
            "server address 'cache1': no port",
        ),
        (
            &["find", "--servers", "a:1:x", "k"],
            1,
            "server entry 'a:1:x': weight 'x' is not a positive integer",
        ),
        (
            &["find", "--servers", "a:1:2", "--weights", "3", "k"],
            2,
            "--weights cannot be combined with weights in the server list",
        ),
    ];
    for (args, code, message) in cases {
        let out = ketama(args);
        assert_eq!(out.status.code(), Some(code), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(message), "{args:?}: {stderr}");
    }
}

/// The continuum flavours by name and alias, with the server lists as their
/// users write them: SockIOPool's TAB lines (a bad weight read as 1) for
/// `libketama-java`, an nginx `upstream` block for `nginx`, `host:port:weight`
/// for the others.
#[test]
fn continuum_flavours_read_their_users_server_lists() {
    let dir = common::scratch_dir("cli-continuum-flavours");
    let sockiopool = dir.join("sockiopool.servers");
    std::fs::write(
        &sockiopool,
        "10.0.0.1:11211\t2\n10.0.0.2:11211\tbad\n10.0.0.3:11211\n",
    )
    .unwrap();
    let upstream = dir.join("upstream.conf");
    std::fs::write(
        &upstream,
        "upstream cache {\n  hash $request_uri consistent;\n  server 10.0.0.1:8080 weight=2;\n  server 10.0.0.2:8080;\n}\n",
    )
    .unwrap();
    let cases: Vec<(Vec<&str>, Flavour, Vec<ServerSpec>)> = vec![
        (
            vec!["--flavor", "sockiopool", sockiopool.to_str().unwrap()],
            Flavour::LibketamaJava,
            vec![
                ServerSpec::new("10.0.0.1:11211", 2),
                ServerSpec::new("10.0.0.2:11211", 1),
                ServerSpec::new("10.0.0.3:11211", 1),
            ],
        ),
        (
            vec![
                "--flavor",
                "nginx",
                "--servers-file",
                upstream.to_str().unwrap(),
            ],
            Flavour::Nginx,
            vec![
                ServerSpec::new("10.0.0.1:8080", 2),
                ServerSpec::unweighted("10.0.0.2:8080"),
            ],
        ),
        (
            vec!["--flavor", "ruby", "--servers", "10.0.0.1:11211:2,cache-b"],
            Flavour::Dalli,
            vec![
                ServerSpec::new("10.0.0.1:11211", 2),
                ServerSpec::unweighted("cache-b"),
            ],
        ),
        (
            vec![
                "--flavor",
                "node",
                "--servers",
                "10.0.0.1:11211:2,10.0.0.2:11300",
            ],
            Flavour::NodeMemcached,
            vec![
                ServerSpec::new("10.0.0.1:11211", 2),
                ServerSpec::unweighted("10.0.0.2:11300"),
            ],
        ),
        (
            vec![
                "--flavor",
                "memcached-fast",
                "--servers",
                "10.0.0.1:11211:2,10.0.0.2:11300",
            ],
            Flavour::MemcachedFast,
            vec![
                ServerSpec::new("10.0.0.1:11211", 2),
                ServerSpec::unweighted("10.0.0.2:11300"),
            ],
        ),
    ];
    for (options, flavour, specs) in cases {
        let mut args = vec!["find"];
        args.extend(&options);
        args.extend(KEYS);
        let out = answers(&ketama(&args));
        assert_eq!(out.len(), KEYS.len(), "{options:?}");
        let ring = Ring::new(specs, RingConfig::flavour(flavour)).unwrap();
        for (key, server) in out {
            assert_eq!(
                server.as_bytes(),
                ring.find_server(key.as_bytes()).unwrap().address(),
                "{options:?} {key}"
            );
        }
    }
    // A weight SockIOPool reads as 0 or less is refused with its line.
    std::fs::write(&sockiopool, "10.0.0.1:11211\t1\n10.0.0.2:11211\t-3\n").unwrap();
    let out = ketama(&[
        "find",
        "--flavor",
        "libketama-java",
        sockiopool.to_str().unwrap(),
        "a",
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("weight -3 is not positive") && err.contains("line 2"),
        "{err}"
    );
}
