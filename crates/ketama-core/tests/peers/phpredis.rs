//! The `phpredis` and `phpredis-consistent` flavours against phpredis itself
//! (Debian `php8.2-redis`), asked in the same run through
//! ketama-testkit/peers/phpredis_peer.php: a `RedisArray` of the same host strings
//! (lazily connected: it computes a key's host without a server) names the
//! host of each key (`_target`). Every key must go to the same host, on 3,
//! 10 and 100 hosts, IPv6 and host names written with and without a port,
//! names from the name column, 60-byte host names, a host listed twice;
//! keys: 10,000 ASCII keys, `{tag}` keys (empty tags, NUL bytes, newlines),
//! non-ASCII and control bytes, and keys forged so that their CRC-32 lands
//! on each range end or point, one below and one above.

use ketama_testkit as common;
use ketama_testkit::peers;
use ketama_testkit::redis_clients;

use ketama_core::parser::peers as peer_lists;
use ketama_core::{Flavour, Ring};
use ketama_testkit::harness::{self, Case};
use peers::Weights;
use redis_clients::{ask, byte_keys, forged_keys, redis_lists, ring_of, some_points};

/// One array: our server lines (peer syntax) and the host strings
/// `RedisArray` is given.
struct Hosts {
    name: String,
    ours: String,
    hosts: Vec<String>,
}

fn standard() -> Vec<Hosts> {
    let mut all: Vec<Hosts> = redis_lists(&[Weights::None])
        .iter()
        .map(|list| {
            let hosts: Vec<String> = list.servers.iter().map(|s| s.address()).collect();
            Hosts {
                name: list.name.clone(),
                ours: hosts.join("\n") + "\n",
                hosts,
            }
        })
        .collect();
    let mixed = [
        "[::1]:6379",
        "[2001:db8::10]:7000",
        "redis-a.example:6379",
        "redis-b.example",
        "10.1.0.9",
    ];
    all.push(Hosts {
        name: "IPv6, host names, hosts without a port".into(),
        ours: mixed.join("\n") + "\n",
        hosts: mixed.map(String::from).to_vec(),
    });
    all.push(Hosts {
        name: "names from the name column".into(),
        ours: "10.1.0.1:6379 cache-a\n10.1.0.2:6379 cache-b\n10.1.0.3:6379 /run/redis.sock\n"
            .into(),
        hosts: ["cache-a", "cache-b", "/run/redis.sock"]
            .map(String::from)
            .to_vec(),
    });
    let long: Vec<String> = (0..4)
        .map(|i| format!("{}{i}.example:6379", "r".repeat(60 - 14)))
        .collect();
    assert!(long.iter().all(|h| h.len() == 60));
    all.push(Hosts {
        name: "60-byte host names".into(),
        ours: long.join("\n") + "\n",
        hosts: long,
    });
    let twice = [
        "10.1.0.1:6379",
        "10.1.0.2:6380",
        "10.1.0.1:6379",
        "10.1.0.3:6381",
    ];
    all.push(Hosts {
        name: "a host listed twice".into(),
        ours: twice.join("\n") + "\n",
        hosts: twice.map(String::from).to_vec(),
    });
    all
}

fn ring(hosts: &Hosts, flavour: Flavour) -> Ring {
    ring_of(
        peer_lists::parse(hosts.ours.as_bytes(), "servers").unwrap(),
        flavour,
    )
}

/// Every byte key, and keys forged onto the ring's points: the CRC-32 of
/// the key's tag is the range end (`phpredis`) or the register is the
/// point (`phpredis-consistent`), and one below and above. CRC-32
/// `0xffffffff`, past phpredis's host array, is left out.
fn keys_for(ring: &Ring, flavour: Flavour) -> Vec<Vec<u8>> {
    let mut keys = byte_keys();
    let consistent = flavour == Flavour::PhpredisConsistent;
    keys.extend(
        forged_keys(&some_points(ring, 300), consistent)
            .into_iter()
            .filter(|k| consistent || ketama_core::hash::crc::crc32(k) != u32::MAX),
    );
    keys
}

fn compare_arrays(flavour: Flavour, arrays: &[Hosts]) -> usize {
    redis_clients::require_php("extension_loaded('redis')", "php8.2-redis");
    let mode = if flavour == Flavour::Phpredis {
        "modulo"
    } else {
        "consistent"
    };
    // The peer names the host: a host listed twice is its first entry.
    let table: Vec<Case<&Hosts>> = arrays
        .iter()
        .map(|h| {
            let keys = keys_for(&ring(h, flavour), flavour);
            Case::new(format!("{} ({mode})", h.name), h, keys).named(&h.hosts)
        })
        .collect();
    let script = common::peer_program("phpredis_peer.php");
    let ask_phpredis = |table: &[Case<&Hosts>]| {
        let questions = harness::questions(table, |h| format!("{mode}\n{}\n", h.hosts.join("\n")));
        let (answers, said) = ask(
            "phpredis",
            &["php".as_ref(), script.as_os_str()],
            &questions,
        );
        print!("{said}");
        assert!(
            said.starts_with("phpredis 5.3"),
            "unexpected phpredis: {said}"
        );
        answers
    };
    harness::compare(flavour.name(), &table, ask_phpredis, |case| {
        ring(case.input, flavour)
    })
}

#[test]
fn redis_array_places_every_key_as_the_library_does() {
    let compared = compare_arrays(Flavour::Phpredis, &standard());
    assert!(compared >= 7 * 10_000);
    println!("{compared} keys, 0 differences");
}

#[test]
fn consistent_redis_array_places_every_key_as_the_library_does() {
    let compared = compare_arrays(Flavour::PhpredisConsistent, &standard());
    assert!(compared >= 7 * 10_000);
    println!("{compared} keys, 0 differences");
}

#[test]
fn weights_and_long_hosts_are_refused_with_the_reason() {
    let weighted = peer_lists::parse(b"10.1.0.1:6379:2\n10.1.0.2:6379\n", "servers").unwrap();
    for flavour in [Flavour::Phpredis, Flavour::PhpredisConsistent] {
        let err =
            ketama_core::Ring::new(weighted.clone(), ketama_core::RingConfig::flavour(flavour))
                .unwrap_err()
                .to_string();
        assert!(err.contains("has weight 2"), "{err}");
    }
    let long = format!("{}.example:6379", "r".repeat(50));
    let servers = peer_lists::parse(long.as_bytes(), "servers").unwrap();
    let err = ketama_core::Ring::new(
        servers,
        ketama_core::RingConfig::flavour(Flavour::PhpredisConsistent),
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("64-byte buffer"), "{err}");
}

#[test]
fn an_equal_point_of_two_hosts_goes_to_the_earlier_host() {
    let (hosts, ties) = redis_clients::list_with_ties(Flavour::PhpredisConsistent);
    let array = Hosts {
        name: format!(
            "{} and {}, sharing {} point(s)",
            hosts[0],
            hosts[1],
            ties.len()
        ),
        ours: hosts.join("\n") + "\n",
        hosts,
    };
    let mut keys = peers::keys();
    keys.extend(redis_clients::forged_keys(&ties, true));
    redis_clients::require_php("extension_loaded('redis')", "php8.2-redis");
    let script = common::peer_program("phpredis_peer.php");
    let table = [Case::new(array.name.as_str(), &array, keys)];
    let ask_phpredis = |table: &[Case<&Hosts>]| {
        let questions =
            harness::questions(table, |h| format!("consistent\n{}\n", h.hosts.join("\n")));
        ask(
            "phpredis-ties",
            &["php".as_ref(), script.as_os_str()],
            &questions,
        )
        .0
    };
    harness::compare(
        Flavour::PhpredisConsistent.name(),
        &table,
        ask_phpredis,
        |case| ring(case.input, Flavour::PhpredisConsistent),
    );
}
