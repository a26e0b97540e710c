//! The `redis-shard` flavour against redis-shard itself (PyPI redis-shard
//! 0.3.7 in target/redis-shard-venv, installed by `make deps`), asked in
//! the same run through ketama-testkit/peers/redis_shard_peer.py: a
//! `RedisShardAPI` of the server configurations its users write (dicts with
//! a `name`, `redis://…?name=` URLs) answers `get_server_name` for every
//! key. Its whole ring and every key must equal the library's, on 3, 10 and
//! 100 servers named by address, by short names and by URL, and two
//! servers sharing a point; keys: 10,000 ASCII keys, `{tag}` keys (greedy
//! tags, empty tags, newlines, NUL), bytes ≥ 0x80 (read as Latin-1 text),
//! control bytes, keys of 245 to 300 bytes, point labels, and keys forged
//! onto points, one below and above them, and past the last point (where
//! redis-shard does not wrap).

use ketama_testkit as common;
use ketama_testkit::peers;
use ketama_testkit::redis_clients;

use ketama_core::parser::peers as peer_lists;
use ketama_core::{Flavour, Ring};
use ketama_testkit::harness::{self, Case};
use peers::Weights;
use redis_clients::{ask, byte_keys, forged_keys, redis_lists, ring_of, some_points};

const FLAVOUR: Flavour = Flavour::RedisShard;

/// One pool: our server lines (peer syntax), redis-shard's server lines and
/// the names the ring is made of.
struct Pool {
    name: String,
    ours: String,
    peer: String,
    names: Vec<String>,
}

/// `(address, name)` pairs given to redis-shard as dicts (or as URLs with
/// `url`), and to the library as `ADDRESS NAME` lines.
fn pool(name: &str, pairs: &[(String, String)], url: bool) -> Pool {
    Pool {
        name: name.into(),
        ours: pairs.iter().map(|(a, n)| format!("{a} {n}\n")).collect(),
        peer: pairs
            .iter()
            .map(|(a, n)| {
                let (host, port) = a.rsplit_once(':').unwrap();
                if url {
                    format!("url redis://{a}/0?name={n}\n")
                } else {
                    format!("dict {n} {host} {port}\n")
                }
            })
            .collect(),
        names: pairs.iter().map(|(_, n)| n.clone()).collect(),
    }
}

fn standard() -> Vec<Pool> {
    let mut all = Vec::new();
    for list in redis_lists(&[Weights::None]) {
        let addressed: Vec<(String, String)> = list
            .servers
            .iter()
            .map(|s| (s.address(), s.address()))
            .collect();
        all.push(pool(
            &format!("{}, named by address", list.name),
            &addressed,
            false,
        ));
        let short: Vec<(String, String)> = list
            .servers
            .iter()
            .enumerate()
            .map(|(i, s)| (s.address(), format!("node{}", i + 1)))
            .collect();
        all.push(pool(
            &format!("{}, named node1..", list.name),
            &short,
            false,
        ));
    }
    let urls: Vec<(String, String)> = (0..10)
        .map(|i| {
            (
                format!("10.1.0.{}:{}", i + 1, 6379 + i),
                format!("shard-{i}"),
            )
        })
        .collect();
    all.push(pool("10 servers as redis:// URLs with ?name=", &urls, true));
    all
}

/// The library's ring for our server lines (names only in the name column,
/// so a pool named by address has its address as its name too).
fn ring(pool: &Pool) -> Ring {
    ring_of(
        peer_lists::parse(pool.ours.as_bytes(), "servers").unwrap(),
        FLAVOUR,
    )
}

/// Every byte key, the point labels of the first ten servers (tagged and
/// not), keys forged onto points, and keys past the last point.
fn keys_for(pool: &Pool, ring: &Ring) -> Vec<Vec<u8>> {
    let mut keys = byte_keys();
    for name in pool.names.iter().take(10) {
        keys.extend((0..20).map(|i| format!("{name}:{i}").into_bytes()));
        keys.extend((0..20).map(|i| format!("user:{{{name}:{i}}}").into_bytes()));
    }
    keys.extend(forged_keys(&some_points(ring, 300), false));
    keys.extend(peers::past_last_point_keys(ring, 50));
    keys
}

fn compare_pools(all: &[Pool], keys_of: impl Fn(&Pool, &Ring) -> Vec<Vec<u8>>) -> usize {
    let python = common::repo_root().join("target/redis-shard-venv/bin/python");
    let probe = std::process::Command::new(&python)
        .args(["-c", "import redis_shard.shard"])
        .output();
    assert!(
        probe.is_ok_and(|out| out.status.success()),
        "PyPI redis-shard is not installed in target/redis-shard-venv: run `make deps`"
    );
    let table: Vec<Case<&Pool>> = all
        .iter()
        .map(|p| Case::new(p.name.as_str(), p, keys_of(p, &ring(p))))
        .collect();
    let script = common::peer_program("redis_shard_peer.py");
    let ask_redis_shard = |table: &[Case<&Pool>]| {
        let questions = harness::questions(table, |p| p.peer.clone());
        let (answers, said) = ask(
            "redis-shard",
            &[python.as_os_str(), script.as_os_str()],
            &questions,
        );
        print!("{said}");
        assert!(
            said.starts_with("redis-shard 0.3.7"),
            "unexpected redis-shard: {said}"
        );
        for (case, answer) in table.iter().zip(&answers) {
            assert!(answer.continuum.is_some(), "{}: no ring shown", case.name);
        }
        answers
    };
    harness::compare(FLAVOUR.name(), &table, ask_redis_shard, |case| {
        ring(case.input)
    })
}

#[test]
fn redis_shard_api_places_every_key_as_the_library_does() {
    let compared = compare_pools(&standard(), keys_for);
    assert!(compared >= 7 * 10_000);
    println!("{compared} keys, 0 differences");
}

#[test]
fn an_equal_point_of_two_servers_goes_to_the_later_server() {
    let (hosts, ties) = redis_clients::list_with_ties(FLAVOUR);
    let pairs: Vec<(String, String)> = hosts.iter().map(|h| (h.clone(), h.clone())).collect();
    let tied = pool(
        &format!(
            "{} and {}, sharing {} point(s)",
            hosts[0],
            hosts[1],
            ties.len()
        ),
        &pairs,
        false,
    );
    compare_pools(&[tied], move |_, _| {
        let mut keys = peers::keys();
        keys.extend(forged_keys(&ties, false));
        keys
    });
}

#[test]
fn weights_and_two_servers_of_one_name_are_refused() {
    let refused = |text: &[u8]| {
        let servers = peer_lists::parse(text, "servers").unwrap();
        Ring::new(servers, ketama_core::RingConfig::flavour(FLAVOUR))
            .unwrap_err()
            .to_string()
    };
    let err = refused(b"10.1.0.1:6379:3 node1\n");
    assert!(err.contains("redis-shard has no weights"), "{err}");
    let err = refused(b"10.1.0.1:6379 node1\n10.1.0.2:6379 node1\n");
    assert!(err.contains("two servers are named 'node1'"), "{err}");
}
