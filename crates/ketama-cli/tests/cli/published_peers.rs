//! The CLI places keys where the published expectations of the clients
//! that cannot run here say (their suites in the core's `peers` test
//! binary check the library against them): Envoy's ring_hash and maglev
//! load balancers (envoyproxy/envoy:
//! test/extensions/load_balancing_policies/ring_hash/ring_hash_lb_test.cc at
//! 13e9fdb2d4db3480ff278565a596324951e8dccd,
//! test/extensions/load_balancing_policies/maglev/maglev_lb_test.cc at
//! 08417eb62f1ecfa6ac015caa0146d25565a142ed, test/common/common/hash_test.cc
//! at 01ee5bb6f8621b9e227acfc3eb9243e8eaba967e) and mcrouter's routing keys
//! (facebook/mcrouter at 9d7f43422b858da05bf699d4c311f236d122792b).

use std::process::Command;

use ketama_core::ServerSpec;
use ketama_core::flavour::envoy::{Envoy, MaglevConfig, Policy, RingHashConfig};
use ketama_core::flavour::mcrouter::routing_key;
use ketama_core::hash::xxhash64::xxhash64;
use ketama_testkit::envoy_published::{BASIC_RING, HOSTNAME_RING, MURMUR_RING, Ring};

use crate::ketama_bin;

fn hosts(ports: std::ops::Range<u32>) -> Vec<ServerSpec> {
    ports
        .map(|port| ServerSpec::unweighted(format!("127.0.0.1:{port}")))
        .collect()
}

/// Keys are hashed as Envoy's header hash policy hashes a header value
/// (xxHash64, seed 0; test/common/common/hash_test.cc gives its values):
/// the flavours place a key where the balancer places its hash, in the
/// library and through the CLI; a host that is down takes no key (Envoy
/// rebuilds the balancer over the healthy hosts).
#[test]
fn keys_through_the_flavours() {
    let servers = hosts(90..96);
    let list: Vec<String> = (90..96).map(|p| format!("127.0.0.1:{p}")).collect();
    assert_eq!(xxhash64(b"foo", 0), 3_728_699_739_546_630_719);
    for (flavour, policy) in [
        (
            "envoy-ring-hash",
            Policy::RingHash(RingHashConfig::default()),
        ),
        ("envoy-maglev", Policy::Maglev(MaglevConfig::default())),
    ] {
        let envoy = Envoy::new(&servers, policy).unwrap();
        let keys: Vec<String> = (0..2000).map(|i| format!("key:{i}")).collect();
        let out = Command::new(ketama_bin())
            .args(["find", "--flavor", flavour, "--servers", &list.join(",")])
            .arg("--")
            .args(&keys)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8(out.stdout).unwrap();
        for (key, line) in keys.iter().zip(text.lines()) {
            let host = envoy.pick_hash(xxhash64(key.as_bytes(), 0)).unwrap().host;
            assert_eq!(line, format!("{key}\t{}", list[host]), "{flavour}");
            let live = envoy.pick_hash_live(xxhash64(key.as_bytes(), 0), &|i| i == 2);
            assert_ne!(live.unwrap().host, 2, "{flavour} {key}");
        }
    }
}

/// The CLI's placement options reproduce the tests' configurations: each of
/// 2,000 keys goes where the published ring or table puts its xxHash64
/// (ring_hash_lb_test.cc Basic, BasicWithMurmur2 and BasicWithHostname
/// positions; maglev_lb_test.cc Basic and Weighted assignments).
#[test]
fn published_configurations_through_the_cli_options() {
    let dir = ketama_testkit::scratch_dir("peer-envoy");
    let keys: Vec<String> = (0..2000).map(|i| format!("user:{i}:profile")).collect();
    let run = |flavour: &str, options: &str, servers: &str| -> Vec<usize> {
        let file = dir.join(format!(
            "{flavour}-{}.servers",
            options.replace(['=', ','], "_")
        ));
        std::fs::write(&file, servers).unwrap();
        let out = Command::new(ketama_bin())
            .args([
                "find",
                "--flavor",
                flavour,
                "--options",
                options,
                "--servers-file",
            ])
            .arg(&file)
            .arg("--")
            .args(&keys)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let lines: Vec<&str> = servers.lines().collect();
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| {
                let address = l.split('\t').nth(1).unwrap();
                lines.iter().position(|s| s.starts_with(address)).unwrap()
            })
            .collect()
    };
    let ring_host = |published: &[(u32, u64)], base: u32, hash: u64| -> usize {
        let at = published.iter().position(|&(_, p)| p >= hash).unwrap_or(0);
        (published[at].0 - base) as usize
    };
    let six = |base: u32, named: bool| -> String {
        (base..base + 6)
            .map(|p| match named {
                true => format!("127.0.0.1:{p}:1 {p}\n"),
                false => format!("127.0.0.1:{p}:1\n"),
            })
            .collect()
    };
    let cases: [(&str, &str, u32, bool, &Ring); 3] = [
        (
            "envoy-ring-hash",
            "min_ring_size=12",
            90,
            false,
            &BASIC_RING,
        ),
        (
            "envoy-ring-hash",
            "min_ring_size=12,hash_function=murmur_hash_2",
            80,
            false,
            &MURMUR_RING,
        ),
        (
            "envoy-ring-hash",
            "minimum_ring_size=12",
            90,
            true,
            &HOSTNAME_RING,
        ),
    ];
    for (flavour, options, base, named, published) in cases {
        let got = run(flavour, options, &six(base, named));
        for (key, host) in keys.iter().zip(got) {
            let hash = xxhash64(key.as_bytes(), 0);
            assert_eq!(host, ring_host(published, base, hash), "{options} {key}");
        }
    }
    let basic_table = [2, 4, 0, 1, 5, 0, 3];
    let got = run("envoy-maglev", "table_size=7", &six(90, false));
    for (key, host) in keys.iter().zip(got) {
        let slot = (xxhash64(key.as_bytes(), 0) % 7) as usize;
        assert_eq!(host, basic_table[slot], "{key}");
    }
    let weighted_table = [1, 0, 0, 1, 0, 1, 1, 0, 1, 1, 1, 1, 1, 0, 1, 0, 1];
    let got = run(
        "envoy-maglev",
        "table_size=17",
        "127.0.0.1:90:1\n127.0.0.1:91:2\n",
    );
    for (key, host) in keys.iter().zip(got) {
        let slot = (xxhash64(key.as_bytes(), 0) % 17) as usize;
        assert_eq!(host, weighted_table[slot], "{key}");
    }
    let refused = Command::new(ketama_bin())
        .args([
            "find",
            "--flavor",
            "envoy-maglev",
            "--options",
            "table_size=8",
        ])
        .args(["--servers", "127.0.0.1:90", "key"])
        .output()
        .unwrap();
    assert!(!refused.status.success());
    let refused = Command::new(ketama_bin())
        .args([
            "find",
            "--flavor",
            "mcrouter-ch3",
            "--options",
            "table_size=7",
        ])
        .args(["--servers", "127.0.0.1:90", "key"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&refused.stderr).contains("takes no option table_size"));
}

/// lib/carbon/test/CarbonStructuresTest.cpp (kKeyLiteral, and the empty
/// key): the routing key is what the flavours hash.
#[test]
fn routing_keys_through_the_cli() {
    let key = "/region/cluster/abcdefghijklmnopqrstuvwxyz|#|afterhashstop";
    assert_eq!(routing_key(key.as_bytes()), b"abcdefghijklmnopqrstuvwxyz");
    assert_eq!(routing_key(b""), b"");
    let list: Vec<String> = (0..100)
        .map(|i| format!("10.0.{}.{}:11211", i / 256, i % 256))
        .collect();
    for flavour in ["mcrouter-ch3", "mcrouter-wch3", "mcrouter-crc32"] {
        let out = Command::new(ketama_bin())
            .args(["find", "--flavor", flavour, "--servers", &list.join(",")])
            .args(["--", key, "abcdefghijklmnopqrstuvwxyz", "sample"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let lines: Vec<String> = String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| l.split('\t').nth(1).unwrap().to_string())
            .collect();
        assert_eq!(lines[0], lines[1], "{flavour}: the routing key decides");
        let sample = if flavour == "mcrouter-crc32" { 7 } else { 97 };
        assert_eq!(
            lines[2], list[sample],
            "{flavour}: 'sample' over 100 servers"
        );
    }
}
